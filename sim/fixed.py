"""Bit-exact fixed-point arithmetic of THEIA (theia-isa.md §4), in plain Python.

Every value is a 32-bit word (an int in [0, 2**32)). These functions are the reference the RTL
datapath is tested against; they are written to be read next to the spec, not to be fast.
"""

from math import isqrt

from hdl.isa import SCALE, ONE, MASK32

MASK64 = (1 << 64) - 1
SIGN32 = 0x8000_0000


def signed32(v):
    """The word v read as a two's complement number."""
    return v - (1 << 32) if v & SIGN32 else v


def magnitude32(v):
    """|v| as a 32-bit magnitude; |0x80000000| = 0x80000000."""
    return (-v) & MASK32 if v & SIGN32 else v


def fix(r):
    """Fold an exact result (any Python int, taken mod 2**64) back into 32 bits: the true sign
    (bit 63) and the low 31 bits, so overflow keeps the sign and wraps the magnitude."""
    r &= MASK64
    return ((r >> 63) << 31) | (r & 0x7FFF_FFFF)


def add(a, b):
    return fix(signed32(a) + signed32(b))


def sub(a, b):
    return fix(signed32(a) - signed32(b))


def mul64(a, b):
    """The 64-bit sign-magnitude product P = (|a| * |b|) >> SCALE, negated mod 2**64 when the
    signs differ (rounds toward zero)."""
    p = (magnitude32(a) * magnitude32(b)) >> SCALE
    if (a ^ b) & SIGN32:
        p = -p
    return p & MASK64


def imul64(a, b):
    """As mul64 without the scaling: the integer product in sign-magnitude."""
    p = magnitude32(a) * magnitude32(b)
    if (a ^ b) & SIGN32:
        p = -p
    return p & MASK64


def mul(a, b):
    """MUL: the low 32 bits of mul64."""
    return mul64(a, b) & MASK32


def imul(a, b):
    return imul64(a, b) & MASK32


def div(a, b):
    n = magnitude32(a) << SCALE
    d = magnitude32(b)
    q = 0x0FFF_FFFF if d == 0 else n // d
    q &= MASK32 & ~SIGN32          # q mod 2**32 with bit 31 cleared
    return (-q) & MASK32 if (a ^ b) & SIGN32 else q


def sqrt(s):
    """sqrt(s): s is a non-negative sum of three P's; floor(sqrt(s << SCALE)), saturated."""
    return min(isqrt(s << SCALE), 0x7FFF_FFFF)


def sum64(*products):
    """Sum of 64-bit two's complement values, as a signed Python int."""
    total = 0
    for p in products:
        total += p - (1 << 64) if p >> 63 else p
    return total


def dot(a, b):
    """DOT of two 3-tuples: one fix over the sum of the three 64-bit products."""
    return fix(sum64(*(mul64(x, y) for x, y in zip(a, b))))


def cross(a, b):
    ax, ay, az = a
    bx, by, bz = b
    return (fix(sum64(mul64(ay, bz)) - sum64(mul64(az, by))),
            fix(sum64(mul64(az, bx)) - sum64(mul64(ax, bz))),
            fix(sum64(mul64(ax, by)) - sum64(mul64(ay, bx))))


def mag(a):
    """MAG: the square root of the sum of the three 64-bit P's of each lane with itself."""
    s = sum64(*(mul64(v, v) for v in a))
    return sqrt(s)


def mod(a, b):
    return a & ((b - ONE) & MASK32)


def frac(a):
    return a & (ONE - 1)


def intp(a):
    return a & ~(ONE - 1) & MASK32


def neg(a):
    return (-a) & MASK32


def unscale(a):
    return (signed32(a) >> SCALE) & MASK32


def rescale(a):
    return (a << SCALE) & MASK32


def inc(a):
    return add(a, ONE)


def dec(a):
    return sub(a, ONE)
