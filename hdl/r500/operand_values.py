"""Operand values of the R500 core (r500-us.md §3.2): inline-constant decode and the source
modifiers, as combinational helpers; ``sim.r500.fp32.inline_constant / neg / abs_ / nab`` bit
for bit.
"""

from amaranth import Cat, Const, Mux
from amaranth.lib.data import ArrayLayout

__all__ = ["VEC4", "MOD_NONE", "MOD_NEG", "MOD_ABS", "MOD_NAB", "neg", "abs_", "nab",
           "source_modifier", "inline_constant", "SMALL_INLINE"]

#: a source slot or a result: four binary32 channels, r, g, b, a
VEC4 = ArrayLayout(32, 4)

MOD_NONE, MOD_NEG, MOD_ABS, MOD_NAB = 0, 1, 2, 3


def neg(x):
    """NEG: flip the sign bit (of any pattern, zeros and NaNs included)."""
    return Cat(x[:31], ~x[31])


def abs_(x):
    """ABS: clear the sign bit."""
    return Cat(x[:31], Const(0, 1))


def nab(x):
    """NAB: set the sign bit (-|x|)."""
    return Cat(x[:31], Const(1, 1))


def source_modifier(x, mod):
    """The MOD field (2 bits) applied to ``x``: 0 none, 1 NEG, 2 ABS, 3 NAB. Only the sign bit
    changes: it is kept (0), flipped (1), cleared (2) or set (3)."""
    sign = Mux(mod[1], mod[0], x[31] ^ mod[0])
    return Cat(x[:31], sign)


def _small_inline(m):
    """m * 2^-9 as a binary32 pattern (m = 1..7: normal numbers, 2^-9 .. 1.75 * 2^-7)."""
    if m == 0:
        return 0
    top = m.bit_length() - 1                       # m = 1.f * 2^top
    fraction = (m - (1 << top)) << (23 - top)
    return (127 - 9 + top) << 23 | fraction


#: inline constants with exponent field 0: m * 2^-9, m = 0..7
SMALL_INLINE = tuple(_small_inline(m) for m in range(8))


def inline_constant(code):
    """The inline constant of a source address (8 bits; bit 7, the inline flag, is ignored):
    e = bits 6:3, m = bits 2:0; m * 2^-9 if e = 0, else (1 + m/8) * 2^(e-7), i.e. the biased
    exponent e + 120 with the fraction m at its top."""
    e, m = code[3:7], code[:3]
    normal = Cat(Const(0, 20), m, (e + 120)[:8], Const(0, 1))
    small = Const(SMALL_INLINE[0], 32)
    for value, entry in enumerate(SMALL_INLINE[1:], start=1):
        small = Mux(m == value, entry, small)
    return Mux(e == 0, small, normal)
