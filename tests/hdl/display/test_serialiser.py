"""hdl/display/serialiser.py: the pixel -> tmds crossing and the 10:1 shift registers, in
Amaranth's simulator with the two clocks locked 1:5 (with a phase offset) and at unrelated
ratios. The bits sent, regrouped in tens, must be the symbols written, in order, none
corrupted: all of them when locked; at a faster tmds clock the FIFO runs empty and idle
symbols are inserted (``underflow``), never a symbol lost; at a slower one it runs full and
symbols are dropped, never reordered or mixed. The clock lane sends 0b1111100000 throughout."""

import numpy as np
import pytest
from amaranth import Module, ClockDomain
from amaranth.sim import Simulator

from hdl.display.serialiser import TmdsSerialiser, CLOCK_PATTERN, DEFAULT_IDLE

PIXEL_CYCLES = 300


def sent_word(k):
    """Distinct 30-bit words (three lanes' symbols), none of them the idle triple."""
    return (k * 0x9E3779B1 + 0x1234567) % (1 << 30)


def run(pixel_mhz, tmds_mhz, phase_ns=0.0):
    dut = TmdsSerialiser()
    m = Module()
    m.domains += [ClockDomain("pixel"), ClockDomain("tmds")]
    m.submodules.dut = dut
    pairs, flags = [], {"underflow": 0}

    async def source(ctx):
        for k in range(PIXEL_CYCLES):
            ctx.set(dut.symbols.as_value(), sent_word(k))
            await ctx.tick("pixel")

    async def pins(ctx):
        async for _, _, data, clock, underflow in ctx.tick("tmds").sample(
                dut.data, dut.clock, dut.underflow):
            pairs.append([*(int(data[h]) >> k & 1 for h in range(2) for k in range(3)),
                          int(clock[0]), int(clock[1])])
            flags["underflow"] |= underflow

    sim = Simulator(m)
    sim.add_clock(1e-6 / pixel_mhz, domain="pixel")
    sim.add_clock(1e-6 / tmds_mhz, domain="tmds", phase=phase_ns * 1e-9)
    sim.add_testbench(source)
    sim.add_process(pins)
    sim.run_until(PIXEL_CYCLES / pixel_mhz * 1e-6)
    pairs = np.array(pairs)
    ticks = len(pairs) // 5 * 5
    weights = 1 << np.arange(10)
    # lane k's bits: (first half, second half) of each tick, least significant first
    lanes = [pairs[:ticks, [k, 3 + k]].reshape(-1, 10) @ weights for k in range(3)]
    clock = pairs[:ticks, 6:8].reshape(-1, 10) @ weights
    words = lanes[0] | lanes[1] << 10 | lanes[2] << 20
    return words, clock, flags["underflow"]


@pytest.mark.parametrize("pixel_mhz, tmds_mhz, phase_ns, expect", [
    (25.0, 125.0, 3.1, "locked"),        # the board: one PLL, any phase between the clocks
    (25.1, 125.7, 0.0, "intact"),        # near 1:5, not locked: nothing lost in this stretch
    (25.1, 131.3, 0.0, "underflow"),     # the tmds side reads faster
    (25.1, 119.9, 0.0, "overflow"),      # the tmds side reads slower
])
def test_crossing(pixel_mhz, tmds_mhz, phase_ns, expect):
    words, clock, underflow = run(pixel_mhz, tmds_mhz, phase_ns)
    assert (clock == CLOCK_PATTERN).all()
    idle_word = DEFAULT_IDLE[0] | DEFAULT_IDLE[1] << 10 | DEFAULT_IDLE[2] << 20
    index = {sent_word(k): k for k in range(PIXEL_CYCLES)}
    first = np.flatnonzero(words != idle_word)[0]
    received = words[first:]
    is_idle = received == idle_word
    got = [index.get(int(w)) for w in received[~is_idle]]
    assert None not in got, "a word that was never sent: corrupted in the crossing"
    steps = np.diff(got)
    assert (steps >= 1).all(), "words out of order or repeated"
    assert got[0] == 0 and len(got) > PIXEL_CYCLES // 2
    if expect in ("locked", "intact", "underflow"):
        assert (steps == 1).all(), "a word lost"
    if expect in ("locked", "intact", "overflow"):
        assert not is_idle.any() and not underflow
    if expect == "underflow":
        assert is_idle.any() and underflow
    if expect == "overflow":
        assert (steps > 1).any()
