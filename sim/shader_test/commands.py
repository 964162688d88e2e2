"""The [test] section's commands, read into small records (``parse_commands``).

Numbers are read as piglit's runner reads them: floats as C's strtod does (a ``0x`` word in a
float uniform is a bit pattern), integers as strtol with base 0 (``0x`` hex, a leading 0
octal); probe coordinates are truncated to integers. A probe or ``clear color`` may give more
values than it needs (piglit ignores the rest); fewer is malformed. A command this runner does
not offer makes the file a skip naming it.
"""

import re
from dataclasses import dataclass

from sim.shader_test.errors import ShaderTestError, Skip

__all__ = ["ClearColor", "Clear", "DrawRect", "Ortho", "Probe", "Tolerance", "UniformSet",
           "TextureImage", "TexParameter", "LinkCheck", "parse_commands", "parse_float",
           "parse_int"]


@dataclass
class ClearColor:
    line: int
    rgba: tuple


@dataclass
class Clear:
    line: int


@dataclass
class DrawRect:
    line: int
    rect: tuple                 # x, y, w, h
    ortho: bool                 # window pixels (``draw rect ortho``) rather than coordinates


@dataclass
class Ortho:
    line: int
    bounds: tuple = None        # left, right, bottom, top; None: the window in pixels


@dataclass
class Probe:
    line: int
    text: str                   # the command, for messages
    rect: tuple                 # x, y, w, h in pixels
    expected: tuple             # 3 (rgb) or 4 (rgba) values


@dataclass
class Tolerance:
    line: int
    values: tuple


@dataclass
class UniformSet:
    line: int
    type: str
    name: str
    values: list                # the value words as written


@dataclass
class TextureImage:
    line: int
    kind: str                   # "rgbw" or "checkerboard"
    unit: int
    size: tuple
    colours: tuple = ()         # checkerboard: its two RGBA colours


@dataclass
class TexParameter:
    line: int
    target: str
    name: str
    value: str


@dataclass
class LinkCheck:
    line: int
    error_expected: bool


_GROUP = re.compile(r"\(([^()]*)\)")
_IGNORED = ("hint ", "shade model ")


class _Reader:
    """Reads the values of one command; every failure names the file and the line."""

    def __init__(self, path, line, text):
        self.path, self.line, self.text = path, line, text

    def fail(self, problem):
        raise ShaderTestError(self.path, self.line, problem)

    def _values(self, words, count, what, parse, kind):
        if len(words) < count:
            self.fail(f"{what} needs {count} {kind}, got {len(words)}")
        try:
            return tuple(parse(w) for w in words[:count])
        except ValueError as error:
            self.fail(f"{what}: {error}")

    def floats(self, words, count, what):
        return self._values(words, count, what, parse_float, "numbers")

    def ints(self, words, count, what):
        return self._values(words, count, what, parse_int, "integers")

    def groups(self, rest, count, what):
        """The comma-separated contents of the first ``count`` parenthesised groups."""
        groups = [[w.strip() for w in g.split(",") if w.strip()] for g in _GROUP.findall(rest)]
        if len(groups) < count:
            self.fail(f"{what} needs {count} parenthesised groups")
        return groups


def parse_float(word):
    """A float as strtod reads it (decimal, inf, nan, hexadecimal floats); a ``0x`` integer
    is returned as an int: a float uniform's bit pattern."""
    text = word.strip()
    body = text.lstrip("+-")
    if body[:2].lower() == "0x":
        if "." in body or "p" in body.lower():
            return float.fromhex(text)
        value = int(body, 16)
        if value >= 1 << 32 or text.startswith("-"):
            raise ValueError(f"{word!r} is no 32-bit pattern")
        return value
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"{word!r} is not a number") from None


def parse_int(word):
    """An integer as strtol with base 0 reads it."""
    text = word.strip()
    sign = -1 if text.startswith("-") else 1
    body = text.lstrip("+-")
    try:
        if body[:2].lower() == "0x":
            return sign * int(body[2:], 16)
        if len(body) > 1 and body.startswith("0"):
            return sign * int(body, 8)
        return sign * int(body, 10)
    except ValueError:
        raise ValueError(f"{word!r} is not an integer") from None


