"""The fixed-point functions of sim/fixed.py against theia-isa.md §4.

Directed edge cases, then hypothesis properties against plain big-integer definitions written
independently of the implementation (signed values, exact rationals, Python's own rounding).
"""

from fractions import Fraction
from math import isqrt

from hypothesis import given, settings, strategies as st

from sim import fixed as fx

ONE = 1 << 17
MIN = 0x8000_0000
MAX = 0x7FFF_FFFF
word = st.integers(0, 0xFFFF_FFFF)
edge_word = st.sampled_from([0, 1, ONE, MAX, MIN, MIN | 1, 0xFFFF_FFFF, 0xFFFE_0000, 0x1_0000])
any_word = st.one_of(word, edge_word)
SETTINGS = settings(max_examples=1500, derandomize=True, deadline=None)


def s(v):
    return v - (1 << 32) if v >= 1 << 31 else v


def w(v):
    return v % (1 << 32)


# --- directed ---------------------------------------------------------------------------------

def test_fix_keeps_sign_and_wraps_magnitude():
    assert fx.add(MAX, 1) == 0                       # 0x7FFF_FFFF + 1 = 0 (sign of +2^31 is +)
    assert fx.add(MIN, 0xFFFF_FFFF) == MIN | MAX     # -2^31 - 1: sign -, low 31 bits all ones
    assert fx.sub(0, MIN) == 0                       # +2^31: positive, low bits 0
    assert fx.add(3 * ONE, w(-5 * ONE)) == w(-2 * ONE)


def test_mul_edge_cases():
    assert fx.mul(ONE, ONE) == ONE
    assert fx.mul(w(-ONE), ONE) == w(-ONE)
    assert fx.mul(w(-1), 1) == 0                     # -1/2^17 * 1/2^17 truncates toward 0 -> 0
    assert fx.mul(w(-3), ONE // 2) == w(-1)          # -1.5 LSB -> -1 LSB (toward zero)
    assert fx.mul(MIN, MIN) == (((1 << 62) >> 17) & 0xFFFF_FFFF)  # |0x80000000| = 2^31
    assert fx.mul64(MIN, ONE) == w(-(1 << 31)) | (0xFFFF_FFFF << 32)
    assert fx.imul(3, w(-4)) == w(-12)


def test_div_edge_cases():
    assert fx.div(ONE, 0) == 0x0FFF_FFFF
    assert fx.div(w(-ONE), 0) == w(-0x0FFF_FFFF)     # sign from a
    assert fx.div(0, 0) == 0x0FFF_FFFF               # 0/0 = +0x0FFFFFFF
    assert fx.div(0, w(-ONE)) == 0                   # -0 is 0
    assert fx.div(w(-7), 2 * ONE) == w(-3)           # truncates toward zero
    assert fx.div(7 * ONE, 2 * ONE) == 7 * ONE // 2
    assert fx.div(MIN, 1) == 0                       # (2^31 << 17) mod 2^32 with bit 31 cleared
    assert fx.div(MAX, 1) == ((MAX << 17) & 0x7FFF_FFFF)


def test_sqrt_and_mag():
    assert fx.sqrt(0) == 0
    assert fx.sqrt(ONE) == ONE
    assert fx.mag((3 * ONE, 4 * ONE, 0)) == 5 * ONE
    assert fx.mag((MIN, MIN, MIN)) == MAX           # saturates
    assert fx.sqrt(3 << 45) == MAX


def test_lane_helpers():
    assert fx.frac(w(-1)) == ONE - 1
    assert fx.intp(w(-1)) == 0xFFFE_0000
    assert fx.unscale(w(-ONE)) == 0xFFFF_FFFF         # arithmetic shift
    assert fx.unscale(5 * ONE + 3) == 5
    assert fx.rescale(5) == 5 * ONE
    assert fx.mod(37 * ONE + 5, 32 * ONE) == 5 * ONE     # integer part mod 32, fraction cleared
    assert fx.neg(MIN) == MIN


# --- properties against big-integer definitions --------------------------------------------

def ref_fix(r):
    """Sign of the exact result, low 31 bits of its 64-bit two's complement."""
    return (0x8000_0000 if r < 0 else 0) | (r % (1 << 64)) & MAX


@SETTINGS
@given(any_word, any_word)
def test_add_sub_match_definition(a, b):
    assert fx.add(a, b) == ref_fix(s(a) + s(b))
    assert fx.sub(a, b) == ref_fix(s(a) - s(b))
    if -(1 << 31) <= s(a) + s(b) < (1 << 31):        # no overflow: the ordinary sum
        assert s(fx.add(a, b)) == s(a) + s(b)


def ref_mul(a, b, scale=17):
    exact = Fraction(abs(s(a)) * abs(s(b)), 1 << scale)
    p = int(exact)                                   # truncation toward zero of a non-negative
    return -p if (s(a) < 0) != (s(b) < 0) else p


@SETTINGS
@given(any_word, any_word)
def test_mul_matches_definition(a, b):
    p = ref_mul(a, b)
    assert fx.mul64(a, b) == p % (1 << 64)
    assert fx.mul(a, b) == p % (1 << 32)
    assert fx.imul(a, b) == ref_mul(a, b, 0) % (1 << 32)
    assert fx.mul(a, b) == fx.mul(b, a)


@SETTINGS
@given(any_word, any_word)
def test_div_matches_definition(a, b):
    if s(b) == 0:
        q = 0x0FFF_FFFF
    else:
        q = int(Fraction(abs(s(a)) << 17, abs(s(b))))  # floor of a non-negative rational
    q = q % (1 << 31)                                  # mod 2^32, then bit 31 cleared
    expected = q if (s(a) < 0) == (s(b) < 0) else w(-q)
    assert fx.div(a, b) == expected


@SETTINGS
@given(st.integers(0, 3 * (1 << 45) - 1))
def test_sqrt_matches_definition(x):
    r = fx.sqrt(x)
    if r < MAX:
        assert r * r <= x << 17 < (r + 1) * (r + 1)
    else:
        assert isqrt(x << 17) >= MAX


@SETTINGS
@given(st.tuples(any_word, any_word, any_word), st.tuples(any_word, any_word, any_word))
def test_dot_cross_use_one_fix_over_64_bit_products(a, b):
    products = [ref_mul(x, y) for x, y in zip(a, b)]
    assert fx.dot(a, b) == ref_fix(sum(products))
    ax, ay, az = a
    bx, by, bz = b
    assert fx.cross(a, b) == (ref_fix(ref_mul(ay, bz) - ref_mul(az, by)),
                              ref_fix(ref_mul(az, bx) - ref_mul(ax, bz)),
                              ref_fix(ref_mul(ax, by) - ref_mul(ay, bx)))
