"""NPG's walk over a band's pixels, mirrored beside the core (theia-system.md §3).

The IO unit fetches a pixel's bin before the core asks for it, so it needs the pixel's
PIXEL_2D_POSITION without reading the core's registers: it follows NPG's rule itself. INITIAL
sets the position to the band's PIXEL_2D_INITIAL_POSITION (``load``); each NPG (``advance``)
does ``if x >= LAST_COL.x: x = 0, y += one else x += one`` with LAST_COL.x =
PIXEL_2D_FINAL_POSITION.x - one, signed. The walk does not stop at the band's end: the core
ends the band, and a pixel fetched ahead of it is dropped. A scene whose user code could move
the position another way is never binned (docs/binning.md), so the mirror and the core agree.

``tile_x``, ``tile_y``: the position's integer part divided by the tile size, and ``inside``
when both are non-negative (a negative word is left of or above the grid).
"""

from amaranth import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hdl.gpu.scene_layout import TILE_SHIFT
from hdl.isa import ONE, SCALE

__all__ = ["PixelWalk"]


class PixelWalk(wiring.Component):
    load: In(1)
    initial_x: In(32)
    initial_y: In(32)
    final_x: In(32)
    advance: In(1)
    x: Out(32)
    y: Out(32)
    tile_x: Out(32 - SCALE - TILE_SHIFT - 1)
    tile_y: Out(32 - SCALE - TILE_SHIFT - 1)
    inside: Out(1)

    def elaborate(self, platform):
        m = Module()
        last_col = Signal(32)
        with m.If(self.load):
            m.d.sync += [self.x.eq(self.initial_x), self.y.eq(self.initial_y),
                         last_col.eq(self.final_x - ONE)]
        with m.Elif(self.advance):
            with m.If(self.x.as_signed() >= last_col.as_signed()):
                m.d.sync += [self.x.eq(0), self.y.eq(self.y + ONE)]
            with m.Else():
                m.d.sync += self.x.eq(self.x + ONE)
        m.d.comb += [self.tile_x.eq(self.x[SCALE + TILE_SHIFT:31]),
                     self.tile_y.eq(self.y[SCALE + TILE_SHIFT:31]),
                     self.inside.eq(~self.x[31] & ~self.y[31])]
        return m
