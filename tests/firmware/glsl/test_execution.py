"""Operators, constructs and control flow compiled and run on the R500 quad model, against
Python references. Inputs come per lane through theia_UV0 (temporary 2) and uniforms; the
values are small integers and halves where the result should be exact, so most checks are
exact (every R500 step rounds like binary32)."""

import math
import random

import pytest

from firmware.glsl import Limits
from firmware.glsl.check import check
from firmware.glsl.lexer import tokenize
from firmware.glsl.lower import lower_program
from firmware.glsl.lower_expr import ConstantEvaluator
from firmware.glsl.parser import parse
from firmware.glsl.preprocessor import preprocess
from sim.r500 import fp32
from tests.firmware.glsl.random_programs import RELATIONS, RandomProgram, binary
from tests.helpers.glsl import run_glsl
from tests.helpers.glsl_ir import run_ir


def f32(x):
    return fp32.to_float(fp32.from_float(x))


def outs(src, uv=None, uniforms=None, pixel=None):
    """Run with theia_UV0 = uv[lane] (a vec3 per lane); the four lanes' outputs."""
    lanes = []
    for i in range(4):
        lane = {}
        if uv is not None:
            lane[2] = list(uv[i]) + [0.0]
        if pixel is not None:
            lane[9] = list(pixel[i]) + [0.0, 0.0]
        lanes.append(lane)
    run = run_glsl("#version 120\n" + src, uniforms, lanes=lanes)
    return [run.out(i) for i in range(4)], run


def body(code, decls=""):
    return f"{decls}\nvoid main() {{\n vec3 u = theia_UV0;\n {code}\n}}\n"


UV = [(1.5, -2.0, 3.0), (-0.5, 4.0, 2.0), (2.0, 2.0, -1.0), (0.0, -3.5, 0.25)]


@pytest.mark.parametrize("code,ref", [
    ("gl_FragColor = vec4(u.x + u.y, u.x - u.y, u.x * u.y, u.x / 2.0);",
     lambda x, y, z: [x + y, x - y, x * y, x / 2]),
    ("gl_FragColor = vec4(-u, +u.x);", lambda x, y, z: [-x, -y, -z, x]),
    ("vec3 v = u; v += 1.0; v *= 2.0; v -= u; v /= 4.0; gl_FragColor = vec4(v, 0.0);",
     lambda x, y, z: [((t + 1) * 2 - t) / 4 for t in (x, y, z)] + [0.0]),
    ("float a = u.x; float b = a++; float c = ++a; float d = a--; gl_FragColor = "
     "vec4(a, b, c, d);", lambda x, y, z: [x + 1, x, x + 2, x + 2]),
    ("vec2 v = u.zy; v.y = 7.0; v.x += v.y; gl_FragColor = vec4(v, u.zx);",
     lambda x, y, z: [z + 7, 7.0, z, x]),
    ("vec4 v = vec4(0.0); v.wzyx = vec4(u, 1.0); v.xz = v.zx; gl_FragColor = v;",
     lambda x, y, z: [y, z, 1.0, x]),
    ("gl_FragColor = vec4(u.x < u.y, u.x > u.y, u.x <= u.z, u.x >= u.z);",
     lambda x, y, z: [float(x < y), float(x > y), float(x <= z), float(x >= z)]),
    ("gl_FragColor = vec4(u.x == u.y, u.x != u.y, u.xy == u.yx, u != u);",
     lambda x, y, z: [float(x == y), float(x != y), float(x == y), 0.0]),
    ("bool p = u.x > 0.0, q = u.y > 0.0; gl_FragColor = vec4(p && q, p || q, p ^^ q, !p);",
     lambda x, y, z: [float(x > 0 and y > 0), float(x > 0 or y > 0),
                      float((x > 0) != (y > 0)), float(not x > 0)]),
    ("gl_FragColor = u.x > u.z ? vec4(u, 1.0) : vec4(u.zyx, 2.0);",
     lambda x, y, z: [x, y, z, 1.0] if x > z else [z, y, x, 2.0]),
    ("float m = u.x; if (u.y > m) m = u.y; if (u.z > m) m = u.z; "
     "gl_FragColor = vec4(m);", lambda x, y, z: [max(x, y, z)] * 4),
    ("if (u.x > 0.0) { if (u.y > 0.0) gl_FragColor = vec4(1.0); else gl_FragColor = "
     "vec4(2.0); } else gl_FragColor = vec4(3.0);",
     lambda x, y, z: [1.0 if x > 0 and y > 0 else 2.0 if x > 0 else 3.0] * 4),
])
def test_expressions_per_lane(code, ref):
    results, _ = outs(body(code), UV)
    for (x, y, z), out in zip(UV, results):
        assert out == ref(x, y, z), (code, x, y, z)


