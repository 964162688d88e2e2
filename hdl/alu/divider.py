"""Pipelined fixed-point divider for one lane (theia-isa.md §4 ``div``, ``sim.fixed.div``).

``q = floor((|a| << 17) / |b|)`` keeping bits 30:0, ``0x0FFF_FFFF`` when b = 0, negated when exactly
one operand is negative. The dividend N = |a| << 17 has 49 bits, so long division takes 49 steps
(quotient bits 48..0). Only quotient bits 30..0 survive, but the steps for bits 48..31 are still
needed: they produce the remainder (|a| >> 14) mod |b| the later steps continue from.

Two kinds of step, each exact:

* **Restoring** (the first ``RESTORING_WIDTH`` = 10 steps, i = 48 .. 39): before step i the
  partial remainder is below min(|b|, 2**(48 - i)), so step i compares a (49 - i)-bit number:
  a 1..10-bit subtractor plus "is |b| wider than that" (worked out from b in the first stage
  and carried to the step, ``wider<width>``), and the remainder is the difference when it
  fits, the shifted remainder when not (a multiplexer).
* **Non-restoring** (the other 39 steps, full width): the remainder r may be negative,
  -|b| <= r < |b| (32 bits signed, since |b| <= 2**31); the step computes 2r + bit - |b| when
  r >= 0 and 2r + bit + |b| when r < 0, one 33-bit adder whose add/subtract control is r's sign
  (``hdl.lib.arith.add_sub``: on ECP5 one carry chain with the control on its LUTs, no
  multiplexer; a stage of two steps is two carry chains back to back). The pipe carries -|b|,
  so that the control is the sign itself. The new r is the restoring step's trial difference,
  whatever r's sign was, so the quotient bit is "r >= 0" and no correction follows (the bits
  are kept inverted, "the step did not fit": the sign as the chain leaves it).

The low 17 dividend bits are zero, so nothing but the unconsumed bits of |a| travel down the pipe;
quotient bits 48..31 are never stored, bits 30..0 enter as the dividend bits leave. b = 0 needs no
special path: the quotient bits are then meaningless, the last division stage registers "b = 0"
(one bit instead of the divisor) and the output stage picks 0x0FFF_FFFF.

Per pipeline register: -|b| (33) + partial remainder (<= 32) + unconsumed |a| bits and kept
quotient bits (<= 32 together) + the restoring steps' "wider" flags still due + sign + valid +
tag. Datapath registers have no reset.

``bits_per_stage`` (1 or 2, any k >= 1 works) quotient steps share one pipeline register.
LATENCY = 1 (magnitudes, plus the 49 mod k first steps) + 49 // k (division stages)
+ 1 (b = 0 select and the sign) = **26 cycles for the default k = 2**, 51 for k = 1.
Yosys synth_ecp5 of one lane, k = 2: 289 LUT4 + 734 CCU2C, 2.0k FF, the longest stage 7.5 ns
in ``bench.paths``' estimate. With all 49 steps restoring it would be 1,297 LUT4 + 620 CCU2C,
1.9k FF and 10.0 ns a stage: too long for the 4-core board top at 75 MHz (13.3 ns), where a
stage's cells are placed apart and its routes add several ns.
"""

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hdl.lib.arith import add_sub
from hdl.isa import SCALE
from hdl.lib.pipeline import register_stage

__all__ = ["Divider", "divider_latency", "RESTORING_WIDTH"]

DIVIDEND_BITS = 32 + SCALE          # N = |a| << SCALE, |a| <= 2**31
KEPT_QUOTIENT_BITS = 31             # q mod 2**32 with bit 31 cleared
DIVIDE_BY_ZERO = 0x0FFF_FFFF
#: steps comparing at most this many bits are restoring (narrow and cheap); the rest are
#: non-restoring (full width, no multiplexer)
RESTORING_WIDTH = 10
REMAINDER_BITS = 32                 # a non-restoring remainder, signed: -2**31 <= r < 2**31


def magnitude_at_least(b, w):
    """|b| >= 2**w for a 32-bit two's complement ``b`` (0 < w < 32), without negating b: b's
    bits w..31 are not all equal to its sign, or (b < 0) its low w bits are 0 (b = -2**w)."""
    high = b[w:32]
    return Mux(b[31], ~high.all() | (b[:w] == 0), high.any())


def divider_latency(bits_per_stage):
    return 1 + DIVIDEND_BITS // bits_per_stage + 1


