"""hdl/gpu/io_unit.py against a testbench that plays the shader core: band setup (rows 6/7,
omem_base, band_start), triangles streamed into the IO copy in order and wrapping to triangle
0, the tri_ready/tri_flip handshake (nothing written between ready and flip), seven scene reads
per triangle (its rows, in order; row 7 of a slot never) and the next triangle read ahead while
waiting for the flip (so the loading time after a flip is just the 7 register writes, even with
a slow scene memory grant), never more reads outstanding than the row queue holds,
configuration writes only while idle, and the end of a band by band_done or an error (rows
still on their way dropped). With bins (hdl/gpu/scene_layout.py): for every pixel of NPG's
walk, its bin's count on ``pixel_triangles`` and its bin's triangles in order, every triangle
outside the grid."""

import random

import pytest
from amaranth import Module, Signal
from amaranth.lib.memory import Memory
from amaranth.sim import Simulator

from hdl.gpu.io_unit import IoUnit, TRIANGLE_FIRST_REG, SLOT_ROWS, ROW_QUEUE
from hdl.gpu.scene_layout import TILE, grid_word, pack_bins
from hdl.isa import ONE, VectorLayout

TRIANGLES = 3
MAX_TRIANGLES = 4


def triangle_row(t, row):
    return (0x1000 * t + row, 0x2000 * t + row, 0x3000 * t + row)


#: row 7 of a slot: never read
UNUSED_ROW = (0xDEAD, 0xDEAD, 0xDEAD)


def make_dut(answer_cycles=1, bin_rows=()):
    """An IoUnit reading a row-wide scene memory directly, answered ``answer_cycles`` after a
    read is taken; ``grant`` (driven by the testbench, 1 by default) plays the arbiter. The
    memory holds MAX_TRIANGLES slots, then ``bin_rows`` (rows of words x, y, z)."""
    m = Module()
    depth = MAX_TRIANGLES * SLOT_ROWS + max(len(bin_rows), 1)
    m.submodules.unit = unit = IoUnit(depth)
    init = [dict(zip("xyz", triangle_row(t, row) if row < 7 else UNUSED_ROW))
            for t in range(MAX_TRIANGLES) for row in range(SLOT_ROWS)]
    init += [dict(zip("xyz", row)) for row in bin_rows]
    m.submodules.scene = scene = Memory(shape=VectorLayout, depth=depth, init=init)
    grant = Signal(init=1)
    rp = scene.read_port()
    taken = unit.scene_req.valid & grant
    m.d.comb += [rp.addr.eq(unit.scene_req.payload), rp.en.eq(taken),
                 unit.scene_req.ready.eq(grant)]
    valid, data = Signal(), rp.data
    m.d.sync += valid.eq(taken)
    for stage in range(answer_cycles - 1):         # (the Gpu's request register, ...)
        later_valid, later_data = Signal(name=f"valid{stage}"), Signal.like(rp.data)
        m.d.sync += [later_valid.eq(valid), later_data.eq(data)]
        valid, data = later_valid, later_data
    m.d.comb += [unit.scene_resp.valid.eq(valid), unit.scene_resp.payload.eq(data)]
    return m, unit, grant


class ReadLog:
    """Scene reads the unit made: (cycle, row address)."""

    def __init__(self, grant_rate=1.0, seed=0):
        self.rng = random.Random(seed)
        self.grant_rate = grant_rate
        self.reads = []
        self.cycle = 0

    async def process(self, ctx, unit, grant):
        async for _, _, valid, ready, payload in ctx.tick().sample(
                unit.scene_req.valid, unit.scene_req.ready, unit.scene_req.payload):
            self.cycle += 1
            if valid and ready:
                self.reads.append((self.cycle, payload))
            ctx.set(grant, self.rng.random() < self.grant_rate)


def simulate(testbench, core_process, reads=None, answer_cycles=1, bin_rows=()):
    m, unit, grant = make_dut(answer_cycles, bin_rows)
    sim = Simulator(m)
    sim.add_clock(1e-8)

    async def bench(ctx):
        await testbench(ctx, unit)

    async def core(ctx):
        await core_process(ctx, unit)

    async def scene(ctx):
        await reads.process(ctx, unit, grant)

    sim.add_testbench(bench)
    sim.add_process(core)
    if reads is not None:
        sim.add_process(scene)
    sim.run()


