"""Streaming the R500 core's pipelined units (``hdl.r500``) in Amaranth's simulator."""

import random

from amaranth.sim import Simulator

__all__ = ["stream"]


def stream(dut, inputs, seed, idle=0.03):
    """Feed ``inputs`` (dicts port -> value) one per cycle, with idle cycles now and then whose
    ports hold random values; return ``o_result`` for each input, in order, asserting that
    ``o_valid`` is each cycle's ``i_valid`` LATENCY cycles later."""
    rng = random.Random(seed)
    schedule = []                                   # the input entering each cycle, or None
    for index in range(len(inputs)):
        if rng.random() < idle:
            schedule.append(None)
        schedule.append(index)
    schedule += [None] * (dut.LATENCY + 1)
    ports = {port: len(getattr(dut, port)) for entry in inputs[:1] for port in entry}
    results = []

    async def testbench(ctx):
        for cycle, index in enumerate(schedule):
            ctx.set(dut.i_valid, index is not None)
            for port, width in ports.items():
                value = inputs[index][port] if index is not None else rng.getrandbits(width)
                ctx.set(getattr(dut, port), value)
            await ctx.tick()
            entered = cycle + 1 - dut.LATENCY
            expected = schedule[entered] if entered >= 0 else None
            assert ctx.get(dut.o_valid) == (expected is not None), f"valid at cycle {cycle}"
            if expected is not None:
                results.append(ctx.get(dut.o_result))

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(testbench)
    sim.run()
    assert len(results) == len(inputs)
    return results