@pytest.mark.parametrize("a,b", [(7, 2), (-7, 2), (7, -2), (9, 3), (100, 7), (0, 5),
                                 (12345, 123), (1000000, 7), (-32768, 3)])
def test_integer_division_truncates(a, b):
    """int / int truncates toward zero; % is a - b * (a / b) (C's sign rules)."""
    src = body("gl_FragColor = vec4(float(i / j), float(i % j), float(i * j), "
               "float(int(float(i) / 2.5)));", "uniform int i, j;")
    (out, *_), _ = outs(src, uniforms={"i": a, "j": b})
    q = int(a / b)
    assert out == [q, a - b * q, f32(a * b), int(a / 2.5)]


def test_int_conversions_truncate():
    src = body("ivec3 i = ivec3(u); gl_FragColor = vec4(vec3(i), float(int(-u.x)));")
    uv = [(1.75, -1.75, 2.5), (-0.5, 0.5, 3.99), (7.0, -7.0, -0.0), (100.25, -3.5, 0.99)]
    results, _ = outs(src, uv)
    for (x, y, z), out in zip(uv, results):
        assert out == [float(int(x)), float(int(y)), float(int(z)), float(int(-x))]


def test_bool_conversions():
    src = body("bvec3 b = bvec3(u); gl_FragColor = vec4(vec3(b), float(int(b.x) + "
               "int(true)));")
    results, _ = outs(src, UV)
    for (x, y, z), out in zip(UV, results):
        assert out == [float(x != 0), float(y != 0), float(z != 0), float(x != 0) + 1]


def test_constructors():
    src = body("""mat2 m = mat2(u.x); mat3 n = mat3(mat2(1.0, 2.0, 3.0, 4.0));
    mat2 k = mat2(vec2(u.x, u.y), u.z, 1.0); vec4 v = vec4(u.xy, vec2(u.z));
    gl_FragColor = vec4(m[0][0] + m[1][0], n[2][2] + n[1][1] + n[0][2], k[1].x + k[0].y,
                        v.w + v.y);""")
    results, _ = outs(src, UV)
    for (x, y, z), out in zip(UV, results):
        assert out == [x, 1 + 4 + 0, z + y, z + y]


def test_matrix_arithmetic():
    src = body("""mat2 m = mat2(u.x, u.y, u.z, 2.0); vec2 v = vec2(1.0, u.z);
    vec2 mv = m * v, vm = v * m; mat2 mm = m * m;
    gl_FragColor = vec4(mv + vm, mm[1] + (m * 2.0)[0] + (m + m)[1]);""")
    results, _ = outs(src, UV)
    for (x, y, z), out in zip(UV, results):
        m = [[x, y], [z, 2.0]]                  # columns
        v = [1.0, z]
        mv = [m[0][r] * v[0] + m[1][r] * v[1] for r in range(2)]
        vm = [sum(v[r] * m[c][r] for r in range(2)) for c in range(2)]
        mm1 = [m[0][r] * m[1][0] + m[1][r] * m[1][1] for r in range(2)]
        want = [mv[0] + vm[0], mv[1] + vm[1], mm1[0] + 2 * x + 2 * z, mm1[1] + 2 * y + 4]
        assert out == [f32(w) for w in want]


def test_structs_arrays_and_length():
    src = body("""
    S s = S(u.xy, float[3](u.z, 2.0, 3.0));
    s.v.y += s.a[2];
    S t = s;
    t.a[0] = 10.0;
    float total = 0.0;
    for (int i = 0; i < s.a.length(); i++) total += s.a[i];
    gl_FragColor = vec4(s.v, total, t.a[0] + float(s == t) + float(s == s));""",
               "struct S { vec2 v; float a[3]; };")
    results, _ = outs(src, UV)
    for (x, y, z), out in zip(UV, results):
        assert out == [x, y + 3, z + 5, 11.0]


