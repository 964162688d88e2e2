"""hdl/lib/skid_buffer.py: a random producer and a random consumer (seeded backpressure on both
sides); everything comes out once, in order; a transfer per cycle when the consumer always
takes; ``empty`` exactly when nothing taken is still held."""

import random

import pytest
from amaranth.sim import Simulator

from hdl.lib.skid_buffer import SkidBuffer


def run(items, offer_rate, take_rate, seed):
    dut = SkidBuffer(16)
    rng = random.Random(seed)
    received, held_when_empty, cycles = [], [], [0]

    async def testbench(ctx):
        sent = 0
        while len(received) < len(items):
            offer = sent < len(items) and rng.random() < offer_rate
            take = rng.random() < take_rate
            ctx.set(dut.i.valid, offer)
            ctx.set(dut.i.payload, items[sent] if offer else 0)
            ctx.set(dut.o.ready, take)
            in_taken = offer and ctx.get(dut.i.ready)
            if ctx.get(dut.o.valid) and take:
                received.append(ctx.get(dut.o.payload))
            if ctx.get(dut.empty) and sent > len(received):
                held_when_empty.append(cycles[0])
            sent += in_taken
            await ctx.tick()
            cycles[0] += 1
            assert cycles[0] < 20 * len(items) + 100, "the buffer stopped moving"

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(testbench)
    sim.run()
    return received, held_when_empty, cycles[0]


@pytest.mark.parametrize("offer_rate, take_rate", [(1.0, 1.0), (0.7, 0.5), (1.0, 0.3), (0.3, 0.9)])
def test_skid_buffer_passes_everything_in_order(offer_rate, take_rate):
    rng = random.Random(5)
    items = [rng.randrange(1 << 16) for _ in range(300)]
    received, held_when_empty, cycles = run(items, offer_rate, take_rate, seed=int(take_rate * 10))
    assert received == items
    assert not held_when_empty, f"empty while holding a transfer, cycles {held_when_empty[:5]}"
    if offer_rate == take_rate == 1.0:
        assert cycles <= len(items) + 2, "a transfer every cycle when nothing stalls"
