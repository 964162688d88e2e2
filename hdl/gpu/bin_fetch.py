"""Which scene rows an IO unit reads, pixel by pixel: each pixel's bin (docs/binning.md).

For every pixel of the band, in NPG's order (``PixelWalk``), ahead of the core:

1. the pixel's tile: inside the grid (``BIN_GRID``), its table row is read (a *meta* read)
   and gives the bin's first list entry and its length; outside the grid, or without bins,
   the pixel tests every triangle (entries 0 .. ``num_triangles`` - 1 are the triangles);
2. the length goes to ``count`` (the core's control unit takes it when the pixel's RGU is
   done: how many MAINs the pixel runs);
3. for each entry: its list row is read (a meta read, once per four entries) and gives the
   triangle; then the triangle's 7 rows are read (*row* reads, for the IO unit's queue).

The unit resets this one when it takes a band (the walk starts again at the band's initial
position). Reads leave on ``read`` (``read_row``: a row read, which the IO unit issues only while its
queue has room for the answer). Answers come back in order; a meta read waits for its answer
(``waiting``), so the IO unit knows an answer for ``meta`` as the last one outstanding.

Fields are found with shifts (hdl/gpu/scene_layout.py); the tile's number is tile_y x columns +
tile_x, one small multiplication per pixel, registered.
"""

from amaranth import Cat, Module, Signal, unsigned
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hdl.gpu.pixel_walk import PixelWalk
from hdl.gpu.scene_layout import (ENTRY_SHIFT, FIELD_BITS, GRID_AXIS_BITS, PAIR_SHIFT,
                                  ROWS_PER_TRIANGLE, SLOT_ROWS)
from hdl.isa import VectorLayout

__all__ = ["BinFetch"]

def _field(row, k):
    """Field ``k`` (a constant or a signal) of a row's 96 bits."""
    return row.as_value().word_select(k, FIELD_BITS)


class BinFetch(wiring.Component):
    """Parameter: ``scene_rows`` (the scene memory's depth)."""

    def __init__(self, scene_rows):
        self.scene_rows = scene_rows
        super().__init__({
            "initial_x": In(32), "initial_y": In(32), "final_x": In(32),
            "num_triangles": In(16),
            "grid_columns": In(GRID_AXIS_BITS), "grid_rows": In(GRID_AXIS_BITS),
            "table_base": In(range(scene_rows)), "list_base": In(range(scene_rows)),
            "read": Out(stream.Signature(range(scene_rows))),
            "read_row": Out(1),
            "waiting": Out(1),
            "meta": In(stream.Signature(VectorLayout, always_ready=True)),
            "count": Out(stream.Signature(unsigned(16))),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.walk = walk = PixelWalk()
        m.d.comb += [walk.initial_x.eq(self.initial_x),
                     walk.initial_y.eq(self.initial_y), walk.final_x.eq(self.final_x)]
        tile_x = Signal(GRID_AXIS_BITS)
        row_start = Signal(2 * GRID_AXIS_BITS)          # tile_y x columns
        in_grid = Signal()
        half = Signal(PAIR_SHIFT)                       # the tile's pair in its table row
        entry = Signal(FIELD_BITS)                      # the next list entry (or triangle)
        remaining = Signal(FIELD_BITS)                  # entries left for this pixel
        direct = Signal()                               # entries are the triangles
        list_row = Signal(FIELD_BITS)                   # the list row held ...
        list_valid = Signal()
        list_data = Signal(VectorLayout)                # ... and its fields
        triangle = Signal(FIELD_BITS)
        row = Signal(range(ROWS_PER_TRIANGLE))
        read_taken = self.read.valid & self.read.ready

        with m.FSM():
            with m.State("START"):              # (the band's entry is there a cycle after it
                m.d.comb += walk.load.eq(1)     # is taken, when the unit resets this one)
                m.next = "WALK"
            with m.State("WALK"):               # the walk's position is the pixel's
                m.d.sync += [
                    tile_x.eq(walk.tile_x),
                    row_start.eq(walk.tile_y[:GRID_AXIS_BITS] * self.grid_columns),
                    in_grid.eq(walk.inside & (walk.tile_x < self.grid_columns)
                               & (walk.tile_y < self.grid_rows))]
                m.next = "TILE"
            with m.State("TILE"):
                tile = Signal(2 * GRID_AXIS_BITS)
                m.d.comb += tile.eq(row_start + tile_x)
                with m.If(in_grid):
                    m.d.comb += [self.read.valid.eq(1),
                                 self.read.payload.eq(self.table_base + (tile >> PAIR_SHIFT))]
                    with m.If(read_taken):
                        m.d.sync += half.eq(tile[:PAIR_SHIFT])
                        m.next = "TABLE"
                with m.Else():
                    m.d.sync += [entry.eq(0), remaining.eq(self.num_triangles), direct.eq(1)]
                    m.next = "COUNT"
            with m.State("TABLE"):
                m.d.comb += self.waiting.eq(1)
                with m.If(self.meta.valid):
                    m.d.sync += [entry.eq(_field(self.meta.payload, 2 * half)),
                                 remaining.eq(_field(self.meta.payload, 2 * half + 1)),
                                 direct.eq(0)]
                    m.next = "COUNT"
            with m.State("COUNT"):
                m.d.comb += [self.count.valid.eq(1), self.count.payload.eq(remaining)]
                with m.If(self.count.ready):
                    with m.If(remaining == 0):
                        m.d.comb += walk.advance.eq(1)
                        m.next = "WALK"
                    with m.Else():
                        m.next = "TRIANGLE"
            with m.State("TRIANGLE"):
                list_index = entry >> ENTRY_SHIFT
                with m.If(direct):
                    m.d.sync += [triangle.eq(entry), row.eq(0)]
                    m.next = "ROWS"
                with m.Elif(list_valid & (list_row == list_index)):
                    m.d.sync += [triangle.eq(_field(list_data, entry[:ENTRY_SHIFT])),
                                 row.eq(0)]
                    m.next = "ROWS"
                with m.Else():
                    m.d.comb += [self.read.valid.eq(1),
                                 self.read.payload.eq(self.list_base + list_index)]
                    with m.If(read_taken):
                        m.d.sync += [list_row.eq(list_index), list_valid.eq(0)]
                        m.next = "LIST"
            with m.State("LIST"):
                m.d.comb += self.waiting.eq(1)
                with m.If(self.meta.valid):
                    m.d.sync += [list_data.eq(self.meta.payload), list_valid.eq(1)]
                    m.next = "TRIANGLE"
            with m.State("ROWS"):
                m.d.comb += [self.read.valid.eq(1), self.read_row.eq(1),
                             self.read.payload.eq(Cat(row, triangle))]
                assert SLOT_ROWS == 1 << len(row)
                with m.If(read_taken):
                    m.d.sync += row.eq(row + 1)
                    with m.If(row == ROWS_PER_TRIANGLE - 1):
                        m.d.sync += [entry.eq(entry + 1), remaining.eq(remaining - 1)]
                        with m.If(remaining == 1):
                            m.d.comb += walk.advance.eq(1)
                            m.next = "WALK"
                        with m.Else():
                            m.next = "TRIANGLE"
        return m
