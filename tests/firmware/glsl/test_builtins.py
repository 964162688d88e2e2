"""Every built-in function of GLSL 1.20 chapter 8 a fragment shader may call, compiled and run
on the R500 quad model against Python's double-precision references, on seeded random inputs
(four lanes per run, each lane its own inputs in theia_UV0/1/2).

Tolerances follow the R500's arithmetic (r500-us.md §3.3, docs/r500-arithmetic.md): every
add, multiply and MAD step is rounded once (2^-24 relative), RCP is within 1 ulp, RSQ and EX2
within 2 ulp, LN2 within 2^-21 absolute, SIN/COS within 2^-20 absolute of the turn they get
(x / 2pi rounded to binary32 first); asin, acos and atan are polynomials within 6e-7 (before
rounding). Each case's tolerance is the sum its chain of steps can reach, with margin."""

import math
import random

import pytest

from sim.r500 import fp32
from tests.helpers.glsl import run_glsl

INPUTS = {"a": 2, "b": 3, "c": 4}           # the temporaries holding theia_UV0, UV1, UV2
_HEADER = "#version 120\n"


def _run(expr, ranges, seed, extra=""):
    """Evaluate ``expr`` (a vec3 of a, b, c) in four lanes; returns (inputs, outputs)."""
    src = (_HEADER + f"{extra}\nvoid main() {{\n vec3 a = theia_UV0; vec3 b = theia_UV1; "
           f"vec3 c = theia_UV2;\n gl_FragColor = vec4({expr}, 1.0);\n}}\n")
    rng = random.Random(seed)
    lanes = []
    for _ in range(4):
        lane = {}
        for name, temp in INPUTS.items():
            lo, hi = ranges.get(name, (-4.0, 4.0))
            lane[temp] = [_f32(rng.uniform(lo, hi)) for _ in range(3)] + [0.0]
        lanes.append(lane)
    run = run_glsl(src, lanes=lanes)
    return lanes, [run.out(i)[:3] for i in range(4)]


def _f32(x):
    """x rounded to binary32, as the model reads it."""
    return fp32.to_float(fp32.from_float(x))


def _check(expr, reference, ranges=None, tol=1e-6, rel=True, seeds=(1, 2)):
    for seed in seeds:
        lanes, outs = _run(expr, ranges or {}, seed)
        for lane, out in zip(lanes, outs):
            a, b, c = (lane[INPUTS[n]][:3] for n in "abc")
            want = reference(a, b, c)
            for i, (g, w) in enumerate(zip(out, want)):
                limit = tol * max(1.0, abs(w)) if rel else tol
                assert abs(g - w) <= limit, (expr, a, b, c, i, g, w)


def per(fn):
    """A componentwise reference of a, b, c."""
    return lambda a, b, c: [fn(x, y, z) for x, y, z in zip(a, b, c)]


POS = {"a": (0.05, 4.0), "b": (0.05, 4.0), "c": (0.05, 4.0)}
UNIT = {"a": (-1.0, 1.0), "b": (-1.0, 1.0), "c": (-1.0, 1.0)}