class FakeCore:
    """The register rows the unit wrote, with a randomly busy write port, and the swap copy
    the unit writes into. Like the core, it takes a row when io_valid & io_ready and the row
    lands 1 to ``landing_cycles`` cycles later (``io_idle`` low until every taken row has
    landed; the core's rows land a cycle later when its write port is free)."""

    def __init__(self, seed, busy_rate=0.3, landing_cycles=3, take_counts=True):
        self.take_counts = take_counts
        self.rng = random.Random(seed)
        self.busy_rate = busy_rate
        self.landing_cycles = landing_cycles
        self.config = {}
        self.io_copy = {}
        self.log = []                      # (cycle, register) when taken
        self.cycle = 0
        self.landing = []                  # (cycle it lands, register, value)

    async def process(self, ctx, unit):
        ctx.set(unit.io_ready, 1)
        ctx.set(unit.io_idle, 1)
        ctx.set(unit.pixel_triangles.ready, self.take_counts)   # (not looked at, then)
        async for _, _, valid, ready, addr, data in ctx.tick().sample(
                unit.io_valid, unit.io_ready, unit.io_addr, unit.io_data):
            self.cycle += 1
            if valid and ready:
                self.landing.append((self.cycle + self.rng.randrange(self.landing_cycles), addr,
                                     (data.x, data.y, data.z)))
                self.log.append((self.cycle, addr))
            for row in [r for r in self.landing if r[0] <= self.cycle]:
                _, addr, value = row
                (self.io_copy if addr >= 42 else self.config)[addr] = value
                self.landing.remove(row)
            ctx.set(unit.io_ready, self.rng.random() >= self.busy_rate)
            ctx.set(unit.io_idle, not self.landing)


async def wait_ready(ctx, unit, limit=100):
    """Cycles until tri_ready (a unit that never gets there fails instead of hanging)."""
    cycles = 0
    while not ctx.get(unit.tri_ready):
        await ctx.tick()
        cycles += 1
        assert cycles < limit, "tri_ready never came"
    return cycles


def row_reads(triangles):
    """The row addresses of reading ``triangles`` in turn."""
    return [t * SLOT_ROWS + r for t in triangles for r in range(7)]


def most_outstanding(reads, core):
    """The most rows the unit was owed or held at once: reads taken, rows not yet written."""
    events = sorted([(c, 1) for c, _ in reads.reads]
                    + [(c, -1) for c, addr in core.log if addr >= TRIANGLE_FIRST_REG])
    level = most = 0
    for _, step in events:
        level += step
        most = max(most, level)
    return most


def triangle_in_copy(core, t):
    return all(core.io_copy.get(TRIANGLE_FIRST_REG + r) == triangle_row(t, r) for r in range(7))


async def start_band(ctx, unit, initial=(1, 2, 3), final=(4, 5, 6), base=0x123):
    ctx.set(unit.num_triangles, TRIANGLES)
    ctx.set(unit.band.valid, 1)
    ctx.set(unit.band.payload, {"initial": dict(zip("xyz", initial)),
                                "final": dict(zip("xyz", final)), "base": base})
    assert ctx.get(unit.band.ready) and ctx.get(unit.idle)
    await ctx.tick()
    ctx.set(unit.band.valid, 0)
    for _ in range(50):
        if ctx.get(unit.band_start):
            await ctx.tick()               # let the fake core record the last write
            return
        assert not ctx.get(unit.idle) and not ctx.get(unit.band.ready)
        await ctx.tick()
    raise AssertionError("no band_start")


