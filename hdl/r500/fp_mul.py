"""Pipelined binary32 multiplier of the R500 core: ``sim.r500.fp32.mul`` bit for bit
(r500-us.md §3.1).

The model's algorithm in hardware: flush subnormal inputs, settle zero (first: "zero times
anything is zero", XOR sign), NaN and infinity operands up front, multiply the two 24-bit
significands exactly, round the 48-bit product once to nearest even.

Pipeline, LATENCY = 4 cycles, one new product every cycle, never stalls:

1. the special cases (a zero or subnormal factor, NaN, infinity) as flags, the significands
   with their hidden bits, the exponent sum;
2. the special result from the flags; four 12x12 partial products of the significands, one
   ECP5 MULT18X18D each (Yosys ``mul2dsp``), registered right after the DSP so no adder
   follows it in the same cycle;
3. their sum (one carry-save layer and one 48-bit adder), normalised so the leading one is bit
   47 (the product of two [1, 2) significands is in [1, 4): at most a one-bit shift), and the
   biased exponent;
4. the shift onto the 2^-149 grid below 2^-126, round to nearest even, pack, overflow to
   infinity, flush below 2^-126, the special results.

Resources and Fmax out of context: docs/r500-rtl.md and docs/fpga.md, "Measured builds".

``o_valid`` is ``i_valid`` delayed by LATENCY cycles; datapath registers have no reset.
"""

from amaranth import Cat, Const, Module, Mux, Signal, signed

from hdl.alu.multiplier import carry_save_add
from hdl.lib.pipeline import register_stage
from hdl.r500.fp32 import BIAS, BinaryFpUnit, CANONICAL_NAN, POS_INF, fields

__all__ = ["FpMul"]

#: the significands' halves: 12x12 fits an 18x18 DSP with room to spare
HALF = 12
PRODUCT_BITS = 48
#: product bits below the guard position of the lowest grid the rounding can use (d = 2 below)
#: only matter as one sticky bit
STICKY_BITS = 21


class FpMul(BinaryFpUnit):
    """``o_result = a * b`` (binary32 patterns, R500 rules), LATENCY cycles after ``i_valid``."""

    LATENCY = 4

    def elaborate(self, platform):
        m = Module()

        # stage 1: specials, significands, exponent sum. The operands' fields as they come: a
        # flush only turns a zero exponent's fraction to 0, and a zero exponent makes the
        # result special (a zero factor), so the product of the raw fractions is never used
        # then (the flush in front of the DSPs and the exponent add was logic on this stage's
        # paths)
        (sign_a, exp_a, frac_a), (sign_b, exp_b, frac_b) = fields(self.i_a), fields(self.i_b)
        sign = sign_a ^ sign_b

        # the special result is one of three, chosen in stage 2 from these flags: in the
        # model's order, a zero factor wins over NaN and infinity
        zero = (exp_a == 0) | (exp_b == 0)
        nan = ((exp_a == 0xFF) & (frac_a != 0)) | ((exp_b == 0xFF) & (frac_b != 0))
        s1 = register_stage(m, 1, {
            "valid": self.i_valid, "special": zero | (exp_a == 0xFF) | (exp_b == 0xFF),
            "zero": zero, "nan": nan,
            "sign": sign, "exp_sum": exp_a + exp_b,
            "m_a": Cat(frac_a, 1), "m_b": Cat(frac_b, 1),
        })
        special_value = Mux(s1["zero"], Cat(Const(0, 31), s1["sign"]),
                            Mux(s1["nan"], CANONICAL_NAN, Cat(Const(POS_INF, 31), s1["sign"])))

        # stage 2: the partial products, one DSP each
        a_lo, a_hi = s1["m_a"][:HALF], s1["m_a"][HALF:]
        b_lo, b_hi = s1["m_b"][:HALF], s1["m_b"][HALF:]
        s2 = register_stage(m, 2, {
            "valid": s1["valid"], "special": s1["special"], "special_value": special_value,
            "sign": s1["sign"], "exp_sum": s1["exp_sum"],
            "pp_ll": a_lo * b_lo, "pp_lh": a_lo * b_hi, "pp_hl": a_hi * b_lo,
            "pp_hh": a_hi * b_hi,
        })

        # stage 3: the exact product, normalised to a leading one at bit 47
        product = Signal(PRODUCT_BITS)
        m.d.comb += product.eq(carry_save_add(     # ll and hh do not overlap: concatenated
            m, Cat(s2["pp_ll"], s2["pp_hh"]), s2["pp_lh"] << HALF, s2["pp_hl"] << HALF,
            PRODUCT_BITS))
        top = product[-1]
        norm = Mux(top, product, product << 1)[:PRODUCT_BITS]
        # the result's biased exponent when normal: ea + eb - 127, plus one for a product >= 2.
        # Below 2^-126 the last place stays at 2^-149: d more bits go under the guard. Two
        # binades down (d >= 2) even a rounded-up result is below 2^-126 and flushes, so
        # d = 2 stands for all of them. Both cases are worked out beside the product's sum and
        # picked by its top bit (after the sum's carry chain, an add and compares made a path
        # of ~12 ns in the lane datapath)
        def grid(extra):
            biased = Signal(signed(11), name=f"biased{extra}")
            m.d.comb += biased.eq(s2["exp_sum"] - BIAS + extra)
            # biased - 1 (the hidden bit adds the one back); 0 on the 2^-149 grid
            return (Mux(biased >= 1, 0, Mux(biased == 0, 1, 2)),
                    Mux(biased >= 1, biased - 1, 0)[:9])
        (shift0, field0), (shift1, field1) = grid(0), grid(1)
        s3 = register_stage(m, 3, {
            "valid": s2["valid"], "special": s2["special"], "special_value": s2["special_value"],
            "sign": s2["sign"], "grid_shift": Mux(top, shift1, shift0),
            "exp_field": Mux(top, field1, field0),
            # bit 0: the sticky OR of the product's low bits; bits 1..: product bits 21..47
            "bits": Cat(norm[:STICKY_BITS] != 0, norm[STICKY_BITS:]),
        })

        # stage 4: onto the grid, round, pack
        low = PRODUCT_BITS // 2 - STICKY_BITS + 1    # the kept part's lowest index in bits (d = 0)
        self.answer_rounded(m, 4, s3, low)
        return m
