"""The R500 core's special functions (r500-us.md §3.3), as the integer algorithms the RTL runs.

EX2, LN2, RCP, RSQ, SIN and COS share one datapath, a piecewise quadratic interpolator: a
fixed-point argument u in [0, 1) of ``input_bits`` bits is split into a segment index (its top
``INDEX_BITS`` bits) and the offset h below it; the segment's three coefficients give

    y = C0 + ((C1 * h) >> s1) + ((C2 * (t * t >> d)) >> s2),   t = h >> (offset bits - SQUARE_BITS)

with every shift a truncation, as the hardware drops the bits. y has ``RESULT_BITS`` fraction
bits. Each function is a range reduction onto u, one table lookup and the interpolation, a
select for the exact cases and one rounding to binary32 (``fp32.round_to_fp32``):

============  =============================  ===================  =========================
function      u (bits)                       g(u) in the table    result
============  =============================  ===================  =========================
RCP           A's fraction (23)              2 / (1 + u)          g * 2^(-e-1)
RSQ           e's parity, A's fraction (24)  2 / sqrt(1+2u) ...   g * 2^(-(e-parity)/2 - 1)
EX2           fraction of round(A, 25 bits)  2^u                  g * 2^(whole part)
LN2           A's fraction (23)              log2(1 + u)          e + g
SIN, COS      A mod 1 in quadrants (2+24)    sin(pi/2 * u)        +-g by quadrant
============  =============================  ===================  =========================

(A = m * 2^e, 1 <= m < 2.) The tables are fitted at import, deterministically, in ``decimal``
arithmetic (40 digits; coefficients rounded to nearest): each segment's quadratic interpolates
g at the three Chebyshev nodes of the segment, then C1 and C0 absorb the rounding of the
coefficients after them and the mean of the truncations. ``TABLES`` holds them for the RTL.

The function cores (``rcp_significand`` and friends) take and return plain integers and work
element-wise on NumPy int64 arrays as well, which makes exhaustive checks fast.
"""

import decimal
import functools
from dataclasses import dataclass, field
from decimal import Decimal

import numpy as np

from .fp32 import (CANONICAL_NAN, NEG_INF, ONE, POS_INF, ZERO, FRACTION_BITS, HIDDEN, abs_,
                   flush, infinity, is_inf, is_nan, is_zero, round_to_fp32, sign,
                   signed_zero, unpack)

#: segments of every table: 2^8 = 256 entries
INDEX_BITS = 8
#: bits of the offset that are squared (t above), and the bits of the square kept for the
#: product with C2 (the low bits dropped): a 12 x 12 squarer, an 18-bit square
SQUARE_BITS = 12
SQUARE_KEPT = 18
_SQUARE_DROP = 2 * SQUARE_BITS - SQUARE_KEPT
#: the widths of C1 and of C2, two's complement: each multiplies in one 18 x 18 multiplier
C1_BITS = 18
C2_BITS = 14
#: fraction bits of the interpolated y
RESULT_BITS = 28
#: fraction bits of EX2's argument and of SIN/COS's turn
EX2_FRACTION_BITS = 25
TURN_BITS = 26

_DIGITS = decimal.Context(prec=40, rounding=decimal.ROUND_HALF_EVEN)
#: where the series below stop: terms this small no longer change a 40-digit sum of ~1
_NEGLIGIBLE = Decimal(10) ** -45


def _select(condition, then, otherwise):
    """condition ? then : otherwise, for ints or element-wise on arrays (a multiplexer)."""
    return otherwise + condition * (then - otherwise)


# --- the interpolator --------------------------------------------------------------------------

@dataclass(frozen=True)
class QuadraticTable:
    """The coefficients of one function, and the interpolation that reads them."""
    name: str
    input_bits: int
    c1_shift: int
    c2_shift: int
    c0: tuple
    c1: tuple
    c2: tuple
    arrays: tuple = field(repr=False, compare=False)

    @property
    def offset_bits(self):
        return self.input_bits - INDEX_BITS

    def widths(self):
        """Bits of C0 (unsigned), C1 and C2 (two's complement) as the table needs them."""
        return (max(self.c0).bit_length(),
                1 + max(max(c).bit_length() for c in (self.c1, [-v - 1 for v in self.c1])),
                1 + max(max(c).bit_length() for c in (self.c2, [-v - 1 for v in self.c2])))

    def __call__(self, u):
        """y (RESULT_BITS fraction bits) for u (``input_bits`` fraction bits)."""
        index = u >> self.offset_bits
        h = u & ((1 << self.offset_bits) - 1)
        t = h >> (self.offset_bits - SQUARE_BITS)
        columns = self.arrays if isinstance(u, np.ndarray) else (self.c0, self.c1, self.c2)
        c0, c1, c2 = (column[index] for column in columns)
        square = (t * t) >> _SQUARE_DROP
        return c0 + ((c1 * h) >> self.c1_shift) + ((c2 * square) >> self.c2_shift)


