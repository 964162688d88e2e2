"""The raster of a ``VideoMode``: counters, sync pulses, data enable and events.

``x`` counts the pixels of a line from 0 (its first active pixel) to ``h_total - 1``, ``y`` the
lines of a frame from 0 (the first active line) to ``v_total - 1``: the picture is
``x < h_active`` and ``y < v_active``, the blanking follows it (front porch, sync, back porch).
``hsync`` and ``vsync`` are the levels sent (the pulse is low for a negative-polarity mode).
The vertical sync starts and ends at the leading edge of a horizontal sync pulse, as VESA and
CEA-861 time progressive modes: it covers the ``v_sync`` lines that begin at the hsync leading
edges of lines ``v_active + v_front - 1`` ... (a receiver counts lines from hsync to hsync).

Events (one cycle each): ``line_end`` on the first blank pixel of every line (``x ==
h_active``), ``vblank`` on the ``line_end`` of the last active line (the vertical blanking
begins), ``frame_start`` on the first active pixel (``x == 0, y == 0``).
"""

from amaranth import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import Out

from hdl.display.mode import VideoMode

__all__ = ["VideoTiming"]


class VideoTiming(wiring.Component):
    """Parameter ``mode``: a ``VideoMode``. All outputs belong to one pixel (the same cycle)."""

    def __init__(self, mode: VideoMode):
        self.mode = mode
        super().__init__({
            "x": Out(range(mode.h_total)), "y": Out(range(mode.v_total)),
            "active": Out(1), "hsync": Out(1), "vsync": Out(1),
            "line_end": Out(1), "vblank": Out(1), "frame_start": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        mode = self.mode
        x, y = self.x, self.y
        hsync_start = mode.h_active + mode.h_front
        vsync_first = mode.v_active + mode.v_front - 1      # the line whose hsync starts it
        with m.If(x == mode.h_total - 1):
            m.d.sync += x.eq(0)
            with m.If(y == mode.v_total - 1):
                m.d.sync += y.eq(0)
            with m.Else():
                m.d.sync += y.eq(y + 1)
        with m.Else():
            m.d.sync += x.eq(x + 1)

        # the vertical pulse, changed in the cycle before an hsync leading edge
        vsync_pulse = Signal()
        with m.If(x == hsync_start - 1):
            m.d.sync += vsync_pulse.eq((y >= vsync_first) & (y < vsync_first + mode.v_sync))
        hsync_pulse = (x >= hsync_start) & (x < hsync_start + mode.h_sync)
        m.d.comb += [
            self.active.eq((x < mode.h_active) & (y < mode.v_active)),
            self.hsync.eq(hsync_pulse ^ mode.h_sync_negative),
            self.vsync.eq(vsync_pulse ^ mode.v_sync_negative),
            self.line_end.eq(x == mode.h_active),
            self.vblank.eq((x == mode.h_active) & (y == mode.v_active - 1)),
            self.frame_start.eq((x == 0) & (y == 0)),
        ]
        return m
