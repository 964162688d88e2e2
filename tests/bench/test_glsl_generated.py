"""bench.glsl_generated: generated shader_test files of the GLSL built-ins and operators —
the test vectors, the files' layouts, and a handful run end to end (the whole set is the
bench's, minutes long)."""

import json
import math

import pytest

from bench import glsl_generated
from bench.glsl_shader_tests import ShaderTest, all_tests, literal, number
from bench.glsl_vectors import Mat, Vec, suite

pytest.importorskip("firmware.glsl", reason="the GLSL compiler (firmware.glsl) is not present")

#: GLSL 1.20 §8's functions a fragment shader can call on values (the texture lookups,
#: derivatives and noise have no test vectors: the suite of tests/shader_tests covers them)
FUNCTIONS = {"radians", "degrees", "sin", "cos", "tan", "asin", "acos", "atan", "pow", "exp",
             "log", "exp2", "log2", "sqrt", "inversesqrt", "abs", "sign", "floor", "ceil",
             "fract", "mod", "min", "max", "clamp", "mix", "step", "smoothstep", "length",
             "distance", "dot", "cross", "normalize", "faceforward", "reflect", "refract",
             "matrixCompMult", "outerProduct", "transpose", "lessThan", "lessThanEqual",
             "greaterThan", "greaterThanEqual", "equal", "notEqual", "any", "all", "not"}
OPERATORS = {"op-add", "op-sub", "op-mult", "op-div", "op-uplus", "op-neg", "op-not",
             "op-lt", "op-le", "op-gt", "op-ge", "op-eq", "op-ne", "op-and", "op-or", "op-xor",
             "op-selection", "op-assign-add", "op-assign-sub", "op-assign-mult",
             "op-assign-div", "op-preinc", "op-predec", "op-postinc", "op-postdec"}
#: a sample that runs every mode: mat * vec (compare, scaled, const), a comparison in an if,
#: integer division truncated toward zero
SAMPLE = ["mat3x2-vec3", "fs-op-lt-float-float-using-if", "fs-op-div-ivec3-int"]


@pytest.fixture(scope="module")
def table():
    return suite()


def _vectors(table, name, *argtypes):
    matches = [v for s, v in table.items()
               if s.name == name and tuple(str(t) for t in s.argtypes) == argtypes]
    assert len(matches) == 1
    return matches[0]


def test_every_function_and_operator_has_vectors(table):
    assert {s.name for s in table} == FUNCTIONS | OPERATORS
    assert all(vectors for vectors in table.values())
    shapes = {str(t) for s in table for t in s.argtypes}
    assert {"mat2x3", "mat4x2", "ivec3", "bvec4", "mat4"} <= shapes
    products = {tuple(str(t) for t in s.argtypes) for s in table if s.name == "op-mult"}
    assert {("mat3x2", "vec3"), ("vec2", "mat3x2"), ("mat2x4", "mat3x2")} <= products


def test_the_reference_values(table):
    division = _vectors(table, "op-div", "int", "int")
    assert (76, -6) in {v.arguments for v in division}
    assert {v.arguments: v.result for v in division}[(76, -6)] == -12      # toward zero
    assert all(v.arguments[1] != 0 for v in division)                     # undefined: left out
    product = _vectors(table, "op-mult", "vec2", "mat3x2")[0]
    x, m = product.arguments
    assert isinstance(m, Mat) and product.result == Vec(
        pytest.approx(x[0] * c[0] + x[1] * c[1], rel=1e-6) for c in m)
    # smoothstep is undefined for edge0 >= edge1; its vectors leave such arguments out
    assert all(v.arguments[0] < v.arguments[1]
               for v in _vectors(table, "smoothstep", "float", "float", "float"))


def test_the_tolerances(table):
    sine = _vectors(table, "sin", "float")
    assert all(v.tolerance == pytest.approx(max(1e-4, 1e-3 * abs(v.result))) for v in sine)
    scalar = {v.arguments[0]: v.tolerance for v in _vectors(table, "exp", "float")}
    for v in _vectors(table, "exp", "vec2"):        # vectorised: root sum of squares
        expected = math.hypot(*(scalar[a] for a in v.arguments[0]))
        assert v.tolerance == pytest.approx(expected, rel=1e-6)
    assert all(v.tolerance == 0.0 for v in _vectors(table, "op-add", "ivec2", "ivec2"))


def test_numbers_and_literals():
    assert number(0.1) == "0.1" and number(True) == "1" and number(-6) == "-6"
    assert float(number(math.pi)) != math.pi and len(number(math.pi)) <= 11
    assert literal(0.0) == "0.0" and literal(Vec((1.5, 2.0))) == "vec2(1.5, 2.0)"
    assert literal(Vec((True, False))) == "bvec2(true, false)"


def test_the_layouts(table):
    signature = next(s for s in table if s.name == "op-mult"
                     and tuple(map(str, s.argtypes)) == ("mat3x2", "vec3"))
    vectors = table[signature]
    compare = ShaderTest(signature, vectors).text()
    assert "uniform mat3x2 arg0;" in compare and "uniform mat3x2 arg0 0.09 -1.19 " in compare
    assert "distance(result, expected) <= tolerance" in compare
    assert compare.count("draw rect -1 -1 2 2\n") == len(vectors)
    assert "probe rgba 3 0 0.0 1.0 0.0 1.0" in compare
    const = ShaderTest(signature, vectors, "const").text()
    assert "result = (mat3x2(0.09, -1.19, 1.3, 0.08, 1.25, 1.08) * vec3(" in const
    assert "uniform int which 3" in const
    scaled = ShaderTest(signature, vectors, "scaled").text()
    assert "result -= " in scaled and "result *= " in scaled
    names = [t.filename for t in all_tests()]
    assert len(names) == len(set(names)) > 2000


def test_a_sample_passes_on_the_model(capsys):
    assert glsl_generated.main(["--only", *SAMPLE, "--rtl", "0"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["files"] == 5 and report["model"] == {"pass": 5, "fail": 0, "skip": 0}
    assert report["failures"] == [] and "rtl" not in report


def test_a_wrong_result_fails(tmp_path, capsys):
    wrong = ShaderTest(*next((s, v) for s, v in suite().items() if s.name == "sin"
                             and str(s.argtypes[0]) == "vec3")).text()
    wrong = wrong.replace("uniform vec3 expected 8.742278e-08", "uniform vec3 expected 0.01")
    (tmp_path / "wrong.shader_test").write_text(wrong)
    assert glsl_generated.main(["--only", "none", "--rtl", "0", "--extra",
                                str(tmp_path)]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["files"] == 0 and report["extra"]["fail"] == 1
    assert "pixel (0, 0) expected (0, 1, 0, 1), observed (1, 0, 0, 1)" in \
        report["extra"]["failures"][0]["reason"]


@pytest.mark.xdist_group("r500_job_top")
def test_one_on_the_rtl_compared_with_the_model(capsys):
    assert glsl_generated.main(["--only", "fs-op-div-ivec3-int", "--rtl", "1"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["rtl"]["files"] == 1 and report["rtl"]["pass"] == 1