def _chebyshev_quadratic(g, start, width):
    """(a0, a1, a2) of the quadratic in t in [0, 1) through g(start + width * t) at the three
    Chebyshev nodes of [0, 1]."""
    half_root3 = Decimal(3).sqrt(_DIGITS) / 2
    nodes = [(1 - half_root3) / 2, Decimal("0.5"), (1 + half_root3) / 2]
    y0, y1, y2 = (g(start + width * t) for t in nodes)
    t0, t1, t2 = nodes
    d01, d12 = (y1 - y0) / (t1 - t0), (y2 - y1) / (t2 - t1)
    a2 = (d12 - d01) / (t2 - t0)
    a1 = d01 - a2 * (t0 + t1)
    return y0 - a1 * t0 - a2 * t0 * t0, a1, a2


def _fixed_scale(largest, bits):
    """The most fraction bits a coefficient of magnitude up to ``largest`` can have in ``bits``
    bits of two's complement."""
    scale = 0
    while abs(largest) * 2 ** (scale + 1) < 2 ** (bits - 1) - 1:
        scale += 1
    while abs(largest) * 2 ** scale >= 2 ** (bits - 1) - 1:
        scale -= 1
    return scale


def _round(value):
    return int(value.to_integral_value(rounding=decimal.ROUND_HALF_EVEN, context=_DIGITS))


def fit_table(name, g, input_bits):
    """The QuadraticTable of g (a function of a Decimal u in [0, 1]) for ``input_bits``-bit u."""
    with decimal.localcontext(_DIGITS):
        segments = 1 << INDEX_BITS
        width = Decimal(1) / segments
        fits = [_chebyshev_quadratic(g, i * width, width) for i in range(segments)]
        offset_bits = input_bits - INDEX_BITS
        c1_scale = _fixed_scale(max(abs(a1) for _, a1, _ in fits), C1_BITS)
        c2_scale = _fixed_scale(max(abs(a2) for _, _, a2 in fits), C2_BITS)
        one = Decimal(2) ** RESULT_BITS
        dropped_bits = offset_bits - SQUARE_BITS
        mean_dropped = Decimal(2 ** dropped_bits - 1) / 2 ** (offset_bits + 1)
        c0, c1, c2 = [], [], []
        for a0, a1, a2 in fits:
            k2 = _round(a2 * 2 ** c2_scale)
            rounded_a2 = Decimal(k2) / 2 ** c2_scale
            # t^2 is nearest (in the max-norm) to t - 1/8: the rounding error of a2 moves there;
            # truncating the offset to SQUARE_BITS before squaring loses 2 t a2 times the mean
            # of the dropped bits
            a1 += (a2 - rounded_a2) + 2 * rounded_a2 * mean_dropped
            a0 -= (a2 - rounded_a2) / 8
            k1 = _round(a1 * 2 ** c1_scale)
            a0 += (a1 - Decimal(k1) / 2 ** c1_scale) / 2
            # each of the two truncated products loses half a unit of y on average
            c0.append(_round(a0 * one + 1))
            c1.append(k1)
            c2.append(k2)
    c1_shift = c1_scale - RESULT_BITS + offset_bits
    c2_shift = c2_scale - RESULT_BITS + 2 * SQUARE_BITS - _SQUARE_DROP
    arrays = tuple(np.array(column, dtype=np.int64) for column in (c0, c1, c2))
    return QuadraticTable(name, input_bits, c1_shift, c2_shift, tuple(c0), tuple(c1),
                          tuple(c2), arrays)


# --- the functions the tables hold -------------------------------------------------------------

