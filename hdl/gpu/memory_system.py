"""The GPU's memories in SDRAM (``GpuConfig.memory``, docs/memory-system.md): the texture
cache, the frame writer, the display's reader, the host's accesses, and the two frame buffers.

    texture readers (cores, R500 stage) --> TextureCache ------------> sdram[1] texture fills
    output arbiter -----------------------> FrameWriter (back) ------> sdram[2] frame writes
    display (row requests) <--pixels------ ScanoutReader (front) ----> sdram[0] scan-out
    host port ----------------------------> HostMemory --------------> sdram[3] host

The four SDRAM ports are the arbiter's (hdl/mem/sdram_arbiter.py), in its priority order.

**Frame buffers.** The display shows the front buffer; frames are rendered into the back one.
When a frame finishes (``finished``: every output write has left the frame writer) it waits
(``pending``) for the display's next vertical blanking (``display.vblank``), where the two
swap: the monitor never shows a frame before it is whole, and the display has asked for every
row of the old front by then (hdl/display/scale.py). While a finished frame waits, the next
frame may not start (``may_start`` low): its back buffer is the one still to be shown. The
host's output reads read the last finished frame (the back buffer while it waits, else the
front); output writes from the host go to the back buffer, like the cores'.

**The display's frame.** DISPLAY (``width``, ``height``) is the size of the frames the display
shows; the configuration sent to it shows the front buffer (``show``) once a frame has been
swapped in since the size was set, and the plain screen before.
"""

from amaranth import Cat, Module, Mux, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hdl.core.ports import OutputWrite
from hdl.display.formats import config_layout
from hdl.display.pipeline import gpu_side
from hdl.gpu.frame_writer import FrameWriter
from hdl.gpu.host_memory import HostMemory, HostMemoryRequest
from hdl.gpu.scanout_reader import ScanoutReader
from hdl.gpu.texture_cache import TextureCache
from hdl.mem.sdram_arbiter import PORT_ORDER
from hdl.mem.sdram_bus import SdramBus

__all__ = ["MemorySystem", "MAX_WORDS", "display_link"]

#: the longest SDRAM request (words)
MAX_WORDS = 16


def display_link(mode):
    """The display's GPU side (hdl/display/pipeline.py ``gpu_side``) as the GPU has it:
    ``config``, ``pixels`` out; ``line_req``, ``vblank``, ``underrun`` in."""
    return In(wiring.Signature(gpu_side(mode)))


