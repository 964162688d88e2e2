"""The R500 special-function unit (hdl/r500/sfu.py) against sim.r500.sfu, bit for bit.

One stream per function, one operand per cycle with a few idle cycles (so ``valid`` is checked
travelling with the data): the special values, the exact cases, the range boundaries, then
seeded random operands, half uniform bit patterns and half values in the function's
interesting range. Every result is compared with the model's.
"""

import random

import pytest
from amaranth.sim import Simulator

from hdl.r500 import sfu as sfu_unit
from hdl.r500.sfu import SfuOp, SpecialFunctionUnit
from sim.r500 import fp32, sfu
from tests.helpers.r500_units import stream

RANDOM_PER_FUNCTION = 1_500

MODEL = {SfuOp.EX2: sfu.ex2, SfuOp.LN2: sfu.ln2, SfuOp.RCP: sfu.rcp, SfuOp.RSQ: sfu.rsq,
         SfuOp.SIN: sfu.sin, SfuOp.COS: sfu.cos}

#: zeros, subnormals, infinities, NaNs of both signs and several payloads, the normal range's
#: ends, one and its neighbours
SPECIALS = [
    0x0000_0000, 0x8000_0000, 0x0000_0001, 0x8000_0001, 0x007F_FFFF, 0x807F_FFFF,
    0x7F80_0000, 0xFF80_0000, 0x7FC0_0000, 0xFFC0_0000, 0x7F80_0001, 0xFFFF_FFFF,
    0x7FBF_FFFF, 0xFFC0_1234, 0x0080_0000, 0x8080_0000, 0x0080_0001, 0x7F7F_FFFF, 0xFF7F_FFFF,
    0x3F80_0000, 0xBF80_0000, 0x3F80_0001, 0x3F7F_FFFF, 0xBF7F_FFFF,
]


def power_of_two(k, s=0):
    return s << 31 | (k + fp32.BIAS) << fp32.FRACTION_BITS


def f32(value):
    return fp32.from_float(value)


def directed(op):
    """The exact cases and range boundaries of one function."""
    powers = [power_of_two(k, s) for k in range(-126, 128) for s in (0, 1)]
    if op is SfuOp.RCP:
        # powers of two (exact), the flush boundary: 1/A for A near 2^126 rounds on the
        # 2^-149 grid, just up to 2^-126 or not
        return powers + [power_of_two(126) + d for d in (1, 2, 3, 0x7FFF, 0x40_0000)] + [
            power_of_two(125) + 0x7F_FFFF, power_of_two(127) + 1, 0xFF40_0000,
            power_of_two(-126) + 1, 0x8080_0001]
    if op is SfuOp.RSQ:
        # 4^k exact, negative arguments, both parities of every exponent
        return powers + [power_of_two(k) + 0x12_3456 for k in range(-126, 128)] + [
            f32(-4.0), f32(2.0), f32(3.0), f32(0.5)]
    if op is SfuOp.EX2:
        # every integer in range (exact), the overflow and flush boundaries, |A| >= 256,
        # tiny arguments of both signs (round to 1)
        return [f32(float(n)) for n in range(-130, 131)] + [
            f32(127.99999), f32(128.0), f32(-126.0), f32(-126.00001), f32(-125.99999),
            f32(-127.0), 0x437F_FFFF, 0x4380_0000, 0xC37F_FFFF, 0xC380_0000, f32(1e30),
            f32(-1e30), power_of_two(-30), power_of_two(-30, 1), power_of_two(-26),
            power_of_two(-26, 1), power_of_two(-27, 1), f32(0.5), f32(-0.5)]
    if op is SfuOp.LN2:
        # powers of two (exact, both signs), values near one (small results of both signs)
        return powers + [f32(1.0) + d for d in range(1, 20)] + [
            f32(1.0) - d for d in range(1, 20)] + [f32(0.75), f32(1.5), f32(3.0)]
    # SIN, COS: quarter turns (exact), large (integer) arguments, tiny ones of both signs,
    # the rounding of the turn to 26 bits
    quarters = [f32(q / 4) for q in range(-16, 17)]
    return quarters + [power_of_two(k, s) for k in range(-40, 40) for s in (0, 1)] + [
        f32(1e7), f32(12345678.5), f32(-12345678.5), 0x4B7F_FFFF, 0x4CFF_FFFF,
        power_of_two(-27) + 1, power_of_two(-27, 1) + 1, power_of_two(-28, 1),
        f32(0.25) + 1, f32(0.25) - 1, f32(0.5) + 1, f32(-0.75) + 1, f32(1 / 8)]


