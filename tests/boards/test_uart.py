"""UART receiver/transmitter (boards/uart.py) against a bit-level model of the line."""

import pytest
from amaranth.sim import Simulator

from boards.uart import UartRx, UartTx, uart_divisor


def test_divisor_for_board_rates():
    assert uart_divisor(75e6, 3_000_000) == 25
    assert uart_divisor(75e6, 115_200) == 651
    with pytest.raises(ValueError, match="at least 4"):
        uart_divisor(10e6, 3_000_000)


def test_divisor_error_limit():
    assert uart_divisor(62.5e6, 3_000_000) == 21      # 0.8 % off: accepted
    with pytest.raises(ValueError, match="off"):
        uart_divisor(18e6, 4_000_000)                 # 4.5 cycles per bit: 11 % off


def _send_bits(ctx, pin, byte, cycles_per_bit, stop=1):
    async def run():
        for bit in [0, *((byte >> i) & 1 for i in range(8)), stop]:
            ctx.set(pin, bit)
            await ctx.tick().repeat(cycles_per_bit)
        ctx.set(pin, 1)
    return run()


@pytest.mark.parametrize("cycles_per_bit", [32, 31, 33])   # exact, and a sender ~3 % off
def test_rx_decodes_bytes(cycles_per_bit):
    dut = UartRx(divisor=32)
    sent = [0x00, 0xFF, 0xA5, 0x5A, 0x01, 0x80, 0x3C]
    got, frame_errors = [], []

    async def line(ctx):
        ctx.set(dut.rx, 1)
        await ctx.tick().repeat(20)
        for byte in sent:
            await _send_bits(ctx, dut.rx, byte, cycles_per_bit)
        await ctx.tick().repeat(40)

    async def sink(ctx):
        ctx.set(dut.data.ready, 1)
        async for _, _, valid, payload, ferr in ctx.tick().sample(
                dut.data.valid, dut.data.payload, dut.frame_error):
            if valid:
                got.append(payload)
            if ferr:
                frame_errors.append(1)

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(line)
    sim.add_testbench(sink, background=True)
    sim.run()
    assert got == sent
    assert not frame_errors


def test_rx_flags_low_stop_bit_and_overrun():
    dut = UartRx(divisor=8)
    events = {"frame_error": 0, "overrun": 0, "valid_payloads": set()}

    async def line(ctx):
        ctx.set(dut.rx, 1)
        await ctx.tick().repeat(10)
        await _send_bits(ctx, dut.rx, 0x42, 8, stop=0)     # framing error: dropped
        await ctx.tick().repeat(30)
        await _send_bits(ctx, dut.rx, 0x11, 8)             # nobody takes it ...
        await _send_bits(ctx, dut.rx, 0x22, 8)             # ... so this one overruns it
        await ctx.tick().repeat(20)

    async def watch(ctx):
        async for _, _, ferr, ovr, valid, payload in ctx.tick().sample(
                dut.frame_error, dut.overrun, dut.data.valid, dut.data.payload):
            events["frame_error"] += ferr
            events["overrun"] += ovr
            if valid:
                events["valid_payloads"].add(payload)

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(line)
    sim.add_testbench(watch, background=True)
    sim.run()
    assert events["frame_error"] == 1
    assert events["overrun"] == 1
    assert events["valid_payloads"] == {0x11, 0x22}        # 0x42 never offered


def test_tx_frames_and_timing():
    divisor = 6
    dut = UartTx(divisor=divisor)
    sent = [0xA5, 0x00, 0xFF, 0x81]
    samples = []

    async def source(ctx):
        for byte in sent:
            ctx.set(dut.data.valid, 1)
            ctx.set(dut.data.payload, byte)
            await ctx.tick().until(dut.data.ready)
        ctx.set(dut.data.valid, 0)

    async def line(ctx):
        async for _, _, tx in ctx.tick().sample(dut.tx):
            samples.append(tx)

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(source)
    sim.add_testbench(line, background=True)

    async def run_long_enough(ctx):
        await ctx.tick().repeat(len(sent) * 10 * divisor + 40)

    sim.add_testbench(run_long_enough)
    sim.run()
    # decode: every bit lasts exactly `divisor` samples, back to back frames
    start = samples.index(0)
    bits = samples[start:start + len(sent) * 10 * divisor]
    for k, byte in enumerate(sent):
        frame = bits[k * 10 * divisor:(k + 1) * 10 * divisor]
        levels = [frame[i * divisor:(i + 1) * divisor] for i in range(10)]
        assert all(len(set(level)) == 1 for level in levels), f"byte {k}: uneven bit"
        values = [level[0] for level in levels]
        assert values[0] == 0 and values[9] == 1
        assert sum(v << i for i, v in enumerate(values[1:9])) == byte
    assert samples[-1] == 1
