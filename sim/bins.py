"""Screen-space bins: which triangles a pixel's ray/triangle test can report a hit for.

Every pixel of the sequence (theia-system.md §2) runs MAIN on every triangle. Only triangles
whose test can pass matter: a triangle MAIN rejects changes nothing a later routine reads
(the rejection leaves only per-triangle scratch registers, ``SCRATCH``). So a pixel may skip
every triangle that the fixed-point test of §3 rejects for it, and keep the others in file
order: the same hits, in the same order, give the same image bit for bit.

The image is cut into square tiles; a tile's bin is the triangles the test *may* accept for
some pixel of the tile. "May" is decided on the fixed-point arithmetic itself, not on geometry:
the tile's rays are exactly the directions RGU computes for its pixels (``ray_direction``),
boxed lane by lane; P, the dot products and the quotients u and v are bounded over that box
with the core's own functions at the box's corners (each is monotone in every operand it
varies in); a bound that could overflow 32 bits, or a DELTA that could be 0, bounds nothing
and keeps the triangle. A triangle is dropped from a bin only when u < 0 for every ray of the
tile, or v < 0, or u + v > 1 without wrapping. There is no geometric assumption (the firmware
has no t > 0 test and no DELTA = 0 test): triangles behind or crossing the camera plane and
degenerate ones are bounded like any other, and kept wherever they may be hit.

User code can defeat this (``unsafe_user_code``): a routine of its own for INITIAL, CPPU, RGU,
MAIN or NPG, a read of a scratch register (which would see the last *tested* triangle), or a
write to a register the ray is computed from. Such a scene is not binned.
"""

from dataclasses import dataclass

from hdl.gpu.scene_layout import TILE, bin_rows_needed
from hdl.isa import (ENTRY_INDEX, MASK32, NUM_ENTRIES, ONE, SCALE, USER_CODE_BASE, Kind,
                     op_info, reg, unpack)
from sim import fixed as fx

__all__ = ["TILE", "Bins", "bin_scene", "frame_bins", "bin_rows_for", "ray_direction",
           "band_pixels", "unsafe_user_code", "SCRATCH", "missing_hits"]

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1

#: registers MAIN writes for every triangle it tests, hit or not: after a pixel's triangles
#: they hold the last tested triangle's values, which binning changes
SCRATCH = frozenset(reg(f"CREG_{name}") for name in (
    "V0", "UV0", "V1", "UV1", "V2", "UV2", "TRI_DIFFUSE", "E1", "E2", "T", "P", "Q", "DELTA",
    "H1", "H2", "H3", "u", "v", "t")) | {reg("R1"), reg("R2")}
#: registers the rays and the test are computed from, which user code must leave alone
RAY_STATE = frozenset(reg(f"CREG_{name}") for name in (
    "PROJECTION_WINDOW_SCALE", "UNNORMALIZED_DIRECTION", "RAY_DIRECTION", "PIXEL_2D_POSITION",
    "LAST_COL", "ZERO"))
#: routines whose replacement changes which pixels there are or what their rays are
RAY_ROUTINES = ("INITIAL", "CPPU", "RGU", "MAIN", "NPG")
#: instructions whose DST is a code address
TRANSFERS = (Kind.BRANCH, Kind.JUMP, Kind.CALL)


@dataclass(frozen=True)
class Bins:
    """Triangle indices (ascending) per tile of ``tile`` x ``tile`` pixels, row-major over
    ``columns`` x ``rows`` tiles; a pixel outside the grid tests every triangle."""
    tile: int
    columns: int
    rows: int
    lists: tuple[tuple[int, ...], ...]
    triangles: int

    def index(self, x, y):
        """The bin of pixel (x, y) (integer coordinates), or None outside the grid."""
        column, row = x // self.tile, y // self.tile
        if 0 <= column < self.columns and 0 <= row < self.rows and x >= 0 and y >= 0:
            return row * self.columns + column
        return None

    def triangles_at(self, position):
        """The triangles the pixel at PIXEL_2D_POSITION ``position`` (words) tests."""
        x, y = (fx.signed32(w) >> SCALE for w in position[:2])
        b = self.index(x, y)
        return range(self.triangles) if b is None else self.lists[b]

    @property
    def tests_per_tile(self):
        return [len(entries) for entries in self.lists]


# --- the pixels and their rays, as the firmware computes them ---------------------------------

def band_pixels(scene, band):
    """PIXEL_2D_POSITION of every pixel of ``band`` in NPG's order (theia-system.md §3)."""
    (x, y, z), final = scene.bands[band]
    last_col = fx.sub(final[0], ONE)
    while True:
        yield x, y, z
        if fx.signed32(x) >= fx.signed32(last_col):
            x, y = 0, fx.add(y, ONE)
            if fx.signed32(y) >= fx.signed32(final[1]):
                return
        else:
            x = fx.add(x, ONE)