def _pi():
    """pi by Machin's formula, 16 atan(1/5) - 4 atan(1/239), in the current context."""
    def atan_inverse(n):
        total, power, k = Decimal(0), Decimal(1) / n, 0
        while power > _NEGLIGIBLE:
            total += (-1) ** k * power / (2 * k + 1)
            power /= n * n
            k += 1
        return total
    return 16 * atan_inverse(5) - 4 * atan_inverse(239)


def _sin(x):
    """sin x by its Taylor series (|x| <= 2), in the current context."""
    total, term, k = Decimal(0), x, 1
    while abs(term) > _NEGLIGIBLE:
        total += term
        term = -term * x * x / ((k + 1) * (k + 2))
        k += 2
    return total


def _half_pi():
    with decimal.localcontext(_DIGITS):
        return _pi() / 2


_HALF_PI = _half_pi()

RCP_TABLE = fit_table("RCP", lambda u: 2 / (1 + u), FRACTION_BITS)
#: the top bit of u is the exponent's parity: 1 + 2u in [1, 2) for even, 2 + 4(u - 1/2) in
#: [2, 4) for odd exponents
RSQ_TABLE = fit_table("RSQ", lambda u: 2 / (1 + 2 * u if u < Decimal("0.5") else
                                            4 * u).sqrt(), FRACTION_BITS + 1)
EX2_TABLE = fit_table("EX2", lambda u: (u * Decimal(2).ln()).exp(), EX2_FRACTION_BITS)
LN2_TABLE = fit_table("LN2", lambda u: (1 + u).ln() / Decimal(2).ln(), FRACTION_BITS)
SIN_TABLE = fit_table("SIN", lambda u: _sin(_HALF_PI * u), TURN_BITS - 2)
TABLES = (RCP_TABLE, RSQ_TABLE, EX2_TABLE, LN2_TABLE, SIN_TABLE)

_ONE_Y = 1 << RESULT_BITS
_TWO_Y = 2 << RESULT_BITS


# --- the function cores: integers in, fixed-point significands out -----------------------------

def rcp_significand(fraction):
    """2 / (1 + fraction / 2^23) with RESULT_BITS fraction bits, in (1, 2]; exact at 0."""
    return _select(fraction == 0, _TWO_Y, RCP_TABLE(fraction))


def rsq_significand(parity, fraction):
    """2 / sqrt((1 + parity) * (1 + fraction / 2^23)) with RESULT_BITS fraction bits, in (1, 2];
    exact at parity 0, fraction 0."""
    u = (parity << FRACTION_BITS) | fraction
    return _select(u == 0, _TWO_Y, RSQ_TABLE(u))


def ex2_significand(fraction):
    """2^(fraction / 2^EX2_FRACTION_BITS) with RESULT_BITS fraction bits; exact at 0."""
    return _select(fraction == 0, _ONE_Y, EX2_TABLE(fraction))


def ln2_significand(fraction):
    """log2(1 + fraction / 2^23) with RESULT_BITS fraction bits; exact at 0."""
    return _select(fraction == 0, 0, LN2_TABLE(fraction))


def sine_of_turn(turn):
    """(negative, |sin(2 pi turn / 2^TURN_BITS)|) with RESULT_BITS fraction bits: the quadrant
    (the top two bits) folds the turn onto sin(pi/2 * v), v in [0, 1], read from the table;
    exactly 0 or 1 at the quarter turns (v = 0, v = 1)."""
    quarter_bits = TURN_BITS - 2
    quadrant = turn >> quarter_bits
    offset = turn & ((1 << quarter_bits) - 1)
    # odd quadrants run backwards: sin(pi/2 (1 + w)) = sin(pi/2 (1 - w))
    v = _select(quadrant & 1, (1 << quarter_bits) - offset, offset)
    interpolated = SIN_TABLE(v & ((1 << quarter_bits) - 1))
    magnitude = _select(v == 0, 0, _select(v >> quarter_bits, _ONE_Y, interpolated))
    return (quadrant >> 1) & (magnitude != 0), magnitude


# --- the operations on binary32 patterns -------------------------------------------------------

def _special_values(at_zero, at_infinity):
    """Wrap the function of a finite, nonzero (flushed) argument with what the others give: the
    canonical NaN for a NaN, ``at_zero(sign)`` for a zero or subnormal, ``at_infinity(sign)``
    for an infinity."""
    def wrap(finite):
        @functools.wraps(finite)
        def function(x):
            x = flush(x)
            if is_nan(x):
                return CANONICAL_NAN
            if is_zero(x):
                return at_zero(sign(x))
            if is_inf(x):
                return at_infinity(sign(x))
            return finite(x)
        return function
    return wrap