class MemorySystem(wiring.Component):
    """Parameters: ``config`` (the ``GpuConfig``, with ``memory``), ``readers`` (texture
    readers: their requests' ``addr_bits``-bit word addresses).

    Ports: ``tex_req[k]``/``tex_resp[k]``, ``output`` (output writes), ``host_req``/
    ``host_resp``, ``sdram[k]`` (in ``PORT_ORDER``), ``display``, ``width``/``height`` (the
    DISPLAY register), ``flush`` (every output write of the frame is in), ``landed`` (and
    out of the frame writer), ``finished`` (a pulse: a frame finished without an error),
    ``may_start``, ``vblank_seen`` (a pulse per vertical blanking, for tests), the
    statistics ``fills`` and ``line_writes``."""

    def __init__(self, config, readers, addr_bits):
        memory = config.memory
        self.memory = memory
        chip = memory.chip
        self.cache = TextureCache(chip, readers, addr_bits, base=memory.texture_base,
                                  lines=memory.cache_lines, line_bytes=memory.cache_line_bytes,
                                  ways=memory.cache_ways, slotted=config.slotted_ports,
                                  max_words=MAX_WORDS)
        self.writer = FrameWriter(chip, max(1, (config.omem_words - 1).bit_length()),
                                  lines=memory.write_lines, line_bytes=memory.write_line_bytes,
                                  max_words=MAX_WORDS)
        self.reader = ScanoutReader(chip, memory.mode, max_words=MAX_WORDS)
        self.host = HostMemory(chip, memory.texture_base, max_words=MAX_WORDS)
        super().__init__({
            "tex_req": In(stream.Signature(addr_bits)).array(readers),
            "tex_resp": Out(stream.Signature(32, always_ready=True)).array(readers),
            "output": In(stream.Signature(OutputWrite)),
            "host_req": In(stream.Signature(HostMemoryRequest)),
            "host_resp": Out(stream.Signature(32, always_ready=True)),
            "sdram": Out(SdramBus(chip, MAX_WORDS)).array(len(PORT_ORDER)),
            "display": display_link(memory.mode),
            "width": In(16), "height": In(16),
            "flush": In(1), "landed": Out(1), "finished": In(1), "may_start": Out(1),
            "fills": Out(32), "line_writes": Out(32),
        })

    def elaborate(self, platform):
        m = Module()
        memory = self.memory
        cache, writer, reader, host = self.cache, self.writer, self.reader, self.host
        m.submodules.cache = cache
        m.submodules.writer = writer
        m.submodules.reader = reader
        m.submodules.host = host
        for k in range(len(self.tex_req)):
            wiring.connect(m, wiring.flipped(self.tex_req[k]), cache.req[k])
            wiring.connect(m, cache.resp[k], wiring.flipped(self.tex_resp[k]))
        wiring.connect(m, wiring.flipped(self.output), writer.i)
        wiring.connect(m, wiring.flipped(self.host_req), host.req)
        wiring.connect(m, host.resp, wiring.flipped(self.host_resp))
        for name, unit in (("scanout", reader), ("texture", cache), ("frame", writer),
                           ("host", host)):
            wiring.connect(m, unit.sdram, wiring.flipped(self.sdram[PORT_ORDER.index(name)]))
        m.d.comb += [cache.invalidate.eq(host.invalidate), writer.flush.eq(self.flush),
                     self.landed.eq(writer.idle), self.fills.eq(cache.fills),
                     self.line_writes.eq(writer.line_writes)]

        # the frame buffers: which one the display shows, whether the other holds a finished
        # frame waiting for the vertical blanking
        front = Signal()
        pending = Signal()
        shown = Signal()                    # the front holds a frame of the size set
        display = self.display
        with m.If(self.finished):
            m.d.sync += pending.eq(1)
        with m.If(display.vblank & pending):
            m.d.sync += [front.eq(~front), pending.eq(0), shown.eq(1)]
        bases = [memory.frame_base(k) for k in (0, 1)]
        back_base = Mux(front, bases[0], bases[1])
        front_base = Mux(front, bases[1], bases[0])
        m.d.comb += [self.may_start.eq(~pending & ~self.finished),
                     writer.base.eq(back_base), reader.base.eq(front_base),
                     reader.height.eq(self.height),
                     host.output_base.eq(Mux(pending, back_base, front_base))]
        wiring.connect(m, wiring.flipped(display.line_req), reader.line_req)
        wiring.connect(m, reader.pixels, wiring.flipped(display.pixels))

        # the display's configuration, sent when it changes; a new size shows the plain
        # screen until a frame has been swapped in
        size = Cat(self.width, self.height)
        size_seen = Signal.like(size)
        m.d.sync += size_seen.eq(size)
        with m.If(size != size_seen):
            m.d.sync += shown.eq(0)
        wanted = Signal(config_layout(memory.mode))
        sent = Signal(config_layout(memory.mode))
        fits = (self.width != 0) & (self.width <= memory.mode.h_active) \
            & (self.height != 0) & (self.height <= memory.mode.v_active)
        m.d.comb += [wanted.width.eq(Mux(fits, self.width, 0)),
                     wanted.height.eq(Mux(fits, self.height, 0)),
                     wanted.show.eq(shown & fits & (size == size_seen))]
        m.d.comb += [display.config.payload.eq(wanted),
                     display.config.valid.eq(wanted.as_value() != sent.as_value())]
        with m.If(display.config.valid & display.config.ready):
            m.d.sync += sent.eq(wanted)
        return m
