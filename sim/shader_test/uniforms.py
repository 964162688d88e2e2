"""``uniform TYPE NAME values``: the GLSL 1.20 uniform types, and the values written into the
program's constants at the slots the compiler's interface names.

Every scalar component is a binary32 word in one channel of one constant: the interface's
``[constant, channel]`` pairs, in GLSL order (null for a component the program does not read;
a matrix column-major, as piglit passes it to ``glUniformMatrix*fv`` untransposed). A float
is the nearest binary32 (a ``0x`` word is that bit pattern), an int a float, a bool 1.0 or
0.0. The values are read as piglit's runner reads them, one strtod (strtol) after another:
a word with something after its number (``1.5,``) stops the reading there, and the
components not read yet are 0 (``uniform vec4 v 0.5 1.5, 2.0`` sets (0.5, 1.5, 0, 0)); a
first value that is no number at all is an error. A sampler uniform (``uniform int tex 1``) names the texture unit its sampler reads.
Several elements of an array may be set at once (``uniform vec4 a[1] …`` with two vec4s sets
``a[1]`` and ``a[2]``).

A uniform the interface does not list but the shader's text names is one the compiler found
unused: setting it changes nothing (as in GL, where it has no location, piglit's tests do not
set such uniforms; the compiler may drop more than a GL driver would). A name the shader does
not have at all is a failure.
"""

import re

from sim.r500 import fp32
from sim.shader_test.commands import parse_float, parse_int
from sim.shader_test.errors import Failure, ShaderTestError, Skip
from sim.shader_test.shaders import declares

__all__ = ["UNIFORM_TYPES", "Uniforms", "constant_word"]

_VECTORS = {f"{prefix}vec{n}": (kind, n) for prefix, kind in (("", "float"), ("i", "int"),
                                                               ("b", "bool")) for n in (2, 3, 4)}
_MATRICES = {f"mat{c}x{r}": ("float", c * r) for c in (2, 3, 4) for r in (2, 3, 4)}
_MATRICES.update({f"mat{n}": ("float", n * n) for n in (2, 3, 4)})
#: type -> (component kind, components per element)
UNIFORM_TYPES = {"float": ("float", 1), "int": ("int", 1), "bool": ("bool", 1), **_VECTORS,
                 **_MATRICES}
_NEWER = re.compile(r"^(u?int(8|16|64)?_t|uint|u?(i|u|d|i64|u64|i8|u8|i16|u16)vec\d|dmat\w*|"
                    r"double|int64_t|uint64_t|float16_t|f16vec\d)$")
_INDEX = re.compile(r"^(.*)\[(\d+)\]$")
#: the number at the start of a value word, as strtod (float) or strtol base 0 (int) reads it
_PREFIX = {
    "float": re.compile(r"[+-]?(0[xX][0-9a-fA-F]+(\.[0-9a-fA-F]*)?([pP][+-]?\d+)?|"
                        r"(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|inf(inity)?|nan)", re.I),
    "int": re.compile(r"[+-]?(0[xX][0-9a-fA-F]+|\d+)"),
}


def constant_word(value):
    """A binary32 word of a JSON-style value: a number rounded to the nearest binary32 and
    flushed, or a "0x…" string as that bit pattern."""
    if isinstance(value, str):
        return int(value, 16) & 0xFFFF_FFFF
    return fp32.flush(fp32.from_float(float(value)))


def _component(kind, word):
    """The binary32 word of one written component."""
    if kind == "float":
        value = parse_float(word)
        return value if isinstance(value, int) else fp32.flush(fp32.from_float(value))
    if kind == "bool" and word.lower() in ("true", "false"):
        return fp32.from_float(1.0 if word.lower() == "true" else 0.0)
    number = parse_int(word)
    if kind == "bool":
        number = 1 if number else 0
    return fp32.from_float(float(number))


def _read_words(kind, words, size):
    """The words of ``words`` as piglit's strtod/strtol loop reads them: each word's leading
    number; a word with more after it ends the reading, and the components left of the last
    element read 0."""
    read = []
    for word in words:
        if kind == "bool" and word.lower() in ("true", "false"):
            read.append(word)
            continue
        match = _PREFIX["float" if kind == "float" else "int"].match(word)
        if match is None:
            if not read:
                raise ValueError(f"{word!r} is not a number")
            break
        read.append(match.group(0))
        if match.end() < len(word):
            break
    else:
        return read
    return read + ["0"] * (-len(read) % size)


def _element_names(name, count, known):
    """The names of ``count`` consecutive elements starting with ``name``."""
    index = _INDEX.match(name)
    if index is None:
        if count == 1 and f"{name}[0]" not in known:
            return [name]
        return [f"{name}[{i}]" for i in range(count)]
    base, first = index.group(1), int(index.group(2))
    return [f"{base}[{first + i}]" for i in range(count)]


class Uniforms:
    """The constants and sampler units of a compiled program as the uniform commands set them.
    ``interface``: the compiler's; ``constants`` its own constants ({index: [4 words]});
    ``source``: the fragment shader's comment-free text (to tell an unused uniform from a
    name the shader does not have)."""

    def __init__(self, interface, constants, source, path):
        self.slots = {name: [None if s is None else tuple(s) for s in slots]
                      for name, slots in interface.get("uniforms", {}).items()}
        self.samplers = dict(interface.get("samplers", {}))
        self.constants = {int(i): list(v) for i, v in constants.items()}
        self.units = {}                  # sampler name -> texture unit
        self.source = source
        self.path = path

    def set(self, command):
        """Apply a UniformSet command."""
        kind, size = self._type(command)
        try:
            values = _read_words(kind, command.values, size)
            if not values or len(values) % size:
                raise ValueError(f"uniform {command.type} {command.name} needs a multiple of "
                                 f"{size} values, got {len(values)}")
            words = [_component(kind, w) for w in values]
        except ValueError as error:
            raise ShaderTestError(self.path, command.line, error) from None
        count = len(words) // size
        known = set(self.slots) | set(self.samplers)
        for k, name in enumerate(_element_names(command.name, count, known)):
            self._set_element(command, name, kind, words[k * size:(k + 1) * size])

    def _type(self, command):
        if command.type in UNIFORM_TYPES:
            return UNIFORM_TYPES[command.type]
        if _NEWER.match(command.type):
            raise Skip(f"uniform type {command.type} (newer than GLSL 1.20)")
        raise ShaderTestError(self.path, command.line, f"unknown uniform type {command.type!r}")

    def _set_element(self, command, name, kind, words):
        if name in self.samplers:
            if kind != "int" or len(words) != 1:
                raise Failure(f"line {command.line}: the sampler {name} is set with an int")
            self.units[name] = int(fp32.to_float(words[0]))
            return
        slots = self.slots.get(name)
        if slots is None:
            base = re.split(r"[\[.]", name, maxsplit=1)[0]
            if declares(self.source, base):
                return                   # declared, but the program does not read it
            raise Failure(f"line {command.line}: the fragment shader has no uniform {name!r}")
        if not any(slots):
            return                      # listed, but the program reads none of it
        if len(slots) != len(words):
            raise Failure(f"line {command.line}: uniform {command.type} {name} gives "
                          f"{len(words)} components, the shader's {name} has {len(slots)}")
        for slot, word in zip(slots, words):
            if slot is not None:            # None: a component the program does not read
                index, channel = slot
                self.constants.setdefault(index, [0, 0, 0, 0])[channel] = word

    def snapshot(self):
        """The constants as they are now ({index: (4 words)})."""
        return {index: tuple(value) for index, value in self.constants.items()}
