"""Pipelined sign-magnitude 32x32 multiplier (theia-isa.md §4 ``mul``/``imul``).

Computes ``sim.fixed.mul64(a, b)`` when ``scaled`` is 1 and ``sim.fixed.imul64(a, b)`` when it is
0: the 64-bit two's complement value of ``±(|a| * |b|) >> (17 if scaled else 0)``, negated when
exactly one operand is negative (so it rounds toward zero).

Pipeline, LATENCY = 4 cycles, one new operation every cycle, never stalls:

1. magnitudes |a|, |b| and the result sign (a 32-bit negate each);
2. four 16x16 unsigned partial products, each one ECP5 MULT18X18D (Yosys ``mul2dsp`` maps a
   16x16 ``*`` onto one DSP); registered right after the DSP so no adder follows it in the
   same cycle;
3. the three-term sum of the partial products (carry-save layer + one 64-bit adder);
4. the optional ``>> SCALE`` (wiring) and the conditional negate (one 64-bit adder).

``o_valid``/``o_tag`` are ``i_valid``/``i_tag`` delayed by LATENCY cycles. Datapath registers have
no reset (only ``valid`` does): the result is defined whenever ``o_valid`` is.

Measured (Yosys synth_ecp5, nextpnr-ecp5 out of context, LFE5U-85F speed 6): 4 MULT18X18D,
254 LUT4 + 88 CCU2C, 346 FF + 4 per tag bit, ~135 MHz.
"""

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hdl.isa import SCALE

__all__ = ["Multiplier", "carry_save_add"]


def carry_save_add(m, x, y, z, width):
    """x + y + z (mod 2**width) as one 3:2 carry-save layer and one carry-propagate adder.

    Yosys would otherwise chain two carry chains; the CSA layer costs one LUT per bit.
    """
    sum_bits = Signal(width)
    carry_bits = Signal(width)
    m.d.comb += [
        sum_bits.eq(x ^ y ^ z),
        carry_bits.eq(Cat(0, ((x & y) | (x & z) | (y & z))[:width - 1])),
    ]
    return (sum_bits + carry_bits)[:width]


class Multiplier(wiring.Component):
    """``P = ±(|a| * |b|) >> (SCALE if scaled else 0)`` as 64-bit two's complement.

    Ports: ``i_valid, i_a[32], i_b[32], i_scaled, i_tag[tag_width]`` in;
    ``o_valid, o_p[64], o_tag[tag_width]`` out, LATENCY cycles later.
    """

    LATENCY = 4

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

        # control that travels with the data: valid (reset), tag, sign, scaled (no reset)
        valid = [Signal(name=f"valid{s}") for s in range(1, 5)]
        tag = [Signal(self.tag_width, name=f"tag{s}", reset_less=True) for s in range(1, 5)]
        negative = [Signal(name=f"negative{s}", reset_less=True) for s in range(1, 4)]
        scaled = [Signal(name=f"scaled{s}", reset_less=True) for s in range(1, 4)]
        m.d.sync += [
            valid[0].eq(self.i_valid), tag[0].eq(self.i_tag),
            negative[0].eq(self.i_a[31] ^ self.i_b[31]), scaled[0].eq(self.i_scaled),
        ]
        for s in range(1, 4):
            m.d.sync += [valid[s].eq(valid[s - 1]), tag[s].eq(tag[s - 1])]
        for s in range(1, 3):
            m.d.sync += [negative[s].eq(negative[s - 1]), scaled[s].eq(scaled[s - 1])]

        # stage 1: magnitudes (|0x80000000| = 0x80000000 falls out of the 32-bit negate)
        mag_a = Signal(32, reset_less=True)
        mag_b = Signal(32, reset_less=True)
        m.d.sync += [
            mag_a.eq(Mux(self.i_a[31], -self.i_a, self.i_a)),
            mag_b.eq(Mux(self.i_b[31], -self.i_b, self.i_b)),
        ]

        # stage 2: one DSP per 16x16 partial product
        a_lo, a_hi = mag_a[:16], mag_a[16:]
        b_lo, b_hi = mag_b[:16], mag_b[16:]
        pp_ll = Signal(32, reset_less=True)
        pp_lh = Signal(32, reset_less=True)
        pp_hl = Signal(32, reset_less=True)
        pp_hh = Signal(32, reset_less=True)
        m.d.sync += [
            pp_ll.eq(a_lo * b_lo), pp_lh.eq(a_lo * b_hi),
            pp_hl.eq(a_hi * b_lo), pp_hh.eq(a_hi * b_hi),
        ]

        # stage 3: |a|*|b| = ll + hh<<32 (no overlap: a concatenation) + lh<<16 + hl<<16
        product = Signal(64, reset_less=True)
        m.d.sync += product.eq(carry_save_add(
            m, Cat(pp_ll, pp_hh), Cat(Const(0, 16), pp_lh), Cat(Const(0, 16), pp_hl), 64))

        # stage 4: truncate (toward zero, before the sign) and apply the sign
        magnitude = Mux(scaled[2], product >> SCALE, product)
        p = Signal(64, reset_less=True)
        m.d.sync += p.eq(Mux(negative[2], -magnitude, magnitude))

        m.d.comb += [self.o_valid.eq(valid[3]), self.o_tag.eq(tag[3]), self.o_p.eq(p)]
        return m
