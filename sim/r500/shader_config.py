"""An R500 program and its host state from files: the ``[shader]`` section of a scene
description, a constants or uniforms file, the shaders of ``firmware/r500_shaders`` by name
(docs/r500-shading.md). A program is assembly or words (``.asm .inc .hex .bin``) with its
constants by index, or GLSL (``.frag``, sim/r500/glsl_shading.py) with its uniforms and
samplers by name.

Values follow the quad job's rules (r500-us.md §4.3): a number is rounded to the nearest
binary32, a string "0x…" is the exact bit pattern; indices are table keys ("3" in JSON, a bare
``3`` in TOML). Every problem is a SceneError of one line naming the file and the key.
"""

import dataclasses
from pathlib import Path

from firmware import R500_SHADER_DIR
from hdl.isa import R500_CONSTS, R500_MAX_INSTRUCTIONS, R500_WORDS_PER_INSTRUCTION
from sim.r500.glsl_shading import (compile_frag, is_glsl, named_samplers,
                                   uniform_constants)
from sim.r500.job import (INT_CONSTS, SAMPLERS, WORD_LIMIT, ValueReader, read_program_file,
                          read_sampler)
from sim.r500.shading import DEFAULT_MAX_INSTRUCTIONS, R500Shading
from sim.scene import SceneError
from sim.settings import read_settings

__all__ = ["SHADER_DIR", "SHADER_KEYS", "shader_path", "load_constants", "load_uniforms",
           "shading_from_table", "load_shading", "with_uniforms"]

#: the project's own shaders, which ``--shader NAME`` finds by name (package data)
SHADER_DIR = R500_SHADER_DIR
SHADER_KEYS = {"program", "constants", "uniforms", "bools", "int_consts", "samplers",
               "max_instructions"}
#: the keys of a [shader] table that only assembly takes (a .frag's come from its compiler)
ASSEMBLY_KEYS = ("constants", "bools", "int_consts")


class _Values(ValueReader):
    """The job's value checks, failing with a SceneError that names ``path``."""

    def __init__(self, path):
        super().__init__(str(path))
        self.path = path

    def fail(self, where, problem):
        problem = " ".join(str(problem).split())
        raise SceneError(self.path, f"{where}: {problem}" if where else problem)


def _own_shader(name):
    """Our shader ``name`` names, or None: a file name in SHADER_DIR (``lit.frag``,
    ``lit.asm``), or a bare name, which is the assembly (``lit``: lit.asm)."""
    path = Path(name)
    if len(path.parts) != 1:
        return None
    own = SHADER_DIR / (path.name if path.suffix else f"{path.name}.asm")
    return own if own.is_file() else None


def _own_names():
    return ", ".join(sorted([p.stem for p in SHADER_DIR.glob("*.asm")] +
                            [p.name for p in SHADER_DIR.glob("*.frag")]))


def shader_path(name):
    """The program file ``name`` names: a file, else one of ours by file name (``lit.frag``)
    or by bare name (``lit`` is firmware/r500_shaders/lit.asm)."""
    path = Path(name)
    if path.is_file():
        return path
    own = _own_shader(name)
    if own is None:
        raise SceneError(path, f"no such program file, nor a shader of that name "
                               f"({_own_names()})")
    return own


def _table_program(base, name):
    """The program file of a ``[shader]`` table: ``name`` relative to the scene's directory
    ``base``, or, where there is no such file, one of ours by name (so a scene needs no path
    into the package)."""
    path = base / name
    own = _own_shader(name)
    return own if own is not None and not path.exists() else path


def _program(values, path, where):
    """(words, END_ADDR) of a program file, which must hold 1 … 512 instructions."""
    words, end = read_program_file(values, path, where)
    count = len(words) // R500_WORDS_PER_INSTRUCTION
    if not 0 < count <= R500_MAX_INSTRUCTIONS:
        values.fail(where, f"{path}: {count} instructions (a program has 1 … "
                           f"{R500_MAX_INSTRUCTIONS})")
    return words, end


def _constants(values, table, where):
    return values.index_map(table, where, R500_CONSTS, values.vec4)


def load_constants(path):
    """{index: [r, g, b, a] words} of a constants file: a JSON object or a TOML table of
    index -> four values."""
    return _constants(_Values(path), read_settings(path)[0], "constants")


def load_uniforms(path):
    """(the table, its value reader, its key) of a uniforms file: a JSON object or a TOML
    table of uniform name -> value(s), for ``uniform_constants``."""
    return read_settings(path)[0], _Values(path), "uniforms"


def _not_glsl(program, constants_how):
    return (f"{program} is assembly: uniforms by name need a GLSL program (.frag); give its "
            f"constants {constants_how}")


