"""The shader_test format: sections, [require], the vertex shader's role, what the fragment
shader may read, the [test] commands, and the one-line errors of malformed files."""

import re

import pytest

from sim.shader_test.commands import (ClearColor, DrawRect, LinkCheck, Ortho, Probe,
                                      TexParameter, TextureImage, Tolerance, UniformSet,
                                      parse_commands, parse_float, parse_int)
from sim.shader_test.errors import ShaderTestError, Skip
from sim.shader_test.parse import Source, read_shader_test
from sim.shader_test.shaders import (FIXED_FUNCTION, IDENTITY, check_fragment_shader,
                                     link_uniform_initializers, vertex_transform)
from tests.sim.shader_test.helpers import run, shader_test, write_test

WINDOW = (250, 250)


def commands(text, window=WINDOW):
    lines = [(n, t.strip()) for n, t in enumerate(text.splitlines(), 1)]
    return parse_commands("t.shader_test", lines, window)


def test_sections_and_lines(tmp_path):
    """The fragment shader's text and first line, the [test] lines, the GLSL version."""
    path = write_test(tmp_path, "clear\n", require="GLSL >= 1.20\nGL >= 2.1\n# a comment")
    test = read_shader_test(path)
    assert test.glsl_version == 120 and test.vertex == "passthrough"
    assert test.fragment.text.startswith("uniform vec4 color;")
    assert path.read_text().splitlines()[test.fragment.first_line - 1] == "uniform vec4 color;"
    assert test.commands[0] == (test.test_line + 1, "clear")


@pytest.mark.parametrize("require, reason", [
    ("GLSL >= 1.30", "needs GLSL 1.30"),
    ("GLSL ES >= 1.00", "needs GLSL ES"),
    ("GLSL >= 1.10\nGL >= 3.0", "needs GL >= 3.0 (this is GL 2.1)"),
    ("GLSL >= 1.10\nGL_ARB_shader_texture_lod", "needs the extension GL_ARB_shader_texture_lod"),
    ("GLSL >= 1.10\nGL_MAX_FRAGMENT_UNIFORM_COMPONENTS >= 4096",
     "needs GL_MAX_FRAGMENT_UNIFORM_COMPONENTS >= 4096"),
    ("GLSL >= 1.10\nGL_MAX_VARYING_COMPONENTS >= 8", "needs GL_MAX_VARYING_COMPONENTS >= 8"),
    ("GLSL >= 1.10\nframes 3", "unknown requirement 'frames 3'"),
])
def test_requirements_not_offered_skip(tmp_path, require, reason):
    with pytest.raises(Skip, match=f"^{re.escape(reason)}$"):
        read_shader_test(write_test(tmp_path, "clear\n", require=require))


def test_requirements_offered(tmp_path):
    require = ("GLSL >= 1.10\nGL >= 2.0\n!GL_ARB_foo\nrlimit 1000\nSIZE 64 32\n"
               "GL_MAX_FRAGMENT_UNIFORM_COMPONENTS >= 64\nGL_MAX_VERTEX_UNIFORM_COMPONENTS >= 9")
    test = read_shader_test(write_test(tmp_path, "clear\n", require=require))
    assert test.window == (64, 32) and test.glsl_version == 110


@pytest.mark.parametrize("text, line, problem", [
    ("[vertex shader passthrough]\n", 0, "no [require] section"),
    ("[require]\nGL >= 2.0\n[test]\n", 1, "the [require] section names no GLSL version"),
    ("[require]\nGLSL < 1.30\n", 2, "a GLSL requirement must be '>='"),
    ("[require]\nGLSL >= 1.10\nSIZE 10\n", 3, "SIZE needs a width and a height"),
    ("[require]\nGLSL >= 1.10\n[test\n", 3, "section header '[test' has no ']'"),
    ("[require]\nGLSL >= 1.10\n[test]\n[test]\n", 4, "a second [test] section"),
    ("[require]\nGLSL >= 1.10\n[fragment shader file]\nnope.frag\n", 4, "cannot read 'nope.frag'"),
])
def test_malformed_files_name_the_line(tmp_path, text, line, problem):
    path = tmp_path / "bad.shader_test"
    path.write_text(text)
    with pytest.raises(ShaderTestError) as error:
        read_shader_test(path)
    assert str(error.value).startswith(f"{path}:{line}: {problem}" if line else
                                       f"{path}: {problem}")
    assert "\n" not in str(error.value)


