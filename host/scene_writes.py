"""A scene as the host's writes: runs of consecutive words at the addresses of
hdl/gpu/address_map.py (docs/host-interface.md), its bins after its triangles, its R500 program
and state in region R500."""

from hdl.gpu.address_map import (R5Area, R5Reg, Reg, Region, host_address, r500_address,
                                 register_address)
from hdl.gpu.scene_layout import SLOT_ROWS, TILE, bin_rows_needed, grid_word, pack_bins
from hdl.isa import SCALE
from hdl.isa.r500_program import program_inputs
from host.r500_state import r500_load_runs, shading_state

__all__ = ["scene_load_runs", "r500_scene_runs", "r500_band_problem", "bins_fit"]


def r500_scene_runs(scene, texture_words=None):
    """The R500 stage's part of a scene's load: with an R500 program (``scene.shader``) the
    program and its state (samplers set up for a texture memory of ``texture_words``, default
    the scene's texture), SHADE, the inputs it reads and the image's width; without one, SHADE
    off (a stage keeps what the last frame left)."""
    shading = getattr(scene, "shader", None)
    if shading is None:
        return [(r500_address(R5Area.REGS, R5Reg.SHADE), [0])]
    state = shading_state(shading, texture_words or len(scene.texture))
    return r500_load_runs(state) + [
        (r500_address(R5Area.REGS, R5Reg.SHADE), [1]),
        (r500_address(R5Area.REGS, R5Reg.INPUTS), [program_inputs(shading.program),
                                                   scene.width]),
    ]


def r500_band_problem(scene):
    """Why the R500 stage cannot shade ``scene``'s bands, or None: it pairs rows within a
    band, so each band must cover whole rows from an even one (its last row pair may be cut
    by the image's bottom)."""
    for band, (initial, final) in enumerate(scene.bands):
        x0, y0, x1, y1 = (v >> SCALE for v in (initial[0], initial[1], final[0], final[1]))
        if x0 != 0 or x1 != scene.width or y0 % 2 or (y1 % 2 and y1 != scene.height):
            return (f"band {band} (rows {y0} to {y1 - 1}, columns {x0} to {x1 - 1}): the R500 "
                    f"stage shades bands of whole rows that start at an even row and end at an "
                    f"even row or the image's bottom")
    return None


def _rows(rows):
    return [word for row in rows for word in (*row, 0)]


def scene_load_runs(scene, texture_words=None, bins=None):
    """(address, words) runs that load ``scene`` into an idle GPU, as few and long as possible:
    user code, texture, triangle slots and the bins after them, configuration rows, band
    table, then NUM_TRIANGLES and NUM_BANDS, the bins' registers (BIN_GRID 0 without
    ``bins``), and the R500 stage's state (``r500_scene_runs``). Rows are written as four
    words (lane 3 is ignored) and triangle slots as SLOT_ROWS rows (the last is ignored), so
    that each region is one run. ``bins``: the scene's bins (``columns``, ``rows`` and
    ``lists`` of triangle indices per tile, as ``sim.bins.Bins``), which must fit the GPU's
    scene memory (``bins_fit``)."""
    empty_rows = [(0, 0, 0)] * SLOT_ROWS
    slots = [row for triangle in scene.triangles
             for row in (list(triangle) + empty_rows)[:SLOT_ROWS]]
    bin_registers = [0, 0, 0]
    if bins is not None:
        if bins.tile != TILE:
            raise ValueError(f"the GPU's bins are tiles of {TILE} pixels, not {bins.tile}")
        table, entries = pack_bins(bins.lists)
        bin_registers = [grid_word(bins.columns, bins.rows), len(slots),
                         len(slots) + len(table)]
        slots += table + entries
    bands = [word for band, (initial, final) in enumerate(scene.bands)
             for word in (*initial, scene.band_output_base(band), *final, 0)]
    runs = [
        (host_address(Region.USER),
         [half for word in scene.user_code or () for half in (word >> 32, word & 0xFFFF_FFFF)]),
        (host_address(Region.TEXTURE), list(scene.texture)),
        (host_address(Region.SCENE), _rows(slots)),
        (host_address(Region.CONFIG), _rows(scene.config)),
        (host_address(Region.BANDS), bands),
        (register_address(Reg.NUM_TRIANGLES), [len(scene.triangles), len(scene.bands)]),
        (register_address(Reg.BIN_GRID), bin_registers),
    ] + r500_scene_runs(scene, texture_words)
    return [(address, words) for address, words in runs if words]


def bins_fit(scene, bins, scene_rows):
    """Whether ``scene``'s triangles and ``bins`` fit a scene memory of ``scene_rows`` rows."""
    return len(scene.triangles) * SLOT_ROWS + bin_rows_needed(bins.lists) <= scene_rows
