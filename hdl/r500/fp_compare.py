"""binary32 comparisons and the selects MIN, MAX, CND, CMP of the R500 core (r500-us.md §3.1,
§3.3): ``sim.r500.fp32.lt / ge / gt / eq / ne / min_ / max_ / cnd / cmp`` bit for bit.

Combinational helpers: each function takes Amaranth values (32-bit patterns) and returns an
expression, for the ALU to instantiate per channel.

The comparisons are IEEE's on flushed operands: a subnormal reads as a zero of its sign, -0 ==
+0, every relation with a NaN is false except !=. They compare one unsigned 32-bit key per
operand (``order_key``), monotone in the value, so each relation is a single magnitude compare.
The selects return the chosen operand flushed and otherwise unchanged (a NaN keeps its sign and
payload; OMOD codes 0-6 canonicalise it afterwards, ``fp_post.FpPost``).
"""

from amaranth import Cat, Const, Mux

from hdl.r500 import fp32
from hdl.r500.fp32 import flush

__all__ = ["HALF", "ONE", "ZERO", "is_nan", "order_key", "fp_lt", "fp_ge", "fp_gt", "fp_eq",
           "fp_ne", "fp_min", "fp_max", "fp_cnd", "fp_cmp"]

ZERO, HALF, ONE = (Const(value, 32) for value in (fp32.ZERO, fp32.HALF, fp32.ONE))


def is_nan(x):
    """The pattern ``x`` is a NaN (all-ones exponent, nonzero fraction)."""
    return (x[23:31] == 0xFF) & (x[:23] != 0)


def order_key(x):
    """An unsigned 32-bit key in the order of the value of the non-NaN pattern ``x``, read
    flushed, with -0 and +0 (and subnormals of either sign) on one key, 0x80000000: a positive
    value keeps its magnitude under a set top bit, a negative one (nonzero magnitude) is the
    complement, 0x7FFFFFFF - magnitude."""
    x = flush(x)
    negative = x[31] & (x[:31] != 0)
    return Mux(negative, ~x, Cat(x[:31], Const(1, 1)))


def _operands(a, b):
    return is_nan(a) | is_nan(b), order_key(a), order_key(b)


def fp_lt(a, b):
    """a < b (false with a NaN)."""
    unordered, ka, kb = _operands(a, b)
    return ~unordered & (ka < kb)


def fp_ge(a, b):
    """a >= b (false with a NaN)."""
    unordered, ka, kb = _operands(a, b)
    return ~unordered & (ka >= kb)


def fp_gt(a, b):
    """a > b (false with a NaN)."""
    unordered, ka, kb = _operands(a, b)
    return ~unordered & (ka > kb)


def fp_eq(a, b):
    """a == b (false with a NaN; -0 == +0)."""
    unordered, ka, kb = _operands(a, b)
    return ~unordered & (ka == kb)


def fp_ne(a, b):
    """a != b (true with a NaN)."""
    unordered, ka, kb = _operands(a, b)
    return unordered | (ka != kb)


def fp_min(a, b):
    """MIN: A < B ? A : B, flushed."""
    return flush(Mux(fp_lt(a, b), a, b))


def fp_max(a, b):
    """MAX: A >= B ? A : B, flushed."""
    return flush(Mux(fp_ge(a, b), a, b))


def fp_cnd(a, b, c):
    """CND: C > 0.5 ? A : B, flushed."""
    return flush(Mux(fp_gt(c, HALF), a, b))


def fp_cmp(a, b, c):
    """CMP: C >= 0 ? A : B, flushed (-0 counts as >= 0)."""
    return flush(Mux(fp_ge(c, ZERO), a, b))
