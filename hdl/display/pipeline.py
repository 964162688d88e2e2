"""The display from the GPU's clock domain to TMDS symbols in the pixel clock domain.

``DisplayPipeline`` puts a ``Scanout`` (hdl/display/scanout.py) in the pixel domain and
crosses everything it exchanges with the ``sync`` domain (the GPU's clock):

| what                      | direction      | crossing                                       |
|---------------------------|----------------|------------------------------------------------|
| ``config`` (frame size)   | sync -> pixel  | AsyncFIFO, 4 entries                           |
| ``pixels`` (RGB888 rows)  | sync -> pixel  | AsyncFIFO, ``PIXEL_FIFO_DEPTH`` entries        |
| ``line_req`` (row, width) | pixel -> sync  | AsyncFIFO, 4 entries                           |
| ``vblank``                | pixel -> sync  | PulseSynchronizer (a pulse a frame)            |
| ``underrun``              | pixel -> sync  | FFSynchronizer (a sticky level)                |

The AsyncFIFOs are Gray-coded pointer FIFOs: safe at any clock ratio. The vblank pulse
toggles a level that two flip-flops synchronise; its pulses are a frame apart, far more than
the synchroniser needs. ``underrun`` only ever rises. None of them assumes anything of the
clocks' frequencies or phases.

The GPU side: ``line_req`` asks for a row of the front buffer (``row``, 0 = top); answer
with ``width`` pixels of it on ``pixels``, in order, each request in turn (the width is the
one the display is configured with: while a new size waits for the vertical blanking, the
old one's rows are still asked for). A frame's row 0 is asked for at the end of line
``v_total - 3`` (in 640x480 43 lines after the ``vblank`` pulse, at least two in any mode):
swap the buffers on ``vblank``. ``config`` takes effect at the next vertical
blanking. ``symbols``: in the pixel domain, a pixel clock's three symbols, to serialise
(hdl/display/serialiser.py) or to decode in a simulation.

``pixel_domain``: the name of the pixel clock's domain. "sync" runs the whole display at the
GPU's clock, for a simulator with one clock; ``pixel_every`` N then clocks the pixel side on
every Nth cycle only (a clock enable), as the pixel clock is a third of the GPU's on the board
(75 and 25 MHz), so that the GPU side has the time it has there. ``symbols_valid``: the
symbols are a new pixel's (every cycle of the pixel domain, or every Nth).
"""

from amaranth import Module, Signal, Mux, C, DomainRenamer, EnableInserter, Shape
from amaranth.lib import wiring, stream
from amaranth.lib.cdc import FFSynchronizer, PulseSynchronizer
from amaranth.lib.fifo import AsyncFIFO
from amaranth.lib.wiring import In, Out

from hdl.display.formats import Rgb888, TmdsSymbols, config_layout, line_request_layout
from hdl.display.mode import VideoMode
from hdl.display.scanout import Scanout

__all__ = ["DisplayPipeline", "PIXEL_FIFO_DEPTH", "gpu_side"]

#: the pixel stream's crossing: enough to take a burst while the pixel side drains it at one
#: pixel a pixel clock (LUT RAM: 16 x 24 bits)
PIXEL_FIFO_DEPTH = 16


def gpu_side(mode):
    """The ports in the GPU's clock domain (of ``DisplayPipeline`` and ``DisplayUnit``)."""
    return {"config": In(stream.Signature(config_layout(mode))),
            "line_req": Out(stream.Signature(line_request_layout(mode))),
            "pixels": In(stream.Signature(Rgb888)),
            "vblank": Out(1), "underrun": Out(1)}


class DisplayPipeline(wiring.Component):
    def __init__(self, mode: VideoMode, pixel_domain="pixel", pixel_every=1):
        if pixel_every != 1 and pixel_domain != "sync":
            raise ValueError("pixel_every is for a display in the GPU's clock domain")
        self.mode = mode
        self.pixel_domain = pixel_domain
        self.pixel_every = pixel_every
        super().__init__({**gpu_side(mode), "symbols": Out(TmdsSymbols),
                          "symbols_valid": Out(1)})

    def elaborate(self, platform):
        m = Module()
        pixel = self.pixel_domain
        if self.pixel_every == 1:
            tick = C(1)
            scanout = DomainRenamer(pixel)(Scanout(self.mode))
        else:
            count = Signal(range(self.pixel_every))
            tick = count == 0
            m.d.sync += count.eq(Mux(count == self.pixel_every - 1, 0, count + 1))
            scanout = EnableInserter({"sync": tick})(Scanout(self.mode))
        m.submodules.scanout = scanout
        m.d.comb += [self.symbols.eq(scanout.symbols), self.symbols_valid.eq(tick)]
        # (the pixel side's handshakes below count only on its clock's edges: ``tick``)

        def fifo(name, payload, depth, w_domain, r_domain):
            m.submodules[name] = cdc = AsyncFIFO(width=Shape.cast(payload).width, depth=depth,
                                                 w_domain=w_domain, r_domain=r_domain)
            return cdc

        config = fifo("config_cdc", config_layout(self.mode), 4, "sync", pixel)
        m.d.comb += [config.w_data.eq(self.config.payload), config.w_en.eq(self.config.valid),
                     self.config.ready.eq(config.w_rdy),
                     scanout.config.payload.eq(config.r_data),
                     scanout.config.valid.eq(config.r_rdy),
                     config.r_en.eq(scanout.config.ready & tick)]

        pixels = fifo("pixel_cdc", Rgb888, PIXEL_FIFO_DEPTH, "sync", pixel)
        m.d.comb += [pixels.w_data.eq(self.pixels.payload), pixels.w_en.eq(self.pixels.valid),
                     self.pixels.ready.eq(pixels.w_rdy),
                     scanout.pixels.payload.eq(pixels.r_data),
                     scanout.pixels.valid.eq(pixels.r_rdy), pixels.r_en.eq(tick)]

        # one request a line at most: four entries never fill while the GPU side takes them
        requests = fifo("request_cdc", line_request_layout(self.mode), 4, pixel, "sync")
        m.d.comb += [requests.w_data.eq(scanout.line_req.payload),
                     requests.w_en.eq(scanout.line_req.valid & tick),
                     self.line_req.payload.eq(requests.r_data),
                     self.line_req.valid.eq(requests.r_rdy), requests.r_en.eq(self.line_req.ready)]

        m.submodules.vblank_cdc = vblank = PulseSynchronizer(i_domain=pixel, o_domain="sync")
        m.d.comb += [vblank.i.eq(scanout.vblank & tick), self.vblank.eq(vblank.o)]
        m.submodules.underrun_cdc = FFSynchronizer(scanout.underrun, self.underrun,
                                                   o_domain="sync")
        return m
