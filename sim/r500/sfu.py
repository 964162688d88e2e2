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

(A = m * 2^e, 1 <= m < 2.) The tables live in ``hdl/r500/sfu_tables.py`` (one copy, shared
with the RTL; re-exported here), fitted at import, deterministically, in ``decimal`` arithmetic
(40 digits; coefficients rounded to nearest): each segment's quadratic interpolates g at the
three Chebyshev nodes of the segment, then C1 and C0 absorb the rounding of the coefficients
after them and the mean of the truncations.

The function cores (``rcp_significand`` and friends) take and return plain integers and work
element-wise on NumPy int64 arrays as well, which makes exhaustive checks fast.
"""

import functools

# the tables and widths live with the RTL (hdl/ never imports sim/); re-exported here
from hdl.r500.sfu_tables import (C1_BITS, C2_BITS, EX2_FRACTION_BITS, EX2_TABLE,  # noqa: F401
                                 INDEX_BITS, LN2_TABLE, RCP_TABLE, RESULT_BITS, RSQ_TABLE,
                                 SIN_TABLE, SQUARE_BITS, SQUARE_KEPT, TABLES, TURN_BITS,
                                 QuadraticTable, fit_table)

from .fp32 import (CANONICAL_NAN, NEG_INF, ONE, POS_INF, ZERO, FRACTION_BITS, HIDDEN, abs_,
                   flush, infinity, is_inf, is_nan, is_zero, round_to_fp32, sign,
                   signed_zero, unpack)

_ONE_Y = 1 << RESULT_BITS
_TWO_Y = 2 << RESULT_BITS


def _select(condition, then, otherwise):
    """condition ? then : otherwise, for ints or element-wise on arrays (a multiplexer)."""
    return otherwise + condition * (then - otherwise)


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
