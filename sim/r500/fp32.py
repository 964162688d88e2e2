"""The R500 core's binary32 arithmetic (r500-us.md §3.1-3.4), bit exact, on integer patterns.

Every value is an unsigned 32-bit pattern (a Python int). Arithmetic reads a subnormal input as
a zero of its sign, rounds the exact result once to nearest, ties to even, on the binary32 grid
(subnormals on the 2^-149 grid), then flushes a result below 2^-126 to a zero of its sign; every
NaN it produces or passes on is ``CANONICAL_NAN``. Rounding is integer arithmetic throughout
(``round_to_fp32``), so these functions are the reference the RTL is held to bit for bit.
"""

import math
import operator
import struct

from hdl.isa import Omod
from hdl.r500.fp32 import (  # noqa: F401  (the format's constants, one copy)
    SIGN, MAGNITUDE, EXPONENT, FRACTION, FRACTION_BITS, HIDDEN,
    BIAS, MIN_NORMAL, ZERO, NEG_ZERO, ONE, HALF,
    TWO, POS_INF, NEG_INF, CANONICAL_NAN)


# --- bits --------------------------------------------------------------------------------------

def is_nan(x):
    return (x & MAGNITUDE) > EXPONENT


def is_inf(x):
    return (x & MAGNITUDE) == EXPONENT


def is_zero(x):
    """A zero or a subnormal: what the core reads as a zero."""
    return (x & EXPONENT) == 0


def sign(x):
    """The sign bit, 0 or 1."""
    return x >> 31


def flush(x):
    """A subnormal pattern becomes the zero of its sign; any other pattern is unchanged."""
    return x & SIGN if is_zero(x) else x


def neg(x):
    return x ^ SIGN


def abs_(x):
    return x & MAGNITUDE


def nab(x):
    return x | SIGN


def signed_zero(s):
    return s << 31


def infinity(s):
    return (s << 31) | POS_INF


def unpack(x):
    """(sign, significand, exponent) of a normal, finite x: x = (-1)^sign * significand *
    2^exponent, with the hidden bit made explicit (2^23 <= significand < 2^24)."""
    biased = (x & EXPONENT) >> FRACTION_BITS
    return sign(x), HIDDEN | (x & FRACTION), biased - BIAS - FRACTION_BITS


# --- rounding ----------------------------------------------------------------------------------

def round_half_even(value, shift):
    """value / 2^shift rounded to nearest, ties to even, for value >= 0, shift >= 0: the bits
    shifted out are the guard bit (the highest of them) and the sticky rest. Only shifts, masks
    and compares, so it also works element-wise on NumPy integer arrays."""
    kept = value >> shift
    dropped = value - (kept << shift)
    half = (1 << shift) >> 1
    round_up = (dropped > half) | ((dropped == half) & (half != 0) & ((kept & 1) == 1))
    return kept + round_up


def round_to_fp32(s, significand, exponent):
    """The exact value (-1)^s * significand * 2^exponent (integers, significand >= 0) rounded
    to binary32: normalise, round to nearest even on the grid of the result's binade (2^-149 at
    the bottom), saturate to infinity, then flush a result below 2^-126 to a signed zero."""
    if significand == 0:
        return signed_zero(s)
    top = significand.bit_length() - 1 + exponent          # the weight of the leading bit
    biased = top + BIAS
    # the weight of the result's last place: 24 significant bits, or the subnormal grid
    lsb = max(top, 1 - BIAS) - FRACTION_BITS
    if lsb >= exponent:
        rounded = round_half_even(significand, lsb - exponent)
    else:
        rounded = significand << (exponent - lsb)
    # the hidden bit lands in the exponent field, so a carry out of the rounding (2^24)
    # increments the exponent by itself
    pattern = (max(biased, 1) - 1 << FRACTION_BITS) + rounded
    if pattern >= POS_INF:
        return infinity(s)
    if pattern < MIN_NORMAL:
        return signed_zero(s)
    return (s << 31) | pattern


# --- conversions -------------------------------------------------------------------------------