def test_band_setup_and_triangle_stream_wraps():
    core = FakeCore(seed=7)
    flips = 3 * TRIANGLES + 2                   # three pixels and a bit
    load_times = []

    async def tb(ctx, unit):
        await start_band(ctx, unit)
        assert core.config[6] == (1, 2, 3) and core.config[7] == (4, 5, 6)
        assert ctx.get(unit.omem_base) == 0x123
        rng = random.Random(3)
        since_flip = 0
        for k in range(flips):
            since_flip += await wait_ready(ctx, unit)
            load_times.append(since_flip)
            await ctx.tick()                         # (the fake core records writes at edges)
            t = k % TRIANGLES
            assert triangle_in_copy(core, t), f"flip {k}: triangle {t} not in the IO copy"
            writes_before = len(core.log)
            for _ in range(rng.randrange(0, 6)):     # MAIN still busy: the copy must stay put
                await ctx.tick()
                assert ctx.get(unit.tri_ready)
            assert len(core.log) == writes_before, "IO copy written between ready and flip"
            ctx.set(unit.tri_flip, 1)
            await ctx.tick()
            ctx.set(unit.tri_flip, 0)
            core.io_copy.clear()                     # the other copy now: stale contents
            since_flip = 1
        ctx.set(unit.band_done, 1)
        await ctx.tick()
        ctx.set(unit.band_done, 0)
        for _ in range(4):
            await ctx.tick()
        assert ctx.get(unit.idle) and ctx.get(unit.band.ready)
        assert not ctx.get(unit.tri_ready)

    simulate(tb, core.process)
    # 7 rows at one per free write cycle (30% busy here), the triangle prefetched: far below
    # a MAIN
    assert max(load_times[1:]) <= 20, load_times


@pytest.mark.parametrize("answer_cycles, load_cycles", [(1, 8), (3, 8)])
def test_load_time_with_free_write_port(answer_cycles, load_cycles):
    """(With the scene memory answering 3 cycles after a read is taken, too.)"""
    core = FakeCore(seed=1, busy_rate=0.0, landing_cycles=1)
    load_times = []

    async def tb(ctx, unit):
        await start_band(ctx, unit)
        for k in range(2 * TRIANGLES):
            load_times.append(await wait_ready(ctx, unit))
            await ctx.tick()
            assert triangle_in_copy(core, k % TRIANGLES)
            ctx.set(unit.tri_flip, 1)
            await ctx.tick()
            ctx.set(unit.tri_flip, 0)

    reads = ReadLog()
    simulate(tb, core.process, reads, answer_cycles)
    # the next triangle was read while waiting for the flip: just the 7 register writes and
    # the last one's landing
    assert max(load_times[1:]) <= load_cycles, load_times
    # seven reads per triangle, in order, wrapping (plus the rows read ahead)
    expected = row_reads(k % TRIANGLES for k in range(2 * TRIANGLES))
    assert [a for _, a in reads.reads][:len(expected)] == expected
    assert len(reads.reads) <= len(expected) + ROW_QUEUE
    assert most_outstanding(reads, core) <= ROW_QUEUE


def test_prefetch_hides_a_slow_scene_memory():
    """A scene port granted 1 cycle in 2 (four cores on the Gpu's two ports): with MAIN taking
    ~20 cycles the next triangle is already in the queue at each flip, so loading still takes
    8 cycles (7 writes and the last one's landing)."""
    core = FakeCore(seed=5, busy_rate=0.0, landing_cycles=1)
    reads = ReadLog(grant_rate=0.5, seed=9)
    load_times = []
    flip_cycles = []

    async def tb(ctx, unit):
        await start_band(ctx, unit)
        for k in range(3 * TRIANGLES):
            load_times.append(await wait_ready(ctx, unit))
            for _ in range(20):                      # MAIN on the previous triangle
                await ctx.tick()
            assert triangle_in_copy(core, k % TRIANGLES), k
            ctx.set(unit.tri_flip, 1)
            await ctx.tick()
            flip_cycles.append(core.cycle)
            ctx.set(unit.tri_flip, 0)
            core.io_copy.clear()

    simulate(tb, core.process, reads)
    assert max(load_times[1:]) <= 8, load_times
    expected = row_reads(k % TRIANGLES for k in range(3 * TRIANGLES))
    assert [a for _, a in reads.reads][:len(expected)] == expected
    assert most_outstanding(reads, core) <= ROW_QUEUE
    # triangle k+1's last row was read before flip k: a prefetch, not a read after the flip
    for k, flip in enumerate(flip_cycles[:-1]):
        assert reads.reads[7 * (k + 1) + 6][0] <= flip, (k, reads.reads, flip_cycles)


def test_config_writes_only_while_idle():
    core = FakeCore(seed=2, busy_rate=0.0)

    async def tb(ctx, unit):
        ctx.set(unit.config.valid, 1)
        ctx.set(unit.config.payload, {"addr": 9, "data": {"x": 7, "y": 8, "z": 9}})
        assert ctx.get(unit.config.ready)
        await ctx.tick()
        ctx.set(unit.config.valid, 0)
        await ctx.tick()
        assert core.config[9] == (7, 8, 9)
        await start_band(ctx, unit)
        ctx.set(unit.config.valid, 1)
        for _ in range(5):
            assert not ctx.get(unit.config.ready)
            await ctx.tick()
        ctx.set(unit.config.valid, 0)

    simulate(tb, core.process)


