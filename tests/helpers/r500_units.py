"""Streaming the R500 core's pipelined units (``hdl.r500``) in Amaranth's simulator, and the
binary32 operands their tests draw from."""

import random

from amaranth import Value
from amaranth.sim import Simulator

__all__ = ["EDGES", "random_pattern", "stream"]

#: zeros, subnormals, 2^-126 and neighbours, binades where x/8 meets the flush, 0.5 and 1.0 and
#: their neighbours, integers and halves, 2^23 and 2^24, max finite, infinities, NaNs of both
#: signs and several payloads
EDGES = [
    0x0000_0000, 0x8000_0000, 0x0000_0001, 0x8000_0001, 0x0040_0000, 0x807F_FFFF,
    0x0080_0000, 0x8080_0000, 0x0080_0001, 0x00FF_FFFF, 0x0100_0000, 0x017F_FFFF,
    0x0180_0000, 0x01FF_FFFF, 0x81FF_FFFF, 0x0200_0000,
    0x3EFF_FFFF, 0x3F00_0000, 0x3F00_0001, 0xBF00_0000, 0xBEFF_FFFF,
    0x3F7F_FFFF, 0x3F80_0000, 0x3F80_0001, 0xBF80_0000, 0xBF7F_FFFF, 0xBF80_0001,
    0x3FC0_0000, 0xBFC0_0000, 0x4000_0000, 0xC040_0000, 0x4B00_0000, 0x4AFF_FFFF, 0xCAFF_FFFF,
    0x4B7F_FFFF, 0xCB00_0001, 0x3300_0000, 0xB300_0000, 0xB380_0000,
    0x7E7F_FFFF, 0x7E80_0000, 0x7EFF_FFFF, 0x7F7F_FFFF, 0xFF7F_FFFF,
    0x7F80_0000, 0xFF80_0000,
    0x7FC0_0000, 0xFFC0_0000, 0x7F80_0001, 0xFFFF_FFFF, 0x7FBF_FFFF, 0xFFC0_1234,
]


def random_pattern(rng):
    """A random pattern: uniform bits, an edge value, a number near 1, one near the flush, one
    near the overflow, or a neighbour of an edge value."""
    kind = rng.random()
    sign = rng.getrandbits(1) << 31
    if kind < 0.35:
        return rng.getrandbits(32)
    if kind < 0.5:
        return rng.choice(EDGES)
    if kind < 0.7:
        return sign | rng.randint(100, 160) << 23 | rng.getrandbits(23)
    if kind < 0.8:
        return sign | rng.randint(0, 5) << 23 | rng.getrandbits(23)
    if kind < 0.9:
        return sign | rng.randint(250, 255) << 23 | rng.getrandbits(23)
    return rng.choice(EDGES) + rng.randint(-3, 3) & 0xFFFF_FFFF


def stream(dut, inputs, seed, idle=0.03):
    """Feed ``inputs`` (dicts port -> value) one per cycle, with idle cycles now and then whose
    ports hold random values; return ``o_result`` for each input, in order, asserting that
    ``o_valid`` is each cycle's ``i_valid`` LATENCY cycles later. Values are integers, those of
    ``lib.data`` ports included (their bits as the layout places them)."""
    rng = random.Random(seed)
    schedule = []                                   # the input entering each cycle, or None
    for index in range(len(inputs)):
        if rng.random() < idle:
            schedule.append(None)
        schedule.append(index)
    schedule += [None] * (dut.LATENCY + 1)
    ports = {port: Value.cast(getattr(dut, port)) for entry in inputs[:1] for port in entry}
    results = []

    async def testbench(ctx):
        for cycle, index in enumerate(schedule):
            ctx.set(dut.i_valid, index is not None)
            for port, signal in ports.items():
                value = inputs[index][port] if index is not None else rng.getrandbits(len(signal))
                ctx.set(signal, value)
            await ctx.tick()
            entered = cycle + 1 - dut.LATENCY
            expected = schedule[entered] if entered >= 0 else None
            assert ctx.get(dut.o_valid) == (expected is not None), f"valid at cycle {cycle}"
            if expected is not None:
                results.append(ctx.get(Value.cast(dut.o_result)))

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(testbench)
    sim.run()
    assert len(results) == len(inputs)
    return results
