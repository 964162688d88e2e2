"""The host's texture writes and reads and output reads, on the SDRAM's host port
(``GpuConfig.memory``, docs/memory-system.md).

A request (``HostMemoryRequest``: write, texture or output, the word's offset in its region,
the data) becomes a one-word SDRAM request at the word that holds its byte: texture word ``a``
at ``texture_base + (a >> 1)``, output word ``a`` of the last finished frame at
``output_base + (a >> 1)``, byte ``a & 1`` of it. A texture write writes its byte (the texture
word's bits 16:9: an 8-bit colour << 9) with that byte's enable only, and pulses
``invalidate`` (the texture cache forgets its lines); a read answers ``byte << 9`` for a
texture word, the byte itself (a converted pixel) for an output word. One request at a time:
the host port waits for each answer anyway.
"""

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hdl.config import TEXTURE_SHIFT
from hdl.mem.sdram_bus import SdramBus

__all__ = ["HostMemoryRequest", "HostMemory"]


class HostMemoryRequest(data.Struct):
    """A host request to the memories in SDRAM: ``output`` 0 = a texture word, 1 = an output
    word (reads only: output writes go through the output arbiter)."""
    write: 1
    output: 1
    offset: 24
    data: 32


class HostMemory(wiring.Component):
    """Parameters: ``chip``, ``texture_base`` (the texture's SDRAM word), ``max_words``.
    Ports: ``req``, ``resp`` (the host port's), ``output_base`` (the last finished frame's
    SDRAM word), ``invalidate``, ``sdram`` (the arbiter's host port)."""

    def __init__(self, chip, texture_base, *, max_words=16):
        self.texture_base = texture_base
        super().__init__({
            "req": In(stream.Signature(HostMemoryRequest)),
            "resp": Out(stream.Signature(32, always_ready=True)),
            "output_base": In(chip.address_bits),
            "invalidate": Out(1),
            "sdram": Out(SdramBus(chip, max_words)),
        })

    def elaborate(self, platform):
        m = Module()
        bus = self.sdram
        held = Signal(HostMemoryRequest, reset_less=True)
        base = Mux(held.output, self.output_base, self.texture_base)
        byte = held.data[TEXTURE_SHIFT:TEXTURE_SHIFT + 8]
        m.d.comb += [bus.cmd.payload.addr.eq(base + held.offset[1:]),
                     bus.cmd.payload.write.eq(held.write),
                     bus.cmd.payload.words_minus_one.eq(0),
                     bus.wdata.payload.data.eq(Cat(byte, byte)),
                     bus.wdata.payload.byte_enable.eq(Mux(held.offset[0], 0b10, 0b01)),
                     bus.rdata.ready.eq(1)]
        word = bus.rdata.payload.word_select(held.offset[0], 8)
        m.d.comb += self.resp.payload.eq(Mux(held.output, word,
                                             Cat(Const(0, TEXTURE_SHIFT), word)))
        with m.FSM():
            with m.State("IDLE"):
                m.d.comb += self.req.ready.eq(1)
                with m.If(self.req.valid):
                    m.d.sync += held.eq(self.req.payload)
                    m.next = "REQUEST"
            with m.State("REQUEST"):
                m.d.comb += bus.cmd.valid.eq(1)
                with m.If(bus.cmd.ready):
                    with m.If(held.write):
                        m.next = "WRITE"
                    with m.Else():
                        m.next = "READ"
            with m.State("WRITE"):
                m.d.comb += bus.wdata.valid.eq(1)
                with m.If(bus.wdata.ready):
                    m.d.comb += self.invalidate.eq(1)
                    m.next = "IDLE"
            with m.State("READ"):
                with m.If(bus.rdata.valid):
                    m.d.comb += self.resp.valid.eq(1)
                    m.next = "IDLE"
        return m