def from_float(f):
    """The Python float f rounded to the nearest binary32 (ties to even), then flushed; NaN
    gives the canonical NaN."""
    if math.isnan(f):
        return CANONICAL_NAN
    s = int(math.copysign(1.0, f) < 0)
    if math.isinf(f):
        return infinity(s)
    mantissa, exponent = math.frexp(abs(f))                 # exact: 53-bit mantissa
    return round_to_fp32(s, int(mantissa * (1 << 53)), exponent - 53)


def to_float(x):
    """The exact value of the pattern x as a Python float (subnormals not flushed)."""
    return struct.unpack("<f", struct.pack("<I", x & 0xFFFF_FFFF))[0]


def from_q17(word):
    """The 32-bit word read as a signed number / 2^17 (THEIA's Q14.17), rounded once."""
    word &= 0xFFFF_FFFF
    s = word >> 31
    return round_to_fp32(s, (1 << 32) - word if s else word, -17)


def inline_constant(code):
    """The inline constant of a source address (r500-us.md §3.2): bits 6:0 are exponent e (6:3)
    and mantissa m (2:0), m * 2^-9 if e = 0, else (1 + m/8) * 2^(e-7); bit 7 (the inline flag)
    is ignored, so ``inline_constant(0xC0) == TWO``."""
    e, m = (code >> 3) & 0xF, code & 0x7
    if e == 0:
        return round_to_fp32(0, m, -9)
    return round_to_fp32(0, 8 + m, e - 10)


# --- the arithmetic ----------------------------------------------------------------------------

def _guard_nan(*operands):
    """The operands flushed, or None if any of them is a NaN."""
    flushed = tuple(flush(x) for x in operands)
    return None if any(is_nan(x) for x in flushed) else flushed


#: bits kept below the larger operand's last place when the smaller one is aligned: guard,
#: round and sticky, enough for a correctly rounded sum
_ALIGN_EXTRA = 3


def add(a, b):
    """a + b, rounded once. The sum of two zeros is the left operand (r500-us.md §3.1)."""
    operands = _guard_nan(a, b)
    if operands is None:
        return CANONICAL_NAN
    a, b = operands
    if is_inf(a) or is_inf(b):
        if is_inf(a) and is_inf(b) and a != b:
            return CANONICAL_NAN
        return a if is_inf(a) else b
    if is_zero(b):
        return a
    if is_zero(a):
        return b
    (sa, ma, ea), (sb, mb, eb) = unpack(a), unpack(b)
    if (ea, ma) < (eb, mb):                                  # the larger magnitude first
        (sa, ma, ea), (sb, mb, eb) = (sb, mb, eb), (sa, ma, ea)
    # align the smaller significand to the larger one's grid with three extra bits; what falls
    # off the end only matters as a sticky bit (it can never reach the guard position)
    shift = ea - eb
    aligned = (mb << _ALIGN_EXTRA) >> shift
    sticky = int(aligned << shift != mb << _ALIGN_EXTRA)
    larger = ma << _ALIGN_EXTRA
    total = larger + (aligned | sticky) if sa == sb else larger - (aligned | sticky)
    if total == 0:
        return ZERO                                          # x - x is +0
    return round_to_fp32(sa, total, ea - _ALIGN_EXTRA)


def sub(a, b):
    return add(a, neg(b))


def mul(a, b):
    """a * b, rounded once. A zero factor gives a zero of the XOR sign, whatever the other
    factor, infinite or NaN (the R500's "zero times anything is zero")."""
    a, b = flush(a), flush(b)
    s = sign(a) ^ sign(b)
    if is_zero(a) or is_zero(b):
        return signed_zero(s)
    if is_nan(a) or is_nan(b):
        return CANONICAL_NAN
    if is_inf(a) or is_inf(b):
        return infinity(s)
    (_, ma, ea), (_, mb, eb) = unpack(a), unpack(b)
    return round_to_fp32(s, ma * mb, ea + eb)


def mad(a, b, c):
    """(a * b) + c: two roundings, not fused."""
    return add(mul(a, b), c)


def _dot(a, b, length):
    """((a0*b0 + a1*b1) + a2*b2) ... over ``length`` terms, left to right."""
    total = mul(a[0], b[0])
    for i in range(1, length):
        total = add(total, mul(a[i], b[i]))
    return total


