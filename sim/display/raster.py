"""What a DVI transmitter of a ``VideoMode`` sends, computed in Python: the raster's levels
and the three lanes' symbols for a picture, encoded with the reference (``sim.display.tmds``).

The raster is the one hdl/display/timing.py scans: position (y, x) with (0, 0) the first
active pixel, lines of ``h_total``, the vertical sync starting and ending at an hsync leading
edge. Each line's data period starts at running disparity 0 (the blanking before it resets
it), so the lines are encoded side by side, one column at a time.
"""

import numpy as np

from sim.display.tmds import CNT_BOUND, CONTROL, encode

__all__ = ["raster_levels", "transmit", "scaled_screen"]


def raster_levels(mode):
    """(active, hsync, vsync) as (v_total, h_total) bool arrays of the levels sent."""
    y, x = np.mgrid[0:mode.v_total, 0:mode.h_total]
    active = (x < mode.h_active) & (y < mode.v_active)
    hsync_start = mode.h_active + mode.h_front
    hsync = (x >= hsync_start) & (x < hsync_start + mode.h_sync)
    position = y * mode.h_total + x
    vsync_begin = (mode.v_active + mode.v_front - 1) * mode.h_total + hsync_start
    vsync = (position >= vsync_begin) & (position < vsync_begin + mode.v_sync * mode.h_total)
    return active, hsync ^ mode.h_sync_negative, vsync ^ mode.v_sync_negative


def _encode_table():
    """[cnt + CNT_BOUND, byte] -> (symbol, cnt after + CNT_BOUND)."""
    size = 2 * CNT_BOUND + 1
    symbol = np.zeros((size, 256), dtype=np.int64)
    after = np.zeros((size, 256), dtype=np.int64)
    for cnt in range(-CNT_BOUND, CNT_BOUND + 1, 2):
        for byte in range(256):
            s, c = encode(byte, cnt)
            symbol[cnt + CNT_BOUND, byte], after[cnt + CNT_BOUND, byte] = s, c + CNT_BOUND
    return symbol, after


def transmit(picture, mode, frames=1):
    """(3, frames * v_total * h_total) symbols (lane 0 blue, 1 green, 2 red) for ``picture``
    ((v_active, h_active, 3) RGB), from raster position (0, 0)."""
    picture = np.asarray(picture)
    if picture.shape != (mode.v_active, mode.h_active, 3):
        raise ValueError(f"transmit: the picture is {picture.shape}, the mode "
                         f"{(mode.v_active, mode.h_active, 3)}")
    active, hsync, vsync = raster_levels(mode)
    control = np.array(CONTROL)[(vsync.astype(int) << 1) | hsync]
    lanes = np.stack([control, np.full_like(control, CONTROL[0]),
                      np.full_like(control, CONTROL[0])])
    symbol, after = _encode_table()
    # bytes by (lane, line), column by column
    data = picture[:, :, ::-1].transpose(2, 0, 1).astype(np.int64)
    cnt = np.full(data.shape[:2], CNT_BOUND)
    for column in range(mode.h_active):
        byte = data[:, :, column]
        lanes[:, :mode.v_active, column] = symbol[cnt, byte]
        cnt = after[cnt, byte]
    return np.tile(lanes.reshape(3, -1), frames)


def scaled_screen(frame, mode):
    """What the display shows for ``frame`` ((H, W, 3)): the largest integer scale that fits
    the mode's active area, centred, on black."""
    frame = np.asarray(frame, dtype=np.uint8)
    height, width = frame.shape[:2]
    scale = min(mode.h_active // width, mode.v_active // height)
    screen = np.zeros((mode.v_active, mode.h_active, 3), dtype=np.uint8)
    x0 = (mode.h_active - scale * width) // 2
    y0 = (mode.v_active - scale * height) // 2
    screen[y0:y0 + scale * height, x0:x0 + scale * width] = \
        frame.repeat(scale, axis=0).repeat(scale, axis=1)
    return screen