COMPONENTWISE = [
    ("radians(a)", per(lambda a, b, c: math.radians(a)), None, 1e-6),
    ("degrees(a)", per(lambda a, b, c: math.degrees(a)), None, 1e-6),
    ("sin(a)", per(lambda a, b, c: math.sin(a)), None, 4e-6),
    ("cos(a)", per(lambda a, b, c: math.cos(a)), None, 4e-6),
    ("tan(a)", per(lambda a, b, c: math.tan(a)), UNIT, 1e-5),
    ("asin(a)", per(lambda a, b, c: math.asin(a)), UNIT, 4e-6),
    ("acos(a)", per(lambda a, b, c: math.acos(a)), UNIT, 4e-6),
    ("atan(a)", per(lambda a, b, c: math.atan(a)), None, 4e-6),
    ("atan(a, b)", per(lambda a, b, c: math.atan2(a, b)), None, 6e-6),
    ("pow(a, b)", per(lambda a, b, c: a ** b), {"a": (0.1, 3.0), "b": (-2.0, 2.0)}, 2e-5),
    ("exp(a)", per(lambda a, b, c: math.exp(a)), None, 4e-6),
    ("log(a)", per(lambda a, b, c: math.log(a)), POS, 2e-6),
    ("exp2(a)", per(lambda a, b, c: 2.0 ** a), None, 1e-6),
    ("log2(a)", per(lambda a, b, c: math.log2(a)), POS, 2e-6),
    ("sqrt(a)", per(lambda a, b, c: math.sqrt(a)), POS, 1e-6),
    ("inversesqrt(a)", per(lambda a, b, c: 1 / math.sqrt(a)), POS, 1e-6),
    ("abs(a)", per(lambda a, b, c: abs(a)), None, 0.0),
    ("sign(a)", per(lambda a, b, c: math.copysign(1.0, a) if a else 0.0), None, 0.0),
    ("floor(a)", per(lambda a, b, c: math.floor(a)), None, 0.0),
    ("ceil(a)", per(lambda a, b, c: math.ceil(a)), None, 0.0),
    ("fract(a)", per(lambda a, b, c: a - math.floor(a)), None, 1e-6),
    ("mod(a, b)", per(lambda a, b, c: a - b * math.floor(a / b)), POS, 1e-5),
    ("mod(a, 0.75)", per(lambda a, b, c: a - 0.75 * math.floor(a / 0.75)), None, 1e-5),
    ("min(a, b)", per(lambda a, b, c: min(a, b)), None, 0.0),
    ("min(a, b.x)", lambda a, b, c: [min(x, b[0]) for x in a], None, 0.0),
    ("max(a, b)", per(lambda a, b, c: max(a, b)), None, 0.0),
    ("max(a, 0.5)", per(lambda a, b, c: max(a, 0.5)), None, 0.0),
    ("clamp(a, b, b + 1.0)", per(lambda a, b, c: min(max(a, b), b + 1)), None, 1e-6),
    ("clamp(a, 0.0, 1.0)", per(lambda a, b, c: min(max(a, 0.0), 1.0)), None, 0.0),
    ("clamp(a, -0.5, 0.5)", per(lambda a, b, c: min(max(a, -0.5), 0.5)), None, 0.0),
    ("mix(a, b, c)", per(lambda a, b, c: a * (1 - c) + b * c), UNIT, 1e-6),
    ("mix(a, b, 0.25)", per(lambda a, b, c: a * 0.75 + b * 0.25), None, 1e-6),
    ("step(b, a)", per(lambda a, b, c: 0.0 if a < b else 1.0), None, 0.0),
    ("step(0.5, a)", per(lambda a, b, c: 0.0 if a < 0.5 else 1.0), None, 0.0),
    ("smoothstep(b, b + 2.0, a)", per(lambda a, b, c: (lambda t: t * t * (3 - 2 * t))(
        min(max((a - b) / 2, 0.0), 1.0))), None, 1e-5),
    ("smoothstep(-1.0, 1.0, a)", per(lambda a, b, c: (lambda t: t * t * (3 - 2 * t))(
        min(max((a + 1) / 2, 0.0), 1.0))), None, 1e-5),
]


@pytest.mark.parametrize("expr,reference,ranges,tol", COMPONENTWISE,
                         ids=[c[0] for c in COMPONENTWISE])
def test_componentwise(expr, reference, ranges, tol):
    _check(expr, reference, ranges, tol)


@pytest.mark.parametrize("expr,pick", [
    ("dFdx(a * b)", lambda dx, dy: dx), ("dFdy(a * b)", lambda dx, dy: dy),
    ("fwidth(a * b)", lambda dx, dy: abs(dx) + abs(dy)),
    ("vec3(dFdx(a.y * b.z), dFdy(a.x), 0.0)", None)])
def test_derivatives(expr, pick):
    """Coarse derivatives, per quad: dFdx = lane 1 - lane 0, dFdy = lane 2 - lane 0 (MDH,
    MDV), the same in every lane."""
    lanes, outs = _run(expr, {}, 7)
    ab = [[_f32(x * y) for x, y in zip(lane[2][:3], lane[3][:3])] for lane in lanes]
    for out in outs:
        if pick is None:
            dx = _f32(lanes[1][2][1] * lanes[1][3][2]) - _f32(lanes[0][2][1] * lanes[0][3][2])
            dy = lanes[2][2][0] - lanes[0][2][0]
            assert out == pytest.approx([dx, dy, 0.0], abs=1e-6)
            continue
        want = [pick(x1 - x0, y2 - y0) for x0, x1, y0, y2 in zip(ab[0], ab[1], ab[0], ab[2])]
        assert out == pytest.approx(want, abs=1e-5)


def _dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def _norm(a):
    return math.sqrt(_dot(a, a))


GEOMETRIC = [
    ("vec3(length(a), length(a.xy), length(a.x))",
     lambda a, b, c: [_norm(a), _norm(a[:2]), abs(a[0])], 1e-6),
    ("vec3(distance(a, b), distance(a.xy, b.xy), distance(a.x, b.x))",
     lambda a, b, c: [_norm([x - y for x, y in zip(a, b)]),
                      _norm([a[0] - b[0], a[1] - b[1]]), abs(a[0] - b[0])], 1e-6),
    ("vec3(dot(a, b), dot(a.xy, b.xy), dot(vec4(a, 1.0), vec4(b, 2.0)))",
     lambda a, b, c: [_dot(a, b), _dot(a[:2], b[:2]), _dot(a, b) + 2], 1e-6),
    ("cross(a, b)", lambda a, b, c: [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                                     a[0] * b[1] - a[1] * b[0]], 1e-6),
    ("normalize(a)", lambda a, b, c: [x / _norm(a) for x in a], 1e-6),
    ("faceforward(a, b, c)", lambda a, b, c: a if _dot(c, b) < 0 else [-x for x in a], 0.0),
    ("reflect(a, normalize(b))", lambda a, b, c: (lambda n: [
        x - 2 * _dot(n, a) * y for x, y in zip(a, n)])([x / _norm(b) for x in b]), 1e-5),
]