def test_a_missing_file_is_malformed(tmp_path):
    with pytest.raises(ShaderTestError, match="No such file"):
        read_shader_test(tmp_path / "missing.shader_test")


@pytest.mark.parametrize("text, reason", [
    ("[require]\nGLSL >= 1.10\n[geometry shader]\n", "a [geometry shader] section"),
    ("[require]\nGLSL >= 1.10\n[vertex shader]\nvoid main() {}\n", "no fragment shader"),
    ("[require]\nGLSL >= 1.10\n[fragment shader]\n\n[fragment shader]\n",
     "more than one fragment shader"),
])
def test_sections_not_offered_skip(tmp_path, text, reason):
    path = tmp_path / "s.shader_test"
    path.write_text(text)
    with pytest.raises(Skip, match=re.escape(reason)):
        read_shader_test(path)


def test_a_fragment_shader_file_is_read_beside_the_test(tmp_path):
    (tmp_path / "colour.frag").write_text("void main() { }\n")
    path = tmp_path / "f.shader_test"
    path.write_text("[require]\nGLSL >= 1.10\n[fragment shader file]\n# the shader\n"
                    "colour.frag\n[test]\n")
    test = read_shader_test(path)
    assert test.fragment.text == "void main() { }\n" and test.fragment.first_line == 1
    assert test.fragment.path.endswith("colour.frag")


class _Source:
    def __init__(self, text):
        self.text = text


@pytest.mark.parametrize("text, transform", [
    ("void main() { gl_Position = gl_Vertex; }", IDENTITY),
    ("#version 120\n// comment\nvoid main()\n{\n\tgl_Position = gl_Vertex;\n}\n", IDENTITY),
    ("attribute vec4 piglit_vertex;\nvoid main() { gl_Position = piglit_vertex; }", IDENTITY),
    ("void main() { gl_Position = gl_ModelViewProjectionMatrix * gl_Vertex; }", FIXED_FUNCTION),
    ("void main(void) { gl_Position = ftransform(); }", FIXED_FUNCTION),
    ("void main() { /* x */ gl_Position = gl_ProjectionMatrix * gl_ModelViewMatrix * "
     "gl_Vertex; }", FIXED_FUNCTION),
    ("void main() { gl_Position = vec4(gl_Vertex.xy, 0.0, 1.0); }", IDENTITY),
    ("attribute vec4 p; void main() { gl_Position = vec4(p.xyz, 1); }", IDENTITY),
    # declarations, and varyings written (piglit's variable-indexing tests)
    ("uniform int index;\nuniform mat2 m[3];\nvarying vec4 color;\nvoid main()\n{\n"
     "    gl_Position = gl_ModelViewProjectionMatrix * gl_Vertex;\n}\n", FIXED_FUNCTION),
    ("varying float x, y[2]; void main() { x = 1.0; gl_Position = gl_Vertex; y[1] = x; "
     "gl_TexCoord[0] = gl_MultiTexCoord0; }", IDENTITY),
])
def test_vertex_shaders_that_only_set_the_position(text, transform):
    assert vertex_transform(_Source(text)) == transform
    assert vertex_transform(None) == FIXED_FUNCTION
    assert vertex_transform("passthrough") == IDENTITY


@pytest.mark.parametrize("text, reason", [
    ("void main() { gl_Position = gl_Vertex * 2.0; }",
     "the vertex shader does more than set gl_Position to the vertex"),
    ("void main() { gl_Position = vec4(gl_Vertex.xy, 0.5, 1.0); }",
     "the vertex shader does more than set gl_Position to the vertex"),
    ("void main() { gl_Position = gl_Vertex; vec4 c = gl_Color; }",
     "the vertex shader does more than set gl_Position to the vertex"),
    # piglit's fragcoord_w
    ("void main() { gl_Position = gl_Vertex; gl_Position.w = 2.0; }",
     "the vertex shader does more than set gl_Position to the vertex"),
    ("float f() { return 1.0; } void main() { gl_Position = gl_Vertex; }",
     "the vertex shader does more than set gl_Position to the vertex"),
    ("varying float x; void main() { gl_Position = gl_Vertex; z = 1.0; }",
     "the vertex shader does more than set gl_Position to the vertex"),
])
def test_other_vertex_shaders_skip(text, reason):
    with pytest.raises(Skip, match=re.escape(reason)):
        vertex_transform(_Source(text))


