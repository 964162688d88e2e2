"""Video modes: the raster a display unit scans, as frozen dataclasses.

A line is ``h_active`` pixels of picture followed by the horizontal blanking: front porch,
sync pulse, back porch; a frame is ``v_active`` lines followed by the vertical blanking (front
porch, sync, back porch lines). ``Raster`` is that and the syncs' polarities (what a receiver
measures); ``VideoMode`` names one. ``VGA_640X480`` is VESA's 640x480 at 60 Hz (800 x 525
total, both syncs negative). Its nominal pixel clock is 25.175 MHz; the board makes 25 MHz,
which gives 31.25 kHz lines and 59.52 Hz frames, inside what monitors accept for this mode.
"""

from dataclasses import dataclass, field, fields

__all__ = ["Raster", "VideoMode", "VGA_640X480", "VIDEO_MODES"]


@dataclass(frozen=True)
class Raster:
    h_active: int
    h_front: int
    h_sync: int
    h_back: int
    v_active: int
    v_front: int
    v_sync: int
    v_back: int
    #: True: the sync pulse is a low level (idle high)
    h_sync_negative: bool = True
    v_sync_negative: bool = True

    @property
    def h_blank(self):
        return self.h_front + self.h_sync + self.h_back

    @property
    def v_blank(self):
        return self.v_front + self.v_sync + self.v_back

    @property
    def h_total(self):
        return self.h_active + self.h_blank

    @property
    def v_total(self):
        return self.v_active + self.v_blank

    def refresh_hz(self, clock_hz):
        """Frames per second at a pixel clock of ``clock_hz``."""
        return clock_hz / (self.h_total * self.v_total)

    def differences(self, other):
        """[(field, this raster's, the other's)] where two rasters differ."""
        return [(f.name, getattr(self, f.name), getattr(other, f.name))
                for f in fields(Raster) if getattr(self, f.name) != getattr(other, f.name)]


@dataclass(frozen=True)
class VideoMode(Raster):
    name: str = field(kw_only=True)
    #: the pixel clock the standard names (Hz); the hardware's may differ slightly
    nominal_clock_hz: float = field(default=0.0, kw_only=True)

    def __post_init__(self):
        for name in ("h_active", "h_sync", "v_active", "v_sync"):
            if getattr(self, name) < 1:
                raise ValueError(f"video mode {self.name}: {name} must be at least 1")
        for name in ("h_front", "h_back", "v_front", "v_back"):
            if getattr(self, name) < 0:
                raise ValueError(f"video mode {self.name}: {name} must not be negative")
        # the display unit asks for a frame's first row three lines before the frame starts,
        # at least one line after the vertical blanking began (docs/display.md, "Scaling")
        if self.v_blank < 4:
            raise ValueError(f"video mode {self.name}: at least 4 blank lines needed "
                             f"(has {self.v_blank})")
        if self.h_blank < 4:
            raise ValueError(f"video mode {self.name}: at least 4 blank pixels a line needed "
                             f"(has {self.h_blank})")


#: VESA DMT 640x480 at 60 Hz (the borders of the DMT table folded into the porches)
VGA_640X480 = VideoMode(h_active=640, h_front=16, h_sync=96, h_back=48,
                        v_active=480, v_front=10, v_sync=2, v_back=33,
                        name="640x480@60", nominal_clock_hz=25.175e6)

VIDEO_MODES = {mode.name: mode for mode in (VGA_640X480,)}
