"""Stage W of the core: the register file's one write port, reserved a result at a time.

Every instruction that writes a register reserves, as it issues, the one cycle its result will
use the write port in (``slots[k]``: a result lands k cycles from now), and its tag (where the
result goes, ``WritebackTag``) is kept until then. What lands in a cycle is thus known from
registers (the vector ALU's latencies are exact), and the hazard logic never waits for the
ALU's output valid.

The tags live in a small ring indexed by the cycle (``now``): a reservation writes entry now +
latency, and the tag landing in two cycles is read from entry now + 2 into a register
(``next_tag``; one write and one read per cycle, rather than shifting every entry), which then
moves into ``w_tag``. The registers keep the ring's LUT-RAM read and multiplexers off the
forwarding path and off the scoreboard's view of the next cycle. Results of latency 1 and 2
bypass the ring into them.

The IO side writes the register file in the cycles no result lands in (``io_slot``): worked out
a cycle ahead from the reservations and the instruction in I (a result of latency 1 issued now
lands next cycle), a flip-flop: it enables the IO skid buffer's ~200 flip-flops by the IO unit.
"""

from amaranth import Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from hdl.core.decode import Decoded
from hdl.core.regfile import SwapWrite, swap_write

__all__ = ["Writeback", "WritebackTag"]


class WritebackTag(data.Struct):
    """Where an operation's result goes (kept with the write-port reservations)."""
    addr: 8
    wmask: 3
    swap: SwapWrite       # (for the register file's write port)


class Writeback(wiring.Component):
    """Parameter: ``max_latency`` (the vector ALU's longest).

    In: ``i_valid``, ``i_dec`` (the instruction in I), ``issued_write`` (it issues now and
    writes a register). Out: ``w_valid``/``w_tag`` (what lands now; ``w_lands``: with a lane
    to write), ``slots`` (the reservations), ``next_tag`` (what lands next cycle, if
    ``slots[1]``), ``i_tag`` (I's tag), ``w_from_i`` (``w_tag`` is the tag I issued last
    cycle), ``io_slot``."""

    def __init__(self, max_latency):
        self.max_latency = max_latency
        self.ring = Memory(shape=WritebackTag, depth=1 << max_latency.bit_length(), init=[])
        super().__init__({
            "i_valid": In(1), "i_dec": In(Decoded), "issued_write": In(1),
            "w_valid": Out(1), "w_tag": Out(WritebackTag), "w_lands": Out(1),
            "slots": Out(max_latency + 1), "next_tag": Out(WritebackTag),
            "i_tag": Out(WritebackTag), "w_from_i": Out(1), "io_slot": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.ring = ring = self.ring
        i_dec = self.i_dec
        slots = Signal(self.max_latency + 1)
        now = Signal(range(ring.depth))
        later = Signal(range(ring.depth), init=2)    # now + 2, without an adder
        m.d.sync += [now.eq(now + 1), later.eq(later + 1)]
        ring_r = ring.read_port(domain="comb")
        m.d.comb += ring_r.addr.eq(later)
        next_tag = Signal(WritebackTag, reset_less=True)   # what lands next cycle, if reserved
        w_tag = Signal(WritebackTag, reset_less=True)      # what lands now
        m.d.comb += [self.slots.eq(slots), self.next_tag.eq(next_tag), self.w_tag.eq(w_tag),
                     self.w_valid.eq(slots[0]), self.w_lands.eq(slots[0] & (w_tag.wmask != 0))]

        tag = self.i_tag
        m.d.comb += [tag.addr.eq(i_dec.dst[:8]),
                     tag.wmask.eq(Mux(i_dec.writes_reg, i_dec.wmask, 0)),
                     tag.swap.eq(swap_write(i_dec.dst[:8]))]
        lands_next_cycle = self.issued_write & (i_dec.latency == 1)
        m.d.sync += self.w_from_i.eq(lands_next_cycle)

        reserve = Signal(self.max_latency + 1)
        with m.If(self.issued_write):
            m.d.comb += reserve.eq(1 << i_dec.latency)
        m.d.sync += slots.eq((slots | reserve) >> 1)
        m.d.sync += self.io_slot.eq(~slots[1] & ~(self.i_valid & i_dec.writes_reg
                                                  & (i_dec.latency == 1)))
        ring_w = ring.write_port()
        m.d.comb += [ring_w.addr.eq(now + i_dec.latency), ring_w.data.eq(tag),
                     ring_w.en.eq(self.issued_write)]
        # a result issued now lands next cycle (latency 1) or the cycle after: its tag
        # bypasses the ring
        m.d.sync += [w_tag.eq(Mux(lands_next_cycle, tag, next_tag)),
                     next_tag.eq(Mux(self.issued_write & (i_dec.latency == 2), tag,
                                     ring_r.data))]
        return m
