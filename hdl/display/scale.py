"""Showing a W x H frame on a mode's active area at the largest integer scale that fits,
centred, on black.

``ScaleFit`` finds, for a frame size given at run time, ``scale = min(h_active // W,
v_active // H)`` and the top left corner ``(x0, y0)`` of the scaled frame: by adding W and H
until one more would not fit (at most ``min(h_active, v_active)`` steps, run once per frame in
the vertical blanking: no divider).

``ScreenMap`` follows the raster (hdl/display/timing.py) and says, for each pixel, whether it
shows the frame (``inside``) and which of the frame's columns (``u``) and rows (``row``). The
rows come from a line buffer of two halves (hdl/display/line_buffer.py): row r in half
``r % 2``. ScreenMap asks for each row once a frame (``request``): row 0 at the ``line_end``
of line ``v_total - REQUEST_LINES_AHEAD`` (two lines and the blanking before the frame, and
at least two lines after the vertical blanking began, so that the GPU's buffer swap at the
blanking comes first), and row r + 1 when row r starts to show, into the half row r - 1 has
just left; a row is shown on ``scale`` lines, read from the line
buffer each time.
"""

from amaranth import Module, Signal, Mux
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from hdl.display.mode import VideoMode

__all__ = ["ScaleFit", "ScreenMap", "REQUEST_LINES_AHEAD"]

#: row 0 of a frame is asked for at the line_end of line ``v_total - REQUEST_LINES_AHEAD``
REQUEST_LINES_AHEAD = 3


class ScaleFit(wiring.Component):
    """``start`` (with ``width``, ``height``): ``busy`` until the fit is found; then ``valid``
    (1 <= width <= h_active and 1 <= height <= v_active), ``scale``, ``x0``, ``y0``."""

    def __init__(self, mode: VideoMode):
        self.mode = mode
        super().__init__({
            "start": In(1), "width": In(range(mode.h_active + 1)),
            "height": In(range(mode.v_active + 1)),
            "busy": Out(1), "valid": Out(1),
            "scale": Out(range(1, max(mode.h_active, mode.v_active) + 1), init=1),
            "x0": Out(range(mode.h_active)), "y0": Out(range(mode.v_active)),
        })

    def elaborate(self, platform):
        m = Module()
        mode = self.mode
        width, height = Signal.like(self.width), Signal.like(self.height)
        # the scaled size so far: scale * width, scale * height
        span_x = Signal(range(mode.h_active + 1))
        span_y = Signal(range(mode.v_active + 1))
        fits = (span_x + width <= mode.h_active) & (span_y + height <= mode.v_active)
        with m.If(self.start):
            ok = ((self.width >= 1) & (self.width <= mode.h_active) &
                  (self.height >= 1) & (self.height <= mode.v_active))
            m.d.sync += [width.eq(self.width), height.eq(self.height), span_x.eq(self.width),
                         span_y.eq(self.height), self.scale.eq(1), self.valid.eq(ok),
                         self.busy.eq(ok)]
        with m.Elif(self.busy & fits):
            m.d.sync += [span_x.eq(span_x + width), span_y.eq(span_y + height),
                         self.scale.eq(self.scale + 1)]
        with m.Elif(self.busy):
            m.d.sync += [self.busy.eq(0), self.x0.eq((mode.h_active - span_x) >> 1),
                         self.y0.eq((mode.v_active - span_y) >> 1)]
        return m


class ScreenMap(wiring.Component):
    """Inputs: the raster (``x``, ``y``, ``active``, ``line_end`` of ``VideoTiming``), the frame
    (``width``, ``height``, ``scale``, ``x0``, ``y0``, ``showing``) and the line buffer's
    progress since ``restart`` (``rows_filled`` rows complete, ``filling`` pixels of the
    next).

    Outputs, a cycle after the raster's pixel: ``inside``, ``u``; ``row`` (the frame row the
    current line shows; it changes at ``line_end``). ``request`` (one cycle, with
    ``request_row``): fetch that row. ``restart``: with row 0's request (the line buffer starts
    over). ``underrun`` (sticky): a pixel was shown before it had arrived."""

    def __init__(self, mode: VideoMode):
        self.mode = mode
        col, row = range(mode.h_active), range(mode.v_active)
        scale = range(1, max(mode.h_active, mode.v_active) + 1)
        super().__init__({
            "x": In(range(mode.h_total)), "y": In(range(mode.v_total)), "active": In(1),
            "line_end": In(1),
            "width": In(range(mode.h_active + 1)), "height": In(range(mode.v_active + 1)),
            "scale": In(scale), "x0": In(col), "y0": In(row), "showing": In(1),
            "rows_filled": In(range(mode.v_active + 1)), "filling": In(col),
            "inside": Out(1), "u": Out(col), "row": Out(row),
            "request": Out(1), "request_row": Out(row), "restart": Out(1), "underrun": Out(1),
        })
        self.vertical = data.StructLayout({"shown": 1, "row": row, "repeat": scale})
        self.horizontal = data.StructLayout({"inside": 1, "u": col, "repeat": scale})

    def elaborate(self, platform):
        m = Module()
        mode = self.mode
        last = mode.v_total - 1
        vert = Signal(self.vertical)
        horiz = Signal(self.horizontal)
        m.d.comb += [self.inside.eq(horiz.inside), self.u.eq(horiz.u), self.row.eq(vert.row)]

        # vertical: at the end of line y, the state for line y + 1
        next_line = Mux(self.y == last, 0, self.y + 1)
        m.d.sync += [self.request.eq(0), self.restart.eq(0)]

        def ask(row):
            m.d.sync += [self.request.eq(1), self.request_row.eq(row)]

        def show(row):
            m.d.sync += [vert.shown.eq(1), vert.row.eq(row), vert.repeat.eq(1)]
            with m.If(row + 1 < self.height):
                ask(row + 1)

        with m.If(self.line_end):
            with m.If(self.showing & (next_line == self.y0)):
                show(0)
            with m.Elif(vert.shown & (vert.repeat == self.scale)):
                with m.If(vert.row == self.height - 1):
                    m.d.sync += vert.shown.eq(0)
                with m.Else():
                    show(vert.row + 1)
            with m.Elif(vert.shown):
                m.d.sync += vert.repeat.eq(vert.repeat + 1)
            with m.If(self.showing & (self.y == mode.v_total - REQUEST_LINES_AHEAD)):
                ask(0)
                m.d.sync += self.restart.eq(1)

        # horizontal: the state of this pixel, from the previous pixel's
        with m.If(vert.shown & self.active & (self.x == self.x0)):
            m.d.sync += [horiz.inside.eq(1), horiz.u.eq(0), horiz.repeat.eq(1)]
        with m.Elif(horiz.inside & (horiz.repeat == self.scale)):
            m.d.sync += [horiz.u.eq(horiz.u + 1), horiz.repeat.eq(1)]
            with m.If(horiz.u == self.width - 1):
                m.d.sync += horiz.inside.eq(0)
        with m.Elif(horiz.inside):
            m.d.sync += horiz.repeat.eq(horiz.repeat + 1)

        # the pixel read now must have arrived
        arrived = ((self.rows_filled > vert.row) |
                   ((self.rows_filled == vert.row) & (self.filling > horiz.u)))
        with m.If(horiz.inside & ~arrived):
            m.d.sync += self.underrun.eq(1)
        return m
