"""The preprocessor, the lexer and the parser on well-formed shaders: what they accept, and
that it means what GLSL says (checked by running the result)."""

import json

import pytest

from firmware.glsl import compile_glsl
from firmware.glsl.__main__ import main
from firmware.glsl.lexer import tokenize
from firmware.glsl.preprocessor import preprocess
from firmware.r500.wordfile import read_words
from tests.helpers.glsl import run_glsl


def texts(source):
    tokens, version = preprocess(tokenize(source))
    return [t.text for t in tokens[:-1]], version


def colour(source, uniforms=None):
    return run_glsl(source, uniforms).out()


def test_version_and_predefined_macros():
    assert texts("#version 120\nint v = __VERSION__; int l = __LINE__;\n")[0] == \
        ["int", "v", "=", "120", ";", "int", "l", "=", "2", ";"]
    assert texts("float x;")[1] is None         # 1.10, with 1.20's additions accepted
    assert texts("int v = __VERSION__;")[0][3] == "110"
    assert texts("// first\n/* a\n comment */ #version 120\nfloat x;")[1] == 120


def test_macros_object_function_nested_and_undef():
    source = """#define ONE 1.0
#define TWICE(x) (2.0 * (x))
#define SUM(a, b) ((a) + (b))
#define NESTED TWICE(SUM(ONE, ONE))
#define SELF SELF
void main() { float SELF = 0.0; gl_FragColor = vec4(NESTED, TWICE(0.25), SUM(ONE,
    -0.5), SELF);
#undef ONE
}
"""
    assert colour(source) == [4.0, 0.5, 0.5, 0.0]


def test_conditionals():
    source = """#define A 2
#if A > 1 && defined(A) && !defined(B)
#  define R 1.0
#elif A == 2
#  define R 2.0
#else
#  error not taken
#endif
#ifdef B
#  error not taken either
#endif
#ifndef B
#  if (A * 3) % 4 == 2 || 0
#    define G 0.5
#  endif
#endif
#if 0
this is skipped: "anything' goes @ here
#endif
void main() { gl_FragColor = vec4(R, G, 0.0, 1.0); }
"""
    assert colour(source) == [1.0, 0.5, 0.0, 1.0]


def test_line_continuations_and_comments_keep_positions():
    source = "#define LONG 1.0 + \\\n 2.0\nvoid main() { gl_FragColor = vec4(LONG); } // done\n"
    assert colour(source) == [3.0] * 4
    tokens, _ = preprocess(tokenize("float a;\\\n float b; /* x\ny */ float c;\n"))
    where = {t.text: (t.pos.line, t.pos.col) for t in tokens}
    assert where["b"] == (2, 8) and where["c"] == (3, 12)


def test_pragma_extension_and_line():
    source = """#pragma optimize(off)
#extension GL_ARB_texture_rectangle : enable
#extension all : warn
#line 100
void main() { gl_FragColor = vec4(float(__LINE__)); }
"""
    assert colour(source) == [100.0] * 4


def test_precision_qualifiers_invariant_and_numbers():
    source = """#version 120
precision highp float;
uniform mediump float m;
void main() {
    lowp vec4 c = vec4(0x10, 010, 1e1, .5e1);
    highp float f = 2.5f;
    gl_FragColor = c + vec4(f - m);
}
"""
    assert colour(source, {"m": 0.5}) == [18.0, 10.0, 12.0, 7.0]


def test_declarations_and_scopes():
    source = """#version 120
struct S { vec2 a, b; float c[2]; } g = S(vec2(1.0), vec2(2.0), float[2](3.0, 4.0));
float[2] h = float[](5.0, 6.0);
void main() {
    float x = 1.0, y = x + 1.0;
    { float x = 10.0; y += x; }
    for (int i = 0; i < 2; i++) { float x = float(i); y += x; }
    struct T { float t; };
    T t = T(0.5);
    gl_FragColor = vec4(x, y, g.b.y + g.c[1] + h[0], t.t);
}
"""
    assert colour(source) == [1.0, 13.0, 11.0, 0.5]


def test_prototypes_overloads_and_builtin_shadowing_by_user_overloads():
    source = """float f(float x);
vec2 f(vec2 x) { return x * 2.0; }
float f(float x) { return x + 1.0; }
float abs(float x, float y) { return x - y; }
void main() { gl_FragColor = vec4(f(1.0), f(vec2(3.0)), abs(5.0, 2.0)); }
"""
    assert colour(source) == [2.0, 6.0, 6.0, 3.0]


def test_cli_formats_and_interface(tmp_path):
    shader = tmp_path / "s.frag"
    shader.write_text("uniform vec2 u; uniform sampler2D t;\nvoid main() {\n"
                      "  gl_FragColor = texture2D(t, u) * 0.3;\n}\n")
    iface = tmp_path / "s.json"
    words = {}
    for fmt in ("asm", "inc", "hex", "bin"):
        out = tmp_path / f"s.{fmt}"
        assert main([str(shader), "-o", str(out), "--interface", str(iface)]) == 0
        if fmt != "asm":
            words[fmt] = read_words(out)
    compiled = compile_glsl(shader.read_text(), shader)
    assert words["inc"] == words["hex"] == words["bin"] == compiled.words
    assert (tmp_path / "s.asm").read_text() == compiled.asm
    assert json.loads(iface.read_text()) == compiled.interface
    assert compiled.interface["samplers"] == {"t": 0}
    assert len(compiled.interface["uniforms"]["u"]) == 2


def test_cli_refuses_unknown_output_suffix(tmp_path, capsys):
    shader = tmp_path / "s.frag"
    shader.write_text("void main() { }\n")
    assert main([str(shader), "-o", str(tmp_path / "s.txt")]) == 2
    assert "unknown output format" in capsys.readouterr().err
    assert main([str(tmp_path / "missing.frag"), "-o", str(tmp_path / "s.asm")]) == 2
    assert "cannot read" in capsys.readouterr().err


@pytest.mark.parametrize("source", ["void main() { }", "void main() { discard; }",
                                    "uniform float u; void main() { if (u > 0.0) discard; }"])
def test_programs_that_write_nothing(source):
    """No output written: the pixel keeps its value (and the program is still a program)."""
    compiled = compile_glsl(source)
    assert compiled.instructions >= 1
    assert run_glsl(source, compiled=compiled).out() is None
