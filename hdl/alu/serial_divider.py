"""DIV for all three lanes on one pipelined divider (``hdl.alu.divider.Divider``).

A third of the logic of three lane dividers (each ~1.8k LUT4-equivalents and 2k flip-flops on
ECP5), for:

* **Uniform operands** (a.x = a.y = a.z and b.x = b.y = b.z, e.g. quotients of DOT results,
  every DIV of MAIN): one pass through the divider, the quotient goes to all three lanes. The
  divider takes another DIV in the next cycle.
* **Anything else**: lanes x, y, z enter in three consecutive cycles; ``o_ready`` is low for the
  two cycles after such a DIV (the issuer holds the next DIV back).

Latency (``i_valid`` to ``o_valid``) is the same for both: the divider's + 2, because lane z of
a three-pass DIV leaves two cycles after lane x. Lane x's quotient (or the broadcast one) waits
in a two-stage delay line, lane y's in the first stage of it.

Ports: in ``i_valid``, ``i_a``, ``i_b`` (VectorLayout), ``i_tag[tag_width]``; out ``o_ready``
(a DIV may enter in this cycle), ``o_valid``, ``o_q`` (VectorLayout), ``o_tag``.
"""

from amaranth import Cat, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hdl.alu.divider import Divider, divider_latency
from hdl.isa import VectorLayout

__all__ = ["SerialDivider", "serial_divider_latency", "divider_passes", "uniform_operands"]


def serial_divider_latency(bits_per_stage):
    return divider_latency(bits_per_stage) + 2


def uniform_operands(a, b):
    """A DIV of operand lanes ``a``, ``b`` ((x, y, z): integers or Amaranth values) is one
    pass: a.x = a.y = a.z and b.x = b.y = b.z."""
    return (a[0] == a[1]) & (a[0] == a[2]) & (b[0] == b[1]) & (b[0] == b[2])


def divider_passes(a, b):
    """How many cycles a DIV of operand vectors ``a``, ``b`` occupies the divider's input
    (the reference for ``o_ready``): 1 for uniform operands, else 3."""
    return 1 if uniform_operands(a, b) else 3


class SerialDivider(wiring.Component):
    def __init__(self, tag_width=0, bits_per_stage=2):
        self.tag_width = tag_width
        # the divider's valid marks a DIV's first pass (the later ones travel with valid 0:
        # the divider's datapath registers load whatever valid says); its tag: the DIV's tag
        # and "broadcast"
        self.unit = Divider(tag_width=tag_width + 1, bits_per_stage=bits_per_stage)
        self.latency = serial_divider_latency(bits_per_stage)
        super().__init__({
            "i_valid": In(1), "i_a": In(VectorLayout), "i_b": In(VectorLayout),
            "i_tag": In(tag_width),
            "o_ready": Out(1), "o_valid": Out(1), "o_q": Out(VectorLayout),
            "o_tag": Out(tag_width),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.unit = unit = self.unit
        a, b = self.i_a, self.i_b

        # input side: lanes y and z of a three-pass DIV wait here for their cycles
        passes_left = Signal(2)
        held_a = Signal(64, reset_less=True)        # (y, z), y in the low word
        held_b = Signal(64, reset_less=True)
        uniform = uniform_operands((a.x, a.y, a.z), (b.x, b.y, b.z))
        # ready = (passes_left == 0), kept as its own flip-flop: it feeds the core's issue
        # decision
        ready = Signal(init=1)
        ready_next = Signal()
        m.d.comb += [self.o_ready.eq(ready), ready_next.eq(ready)]
        m.d.sync += ready.eq(ready_next)
        with m.If(passes_left == 0):
            m.d.comb += [unit.i_valid.eq(self.i_valid), unit.i_a.eq(a.x), unit.i_b.eq(b.x),
                         unit.i_tag.eq(Cat(self.i_tag, uniform))]
            m.d.sync += [held_a.eq(Cat(a.y, a.z)), held_b.eq(Cat(b.y, b.z))]
            with m.If(self.i_valid & ~uniform):
                m.d.sync += passes_left.eq(2)
                m.d.comb += ready_next.eq(0)
        with m.Else():
            m.d.comb += [unit.i_a.eq(held_a[:32]), unit.i_b.eq(held_b[:32])]
            m.d.sync += [passes_left.eq(passes_left - 1),
                         held_a.eq(held_a[32:]), held_b.eq(held_b[32:])]
            m.d.comb += ready_next.eq(passes_left == 1)

        # output side: quotient, tag and broadcast delayed by one and by two cycles
        tag_width = self.tag_width
        leaving = Cat(unit.o_q, unit.o_tag)
        delayed_once = Signal(len(leaving), reset_less=True)
        delayed_twice = Signal(len(leaving), reset_less=True)
        valid_once = Signal()
        valid_twice = Signal()
        m.d.sync += [delayed_once.eq(leaving), delayed_twice.eq(delayed_once),
                     valid_once.eq(unit.o_valid), valid_twice.eq(valid_once)]
        first_q = delayed_twice[:32]
        first_tag = delayed_twice[32:32 + tag_width]
        broadcast = delayed_twice[32 + tag_width]
        m.d.comb += [
            self.o_valid.eq(valid_twice),
            self.o_tag.eq(first_tag),
            self.o_q.x.eq(first_q),
            self.o_q.y.eq(Mux(broadcast, first_q, delayed_once[:32])),
            self.o_q.z.eq(Mux(broadcast, first_q, unit.o_q)),
        ]
        return m
