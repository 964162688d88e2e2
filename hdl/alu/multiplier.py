"""Pipelined 32x32 multiplier (theia-isa.md §4 ``mul``/``imul``).

Computes ``sim.fixed.mul64(a, b)`` when ``scaled`` is 1 and ``sim.fixed.imul64(a, b)`` when it is
0: the 64-bit two's complement value of ``±(|a| * |b|) >> (17 if scaled else 0)``, negated when
exactly one operand is negative (so it rounds toward zero).

It works on the signed operands directly: with P = a * b (exact in 64 bits), the product
rounded toward zero is P >> 17 for P >= 0 and (P + 2**17 - 1) >> 17 for P < 0 (arithmetic
shifts), and P < 0 only when the signs differ (a zero P gains nothing from the bias). So no
magnitudes and no negate: the bias rides in the partial-product sum (below).

Pipeline, LATENCY = 3 cycles, one new operation every cycle, never stalls:

1. the operands registered (they arrive behind the ALU's operand multiplexers);
2. four 16x16 partial products with a = ah * 2**16 + al (ah signed, al unsigned), each one ECP5
   MULT18X18D (Yosys ``mul2dsp``: 17x17 signed fits an 18x18 DSP); registered right after the
   DSP so no adder follows it in the same cycle;
3. ll + hh * 2**32 (a concatenation: ll is non-negative and below 2**32) + (lh + hl) * 2**16
   + bias as one carry-save layer and one 64-bit adder, then the optional ``>> SCALE``
   (wiring). The bias 2**17 - 1 = 0xFFFF + 0xFFFF + 1 takes no extra term: its two 0xFFFF sit in
   the empty low 16 bits of the lh and hl terms, the 1 in the carry vector's empty bit 0.

``o_valid``/``o_tag`` are ``i_valid``/``i_tag`` delayed by LATENCY cycles. Datapath registers have
no reset (only ``valid`` does): the result is defined whenever ``o_valid`` is.

Yosys synth_ecp5 (in the 1-core board top, ``-noflatten``): 4 MULT18X18D, 159 LUT4 + 32 CCU2C,
260 FF. (Taking magnitudes, multiplying unsigned and negating the 64-bit result would cost
254 LUT4 + 88 CCU2C, 326 FF and 4 cycles.)
"""

from amaranth import Cat, Module, Mux, Signal, signed
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hdl.isa import SCALE

__all__ = ["Multiplier", "carry_save_add"]


def carry_save_add(m, x, y, z, width, carry_in=0):
    """x + y + z + carry_in (mod 2**width; carry_in one bit) as one 3:2 carry-save layer and
    one carry-propagate adder.

    Yosys would otherwise chain two carry chains; the CSA layer costs one LUT per bit, and the
    carry vector's empty bit 0 takes ``carry_in`` for free.
    """
    sum_bits = Signal(width)
    carry_bits = Signal(width)
    m.d.comb += [
        sum_bits.eq(x ^ y ^ z),
        carry_bits.eq(Cat(carry_in, ((x & y) | (x & z) | (y & z))[:width - 1])),
    ]
    return (sum_bits + carry_bits)[:width]


class Multiplier(wiring.Component):
    """``P = ±(|a| * |b|) >> (SCALE if scaled else 0)`` as 64-bit two's complement.

    Ports: ``i_valid, i_a[32], i_b[32], i_scaled, i_tag[tag_width]`` in;
    ``o_valid, o_p[64], o_tag[tag_width]`` out, LATENCY cycles later.
    """

    LATENCY = 3

    def __init__(self, tag_width=0):
        self.tag_width = tag_width
        self.latency = self.LATENCY
        super().__init__({
            "i_valid": In(1), "i_a": In(32), "i_b": In(32), "i_scaled": In(1),
            "i_tag": In(tag_width),
            "o_valid": Out(1), "o_p": Out(64), "o_tag": Out(tag_width),
        })

    def elaborate(self, platform):
        m = Module()
        stages = self.LATENCY

        # control that travels with the data: valid (reset), tag, "round up", scaled (no reset)
        valid = [Signal(name=f"valid{s}") for s in range(1, stages + 1)]
        tag = [Signal(self.tag_width, name=f"tag{s}", reset_less=True)
               for s in range(1, stages + 1)]
        scaled = [Signal(name=f"scaled{s}", reset_less=True) for s in range(1, stages)]
        round_up = [Signal(name=f"round_up{s}", reset_less=True) for s in range(1, stages)]
        m.d.sync += [
            valid[0].eq(self.i_valid), tag[0].eq(self.i_tag), scaled[0].eq(self.i_scaled),
            # a scaled product that may be negative is biased to round toward zero
            round_up[0].eq(self.i_scaled & (self.i_a[31] ^ self.i_b[31])),
        ]
        for s in range(1, stages):
            m.d.sync += [valid[s].eq(valid[s - 1]), tag[s].eq(tag[s - 1])]
        for s in range(1, stages - 1):
            m.d.sync += [scaled[s].eq(scaled[s - 1]), round_up[s].eq(round_up[s - 1])]

        # stage 1: the operands
        a = Signal(32, reset_less=True)
        b = Signal(32, reset_less=True)
        m.d.sync += [a.eq(self.i_a), b.eq(self.i_b)]

        # stage 2: one DSP per 16x16 partial product (high halves signed, low halves unsigned)
        a_lo, a_hi = a[:16], a[16:].as_signed()
        b_lo, b_hi = b[:16], b[16:].as_signed()
        pp_ll = Signal(32, reset_less=True)
        pp_lh = Signal(signed(33), reset_less=True)
        pp_hl = Signal(signed(33), reset_less=True)
        pp_hh = Signal(signed(32), reset_less=True)
        m.d.sync += [
            pp_ll.eq(a_lo * b_lo), pp_lh.eq(a_lo * b_hi),
            pp_hl.eq(a_hi * b_lo), pp_hh.eq(a_hi * b_hi),
        ]

        # stage 3: the sum with the rounding bias, then the scale (wiring)
        bias_half = Mux(round_up[-1], 0xFFFF, 0)
        product = Signal(64)
        m.d.comb += product.eq(carry_save_add(
            m, Cat(pp_ll, pp_hh), Cat(bias_half, pp_lh, pp_lh[-1].replicate(15)),
            Cat(bias_half, pp_hl, pp_hl[-1].replicate(15)), 64, carry_in=round_up[-1]))
        p = Signal(64, reset_less=True)
        m.d.sync += p.eq(Mux(scaled[-1], product.as_signed() >> SCALE, product))

        m.d.comb += [self.o_valid.eq(valid[-1]), self.o_tag.eq(tag[-1]), self.o_p.eq(p)]
        return m
