"""The display's rows from the front buffer in SDRAM (``GpuConfig.memory``,
docs/memory-system.md): the GPU side of the display's contract (hdl/display/pipeline.py).

A frame buffer holds the image's bytes in file order (hdl/gpu/frame_writer.py): R, G, B of
each pixel, rows from the bottom, ``3 x width`` bytes a row, two to an SDRAM word. The
display asks for its rows from the top (``line_req``: row, width), so row r is the frame's
file row ``height - 1 - r``, the bytes from ``3 x width x (height - 1 - r)`` on: one run of
SDRAM words (its first byte the high one of its word when the run starts at an odd byte).

For each request the reader works the run's start out (a shift-and-add multiply, a bit a
cycle: requests come a line apart), asks for the words in requests of up to ``max_words``
while they fit in its word FIFO (the SDRAM port's read words must always be taken), and
turns the words into pixels: a byte accumulator takes a word (two bytes) a cycle and gives a
pixel whenever it holds three, so it keeps up with a 25 MHz display at scale 1 from a
GPU clock of 38 MHz or more. The next request is taken once the row's last pixel is out.

``base`` (the front buffer's SDRAM word) and ``height`` (the frame's rows) may change between
rows only.
"""

from amaranth import Cat, Module, Mux, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.fifo import SyncFIFOBuffered
from amaranth.lib.wiring import In, Out

from hdl.display.formats import Rgb888, line_request_layout
from hdl.mem.sdram_bus import SdramBus

__all__ = ["ScanoutReader", "WORD_FIFO"]

#: the read words' FIFO (LUT RAM): two 16-word requests in flight
WORD_FIFO = 32


class ScanoutReader(wiring.Component):
    """Parameters: ``chip`` (the SDRAM), ``mode`` (the display's ``VideoMode``),
    ``max_words`` (of the SDRAM bus). Ports: ``line_req`` (the display's row requests),
    ``pixels`` (to the display), ``base``, ``height``, ``sdram`` (the arbiter's scan-out
    port)."""

    def __init__(self, chip, mode, *, max_words=16):
        self.chip = chip
        self.mode = mode
        self.max_words = max_words
        super().__init__({
            "line_req": In(stream.Signature(line_request_layout(mode))),
            "pixels": Out(stream.Signature(Rgb888)),
            "base": In(chip.address_bits),
            "height": In(range(mode.v_active + 1)),
            "sdram": Out(SdramBus(chip, max_words)),
        })

    def elaborate(self, platform):
        m = Module()
        mode = self.mode
        row_bytes = 3 * mode.h_active
        byte_bits = (row_bytes * mode.v_active).bit_length()
        m.submodules.words = fifo = SyncFIFOBuffered(width=16, depth=WORD_FIFO)

        # the row's first byte: 3 x width x (height - 1 - row), by shift and add
        factor = Signal(range(mode.v_active))           # rows below, shifted out bit by bit
        addend = Signal(byte_bits)                       # 3 x width, shifted left
        start = Signal(byte_bits)                        # the sum so far: the first byte
        row_left = Signal(range(row_bytes + 1))          # bytes of the row still to take
        words_left = Signal(range(row_bytes // 2 + 2))   # words still to ask for
        address = Signal(self.chip.address_bits)         # the next word to ask for
        skip = Signal()                                  # the next word's low byte is not ours
        in_flight = Signal(range(WORD_FIFO + 1))         # words asked for, not yet taken out

        # the pixels: up to four bytes in hand, the oldest lowest
        held = Signal(32)
        count = Signal(range(5))

        bus = self.sdram
        chunk = Mux(words_left > self.max_words, self.max_words, words_left)
        fetching = Signal()
        m.d.comb += [bus.cmd.payload.addr.eq(address), bus.cmd.payload.write.eq(0),
                     bus.cmd.payload.words_minus_one.eq(chunk - 1), bus.wdata.valid.eq(0),
                     bus.cmd.valid.eq(fetching & (words_left != 0)
                                      & (in_flight + chunk <= WORD_FIFO)),
                     fifo.w_en.eq(bus.rdata.valid), fifo.w_data.eq(bus.rdata.payload),
                     bus.rdata.ready.eq(1)]
        asked = bus.cmd.valid & bus.cmd.ready
        with m.If(asked):
            m.d.sync += [address.eq(address + chunk), words_left.eq(words_left - chunk)]

        # bytes to pixels: a pixel out when three are in hand, a word in when it fits
        emit = (count >= 3) & fetching
        m.d.comb += [self.pixels.valid.eq(emit),
                     self.pixels.payload.r.eq(held[0:8]), self.pixels.payload.g.eq(held[8:16]),
                     self.pixels.payload.b.eq(held[16:24])]
        sent = emit & self.pixels.ready
        kept = Signal(range(5))
        m.d.comb += kept.eq(Mux(sent, count - 3, count))
        # (what is in hand beyond ``count`` is not kept: a row's last word may bring a byte
        # too many)
        in_hand = Mux(sent, held[24:], held)
        kept_bytes = Mux(kept == 0, 0, Mux(kept == 1, in_hand[:8], in_hand[:16]))
        word_bytes = Mux(skip, 1, 2)
        new_bytes = Mux(word_bytes > row_left, row_left, word_bytes)
        take = fetching & fifo.r_rdy & (kept <= 2) & (row_left != 0)
        m.d.comb += fifo.r_en.eq(take)
        m.d.sync += in_flight.eq(in_flight + Mux(asked, chunk, 0) - take)
        incoming = Mux(skip, fifo.r_data[8:], fifo.r_data)
        with m.If(take):
            m.d.sync += [held.eq(kept_bytes | (incoming << (kept * 8))[:32]),
                         count.eq(kept + new_bytes), row_left.eq(row_left - new_bytes),
                         skip.eq(0)]
        with m.Elif(sent):
            m.d.sync += [held.eq(in_hand), count.eq(kept)]

        request = self.line_req.payload
        with m.FSM():
            with m.State("IDLE"):
                m.d.comb += self.line_req.ready.eq(1)
                with m.If(self.line_req.valid):
                    m.d.sync += [factor.eq(self.height - 1 - request.row),
                                 addend.eq(3 * request.width), start.eq(0),
                                 row_left.eq(3 * request.width)]
                    m.next = "ADDRESS"
            with m.State("ADDRESS"):
                with m.If(factor[0]):
                    m.d.sync += start.eq(start + addend)
                m.d.sync += [factor.eq(factor >> 1), addend.eq(addend << 1)]
                with m.If(factor == 0):
                    m.d.sync += [address.eq(self.base + start[1:]), skip.eq(start[0]),
                                 words_left.eq((start[0] + row_left + 1) >> 1)]
                    m.next = "ROW"
            with m.State("ROW"):
                m.d.comb += fetching.eq(1)
                with m.If((row_left == 0) & (count == 0) & (words_left == 0)):
                    m.next = "IDLE"
        return m