def _lanes(f, a, b):
    return tuple(f(p, q) for p, q in zip(a, b))


def ray_direction(scene, position):
    """RAY_DIRECTION after CPPU and RGU for the pixel at ``position``."""
    _, camera, window_min, window_max, resolution, _ = scene.config
    scale = _lanes(fx.div, _lanes(fx.sub, window_max, window_min), resolution)
    r = _lanes(fx.add, _lanes(fx.mul, position, scale), window_min)
    u = _lanes(fx.sub, r, camera)
    m = fx.mag(u)
    return _lanes(fx.div, u, (m, m, m))


# --- interval bounds of the test ----------------------------------------------------------------

def _s64(p):
    return p - (1 << 64) if p >> 63 else p


def _product(interval, c):
    """Bounds of mul64(a, c) as a signed number, a in ``interval`` (signed 32-bit values)."""
    ends = [_s64(fx.mul64(a & MASK32, c)) for a in interval]
    return min(ends), max(ends)


def _fold(lo, hi):
    """fix() of an exact sum in [lo, hi]: itself if it cannot wrap, else None (unbounded)."""
    return (lo, hi) if INT32_MIN <= lo and hi <= INT32_MAX else None


def _sum(*bounds):
    return sum(b[0] for b in bounds), sum(b[1] for b in bounds)


def _dot(box, c):
    """DOT(a, c) with a in ``box`` (three intervals), c constant words; None if unbounded."""
    return _fold(*_sum(*(_product(a, w) for a, w in zip(box, c))))


def _cross_box_const(box, c):
    """CROSS(a, c), a in ``box``: three intervals, or None if one is unbounded."""
    (ax, ay, az), (cx, cy, cz) = box, c
    pairs = ((_product(ay, cz), _product(az, cy)), (_product(az, cx), _product(ax, cz)),
             (_product(ax, cy), _product(ay, cx)))
    lanes = [_fold(p[0] - q[1], p[1] - q[0]) for p, q in pairs]
    return None if None in lanes else lanes


def _quotient(h, d):
    """Bounds of div(h, d) as a signed number over intervals h and d; None if unbounded (d
    may be 0, or the quotient may leave 31 bits and wrap)."""
    if h is None or d is None or d[0] <= 0 <= d[1]:
        return None
    largest = max(abs(v) for v in h) << SCALE
    if largest // min(abs(v) for v in d) > INT32_MAX:
        return None
    ends = [fx.signed32(fx.div(a & MASK32, b & MASK32)) for a in h for b in d]
    return min(ends), max(ends)


@dataclass(frozen=True)
class _Triangle:
    """What MAIN computes from a triangle alone."""
    e1: tuple
    e2: tuple
    t: tuple
    q: tuple

    @classmethod
    def of(cls, triangle, camera):
        v0, _, v1, _, v2, _, _ = triangle
        e1, e2, t = _lanes(fx.sub, v1, v0), _lanes(fx.sub, v2, v0), _lanes(fx.sub, camera, v0)
        return cls(e1, e2, t, fx.cross(t, e1))


def may_hit(rays, tri):
    """False only if MAIN rejects ``tri`` for every ray in ``rays`` (three intervals of
    RAY_DIRECTION's lanes, signed)."""
    p = _cross_box_const(rays, tri.e2)
    if p is None:
        return True
    delta, h2, h3 = _dot(p, tri.e1), _dot(p, tri.t), _dot(rays, tri.q)
    u, v = _quotient(h2, delta), _quotient(h3, delta)
    if u is None or v is None:
        return True
    if u[1] < 0 or v[1] < 0:
        return False
    if u[1] + v[1] > INT32_MAX:              # u + v may wrap to anything
        return True
    return max(u[0], 0) + max(v[0], 0) <= ONE


# --- bins of a scene ---------------------------------------------------------------------------

def unsafe_user_code(scene):
    """Why binning would change what ``scene``'s user code computes, or None."""
    code = scene.user_code
    if not code:
        return None
    for name in RAY_ROUTINES:
        if (code[ENTRY_INDEX[name]] & 0xFFFF) >= USER_CODE_BASE:
            return f"the user code replaces {name}"
    for k, word in enumerate(code[NUM_ENTRIES:]):
        insn = unpack(word)
        info = op_info(insn.opcode)
        if info is None:
            continue                        # illegal: stops the core before binning matters
        address = USER_CODE_BASE + NUM_ENTRIES + k
        if info.kind in TRANSFERS and insn.dst < USER_CODE_BASE:
            return f"user instruction {address:#06x} runs firmware code (MAIN's test reads " \
                   f"the last tested triangle)"
        reads = ({insn.src1} if info.a_reg and not info.type2 else set()) | (
            {insn.dst if info.type2 else insn.src2} if info.b_reg else set())
        if info.dst_reg and info.writes and info.wmask != 0b111:
            reads.add(insn.dst)             # the lanes it keeps are read
        writes = {insn.dst} if info.dst_reg and info.writes else set()
        if reads & SCRATCH:
            return f"user instruction {address:#06x} reads a register MAIN rewrites per triangle"
        if writes & (RAY_STATE | SCRATCH):
            return f"user instruction {address:#06x} writes a register the rays depend on"
    return None


