"""What each built-in function computes, in IR operations (GLSL 1.20 chapter 8).

The R500 has SIN/COS of turns, EX2, LN2, RCP and RSQ; the rest is arithmetic. asin, acos and
atan are polynomials fitted to minimise the largest absolute error (atan: |error| < 6e-7 on
[0, 1] in exact arithmetic, acos: < 1.6e-7), after the usual reductions."""

import math

from firmware.glsl.errors import GlslError
from firmware.glsl.ir import const_value, is_const

__all__ = ["BuiltinLowering", "ATAN_POLY", "ACOS_POLY"]

#: atan(r) = r * P(r^2) on 0 <= r <= 1
ATAN_POLY = (0.9999994211770844, -0.333270443195825, 0.19887669168400188,
             -0.13513620439140736, 0.08438137084236304, -0.03746682905531888,
             0.008014742959291938)
#: acos(x) = sqrt(1 - x) * P(x) on 0 <= x <= 1
ACOS_POLY = (1.570796173873818, -0.2145853490928321, 0.08875656782168267,
             -0.04880634825604044, 0.026907166880464736, -0.011152543806346988,
             0.002298049895144205)
_TURN = 1.0 / (2.0 * math.pi)
#: built-ins whose scalar arguments stand for vectors of the result's size
_BROADCAST = frozenset({"atan", "pow", "mod", "min", "max", "clamp", "mix", "step",
                        "smoothstep"})


