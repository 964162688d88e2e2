"""Pipelined binary32 adder of the R500 core: ``sim.r500.fp32.add`` bit for bit (r500-us.md §3.1).

The model's algorithm in hardware: flush subnormal inputs, settle NaN, infinity and zero
operands up front, order the finite operands by magnitude, align the smaller significand with
three extra bits (guard, round, sticky), add or subtract, normalise, round once to nearest even.

Pipeline, LATENCY = 4 cycles, one new addition every cycle, never stalls:

1. flush, the special results (a NaN -> 0x7FC00000; inf - inf -> NaN; an infinity; a zero
   operand gives the other one, the left operand when both are zeros), the magnitude compare
   and swap, the exponent difference (both ways, beside the compare), the smaller
   significand's trailing zeros (for the sticky bit);
2. the alignment shift, the sticky bit as "the shift passes the lowest one", the 28-bit add or
   subtract (one carry chain);
3. the normalising left shift: a tree leading-zero count, with a limit bit that stops the shift
   at the 2^-126 binade so the bits land on the 2^-149 grid where the model rounds them;
4. round to nearest even, pack, overflow to infinity, flush below 2^-126, the special results.

Resources and Fmax out of context: docs/r500-rtl.md and docs/fpga.md, "Measured builds".

``o_valid`` is ``i_valid`` delayed by LATENCY cycles; datapath registers have no reset.
"""

from amaranth import Cat, Const, Module, Mux, Signal

from hdl.lib.pipeline import register_stage
from hdl.r500.fp32 import BinaryFpUnit, CANONICAL_NAN, round_pack

__all__ = ["FpAdd"]

#: bits kept below the larger operand's last place once the smaller one is aligned
ALIGN_EXTRA = 3
#: the aligned significands: 24 bits, the extra bits, one carry bit
SUM_BITS = 24 + ALIGN_EXTRA + 1


def trailing_zeros(m, fraction):
    """The trailing zeros of the significand ``1.fraction`` (23 when the fraction is 0)."""
    count = Signal(range(len(fraction) + 1))
    m.d.comb += count.eq(len(fraction))
    for i in reversed(range(len(fraction))):     # the lowest set bit wins (assigned last)
        with m.If(fraction[i]):
            m.d.comb += count.eq(i)
    return count


def leading_zero_count(x):
    """(x == 0, the leading zeros of x) for a power-of-two width, as a tree of halves (log
    depth, where a priority chain over the bits would be linear)."""
    if len(x) == 1:
        return ~x[0], Const(0, 0)
    half = len(x) // 2
    hi_zero, hi_count = leading_zero_count(x[half:])
    lo_zero, lo_count = leading_zero_count(x[:half])
    # an all-zero top half: its width (the new top bit), then the bottom half's count
    return hi_zero & lo_zero, Cat(Mux(hi_zero, lo_count, hi_count), hi_zero)


def shift_left_from_top(x, amount):
    """``x << amount`` (the width of ``x`` kept), shifting by ``amount``'s top bit first: a
    leading-zero count's top bits are ready first, so each step waits only for its own bit
    (Yosys builds a shifter from the bottom bit, behind the whole count)."""
    for i in reversed(range(len(amount))):
        x = Mux(amount[i], Cat(Const(0, 1 << i), x)[:len(x)], x)
    return x


