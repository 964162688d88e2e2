"""An R500 program and its host state from files: the ``[shader]`` section of a scene
description, a constants file, the shaders of ``firmware/r500_shaders`` by name
(docs/r500-shading.md).

Values follow the quad job's rules (r500-us.md §4.3): a number is rounded to the nearest
binary32, a string "0x…" is the exact bit pattern; indices are table keys ("3" in JSON, a bare
``3`` in TOML). Every problem is a SceneError of one line naming the file and the key.
"""

from pathlib import Path

from firmware import R500_SHADER_DIR
from hdl.isa import R500_CONSTS, R500_MAX_INSTRUCTIONS, R500_WORDS_PER_INSTRUCTION
from sim.r500.job import (INT_CONSTS, SAMPLERS, WORD_LIMIT, ValueReader, read_program_file,
                          read_sampler)
from sim.r500.shading import DEFAULT_MAX_INSTRUCTIONS, R500Shading
from sim.scene import SceneError
from sim.settings import read_settings

__all__ = ["SHADER_DIR", "SHADER_KEYS", "shader_path", "load_constants", "shading_from_table",
           "load_shading"]

#: the project's own shaders, which ``--shader NAME`` finds by name (package data)
SHADER_DIR = R500_SHADER_DIR
SHADER_KEYS = {"program", "constants", "bools", "int_consts", "samplers", "max_instructions"}


class _Values(ValueReader):
    """The job's value checks, failing with a SceneError that names ``path``."""

    def __init__(self, path):
        super().__init__(str(path))
        self.path = path

    def fail(self, where, problem):
        problem = " ".join(str(problem).split())
        raise SceneError(self.path, f"{where}: {problem}" if where else problem)


def shader_path(name):
    """The program file ``name`` names: a path, or the stem of a shader in SHADER_DIR
    (``lit`` is firmware/r500_shaders/lit.asm)."""
    path = Path(name)
    if path.is_file():
        return path
    own = SHADER_DIR / f"{name}.asm"
    if own.is_file():
        return own
    names = ", ".join(sorted(p.stem for p in SHADER_DIR.glob("*.asm")))
    raise SceneError(path, f"no such program file, nor a shader of that name ({names})")


def _table_program(base, name):
    """The program file of a ``[shader]`` table: ``name`` relative to the scene's directory
    ``base``, or, where there is no such file and ``name`` has no suffix, one of our shaders
    by name (so a scene needs no path into the package)."""
    path = base / name
    own = SHADER_DIR / f"{name}.asm"
    if not path.exists() and not Path(name).suffix and own.is_file():
        return own
    return path


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


def shading_from_table(table, path, texture_words):
    """The R500Shading of a scene's ``[shader]`` table read from the file ``path`` (program
    and constants file names are relative to it)."""
    values = _Values(path)
    values.object(table, "shader", SHADER_KEYS)
    if "program" not in table:
        values.fail("shader.program", "missing (the program file, relative to the scene)")
    if not isinstance(table["program"], str):
        values.fail("shader.program", "expected a file name")
    base = Path(path).parent
    program = _table_program(base, table["program"])
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
        samplers=values.index_map(
            table.get("samplers", {}), "shader.samplers", SAMPLERS,
            lambda v, at: read_sampler(values, v, at, texture_words)),
        max_instructions=values.integer(table.get("max_instructions", DEFAULT_MAX_INSTRUCTIONS),
                                        "shader.max_instructions", 1, WORD_LIMIT),
        source=str(program))


def load_shading(program, constants=None):
    """The R500Shading of ``--shader PROGRAM [--constants FILE]``: a program file or the name
    of one of ours, no booleans, integer constants or samplers. Problems in the program are
    SceneErrors that start ``--shader: ``."""
    path = shader_path(program)
    words, end = _program(_Values("--shader"), path, "")
    return R500Shading(words, end=end, source=str(path),
                       constants=load_constants(constants) if constants else {})