@pytest.mark.parametrize("text, reason", [
    ("varying vec2 texcoord; void main() { gl_FragColor = vec4(texcoord, 0, 1); }",
     "reads the varying 'texcoord'"),
    ("varying vec2 a, b; void main() { gl_FragColor = vec4(b, 0, 1); }",
     "reads the varying 'b'"),
    ("void main() { gl_FragColor = gl_Color; }", "reads the varying gl_Color"),
    ("void main() { gl_FragColor = gl_TexCoord[0]; }", "reads the varying gl_TexCoord"),
    ("void main() { gl_FragColor = gl_ModelViewMatrix[0]; }",
     "reads the built-in state gl_ModelViewMatrix"),
    ("void main() { gl_FragColor = vec4(gl_DepthRange.near); }",
     "reads the built-in state gl_DepthRange"),
    ("uniform samplerCube s; void main() { }", "uses a samplerCube"),
])
def test_fragment_shaders_reading_what_the_gpu_lacks_skip(text, reason):
    with pytest.raises(Skip, match=reason):
        check_fragment_shader(_Source(text))
    check_fragment_shader(_Source("// varying vec2 t;\nvoid main() { gl_FragColor = "
                                  "gl_FragCoord; }"))
    # declared, never read (piglit's variable-indexing tests)
    check_fragment_shader(_Source("uniform int index;\nvarying vec4 color, c2[2];\nvoid main()"
                                  " { gl_FragColor = vec4(index); }"))


def test_the_vertex_shaders_uniform_initializers_reach_the_fragment_shader():
    vertex = Source("uniform vec2 k = vec2(1.0,\n 2.0); uniform float f = 3.0; uniform int n;\n"
                    "void main() { gl_Position = gl_Vertex; }", "v", 1)
    fragment = Source("uniform vec2 k;\nuniform float f = 4.0;\nuniform int n;\n", "t", 7)
    linked = link_uniform_initializers(vertex, fragment)
    assert linked.text == ("uniform vec2 k = vec2(1.0, 2.0);\nuniform float f = 4.0;\n"
                           "uniform int n;\n")
    assert (linked.path, linked.first_line) == ("t", 7)
    assert link_uniform_initializers("passthrough", fragment) is fragment


def test_every_command():
    parsed = commands(
        "clear color 0.5 0 1 1 9\nclear\ndraw rect -1 -1 2 2\ndraw rect ortho 0 0 10 10\n"
        "ortho\northo 0 10 0 10\nprobe all rgb 0 1 0\nprobe all rgba 0 1 0 1\n"
        "probe rgb 15.7 3 1 0 0\nprobe rgba 1 2 0 0 0 0\nprobe rect rgb (1, 2, 3, 4) (1, 1, 1)\n"
        "probe rect rgba ( 5 , 6 , 7 , 8 ) ( 0 , 0 , 0 , 1 )\n"
        "relative probe rgb (0.5, 1.0) (0, 0, 1)\nrelative probe rgba (0.1, 0.2) (1, 1, 1, 1)\n"
        "relative probe rect rgb (0.5, 0.5, 0.5, 0.5) (0, 1, 0)\n"
        "tolerance 0.1 0.1 0.1 0.1\nuniform vec4 c 1 2 3 4\ntexture rgbw 1 (8, 4)\n"
        "texture checkerboard 0 0 (4, 4) (0, 0, 0, 1) (1, 1, 1, 1)\n"
        "texparameter 2D min linear\nlink success\nlink error\n# comment\n\n"
        "hint GL_FRAGMENT_SHADER_DERIVATIVE_HINT GL_NICEST\nshade model flat\n")
    kinds = [type(c).__name__ for c in parsed]
    assert kinds == ["ClearColor", "Clear", "DrawRect", "DrawRect", "Ortho", "Ortho"] + \
        ["Probe"] * 9 + ["Tolerance", "UniformSet", "TextureImage", "TextureImage",
                         "TexParameter", "LinkCheck", "LinkCheck"]
    assert parsed[0] == ClearColor(1, (0.5, 0.0, 1.0, 1.0))
    assert parsed[3] == DrawRect(4, (0.0, 0.0, 10.0, 10.0), True)
    assert parsed[4] == Ortho(5) and parsed[5].bounds == (0, 10, 0, 10)
    probes = [p for p in parsed if isinstance(p, Probe)]
    assert [p.rect for p in probes] == [(0, 0, 250, 250), (0, 0, 250, 250), (15, 3, 1, 1),
                                        (1, 2, 1, 1), (1, 2, 3, 4), (5, 6, 7, 8),
                                        (125, 249, 1, 1), (25, 50, 1, 1), (125, 125, 125, 125)]
    assert probes[4].expected == (1.0, 1.0, 1.0) and len(probes[5].expected) == 4
    assert parsed[15] == Tolerance(16, (0.1,) * 4)
    assert parsed[16] == UniformSet(17, "vec4", "c", ["1", "2", "3", "4"])
    assert parsed[17] == TextureImage(18, "rgbw", 1, (8, 4))
    assert parsed[18].colours == ((0, 0, 0, 1), (1, 1, 1, 1))
    assert parsed[19] == TexParameter(20, "2D", "min", "linear")
    assert parsed[20:] == [LinkCheck(21, False), LinkCheck(22, True)]