def test_dynamic_indexing():
    src = body("""float a[4]; a[0] = u.x; a[1] = u.y; a[2] = u.z; a[3] = 9.0;
    int i = int(u.z) & 3;""".replace(" & 3", ""), "")
    src = body("""float a[4]; a[0] = u.x; a[1] = u.y; a[2] = u.z; a[3] = 9.0;
    int i = int(mod(abs(u.z), 4.0)); a[i] = a[i] * 2.0; vec4 v = vec4(u, 5.0);
    mat2 m = mat2(1.0, 2.0, 3.0, 4.0);
    gl_FragColor = vec4(a[0] + a[1] + a[2] + a[3], v[i], m[int(u.x > 0.0)].y, uni[i]);""",
               "uniform float uni[4];")
    results, _ = outs(src, UV, {f"uni[{k}]": 10.0 + k for k in range(4)})
    for (x, y, z), out in zip(UV, results):
        i = int(math.fmod(abs(z), 4.0))
        a = [x, y, z, 9.0]
        a[i] *= 2
        assert out == [sum(a), [x, y, z, 5.0][i], 4.0 if x > 0 else 2.0, 10.0 + i]


def test_functions_inline_with_out_inout_and_overloads():
    src = body("""float r; vec2 acc = vec2(1.0);
    split(u.x, r, acc); split(u.y, r, acc);
    gl_FragColor = vec4(r, acc, twice(u.z) + twice(vec2(u.z)).y);""", """
    void split(in float x, out float whole, inout vec2 sum) {
        whole = floor(x); sum += vec2(x - whole, whole);
        if (x < 0.0) return;
        sum.x += 100.0;
    }
    float twice(float x) { return 2.0 * x; }
    vec2 twice(vec2 x) { return x * 3.0; }""")
    results, _ = outs(src, UV)
    for (x, y, z), out in zip(UV, results):
        acc = [1.0, 1.0]
        for t in (x, y):
            w = math.floor(t)
            acc = [acc[0] + t - w, acc[1] + w]
            if t >= 0:
                acc[0] += 100
        assert out == [math.floor(y), f32(acc[0]), acc[1], 2 * z + 3 * z]


def test_early_return_from_main_and_globals():
    src = body("""g += u.x;
    gl_FragColor = vec4(g, 0.0, 0.0, 1.0);
    if (u.y > 0.0) return;
    gl_FragColor.y = k;
    if (u.z > 0.0) { gl_FragColor.z = 1.0; return; }
    gl_FragColor.w = 2.0;""", "float g = 1.5; const float k = 4.0;")
    results, _ = outs(src, UV)
    for (x, y, z), out in zip(UV, results):
        want = [1.5 + x, 0.0, 0.0, 1.0]
        if y <= 0:
            want[1] = 4.0
            if z > 0:
                want[2] = 1.0
            else:
                want[3] = 2.0
        assert out == want


def test_short_circuit_and_conditional_side_effects():
    src = body("""float n = 0.0;
    bool a = u.x > 0.0 && (n += 1.0) > 0.0;
    bool b = u.y > 0.0 || (n += 10.0) > 0.0;
    float c = u.z > 0.0 ? (n += 100.0) : (n -= 1000.0);
    gl_FragColor = vec4(n, a, b, c);""")
    results, _ = outs(src, UV)
    for (x, y, z), out in zip(UV, results):
        n = 0.0
        a = x > 0
        if a:
            n += 1
        b = y > 0
        if not b:
            n += 10
        n = n + 100 if z > 0 else n - 1000
        assert out == [n, float(a), 1.0, n]


@pytest.mark.parametrize("count", [0, 1, 7, 200])
def test_loop_on_the_engine(count):
    """A loop whose trip count is a uniform runs on the flow-control engine (LOOP/BREAK)."""
    src = body("""float t = 0.0; float p = 1.0;
    for (int i = 0; i < n; i++) { t += float(i); if (i > 5) continue; p *= 2.0; }
    gl_FragColor = vec4(t, p, float(n), 0.0);""", "uniform int n;")
    (out, *_), run = outs(src, uniforms={"n": count})
    assert "LOOP" in run.compiled.asm and run.compiled.int_consts == {0: 255}
    assert out == [count * (count - 1) / 2, 2.0 ** min(count, 6), count, 0.0]


