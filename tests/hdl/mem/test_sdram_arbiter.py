"""hdl/mem/sdram_arbiter.py: fixed priorities (the lowest port index first), a port that waits
``patience`` grants goes next, and each write word reaches the memory from the port whose
request it belongs to. (Read routing and whole traffic: tests/hdl/mem/test_sdram_controller.py.)"""

from amaranth.sim import Simulator

from hdl.mem.sdram_arbiter import SdramArbiter
from hdl.mem.sdram_chip import ULX3S_SDRAM


def grant_order(asking, patience, cycles):
    """Ports in ``asking`` offer one-word writes all the time (word = port number); the
    memory takes everything. Returns the ports granted, in order, and the write words the
    memory received."""
    dut = SdramArbiter(ULX3S_SDRAM, 16, 4, patience=patience)
    grants, words = [], []

    async def bench(ctx):
        for k in asking:
            port = dut.ports[k]
            ctx.set(port.cmd.payload, port.cmd.payload.shape().const(
                {"addr": 0x100 * k, "write": 1, "words_minus_one": 0}))
            ctx.set(port.cmd.valid, 1)
            ctx.set(port.wdata.payload, port.wdata.payload.shape().const(
                {"data": k, "byte_enable": 3}))
            ctx.set(port.wdata.valid, 1)
        ctx.set(dut.memory.cmd.ready, 1)
        ctx.set(dut.memory.wdata.ready, 1)
        for _ in range(cycles):
            _, _, granted, port, valid, word = await ctx.tick().sample(
                dut.grant_valid, dut.grant_port, dut.memory.wdata.valid,
                dut.memory.wdata.payload.data)
            if granted:
                grants.append(port)
            if valid:
                words.append(word)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    return grants, words


def test_the_lowest_port_wins_and_a_waiting_port_goes_after_patience_grants():
    grants, words = grant_order([0, 2], patience=3, cycles=40)
    assert grants[:12] == [0, 0, 0, 2] * 3
    assert words[:len(grants) - 4] == grants[:len(grants) - 4]   # each word from its port
    grants, _ = grant_order([1, 3], patience=100, cycles=20)
    assert set(grants) == {1}


def test_no_port_waits_longer_than_its_patience():
    patience = 4
    grants, words = grant_order([0, 1, 2, 3], patience=patience, cycles=200)
    for port in range(4):
        turns = [i for i, g in enumerate(grants) if g == port]
        assert turns and turns[0] <= patience + 3
        assert max(b - a for a, b in zip(turns, turns[1:])) <= patience + 4
    assert grants.count(0) > grants.count(3)             # priority still shows
    assert words[:len(grants) - 4] == grants[:len(grants) - 4]