@pytest.mark.parametrize("text", [
    "draw arrays GL_TRIANGLES 0 3", "draw rect tex -1 -1 2 2 0 0 1 1", "enable GL_CLIP_PLANE0",
    "probe depth 0 0 1", "probe rect rgba int (0, 0, 1, 1) (0, 0, 0, 0)",
    "relative probe all rgb 0 0 0", "texture miptree 0", "texture shadow2D 0 (8, 8)",
    "frustum -1 1 -1 1 1 10", "fb tex 2d 0", "probe warn rgb 0 0 0 0 0",
    "draw instanced rect 2 0 0 1 1",
])
def test_commands_not_offered_skip_naming_them(text):
    with pytest.raises(Skip, match="unsupported command"):
        commands(text)


@pytest.mark.parametrize("text, problem", [
    ("clear color 1 1", "clear color needs 4 numbers, got 2"),
    ("probe rgb 1 2 0.5 x 0", "'x' is not a number"),
    ("probe rect rgb (1, 2, 3) (0, 0, 0)", "needs 4 numbers, got 3"),
    ("relative probe rgb (0.5, 0.5)", "needs 2 parenthesised groups"),
    ("draw rect 0 0 1", "draw rect needs 4 numbers, got 3"),
    ("uniform vec4", "uniform needs a type, a name and values"),
    ("texparameter 2D min", "texparameter needs a target, a parameter and a value"),
    ("texture rgbw 0 (8)", "needs 2 integers, got 1"),
])
def test_malformed_commands_name_their_line(text, problem):
    with pytest.raises(ShaderTestError) as error:
        commands(f"clear\n{text}")
    assert str(error.value).startswith("t.shader_test:2: ") and problem in str(error.value)


def test_numbers_as_piglit_reads_them():
    assert parse_float("1e-3") == 0.001 and parse_float("-inf") == float("-inf")
    assert parse_float("0x3f800000") == 0x3F80_0000           # a bit pattern
    assert parse_float("0x1.8p1") == 3.0
    assert parse_int("0x10") == 16 and parse_int("-010") == -8 and parse_int("7") == 7
    with pytest.raises(ValueError):
        parse_int("1.5")


def test_a_malformed_command_is_an_error_of_the_run(tmp_path):
    with pytest.raises(ShaderTestError, match=r"t\.shader_test:\d+: probe rgb"):
        run(tmp_path, "probe rgb 1 1\n")


def test_an_unknown_command_makes_the_file_a_skip(tmp_path):
    outcome = run(tmp_path, "clear\ndraw arrays GL_POINTS 0 1\n")
    assert (outcome.result, outcome.reason) == ("skip",
                                                "unsupported command 'draw arrays GL_POINTS 0 1'")


def test_shader_test_text_layout():
    text = shader_test("clear\n", vertex="")
    assert text.startswith("[require]\nGLSL >= 1.10\n") and text.endswith("[test]\nclear\n")
