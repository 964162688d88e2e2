"""Two rows of a frame in block RAM: one filled while the other is shown.

Filling: ``pixels`` (always ready) come in scan order, ``width`` of them to a row, the rows in
order from ``restart`` on: row r goes to half ``r % 2``. ``rows_filled`` counts the rows
complete since ``restart`` (up to the mode's height).
Reading: ``half`` and ``u`` -> ``data`` in the next cycle.

A half is ``2 ** ceil(log2(h_active))`` pixels (the half is the address's top bit): for 640
pixels of RGB888, 2048 x 24 bits, three DP16KD in 2048 x 9.
"""

from amaranth import Module, Signal, Cat
from amaranth.lib import wiring, stream
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from hdl.display.formats import Rgb888
from hdl.display.mode import VideoMode

__all__ = ["LineBuffer"]


class LineBuffer(wiring.Component):
    def __init__(self, mode: VideoMode):
        self.mode = mode
        self.column_bits = len(Signal(range(mode.h_active)))
        super().__init__({
            "pixels": In(stream.Signature(Rgb888, always_ready=True)),
            "width": In(range(mode.h_active + 1)), "restart": In(1),
            "rows_filled": Out(range(mode.v_active + 1)),
            "filling": Out(range(mode.h_active)),
            "half": In(1), "u": In(range(mode.h_active)), "data": Out(Rgb888),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.rows = rows = Memory(shape=Rgb888, depth=2 << self.column_bits, init=[])
        write = rows.write_port()
        read = rows.read_port()
        fill_half = Signal()
        fill_u = self.filling               # (range(h_active): column_bits wide)
        m.d.comb += [write.addr.eq(Cat(fill_u, fill_half)), write.data.eq(self.pixels.payload),
                     write.en.eq(self.pixels.valid),
                     read.addr.eq(Cat(self.u, self.half)),
                     self.data.eq(read.data)]
        with m.If(self.restart):
            m.d.sync += [fill_half.eq(0), fill_u.eq(0), self.rows_filled.eq(0)]
        with m.Elif(self.pixels.valid):
            with m.If(fill_u == self.width - 1):
                m.d.sync += [fill_u.eq(0), fill_half.eq(~fill_half)]
                with m.If(self.rows_filled != self.mode.v_active):
                    m.d.sync += self.rows_filled.eq(self.rows_filled + 1)
            with m.Else():
                m.d.sync += fill_u.eq(fill_u + 1)
        return m
