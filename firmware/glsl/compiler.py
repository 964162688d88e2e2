"""The compiler's entry point: GLSL source -> R500 assembly, words and the interface."""

import json
from dataclasses import dataclass, field
from pathlib import PurePath

from firmware.glsl.check import check
from firmware.glsl.emit import emit_program
from firmware.glsl.errors import GlslError
from firmware.glsl.lexer import tokenize
from firmware.glsl.lower import lower_program
from firmware.glsl.lower_expr import ConstantEvaluator
from firmware.glsl.machine import Block
from firmware.glsl.parser import parse
from firmware.glsl.peephole import fold_outputs
from firmware.glsl.preprocessor import preprocess
from firmware.glsl.regalloc import allocate
from firmware.glsl.schedule import schedule_block
from firmware.glsl.select import select
from firmware.r500asm import R500AsmError, assemble
from hdl.isa import R500_CONSTS, R500_MAX_INSTRUCTIONS, R500_SAMPLERS, R500_TEMPS

__all__ = ["compile_glsl", "Limits", "Compiled", "format_interface"]


@dataclass(frozen=True)
class Limits:
    """The build's resources a program may use."""
    temporaries: int = R500_TEMPS
    constants: int = R500_CONSTS
    instructions: int = R500_MAX_INSTRUCTIONS
    samplers: int = R500_SAMPLERS


@dataclass
class Compiled:
    asm: str
    program: object                 # firmware.r500asm.R500Program
    interface: dict
    constants: dict = field(default_factory=dict)
    int_consts: dict = field(default_factory=dict)

    @property
    def words(self):
        return self.program.words

    @property
    def instructions(self):
        return self.program.instructions


def _interface(lowered, selection):
    pool = selection.pool
    uniforms = {key: [] for key in lowered.uniform_keys}
    for leaf, (reg, first) in sorted(pool.leaf_place.items(), key=lambda kv: kv[0].offset):
        uniforms[leaf.key].extend([reg, first + i] for i in range(leaf.size))
    constants = {reg: list(values) for reg, values in pool.defaults.items()}
    constants.update(pool.literal_values())
    int_consts = {0: 255} if selection.loops else {}
    return {"uniforms": uniforms, "samplers": dict(lowered.samplers),
            "inputs": lowered.inputs_read,
            "constants": {str(k): v for k, v in sorted(constants.items())},
            "int_consts": {str(k): v for k, v in int_consts.items()}}, constants, int_consts


def format_interface(interface):
    """The interface as JSON text, one line per uniform, sampler and constant."""
    def block(name, items, last=False):
        if not items:
            return f' "{name}": {{}}' + ("" if last else ",")
        lines = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in items.items())
        return f' "{name}": {{\n{lines}\n }}' + ("" if last else ",")
    parts = [block("uniforms", interface["uniforms"]),
             block("samplers", interface["samplers"]),
             f' "inputs": {json.dumps(interface["inputs"])},',
             block("constants", interface["constants"]),
             block("int_consts", interface["int_consts"], last=True)]
    return "{\n" + "\n".join(parts) + "\n}\n"


def _position_of(item, limits, count):
    """The source position of the first instruction past the limit."""
    if not isinstance(item, Block):
        return item.pos
    first = len(item.instrs) - (count - limits.instructions)
    for instr in item.instrs[first:]:
        for m in instr.mops():
            if m.pos is not None:
                return m.pos
    return None


def compile_glsl(source, path="shader.frag", limits=Limits()):
    """Compile a GLSL 1.10/1.20 fragment shader; raises GlslError."""
    path = str(path)
    try:
        return _compile(source, path, limits)
    except GlslError as e:
        e.path = e.path or path
        raise


def _compile(source, path, limits):
    tokens, version = preprocess(tokenize(source))
    unit = parse(tokens, version)
    checked = check(unit, limits, ConstantEvaluator())
    lowered = lower_program(checked, limits)
    selection = select(lowered, limits)
    fold_outputs(selection.items)
    count = 0
    for item in selection.items:
        if isinstance(item, Block):
            item.instrs = schedule_block(item.mops)
            count += len(item.instrs)
        else:
            count += 1
        if count > limits.instructions:
            raise GlslError(f"the shader needs more than {limits.instructions} instructions "
                            f"(the build's limit)", _position_of(item, limits, count))
    allocate(selection.items, list(selection.inputs.values()), limits)
    name = PurePath(path).name
    asm = emit_program(selection.items, source.splitlines(),
                       header=[f"{name}: compiled from GLSL by firmware.glsl"])
    try:
        program = assemble(asm, path=None)
    except R500AsmError as e:
        raise AssertionError(f"the compiler made assembly the assembler refuses: {e}\n{asm}")
    asm = asm.replace(" by firmware.glsl\n", f" by firmware.glsl "
                      f"({program.instructions} instructions)\n", 1)
    if program.instructions > limits.instructions:      # an instruction past an end loop
        raise GlslError(f"the shader needs more than {limits.instructions} instructions "
                        f"(the build's limit)", None)
    interface, constants, int_consts = _interface(lowered, selection)
    return Compiled(asm, program, interface, constants, int_consts)
