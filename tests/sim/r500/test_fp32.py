"""The binary32 arithmetic of sim/r500/fp32.py against r500-us.md §3.1-3.4.

Directed tests of every rule the spec states in words, then hypothesis properties against a
plain reference: the host's IEEE float32 arithmetic (NumPy) with the spec's rules wrapped around
it (inputs and results flushed, the zero rules, one canonical NaN). Operand strategies lean on
the edges: zeros, subnormals, infinities, NaNs of several payloads, the largest finite values,
constructed rounding ties, products that round to 2^-126, sums that cancel.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sim.r500 import fp32 as fp

SETTINGS = settings(max_examples=1500, derandomize=True, deadline=None)

MAX_FINITE = 0x7F7F_FFFF
MIN_SUBNORMAL = 0x0000_0001
MAX_SUBNORMAL = 0x007F_FFFF
NANS = (0x7FC0_0000, 0x7F80_0001, 0x7FFF_FFFF, 0xFFC0_0000, 0xFFFF_FFFF, 0xFF80_1234)
EDGES = (fp.ZERO, fp.NEG_ZERO, fp.ONE, fp.HALF, fp.POS_INF, fp.NEG_INF, MAX_FINITE,
         MAX_FINITE - 1, fp.MIN_NORMAL, fp.MIN_NORMAL + 1, MIN_SUBNORMAL, MAX_SUBNORMAL) + NANS


# --- operands ----------------------------------------------------------------------------------

def with_sign(s, magnitude):
    return (s << 31) | magnitude


signs = st.integers(0, 1)
edge = st.builds(with_sign, signs, st.sampled_from([x & fp.MAGNITUDE for x in EDGES])) | \
    st.sampled_from(NANS)
#: exponents at the ends of the range and around 1
exponent = st.sampled_from([0, 1, 2, 3, 24, 100, 125, 126, 127, 128, 129, 150, 252, 253, 254, 255])
fraction = st.sampled_from([0, 1, 2, fp.FRACTION, fp.FRACTION - 1, 1 << 22]) | \
    st.integers(0, fp.FRACTION)
shaped = st.builds(lambda s, e, f: with_sign(s, e << 23 | f), signs, exponent, fraction)
pattern = st.one_of(edge, shaped, st.integers(0, 0xFFFF_FFFF))
normal = st.builds(lambda s, e, f: with_sign(s, e << 23 | f), signs, st.integers(1, 254),
                   st.integers(0, fp.FRACTION))


@st.composite
def sum_operands(draw):
    """Two operands, often built to cancel, to tie or to straddle a binade."""
    a = draw(pattern)
    kind = draw(st.sampled_from(["any", "cancel", "tie", "near"]))
    if kind == "any" or fp.is_nan(a) or fp.is_inf(a) or fp.is_zero(a):
        return a, draw(pattern)
    if kind == "cancel":                        # b = -(a +- a few ulps)
        b = fp.neg(a) + draw(st.integers(-3, 3))
        return a, b & 0xFFFF_FFFF
    exp_a = (a >> 23) & 0xFF
    if kind == "tie":                           # b is an odd multiple of half an ulp of a
        odd = draw(st.sampled_from([1, 3, 5, 7, 255]))
        b = bits(np.float32(odd * 2.0 ** (exp_a - fp.BIAS - 24)))
        return a, with_sign(draw(signs), fp.flush(b))
    b_exp = min(254, max(1, exp_a + draw(st.integers(-30, 30))))
    return a, with_sign(draw(signs), b_exp << 23 | draw(fraction))


@st.composite
def product_operands(draw):
    """Two operands, often a constructed tie (a 13-bit and a 12-bit odd significand multiply to
    a 25-bit odd one) or a product that lands next to 2^-126."""
    kind = draw(st.sampled_from(["any", "tie", "tiny", "huge"]))
    if kind == "any":
        return draw(pattern), draw(pattern)
    if kind == "tie":
        ma = draw(st.integers(1 << 11, (1 << 12) - 1)) * 2 + 1      # 13 bits, odd
        mb = draw(st.integers(1 << 10, (1 << 11) - 1)) * 2 + 1      # 12 bits, odd
        ea, eb = draw(st.integers(1, 254)), draw(st.integers(1, 254))
        return (with_sign(draw(signs), ea << 23 | (ma << 11) & fp.FRACTION),
                with_sign(draw(signs), eb << 23 | (mb << 12) & fp.FRACTION))
    a = draw(normal)
    target = 2.0 ** -126 if kind == "tiny" else fp.to_float(MAX_FINITE)
    b = fp.from_float(target / abs(fp.to_float(a)))
    if fp.is_zero(b) or fp.is_inf(b):
        return a, draw(pattern)
    return a, (b + draw(st.integers(-2, 2))) & fp.MAGNITUDE | draw(signs) << 31


# --- the reference -----------------------------------------------------------------------------

def f32(x):
    return np.uint32(x).view(np.float32)


def bits(v):
    return int(np.float32(v).view(np.uint32))


def settle(v):
    """A host float32 result under the spec: flushed, and any NaN canonical."""
    return fp.CANONICAL_NAN if np.isnan(v) else fp.flush(bits(v))


def ref_add(a, b):
    a, b = fp.flush(a), fp.flush(b)
    if fp.is_zero(a) and fp.is_zero(b):
        return a
    with np.errstate(all="ignore"):
        return settle(f32(a) + f32(b))


def ref_sub(a, b):
    return ref_add(a, b ^ fp.SIGN)


def ref_mul(a, b):
    a, b = fp.flush(a), fp.flush(b)
    if fp.is_zero(a) or fp.is_zero(b):
        return (a ^ b) & fp.SIGN
    with np.errstate(all="ignore"):
        return settle(f32(a) * f32(b))


def ref_dot(a, b):
    total = ref_mul(a[0], b[0])
    for x, y in zip(a[1:], b[1:]):
        total = ref_add(total, ref_mul(x, y))
    return total


def value(x):
    """The value the core reads, as a host float (NaN stays NaN)."""
    return fp.to_float(fp.flush(x))


def ref_floor(x):
    x = fp.flush(x)
    return fp.CANONICAL_NAN if fp.is_nan(x) else bits(np.floor(f32(x)))


# --- directed: the rules of §3.1-3.4 in words --------------------------------------------------

def test_constants():
    assert [fp.to_float(x) for x in (fp.ZERO, fp.ONE, fp.HALF, fp.TWO)] == [0.0, 1.0, 0.5, 2.0]
    assert math.copysign(1, fp.to_float(fp.NEG_ZERO)) == -1
    assert fp.to_float(fp.POS_INF) == math.inf and fp.to_float(fp.NEG_INF) == -math.inf
    assert fp.is_nan(fp.CANONICAL_NAN) and fp.CANONICAL_NAN == 0x7FC0_0000


def test_result_that_rounds_to_min_normal_is_kept():
    assert fp.mul(0x1FFF_FFFF, 0x2000_0000) == 0x0080_0000
    assert fp.mul(0x9FFF_FFFF, 0x2000_0000) == 0x8080_0000
    assert fp.mul(0x1FFF_FFFE, 0x2000_0000) == fp.ZERO          # 2^-126 (1 - 2^-23): flushed


def test_results_below_min_normal_flush_to_signed_zero():
    assert fp.sub(0x0080_0001, 0x0080_0000) == fp.ZERO
    assert fp.sub(0x8080_0001, 0x8080_0000) == fp.NEG_ZERO
    assert fp.mul(fp.HALF, 0x8080_0000) == fp.NEG_ZERO


def test_subnormal_inputs_read_as_signed_zeros():
    assert fp.add(MIN_SUBNORMAL, fp.ONE) == fp.ONE
    assert fp.mul(0x8000_0001, fp.ONE) == fp.NEG_ZERO
    assert fp.add(0x8000_0001, fp.ZERO) == fp.NEG_ZERO          # -0 + +0: the left operand
    assert fp.eq(MAX_SUBNORMAL, fp.ZERO) and not fp.lt(fp.ZERO, MAX_SUBNORMAL)
    assert fp.max_(MAX_SUBNORMAL, 0xBF80_0000) == fp.ZERO


@pytest.mark.parametrize("other", [fp.POS_INF, fp.NEG_INF, fp.CANONICAL_NAN, 0xFFFF_FFFF,
                                   fp.ONE, MAX_FINITE])
def test_zero_times_anything_is_zero_with_xor_sign(other):
    for zero in (fp.ZERO, fp.NEG_ZERO, MIN_SUBNORMAL, 0x8000_0001):
        expected = (zero ^ other) & fp.SIGN
        assert fp.mul(zero, other) == expected
        assert fp.mul(other, zero) == expected
        assert fp.mad(zero, other, fp.NEG_ZERO) == expected        # + -0 keeps it


def test_sum_of_two_zeros_is_the_left_operand():
    assert fp.add(fp.NEG_ZERO, fp.NEG_ZERO) == fp.NEG_ZERO
    assert fp.add(fp.NEG_ZERO, fp.ZERO) == fp.NEG_ZERO
    assert fp.add(fp.ZERO, fp.NEG_ZERO) == fp.ZERO
    assert fp.sub(fp.ZERO, fp.ZERO) == fp.ZERO
    assert fp.sub(fp.NEG_ZERO, fp.NEG_ZERO) == fp.NEG_ZERO
    # Mesa's MOV x, -|c| as MAD(-|c|, 1, 0) keeps the -0
    assert fp.mad(fp.nab(fp.ZERO), fp.ONE, fp.ZERO) == fp.NEG_ZERO


def test_adding_a_zero_changes_nothing():
    for x in (fp.ONE, 0xC2F6_E979, MAX_FINITE, fp.NEG_INF):
        assert fp.add(x, fp.ZERO) == fp.add(x, fp.NEG_ZERO) == x
        assert fp.add(fp.ZERO, x) == fp.add(fp.NEG_ZERO, x) == x


def test_difference_of_equal_values_is_plus_zero():
    for x in (fp.ONE, fp.neg(fp.ONE), MAX_FINITE, fp.MIN_NORMAL, 0x8123_4567):
        assert fp.sub(x, x) == fp.ZERO
        assert fp.add(x, fp.neg(x)) == fp.ZERO


def test_infinities_and_nans():
    assert fp.add(fp.POS_INF, fp.NEG_INF) == fp.CANONICAL_NAN
    assert fp.sub(fp.POS_INF, fp.POS_INF) == fp.CANONICAL_NAN
    assert fp.add(fp.POS_INF, MAX_FINITE) == fp.POS_INF
    assert fp.add(MAX_FINITE, MAX_FINITE) == fp.POS_INF
    assert fp.mul(fp.NEG_INF, fp.ONE) == fp.NEG_INF
    assert fp.mul(MAX_FINITE, fp.neg(fp.TWO)) == fp.NEG_INF
    for nan in NANS:
        assert fp.add(nan, fp.ONE) == fp.add(fp.ONE, nan) == fp.CANONICAL_NAN
        assert fp.mul(nan, fp.ONE) == fp.mad(fp.ONE, fp.ONE, nan) == fp.CANONICAL_NAN


def test_sign_modifiers_act_on_bits():
    assert fp.neg(fp.ZERO) == fp.NEG_ZERO
    assert fp.neg(0x7FC0_1234) == 0xFFC0_1234                   # NEG of a NaN flips its sign
    assert fp.abs_(0xFFFF_FFFF) == 0x7FFF_FFFF
    assert fp.nab(fp.ONE) == 0xBF80_0000
    assert fp.neg(MIN_SUBNORMAL) == 0x8000_0001                 # no flush
    assert fp.flush(0x8000_0001) == fp.NEG_ZERO and fp.flush(fp.ONE) == fp.ONE


def test_comparisons():
    assert fp.eq(fp.ZERO, fp.NEG_ZERO) and not fp.lt(fp.NEG_ZERO, fp.ZERO)
    assert fp.ge(fp.NEG_ZERO, fp.ZERO)
    for nan in NANS:
        for relation in (fp.lt, fp.ge, fp.gt, fp.eq):
            assert not relation(nan, fp.ONE) and not relation(fp.ONE, nan)
        assert fp.ne(nan, nan) and fp.ne(nan, fp.ONE)
    assert fp.lt(fp.NEG_INF, 0xFF7F_FFFF) and fp.gt(fp.POS_INF, MAX_FINITE)


def test_selects_pass_nan_payloads_and_omod_canonicalises():
    nan = 0xFFC0_1234
    assert fp.min_(nan, fp.ONE) == fp.ONE                       # A < B false: B
    assert fp.min_(fp.ONE, nan) == nan                          # B, payload and sign kept
    assert fp.max_(fp.ONE, nan) == nan
    assert fp.cmp(nan, fp.ONE, fp.NEG_ZERO) == nan              # -0 >= 0
    assert fp.cmp(fp.ONE, nan, 0x8000_0001) == fp.ONE           # a subnormal -0 too
    assert fp.cmp(fp.ONE, fp.TWO, nan) == fp.TWO                # NaN >= 0 false
    assert fp.cnd(fp.ONE, fp.TWO, fp.HALF) == fp.TWO            # 0.5 > 0.5 false
    assert fp.cnd(fp.ONE, fp.TWO, 0x3F00_0001) == fp.ONE
    assert fp.omod(nan, 0) == fp.CANONICAL_NAN
    assert fp.omod(nan, fp.OMOD_NONE) == nan
    assert fp.omod(MAX_SUBNORMAL, 0) == fp.ZERO                 # code 0 flushes
    assert fp.omod(MAX_SUBNORMAL, fp.OMOD_NONE) == MAX_SUBNORMAL
    assert fp.omod(MAX_FINITE, 1) == fp.POS_INF
    assert fp.omod(fp.MIN_NORMAL, 4) == fp.ZERO


def test_omod_factors():
    factors = [fp.to_float(fp.omod(fp.ONE, code)) for code in range(7)]
    assert factors == [1, 2, 4, 8, 0.5, 0.25, 0.125]


def test_clamp():
    assert fp.clamp(fp.CANONICAL_NAN) == fp.clamp(0xFFFF_FFFF) == fp.ZERO
    assert fp.clamp(fp.NEG_ZERO) == fp.ZERO and fp.clamp(fp.NEG_INF) == fp.ZERO
    assert fp.clamp(MAX_SUBNORMAL) == fp.ZERO
    assert fp.clamp(fp.ONE) == fp.clamp(fp.POS_INF) == fp.clamp(0x3F80_0001) == fp.ONE
    assert fp.clamp(0x3F7F_FFFF) == 0x3F7F_FFFF


def test_floor_and_frc():
    assert fp.floor_(fp.NEG_ZERO) == fp.NEG_ZERO
    assert fp.floor_(fp.from_float(-0.5)) == fp.from_float(-1.0)
    assert fp.floor_(fp.from_float(2.5)) == fp.TWO
    assert fp.floor_(fp.from_float(-3.0)) == fp.from_float(-3.0)
    assert fp.frc(fp.from_float(-3.0)) == fp.ZERO
    assert fp.frc(fp.NEG_ZERO) == fp.NEG_ZERO                   # -0 - (-0): the left operand
    assert fp.frc(fp.from_float(-1e-30)) == fp.ONE              # 1 - 1e-30 rounds to 1
    assert fp.frc(fp.from_float(-1.25)) == fp.from_float(0.75)
    assert fp.frc(fp.POS_INF) == fp.CANONICAL_NAN
    assert fp.frc(fp.from_float(2.0 ** 30 + 64)) == fp.ZERO


def test_conversions():
    assert fp.from_float(0.1) == 0x3DCC_CCCD
    assert fp.from_float(-0.0) == fp.NEG_ZERO
    assert fp.from_float(1e-40) == fp.ZERO and fp.from_float(-1e-40) == fp.NEG_ZERO
    assert fp.from_float(1e39) == fp.POS_INF and fp.from_float(-1e39) == fp.NEG_INF
    assert fp.from_float(math.nan) == fp.CANONICAL_NAN
    assert fp.from_float(1 + 2.0 ** -24) == fp.ONE                  # a tie, to even
    assert fp.from_float(1 + 3 * 2.0 ** -24) == fp.ONE + 2
    assert fp.from_q17(1 << 17) == fp.ONE
    assert fp.from_q17(0xFFFE_0000) == fp.from_float(-1.0)
    assert fp.from_q17(0x8000_0000) == fp.from_float(-(2.0 ** 14))
    assert fp.from_q17(0x7FFF_FFFF) == fp.from_float(2.0 ** 14)    # rounds up to 2^14
    assert fp.from_q17(1) == fp.from_float(2.0 ** -17)
    assert fp.from_q17(0) == fp.ZERO


def test_inline_constants():
    assert fp.inline_constant(0x80) == fp.ZERO
    assert fp.inline_constant(0xC0) == fp.TWO
    assert fp.inline_constant(0xD2) == fp.from_float(10.0)
    assert [fp.to_float(fp.inline_constant(m)) for m in range(8)] == [m / 512 for m in range(8)]
    assert fp.to_float(fp.inline_constant(0x7F)) == 1.875 * 2 ** 8


def test_to_byte():
    cases = {0.0: 0, -0.0: 0, -1.0: 0, 0.5: 128, 1.0: 255, 255 / 256: 255, 254.99 / 256: 254,
             1 / 256: 1, 0.99 / 256: 0, math.inf: 255, -math.inf: 0, 1e30: 255}
    for v, byte in cases.items():
        assert fp.to_byte(fp.from_float(v)) == byte, v
    assert fp.to_byte(fp.CANONICAL_NAN) == fp.to_byte(0xFFFF_FFFF) == 0
    assert fp.to_byte(MAX_SUBNORMAL) == 0


# --- properties against the reference ----------------------------------------------------------

@SETTINGS
@given(sum_operands())
def test_add_sub(operands):
    a, b = operands
    assert fp.add(a, b) == ref_add(a, b)
    assert fp.sub(a, b) == ref_sub(a, b)
    assert fp.sub(a, b) == fp.add(a, fp.neg(b))


@SETTINGS
@given(product_operands())
def test_mul(operands):
    a, b = operands
    assert fp.mul(a, b) == ref_mul(a, b) == fp.mul(b, a)


@SETTINGS
@given(product_operands(), pattern)
def test_mad(operands, c):
    a, b = operands
    assert fp.mad(a, b, c) == ref_add(ref_mul(a, b), c)


vec = st.lists(pattern, min_size=4, max_size=4)


@SETTINGS
@given(vec, vec, pattern)
def test_dot_products(a, b, c):
    assert fp.dp3(a, b) == ref_dot(a[:3], b[:3])
    assert fp.dp4(a, b) == ref_dot(a, b)
    assert fp.d2a(a, b, c) == ref_add(ref_dot(a[:2], b[:2]), c)


@SETTINGS
@given(pattern, pattern, pattern)
def test_comparisons_and_selects(a, b, c):
    va, vb, vc = value(a), value(b), value(c)
    assert (fp.lt(a, b), fp.ge(a, b), fp.gt(a, b), fp.eq(a, b), fp.ne(a, b)) == \
        (va < vb, va >= vb, va > vb, va == vb, va != vb)
    fa, fb = fp.flush(a), fp.flush(b)
    assert fp.min_(a, b) == (fa if va < vb else fb)
    assert fp.max_(a, b) == (fa if va >= vb else fb)
    assert fp.cnd(a, b, c) == (fa if vc > 0.5 else fb)
    assert fp.cmp(a, b, c) == (fa if vc >= 0 else fb)


@SETTINGS
@given(pattern)
def test_floor_frc(x):
    assert fp.floor_(x) == ref_floor(x)
    assert fp.frc(x) == ref_sub(x, ref_floor(x))


@SETTINGS
@given(pattern, st.integers(0, 7))
def test_omod_clamp(x, code):
    factor = 2.0 ** [0, 1, 2, 3, -1, -2, -3][code] if code < 7 else None
    expected = x if factor is None else ref_mul(x, bits(factor))
    assert fp.omod(x, code) == expected
    v = value(x)
    expected_clamp = fp.ZERO if not v > 0 else fp.ONE if v >= 1 else fp.flush(x)
    assert fp.clamp(x) == expected_clamp


@SETTINGS
@given(st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                 st.floats(min_value=1e-46, max_value=1e-36),
                 st.floats(min_value=3.0e38, max_value=3.5e38),
                 pattern.map(lambda x: fp.to_float(x) * (1 + 2.0 ** -24))))
def test_from_float(f):
    with np.errstate(all="ignore"):
        assert fp.from_float(f) == settle(np.float32(f))


@SETTINGS
@given(st.integers(0, 0xFFFF_FFFF) | st.sampled_from([0, 1, 0x7FFF_FFFF, 0x8000_0000,
                                                      0xFFFF_FFFF, 0x0100_0001, 0x0200_0003]))
def test_from_q17(word):
    signed = word - (1 << 32) if word >> 31 else word
    assert fp.from_q17(word) == bits(np.float32(signed / 2.0 ** 17))
    if abs(signed) < 1 << 24:
        assert fp.to_float(fp.from_q17(word)) == signed / 2.0 ** 17


@SETTINGS
@given(pattern)
def test_to_byte_matches_float_arithmetic(x):
    v = value(x)
    expected = 0 if math.isnan(v) else min(255, max(0, math.floor(v * 256))) \
        if math.isfinite(v) else (255 if v > 0 else 0)
    assert fp.to_byte(x) == expected