class Divider(wiring.Component):
    """One lane of DIV. Ports: ``i_valid, i_a[32], i_b[32], i_tag[tag_width]`` in;
    ``o_valid, o_q[32], o_tag[tag_width]`` out, ``latency`` cycles later."""

    def __init__(self, tag_width=0, bits_per_stage=2):
        if bits_per_stage < 1:
            raise ValueError(f"bits_per_stage must be >= 1, not {bits_per_stage}")
        self.tag_width = tag_width
        self.bits_per_stage = bits_per_stage
        self.latency = divider_latency(bits_per_stage)
        super().__init__({
            "i_valid": In(1), "i_a": In(32), "i_b": In(32), "i_tag": In(tag_width),
            "o_valid": Out(1), "o_q": Out(32), "o_tag": Out(tag_width),
        })

    def elaborate(self, platform):
        m = Module()
        k = self.bits_per_stage

        def register(stage, **values):
            return register_stage(m, stage, values)

        def width_of(i):
            """How many bits step i compares (the shifted remainder's width)."""
            return min(DIVIDEND_BITS - i, 32)

        def restoring(i):
            return width_of(i) <= RESTORING_WIDTH

        def next_bit(state, i):
            """The dividend bit step i brings in (|a|'s next bit, then zeros)."""
            if i < SCALE:
                return Const(0, 1)
            a_rest = state["a_rest"]             # |a| bits i-17 .. 0; the top one comes in now
            state["a_rest"] = a_rest[:-1]
            return a_rest[-1]

        def step(state, i):
            """The step for quotient bit i (48 .. 0). The pipe carries -|b| (``neg_divisor``,
            REMAINDER_BITS + 1 bits): a non-restoring step adds it or subtracts it as the
            remainder's sign says, with no inversion in between."""
            rem, neg_divisor = state["rem"], state["neg_divisor"]
            shifted = Cat(next_bit(state, i), rem)
            if restoring(i):
                width = width_of(i)
                assert len(shifted) == width
                # shifted - |b| in width + 1 bits (only meaningful when |b| < 2**width,
                # else ``wider`` says the step cannot fit)
                difference = Signal(width + 1, name=f"diff{i}")
                m.d.comb += difference.eq(shifted + neg_divisor[:width + 1])
                misses = difference[width] | state.pop(f"wider{width}")
                new_rem = Signal(width, name=f"rem{i}")
                m.d.comb += new_rem.eq(Mux(misses, shifted, difference[:width]))
                if not restoring(i - 1):         # the non-restoring steps take it signed
                    new_rem = Cat(new_rem, Const(0, REMAINDER_BITS - width))
            else:
                # 2 rem + bit - |b| when rem >= 0, + |b| when rem < 0, in one bit more
                total = add_sub(m, shifted.as_signed(), neg_divisor.as_signed(),
                                subtract=rem[-1], platform=platform, name=f"sum{i}")
                misses = total[-1]
                new_rem = total[:REMAINDER_BITS]
            state["rem"] = new_rem
            if i < KEPT_QUOTIENT_BITS:
                # the quotient bits are kept inverted ("the step did not fit": the sign of
                # the sum as it is, no inverter after the chain)
                state["not_quotient"] = Cat(misses, state["not_quotient"])
            return state

        steps = list(range(DIVIDEND_BITS - 1, -1, -1))
        head, steps = steps[:len(steps) % k], steps[len(steps) % k:]
        groups = [steps[g:g + k] for g in range(0, len(steps), k)]

        # stage 1: magnitudes, "|b| has a bit at w or above" for every restoring step's width
        # w (``wider<w>``, carried to the step: three LUT levels in front of the remainder's
        # select otherwise), and the first steps when 49 is not a multiple of k
        a, b = self.i_a, self.i_b
        state = {
            "valid": self.i_valid, "tag": self.i_tag,
            "negative": a[31] ^ b[31],
            "neg_divisor": Mux(b[31], b.as_signed(), -b.as_signed())[:REMAINDER_BITS + 1],
            "a_rest": Mux(a[31], -a, a)[:32],
            "rem": Const(0, 0),
            "not_quotient": Const(0, 0),
        }
        state.update({f"wider{width_of(i)}": magnitude_at_least(b, width_of(i))
                      for i in range(DIVIDEND_BITS) if restoring(i)})
        for i in head:
            state = step(state, i)
        stage = 1
        state = register(stage, **state)

        for n, group in enumerate(groups):
            for i in group:
                state = step(state, i)
            stage += 1
            # the remainder is dead after the last step and so are the consumed |a| bits; the
            # output stage needs only "b = 0" (1 flip-flop, and off its critical path)
            if n + 1 == len(groups):
                del state["rem"]
                state["divide_by_zero"] = state.pop("neg_divisor") == 0
            if len(state["a_rest"]) == 0:
                del state["a_rest"]
            state = register(stage, **state)
            if "a_rest" not in state:
                state["a_rest"] = Const(0, 0)

        quotient = Mux(state["divide_by_zero"], DIVIDE_BY_ZERO, ~state["not_quotient"])
        out = register(stage + 1, valid=state["valid"], tag=state["tag"],
                       q=Mux(state["negative"], -quotient, quotient)[:32])
        assert stage + 1 == self.latency
        m.d.comb += [self.o_valid.eq(out["valid"]), self.o_tag.eq(out["tag"]),
                     self.o_q.eq(out["q"])]
        return m