class FpAdd(BinaryFpUnit):
    """``o_result = a + b`` (binary32 patterns, R500 rules), LATENCY cycles after ``i_valid``."""

    LATENCY = 4

    def elaborate(self, platform):
        m = Module()

        # stage 1: specials, order by magnitude, exponent difference
        a, b, (sign_a, exp_a, frac_a), (sign_b, exp_b, frac_b) = self.flushed_operands()
        nan_a = (exp_a == 0xFF) & (frac_a != 0)
        nan_b = (exp_b == 0xFF) & (frac_b != 0)
        inf_a = (exp_a == 0xFF) & (frac_a == 0)
        inf_b = (exp_b == 0xFF) & (frac_b == 0)

        special = Signal()
        special_value = Signal(32)
        m.d.comb += special.eq(1)
        # the model's order of tests; a zero b comes first so that 0 + 0 is the left operand
        with m.If(nan_a | nan_b):
            m.d.comb += special_value.eq(CANONICAL_NAN)
        with m.Elif(inf_a & inf_b & (sign_a != sign_b)):
            m.d.comb += special_value.eq(CANONICAL_NAN)
        with m.Elif(inf_a | (exp_b == 0)):
            m.d.comb += special_value.eq(a)
        with m.Elif(inf_b | (exp_a == 0)):
            m.d.comb += special_value.eq(b)
        with m.Else():
            m.d.comb += special.eq(0)

        # the larger magnitude first (the exponent is the magnitude's high part); equal
        # magnitudes keep the order, as the model does. Only two normal operands take this
        # path (anything else is a special result), and those the flush leaves alone: the
        # order, the operands and the exponent difference come from the inputs as they are,
        # and the difference both ways beside the compare, so that neither waits for the other
        raw_a, raw_b = self.i_a, self.i_b
        swap = raw_a[:31] < raw_b[:31]
        big, small = Mux(swap, raw_b, raw_a), Mux(swap, raw_a, raw_b)
        # shifts past 27 lose the whole significand to the sticky bit: 31 stands for them all
        def distance(high, low):
            difference = high[23:31] - low[23:31]
            return Mux(difference > 31, 31, difference[:5])
        # the sticky bit is "the shift passes the smaller significand's lowest one": its
        # trailing zeros are counted here, beside the compare, not ORed after the shifter
        s1 = register_stage(m, 1, {
            "valid": self.i_valid, "special": special, "special_value": special_value,
            "sign": big[31], "subtract": sign_a ^ sign_b, "exp": big[23:31],
            "shift": Mux(swap, distance(raw_b, raw_a), distance(raw_a, raw_b)),
            "small_zeros": Mux(swap, trailing_zeros(m, raw_a[:23]),
                               trailing_zeros(m, raw_b[:23])),
            "m_big": Cat(big[:23], 1), "m_small": Cat(small[:23], 1),
        })

        # stage 2: align, then add or subtract
        aligned = (Cat(Const(0, ALIGN_EXTRA), s1["m_small"]) >> s1["shift"])[:24 + ALIGN_EXTRA]
        sticky = s1["shift"] > s1["small_zeros"] + ALIGN_EXTRA
        term = Cat(aligned | sticky, 0)
        larger = Cat(Const(0, ALIGN_EXTRA), s1["m_big"], 0)
        # one carry chain for both: larger + ~term + 1 subtracts (mod 2^28; |big| >= |small|,
        # so never negative), the 1 entering as the carry out of a bit 0 both operands set
        subtract = s1["subtract"]
        total = Cat(subtract, larger) + Cat(subtract, term ^ subtract.replicate(SUM_BITS))
        total = total[1:SUM_BITS + 1]
        s2 = register_stage(m, 2, {
            "valid": s1["valid"], "special": s1["special"], "special_value": s1["special_value"],
            "sign": s1["sign"], "exp": s1["exp"], "total": total,
            # a one where the leading one would reach exponent 0, the end of the left shift
            # below (none for exponents past the sum's width)
            "limit": Const(1 << SUM_BITS - 1, SUM_BITS) >> s1["exp"],
        })

        # stage 3: normalise. The leading one goes to the top bit, but the left shift stops at
        # the larger operand's exponent: below that the result sits on the 2^-149 grid. So the
        # shift is the leading zeros of the sum with the limit's one set in it: min(leading
        # zeros, exponent) with no compare after the count (zero-padded at the bottom to 32
        # bits, a power of two for the tree)
        total = s2["total"]
        # (a signal: each of the shifter's steps reads one of its bits, and an expression would
        # be built again for every one of them, a tree of ~14,000 cells in place of ~500)
        norm_shift = Signal(5)
        m.d.comb += norm_shift.eq(
            leading_zero_count(Cat(Const(0, 32 - SUM_BITS), total | s2["limit"]))[1])
        cancelled = total == 0                       # x - x is +0
        s3 = register_stage(m, 3, {
            "valid": s2["valid"], "special": s2["special"] | cancelled,
            "special_value": Mux(s2["special"], s2["special_value"], 0),
            "sign": s2["sign"],
            # the biased exponent minus one (the hidden bit adds it back): exp + 1 - shift - 1
            "exp_field": s2["exp"] - norm_shift,
            "norm": shift_left_from_top(total, norm_shift),
        })

        # stage 4: round (the kept 24 bits, then guard and sticky), pack
        norm = s3["norm"]
        rounded = round_pack(s3["sign"], s3["exp_field"][:8], norm[ALIGN_EXTRA + 1:],
                             norm[ALIGN_EXTRA], norm[:ALIGN_EXTRA] != 0)
        s4 = register_stage(m, 4, {
            "valid": s3["valid"],
            "result": Mux(s3["special"], s3["special_value"], rounded),
        })

        m.d.comb += [self.o_valid.eq(s4["valid"]), self.o_result.eq(s4["result"])]
        return m
