"""Pipelined square root of the MAG unit (theia-isa.md §4 ``sqrt``, ``sim.fixed.sqrt``).

Input: s, the non-negative sum of three 64-bit products, below 3 * 2**45 (S_WIDTH = 47 bits).
Output: floor(sqrt(s << 17)) saturated to 0x7FFF_FFFF.

Digit-by-digit (restoring) integer square root, one result bit per step: root bit j comes from
comparing the partial remainder, with the next two radicand bits shifted in, against
4 * root + 1. Exact shortcuts:

* The root reaches 2**31 exactly when s >= 2**45, and floor(sqrt((2**45 - 1) << 17)) is
  0x7FFF_FFFF, so saturation is done by clamping s to 2**45 - 1 at the input: 31 steps (root bits
  30..0) and no saturation flag down the pipe.
* The remainder is at most 2 * root, so step j uses a (33 - j)-bit subtractor (2 bits for the first,
  33 for the last), and the radicand's low 17 bits are zeros that are never stored.

``bits_per_stage`` steps share one pipeline register (default 1: the sqrt is one per ALU, so
its ~1.5k flip-flops matter less than the dividers'; bits_per_stage = 2 halves them, ~0.77k,
for the same LUTs and two chained <= 33-bit steps per cycle).
LATENCY = ceil(31 / bits_per_stage) cycles: 31 for the default, 16 for bits_per_stage = 2.
One new operation every cycle, never stalls. Datapath registers have no reset.
"""

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hdl.isa import SCALE
from hdl.lib.pipeline import register_stage

__all__ = ["SquareRoot", "sqrt_latency", "S_WIDTH"]

S_WIDTH = 47                     # 3 * 2**45 > s >= 0
CLAMP_BITS = 45                  # s >= 2**45 <=> the root saturates
ROOT_BITS = (CLAMP_BITS + SCALE) // 2      # 31


def sqrt_latency(bits_per_stage):
    return -(-ROOT_BITS // bits_per_stage)


class SquareRoot(wiring.Component):
    """Ports: ``i_valid, i_s[47], i_tag[tag_width]`` in; ``o_valid, o_root[32],
    o_tag[tag_width]`` out, ``latency`` cycles later."""

    def __init__(self, tag_width=0, bits_per_stage=1):
        if bits_per_stage < 1:
            raise ValueError(f"bits_per_stage must be >= 1, not {bits_per_stage}")
        self.tag_width = tag_width
        self.bits_per_stage = bits_per_stage
        self.latency = sqrt_latency(bits_per_stage)
        super().__init__({
            "i_valid": In(1), "i_s": In(S_WIDTH), "i_tag": In(tag_width),
            "o_valid": Out(1), "o_root": Out(32), "o_tag": Out(tag_width),
        })

    def elaborate(self, platform):
        m = Module()
        k = self.bits_per_stage

        def register(stage, **values):
            return register_stage(m, stage, values)

        # radicand M = s << 17: bit pair j is M[2j+1:2j]; pairs 7..0 are zero, pair 8 is s[0], 0
        def pair(state, j):
            lo, hi = 2 * j - SCALE, 2 * j + 1 - SCALE
            bits = []
            for b in (lo, hi):
                if b < 0:
                    bits.append(Const(0, 1))
                else:
                    assert b == len(state["s_rest"]) - 1 - (hi - b)  # the top bits go first
                    bits.append(state["s_rest"][b])
            state["s_rest"] = state["s_rest"][:max(lo, 0)]
            return Cat(*bits)

        def step(state, j):
            rem, root = state["rem"], state["root"]
            shifted = Cat(pair(state, j), rem)                   # 4 * rem + pair
            trial = Cat(Const(1, 2), root)                       # 4 * root + 1
            width = max(len(shifted), len(trial))
            difference = Signal(width + 1, name=f"diff{j}")
            m.d.comb += difference.eq(shifted - trial)
            fits = ~difference[width]
            new_rem = Signal(len(root) + 2, name=f"rem{j}")     # rem <= 2 * root
            m.d.comb += new_rem.eq(Mux(fits, difference, shifted))
            state["rem"] = new_rem
            state["root"] = Cat(fits, root)
            return state

        clamp = self.i_s[CLAMP_BITS:].any()
        state = {
            "valid": self.i_valid, "tag": self.i_tag,
            "s_rest": self.i_s[:CLAMP_BITS] | Mux(clamp, (1 << CLAMP_BITS) - 1, 0),
            "rem": Const(0, 0), "root": Const(0, 0),
        }
        steps = list(range(ROOT_BITS - 1, -1, -1))
        stage = 0
        for group in range(0, len(steps), k):
            for j in steps[group:group + k]:
                state = step(state, j)
            stage += 1
            last = group + k >= len(steps)
            if last:
                del state["rem"]
            state = register(stage, **state)
        assert stage == self.latency
        m.d.comb += [self.o_valid.eq(state["valid"]), self.o_tag.eq(state["tag"]),
                     self.o_root.eq(state["root"])]
        return m
