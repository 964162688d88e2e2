"""**The** layout of the scene memory, which the host writes and the IO units read: the
triangles' slots, then the screen-space bins (docs/binning.md).

A row is 96 bits, the words x, y, z as ``VectorLayout`` places them. Triangle t takes the slot of ``SLOT_ROWS``
rows from row ``t * SLOT_ROWS``: its 7 rows V0 UV0 V1 UV1 V2 UV2 DIFFUSE, then one unused (a
power of two: the address is the triangle and the row side by side).

The image is cut into tiles of ``TILE`` x ``TILE`` pixels, numbered row-major over
``columns`` x ``rows`` (``BIN_GRID``: columns in bits 15:0, rows in 31:16; 0 = no bins, every
pixel tests every triangle). A tile's bin is a list of triangle indices in file order. In the
scene memory, after the triangle slots:

* the **table** (from row ``BIN_TABLE``): two tiles per row, each a (start, count) pair of
  ``FIELD_BITS``-bit fields: tile b in row ``BIN_TABLE + b // 2``, fields 2 (b % 2) and
  2 (b % 2) + 1; ``start`` is the index of the tile's first entry in the list;
* the **list** (from row ``BIN_LIST``): the bins' entries one after another, four
  ``FIELD_BITS``-bit triangle indices per row: entry i in row ``BIN_LIST + i // 4``, field
  i % 4.

Field f of a row is its bits 24 f + 23 .. 24 f in ``VectorLayout``'s order (z is the lowest
word, x the highest). Shifts only: the IO unit finds a field without a divider, and a scene of 118 triangles in
400 tiles of 4.6 triangles each needs 660 rows beside its 944.
"""

from hdl.isa import VectorLayout

__all__ = ["ROWS_PER_TRIANGLE", "SLOT_ROWS", "TILE_SHIFT", "TILE", "FIELD_BITS", "PAIR_SHIFT", "TILES_PER_ROW", "ENTRY_SHIFT",
           "ENTRIES_PER_ROW",
           "GRID_AXIS_BITS", "pack_bins", "bin_rows_needed", "grid_word"]

ROWS_PER_TRIANGLE = 7
SLOT_ROWS = 8
#: a tile is 2^TILE_SHIFT pixels on a side
TILE_SHIFT = 3
TILE = 1 << TILE_SHIFT
#: bits of a table field (start, count) and of a list entry (a triangle index)
FIELD_BITS = 24
PAIR_SHIFT = 1
TILES_PER_ROW = 1 << PAIR_SHIFT
ENTRY_SHIFT = 2
ENTRIES_PER_ROW = 1 << ENTRY_SHIFT
#: bits of the grid's columns and of its rows in BIN_GRID
GRID_AXIS_BITS = 16
_ROW_BITS = VectorLayout.as_shape().size
_LANE_OFFSET = {lane: VectorLayout.as_shape()[lane].offset for lane in "xyz"}
assert TILES_PER_ROW * 2 * FIELD_BITS == _ROW_BITS == ENTRIES_PER_ROW * FIELD_BITS


def _row(fields):
    """Fields (at most four) -> the row's words (x, y, z)."""
    value = 0
    for f, field in enumerate(fields):
        if not 0 <= field < 1 << FIELD_BITS:
            raise ValueError(f"bin field {field} does not fit {FIELD_BITS} bits")
        value |= field << (FIELD_BITS * f)
    return tuple((value >> _LANE_OFFSET[lane]) & 0xFFFF_FFFF for lane in "xyz")


def pack_bins(lists):
    """The table's rows and the list's rows (each a tuple of words x, y, z) of the bins
    ``lists`` (per tile, row-major: a sequence of triangle indices)."""
    starts, entries = [], []
    for entry_list in lists:
        starts.append(len(entries))
        entries.extend(entry_list)
    pairs = [(start, len(entry_list)) for start, entry_list in zip(starts, lists)]
    table = [_row([field for pair in pairs[k:k + TILES_PER_ROW] for field in pair])
             for k in range(0, len(pairs), TILES_PER_ROW)]
    listed = [_row(entries[k:k + ENTRIES_PER_ROW])
              for k in range(0, len(entries), ENTRIES_PER_ROW)]
    return table, listed


def bin_rows_needed(lists):
    """Scene memory rows the bins ``lists`` take (table and list)."""
    entries = sum(len(entry_list) for entry_list in lists)
    return -(-len(lists) // TILES_PER_ROW) + -(-entries // ENTRIES_PER_ROW)


def grid_word(columns, rows):
    """BIN_GRID for a grid of ``columns`` x ``rows`` tiles."""
    if not (0 < columns < 1 << GRID_AXIS_BITS and 0 < rows < 1 << GRID_AXIS_BITS):
        raise ValueError(f"a bin grid of {columns} x {rows} tiles does not fit BIN_GRID")
    return columns | rows << GRID_AXIS_BITS