def _glsl_shading(path, uniforms, samplers=None, max_instructions=DEFAULT_MAX_INSTRUCTIONS):
    """The R500Shading of the GLSL program ``path`` with ``uniforms`` (as ``load_uniforms``
    gives them) and ``samplers`` (``(table, reader, key, read)`` of sampler tables by name, or
    None)."""
    compiled = compile_frag(path)
    constants = uniform_constants(compiled.interface, *uniforms, path.name)
    return R500Shading(
        list(compiled.words), end=compiled.program.end_addr, constants=constants,
        int_consts={int(k): v for k, v in compiled.int_consts.items()},
        samplers=named_samplers(compiled.interface, *samplers, path.name) if samplers else {},
        max_instructions=max_instructions, source=str(path), interface=compiled.interface)


def with_uniforms(shading, path):
    """``shading`` (a GLSL program's) with the uniforms of the file ``path`` in place of its
    own (``--uniforms`` alone)."""
    if shading.interface is None:
        raise SceneError("--uniforms", _not_glsl(shading.source, "with --constants"))
    constants = uniform_constants(shading.interface, *load_uniforms(path),
                                  Path(shading.source).name)
    return dataclasses.replace(shading, constants=constants)


def _glsl_from_table(table, values, base, program, read):
    """The R500Shading of a ``[shader]`` table that names a .frag: uniforms and samplers by
    name; the constants, booleans and integer constants are the compiler's."""
    for key in ASSEMBLY_KEYS:
        if key in table:
            values.fail(f"shader.{key}", f"{program.name} is GLSL: its constants come from its "
                                         f"uniforms, given by name (shader.uniforms)")
    if not program.is_file():
        values.fail("shader.program", f"no file {str(program)!r}")
    uniforms = table.get("uniforms", {})
    uniforms = (load_uniforms(base / uniforms) if isinstance(uniforms, str)
                else (uniforms, values, "shader.uniforms"))
    return _glsl_shading(
        program, uniforms, (table.get("samplers", {}), values, "shader.samplers", read),
        values.integer(table.get("max_instructions", DEFAULT_MAX_INSTRUCTIONS),
                       "shader.max_instructions", 1, WORD_LIMIT))


def shading_from_table(table, path, texture_words):
    """The R500Shading of a scene's ``[shader]`` table read from the file ``path`` (program,
    constants and uniforms file names are relative to it)."""
    values = _Values(path)
    values.object(table, "shader", SHADER_KEYS)
    if "program" not in table:
        values.fail("shader.program", "missing (the program file, relative to the scene)")
    if not isinstance(table["program"], str):
        values.fail("shader.program", "expected a file name")
    base = Path(path).parent
    program = _table_program(base, table["program"])

    def sampler(value, at):
        return read_sampler(values, value, at, texture_words)
    if is_glsl(program):
        return _glsl_from_table(table, values, base, program, sampler)
    if "uniforms" in table:
        values.fail("shader.uniforms", _not_glsl(program.name, "by index (shader.constants)"))
    words, end = _program(values, program, "shader.program")
    constants = table.get("constants", {})
    if isinstance(constants, str):
        constants = load_constants(base / constants)
    else:
        constants = _constants(values, constants, "shader.constants")
    return R500Shading(
        words, end=end, constants=constants,
        bools=values.word(table.get("bools", 0), "shader.bools"),
        int_consts=values.index_map(table.get("int_consts", {}), "shader.int_consts",
                                    INT_CONSTS, values.word),
        samplers=values.index_map(table.get("samplers", {}), "shader.samplers", SAMPLERS,
                                  sampler),
        max_instructions=values.integer(table.get("max_instructions", DEFAULT_MAX_INSTRUCTIONS),
                                        "shader.max_instructions", 1, WORD_LIMIT),
        source=str(program))


def load_shading(program, constants=None, uniforms=None):
    """The R500Shading of ``--shader PROGRAM [--constants FILE | --uniforms FILE]``: a
    program file or the name of one of ours, with the constants of a constants file
    (assembly) or the uniforms of a uniforms file (GLSL), no booleans or samplers. Problems in
    an assembly program are SceneErrors that start ``--shader: ``; a .frag's compile error is
    a ShaderSourceError."""
    path = shader_path(program)
    if is_glsl(path):
        if constants:
            raise SceneError("--constants", f"{path.name} is GLSL: give its uniforms by name "
                                            f"with --uniforms")
        return _glsl_shading(path, load_uniforms(uniforms) if uniforms
                             else ({}, _Values("--uniforms"), "uniforms"))
    if uniforms:
        raise SceneError("--uniforms", _not_glsl(path.name, "with --constants"))
    words, end = _program(_Values("--shader"), path, "")
    return R500Shading(words, end=end, source=str(path),
                       constants=load_constants(constants) if constants else {})
