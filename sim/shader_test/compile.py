"""Compiling a test's fragment shader with the GLSL compiler (``firmware.glsl``) and reading
what the host must load with it.

As piglit's runner does, a shader without ``#version`` is compiled as the [require] section's
GLSL version (a ``#version`` line is put before it; error lines are those of the test file).
The host state of a compiled program: its words and END_ADDR, the constants the compiler
needs (``constants``), the integer loop constants and static booleans if the interface gives
them (``int_consts``, ``bools``), else INT_CONST[0] = 255 iterations (Mesa's convention for
LOOP, r500-us.md §2) and no booleans.
"""

import re
from dataclasses import dataclass

from sim.shader_test.uniforms import constant_word

__all__ = ["CompileFailed", "Program", "compile_fragment", "glsl_compiler"]

_VERSION_LINE = re.compile(r"^\s*#\s*version\b", re.M)
_ERROR = re.compile(r"^(\d+):(\d+): (.*)$", re.S)
DEFAULT_INT_CONSTS = {0: 255}


class CompileFailed(Exception):
    """The compiler rejected the shader (``str()``: its one-line error, lines of the test
    file) or crashed (``crashed``)."""

    def __init__(self, message, crashed=False):
        super().__init__(message)
        self.crashed = crashed


@dataclass
class Program:
    words: list
    end: int
    interface: dict
    constants: dict             # {index: [4 words]}: the compiler's own
    int_consts: dict
    bools: int


def glsl_compiler():
    """(compile_glsl, GlslError) of ``firmware.glsl``."""
    from firmware.glsl import GlslError, compile_glsl
    return compile_glsl, GlslError


def _file_lines(message, source, prefix):
    """The compiler's ``path:line:column: problem`` with the line counted in ``source``'s
    file (``prefix``: lines put before the shader's text)."""
    head = f"{source.path}:"
    if not message.startswith(head):
        return message
    match = _ERROR.match(message[len(head):])
    if not match:
        return message
    line, column, problem = match.groups()
    line = max(int(line) - prefix, 1) + source.first_line - 1
    return f"{head}{line}:{column}: {problem}"


def compile_fragment(source, glsl_version, compiler=None):
    """The Program of a fragment shader Source; raises CompileFailed. ``compiler``:
    (compile function, its error class), default ``firmware.glsl``'s."""
    compile_glsl, error_class = compiler or glsl_compiler()
    text, prefix = source.text, 0
    if not _VERSION_LINE.search(text):
        text, prefix = f"#version {glsl_version}\n{text}", 1
    try:
        compiled = compile_glsl(text, path=source.path)
    except error_class as error:
        raise CompileFailed(_file_lines(" ".join(str(error).split()), source, prefix)) from None
    except Exception as error:          # a compiler bug: report it, never a traceback
        raise CompileFailed(f"the compiler crashed: {type(error).__name__}: {error}",
                            crashed=True) from None
    try:
        return _program(compiled)
    except (AttributeError, KeyError, TypeError, ValueError) as error:
        raise CompileFailed(f"the compiler's result is malformed: {type(error).__name__}: "
                            f"{error}", crashed=True) from None


def _slot(slot):
    if slot is not None:
        index, channel = slot
        if not (isinstance(index, int) and 0 <= index < 256 and channel in range(4)):
            raise ValueError(f"uniform slot {slot!r}")
    return slot


def _program(compiled):
    """The Program of a compile_glsl result, its interface checked."""
    interface = dict(compiled.interface)
    interface["uniforms"] = {str(name): [_slot(s) for s in slots]
                             for name, slots in interface.get("uniforms", {}).items()}
    interface["samplers"] = {str(name): int(tex_id)
                             for name, tex_id in interface.get("samplers", {}).items()}
    constants = getattr(compiled, "constants", None) or interface.get("constants", {})
    int_consts = interface.get("int_consts")
    return Program(
        words=list(compiled.words), end=compiled.program.end_addr, interface=interface,
        constants={int(i): [constant_word(v) for v in value] for i, value in constants.items()},
        int_consts=DEFAULT_INT_CONSTS if int_consts is None else
        {int(i): int(v) for i, v in int_consts.items()},
        bools=int(interface.get("bools", 0)))
