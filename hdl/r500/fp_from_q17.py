"""A texture word read as binary32: ``sim.r500.fp32.from_q17`` bit for bit (r500-us.md §3.5).

THEIA keeps colours in Q14.17: the 32-bit word as a signed integer over 2^17. The value is the
word's magnitude, normalised, rounded once to 24 significant bits (nearest, ties to even) and
given the word's sign; it is never below 2^-17 in magnitude, so never subnormal, and never
overflows (|word| <= 2^31).

Pipeline, LATENCY = 3 cycles, one word every cycle, never stalls:

1. the magnitude (a two's complement negation of a negative word);
2. the leading-zero count (the adder's tree) and the normalising left shift, the exponent;
3. round to nearest even and pack (``round_pack``); a zero word gives +0.

``o_valid`` is ``i_valid`` delayed by LATENCY cycles; datapath registers have no reset.
"""

from amaranth import Const, Module, Mux
from amaranth.lib.wiring import In, Out

from hdl.lib.pipeline import register_stage
from hdl.r500.fp32 import BIAS, PipelinedUnit
from hdl.r500.fp_add import leading_zero_count

__all__ = ["FpFromQ17"]

#: the fraction bits of THEIA's fixed point
Q_FRACTION_BITS = 17
WORD_BITS = 32
#: the biased exponent minus one of a word whose leading one is its top bit: that bit weighs
#: 2^(31 - 17), and the hidden bit adds the one back (``round_pack``)
TOP_EXP_FIELD = WORD_BITS - 1 - Q_FRACTION_BITS + BIAS - 1
#: the normalised magnitude's bits below the 24 kept ones: guard and sticky
LOW_BITS = WORD_BITS - 24


class FpFromQ17(PipelinedUnit):
    """``o_result = word / 2^17`` as binary32 (``word`` signed), LATENCY cycles after
    ``i_valid``."""

    LATENCY = 3

    i_valid: In(1)
    i_word: In(WORD_BITS)
    o_valid: Out(1)
    o_result: Out(32)

    def elaborate(self, platform):
        m = Module()
        word = self.i_word
        sign = word[-1]

        # stage 1: the magnitude (of 0x80000000 too: 2^31 fits 32 unsigned bits)
        s1 = register_stage(m, 1, {
            "valid": self.i_valid, "sign": sign,
            "magnitude": Mux(sign, -word, word)[:WORD_BITS],
        })

        # stage 2: normalise, leading one at bit 31
        is_zero, lead = leading_zero_count(s1["magnitude"])
        s2 = register_stage(m, 2, {
            "valid": s1["valid"], "special": is_zero, "sign": s1["sign"],
            "exp_field": TOP_EXP_FIELD - lead,
            "bits": (s1["magnitude"] << lead)[:WORD_BITS],
        })

        # stage 3: round and pack; always on the normal grid (no shift onto 2^-149)
        s2.update(special_value=Const(0, 32), grid_shift=Const(0, 2))
        self.answer_rounded(m, 3, s2, LOW_BITS)
        return m
