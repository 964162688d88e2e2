"""Random GLSL programs with their meaning in Python: assignments, if/else, loops with constant
and uniform trip counts (so both unrolled and on the flow-control engine), break, continue,
return from main and discard, over float variables, with values that stay exact or round as
binary32 does each step."""

import random

from sim.r500 import fp32

__all__ = ["RandomProgram", "binary", "RELATIONS"]

VARS = ("x", "y", "z")


def f32(v):
    return fp32.to_float(fp32.from_float(v))


#: GLSL's relational operators on Python floats (IEEE's, as the R500's comparisons)
RELATIONS = {"<": lambda a, b: a < b, ">": lambda a, b: a > b, "<=": lambda a, b: a <= b,
             ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}
_ARITH = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b}


def binary(op, a, b):
    """GLSL text and meaning of ``a op b`` (+ - * min max) for (text, function) operands,
    each arithmetic step rounded to binary32."""
    (ta, fa), (tb, fb) = a, b
    if op in ("min", "max"):
        fn = min if op == "min" else max
        return f"{op}({ta}, {tb})", lambda env: fn(fa(env), fb(env))
    return f"({ta} {op} {tb})", lambda env: f32(_ARITH[op](fa(env), fb(env)))


#: a function with an early return and an inout parameter, called as ``v = f(w, expr)``
HELPER = """float f(inout float a, float b) {
 if (a > b) return a - b;
 a = a * 0.5;
 return b;
}
"""


def _helper(env, var, b):
    a = env[var]
    if a > b:
        return f32(a - b)
    env[var] = f32(a * 0.5)
    return b


class _Return(Exception):
    pass


