"""Output words to a frame buffer in SDRAM, combined into line writes (``GpuConfig.memory``,
docs/memory-system.md).

Each output word becomes its converted pixel byte, min(255, w >> 9) (as the 8-bit output
store keeps it, ``PixelStore.narrow``), and output word ``a`` is byte ``a`` of the frame
buffer: byte ``a & 1`` of SDRAM word ``base + (a >> 1)``. The bytes of a frame are those of
the image in file order (R, G, B of each pixel, rows from the bottom), so a row is one run of
SDRAM words for the display to read.

A core writes its pixels' R, G, B in order, pixel after pixel of its band, the R500 stage a
quad's pixels on two rows: bytes that would each be a one-word SDRAM write mostly land next to
one another. ``lines`` write-combining lines of ``line_bytes`` bytes (registers) gather them:
a write to a line's bytes joins it, a write elsewhere takes a free line, or frees the line
allocated longest ago. A line goes to the SDRAM as one request of ``line_bytes / 2`` words,
each with its bytes' enables (bytes not written are left as they are): when all its bytes are
written, when its place is needed, or on ``flush`` (the frame's writes are all in). One line
at a time waits in the outgoing buffer for the SDRAM port, which takes its words one a cycle
once the request is granted; a write that needs a line while the outgoing buffer is busy
waits (``i.ready`` low).

``base`` (the frame buffer's SDRAM word; a multiple of a line's words) may change only while
``idle``: a line's address is taken when it leaves.
"""

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out
from amaranth.utils import exact_log2

from hdl.core.ports import OutputWrite
from hdl.gpu.narrow_store import PixelStore
from hdl.mem.sdram_bus import SdramBus

__all__ = ["FrameWriter"]