def interesting(op, rng):
    """A value in the function's interesting range."""
    if op is SfuOp.EX2:
        return f32(rng.uniform(-130.0, 130.0) if rng.random() < 0.8 else rng.uniform(-2, 2))
    if op in (SfuOp.SIN, SfuOp.COS):
        choice = rng.random()
        if choice < 0.6:
            return f32(rng.uniform(-2.0, 2.0))
        if choice < 0.8:
            return f32(rng.uniform(-1e6, 1e6))
        return f32(rng.choice((1, -1)) * 2.0 ** rng.uniform(-40, 0))
    if op is SfuOp.LN2 and rng.random() < 0.5:
        return f32(rng.uniform(0.5, 2.0)) | rng.getrandbits(1) << 31
    # RCP, RSQ, LN2: any exponent, any fraction, both signs; near the ends of the range
    biased = rng.choice((rng.randrange(1, 255), rng.randrange(1, 4), rng.randrange(250, 255)))
    return rng.getrandbits(1) << 31 | biased << 23 | rng.getrandbits(23)


def operands(op):
    rng = random.Random(0x5F0 + int(op))
    values = SPECIALS + directed(op)
    for i in range(RANDOM_PER_FUNCTION):
        values.append(rng.getrandbits(32) if i % 2 else interesting(op, rng))
    return values


@pytest.mark.parametrize("op", list(SfuOp), ids=lambda op: op.name)
def test_unit_matches_model(op):
    values = operands(op)
    outputs = stream(SpecialFunctionUnit(), [{"i_op": op, "i_a": a} for a in values],
                     seed=int(op), idle=0.1)
    results = list(zip(values, outputs))
    model = MODEL[op]
    mismatches = [(hex(a), hex(got), hex(model(a))) for a, got in results if got != model(a)]
    assert not mismatches, f"{len(mismatches)} of {len(values)}: {mismatches[:10]}"


@pytest.mark.parametrize("ops", [(SfuOp.RCP,), (SfuOp.COS, SfuOp.LN2)],
                         ids=lambda ops: "+".join(op.name for op in ops))
def test_unit_with_some_tables(ops):
    """A unit built for some operations only holds their tables (in ROM order, packed from
    address 0) and computes them as the full unit does."""
    dut = SpecialFunctionUnit(ops=ops)
    rng = random.Random(0x7AB)
    inputs = [{"i_op": op, "i_a": a} for op in ops
              for a in SPECIALS + directed(op) + [rng.getrandbits(32) for _ in range(300)]]
    outputs = stream(dut, inputs, seed=5, idle=0.1)
    mismatches = [(inp["i_op"].name, hex(inp["i_a"]), hex(got))
                  for inp, got in zip(inputs, outputs) if got != MODEL[inp["i_op"]](inp["i_a"])]
    assert not mismatches, f"{len(mismatches)} of {len(inputs)}: {mismatches[:10]}"
    assert len(dut.tables) == len({sfu_unit.OP_TABLE[op] for op in ops}) < 5


def test_mixed_ops_back_to_back():
    """Operations change every cycle: nothing of one leaks into the next."""
    rng = random.Random(7)
    ops = [rng.choice(list(SfuOp)) for _ in range(600)]
    values = [interesting(op, rng) if rng.random() < 0.5 else rng.getrandbits(32) for op in ops]
    dut = SpecialFunctionUnit()
    got = []

    async def bench(ctx):
        for op, a in zip(ops + [None] * dut.LATENCY, values + [0] * dut.LATENCY):
            ctx.set(dut.i_valid, op is not None)
            ctx.set(dut.i_op, 0 if op is None else op)
            ctx.set(dut.i_a, a)
            await ctx.tick()
            if ctx.get(dut.o_valid):
                got.append(ctx.get(dut.o_result))

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    assert got == [MODEL[op](a) for op, a in zip(ops, values)]