def _constant(pattern):
    return lambda s: pattern


def _signed_fixed(x, fraction_bits):
    """x * 2^fraction_bits of a finite, normal x, rounded to the nearest integer (ties up): a
    two's complement shift that keeps one bit more, then halves with an increment. Rounding
    rather than truncating keeps the error symmetric: SIN of a tiny negative A is 0, not
    -2pi * 2^-TURN_BITS."""
    s, m, e = unpack(x)
    shift = e + fraction_bits
    signed = -m if s else m
    return signed << shift if shift >= 0 else ((signed >> (-shift - 1)) + 1) >> 1


def _unbiased(x):
    """(fraction, e) of a normal x = (1 + fraction / 2^23) * 2^e."""
    _, m, e = unpack(x)
    return m - HIDDEN, e + FRACTION_BITS


@_special_values(at_zero=infinity, at_infinity=signed_zero)
def rcp(x):
    """1/A: +-0 -> +-inf, +-inf -> +-0."""
    fraction, e = _unbiased(x)
    return round_to_fp32(sign(x), int(rcp_significand(fraction)), -e - 1 - RESULT_BITS)


@_special_values(at_zero=_constant(POS_INF), at_infinity=_constant(ZERO))
def rsq(x):
    """1/sqrt(|A|): +-0 -> +inf, +-inf -> +0."""
    fraction, e = _unbiased(x)
    parity = e & 1
    y = int(rsq_significand(parity, fraction))
    return round_to_fp32(0, y, -((e - parity) >> 1) - 1 - RESULT_BITS)


#: EX2's argument range: 2^A overflows from 128 on, and is below 2^-126 under -126
EX2_MAX, EX2_MIN = 128, -126


@_special_values(at_zero=_constant(ONE), at_infinity=lambda s: ZERO if s else POS_INF)
def ex2(x):
    """2^A: A >= 128 -> +inf, A < -126 -> +0; exact at integers."""
    if abs_(x) >= 0x4380_0000:                              # |A| >= 256
        return ZERO if sign(x) else POS_INF
    fixed = _signed_fixed(x, EX2_FRACTION_BITS)
    whole, fraction = fixed >> EX2_FRACTION_BITS, fixed & ((1 << EX2_FRACTION_BITS) - 1)
    if whole >= EX2_MAX:
        return POS_INF
    if whole < EX2_MIN:
        return ZERO
    return round_to_fp32(0, int(ex2_significand(fraction)), whole - RESULT_BITS)


@_special_values(at_zero=_constant(NEG_INF), at_infinity=_constant(POS_INF))
def ln2(x):
    """log2 |A|: +-0 -> -inf, +-inf -> +inf; exact at powers of two."""
    fraction, e = _unbiased(x)
    total = (e << RESULT_BITS) + int(ln2_significand(fraction))
    return round_to_fp32(int(total < 0), abs(total), -RESULT_BITS)


def turn_fraction(x):
    """A - floor(A) of a finite x in TURN_BITS fraction bits, rounded (so modulo 1)."""
    if is_zero(x):
        return 0
    return _signed_fixed(x, TURN_BITS) & ((1 << TURN_BITS) - 1)


def _sine(x, quarter_turns):
    """sin(2 pi (A + quarter_turns / 4)) of a finite, nonzero x."""
    turn = (turn_fraction(x) + (quarter_turns << (TURN_BITS - 2))) & ((1 << TURN_BITS) - 1)
    negative, magnitude = sine_of_turn(turn)
    return round_to_fp32(int(negative), int(magnitude), -RESULT_BITS)


@_special_values(at_zero=_constant(ZERO), at_infinity=_constant(CANONICAL_NAN))
def sin(x):
    """sin(2 pi A): +-inf -> NaN; +0, 1, +0, -1 at the quarter turns."""
    return _sine(x, 0)


@_special_values(at_zero=_constant(ONE), at_infinity=_constant(CANONICAL_NAN))
def cos(x):
    """cos(2 pi A) = sin(2 pi (A + 1/4)): +-inf -> NaN; 1, +0, -1, +0 at the quarter turns."""
    return _sine(x, 1)
