"""binary32 fields and the final round-and-pack step shared by the R500 arithmetic units.

The rounding mirrors ``sim.r500.fp32.round_to_fp32``: the caller has put the result's last place
at bit 0 of ``kept`` (24 bits with the hidden bit, fewer significant bits on the 2^-149 grid);
``guard`` is the next bit down and ``sticky`` the OR of the rest.
"""

from amaranth import Cat, Const, Mux

__all__ = ["SIGN", "EXPONENT", "POS_INF", "MIN_NORMAL", "CANONICAL_NAN", "fields", "flush",
           "round_pack"]

SIGN = 0x8000_0000
EXPONENT = 0x7F80_0000
POS_INF = 0x7F80_0000
MIN_NORMAL = 0x0080_0000
CANONICAL_NAN = 0x7FC0_0000


def fields(x):
    """(sign, biased exponent, fraction) slices of the pattern ``x``."""
    return x[31], x[23:31], x[:23]


def flush(x):
    """A subnormal pattern reads as the zero of its sign (no subnormal datapath)."""
    return Mux(x[23:31] == 0, Cat(Const(0, 31), x[31]), x)


def round_pack(sign, exp_field, kept, guard, sticky):
    """The 32-bit result ``sign | (exp_field << 23) + rounded``, rounded to nearest even.

    The hidden bit of ``kept`` lands in the exponent field, so ``exp_field`` is the biased
    exponent minus one (0 on the subnormal grid) and a rounding carry out of the significand
    bumps the exponent by itself. Then, as the model: infinity from POS_INF up, and a pattern
    below 2^-126 flushes to the zero of its sign.
    """
    round_up = guard & (sticky | kept[0])
    pattern = (exp_field << 23) + kept + round_up
    signed_zero = Cat(Const(0, 31), sign)
    return Mux(pattern >= POS_INF, Cat(Const(POS_INF, 31), sign),
               Mux(pattern < MIN_NORMAL, signed_zero, Cat(pattern[:31], sign)))
