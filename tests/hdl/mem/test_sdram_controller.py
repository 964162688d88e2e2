"""hdl/mem/sdram_controller.py (with the arbiter and the PHY, as SdramSimTop) against the chip
model (sim/sdram/model.py) in Amaranth's simulator: seeded random traffic — reads and writes,
1-16 words, every bank, row hits and misses, requests across row ends, partial byte masks,
stalls on every stream, refreshes falling in the middle — every read word compared with a
dictionary of the memory replayed in grant order (over a random image both start from); the
four ports of the board at once with their own patterns; CAS latency 2 with the earlier
capture edge; and a controller built with a wrong timing (tRCD too short, refreshes too rare)
stopped by the model with that rule."""

import dataclasses
import random

import pytest

from hdl.mem.sdram_chip import ULX3S_SDRAM
from hdl.mem.sdram_clock import plan_sdram_clock
from sim.sdram.model import SdramChipModel, SdramViolation
from sim.sdram.pysim import run_traffic
from sim.sdram.top import SdramSimTop
from sim.sdram.traffic import (frame_writes, line_fills, random_requests, random_words,
                               scanout_reads)

CLOCK = 75e6
#: the board's part with a 1 us power-up wait (75 cycles), so the traffic starts soon
CHIP = dataclasses.replace(ULX3S_SDRAM, power_up_ns=1000)


def run(requests, chip=CHIP, clock=CLOCK, model_chip=None, seed=0, stall=0.0, min_cycles=0):
    top = SdramSimTop(chip, clock, ports=len(requests))
    model = SdramChipModel(model_chip or chip, clock, top.plan)
    initial = model.fill_random(seed)
    received, expected, cycles = run_traffic(top, model, requests, random.Random(seed), stall,
                                             min_cycles, initial)
    for port, (got, want) in enumerate(zip(received, expected)):
        assert got == want, f"port {port}: first difference at word " \
            f"{next(i for i, (a, b) in enumerate(zip(got + [None], want + [None])) if a != b)}"
    return model, cycles


@pytest.mark.parametrize("seed", [1, 2])
def test_random_traffic_on_one_port(seed):
    rng = random.Random(seed)
    requests = random_requests(CHIP, rng, 220, 16)
    model, cycles = run([requests], seed=seed, stall=0.25)
    # the refreshes fell among the requests (one every 585 cycles)
    assert cycles > 3 * model.t.refi and model.refreshes >= 3


def test_the_four_ports_at_once():
    """Scan-out (16-word reads in order), texture fills (8-word lines), frame writes (16-word
    writes in order) and the host (single words), over overlapping addresses."""
    rng = random.Random(7)
    frame = 0x2000                          # words: the ports' addresses overlap
    requests = [scanout_reads(CHIP, 60, 16, frame_words=frame),
                [dataclasses.replace(r, addr=r.addr % frame) for r in line_fills(CHIP, rng, 60)],
                frame_writes(CHIP, rng, 40, frame_words=frame),
                [dataclasses.replace(r, addr=r.addr % frame) for r in random_words(CHIP, rng, 120)]]
    run(requests, seed=3, stall=0.1)


def test_cas_latency_2_at_50_mhz():
    chip = dataclasses.replace(CHIP, cas_latency=2)
    assert plan_sdram_clock(chip, 50e6).read_delay == 1     # captured a cycle before CL
    run([random_requests(chip, random.Random(4), 80, 8)], chip=chip, clock=50e6, stall=0.2)


def test_a_controller_with_a_short_trcd_is_stopped_by_the_model():
    wrong = dataclasses.replace(CHIP, t_rcd_ns=10)          # 1 cycle instead of 2
    with pytest.raises(SdramViolation) as info:
        run([random_requests(CHIP, random.Random(5), 20, 4)], chip=wrong, model_chip=CHIP)
    assert info.value.rule == "tRCD"
    assert "1 cycle after its ACTIVE (needs 2)" in str(info.value)


def test_a_controller_skipping_refreshes_is_stopped_by_the_model():
    chip = dataclasses.replace(CHIP, t_refi_ns=1000)        # 75 cycles, to keep this short
    rare = dataclasses.replace(chip, t_refi_ns=2000)        # every other refresh left out
    with pytest.raises(SdramViolation) as info:
        run([random_requests(chip, random.Random(6), 10, 4)], chip=rare, model_chip=chip,
            min_cycles=3000)
    assert info.value.rule == "tREFI"
    assert "AUTO REFRESHes overdue" in str(info.value)
