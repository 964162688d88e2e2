"""A stand-in for the GPU's side of the display in simulation: pixels in a ROM, rows sent on
request, as the front buffer's reader will.

``FrameServer(words, mode)`` (0xRRGGBB in scan order): takes a request (row, width) on
``line_req`` (when it is not sending), then sends ``width`` pixels from ``words[row * width]``
on, on ``pixels``, honouring ``ready``: the frame of that width stored row after row. With
``words=None`` the pixel at address ``a`` is ``pattern_words(a + 1)[a]``, computed, not
stored (a frame of any size without a ROM to build).
"""

import numpy as np
from amaranth import Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from hdl.display.formats import Rgb888, line_request_layout

__all__ = ["FrameServer", "frame_words", "served_frame", "pattern_words"]

_PATTERN_FACTOR = 0x9E3779B1


def pattern_words(count):
    """The pixels a FrameServer without words sends from addresses 0 ... count - 1."""
    address = np.arange(count, dtype=np.uint64)
    return [int(w) for w in (address * _PATTERN_FACTOR >> 7) & 0xFFFFFF]


def frame_words(frame):
    """(H, W, 3) RGB -> [0xRRGGBB] in scan order."""
    frame = np.asarray(frame, dtype=np.int64)
    return [int(w) for w in (frame[:, :, 0] << 16 | frame[:, :, 1] << 8 | frame[:, :, 2]).ravel()]


def served_frame(words, width, height):
    """The (height, width, 3) frame a FrameServer of ``words`` sends at that size."""
    flat = np.asarray(words[:width * height], dtype=np.int64)
    return np.stack([flat >> 16, flat >> 8 & 0xFF, flat & 0xFF], axis=-1).astype(
        np.uint8).reshape(height, width, 3)


class FrameServer(wiring.Component):
    def __init__(self, words, mode):
        self.words = None if words is None else list(words)
        self.mode = mode
        super().__init__({"line_req": In(stream.Signature(line_request_layout(mode))),
                          "pixels": Out(stream.Signature(Rgb888))})

    def elaborate(self, platform):
        m = Module()
        address = Signal(range(self.mode.h_active * self.mode.v_active + 1))
        left = Signal.like(self.line_req.payload.width)
        out = self.pixels
        advance = (left != 0) & (~out.valid | out.ready)
        m.d.comb += self.line_req.ready.eq(left == 0)
        if self.words is None:
            with m.If(advance):
                m.d.sync += out.payload.eq((address * _PATTERN_FACTOR)[7:31])
        else:
            m.submodules.rom = rom = Memory(shape=24, depth=len(self.words), init=self.words)
            read = rom.read_port()
            m.d.comb += [read.addr.eq(address), read.en.eq(advance), out.payload.eq(read.data)]
        with m.If(advance):
            m.d.sync += [address.eq(address + 1), left.eq(left - 1), out.valid.eq(1)]
        with m.Elif(out.ready):
            m.d.sync += out.valid.eq(0)
        request = self.line_req.payload
        with m.If(self.line_req.valid & (left == 0)):
            m.d.sync += [address.eq(request.row * request.width), left.eq(request.width)]
        return m
