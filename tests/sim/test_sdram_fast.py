"""The SDRAM memory (arbiter, controller, PHY) and the chip model on the fast backend
(sim/sdram/fast.py): the same Python model as in Amaranth's simulator, called from the C++
loop only in the cycles that carry a command. The board's part at 75 MHz with its full
200 us power-up, random traffic on four ports with stalled reads, every read word compared
with the dictionary replay; and a model that raises stops the C++ run at once. (One Verilator
build, cached; skipped without Verilator, a C++ compiler or Yosys.)"""

import random

import pytest

from hdl.mem.sdram_chip import ULX3S_SDRAM
from sim.fast import check_tools
from sim.sdram.model import SdramViolation
from sim.sdram.traffic import random_requests

pytestmark = pytest.mark.xdist_group("fast-sdram")


@pytest.fixture(scope="module")
def traffic():
    problem = check_tools("verilator")
    if problem:
        pytest.skip(f"verilator backend unavailable: {problem}")
    from sim.sdram.fast import FastTraffic
    run = FastTraffic(ULX3S_SDRAM, 75e6, ports=4, ready_share=0.7, seed=3)
    run.wait_initialised()
    return run


def test_random_traffic_on_four_ports(traffic):
    rng = random.Random(11)
    requests = [random_requests(ULX3S_SDRAM, rng, 400, 16) for _ in range(4)]
    refreshes = traffic.model.refreshes
    result = traffic.run(requests)
    assert result.mismatches == 0
    assert sum(len(r) for r in result.received) == sum(r.words for q in requests for r in q
                                                       if not r.write)
    assert traffic.model.refreshes - refreshes >= result.cycles // traffic.model.t.refi - 1
    assert result.model_calls < result.cycles     # only the cycles with a command


def test_a_violation_stops_the_run(traffic):
    calls = []
    sample = traffic.model.sample

    def failing(cycle, word):
        calls.append(cycle)
        if len(calls) == 50:
            raise SdramViolation("test", cycle, f"stop at cycle {cycle}")
        sample(cycle, word)

    traffic.model.sample = failing
    try:
        with pytest.raises(SdramViolation, match="stop at cycle"):
            traffic.run([random_requests(ULX3S_SDRAM, random.Random(2), 200, 16)] * 4)
    finally:
        traffic.model.sample = sample
    assert len(calls) == 50                       # not called again after it raised