def test_divergent_loops_break_continue_return():
    """Lanes leave a loop on the engine at different iterations, by break, by return and by
    the condition; continue skips the rest of an iteration."""
    src = body("""float x = u.x; int steps = 0;
    while (x < u.z) {
        x += 1.0; steps++;
        if (x == 2.5) continue;
        if (x > u.y) break;
        if (steps == 3) { gl_FragColor = vec4(-1.0); return; }
    }
    gl_FragColor = vec4(x, float(steps), 0.0, 1.0);""")
    uv = [(0.5, 10.0, 2.0), (-0.5, 1.0, 9.0), (0.5, 9.0, 9.0), (1.5, 0.0, 1.0)]
    results, run = outs(src, uv)
    assert "LOOP" in run.compiled.asm
    for (a, b, c), out in zip(uv, results):
        x, steps, ret = a, 0, False
        while x < c:
            x += 1
            steps += 1
            if x == 2.5:
                continue
            if x > b:
                break
            if steps == 3:
                ret = True
                break
        assert out == ([-1.0] * 4 if ret else [x, float(steps), 0.0, 1.0])


def test_unrolled_loops_with_break_and_nesting():
    src = body("""float t = 0.0;
    for (int i = 0; i < 4; i++) {
        for (int j = 0; j < 3; j++) { if (j == i) continue; t += float(i * j); }
        if (t > u.x) break;
    }
    int k = 0; do { k += 2; } while (k < 5);
    gl_FragColor = vec4(t, float(k), 0.0, 0.0);""")
    results, run = outs(src, UV)
    assert "LOOP" not in run.compiled.asm
    for (x, y, z), out in zip(UV, results):
        t = 0.0
        for i in range(4):
            for j in range(3):
                if j != i:
                    t += i * j
            if t > x:
                break
        assert out == [t, 6.0, 0.0, 0.0]


def test_discard_per_lane():
    src = body("""if (u.x < 0.0) discard;
    if (u.y > 3.0) { gl_FragColor = vec4(9.0); discard; }
    gl_FragColor = vec4(u, 1.0);""")
    _, run = outs(src, UV)
    for i, (x, y, z) in enumerate(UV):
        assert run.killed(i) == (x < 0 or y > 3)
        if not run.killed(i):
            assert run.out(i) == [x, y, z, 1.0]


def test_inputs_fragcoord_and_fragdata():
    src = body("""gl_FragData[0] = vec4(gl_FragCoord.xy, theia_Pixel.y + float(gl_FrontFacing),
                                   gl_FragCoord.w);""")
    pixel = [(4, 6), (5, 6), (4, 7), (5, 7)]
    results, run = outs(src, UV, pixel=pixel)
    assert run.compiled.interface["inputs"] == ["gl_FragCoord", "gl_FrontFacing", "theia_Pixel",
                                                "theia_UV0"]
    for (x, y), out in zip(pixel, results):
        assert out == [x + 0.5, y + 0.5, y + 1.0, 1.0]


def test_uniform_struct_matrix_and_bool():
    src = body("gl_FragColor = vec4(m * l.dir, float(l.on) + l.k[1]);", """
    struct Light { vec3 dir; bool on; float k[2]; };
    uniform Light l; uniform mat3 m;""")
    uniforms = {"l.dir": [1.0, 2.0, 3.0], "l.on": 1.0, "l.k[0]": 5.0, "l.k[1]": 6.0,
                "m": [1, 0, 0, 0, 2, 0, 0, 0, 3]}
    (out, *_), run = outs(src, uniforms=uniforms)
    assert out == [1.0, 4.0, 9.0, 7.0]
    assert set(run.compiled.interface["uniforms"]) == {"l.dir", "l.on", "l.k[0]", "l.k[1]",
                                                      "m"}


def test_uniform_initialisers_are_the_hosts_constants():
    """A GLSL 1.20 uniform initialiser is a default the host writes (``constants``)."""
    src = body("gl_FragColor = vec4(a, b);", "uniform vec3 a = vec3(1.0, 2.0, 3.0);"
               "uniform float b = 4.0;")
    (out, *_), _ = outs(src)
    assert out == [1.0, 2.0, 3.0, 4.0]


