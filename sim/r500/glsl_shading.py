"""A GLSL fragment shader (``.frag``) as a scene's R500 program: compiled by ``firmware.glsl``,
its uniforms given by name and written into the constant slots the compiler's interface names,
its samplers set up by name (docs/r500-shading.md, docs/glsl.md "The program's interface").

A uniform's value is a number, a bool (1.0 / 0.0), a ``"0x…"`` bit pattern, or a list of them
with one value per scalar component in GLSL order (a matrix column by column; nested lists are
read in order). An array may be given whole (``weights = [0.25, 0.5]``, ``lights = [[…], […]]``)
or element by element (``"weights[1]" = 0.5``), a struct as a table of its members. Uniforms
not given are 0, except those with a GLSL 1.20 initialiser, which the compiler's own constants
set (written first). A name the program does not have, or a wrong number of values, is a
SceneError of one line naming the file and the uniform; a compile error is a ShaderSourceError,
the compiler's own line ``file:line:column: problem``.
"""

import json
import re
from pathlib import Path

from firmware.glsl import GlslError, compile_glsl
from sim.scene import SceneError

__all__ = ["GLSL_SUFFIX", "ShaderSourceError", "is_glsl", "compile_frag", "uniform_constants",
           "named_samplers"]

GLSL_SUFFIX = ".frag"
_PARTS = re.compile(r"[.\[]")


class ShaderSourceError(SceneError):
    """A ``.frag`` the compiler rejects: ``str()`` is its line ``file:line:column: problem``.
    Tools print that line as it is and exit with status 2, as ``python -m firmware.glsl``
    does (sim.errors.cli_errors)."""

    def __init__(self, error):
        super().__init__(error.path, error.message)
        self.args = (str(error),)


def is_glsl(path):
    return Path(path).suffix.lower() == GLSL_SUFFIX


def compile_frag(path):
    """The ``firmware.glsl`` Compiled of the file ``path`` (for the build's full limits)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SceneError(path, "file not found") from None
    except (OSError, UnicodeDecodeError) as e:
        raise SceneError(path, f"cannot read: {e}") from None
    try:
        return compile_glsl(text, path=str(path))
    except GlslError as e:
        raise ShaderSourceError(e) from None


def _names(items):
    return ", ".join(sorted(items)) or "none"


def _table(values, table, where):
    if not isinstance(table, dict):
        values.fail(where, "expected a table of names")


def _scalars(values, value, where):
    """The binary32 words of a uniform's value (nested lists flattened in order)."""
    if isinstance(value, list):
        return [w for i, v in enumerate(value) for w in _scalars(values, v, f"{where}[{i}]")]
    if isinstance(value, bool):
        value = 1.0 if value else 0.0
    return [values.value(value, where)]


class _Leaves:
    """The interface's uniforms by name, and the names a table's keys may build up to them
    (an array's or a struct's own name)."""

    def __init__(self, interface):
        self.slots = interface.get("uniforms", {})
        self.prefixes = {name[:m.start()] for name in self.slots for m in _PARTS.finditer(name)}

    def walk(self, name, value):
        """(uniform name, value) of every uniform ``name = value`` sets."""
        if name in self.prefixes and isinstance(value, dict):
            for member, item in value.items():
                yield from self.walk(f"{name}.{member}", item)
        elif name in self.prefixes and isinstance(value, list) and name not in self.slots:
            for i, item in enumerate(value):
                yield from self.walk(f"{name}[{i}]", item)
        else:
            yield name, value


def uniform_constants(interface, table, values, where, program):
    """{constant index: [r, g, b, a] words} of a compiled program (``interface``, the
    compiler's) with the uniforms of ``table`` ({name: value}) set: the compiler's own
    constants first, then each uniform at its slots. ``values`` reads values and fails naming
    the file (sim.r500.job.ValueReader); ``where`` is the table's key, ``program`` names the
    .frag in messages."""
    _table(values, table, where)
    constants = {int(index): [values.value(v, f"{program}: constants[{index}]") for v in value]
                 for index, value in interface.get("constants", {}).items()}
    leaves = _Leaves(interface)
    for key, item in table.items():
        for name, value in leaves.walk(key, item):
            at = f"{where}[{json.dumps(name)}]"
            if name not in leaves.slots:
                values.fail(at, f"{program} has no uniform {name!r} (its uniforms: "
                                f"{_names(leaves.slots)})")
            words, slots = _scalars(values, value, at), leaves.slots[name]
            if slots and len(words) != len(slots):
                values.fail(at, f"{len(words)} values for {len(slots)} components")
            for (index, channel), word in zip(slots, words):
                constants.setdefault(index, [0, 0, 0, 0])[channel] = word
    return constants


def named_samplers(interface, table, values, where, read, program):
    """{TEX_ID: Sampler} of ``table`` ({sampler uniform name: sampler table}), each read by
    ``read(value, where)``."""
    ids = interface.get("samplers", {})
    _table(values, table, where)
    samplers = {}
    for name, value in table.items():
        at = f"{where}[{json.dumps(name)}]"
        if name not in ids:
            values.fail(at, f"{program} has no sampler {name!r} (its samplers: {_names(ids)})")
        samplers[ids[name]] = read(value, at)
    return samplers
