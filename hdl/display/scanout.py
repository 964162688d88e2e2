"""The pixel clock's side of the display: raster, frame mapping, line buffer, TMDS encoders.

Each pixel clock one pixel of the raster (hdl/display/timing.py) is encoded into three TMDS
symbols (``symbols``): in the active area the frame's pixel at the largest integer scale,
centred (hdl/display/scale.py), black around it; the plain screen (dark blue, a light grey
border; hdl/display/formats.py) until a frame is configured or while ``show`` is 0; control
symbols with hsync and vsync in the blanking.

``config`` is taken only in the first line of the vertical blanking (from ``vblank`` to the
next ``line_end``; the last one offered then wins), so a frame is shown whole at one size;
the scale is found in the next line. Rows are asked for on ``line_req`` (always taken: the
consumer keeps up, one request a line at most) and arrive on ``pixels`` (scan order, the
request's ``width`` pixels); ``vblank`` pulses when the vertical
blanking begins; ``underrun`` (sticky) says a row was shown before it had arrived.

The pipeline: raster (cycle 0), frame mapping (1), line buffer read (2), three encoder stages
(3-5): ``symbols`` describe the raster's pixel of five cycles before.
"""

from amaranth import Module, Signal, Mux, Cat
from amaranth.lib import wiring, stream
from amaranth.lib.wiring import In, Out

from hdl.display.formats import (Rgb888, TmdsSymbols, config_layout, line_request_layout,
                                 PLAIN_BACKGROUND, PLAIN_BORDER)
from hdl.display.line_buffer import LineBuffer
from hdl.display.mode import VideoMode
from hdl.display.scale import ScaleFit, ScreenMap
from hdl.display.timing import VideoTiming
from hdl.display.tmds import TmdsEncoder, CONTROL_SYMBOLS
from hdl.lib.pipeline import delay

__all__ = ["Scanout"]


class Scanout(wiring.Component):
    def __init__(self, mode: VideoMode):
        self.mode = mode
        if min(mode.h_active, mode.v_active) + 4 > mode.h_total:
            # the scale is found within the line after the configuration is taken
            raise ValueError(f"video mode {mode.name}: lines too short for the scaler")
        super().__init__({
            "config": In(stream.Signature(config_layout(mode))),
            "line_req": Out(stream.Signature(line_request_layout(mode), always_ready=True)),
            "pixels": In(stream.Signature(Rgb888, always_ready=True)),
            "symbols": Out(TmdsSymbols),
            "vblank": Out(1), "underrun": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        mode = self.mode
        m.submodules.timing = timing = VideoTiming(mode)
        m.submodules.fit = fit = ScaleFit(mode)
        m.submodules.screen = screen = ScreenMap(mode)
        m.submodules.rows = rows = LineBuffer(mode)

        # the frame: taken in the first line of the vertical blanking
        frame = Signal(config_layout(mode))
        taking = Signal()
        with m.If(timing.vblank):
            m.d.sync += taking.eq(1)
        with m.Elif(timing.line_end):
            m.d.sync += taking.eq(0)
        take = taking & self.config.valid
        m.d.comb += [self.config.ready.eq(taking), fit.start.eq(take),
                     fit.width.eq(self.config.payload.width),
                     fit.height.eq(self.config.payload.height)]
        with m.If(take):
            m.d.sync += frame.eq(self.config.payload)
        showing = frame.show & fit.valid & ~fit.busy

        m.d.comb += [
            screen.x.eq(timing.x), screen.y.eq(timing.y), screen.active.eq(timing.active),
            screen.line_end.eq(timing.line_end), screen.width.eq(frame.width),
            screen.height.eq(frame.height), screen.scale.eq(fit.scale), screen.x0.eq(fit.x0),
            screen.y0.eq(fit.y0), screen.showing.eq(showing),
            screen.rows_filled.eq(rows.rows_filled), screen.filling.eq(rows.filling),
            self.line_req.valid.eq(screen.request),
            self.line_req.payload.row.eq(screen.request_row),
            self.line_req.payload.width.eq(frame.width),
            self.underrun.eq(screen.underrun), self.vblank.eq(timing.vblank),
            rows.restart.eq(screen.restart), rows.width.eq(frame.width),
            rows.half.eq(screen.row[0]), rows.u.eq(screen.u),
        ]
        wiring.connect(m, wiring.flipped(self.pixels), rows.pixels)

        # the raster's pixel, beside the mapping (1 cycle) and the line buffer read (1 more)
        x, y = timing.x, timing.y
        edge = (x == 0) | (x == mode.h_active - 1) | (y == 0) | (y == mode.v_active - 1)
        # (the syncs as pulses, 1 = asserted: the registers start idle)
        raster = delay(m, "raster", {"active": timing.active,
                                     "hsync": timing.hsync ^ mode.h_sync_negative,
                                     "vsync": timing.vsync ^ mode.v_sync_negative,
                                     "edge": edge, "showing": showing}, 1)
        pixel = delay(m, "pixel", {**raster, "inside": screen.inside}, 1)
        plain = Mux(pixel["edge"], PLAIN_BORDER, PLAIN_BACKGROUND)
        colour = Signal(Rgb888)
        m.d.comb += colour.eq(Mux(pixel["showing"], Mux(pixel["inside"], rows.data, 0), plain))

        # until the pipeline has filled after reset, idle blanking
        filled = Signal(TmdsEncoder.LATENCY + 2)
        m.d.sync += filled.eq(Cat(1, filled))
        idle = Cat(mode.h_sync_negative, mode.v_sync_negative)
        for lane, channel in enumerate(("b", "g", "r")):
            m.submodules[f"encode_{channel}"] = encoder = TmdsEncoder()
            control = Cat(pixel["hsync"], pixel["vsync"]) ^ idle if lane == 0 else 0
            m.d.comb += [encoder.i.data.eq(getattr(colour, channel)),
                         encoder.i.control.eq(control), encoder.i.active.eq(pixel["active"])]
            blank = CONTROL_SYMBOLS[int(mode.v_sync_negative) << 1 | int(mode.h_sync_negative)
                                    if lane == 0 else 0]
            m.d.comb += self.symbols[lane].eq(Mux(filled[-1], encoder.o, blank))
        return m