def _probe(r, text, window):
    """A Probe of any of piglit's probe commands."""
    width, height = window
    words = text.replace("(", " ( ").split()
    relative = words[0] == "relative"
    if relative:
        words = words[1:]
    if len(words) < 2:
        raise Skip(f"unsupported command {text!r}")
    is_all, is_rect = words[1:2] == ["all"], words[1:2] == ["rect"]
    kind = words[2] if (is_all or is_rect) and len(words) > 2 else words[1]
    channels = {"rgb": 3, "rgba": 4}.get(kind)
    after = words[3 if is_all or is_rect else 2:]
    if channels is None or (is_all and relative) or \
            ((is_rect or relative) and after[:1] != ["("]):
        raise Skip(f"unsupported command {text!r}")
    if is_all:
        return Probe(r.line, text, (0, 0, width, height), r.floats(after, channels, text))
    if is_rect or relative:
        place, colour = r.groups(text, 2, text)[:2]
        coords = r.floats(place, 4 if is_rect else 2, text)
        expected = r.floats(colour, channels, text)
    else:
        numbers = r.floats(words[2:], 2 + channels, text)
        coords, expected = numbers[:2], numbers[2:]
    if relative:
        x, y = int(coords[0] * width), int(coords[1] * height)
        if is_rect:
            rect = (x, y, int(coords[2] * width), int(coords[3] * height))
        else:
            rect = (min(x, width - 1), min(y, height - 1), 1, 1)
    else:
        rect = tuple(int(c) for c in coords) + (() if is_rect else (1, 1))
    return Probe(r.line, text, rect, expected)


def _draw(r, text):
    words = text.split()
    if words[:2] != ["draw", "rect"]:
        raise Skip(f"unsupported command {text!r}")
    ortho = len(words) > 2 and words[2] == "ortho"
    if len(words) > 2 and not ortho and words[2][0].isalpha():
        raise Skip(f"unsupported command {text!r}")
    return DrawRect(r.line, r.floats(words[3 if ortho else 2:], 4, "draw rect"), ortho)


def _texture(r, text):
    words = text.replace("(", " ( ").split()
    kind = words[1] if len(words) > 1 else ""
    if kind == "rgbw" and len(words) > 2 and words[2].lstrip("-").isdigit():
        (unit,) = r.ints(words[2:3], 1, text)
        (size,) = r.groups(text, 1, text)[:1]
        return TextureImage(r.line, kind, unit, r.ints(size, 2, text))
    if kind == "checkerboard":
        unit, level = r.ints(words[2:4], 2, text)
        if level != 0:
            raise Skip("a texture mipmap level other than 0")
        size, first, second = r.groups(text, 3, text)[:3]
        return TextureImage(r.line, kind, unit, r.ints(size, 2, text),
                            (r.floats(first, 4, text), r.floats(second, 4, text)))
    raise Skip(f"unsupported command {text!r}")


def _uniform(r, text):
    words = text.split()
    if len(words) < 3:
        r.fail("uniform needs a type, a name and values")
    return UniformSet(r.line, words[1], words[2], words[3:])


def _command(r, text, window):
    words = text.split()
    head = words[0]
    if text.startswith("clear color"):
        return ClearColor(r.line, r.floats(words[2:], 4, "clear color"))
    if text == "clear":
        return Clear(r.line)
    if head == "draw":
        return _draw(r, text)
    if head == "ortho":
        return Ortho(r.line, r.floats(words[1:], 4, "ortho") if len(words) > 1 else None)
    if head == "probe" or text.startswith("relative probe"):
        return _probe(r, text, window)
    if head == "tolerance":
        return Tolerance(r.line, r.floats(words[1:], 4, "tolerance"))
    if head == "uniform":
        return _uniform(r, text)
    if head == "texture":
        return _texture(r, text)
    if head == "texparameter":
        if len(words) != 4:
            r.fail("texparameter needs a target, a parameter and a value")
        return TexParameter(r.line, *words[1:])
    if text in ("link error", "link success"):
        return LinkCheck(r.line, text == "link error")
    raise Skip(f"unsupported command {text!r}")


def parse_commands(path, lines, window):
    """The commands of the [test] section's ``lines`` ((line, text) pairs): a list of the
    records above. Raises ShaderTestError (malformed) or Skip (a command not offered)."""
    commands = []
    for line, text in lines:
        if not text or text.startswith("#") or text.startswith(_IGNORED):
            continue
        command = _command(_Reader(path, line, text), text, window)
        commands.append(command)
    return commands
