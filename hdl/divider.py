"""Pipelined fixed-point divider for one lane (theia-isa.md §4 ``div``, ``sim.fixed.div``).

``q = floor((|a| << 17) / |b|)`` keeping bits 30:0, ``0x0FFF_FFFF`` when b = 0, negated when exactly
one operand is negative. The dividend N = |a| << 17 has 49 bits, so restoring long division takes
49 steps (quotient bits 48..0), one compare-subtract each. Only quotient bits 30..0 survive, but the
steps for bits 48..31 are still needed: they produce the remainder (|a| >> 14) mod |b| the later
steps continue from. Exact tricks that keep those first steps cheap:

* Before step i the partial remainder is below min(|b|, 2**(48 - i)), so step i compares a
  (49 - i)-bit number: the first 18 steps use 1..18-bit subtractors plus "is |b| wider than
  that" (an OR of the divisor's high bits) instead of 33-bit ones; no step needs more than 33 bits
  because the remainder is always below |b| <= 2**31. Those ORs (of up to 31 bits: three LUT
  levels) are worked out a stage ahead and registered (``wider<width>``): in the step they were
  in front of the remainder's select, and the narrow stages held the routed 4-core top's worst
  divider paths.
* The low 17 dividend bits are zero, so nothing but the unconsumed bits of |a| travel down the
  pipe; quotient bits 48..31 are never stored, bits 30..0 enter as the dividend bits leave.
* b = 0 needs no special path: every step then "fits"; the last division stage registers
  "b = 0" (one bit instead of the divisor) and the output stage picks 0x0FFF_FFFF.

Per pipeline register: divisor (32) + partial remainder (<= 31) + unconsumed |a| bits and kept
quotient bits (<= 32 together) + sign + valid + tag. Datapath registers have no reset.

``bits_per_stage`` (1 or 2, any k >= 1 works) quotient steps share one pipeline register.
LATENCY = 1 (magnitudes, plus the 49 mod k narrowest steps) + 49 // k (division stages)
+ 1 (b = 0 select and the sign) = **26 cycles for the default k = 2**, 51 for k = 1.

Default k = 2: the LUT count is the same for both (49 compare-subtract-select steps either way), but
k = 2 needs half the pipeline flip-flops (~1.9k instead of ~3.8k per lane; the ALU has three lanes
and several cores share one ECP5-85F) for a critical path of two chained <= 33-bit
subtract-and-select steps, which is still comfortable at 75 MHz on ECP5. Measured for one lane
with k = 2 (Yosys synth_ecp5, nextpnr-ecp5 out of context, LFE5U-85F speed 6): 1.4k LUT4 + 620
CCU2C, 1.9k FF (+ 26 per tag bit), ~100 MHz.
"""

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hdl.isa import SCALE
from hdl.pipeline import register_stage

__all__ = ["Divider", "divider_latency"]

DIVIDEND_BITS = 32 + SCALE          # N = |a| << SCALE, |a| <= 2**31
KEPT_QUOTIENT_BITS = 31             # q mod 2**32 with bit 31 cleared
DIVIDE_BY_ZERO = 0x0FFF_FFFF


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

        def wider_flags(divisor, steps):
            """``wider<w>``: |b| has a bit at w or above, for the steps of ``steps`` comparing
            w < 32 bits (the cycle before they need it)."""
            return {f"wider{width_of(i)}": divisor[width_of(i):].any()
                    for i in steps if width_of(i) < 32}

        def step(state, i):
            """Restoring-division step for quotient bit i (48 .. 0)."""
            rem, divisor = state["rem"], state["divisor"]
            width = len(rem) + 1                 # the shifted remainder's width
            assert width == width_of(i)
            if i >= SCALE:
                a_rest = state["a_rest"]         # |a| bits i-17 .. 0; the top one comes in now
                shifted = Cat(a_rest[-1], rem)
                state["a_rest"] = a_rest[:-1]
            else:
                shifted = Cat(Const(0, 1), rem)
            difference = Signal(width + 1, name=f"diff{i}")
            m.d.comb += difference.eq(shifted - divisor[:width])
            fits = ~difference[width]
            if width < 32:
                fits &= ~state.pop(f"wider{width}")
            new_rem = Signal(min(width, 31), name=f"rem{i}")
            m.d.comb += new_rem.eq(Mux(fits, difference[:width], shifted))
            state["rem"] = new_rem
            if i < KEPT_QUOTIENT_BITS:
                state["quotient"] = Cat(fits, state["quotient"])
            return state

        steps = list(range(DIVIDEND_BITS - 1, -1, -1))
        head, steps = steps[:len(steps) % k], steps[len(steps) % k:]
        groups = [steps[g:g + k] for g in range(0, len(steps), k)]

        # stage 1: magnitudes, and the narrowest steps when 49 is not a multiple of k
        a, b = self.i_a, self.i_b
        state = {
            "valid": self.i_valid, "tag": self.i_tag,
            "negative": a[31] ^ b[31],
            "divisor": Mux(b[31], -b, b)[:32],
            "a_rest": Mux(a[31], -a, a)[:32],
            "rem": Const(0, 0),
            "quotient": Const(0, 0),
        }
        state.update(wider_flags(state["divisor"], head + groups[0]))
        for i in head:
            state = step(state, i)
        stage = 1
        state = register(stage, **state)

        for n, group in enumerate(groups):
            for i in group:
                state = step(state, i)
            if n + 1 < len(groups):
                state.update(wider_flags(state["divisor"], groups[n + 1]))
            stage += 1
            # the remainder is dead after the last step and so are the consumed |a| bits; the
            # output stage needs only "b = 0" (1 flip-flop, and off its critical path)
            if n + 1 == len(groups):
                del state["rem"]
                state["divide_by_zero"] = state.pop("divisor") == 0
            if len(state["a_rest"]) == 0:
                del state["a_rest"]
            state = register(stage, **state)
            if "a_rest" not in state:
                state["a_rest"] = Const(0, 0)

        quotient = Mux(state["divide_by_zero"], DIVIDE_BY_ZERO, state["quotient"])
        out = register(stage + 1, valid=state["valid"], tag=state["tag"],
                       q=Mux(state["negative"], -quotient, quotient)[:32])
        assert stage + 1 == self.latency
        m.d.comb += [self.o_valid.eq(out["valid"]), self.o_tag.eq(out["tag"]),
                     self.o_q.eq(out["q"])]
        return m
