"""Shared by the display's tests: a raster with positive syncs, and the plain screen the
display shows while no frame is configured."""

import numpy as np

from hdl.display.formats import PLAIN_BACKGROUND, PLAIN_BORDER
from hdl.display.mode import VideoMode

__all__ = ["POSITIVE_MODE", "plain_screen"]

POSITIVE_MODE = VideoMode(h_active=10, h_front=3, h_sync=4, h_back=1,
                          v_active=7, v_front=2, v_sync=3, v_back=1,
                          h_sync_negative=False, v_sync_negative=False, name="positive syncs")


def _rgb(word):
    return [word >> 16, word >> 8 & 0xFF, word & 0xFF]


def plain_screen(mode):
    """(v_active, h_active, 3): dark blue, a one-pixel light grey border."""
    screen = np.empty((mode.v_active, mode.h_active, 3), dtype=np.uint8)
    screen[:] = _rgb(PLAIN_BACKGROUND)
    screen[[0, -1], :] = _rgb(PLAIN_BORDER)
    screen[:, [0, -1]] = _rgb(PLAIN_BORDER)
    return screen
