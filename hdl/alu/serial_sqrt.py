"""MAG's square root, one root bit per cycle (theia-isa.md §4 ``sqrt``, ``sim.fixed.sqrt``).

The same digit-by-digit algorithm as hdl/alu/sqrt.py (read its docstring for the shortcuts: the input
clamped to 2**45 - 1 instead of a saturation flag, the radicand's 17 low zero bits never stored),
but one step circuit used 31 times instead of 31 pipelined step circuits, for one operation
at a time. Yosys synth_ecp5 in the 1-core board top: 153 LUT4 + 20 CCU2C, 112 FF (the pipelined
one: 554 LUT4 + 292 CCU2C, 1,499 FF).

LATENCY = 31 cycles, the pipelined unit's (``bits_per_stage=1``): the first step works on the
inputs in the cycle they arrive, the other 30 on the state, and ``o_valid`` follows the last.
A new operation may arrive in the cycle ``o_valid`` is high, i.e. BUSY_CYCLES = 30 cycles after
the previous one: its issuer keeps them apart (the vector ALU's ``mag_ready``); one arriving
earlier raises ``overrun`` (sticky) and the result is undefined.
"""

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hdl.alu.sqrt import S_WIDTH, CLAMP_BITS, ROOT_BITS

__all__ = ["SerialSquareRoot"]

# The radicand's bit pairs, top first, come from a 46-bit shift register holding s << 1: pair j
# (bits 2j+1, 2j of s << 17) is its bits 2j-15, 2j-16, so the top pair is bits 45, 44 and the
# pairs below the radicand's lowest stored bit shift in as zeros.
_PAIRS_BITS = CLAMP_BITS + 1
# rem <= 2 * root; a remainder is kept only for a next step, whose root has at most 30 bits
_REM_BITS = ROOT_BITS


class SerialSquareRoot(wiring.Component):
    """Ports: ``i_valid, i_s[47], i_tag[tag_width]`` in; ``o_valid, o_root[32], o_tag[tag_width],
    overrun`` out."""

    LATENCY = ROOT_BITS
    BUSY_CYCLES = ROOT_BITS - 1

    def __init__(self, tag_width=0):
        self.tag_width = tag_width
        self.latency = self.LATENCY
        super().__init__({
            "i_valid": In(1), "i_s": In(S_WIDTH), "i_tag": In(tag_width),
            "o_valid": Out(1), "o_root": Out(32), "o_tag": Out(tag_width), "overrun": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        pairs = Signal(_PAIRS_BITS, reset_less=True)
        rem = Signal(_REM_BITS, reset_less=True)
        root = Signal(ROOT_BITS, reset_less=True)
        tag = Signal(self.tag_width, reset_less=True)
        steps_left = Signal(range(ROOT_BITS))        # steps after this cycle's
        done = Signal()

        load = self.i_valid
        clamp = self.i_s[CLAMP_BITS:].any()
        radicand = self.i_s[:CLAMP_BITS] | Mux(clamp, (1 << CLAMP_BITS) - 1, 0)
        # this cycle's step works on the inputs when an operation arrives, else on the state
        cur_pairs = Mux(load, Cat(Const(0, 1), radicand), pairs)
        cur_rem = Mux(load, 0, rem)
        cur_root = Mux(load, 0, root)
        shifted = Cat(cur_pairs[-2:], cur_rem)               # 4 * rem + pair
        trial = Cat(Const(1, 2), cur_root)                   # 4 * root + 1
        difference = Signal(len(shifted) + 1)
        m.d.comb += difference.eq(shifted - trial)
        fits = ~difference[-1]

        with m.If(load | (steps_left != 0)):
            m.d.sync += [
                pairs.eq(Cat(Const(0, 2), cur_pairs[:-2])),
                rem.eq(Mux(fits, difference, shifted)[:_REM_BITS]),
                root.eq(Cat(fits, cur_root[:-1])),
                steps_left.eq(Mux(load, ROOT_BITS - 1, steps_left - 1)),
            ]
        with m.If(load):
            m.d.sync += tag.eq(self.i_tag)
            with m.If(steps_left != 0):
                m.d.sync += self.overrun.eq(1)
        m.d.sync += done.eq(~load & (steps_left == 1))
        m.d.comb += [self.o_valid.eq(done), self.o_root.eq(root), self.o_tag.eq(tag)]
        return m
