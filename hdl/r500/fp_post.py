"""The R500 result modifiers, OMOD then clamp (r500-us.md §3.4), as one pipelined unit:
``sim.r500.fp32.clamp(omod(x, code))`` with the clamp on, ``omod(x, code)`` with it off, bit for
bit; OMOD code 7 is neither OMOD nor clamp (``x`` unchanged, even a subnormal or a NaN payload).

OMOD codes 0-6 are a rounded, flushed multiply by 1, 2, 4, 8, 1/2, 1/4, 1/8: a NaN becomes
0x7FC00000, a zero (or a subnormal) the zero of its sign, an infinity stays; a finite x only
moves its exponent, except that x8 can overflow to infinity and the halvings can fall below
2^-126, where the significand is rounded onto the 2^-149 grid (at most three places: the
smallest normal x/8 is 2^-129) and then flushes unless it rounded up to 2^-126 exactly. The
clamp: NaN or x <= 0 (-0 included) gives +0, x >= 1 gives 1.0.

Pipeline, LATENCY = 3 cycles, one value every cycle, never stalls:

1. flush, specials, the scaled exponent, the shift onto the 2^-149 grid (``omod_rounding``);
2. round, pack (``round_pack``);
3. the clamp (two compares with constants and a select).

Rounding in a stage of its own keeps the carry chains of the scaled exponent, the grid shift's
compare and ``round_pack``'s sum and range compares from following one another in one cycle
(in one cycle they took ~17 ns on the ECP5, far from the board's 12.5).

``o_valid`` is ``i_valid`` delayed by LATENCY cycles; datapath registers have no reset.
"""

from amaranth import Cat, Const, Module, Mux, Signal, signed
from amaranth.lib.wiring import In, Out

from hdl.isa import Omod
from hdl.lib.pipeline import register_stage
from hdl.r500.fp32 import CANONICAL_NAN, PipelinedUnit, fields, flush, round_pack
from hdl.r500.fp_compare import ONE, ZERO, fp_ge, fp_gt

__all__ = ["FpPost", "OMOD_NONE", "OMOD_SCALE", "omod_rounding", "omod_result", "omod_value",
           "clamp_value"]

#: OMOD codes 0-6: the power of two each multiplies by, as its exponent
OMOD_SCALE = (0, 1, 2, 3, -1, -2, -3)
OMOD_NONE = Omod.DISABLE


def omod_rounding(m, x, code):
    """The OMOD of the pattern ``x`` by the 3-bit ``code`` up to its rounding (combinational):
    a dict with ``special`` (the result is ``special_value``: code 7, zeros, infinities,
    NaNs), else ``round_pack``'s operands ``sign``, ``exp_field``, ``kept``, ``guard``,
    ``sticky``."""
    flushed = flush(x)
    sign, exp, frac = fields(flushed)

    scale = Signal(signed(3))
    with m.Switch(code):
        for c, s in enumerate(OMOD_SCALE):
            with m.Case(c):
                m.d.comb += scale.eq(s)
    # the result's biased exponent if it is normal: -2 .. 257 for a finite, nonzero x
    biased = Signal(signed(10))
    m.d.comb += biased.eq(exp + scale)
    subnormal = biased < 1
    # below 2^-126 the last place stays at 2^-149: 1 - biased (1..3) more bits below it
    grid_shift = Mux(subnormal, 1 - biased, 0)[:2]
    # kept, then guard and two more bits (ORed into sticky): three places at most. Only one
    # place down can a rounding reach 2^-126 (the model's round-then-flush); further down the
    # result flushes whatever the sticky bit says, kept for the model's form
    shifted = Cat(Const(0, 3), frac, Const(1, 1)) >> grid_shift

    special = Signal()
    special_value = Signal(32)
    m.d.comb += special.eq(1)
    with m.If(code == OMOD_NONE):
        m.d.comb += special_value.eq(x)
    with m.Elif((exp == 0) | ((exp == 0xFF) & (frac == 0))):
        m.d.comb += special_value.eq(flushed)      # a zero of its sign, an infinity
    with m.Elif(exp == 0xFF):
        m.d.comb += special_value.eq(CANONICAL_NAN)
    with m.Else():
        m.d.comb += special.eq(0)
    return {"special": special, "special_value": special_value, "sign": sign,
            "exp_field": Mux(subnormal, 0, biased - 1)[:9], "kept": shifted[3:],
            "guard": shifted[2], "sticky": shifted[:2] != 0}


def omod_result(rounding):
    """The OMOD's result from ``omod_rounding``'s dict (combinational)."""
    return Mux(rounding["special"], rounding["special_value"],
               round_pack(rounding["sign"], rounding["exp_field"], rounding["kept"],
                          rounding["guard"], rounding["sticky"]))


def omod_value(m, x, code):
    """The OMOD of the pattern ``x`` by the 3-bit ``code`` (combinational)."""
    return omod_result(omod_rounding(m, x, code))


def clamp_value(x):
    """Saturate the pattern ``x`` to [0, 1] (combinational)."""
    return Mux(~fp_gt(x, ZERO), ZERO, Mux(fp_ge(x, ONE), ONE, x))


class FpPost(PipelinedUnit):
    """``o_result`` = clamp(OMOD(``i_x``)) (clamp only if ``i_clamp``; OMOD 7: ``i_x``),
    LATENCY cycles after ``i_valid``."""

    LATENCY = 3

    i_valid: In(1)
    i_x: In(32)
    i_omod: In(3)
    i_clamp: In(1)
    o_valid: Out(1)
    o_result: Out(32)

    def elaborate(self, platform):
        m = Module()

        # stage 1: OMOD up to its rounding
        s1 = register_stage(m, 1, {
            "valid": self.i_valid, **omod_rounding(m, self.i_x, self.i_omod),
            "clamp": self.i_clamp & (self.i_omod != OMOD_NONE),
        })

        # stage 2: round, pack
        s2 = register_stage(m, 2, {
            "valid": s1["valid"], "value": omod_result(s1), "clamp": s1["clamp"],
        })

        # stage 3: clamp
        s3 = register_stage(m, 3, {
            "valid": s2["valid"],
            "result": Mux(s2["clamp"], clamp_value(s2["value"]), s2["value"]),
        })

        m.d.comb += [self.o_valid.eq(s3["valid"]), self.o_result.eq(s3["result"])]
        return m
