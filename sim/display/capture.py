"""The monitor of a simulated board: a display's output recorded on the fast backend as it is
sent and decoded as a receiver does (sim/display/tmds_decode.py).

``ScreenCapture(fast, mode)`` watches a compiled top with a display in its own clock domains
(``sim.fast.gpu.start_memory_system`` runs them): the TMDS bit pairs ``data`` at every edge of
the ``tmds`` clock (the whole ``DisplayUnit``: the board's pins), or, for a top with only the
``DisplayPipeline``, its ``symbols`` at every edge of the ``pixel`` clock. ``take()`` lets the
display settle on what it was given (a frame finished is swapped in at the next vertical
blanking and shown from the frame after), records two frame times and a line and returns the
``Screen`` of the first whole frame (its rules checked, ``TmdsStreamError`` if one is broken).
"""

import numpy as np

from sim.display.tmds_decode import read_frame, symbols_from_bits

__all__ = ["ScreenCapture", "stream_checks"]

#: display frames run before a capture: the swap at the next vertical blanking, the frame after
SETTLE_FRAMES = 2


class ScreenCapture:
    def __init__(self, fast, mode, sync_hz, pixel_hz):
        self.fast, self.mode = fast, mode
        self.serial = "data" in fast.ports
        if self.serial:
            self.monitor = fast.add_clock_monitor("tmds", ["data"])
        else:
            self.monitor = fast.add_clock_monitor("pixel", ["symbols"])
        self.frame_cycles = int(mode.h_total * mode.v_total * sync_hz / pixel_hz) + 1

    def take(self):
        fast, mode = self.fast, self.mode
        fast.step(SETTLE_FRAMES * self.frame_cycles)
        per_pixel = 5 if self.serial else 1         # (a DDR pair of bits each tmds edge)
        edges = per_pixel * mode.h_total * (2 * mode.v_total + 1)
        fast.arm_clock_monitor(self.monitor, edges)
        fast.run_clock_monitor(self.monitor, max_cycles=3 * self.frame_cycles)
        words = fast.take_clock_monitor(self.monitor).astype(np.int64)
        if self.serial:
            # data: [first bits of lanes 0, 1, 2, second bits of lanes 0, 1, 2]
            pairs = np.stack([(words >> k) & 1 for k in range(6)]).reshape(2, 3, -1)
            lanes, _ = symbols_from_bits(pairs.transpose(1, 2, 0).reshape(3, -1))
        else:
            lanes = np.stack([(words >> (10 * k)) & 0x3FF for k in range(3)])
        return read_frame(lanes, mode)


def stream_checks(timing):
    """One phrase of what ``read_frame`` measured and checked of a stream (``timing``: its
    ``Raster``)."""
    t = timing
    sign = {True: "negative", False: "positive"}
    return (f"{t.h_active}x{t.v_active} active, {t.h_total}x{t.v_total} total; hsync "
            f"{sign[t.h_sync_negative]}, pixels {t.h_active + t.h_front}-"
            f"{t.h_active + t.h_front + t.h_sync - 1} of each line; vsync "
            f"{sign[t.v_sync_negative]}, lines {t.v_active + t.v_front}-"
            f"{t.v_active + t.v_front + t.v_sync - 1}; control symbols only in blanking, "
            f"every data symbol the encoder's, running disparity within +-8")