def dp3(a, b):
    """((a.r*b.r) + (a.g*b.g)) + (a.b*b.b)."""
    return _dot(a, b, 3)


def dp4(a, b):
    """(((a.r*b.r) + (a.g*b.g)) + (a.b*b.b)) + (a.a*b.a)."""
    return _dot(a, b, 4)


def d2a(a, b, c):
    """((a.r*b.r) + (a.g*b.g)) + c, c being the scalar C.b."""
    return add(_dot(a, b, 2), c)


# --- comparisons and selects -------------------------------------------------------------------

def _order(x):
    """An integer in the order of the flushed, non-NaN value x; -0 and +0 both map to 0."""
    return -(x & MAGNITUDE) if sign(x) else x


def _compare(relation, a, b):
    """IEEE comparison of the flushed operands: false with a NaN, except for !=."""
    a, b = flush(a), flush(b)
    if is_nan(a) or is_nan(b):
        return relation is operator.ne
    return relation(_order(a), _order(b))


def lt(a, b):
    return _compare(operator.lt, a, b)


def ge(a, b):
    return _compare(operator.ge, a, b)


def gt(a, b):
    return _compare(operator.gt, a, b)


def eq(a, b):
    return _compare(operator.eq, a, b)


def ne(a, b):
    return _compare(operator.ne, a, b)


# The selects return the chosen operand flushed but otherwise as it is, a NaN included: OMOD
# codes 0-6 canonicalise it afterwards, code 7 lets it through.

def min_(a, b):
    """A < B ? A : B."""
    return flush(a if lt(a, b) else b)


def max_(a, b):
    """A >= B ? A : B."""
    return flush(a if ge(a, b) else b)


def cnd(a, b, c):
    """C > 0.5 ? A : B."""
    return flush(a if gt(c, HALF) else b)


def cmp(a, b, c):
    """C >= 0 ? A : B (-0 counts as >= 0)."""
    return flush(a if ge(c, ZERO) else b)


# --- integer and fraction parts ----------------------------------------------------------------

def floor_(x):
    """The largest integer <= x, exactly (floor(-0) = -0, floor(-0.5) = -1)."""
    x = flush(x)
    if is_nan(x):
        return CANONICAL_NAN
    if is_zero(x) or is_inf(x):
        return x
    s, m, e = unpack(x)
    if e >= 0:
        return x                                             # already an integer
    whole = m >> -e
    if s and whole << -e != m:
        whole += 1                                           # a negative fraction rounds down
    return round_to_fp32(s, whole, 0)


def frc(x):
    """A - floor(A), the difference rounded (so FRC of a tiny negative number is 1.0)."""
    return sub(x, floor_(x))


# --- output modifier, clamp, bytes -------------------------------------------------------------

#: OMOD codes 0-6: the power of two each multiplies by
OMOD_FACTORS = (ONE, TWO, 0x4080_0000, 0x4100_0000, HALF, 0x3E80_0000, 0x3E00_0000)
OMOD_NONE = Omod.DISABLE       # neither OMOD nor clamp


def omod(x, code):
    """The output modifier: codes 0-6 are a rounded, flushed multiply by 1, 2, 4, 8, 1/2, 1/4,
    1/8 (so code 0 flushes and canonicalises a NaN); code 7 leaves x as it is."""
    return x if code == OMOD_NONE else mul(x, OMOD_FACTORS[code])


def clamp(x):
    """Saturate to [0, 1]: NaN or x <= 0 (-0 included) gives +0, x >= 1 gives 1.0."""
    if not gt(x, ZERO):
        return ZERO
    return ONE if ge(x, ONE) else x


def to_byte(v):
    """A colour channel as a byte (r500-us.md §4.2): clamp(floor(v * 256), 0, 255), NaN -> 0."""
    v = flush(v)
    if is_nan(v) or sign(v) or is_zero(v):
        return 0
    if is_inf(v):
        return 255
    _, m, e = unpack(v)
    e += 8                                                   # * 256, exactly
    return min(m << e if e >= 0 else m >> -e, 255)
