"""FRC of the R500 core (r500-us.md §3.3): ``sim.r500.fp32.frc``, A - floor(A), bit for bit.

floor(A) is exact (``fp_floor``, combinational: a mask on the fraction field, and for a negative
A with a fractional part one more unit in the integer part); the difference is one rounded
binary32 subtraction in the existing ``FpAdd`` (A + (-floor(A))), which brings the R500 rules
with it: a NaN gives 0x7FC00000, inf - inf is NaN, -0 - -0 is -0 (the left operand), x - x is
+0, and a tiny negative A gives 1.0 by rounding.

Pipeline, LATENCY = 1 + FpAdd.LATENCY = 5 cycles, one value every cycle, never stalls:

1. the floor, registered with A;
2-5. ``FpAdd``.
"""

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib.wiring import In, Out

from hdl.lib.pipeline import register_stage
from hdl.r500.fp32 import BIAS, CANONICAL_NAN, FRACTION_BITS, SIGN, PipelinedUnit, fields, flush
from hdl.r500.fp_add import FpAdd

__all__ = ["FpFrc", "fp_floor", "floor_parts", "floor_value"]

MINUS_ONE = 0xBF80_0000


def floor_parts(m, x):
    """The first half of ``fp_floor(m, x)``, up to the fraction mask: name -> value, to be
    registered between the halves where one cycle is too short for both (``floor_value``)."""
    flushed = flush(x)
    sign, exp, frac = fields(flushed)
    # fraction bits below the binary point, for 1 <= |x| < 2^23: 150 - exp, 1..23
    below = Signal(range(FRACTION_BITS + 1))
    m.d.comb += below.eq(BIAS + FRACTION_BITS - exp)
    fraction_mask = Signal(FRACTION_BITS)
    m.d.comb += fraction_mask.eq(~(Const((1 << FRACTION_BITS) - 1, FRACTION_BITS) << below))
    return {
        "flushed": flushed, "mask": fraction_mask,
        "nan": (exp == 0xFF) & (frac != 0),
        "kept": (exp == 0) | (exp >= BIAS + FRACTION_BITS),     # zeros, infinities, integers
        "small": exp < BIAS,
    }


def floor_value(m, parts):
    """floor from ``floor_parts``' values (combinational)."""
    flushed, fraction_mask = parts["flushed"], parts["mask"]
    sign, _, frac = fields(flushed)
    has_fraction = (frac & fraction_mask) != 0
    truncated = Cat(frac & ~fraction_mask, flushed[23:])
    # + one unit at the binary point: the cleared bits set, then + 1 (one carry chain)
    up = (Cat(frac | fraction_mask, flushed[23:]) + 1)[:32]
    down = Mux(sign & has_fraction, up, truncated)

    value = Signal(32)
    with m.If(parts["nan"]):
        m.d.comb += value.eq(CANONICAL_NAN)
    with m.Elif(parts["kept"]):
        m.d.comb += value.eq(flushed)
    with m.Elif(parts["small"]):
        m.d.comb += value.eq(Mux(sign, MINUS_ONE, 0))
    with m.Else():
        m.d.comb += value.eq(down)
    return value


def fp_floor(m, x):
    """floor of the pattern ``x``, exactly as ``sim.r500.fp32.floor_`` (combinational): read
    flushed; a NaN gives 0x7FC00000; zeros, infinities and integers (2^23 and up) are kept;
    0 < x < 1 gives +0, -1 < x < 0 gives -1.0; otherwise the fraction bits below the binary point
    are cleared, and a negative x that had any adds one unit to its magnitude (the carry may
    move into the exponent field: -1.5 -> -2.0)."""
    return floor_value(m, floor_parts(m, x))


class FpFrc(PipelinedUnit):
    """``o_result = a - floor(a)`` (binary32 patterns, R500 rules), LATENCY cycles after
    ``i_valid``."""

    LATENCY = 1 + FpAdd.LATENCY

    i_valid: In(1)
    i_a: In(32)
    o_valid: Out(1)
    o_result: Out(32)

    def elaborate(self, platform):
        m = Module()
        m.submodules.add = add = FpAdd()

        # stage 1: the floor, negated (a sign-bit flip: a - f is a + (-f), as the model)
        s1 = register_stage(m, 1, {
            "valid": self.i_valid, "a": self.i_a,
            "neg_floor": fp_floor(m, self.i_a) ^ SIGN,
        })

        m.d.comb += [
            add.i_valid.eq(s1["valid"]), add.i_a.eq(s1["a"]), add.i_b.eq(s1["neg_floor"]),
            self.o_valid.eq(add.o_valid), self.o_result.eq(add.o_result),
        ]
        return m