class _Discard(Exception):
    pass


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class RandomProgram:
    """``source`` (GLSL) and ``run(inputs, n)`` (Python: the output vec4, or None when
    discarded); inputs x, y, z per lane, n the uniform loop count."""

    def __init__(self, seed, size=10):
        self.rng = random.Random(seed)
        self.loop_depth = 0
        body = self._block(size, depth=0)
        self.source = ("uniform int n;\n" + HELPER + "void main() {\n"
                       " float x = theia_UV0.x, y = theia_UV0.y, z = theia_UV0.z;\n"
                       " vec3 v = theia_UV0.zxy;\n"
                       " float a[3]; a[0] = y; a[1] = z; a[2] = x;\n"
                       " gl_FragColor = vec4(0.0);\n"
                       + "".join(" " + t + "\n" for t in body[0])
                       + " gl_FragColor = vec4(x + v.x, y + v.y + a[1], z + v.z, a[0] "
                       "+ a[2]);\n}\n")
        self.program = body[1]

    # --- expressions --------------------------------------------------------------------------

    def _expr(self, depth):
        r = self.rng
        if depth == 0 or r.random() < 0.3:
            if r.random() < 0.6:
                v = r.choice(VARS)
                return v, lambda env, v=v: env[v]
            c = r.choice([0.0, 0.5, 1.0, 2.0, -1.0, 3.0, 0.25])
            return f"{c!r}", lambda env, c=c: c
        op = r.choice(["+", "-", "*", "min", "max"])
        return binary(op, self._expr(depth - 1), self._expr(depth - 1))

    def _cond(self):
        (ta, fa), (tb, fb) = self._expr(1), self._expr(1)
        op = self.rng.choice(list(RELATIONS))
        rel = RELATIONS[op]
        return f"{ta} {op} {tb}", lambda env: rel(fa(env), fb(env))

    # --- statements ---------------------------------------------------------------------------

    def _block(self, size, depth):
        texts, fns = [], []
        for _ in range(max(1, size)):
            t, fn = self._statement(depth)
            texts.extend(t)
            fns.append(fn)

        def run(env):
            for fn in fns:
                fn(env)
        return texts, run

    def _statement(self, depth):
        r = self.rng
        kinds = ["assign"] * 5 + ["if"] * 2 + ["call", "vector", "array"]
        if depth < 2:
            kinds += ["loop", "while", "do"]
        if self.loop_depth:
            kinds += ["break", "continue"]
        kinds += ["return", "discard"]
        kind = r.choice(kinds)
        if kind == "assign":
            v = r.choice(VARS)
            t, fn = self._expr(2)

            def assign(env, v=v, fn=fn):
                env[v] = fn(env)
            return [f"{v} = {t};"], assign
        if kind == "vector":
            return self._vector()
        if kind == "array":
            return self._array()
        if kind == "call":
            v, w = r.choice(VARS), r.choice(VARS)
            t, fn = self._expr(1)

            def call(env, v=v, w=w, fn=fn):
                b = fn(env)
                env[v] = _helper(env, w, b)
            return [f"{v} = f({w}, {t});"], call
        if kind in ("while", "do"):
            return self._while(depth, kind)
        if kind in ("break", "continue", "return", "discard"):
            ct, cf = self._cond()
            exc = {"break": _Break, "continue": _Continue, "return": _Return,
                   "discard": _Discard}[kind]
            pre = "gl_FragColor = vec4(x, y, -1.0, 0.0); " if kind == "return" else ""

            def jump(env, cf=cf, exc=exc):
                if cf(env):
                    raise exc
            return [f"if ({ct}) {{ {pre}{kind}; }}"], jump
        if kind == "if":
            ct, cf = self._cond()
            then_t, then_f = self._block(r.randrange(1, 3), depth + 1)
            else_t, else_f = self._block(r.randrange(1, 3), depth + 1)

            def branch(env):
                (then_f if cf(env) else else_f)(env)
            return ([f"if ({ct}) {{"] + ["  " + t for t in then_t] + ["} else {"]
                    + ["  " + t for t in else_t] + ["}"]), branch
        counter = f"i{depth}"
        uniform = r.random() < 0.5
        bound = "n" if uniform else str(r.randrange(0, 4))
        self.loop_depth += 1
        body_t, body_f = self._block(r.randrange(1, 4), depth + 1)
        self.loop_depth -= 1

        def loop(env, bound=bound):
            count = env["n"] if bound == "n" else int(bound)
            for _ in range(count):
                try:
                    body_f(env)
                except _Continue:
                    continue
                except _Break:
                    break
        return ([f"for (int {counter} = 0; {counter} < {bound}; {counter}++) {{"]
                + ["  " + t for t in body_t] + ["}"]), loop

    def _vector(self):
        """``v.<mask> = v.<swizzle> * s + v.<mask>``: a write mask, a swizzle, a MAD."""
        k = self.rng.randrange(1, 4)
        mask = "".join(self.rng.sample("xyz", k))
        swz = "".join(self.rng.choice("xyz") for _ in range(k))
        t, fn = self._expr(1)

        def assign(env, mask=mask, swz=swz, fn=fn):
            s = fn(env)
            v = list(env["v"])
            new = [f32(f32(v["xyz".index(b)] * s) + v["xyz".index(a)])
                   for a, b in zip(mask, swz)]
            for a, value in zip(mask, new):
                v["xyz".index(a)] = value
            env["v"] = v
        vec = f"vec{k}" if k > 1 else "float"
        return [f"v.{mask} = v.{swz} * {vec}({t}) + v.{mask};"], assign

    def _array(self):
        """``a[int(clamp(e, 0.0, 2.0))] = e'`` or ``x = a[...]``: dynamic indices."""
        (ti, fi), (tv, fv) = self._expr(1), self._expr(1)
        index = f"int(clamp({ti}, 0.0, 2.0))"
        var = self.rng.choice(VARS)
        if self.rng.random() < 0.5:
            def write(env, fi=fi, fv=fv):
                i = int(min(max(fi(env), 0.0), 2.0))
                value = fv(env)
                a = list(env["a"])
                a[i] = value
                env["a"] = a
            return [f"a[{index}] = {tv};"], write

        def read(env, fi=fi, var=var):
            env[var] = env["a"][int(min(max(fi(env), 0.0), 2.0))]
        return [f"{var} = a[{index}];"], read

    def _while(self, depth, kind):
        """``while (cond && w < k) { w++; ... }`` or its do-while: a dynamic condition with
        a cap, the counter first so that continue skips nothing it needs."""
        ct, cf = self._cond()
        counter = f"w{depth}"
        bound = "n" if self.rng.random() < 0.5 else str(self.rng.randrange(1, 4))
        self.loop_depth += 1
        body_t, body_f = self._block(self.rng.randrange(1, 4), depth + 1)
        self.loop_depth -= 1
        cond = f"{ct} && {counter} < {bound}"

        def loop(env, bound=bound):
            count = env["n"] if bound == "n" else int(bound)
            w = 0
            first = kind == "do"
            while first or (cf(env) and w < count):
                first = False
                w += 1
                try:
                    body_f(env)
                except _Continue:
                    pass
                except _Break:
                    break
                if kind == "do" and not (cf(env) and w < count):
                    break
        inner = ["  " + counter + "++;"] + ["  " + t for t in body_t]
        if kind == "while":
            text = ([f"{{ int {counter} = 0; while ({cond}) {{"] + inner + ["} }"])
        else:
            text = ([f"{{ int {counter} = 0; do {{"] + inner + [f"}} while ({cond}); }}"])
        return text, loop

    def run(self, inputs, n):
        env = dict(zip(VARS, inputs), n=n)
        x, y, z = inputs
        env["v"], env["a"] = [z, x, y], [y, z, x]
        try:
            self.program(env)
        except _Return:
            return [env["x"], env["y"], -1.0, 0.0]
        except _Discard:
            return None
        v, a = env["v"], env["a"]
        return [f32(env["x"] + v[0]), f32(f32(env["y"] + v[1]) + a[1]), f32(env["z"] + v[2]),
                f32(a[0] + a[2])]
