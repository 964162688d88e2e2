"""sim/fast with several clock domains: each clock's edges in time order at its frequency
(locked ratios and an unrelated one), every domain's reset, a clock monitor, and a crossing
(an AsyncFIFO) carrying a count from one domain to another intact."""

import pytest
from amaranth import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.fifo import AsyncFIFO
from amaranth.lib.wiring import Out

from sim.fast import Design, FastSim, check_tools

pytestmark = pytest.mark.skipif(check_tools("verilator") is not None,
                                reason=check_tools("verilator") or "")


class ThreeCounters(wiring.Component):
    """A count in each domain; the pixel domain's counts cross to sync through an AsyncFIFO
    (``crossed``: the last one out, ``crossed_ok``: every one came in order)."""
    sync_count: Out(32)
    pixel_count: Out(32)
    tmds_count: Out(32)
    crossed: Out(16)
    crossed_ok: Out(1, init=1)

    def elaborate(self, platform):
        m = Module()
        m.d.sync += self.sync_count.eq(self.sync_count + 1)
        m.d.pixel += self.pixel_count.eq(self.pixel_count + 1)
        m.d.tmds += self.tmds_count.eq(self.tmds_count + 1)
        m.submodules.fifo = fifo = AsyncFIFO(width=16, depth=4, w_domain="pixel",
                                             r_domain="sync")
        sent = Signal(16)
        m.d.comb += [fifo.w_data.eq(sent), fifo.w_en.eq(1), fifo.r_en.eq(1)]
        with m.If(fifo.w_rdy):
            m.d.pixel += sent.eq(sent + 1)
        expected = Signal(16)
        with m.If(fifo.r_rdy):
            m.d.sync += [self.crossed.eq(fifo.r_data), expected.eq(fifo.r_data + 1)]
            with m.If(fifo.r_data != expected):
                m.d.sync += self.crossed_ok.eq(0)
        return m


@pytest.fixture(scope="module")
def sim():
    return FastSim(Design(ThreeCounters), log=lambda text: None)


def test_clocks_run_at_their_frequencies_in_time_order(sim):
    assert sim.clocks == ["pixel", "tmds"]
    sim.set_clocks(75e6, {"pixel": 25e6, "tmds": 125e6})
    sim.reset(2)
    assert sim.get("sync_count") == sim.get("pixel_count") == sim.get("tmds_count") == 0
    start = {name: sim.clock_edges(name) for name in (None, "pixel", "tmds")}
    sim.step(3000)
    edges = {name: sim.clock_edges(name) - start[name] for name in start}
    assert edges[None] == 3000
    # locked 3:1 and 3:5 from one phase: exact
    assert edges["pixel"] == 1000 and edges["tmds"] == 5000
    assert sim.get("pixel_count") == 1000 and sim.get("tmds_count") == 5000
    assert sim.get("crossed_ok") == 1 and sim.get("crossed") > 900

    monitor = sim.add_clock_monitor("tmds", ["tmds_count"])
    sim.arm_clock_monitor(monitor, 100)
    sim.run_clock_monitor(monitor, 1000)
    counts = sim.take_clock_monitor(monitor).tolist()
    assert counts == list(range(counts[0], counts[0] + 100))


def test_an_unrelated_clock_and_a_phase(sim):
    sim.set_clocks(75e6, {"pixel": (31.7e6, 0.3), "tmds": 125.7e6})
    sim.reset(2)
    sim.step(75_000)
    assert sim.get("pixel_count") in (31_699, 31_700)
    assert sim.get("tmds_count") in (125_699, 125_700)
    assert sim.get("crossed_ok") == 1