@pytest.mark.parametrize("seed", range(4))
def test_random_expressions(seed):
    """Random expression trees of + - * min max abs, negation, comparisons, selects and
    logical operators over a, b, c and constants of both signs: the compiled program (fused,
    with modifiers, pre-subtract and compare-and-select) against Python, rounding each
    arithmetic step as binary32 does."""
    rng = random.Random(seed)
    constants = ["1.0", "0.5", "2.0", "3.25", "-1.0", "-0.5", "0.0", "-2.0", "10.0"]

    def number(depth):
        if depth == 0 or rng.random() < 0.2:
            leaf = rng.choice(["u.x", "u.y", "u.z"] + constants)
            return leaf, (lambda env, leaf=leaf: env[leaf])
        op = rng.choice(["+", "-", "*", "min", "max", "abs", "neg", "?:"])
        (ta, fa), (tb, fb) = number(depth - 1), number(depth - 1)
        if op == "abs":
            return f"abs({ta})", lambda e: abs(fa(e))
        if op == "neg":
            return f"(- {ta})", lambda e: -fa(e)
        if op == "?:":
            tc, fc = boolean(depth - 1)
            return f"({tc} ? {ta} : {tb})", lambda e: fa(e) if fc(e) else fb(e)
        return binary(op, (ta, fa), (tb, fb))

    def boolean(depth):
        op = rng.choice(["<", ">", "<=", ">=", "==", "!=", "&&", "||", "!"])
        if op in ("&&", "||", "!") and depth > 0:
            (ta, fa), (tb, fb) = boolean(depth - 1), boolean(depth - 1)
            if op == "!":
                return f"!({ta})", lambda e: not fa(e)
            fn = (lambda x, y: x and y) if op == "&&" else (lambda x, y: x or y)
            return f"({ta} {op} {tb})", lambda e: fn(fa(e), fb(e))
        (ta, fa), (tb, fb) = number(max(depth - 1, 0)), number(max(depth - 1, 0))
        op = op if op in RELATIONS else "<"
        rel = RELATIONS[op]
        return f"({ta} {op} {tb})", lambda e: rel(fa(e), fb(e))
    exprs = [number(4) for _ in range(3)]
    cond, fcond = boolean(3)
    src = body("gl_FragColor = vec4(" + ", ".join(t for t, _ in exprs) + f", float({cond}));")
    uv = [[rng.choice([f32(rng.uniform(-4, 4)), float(rng.randrange(-3, 4))])
           for _ in range(3)] for _ in range(4)]
    results, _ = outs(src, uv)
    for (x, y, z), out in zip(uv, results):
        env = {"u.x": x, "u.y": y, "u.z": z}
        env.update({c: float(c) for c in constants})
        want = [fn(env) for _, fn in exprs] + [float(fcond(env))]
        assert out == pytest.approx(want, rel=1e-6, abs=1e-6), src


@pytest.mark.parametrize("seed", range(6))
def test_random_programs(seed):
    """Random programs of assignments, ifs, loops (unrolled and on the engine), break,
    continue, return and discard against their meaning in Python, lane by lane; and the
    machine code against the IR it was made from (tests/helpers/glsl_ir.py), bit for bit."""
    program = RandomProgram(seed)
    source = "#version 120\n" + program.source
    lowered = lower_program(check(parse(*preprocess(tokenize(source))), Limits(),
                                  ConstantEvaluator()), Limits())
    rng = random.Random(seed)
    for n in (0, 3):
        uv = [[float(rng.randrange(-3, 4)) / 2 for _ in range(3)] for _ in range(4)]
        run = run_glsl(source, {"n": n}, lanes=[{2: list(v) + [0.0]} for v in uv])
        for lane, v in enumerate(uv):
            want = program.run(v, n)
            assert run.killed(lane) == (want is None), program.source
            ir_out = run_ir(lowered, {"n": [float(n)]}, {2: list(v) + [0.0]})
            assert (ir_out is None) == (want is None)
            if want is not None:
                assert run.out(lane) == pytest.approx(want, rel=1e-6, abs=1e-6), \
                    program.source
                assert run.out(lane) == ir_out[0]
