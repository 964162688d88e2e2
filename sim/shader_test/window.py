"""The window: where a rectangle lands, the 8-bit framebuffer's values, and the probes'
tolerance.

Coordinates are GL's: the origin is the window's bottom left, as THEIA's (y = 0 is the bottom
row). ``draw rect X Y W H`` gives the rectangle in the vertex shader's input space: clip
coordinates (-1 -1 2 2 is the whole window) unless the vertex shader applies the projection,
which ``ortho`` sets to window pixels (``ortho L R B T`` to any box); ``draw rect ortho``
gives window pixels whatever the vertex shader does. A pixel is covered when its centre
(x + 0.5, y + 0.5) lies in the rectangle, half-open at the right and the top (GL's
rasterisation rule for the rectangle's two triangles).

A channel v is stored as the byte round(clamp(v, 0, 1) · 255) (UNORM8; NaN as 0) and read
back as byte / 255. A probe fails when a channel's |read − expected| >= tolerance, computed in
binary32 as piglit does; the tolerance is piglit's for an 8-bit channel, 3 / 2^8 = 0.01171875
(``tolerance`` changes it): a value within about 1.5 steps of 1/255.
"""

import math

import numpy as np

__all__ = ["DEFAULT_TOLERANCE", "Projection", "covered_pixels", "pixels_to_clip", "unorm8",
           "first_mismatch"]

DEFAULT_TOLERANCE = (3 / 256,) * 4


class Projection:
    """An orthographic projection x_ndc = sx·x + tx (y likewise), GL's glOrtho."""

    def __init__(self, left=-1.0, right=1.0, bottom=-1.0, top=1.0):
        self.sx, self.tx = 2 / (right - left), -(right + left) / (right - left)
        self.sy, self.ty = 2 / (top - bottom), -(top + bottom) / (top - bottom)

    def apply(self, x, y):
        return self.sx * x + self.tx, self.sy * y + self.ty


def covered_pixels(rect, window, projection=None):
    """The pixels a rectangle (x, y, w, h) in clip coordinates, through ``projection`` (None:
    the identity), covers: (x0, x1, y0, y1) with x0 <= x < x1 (empty if x0 >= x1 or
    y0 >= y1)."""
    width, height = window
    x, y, w, h = rect
    corners = [(x, y), (x + w, y + h)]
    if projection is not None:
        corners = [projection.apply(*c) for c in corners]
    (ax, ay), (bx, by) = [((cx + 1) * width / 2, (cy + 1) * height / 2) for cx, cy in corners]
    return (*_span(min(ax, bx), max(ax, bx), width), *_span(min(ay, by), max(ay, by), height))


def pixels_to_clip(rect, window):
    """A rectangle in window pixels as clip coordinates (``draw rect ortho``)."""
    width, height = window
    x, y, w, h = rect
    return (-1 + 2 * x / width, -1 + 2 * y / height, 2 * w / width, 2 * h / height)


def _span(low, high, size):
    """The pixels p with low <= p + 0.5 < high, inside 0 ... size - 1."""
    if math.isnan(low) or math.isnan(high):
        return 0, 0
    first = max(0, min(size, math.ceil(low - 0.5)))
    last = max(0, min(size, math.ceil(high - 0.5)))
    return first, max(first, last)


def unorm8(value):
    """The byte a framebuffer channel holds for ``value`` (a Python float)."""
    if math.isnan(value):
        return 0
    return int(math.floor(min(max(value, 0.0), 1.0) * 255 + 0.5))


def first_mismatch(pixels, expected, tolerance):
    """The (row, column) of the first pixel (rows from the bottom, then columns) of
    ``pixels`` (an array of bytes, rows × columns × 4) that fails a probe of ``expected``
    (3 or 4 floats: the channels compared) with ``tolerance`` (four floats), or None."""
    channels = len(expected)
    read = (pixels[..., :channels].astype(np.float64) / 255).astype(np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        wanted = np.array(expected, dtype=np.float64).astype(np.float32)
        limit = np.array(tolerance[:channels], dtype=np.float64).astype(np.float32)
        failing = np.any(np.abs(read - wanted) >= limit, axis=-1)
    if not failing.any():
        return None
    row, column = np.argwhere(failing)[0]
    return int(row), int(column)