@pytest.mark.parametrize("expr,reference,tol", GEOMETRIC, ids=[g[0] for g in GEOMETRIC])
def test_geometric(expr, reference, tol):
    _check(expr, reference, None, tol)


def _refract(i, n, eta):
    d = _dot(n, i)
    k = 1 - eta * eta * (1 - d * d)
    if k < 0:
        return [0.0] * 3
    return [eta * x - (eta * d + math.sqrt(k)) * y for x, y in zip(i, n)]


@pytest.mark.parametrize("eta", [0.5, 0.9, 1.5])
def test_refract(eta):
    _check(f"refract(normalize(a), normalize(b), {eta})",
           lambda a, b, c: _refract([x / _norm(a) for x in a], [x / _norm(b) for x in b], eta),
           None, 2e-5, rel=False)


RELATIONAL = [
    ("vec3(lessThan(a, b))", per(lambda a, b, c: float(a < b))),
    ("vec3(lessThanEqual(a, b))", per(lambda a, b, c: float(a <= b))),
    ("vec3(greaterThan(a, b))", per(lambda a, b, c: float(a > b))),
    ("vec3(greaterThanEqual(a, b))", per(lambda a, b, c: float(a >= b))),
    ("vec3(equal(floor(a), floor(b)))", per(lambda a, b, c: float(math.floor(a) ==
                                                                  math.floor(b)))),
    ("vec3(notEqual(floor(a), floor(b)))", per(lambda a, b, c: float(math.floor(a) !=
                                                                     math.floor(b)))),
    ("vec3(equal(ivec3(a), ivec3(b)))", per(lambda a, b, c: float(int(a) == int(b)))),
    ("vec3(any(lessThan(a, b)), all(lessThan(a, b)), any(not(lessThan(a.xy, b.xy))))",
     lambda a, b, c: [float(any(x < y for x, y in zip(a, b))),
                      float(all(x < y for x, y in zip(a, b))),
                      float(any(not x < y for x, y in zip(a[:2], b[:2])))]),
]


@pytest.mark.parametrize("expr,reference", RELATIONAL, ids=[r[0] for r in RELATIONAL])
def test_relational(expr, reference):
    _check(expr, reference, {"a": (-2, 2), "b": (-2, 2)}, 0.0, seeds=(1, 2, 3))


def test_matrix_functions():
    """matrixCompMult, outerProduct, transpose on a mat3 of a, b, c."""
    expr = ("(matrixCompMult(mat3(a, b, c), mat3(c, a, b)) * vec3(1.0, 2.0, 3.0)"
            " + outerProduct(a, b)[1] + transpose(mat3(a, b, c))[2])")

    def reference(a, b, c):
        m = [[x * y for x, y in zip(col, col2)] for col, col2 in ((a, c), (b, a), (c, b))]
        mv = [m[0][r] * 1 + m[1][r] * 2 + m[2][r] * 3 for r in range(3)]
        op = [x * b[1] for x in a]
        tr = [a[2], b[2], c[2]]
        return [x + y + z for x, y, z in zip(mv, op, tr)]
    _check(expr, reference, None, 1e-5)


def test_texture_lookups():
    """texture2D (with and without bias) and texture2DProj (vec3 and vec4) on a 4x4
    NEAREST texture whose texel (i, j) is (i/4, j/4, (i + j)/8); alpha is 1."""
    texture = []
    for j in range(4):
        for i in range(4):
            texture += [(i * 32) << 9, (j * 32) << 9, ((i + j) * 16) << 9]
    from sim.r500.tex import Sampler
    src = """uniform sampler2D t; uniform vec2 uv;
    void main() { gl_FragColor = texture2D(t, uv) + texture2D(t, uv, 1.0)
                + texture2DProj(t, vec3(uv * 2.0, 2.0)) + texture2DProj(t, vec4(uv, 7.0, 1.0)); }"""
    for u, v in ((0.1, 0.1), (0.3, 0.8), (0.99, 0.55)):
        run = run_glsl(src, {"uv": [u, v]}, samplers={0: Sampler(0, 4, 4)}, texture=texture)
        i, j = int(u * 4), int(v * 4)
        want = [4 * i / 8, 4 * j / 8, 4 * (i + j) / 16, 4.0]
        assert run.out() == pytest.approx(want)
        assert run.compiled.interface["samplers"] == {"t": 0}


def test_noise_is_zero():
    """noise1..4 return 0 (GLSL 1.20 §8.9 allows it; Mesa does the same)."""
    _check("vec3(noise1(a), noise2(a).y, noise4(b).w) + noise3(c)", lambda a, b, c: [0.0] * 3,
           None, 0.0, seeds=(1,))
