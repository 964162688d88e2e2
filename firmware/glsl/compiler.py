"""The compiler's entry point: GLSL source -> R500 assembly, words and the interface."""

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

__all__ = ["compile_glsl", "Limits", "Compiled"]


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


def _interface(lowered, selection, inputs_read):
    pool = selection.pool
    uniforms = {key: [] for key in lowered.uniform_keys}
    for leaf, (reg, first) in pool.leaf_place.items():
        entries = uniforms[leaf.key]
        need = leaf.offset + leaf.size
        while len(entries) < need:
            entries.append(None)
        for i in range(leaf.size):
            entries[leaf.offset + i] = [reg, first + i]
    uniforms = {k: v for k, v in uniforms.items()}
    for k, v in uniforms.items():
        if any(e is None for e in v):          # part of a matrix never read
            uniforms[k] = [e for e in v if e is not None] if all(e is None for e in v) \
                else v
    constants = {}
    for reg, values in pool.defaults.items():
        constants[reg] = list(values)
    constants.update(pool.literal_values())
    int_consts = {0: 255} if selection.loops else {}
    return {"uniforms": uniforms, "samplers": dict(lowered.samplers),
            "inputs": inputs_read,
            "constants": {str(k): v for k, v in sorted(constants.items())},
            "int_consts": {str(k): v for k, v in int_consts.items()}}, constants, int_consts


_INPUT_NAMES = {0: "theia_TextureColor/theia_Hit", 1: "theia_LastUVT", 2: "theia_UV0",
                3: "theia_UV1", 4: "theia_UV2", 5: "theia_E1", 6: "theia_E2",
                7: "theia_Diffuse", 8: "theia_RayDirection", 9: "gl_FragCoord/theia_Pixel"}


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
    inputs_read = sorted(_INPUT_NAMES[t] for t in selection.inputs)
    name = PurePath(path).name
    asm = emit_program(selection.items, source.splitlines(),
                       header=[f"{name}: compiled from GLSL by firmware.glsl"])
    try:
        program = assemble(asm, path=None)
    except R500AsmError as e:
        raise AssertionError(f"the compiler made assembly the assembler refuses: {e}\n{asm}")
    if program.instructions > limits.instructions:      # an instruction past an end loop
        raise GlslError(f"the shader needs more than {limits.instructions} instructions "
                        f"(the build's limit)", None)
    interface, constants, int_consts = _interface(lowered, selection, inputs_read)
    return Compiled(asm, program, interface, constants, int_consts)
