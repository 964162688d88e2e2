"""The vector ALU's multipliers and what is made of their products: MULTIPLY (MUL, IMUL, MULP),
PRODUCT_SUM (DOT), CROSS, and MAG's radicand.

Lanes x, y, z use multipliers 0, 1, 2 for MUL/IMUL/DOT/MAG (MULP uses 2 only); CROSS needs two
products per lane: with ``cross_passes=1`` multipliers 3, 4, 5 supply the subtrahends; with
``cross_passes=2`` multipliers 0, 1, 2 make them in the cycle after the minuends (half the
DSP blocks: on the ECP5 a core's 24 MULT18X18D spread it along half a DSP row), and
``mul_ready`` is low in that cycle (the issuer must not send MULTIPLIER_OPS then).

Latencies: MULTIPLY ``Multiplier.LATENCY`` = 3; DOT one more (a stage adds the three 64-bit
products as a carry-save sum and takes ``fix``); CROSS ``Multiplier.LATENCY + cross_passes``
(the same stage subtracts each lane's two products); the radicand of a MAG (the sum of the
squares) leaves with DOT's timing, for the square root. The products are at most 2**45 in
magnitude (scaled), so the sum stage works on 48 bits: exact for ``fix`` (the sign is bit 47)
and for the radicand (below 3 * 2**45).
"""

from amaranth import Cat, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hdl.alu.classes import OpClass
from hdl.alu.multiplier import Multiplier, carry_save_add
from hdl.alu.simple import fix_of
from hdl.alu.sqrt import S_WIDTH
from hdl.isa import LANES, VectorLayout

__all__ = ["ProductUnit", "SUM_WIDTH"]

SUM_WIDTH = 48


def _tag_flags(multiply=0, mulp=0, cross=0, dot=0, mag=0, second=0):
    """What multiplier 0 carries beside the tag: which operation its products are."""
    return Cat(multiply, mulp, cross, dot, mag, second)


