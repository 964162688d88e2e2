"""hdl/gpu/dispatcher.py against a fake band table (``table_data`` one cycle after ``table_addr``,
entry ``base`` = 1000 + band) and fake IO units (ready exactly when idle; after taking a band
busy for a seeded random 0-12 cycles). Checked over several (units, num_bands) cases and two
frames in a row: every band handed out exactly once, in order; a band only offered to a ready
unit and to one unit at a time; ``busy`` from start until every unit is idle again after the
last band; ``done`` after a clean frame. And a ``unit_error`` pulse while a band runs: ``error``
goes high, no more bands are taken, ``busy`` falls once the units are idle, ``done`` stays 0."""

import random

import pytest
from amaranth.sim import Simulator

from hdl.gpu.dispatcher import Dispatcher

MAX_BANDS = 16
LIMIT = 1000                               # cycles per frame before the test gives up


def entry(band):
    return {"initial": {"x": band, "y": 1, "z": 2}, "final": {"x": band, "y": 3, "z": 4},
            "base": 1000 + band}


def run(n_units, num_bands, seed, frames=1, error_band=None):
    """Returns per frame: the bands taken [(cycle, unit, base)], the unit_error pulse cycle
    (or None) and what was seen when busy fell (cycle, every unit idle, done, error)."""
    dut = Dispatcher(n_units, MAX_BANDS)
    rng = random.Random(seed)
    results = []

    async def testbench(ctx):
        busy_left = [0] * n_units          # cycles each unit stays busy (not ready)
        state = {"cycle": 0, "addr": 0, "error_at": None, "error_unit": None}

        async def step(takes, start=0):
            cycle = state["cycle"]
            ctx.set(dut.start, start)
            ctx.set(dut.table_data, entry(state["addr"]))     # the address of the last cycle
            error = state["error_at"] == cycle
            ctx.set(dut.unit_error, (1 << state["error_unit"]) if error else 0)
            for k, u in enumerate(dut.units):
                ctx.set(u.ready, busy_left[k] == 0)
            valid = [ctx.get(u.valid) for u in dut.units]
            ready = [busy_left[k] == 0 for k in range(n_units)]
            assert sum(valid) <= 1, f"cycle {cycle}: valid on several units {valid}"
            for k, u in enumerate(dut.units):
                assert ready[k] or not valid[k], f"cycle {cycle}: valid on busy unit {k}"
                if valid[k]:
                    base = ctx.get(u.payload.base)
                    takes.append((cycle, k, base))
                    busy_left[k] = rng.randrange(13)
                    if state["inject"] and base == 1000 + error_band:
                        busy_left[k] = 6           # the band runs, and fails half way
                        state["error_at"], state["error_unit"] = cycle + 3, k
                elif busy_left[k]:
                    busy_left[k] -= 1
            seen = (cycle, all(b == 0 for b in busy_left),
                    ctx.get(dut.busy), ctx.get(dut.done), ctx.get(dut.error))
            state["addr"] = ctx.get(dut.table_addr)
            await ctx.tick()
            state["cycle"] += 1
            return seen

        ctx.set(dut.num_bands, num_bands)
        for frame in range(frames):              # (the error only in the first frame)
            takes = []
            state["error_at"], state["inject"] = None, error_band is not None and frame == 0
            _, _, busy, _, _ = await step(takes, start=1)
            assert not busy, "busy before start"
            assert (await step(takes))[2], "busy did not rise after start"
            while True:
                cycle, all_idle, busy, done, error = await step(takes)
                if not busy:
                    break
                assert not done, f"cycle {cycle}: done during the frame"
                assert cycle < LIMIT * len(results) + LIMIT, "the frame never ended"
            results.append((takes, state["error_at"], (cycle, all_idle, done, error)))
            for _ in range(rng.randrange(3)):      # done/error hold; units stay idle
                assert (await step(takes))[1:] == (True, 0, done, error)

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(testbench)
    sim.run()
    return results


@pytest.mark.parametrize("n_units, num_bands", [(3, 0), (3, 1), (3, 2), (3, 3), (3, 10),
                                                (3, 16), (1, 0), (1, 1), (1, 5), (2, 7)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_band_once_in_order(n_units, num_bands, seed):
    for takes, error_at, fall in run(n_units, num_bands, seed, frames=2):
        assert error_at is None
        assert [base for _, _, base in takes] == [1000 + b for b in range(num_bands)], takes
        fall_cycle, all_idle, done, error = fall
        assert all_idle, f"busy fell at cycle {fall_cycle} while a unit was still busy"
        assert all(cycle < fall_cycle for cycle, _, _ in takes), (fall_cycle, takes)
        assert done == 1 and error == 0


@pytest.mark.parametrize("n_units, num_bands, error_band", [(3, 12, 3), (3, 12, 0),
                                                            (1, 6, 2), (3, 5, 4)])
@pytest.mark.parametrize("seed", [0, 3])
def test_unit_error_stops_dispatching(n_units, num_bands, error_band, seed):
    (takes, error_at, fall), (clean_takes, _, clean_fall) = run(
        n_units, num_bands, seed, frames=2, error_band=error_band)
    assert error_at is not None, "the failing band was never taken"
    bases = [base for _, _, base in takes]
    assert bases == [1000 + b for b in range(len(bases))], "bands out of order"
    late = [t for t in takes if t[0] > error_at + 1]
    assert not late, f"bands taken after the error at cycle {error_at}: {late}"
    fall_cycle, all_idle, done, error = fall
    assert error == 1 and done == 0
    assert all_idle and fall_cycle > error_at
    if error_band < num_bands - 1:
        assert len(takes) < num_bands, "dispatching went on after the error"
    # the next frame starts clean
    assert [base for _, _, base in clean_takes] == [1000 + b for b in range(num_bands)]
    assert clean_fall[1:] == (True, 1, 0)