def test_core_error_ends_the_band():
    core = FakeCore(seed=4)

    async def tb(ctx, unit):
        await start_band(ctx, unit)
        for _ in range(3):                 # stop in the middle of a triangle's rows
            await ctx.tick()
        ctx.set(unit.core_error, 1)
        assert ctx.get(unit.error)
        await ctx.tick()
        assert not ctx.get(unit.error)     # one pulse
        for _ in range(3):
            await ctx.tick()
        assert ctx.get(unit.idle)
        ctx.set(unit.core_error, 0)
        # a new band starts cleanly with triangle 0
        core.io_copy.clear()
        await start_band(ctx, unit, initial=(9, 9, 9))
        assert core.config[6] == (9, 9, 9)
        await wait_ready(ctx, unit)
        await ctx.tick()
        assert triangle_in_copy(core, 0)

    simulate(tb, core.process)


def walk(initial, final):
    """Integer (x, y) of the pixels NPG walks from ``initial`` to ``final`` (integers)."""
    (x, y), (final_x, final_y) = initial, final
    while y < final_y:
        yield x, y
        x, y = (0, y + 1) if x >= final_x - 1 else (x + 1, y)


@pytest.mark.parametrize("answer_cycles, grant_rate", [(1, 1.0), (3, 0.5)])
def test_binned_pixels_test_their_bins_triangles(answer_cycles, grant_rate):
    """A 3 x 2 tile grid (24 x 16 pixels), random bins (some empty) over the 4 triangles; a band
    from (5, 3) with rows 28 pixels wide, so that columns 24-27 are outside the grid (every
    triangle there). The count of every pixel and its triangles, in order, are the bin's."""
    rng = random.Random(answer_cycles)
    columns, rows = 3, 2
    lists = [sorted(rng.sample(range(MAX_TRIANGLES), rng.randrange(MAX_TRIANGLES + 1)))
             for _ in range(columns * rows)]
    lists[1] = []
    table, entries = pack_bins(lists)
    table_base = MAX_TRIANGLES * SLOT_ROWS
    pixels = list(walk((5, 3), (28, 12)))[:70]
    expected = [lists[(y // TILE) * columns + x // TILE] if x < columns * TILE
                else list(range(TRIANGLES)) for x, y in pixels]
    core = FakeCore(seed=11, busy_rate=0.2, take_counts=False)
    seen = []

    async def tb(ctx, unit):
        ctx.set(unit.grid_columns, columns)
        ctx.set(unit.grid_rows, rows)
        ctx.set(unit.table_base, table_base)
        ctx.set(unit.list_base, table_base + len(table))
        await start_band(ctx, unit, initial=(5 * ONE, 3 * ONE, 0), final=(28 * ONE, 12 * ONE, 0))
        for pixel, triangles in zip(pixels, expected):
            for _ in range(100):
                if ctx.get(unit.pixel_triangles.valid):
                    break
                await ctx.tick()
            else:
                raise AssertionError(f"no count for pixel {pixel}")
            count = ctx.get(unit.pixel_triangles.payload)
            ctx.set(unit.pixel_triangles.ready, 1)
            await ctx.tick()
            ctx.set(unit.pixel_triangles.ready, 0)
            got = []
            for _ in range(count):
                await wait_ready(ctx, unit)
                await ctx.tick()
                got.append(next((t for t in range(MAX_TRIANGLES)
                                 if triangle_in_copy(core, t)), None))
                ctx.set(unit.tri_flip, 1)
                await ctx.tick()
                ctx.set(unit.tri_flip, 0)
                core.io_copy.clear()
            seen.append(got)
            assert got == triangles, (pixel, got, triangles)
        ctx.set(unit.band_done, 1)
        await ctx.tick()
        ctx.set(unit.band_done, 0)
        for _ in range(8):
            await ctx.tick()
        assert ctx.get(unit.idle)

    reads = ReadLog(grant_rate=grant_rate, seed=answer_cycles)
    simulate(tb, core.process, reads, answer_cycles, bin_rows=table + entries)
    assert seen == expected
    assert any(not t for t in expected) and any(len(t) == TRIANGLES for t in expected)
