"""A stand-in for the GLSL compiler in the runner's own tests: a few fragment shaders with
hand-written R500 assembly and the interface the compiler's contract gives them, so that the
runner is tested apart from the compiler (``COMPILER`` is what ``run_test`` takes).

A shader is known by its text without comments, ``#version`` lines and white space; any other
shader is a compile error at line 1; a shader holding ``syntax error`` is one at the line of
those words (to check that error lines are the test file's).
"""

import re
from types import SimpleNamespace

from firmware.r500asm import assemble

__all__ = ["COMPILER", "FakeGlslError", "SHADERS", "fake_compile"]


class FakeGlslError(Exception):
    pass


_ONE_ALPHA = "out[0].a = MAD src0.1 src0.1 src0.0"

#: shader text -> (assembly, interface)
SHADERS = {
    # a uniform colour
    "uniform vec4 color; void main() { gl_FragColor = color; }": (
        "OUT src0.rgb = const[0], src0.a = const[0] : "
        "out[0].rgb = MAX src0.rgb src0.rgb, out[0].a = MAX src0.a src0.a ;",
        {"uniforms": {"color": [[0, 0], [0, 1], [0, 2], [0, 3]]}}),
    # the window position: (x / 250, y / 250, 0, 1) at pixel centres
    "void main() { gl_FragColor = vec4(gl_FragCoord.xy / 250.0, 0.0, 1.0); }": (
        "OUT src0.rgb = temp[9], src1.rgb = const[0], src2.rgb = const[1] : "
        f"out[0].rgb = MAD src0.rg0 src1.rg0 src2.rg0, {_ONE_ALPHA} ;",
        {"uniforms": {}, "inputs": ["gl_FragCoord"],
         "constants": {"0": [0.004, 0.004, 0, 0], "1": [0.002, 0.002, 0, 0]}}),
    # discard left of x = 125, green elsewhere
    "void main() { if (gl_FragCoord.x < 125.0) discard; gl_FragColor = vec4(0, 1, 0, 1); }": (
        "src0.rgb = temp[9], src1.rgb = const[0] : temp[0].rgb = MAD src0.rrr src0.111 "
        "-src1.rrr ;\n"
        "TEX temp[0].none = TEXKILL tex[0].rgba temp[0].rrrr ;\n"
        f"OUT : out[0].rgb = MAD src0.010 src0.111 src0.000, {_ONE_ALPHA} ;",
        {"uniforms": {}, "inputs": ["gl_FragCoord"], "constants": {"0": [124.5, 0, 0, 0]}}),
    # a texture at the window position
    "uniform sampler2D tex; void main() { gl_FragColor = texture2D(tex, gl_FragCoord.xy / "
    "250.0); }": (
        "src0.rgb = temp[9], src1.rgb = const[0], src2.rgb = const[1] : "
        "temp[0].rgb = MAD src0.rg0 src1.rg0 src2.rg0 ;\n"
        "TEX temp[1].rgba = LD tex[0].rgba temp[0].rgaa ;\n"
        "OUT src0.rgb = temp[1], src0.a = temp[1] : "
        "out[0].rgb = MAX src0.rgb src0.rgb, out[0].a = MAX src0.a src0.a ;",
        {"uniforms": {}, "samplers": {"tex": 0}, "inputs": ["gl_FragCoord"],
         "constants": {"0": [0.004, 0.004, 0, 0], "1": [0.002, 0.002, 0, 0]}}),
    # dFdx of the position, halved: (0.5, 0, 0, 1)
    "void main() { gl_FragColor = vec4(dFdx(gl_FragCoord.x) * 0.5, 0.0, 0.0, 1.0); }": (
        "src0.rgb = temp[9] : temp[0].rgb = MDH -src0.rgb src0.111 src0.rgb ;\n"
        f"OUT src0.rgb = temp[0] : out[0].rgb = MAD src0.r00 src0.h00 src0.000, {_ONE_ALPHA} ;",
        {"uniforms": {}, "inputs": ["gl_FragCoord"]}),
    # every uniform kind: f -> red, i -> green / 2, b -> blue, m[1][0] -> alpha
    "uniform float f; uniform int i; uniform bool b; uniform mat2 m; void main() { "
    "gl_FragColor = vec4(f, float(i) * 0.5, b ? 1.0 : 0.0, m[1][0]); }": (
        "OUT src0.rgb = const[0], src0.a = const[1] : "
        "out[0].rgb = MAD src0.rgb src0.1h1 src0.000, out[0].a = MAX src0.a src0.a ;",
        {"uniforms": {"f": [[0, 0]], "i": [[0, 1]], "b": [[0, 2]],
                      "m": [[1, 0], [1, 1], [1, 3], [1, 2]]}}),
    # an array and a struct
    "struct S { float a; vec2 b; }; uniform S s; uniform float arr[3]; void main() { "
    "gl_FragColor = vec4(s.a, s.b, arr[2]); }": (
        "OUT src0.rgb = const[0], src0.a = const[1] : "
        "out[0].rgb = MAX src0.rgb src0.rgb, out[0].a = MAX src0.a src0.a ;",
        {"uniforms": {"s.a": [[0, 0]], "s.b": [[0, 1], [0, 2]], "arr[0]": [[1, 0]],
                      "arr[1]": [[1, 1]], "arr[2]": [[1, 3]]}}),
    # the window position, with an interface that does not say which inputs it reads
    "void main() { gl_FragColor = vec4(gl_FragCoord.x / 250.0); }": (
        "OUT src0.rgb = temp[9], src1.rgb = const[0] : "
        "out[0].rgb = MAD src0.rrr src1.rrr src1.ggg, out[0].a = MAD src0.r src1.r src1.g ;",
        {"uniforms": {}, "constants": {"0": [0.004, 0.002, 0, 0]}}),
    # a program that writes nothing
    "void main() { }": ("OUT : temp[0].rgb = MAD src0.000 src0.000 src0.000 ;", {"uniforms": {}}),
}


def _key(text):
    text = re.sub(r"//[^\n]*|/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"^\s*#\s*version[^\n]*$", " ", text, flags=re.M)
    return " ".join(text.split())


_KEYS = {_key(text): value for text, value in SHADERS.items()}


def fake_compile(text, path="shader.frag", limits=None):
    """compile_glsl's stand-in (same arguments, result attributes and error form)."""
    for number, line in enumerate(text.splitlines(), 1):
        if "syntax error" in line:
            raise FakeGlslError(f"{path}:{number}:{line.index('syntax') + 1}: syntax error")
    known = _KEYS.get(_key(text))
    if known is None:
        raise FakeGlslError(f"{path}:1:1: the stand-in compiler does not know this shader")
    asm, interface = known
    program = assemble(asm)
    return SimpleNamespace(asm=asm, program=program, words=list(program.words),
                           interface=interface, constants=interface.get("constants", {}))


COMPILER = (fake_compile, FakeGlslError)
