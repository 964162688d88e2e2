"""Reading a shader_test file: its sections, the [require] section, the shaders.

A file is a list of sections, each starting at a line that begins with ``[``: ``[require]``,
``[vertex shader]``, ``[vertex shader passthrough]``, ``[vertex shader file]``,
``[fragment shader]``, ``[fragment shader file]``, ``[vertex data]``, ``[test]``. Text before
the first section is ignored (as piglit's runner does). Sections of stages this runner has no
use for (geometry, tessellation, compute, ARB programs) make the file a skip.
"""

import re
from dataclasses import dataclass, field
from pathlib import Path

from sim.shader_test.errors import ShaderTestError, Skip

__all__ = ["Source", "ShaderTest", "read_shader_test", "WINDOW_SIZE", "GL_VERSION",
           "GLSL_VERSIONS", "MAX_FRAGMENT_UNIFORM_COMPONENTS"]

#: piglit's default window
WINDOW_SIZE = (250, 250)
#: what this implementation offers: OpenGL 2.1 with GLSL 1.10 and 1.20 (as GL_VERSION * 10,
#: GLSL versions * 100, piglit's numbering)
GL_VERSION = 21
GLSL_VERSIONS = (110, 120)
#: 256 constants of four channels (the compiler's own constants come out of these too)
MAX_FRAGMENT_UNIFORM_COMPONENTS = 256 * 4

SHADER_SECTIONS = {"vertex shader", "vertex shader passthrough", "vertex shader file",
                   "fragment shader", "fragment shader file"}
KNOWN_SECTIONS = SHADER_SECTIONS | {"require", "test", "vertex data"}
COMPARISONS = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
               "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}
_VERSION = re.compile(r"^(GLSL|GL)(\s+ES)?\s*(==|!=|<=|>=|<|>)\s*(\d+)\.(\d+)\s*$")
_LIMIT = re.compile(r"^(GL_MAX_\w+)\s*(==|!=|<=|>=|<|>)\s*(\d+)\s*$")


@dataclass
class Source:
    """A shader's text, where it came from (``path``, for messages) and the file line of its
    first line."""
    text: str
    path: str
    first_line: int


@dataclass
class ShaderTest:
    path: Path
    glsl_version: int = None            # the [require] section's GLSL >= version, 110 or 120
    window: tuple = WINDOW_SIZE
    vertex: object = None               # None (no vertex shader), "passthrough" or a Source
    fragment: Source = None
    commands: list = field(default_factory=list)    # [(line, text)] of the [test] section
    test_line: int = None               # the line of the [test] header


def _sections(path, lines):
    """[(name, header line, [(line, text)])] of the file's sections."""
    sections = []
    for number, text in enumerate(lines, 1):
        if text.startswith("["):
            close = text.find("]")
            if close < 0:
                raise ShaderTestError(path, number, f"section header {text.strip()!r} has no ']'")
            name = text[1:close].strip()
            sections.append((name, number, []))
        elif sections:
            sections[-1][2].append((number, text))
    return sections