class BuiltinLowering:
    """Mixed into ExpressionLowering (``op``, ``const``, ``scalar``, ``sub``, ...)."""

    def builtin(self, name, args, types, result, pos):
        fn = getattr(self, "_b_" + name, None)
        if fn is None:
            raise GlslError(f"{name}() is not implemented", pos)
        if name in _BROADCAST:
            args = [self.broadcast(a, result.size) for a in args]
        return fn(*args)

    # --- helpers -----------------------------------------------------------------------------

    def each(self, op, v):
        """A one-component operation on every component."""
        return tuple(self.op(op, (c,))[0] for c in v)

    def k(self, value, v):
        return self.scalar(value, len(v))

    def poly(self, coeffs, x):
        """Horner: c0 + c1 x + c2 x^2 + ..."""
        acc = self.k(coeffs[-1], x)
        for c in reversed(coeffs[:-1]):
            acc = self.op("mad", acc, x, self.k(c, x))
        return acc

    def sqrt(self, x):
        return self.each("rcp", self.each("rsq", x))

    def floor(self, x):
        return self.sub(x, self.op("frc", x))

    def length(self, x):
        if len(x) == 1:
            return self.op("abs", x)
        return self.sqrt(self.op("dot", x, x))

    # --- angles and trigonometry -------------------------------------------------------------

    def _b_radians(self, x):
        return self.op("mul", x, self.k(math.pi / 180.0, x))

    def _b_degrees(self, x):
        return self.op("mul", x, self.k(180.0 / math.pi, x))

    def _b_sin(self, x):
        return self.each("sin", self.op("mul", x, self.k(_TURN, x)))

    def _b_cos(self, x):
        return self.each("cos", self.op("mul", x, self.k(_TURN, x)))

    def _b_tan(self, x):
        t = self.op("mul", x, self.k(_TURN, x))
        return self.op("mul", self.each("sin", t), self.each("rcp", self.each("cos", t)))

    def _acos_positive(self, a):
        """acos(a) for 0 <= a <= 1."""
        one_minus = self.sub(self.k(1.0, a), a)
        root = self.op("mul", one_minus, self.each("rsq", one_minus))
        return self.op("mul", root, self.poly(ACOS_POLY, a))

    def _b_acos(self, x):
        p = self._acos_positive(self.op("abs", x))
        return self.op("cmp", x, p, self.sub(self.k(math.pi, x), p))

    def _b_asin(self, x):
        p = self.sub(self.k(math.pi / 2, x), self._acos_positive(self.op("abs", x)))
        return self.op("cmp", x, p, self.op("neg", p))

    def _atan_ratio(self, num, den):
        """atan(num / den) for num, den >= 0, with the ratio reduced to [0, 1]."""
        lo, hi = self.op("min", num, den), self.op("max", num, den)
        r = self.op("mul", lo, self.each("rcp", hi))
        p = self.op("mul", r, self.poly(ATAN_POLY, self.op("mul", r, r)))
        # num > den: atan = pi/2 - atan(den / num)
        return self.op("cmp", self.sub(den, num), p, self.sub(self.k(math.pi / 2, p), p))

    def _b_atan(self, y, x=None):
        if x is None:
            p = self._atan_ratio(self.op("abs", y), self.k(1.0, y))
            return self.op("cmp", y, p, self.op("neg", p))
        p = self._atan_ratio(self.op("abs", y), self.op("abs", x))
        p = self.op("cmp", x, p, self.sub(self.k(math.pi, p), p))
        return self.op("cmp", y, p, self.op("neg", p))

    # --- exponential -------------------------------------------------------------------------

    def _b_pow(self, x, y):
        return self.each("ex2", self.op("mul", y, self.each("lg2", x)))

    def _b_exp(self, x):
        return self.each("ex2", self.op("mul", x, self.k(1.0 / math.log(2.0), x)))

    def _b_log(self, x):
        return self.op("mul", self.each("lg2", x), self.k(math.log(2.0), x))

    def _b_exp2(self, x):
        return self.each("ex2", x)

    def _b_log2(self, x):
        return self.each("lg2", x)

    def _b_sqrt(self, x):
        return self.sqrt(x)

    def _b_inversesqrt(self, x):
        return self.each("rsq", x)

    # --- common ------------------------------------------------------------------------------

    def _b_abs(self, x):
        return self.op("abs", x)

    def _b_sign(self, x):
        unit = self.op("cmp", x, self.k(1.0, x), self.k(-1.0, x))
        return self.op("cmp", self.op("neg", self.op("abs", x)), self.k(0.0, x), unit)

    def _b_floor(self, x):
        return self.floor(x)

    def _b_ceil(self, x):
        return self.op("add", x, self.op("frc", self.op("neg", x)))

    def _b_fract(self, x):
        return self.op("frc", x)

    def _b_mod(self, x, y):
        q = self.op("mul", x, self.reciprocal(y))
        return self.op("mad", self.op("neg", y), self.floor(q), x)

    def _b_min(self, x, y):
        return self.op("min", x, y)

    def _b_max(self, x, y):
        return self.op("max", x, y)

    def _b_clamp(self, x, lo, hi):
        if self._all(lo, 0.0) and self._all(hi, 1.0):
            return self.op("sat", x)
        return self.op("min", self.op("max", x, lo), hi)

    def _all(self, v, value):
        return all(is_const(c) and const_value(c) == value for c in v)

    def _b_mix(self, x, y, a):
        # x * (1 - a) + y * a: exact at a = 0 and a = 1
        return self.op("mad", y, a, self.op("mul", x, self.sub(self.k(1.0, a), a)))

    def _b_step(self, edge, x):
        return self.op("sge", x, edge)

    def _b_smoothstep(self, e0, e1, x):
        t = self.op("sat", self.op("mul", self.sub(x, e0), self.reciprocal(self.sub(e1, e0))))
        return self.op("mul", self.op("mul", t, t),
                       self.op("mad", t, self.k(-2.0, t), self.k(3.0, t)))

    # --- geometric ---------------------------------------------------------------------------

    def _b_length(self, x):
        return self.length(x)

    def _b_distance(self, a, b):
        return self.length(self.sub(a, b))

    def _b_dot(self, a, b):
        return self.op("mul", a, b) if len(a) == 1 else self.op("dot", a, b)

    def _b_cross(self, a, b):
        def sw(v, order):
            return tuple(v[i] for i in order)
        yzx, zxy = (1, 2, 0), (2, 0, 1)
        return self.op("mad", sw(a, yzx), sw(b, zxy),
                       self.op("neg", self.op("mul", sw(a, zxy), sw(b, yzx))))

    def _b_normalize(self, x):
        d = self.op("mul", x, x) if len(x) == 1 else self.op("dot", x, x)
        return self.op("mul", x, self.broadcast(self.each("rsq", d), len(x)))

    def _b_faceforward(self, n, i, nref):
        d = self._b_dot(nref, i)
        return self.op("cmp", self.broadcast(d, len(n)), self.op("neg", n), n)

    def _b_reflect(self, i, n):
        d = self._b_dot(n, i)
        d2 = self.op("mul", d, self.scalar(-2.0))
        return self.op("mad", self.broadcast(d2, len(n)), n, i)

    def _b_refract(self, i, n, eta):
        d = self._b_dot(n, i)
        one = self.scalar(1.0)
        k = self.sub(one, self.op("mul", self.op("mul", eta, eta),
                                  self.sub(one, self.op("mul", d, d))))
        scale = self.op("add", self.op("mul", eta, d), self.sqrt(k))
        r = self.sub(self.op("mul", self.broadcast(eta, len(i)), i),
                     self.op("mul", self.broadcast(scale, len(n)), n))
        inside = self.op("slt", k, self.scalar(0.0))
        return self.op("select", inside * len(r), self.k(0.0, r), r)

    # --- matrices ----------------------------------------------------------------------------

    def _b_matrixCompMult(self, a, b):
        return tuple(self.op("mul", x, y) for x, y in zip(a, b))

    def _b_outerProduct(self, c, r):
        return tuple(self.op("mul", c, (rj,) * len(c)) for rj in r)

    def _b_transpose(self, m):
        return tuple(tuple(col[j] for col in m) for j in range(len(m[0])))

    # --- vector relational -------------------------------------------------------------------

    def _b_lessThan(self, a, b):
        return self.op("slt", a, b)

    def _b_lessThanEqual(self, a, b):
        return self.op("sge", b, a)

    def _b_greaterThan(self, a, b):
        return self.op("slt", b, a)

    def _b_greaterThanEqual(self, a, b):
        return self.op("sge", a, b)

    def _b_equal(self, a, b):
        return self.op("seq", a, b)

    def _b_notEqual(self, a, b):
        return self.op("sne", a, b)

    def _b_any(self, b):
        return self.op("sat", self.op("dot", b, self.k(1.0, b)))

    def _b_all(self, b):
        return self.op("seq", self.op("dot", b, self.k(1.0, b)), self.scalar(float(len(b))))

    def _b_not(self, b):
        return self.not_(b)

    # --- texture lookup and derivatives ------------------------------------------------------

    def _b_texture2D(self, sampler, coord, bias=None):
        return self.texture(sampler, coord, "bias" if bias is not None else "ld")

    def _b_texture2DProj(self, sampler, coord, bias=None):
        return self.texture(sampler, (coord[0], coord[1], coord[-1]), "proj")

    def texture(self, sampler, coord, kind):
        """An R500 texel: .rgb sampled (coordinates s, t, or s, t, q to project), alpha 1."""
        rgb = self.b.op("tex", coord, attr=(sampler.tex_id, kind), width=3)
        return rgb + self.const([1.0])

    def _b_dFdx(self, x):
        return self.derivative("ddx", x)

    def _b_dFdy(self, x):
        return self.derivative("ddy", x)

    def _b_fwidth(self, x):
        return self.op("add", self.op("abs", self.derivative("ddx", x)),
                       self.op("abs", self.derivative("ddy", x)))

    def derivative(self, op, x):
        return self.op(op, x)

    def _noise(self, x, n):
        return self.scalar(0.0, n)

    def _b_noise1(self, x):
        return self._noise(x, 1)

    def _b_noise2(self, x):
        return self._noise(x, 2)

    def _b_noise3(self, x):
        return self._noise(x, 3)

    def _b_noise4(self, x):
        return self._noise(x, 4)