class ProductUnit(wiring.Component):
    """Ports: ``i_valid`` (a MULTIPLIER_OPS operation issues), ``i_class``, ``i_a``, ``i_b``,
    ``i_tag``; out the MULTIPLY and PRODUCT_SUM/CROSS results (``o_multiply*``, ``o_sum*``:
    valid, lanes, tag), MAG's radicand for the square root (``o_radicand*``), ``mul_ready``, ``collision`` (sticky: an
    operation sent while ``mul_ready`` was low)."""

    def __init__(self, cross_passes, tag_width=0):
        self.cross_passes = cross_passes
        self.tag_width = tag_width
        super().__init__({
            "i_valid": In(1), "i_class": In(OpClass), "i_a": In(VectorLayout),
            "i_b": In(VectorLayout), "i_tag": In(tag_width),
            "o_multiply_valid": Out(1), "o_multiply": Out(VectorLayout),
            "o_multiply_tag": Out(tag_width),
            "o_sum_valid": Out(1), "o_sum": Out(VectorLayout), "o_sum_tag": Out(tag_width),
            "o_radicand_valid": Out(1), "o_radicand": Out(S_WIDTH),
            "o_radicand_tag": Out(tag_width),
            "mul_ready": Out(1), "collision": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        cls = self.i_class
        two_pass = self.cross_passes == 2
        second = Signal()                   # the subtrahends' pass of a two-pass CROSS
        flags = _tag_flags(cls.multiply, cls.mulp, cls.cross, cls.dot, cls.mag, second)
        multipliers = []
        for n in range(3 if two_pass else 6):
            mul = Multiplier(tag_width=self.tag_width + len(flags) if n == 0 else 0)
            m.submodules[f"multiplier{n}"] = mul
            multipliers.append(mul)
        multiply_issue = self.i_valid
        cross_issue = self.i_valid & cls.cross
        a_lanes = [self.i_a.x, self.i_a.y, self.i_a.z]
        b_lanes = [self.i_b.x, self.i_b.y, self.i_b.z]
        ax, ay, az = a_lanes
        bx, by, bz = b_lanes
        subtrahends = [(az, by), (ax, bz), (ay, bx)]
        lane_inputs = []
        # (default operands, CROSS operands); MAG squares a; MULP is ax * ay on lane z
        for lane, (cross_a, cross_b) in enumerate([(ay, bz), (az, bx), (ax, by)]):
            a_in = Mux(cls.cross, cross_a, a_lanes[lane])
            b_in = Mux(cls.cross, cross_b, Mux(cls.mag, a_lanes[lane], b_lanes[lane]))
            if lane == 2:                       # MULP: ax * ay, lane z only
                a_in = Mux(cls.mulp, ax, a_in)
                b_in = Mux(cls.mulp, ay, b_in)
            lane_inputs.append((a_in, b_in, ~cls.unscaled))
        if two_pass:
            self._second_pass(m, multipliers, lane_inputs, subtrahends, second, flags,
                              multiply_issue, cross_issue)
        else:
            m.d.comb += self.mul_ready.eq(1)
            for mul, (a_in, b_in, scaled) in zip(multipliers, lane_inputs):
                m.d.comb += [mul.i_a.eq(a_in), mul.i_b.eq(b_in), mul.i_scaled.eq(scaled)]
            for mul, (sub_a, sub_b) in zip(multipliers[3:], subtrahends):
                m.d.comb += [mul.i_valid.eq(cross_issue), mul.i_a.eq(sub_a),
                             mul.i_b.eq(sub_b), mul.i_scaled.eq(1)]
            m.d.comb += [multipliers[0].i_tag.eq(Cat(self.i_tag, flags)),
                         multipliers[0].i_valid.eq(multiply_issue)]
        self._results(m, multipliers, two_pass)
        return m

    def _second_pass(self, m, multipliers, lane_inputs, subtrahends, second, flags,
                     multiply_issue, cross_issue):
        """CROSS on three multipliers: the subtrahends wait a cycle in registers; meanwhile
        nothing else may use the multipliers (``mul_ready``, a flip-flop: it feeds the core's
        issue decision)."""
        held = [(Signal(32, name=f"cross_{LANES[n]}_a", reset_less=True),
                 Signal(32, name=f"cross_{LANES[n]}_b", reset_less=True)) for n in range(3)]
        held_tag = Signal(self.tag_width, reset_less=True)
        # loaded in every cycle a CROSS is offered, issued or not (the enable then comes from
        # the opcode's register, not from the issue decision: ~200 flip-flops), and so last
        # in the cycle it issues
        with m.If(self.i_class.cross):
            m.d.sync += [h.eq(v) for pair, sub in zip(held, subtrahends)
                         for h, v in zip(pair, sub)]
            m.d.sync += held_tag.eq(self.i_tag)
        m.d.sync += second.eq(cross_issue)
        # mul_ready = ~second, a flip-flop of its own: ``second`` also picks the ~200
        # multiplier operands, and that fan-out's route would sit in front of the core's issue
        # decision (stored inverted, so that synthesis does not merge the two)
        mul_ready = Signal(init=1)
        m.d.sync += mul_ready.eq(~cross_issue)
        m.d.comb += self.mul_ready.eq(mul_ready)
        with m.If(second & multiply_issue):
            m.d.sync += self.collision.eq(1)
        for mul, (a_in, b_in, scaled), (held_a, held_b) in zip(multipliers, lane_inputs, held):
            m.d.comb += [mul.i_a.eq(Mux(second, held_a, a_in)),
                         mul.i_b.eq(Mux(second, held_b, b_in)),
                         mul.i_scaled.eq(second | scaled)]
        m.d.comb += [
            multipliers[0].i_tag.eq(Mux(second, Cat(held_tag, _tag_flags(cross=1, second=1)),
                                        Cat(self.i_tag, flags))),
            multipliers[0].i_valid.eq(multiply_issue | second),
        ]

    def _results(self, m, multipliers, two_pass):
        """MULTIPLY's low words; the sum stage: DOT, CROSS and the MAG radicand."""
        mul_tag = multipliers[0].o_tag[:self.tag_width]
        (out_multiply, out_mulp, out_cross, out_dot, out_mag, out_second) = \
            multipliers[0].o_tag[self.tag_width:]
        products = [mul.o_p for mul in multipliers]
        m.d.comb += [self.o_multiply_valid.eq(multipliers[0].o_valid & out_multiply),
                     self.o_multiply_tag.eq(mul_tag),
                     self.o_multiply.x.eq(Mux(out_mulp, 0, products[0][:32])),
                     self.o_multiply.y.eq(Mux(out_mulp, 0, products[1][:32])),
                     self.o_multiply.z.eq(products[2][:32])]

        wide = [p[:SUM_WIDTH] for p in products]
        dot_sum = Signal(SUM_WIDTH, name="dot_sum")
        m.d.comb += dot_sum.eq(carry_save_add(m, wide[0], wide[1], wide[2], SUM_WIDTH))
        if two_pass:
            # the minuends come out a cycle before the subtrahends: kept for that cycle
            minuends = [Signal(SUM_WIDTH, name=f"minuend_{n}", reset_less=True) for n in LANES]
            m.d.sync += [kept.eq(w) for kept, w in zip(minuends, wide)]
            cross_pairs = list(zip(minuends, wide))
            cross_done = out_cross & out_second
        else:
            cross_pairs = list(zip(wide, wide[3:]))
            cross_done = out_cross
        sum_valid = Signal()
        sum_is_mag = Signal(reset_less=True)
        sum_tag = Signal(self.tag_width, reset_less=True)
        radicand = Signal(S_WIDTH, reset_less=True)
        m.d.sync += [
            sum_valid.eq(multipliers[0].o_valid & (cross_done | out_dot | out_mag)),
            sum_is_mag.eq(out_mag), sum_tag.eq(mul_tag),
            radicand.eq(dot_sum[:S_WIDTH]),
        ]
        for (minuend, subtrahend), name in zip(cross_pairs, LANES):
            difference = (minuend - subtrahend)[:SUM_WIDTH]
            lane = Signal(32, name=f"sum_{name}", reset_less=True)
            m.d.sync += lane.eq(Mux(out_cross, fix_of(difference, SUM_WIDTH - 1),
                                    fix_of(dot_sum, SUM_WIDTH - 1)))
            m.d.comb += getattr(self.o_sum, name).eq(lane)
        # (DOT and CROSS leave through the same register: their latencies differ, so the
        # issuer's write-port reservation keeps them apart)
        m.d.comb += [self.o_sum_valid.eq(sum_valid & ~sum_is_mag), self.o_sum_tag.eq(sum_tag),
                     self.o_radicand_valid.eq(sum_valid & sum_is_mag),
                     self.o_radicand.eq(radicand), self.o_radicand_tag.eq(sum_tag)]
