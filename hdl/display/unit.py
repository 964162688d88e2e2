"""The display unit: frames from the GPU's clock domain to DVI on three TMDS lanes and a
clock, two bits a lane each ``tmds`` clock (for the pins' DDR registers: hdl/display/gpdi.py).

Three clock domains: ``sync`` (the GPU's), ``pixel`` (the mode's pixel clock: 25 MHz for
640x480) and ``tmds`` (five times the pixel clock), the last two from one PLL
(boards/display_pll.py). Ports: those of ``DisplayPipeline`` on the GPU's side (``config``,
``line_req``, ``pixels``, ``vblank``, ``underrun``; hdl/display/pipeline.py), ``data``,
``clock`` and ``underflow`` of ``TmdsSerialiser`` on the tmds side
(hdl/display/serialiser.py). docs/display.md describes the whole.
"""

from amaranth import Module
from amaranth.lib import data, wiring
from amaranth.lib.wiring import Out

from hdl.display.mode import VideoMode
from hdl.display.pipeline import DisplayPipeline, gpu_side
from hdl.display.serialiser import TmdsSerialiser
from hdl.display.tmds import CONTROL_SYMBOLS

__all__ = ["DisplayUnit", "idle_symbols"]


def idle_symbols(mode):
    """The three lanes' symbols of a blank pixel with both syncs idle."""
    syncs = int(mode.v_sync_negative) << 1 | int(mode.h_sync_negative)
    return CONTROL_SYMBOLS[syncs], CONTROL_SYMBOLS[0], CONTROL_SYMBOLS[0]


class DisplayUnit(wiring.Component):
    def __init__(self, mode: VideoMode):
        self.mode = mode
        super().__init__({**gpu_side(mode), "data": Out(data.ArrayLayout(3, 2)),
                          "clock": Out(data.ArrayLayout(1, 2)), "underflow": Out(1)})

    def elaborate(self, platform):
        m = Module()
        m.submodules.pipeline = pipeline = DisplayPipeline(self.mode)
        m.submodules.serialiser = serialiser = TmdsSerialiser(idle=idle_symbols(self.mode))
        wiring.connect(m, wiring.flipped(self.config), pipeline.config)
        wiring.connect(m, pipeline.line_req, wiring.flipped(self.line_req))
        wiring.connect(m, wiring.flipped(self.pixels), pipeline.pixels)
        m.d.comb += [self.vblank.eq(pipeline.vblank), self.underrun.eq(pipeline.underrun),
                     serialiser.symbols.eq(pipeline.symbols), self.data.eq(serialiser.data),
                     self.clock.eq(serialiser.clock), self.underflow.eq(serialiser.underflow)]
        return m
