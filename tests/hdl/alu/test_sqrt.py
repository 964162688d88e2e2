"""The MAG square roots against sim.fixed.sqrt: the pipelined one streamed one operation per
cycle, the serial one as fast as it takes them."""

import random
from math import isqrt

import pytest
from amaranth.sim import Simulator

from hdl.alu.sqrt import S_WIDTH, SquareRoot, sqrt_latency
from hdl.alu.serial_sqrt import SerialSquareRoot
from sim import fixed as fx
from tests.helpers.alu import TAG_WIDTH, stream

S_MAX = 3 * (1 << 45) - 1     # largest sum of three P = mul64(v, v)


def sqrt_inputs(seed, count):
    edges = [0, 1, 2, 3, 4, (1 << 45) - 1, 1 << 45, (1 << 45) + 1, S_MAX, 2 * (1 << 45),
             (1 << 44), (1 << 45) - (1 << 15), (1 << 45) - (1 << 15) + 1, (1 << 17), (1 << 17) - 1, 1 << 30]
    # exact squares and their neighbours: where a truncating root changes
    for root in (1, 2, 3, 1 << 16, 0x1234_5678, 0x7FFF_FFFF, 0x7FFF_FFFE, 0x4000_0000):
        square = root * root
        for s in ((square >> 17) - 1, square >> 17, (square >> 17) + 1):
            if 0 <= s <= S_MAX:
                edges.append(s)
        # the largest radicand with this root: the remainder near 2 * root (the widest it gets)
        edges.append(((root + 1) ** 2 - 1) >> 17)
    rng = random.Random(seed)
    values = list(edges)
    while len(values) < count:
        bits = rng.choice([47, 46, 45, 40, 30, 20, 10, 3])
        value = rng.getrandbits(bits)
        if rng.random() < 0.2:                       # near a perfect square of the result
            root = isqrt(value << 17) + rng.choice([0, 1])
            value = (root * root) >> 17
        values.append(min(value, S_MAX))
    return values


def run_sqrt(bits_per_stage, values):
    dut = SquareRoot(tag_width=TAG_WIDTH, bits_per_stage=bits_per_stage)
    assert dut.latency == sqrt_latency(bits_per_stage)
    mismatches = []

    def check(index, ctx):
        got, want = ctx.get(dut.o_root), fx.sqrt(values[index])
        if got != want:
            mismatches.append((hex(values[index]), hex(got), hex(want)))

    stream(dut, [((dut.i_s, s),) for s in values], check)
    assert not mismatches, f"{len(mismatches)} mismatches, first: {mismatches[:5]}"


def test_sqrt_saturates_exactly_from_two_to_the_45():
    assert fx.sqrt((1 << 45) - 1) == 0x7FFF_FFFF and fx.sqrt(1 << 45) == 0x7FFF_FFFF
    # (2**31 - 1)**2 = 2**62 - 2**32 + 1: the last s below saturation
    assert fx.sqrt((1 << 45) - (1 << 15)) == 0x7FFF_FFFE
    assert fx.sqrt((1 << 45) - (1 << 15) + 1) == 0x7FFF_FFFF
    assert S_MAX < 1 << S_WIDTH


def test_sqrt_default_stream():
    run_sqrt(1, sqrt_inputs(5, 2500))


@pytest.mark.parametrize("bits_per_stage", [2, 3])
def test_sqrt_other_stage_widths(bits_per_stage):
    run_sqrt(bits_per_stage, sqrt_inputs(6 + bits_per_stage, 600))


def run_serial_sqrt(values, gaps):
    """Feed ``values`` to the serial square root, operation k ``gaps[k]`` cycles after the one
    before; check every root against the reference, exactly LATENCY cycles after its input;
    return the ``overrun`` flag at the end."""
    dut = SerialSquareRoot(tag_width=TAG_WIDTH)
    starts = []
    cycle = 0
    for gap in gaps[:len(values)]:
        cycle += gap
        starts.append(cycle)
    outputs = []

    async def testbench(ctx):
        pending = dict(zip(starts, range(len(values))))
        for now in range(starts[-1] + dut.latency + 2):
            index = pending.get(now)
            ctx.set(dut.i_valid, index is not None)
            if index is not None:
                ctx.set(dut.i_s, values[index])
                ctx.set(dut.i_tag, index)
            await ctx.tick()
            if ctx.get(dut.o_valid):
                outputs.append((now + 1, ctx.get(dut.o_tag), ctx.get(dut.o_root)))
        outputs.append(ctx.get(dut.overrun))

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(testbench)
    sim.run()
    overrun = outputs.pop()
    return outputs, starts, overrun


def test_serial_sqrt_back_to_back_and_spaced():
    values = sqrt_inputs(11, 300)
    rng = random.Random(12)
    gaps = [SerialSquareRoot.BUSY_CYCLES + 1 + rng.choice([0, 0, 0, 1, 7]) for _ in values]
    outputs, starts, overrun = run_serial_sqrt(values, gaps)
    assert not overrun
    assert len(outputs) == len(values), "every operation comes out once"
    mismatches = []
    for (cycle, tag, root), start, value in zip(outputs, starts, values):
        assert cycle == start + SerialSquareRoot.LATENCY, f"latency of tag {tag}"
        assert tag == starts.index(start) % (1 << TAG_WIDTH)
        if root != fx.sqrt(value):
            mismatches.append((hex(value), hex(root), hex(fx.sqrt(value))))
    assert not mismatches, f"{len(mismatches)} mismatches, first: {mismatches[:5]}"
    assert SerialSquareRoot.LATENCY == sqrt_latency(1)


def test_serial_sqrt_flags_an_operation_while_busy():
    _, _, overrun = run_serial_sqrt([4, 9], [1, SerialSquareRoot.BUSY_CYCLES])
    assert overrun
