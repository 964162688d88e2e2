"""A stand-in for the GPU's side of the display in simulation: a frame in a ROM, its rows sent
on request, as the front buffer's reader will.

``FrameServer(frame)`` (an (H, W, 3) RGB array): takes a row number on ``line_req`` (when it
is not sending), then sends that row's W pixels on ``pixels``, honouring ``ready``.
"""

import numpy as np
from amaranth import Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from hdl.display.formats import Rgb888

__all__ = ["FrameServer", "frame_words"]


def frame_words(frame):
    """(H, W, 3) RGB -> [0xRRGGBB] in scan order."""
    frame = np.asarray(frame, dtype=np.int64)
    return [int(w) for w in (frame[:, :, 0] << 16 | frame[:, :, 1] << 8 | frame[:, :, 2]).ravel()]


class FrameServer(wiring.Component):
    def __init__(self, words, width, height, row_shape):
        self.words = list(words)
        self.width, self.height = width, height
        if len(self.words) != width * height:
            raise ValueError(f"FrameServer: {len(self.words)} pixels for {width}x{height}")
        super().__init__({"line_req": In(stream.Signature(row_shape)),
                          "pixels": Out(stream.Signature(Rgb888))})

    def elaborate(self, platform):
        m = Module()
        m.submodules.rom = rom = Memory(shape=24, depth=len(self.words), init=self.words)
        read = rom.read_port()
        address = Signal(range(len(self.words) + 1))
        left = Signal(range(self.width + 1))
        out = self.pixels
        advance = (left != 0) & (~out.valid | out.ready)
        m.d.comb += [read.addr.eq(address), read.en.eq(advance), out.payload.eq(read.data),
                     self.line_req.ready.eq(left == 0)]
        with m.If(advance):
            m.d.sync += [address.eq(address + 1), left.eq(left - 1), out.valid.eq(1)]
        with m.Elif(out.ready):
            m.d.sync += out.valid.eq(0)
        with m.If(self.line_req.valid & (left == 0)):
            m.d.sync += [address.eq(self.line_req.payload * self.width), left.eq(self.width)]
        return m
