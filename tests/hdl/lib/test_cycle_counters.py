"""hdl/lib/cycle_counters.py: seeded random conditions over two frames; each count is the
cycles its condition held after the frame's ``clear`` (none of the clearing cycle's), two cycles
late, and holds while its condition does not."""

import random

from amaranth.sim import Simulator

from hdl.lib.cycle_counters import CycleCounters

N = 3
LAG = 2


def test_counts_are_the_cycles_each_condition_held_since_the_clear():
    dut = CycleCounters(N)
    rng = random.Random(36)
    # (a cycle's events, clear): two frames of different lengths (an event in each clearing
    # cycle too), then quiet cycles
    schedule = []
    for frame_cycles in (150, 90):
        schedule.append((1, True))
        schedule += [(rng.randrange(1 << N), False) for _ in range(frame_cycles)]
    schedule += [(0, False)] * 5
    assert any(events for events, _ in schedule[:-5])

    def expected(t):
        """The counts read in cycle t: the events of the cycles after the last clear before t,
        up to t - LAG."""
        last_clear = max((c for c in range(t) if schedule[c][1]), default=-1)
        return [sum(schedule[c][0] >> k & 1 for c in range(last_clear + 1, t - LAG + 1))
                for k in range(N)]

    async def testbench(ctx):
        for t, (events, clear) in enumerate(schedule):
            ctx.set(dut.events, events)
            ctx.set(dut.clear, clear)
            assert [ctx.get(c) for c in dut.counts] == expected(t), f"cycle {t}"
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(testbench)
    sim.run()

