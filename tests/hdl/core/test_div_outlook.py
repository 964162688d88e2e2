"""The DIV outlook (sign and zero-ness known at issue) agrees with sim.fixed.div whenever it
claims to know, is known for the operands the firmware meets, and the RTL equals its reference."""

import random

from amaranth.sim import Simulator

from hdl.core.div_outlook import DivOutlook, div_outlook
from sim.fixed import div, signed32

EDGES = [0, 1, 2, 0x7FFF_FFFF, 0x8000_0000, 0x8000_0001, 0xFFFF_FFFF, 0x0002_0000, 0xFFFE_0000,
         0x3FFF, 0x4000, 0x0001_0000, 0x00FF_FFFF]


def operands(n, seed):
    rng = random.Random(seed)
    pairs = [(a, b) for a in EDGES for b in EDGES]
    while len(pairs) < n:
        bits_a, bits_b = rng.randint(0, 32), rng.randint(0, 32)
        pairs.append((rng.getrandbits(bits_a) ^ (rng.getrandbits(1) * 0xFFFF_FFFF),
                      rng.getrandbits(bits_b) ^ (rng.getrandbits(1) * 0xFFFF_FFFF)))
    return [(a & 0xFFFF_FFFF, b & 0xFFFF_FFFF) for a, b in pairs]


def test_reference_outlook_is_right_whenever_it_is_known():
    known = 0
    for a, b in operands(200_000, seed=1):
        ok, negative, zero = div_outlook(a, b)
        if ok:
            known += 1
            q = signed32(div(a, b))
            assert (q < 0, q == 0) == (negative, zero), (hex(a), hex(b))
    assert known > 150_000           # and it does know most of the time


def test_outlook_known_for_the_ratios_a_renderer_meets():
    rng = random.Random(2)
    for _ in range(10_000):
        b = rng.randint(1, 1 << 30) * rng.choice([1, -1])
        a = int(b * rng.uniform(-1000, 1000))      # quotients up to +-1000.0
        assert div_outlook(a & 0xFFFF_FFFF, b & 0xFFFF_FFFF)[0]


def test_rtl_equals_reference():
    dut = DivOutlook()
    cases = operands(3000, seed=3)

    def magnitude(v):
        return (-v) & 0xFFFF_FFFF if v >> 31 else v

    async def bench(ctx):
        for a, b in cases:
            ctx.set(dut.mag_a, magnitude(a))
            ctx.set(dut.mag_b, magnitude(b))
            ctx.set(dut.negative_a, a >> 31)
            ctx.set(dut.negative_b, b >> 31)
            known, negative, zero = div_outlook(a, b)
            assert ctx.get(dut.known) == known, (hex(a), hex(b))
            if known:
                assert (ctx.get(dut.negative), ctx.get(dut.zero)) == (negative, zero)

    sim = Simulator(dut)
    sim.add_testbench(bench)
    sim.run()