def tile_rays(scene, tile=TILE):
    """Per tile: the box (three (lo, hi) lanes) of the rays of its pixels, or None if none."""
    columns, rows = -(-scene.width // tile), -(-scene.height // tile)
    boxes = [None] * (columns * rows)
    grid = Bins(tile, columns, rows, (), 0)
    for band in range(len(scene.bands)):
        for position in band_pixels(scene, band):
            x, y = (fx.signed32(w) >> SCALE for w in position[:2])
            b = grid.index(x, y)
            if b is None:
                continue
            d = [fx.signed32(w) for w in ray_direction(scene, position)]
            box = boxes[b]
            boxes[b] = [(v, v) for v in d] if box is None else [
                (min(lo, v), max(hi, v)) for (lo, hi), v in zip(box, d)]
    return columns, rows, boxes


#: tiles per side of a group whose rays' box is tested first: a triangle no ray of the group
#: can hit is in none of its tiles' bins (their rays are the group's), so most pairs are
#: decided once per group
GROUP = 4


def _union(boxes):
    boxes = [box for box in boxes if box is not None]
    return [(min(box[lane][0] for box in boxes), max(box[lane][1] for box in boxes))
            for lane in range(3)] if boxes else None


def bin_scene(scene, tile=TILE):
    """The scene's ``Bins``, or None when its user code makes binning unsafe."""
    if unsafe_user_code(scene):
        return None
    columns, rows, boxes = tile_rays(scene, tile)
    triangles = list(enumerate(_Triangle.of(t, scene.camera) for t in scene.triangles))
    lists = [()] * len(boxes)
    for group_row in range(0, rows, GROUP):
        for group_column in range(0, columns, GROUP):
            tiles = [r * columns + c for r in range(group_row, min(group_row + GROUP, rows))
                     for c in range(group_column, min(group_column + GROUP, columns))]
            group = _union([boxes[b] for b in tiles])
            if group is None:
                continue
            candidates = [(k, tri) for k, tri in triangles if may_hit(group, tri)]
            for b in tiles:
                if boxes[b] is not None:
                    lists[b] = tuple(k for k, tri in candidates if may_hit(boxes[b], tri))
    return Bins(tile, columns, rows, tuple(lists), len(scene.triangles))


def frame_bins(scene, binning=True):
    """The bins every engine renders ``scene`` with: ``bin_scene``'s, or None (every pixel
    tests every triangle) with ``binning`` false or user code that binning would change."""
    return bin_scene(scene) if binning else None


def bin_rows_for(bins):
    """Scene memory rows ``bins`` take in the GPU (0 for None)."""
    return 0 if bins is None else bin_rows_needed(bins.lists)


# --- the proof on the model --------------------------------------------------------------------

def missing_hits(scene, bins, rom=None):
    """[(pixel position, triangle)] that the model's MAIN accepts but ``bins`` leaves out: runs
    RGU for every pixel and MAIN on every triangle (slow: the whole unbinned test). Also
    checks ``ray_direction`` against RGU."""
    from firmware.rom import default_rom
    from sim.model import Core
    from sim.sequencer import CPPU, INITIAL, MAIN, RGU, TRIANGLE_ROWS, configure_core
    position_reg, ray_reg = reg("CREG_PIXEL_2D_POSITION"), reg("CREG_RAY_DIRECTION")
    core = Core(rom or default_rom(), scene.user_code, tmem=list(scene.texture) + [0] * 16,
                omem=[0] * (3 * scene.width * scene.height))
    configure_core(core, scene)
    missing = []
    for band, (initial, final) in enumerate(scene.bands):
        core.write_config(6, initial)
        core.write_config(7, final)
        core.run_routine(INITIAL)
        core.run_routine(CPPU)
        for position in band_pixels(scene, band):
            core.regs[position_reg] = position
            core.run_routine(RGU)
            if core.regs[ray_reg] != ray_direction(scene, position):
                raise AssertionError(f"ray_direction({position}) is not RGU's")
            chosen = set(bins.triangles_at(position))
            for k, triangle in enumerate(scene.triangles):
                for row, value in zip(TRIANGLE_ROWS, triangle):
                    core.write_swap(row, value)
                core.flip()
                if core.run_routine(MAIN) and k not in chosen:
                    missing.append((position, k))
    return missing