class FrameWriter(wiring.Component):
    """Parameters: ``chip`` (the SDRAM), ``addr_bits`` (of an output word's address),
    ``lines``, ``line_bytes``, ``max_words`` (of the SDRAM bus).

    Ports: ``i`` (output words: ``OutputWrite``), ``base``, ``flush``, ``idle`` (nothing
    held: every write taken has been handed to the SDRAM port), ``sdram`` (the arbiter's frame
    port), ``line_writes`` (lines sent since reset, for statistics)."""

    def __init__(self, chip, addr_bits, *, lines=4, line_bytes=16, max_words=16):
        words = line_bytes // 2
        if line_bytes < 2 or words > max_words or exact_log2(line_bytes) is None:
            raise ValueError(f"a line is a power of two of 2 to {2 * max_words} bytes, "
                             f"not {line_bytes}")
        if lines < 1:
            raise ValueError(f"a frame writer needs a line, got {lines}")
        self.chip = chip
        self.addr_bits = addr_bits
        self.n = lines
        self.line_bytes = line_bytes
        self.offset_bits = exact_log2(line_bytes)
        self.tag_bits = max(1, addr_bits - self.offset_bits)
        self.line_layout = data.StructLayout({
            "valid": 1, "tag": self.tag_bits, "bytes": 8 * line_bytes,
            "enables": line_bytes})
        super().__init__({
            "i": In(stream.Signature(OutputWrite)),
            "base": In(chip.address_bits),
            "flush": In(1),
            "idle": Out(1),
            "sdram": Out(SdramBus(chip, max_words)),
            "line_writes": Out(32),
        })

    def elaborate(self, platform):
        m = Module()
        n, size = self.n, self.line_bytes
        lines = Signal(data.ArrayLayout(self.line_layout, n))

        # the write at hand, registered as it is taken (converted to its byte)
        held = Signal()
        held_tag = Signal(self.tag_bits, reset_less=True)
        held_offset = Signal(self.offset_bits, reset_less=True)
        held_byte = Signal(8, reset_less=True)
        consumed = Signal()
        m.d.comb += self.i.ready.eq(~held | consumed)
        with m.If(self.i.valid & self.i.ready):
            address = self.i.payload.addr[:self.addr_bits]
            m.d.sync += [held.eq(1), held_tag.eq(address[self.offset_bits:]),
                         held_offset.eq(address[:self.offset_bits]),
                         held_byte.eq(PixelStore.narrow(self.i.payload.data))]
        with m.Elif(consumed):
            m.d.sync += held.eq(0)

        matches = Cat(line.valid & (line.tag == held_tag) for line in lines)
        free = Cat(~line.valid for line in lines)
        full = Cat(line.valid & line.enables.all() for line in lines)
        first_free = _first(m, free, "first_free")

        # the outgoing buffer: one line's words and enables, its SDRAM address
        words = size // 2
        out_valid = Signal()
        out_requested = Signal()
        out_addr = Signal(self.chip.address_bits, reset_less=True)
        out_bytes = Signal(8 * size, reset_less=True)
        out_enables = Signal(size, reset_less=True)
        out_word = Signal(range(words))
        bus = self.sdram
        m.d.comb += [bus.cmd.valid.eq(out_valid & ~out_requested),
                     bus.cmd.payload.addr.eq(out_addr), bus.cmd.payload.write.eq(1),
                     bus.cmd.payload.words_minus_one.eq(words - 1),
                     bus.wdata.valid.eq(out_valid),
                     bus.wdata.payload.data.eq(out_bytes.word_select(out_word, 16)),
                     bus.wdata.payload.byte_enable.eq(out_enables.word_select(out_word, 2)),
                     bus.rdata.ready.eq(1)]
        with m.If(bus.cmd.valid & bus.cmd.ready):
            m.d.sync += out_requested.eq(1)
        with m.If(bus.wdata.valid & bus.wdata.ready):
            m.d.sync += out_word.eq(out_word + 1)
            with m.If(out_word == words - 1):
                m.d.sync += [out_valid.eq(0), out_requested.eq(0), out_word.eq(0)]

        # which line leaves next (when the outgoing buffer is free): a full one; on flush any;
        # else, when the write at hand finds neither its line nor a free one, the oldest
        victim = Signal(range(max(n, 2)))           # allocated longest ago (round robin)
        needs_room = held & ~matches.any() & ~free.any()
        valid_lines = Cat(line.valid for line in lines)
        leaving = Signal(n)
        first_full = _first(m, full, "first_full")
        first_valid = _first(m, valid_lines, "first_valid")
        with m.If(full.any()):
            m.d.comb += leaving.eq(1 << first_full)
        with m.Elif(self.flush & valid_lines.any()):
            m.d.comb += leaving.eq(1 << first_valid)
        with m.Elif(needs_room):
            m.d.comb += leaving.eq(1 << victim)
        evict = Signal()
        m.d.comb += evict.eq(~out_valid & leaving.any())
        with m.If(evict):
            m.d.sync += [out_valid.eq(1), self.line_writes.eq(self.line_writes + 1)]
            for k, line in enumerate(lines):
                with m.If(leaving[k]):
                    m.d.sync += [out_addr.eq(self.base + (line.tag << exact_log2(words))),
                                 out_bytes.eq(line.bytes), out_enables.eq(line.enables),
                                 line.valid.eq(0)]

        # the write at hand joins its line, or takes a free one (not the one leaving)
        byte_mask = (Const(0xFF, 8 * size) << (held_offset * 8))[:8 * size]
        placed = held_byte.replicate(size) & byte_mask
        enable = (Const(1, size) << held_offset)[:size]
        # (not into a line leaving in this cycle: the write waits, then takes a free line)
        joins = matches & ~Mux(evict, leaving, 0)
        with m.If(held & joins.any()):
            m.d.comb += consumed.eq(1)
            for k, line in enumerate(lines):
                with m.If(joins[k]):
                    m.d.sync += [line.bytes.eq((line.bytes & ~byte_mask) | placed),
                                 line.enables.eq(line.enables | enable)]
        with m.Elif(held & ~matches.any() & free.any()):
            m.d.comb += consumed.eq(1)
            m.d.sync += victim.eq(Mux(first_free == n - 1, 0, first_free + 1))
            for k, line in enumerate(lines):
                with m.If(first_free == k):
                    m.d.sync += [line.valid.eq(1), line.tag.eq(held_tag), line.bytes.eq(placed),
                                 line.enables.eq(enable)]

        m.d.comb += self.idle.eq(~held & ~valid_lines.any() & ~out_valid)
        return m


def _first(m, bits, name):
    """The index of the lowest set bit of ``bits`` (0 if none)."""
    index = Signal(range(max(len(bits), 2)), name=name)
    for k in reversed(range(len(bits))):
        with m.If(bits[k]):
            m.d.comb += index.eq(k)
    return index
