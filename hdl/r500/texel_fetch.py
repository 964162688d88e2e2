"""Reading texels from the shared texture memory for the R500 texture unit.

A job (``TexelJobLayout``: one texel's address for NEAREST, four for BILINEAR) becomes word
requests, back to back: R, G, B of each texel in turn (addresses a, a + 1, a + 2). The memory
answers in request order, any number of cycles later (it is shared behind an arbiter) and
cannot be held off (``mem_resp`` is always ready), so every answer has a place waiting for it:
a request goes out only while the words requested and not yet taken from ``words`` are fewer
than the buffer's depth. Each answer is converted from THEIA's Q14.17 (``FpFromQ17``) on its
way into the buffer; ``words`` streams the binary32 values out in order.

The job stays valid until its last word is requested (``job.ready`` in that cycle), so the
addresses are read from the job itself.
"""

from amaranth import Module, Mux, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.fifo import SyncFIFO
from amaranth.lib.wiring import In, Out

from hdl.r500.fp_from_q17 import FpFromQ17
from hdl.r500.texel_address import CHANNELS, TEXELS, TexelJobLayout

__all__ = ["TexelFetch", "count_words"]


def count_words(m, advance, bilinear):
    """(texel, channel, last) of the word at hand in a lane's word order, the counters moving on
    with ``advance`` and back to 0 after the last word (texel 0's for NEAREST, texel 3's for
    BILINEAR)."""
    texel = Signal(range(TEXELS))
    channel = Signal(range(CHANNELS))
    last = (channel == CHANNELS - 1) & (texel == Mux(bilinear, TEXELS - 1, 0))
    with m.If(advance):
        with m.If(channel == CHANNELS - 1):
            m.d.sync += [channel.eq(0), texel.eq(Mux(last, 0, texel + 1))]
        with m.Else():
            m.d.sync += channel.eq(channel + 1)
    return texel, channel, last


class TexelFetch(wiring.Component):
    """Parameters: ``addr_bits`` (the texture memory's word address), ``buffer_depth`` (the
    converted words it can hold). Ports ``job`` (In stream), ``mem_req`` (Out stream of word
    addresses), ``mem_resp`` (In stream of 32-bit words, always ready), ``words`` (Out stream
    of binary32 values)."""

    def __init__(self, addr_bits, buffer_depth):
        self.addr_bits = addr_bits
        self.buffer_depth = buffer_depth
        super().__init__({
            "job": In(stream.Signature(TexelJobLayout(addr_bits))),
            "mem_req": Out(stream.Signature(addr_bits)),
            "mem_resp": In(stream.Signature(32, always_ready=True)),
            "words": Out(stream.Signature(32)),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.convert = convert = FpFromQ17()
        m.submodules.buffer = buffer = SyncFIFO(width=32, depth=self.buffer_depth)

        # the requests: texel by texel, channel by channel
        job = self.job.payload
        # words requested and not yet taken out: in the memory, the converter or the buffer
        reserved = Signal(range(self.buffer_depth + 1))
        m.d.comb += self.mem_req.valid.eq(self.job.valid & (reserved < self.buffer_depth))
        requested = self.mem_req.valid & self.mem_req.ready
        texel, channel, last_word = count_words(m, requested, job.bilinear)
        m.d.comb += [self.mem_req.payload.eq(job.addresses[texel] + channel),
                     self.job.ready.eq(requested & last_word)]
        taken = self.words.valid & self.words.ready
        m.d.sync += reserved.eq(reserved + requested - taken)

        # the answers: converted, then buffered (the reservation leaves them room)
        m.d.comb += [
            convert.i_valid.eq(self.mem_resp.valid), convert.i_word.eq(self.mem_resp.payload),
            buffer.w_en.eq(convert.o_valid), buffer.w_data.eq(convert.o_result),
        ]
        wiring.connect(m, buffer.r_stream, wiring.flipped(self.words))
        return m
