"""A two-entry stream register whose ``ready`` is a flip-flop (a "skid buffer").

Put where a stream crosses the chip: the producer's valid and payload end in flip-flops here,
and the ready it sees comes from a flip-flop here, so neither direction's route is in series
with logic on the other side. Full throughput (a transfer every cycle while the consumer
takes); what goes in comes out in order, one or more cycles later.

The output is the ``head`` register. While the consumer stalls, one more transfer is taken
into ``skid``; ``i.ready`` is then low (``i.ready == ~skid_valid``). ``empty``: nothing is held
(what was taken has been passed on).
"""

from amaranth import Module, Signal, Mux
from amaranth.lib import wiring, stream
from amaranth.lib.wiring import In, Out

__all__ = ["SkidBuffer"]


class SkidBuffer(wiring.Component):
    """Parameter ``shape``: the payload's. Ports ``i`` (In stream), ``o`` (Out stream),
    ``empty``."""

    def __init__(self, shape):
        self.shape = shape
        super().__init__({
            "i": In(stream.Signature(shape)),
            "o": Out(stream.Signature(shape)),
            "empty": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        head_valid = Signal()
        head = Signal(self.shape, reset_less=True)
        skid_valid = Signal()
        skid = Signal(self.shape, reset_less=True)
        m.d.comb += [
            self.i.ready.eq(~skid_valid),
            self.o.valid.eq(head_valid), self.o.payload.eq(head),
            self.empty.eq(~head_valid & ~skid_valid),
        ]
        taken = self.i.valid & ~skid_valid
        # The payload registers' enables do not depend on the producer's valid (it comes
        # from across the chip, and would be the enable of ~100 flip-flops): ``skid`` loads
        # whatever is offered while it is empty (kept only when taken as the head stalls),
        # ``head`` loads whenever it moves on.
        with m.If(~skid_valid):
            m.d.sync += skid.eq(self.i.payload)
        with m.If(~head_valid | self.o.ready):          # the head register moves on
            m.d.sync += [head.eq(Mux(skid_valid, skid, self.i.payload)),
                         head_valid.eq(skid_valid | taken), skid_valid.eq(0)]
        with m.Elif(taken):                              # the consumer stalls: one more
            m.d.sync += skid_valid.eq(1)
        return m