def _requirement(test, number, text):
    """Check one [require] line; raise Skip for what this implementation does not offer."""
    path = test.path
    version = _VERSION.match(text)
    if version:
        kind, es, op, major, minor = version.groups()
        if es:
            raise Skip(f"needs {kind} ES")
        if kind == "GLSL":
            if op != ">=":
                raise ShaderTestError(path, number, "a GLSL requirement must be '>='")
            wanted = int(major) * 100 + int(minor)
            if wanted > GLSL_VERSIONS[-1]:
                raise Skip(f"needs GLSL {major}.{minor}")
            test.glsl_version = max(wanted, GLSL_VERSIONS[0])
        elif not COMPARISONS[op](GL_VERSION, int(major) * 10 + int(minor)):
            raise Skip(f"needs GL {op} {major}.{minor} (this is GL 2.1)")
        return
    limit = _LIMIT.match(text)
    if limit:
        name, op, value = limit.groups()
        if name == "GL_MAX_FRAGMENT_UNIFORM_COMPONENTS":
            if not COMPARISONS[op](MAX_FRAGMENT_UNIFORM_COMPONENTS, int(value)):
                raise Skip(f"needs {name} {op} {value}")
            return
        if name == "GL_MAX_VERTEX_UNIFORM_COMPONENTS":
            return                       # vertex shaders here only set gl_Position
        raise Skip(f"needs {name} {op} {value}")
    words = text.split()
    if words[0].startswith("GL_"):
        raise Skip(f"needs the extension {words[0]}")
    if words[0].startswith("!GL_") or words[0] == "rlimit":
        return                           # no extension is offered; no limit is needed
    if words[0] == "SIZE":
        try:
            width, height = (int(w, 0) for w in words[1:3])
        except ValueError:
            raise ShaderTestError(path, number, "SIZE needs a width and a height") from None
        if len(words) != 3 or not (0 < width <= 4096 and 0 < height <= 4096):
            raise ShaderTestError(path, number, "SIZE needs a width and a height, 1 to 4096")
        test.window = (width, height)
        return
    raise Skip(f"unknown requirement {text!r}")


def _shader_text(body):
    return "".join(text for _, text in body)


def _shader_file(test, number, body):
    """The Source of a ``[... shader file]`` section: its one file name, relative to the
    test file's directory."""
    names = [(n, t.strip()) for n, t in body if t.strip() and not t.strip().startswith("#")]
    if len(names) != 1:
        raise ShaderTestError(test.path, number, "a shader file section names one file")
    line, name = names[0]
    shader = test.path.parent / name.split()[0]
    try:
        return Source(shader.read_text(), str(shader), 1)
    except (OSError, UnicodeDecodeError) as error:
        raise ShaderTestError(test.path, line,
                              f"cannot read {name!r}: {getattr(error, 'strerror', None) or error}"
                              ) from None


def _shader_sections(test, sections):
    for name, number, body in sections:
        if name not in SHADER_SECTIONS:
            continue
        stage = "vertex" if name.startswith("vertex") else "fragment"
        if getattr(test, stage) is not None:
            raise Skip(f"more than one {stage} shader")
        if name == "vertex shader passthrough":
            source = "passthrough"
        elif name.endswith("file"):
            source = _shader_file(test, number, body)
        else:
            source = Source(_shader_text(body), str(test.path), number + 1)
        setattr(test, stage, source)


def read_shader_test(path):
    """The ShaderTest of the file at ``path``. Raises ShaderTestError (malformed) or Skip."""
    path = Path(path)
    try:
        lines = path.read_text().splitlines(keepends=True)
    except (OSError, UnicodeDecodeError) as error:
        raise ShaderTestError(path, 0, getattr(error, "strerror", None) or error) from None
    test = ShaderTest(path)
    sections = _sections(path, lines)
    names = [name for name, _, _ in sections]
    if "require" not in names:
        raise ShaderTestError(path, 0, "no [require] section")
    for k, (name, number, _) in enumerate(sections):
        if name not in KNOWN_SECTIONS:
            raise Skip(f"a [{name}] section")
        if name in ("require", "test") and name in names[:k]:
            raise ShaderTestError(path, number, f"a second [{name}] section")
    for name, number, body in sections:
        if name == "require":
            for line, text in body:
                text = text.strip()
                if text and not text.startswith("#"):
                    _requirement(test, line, text)
        elif name == "test":
            test.test_line = number
            test.commands = [(line, text.strip()) for line, text in body]
    if test.glsl_version is None:
        raise ShaderTestError(path, sections[names.index("require")][1],
                              "the [require] section names no GLSL version")
    _shader_sections(test, sections)
    if test.fragment is None:
        raise Skip("no fragment shader (fixed-function fragment processing is not offered)")
    return test
