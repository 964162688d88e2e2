"""A divider shared by several vector ALUs (hdl/alu/shared_divider.py) against sim.fixed.div: every
client sends DIVs whenever it may (and sometimes not), each quotient comes back to its client
only, exactly ``latency`` cycles later, and each client's ``ready`` is what its slots and its
own DIVs say, every cycle."""

import gc
import random

import pytest
from amaranth.sim import Simulator

from hdl.alu.shared_divider import SharedDivider
from sim import fixed as fx
from tests.helpers.alu import DIV_EDGES, pack, unpack, random_word


def random_div(rng):
    """(a, b) vectors: uniform ones (one pass), lane-wise ones (three), edge values mixed in."""
    def word():
        return rng.choice(DIV_EDGES) if rng.random() < 0.2 else random_word(rng)
    if rng.random() < 0.5:
        a, b = word(), word()
        return (a,) * 3, (b,) * 3
    return tuple(word() for _ in range(3)), tuple(word() for _ in range(3))


def run_clients(clients, cycles, seed, slots=2):
    dut = SharedDivider(clients, slots)
    rng = random.Random(seed)
    sent = []            # (client, cycle, a, b)
    received = []        # (client, cycle, quotient vector)
    both_ready = []
    readies = []         # (cycle, client readies)

    async def testbench(ctx):
        for cycle in range(cycles + dut.latency + 4):
            ready = [ctx.get(c.ready) for c in dut.client]
            readies.append((cycle, ready))
            if sum(ready) > 1:
                both_ready.append(cycle)
            for k, client in enumerate(dut.client):
                send = cycle < cycles and ready[k] and rng.random() < 0.8
                ctx.set(client.valid, send)
                if send:
                    a, b = random_div(rng)
                    ctx.set(client.a.as_value(), pack(a))
                    ctx.set(client.b.as_value(), pack(b))
                    sent.append((k, cycle, a, b))
            await ctx.tick()
            for k, client in enumerate(dut.client):
                if ctx.get(client.result_valid):
                    received.append((k, cycle + 1, unpack(ctx.get(client.result.as_value()))))

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(testbench)
    sim.run()
    assert not both_ready, f"two clients may send in the same cycle: {both_ready[:5]}"
    want = [(k, cycle + dut.latency, tuple(fx.div(x, y) for x, y in zip(a, b)))
            for k, cycle, a, b in sent]
    assert received == want
    # ready exactly when the client may send: its slot (cycle mod slots), and lanes y and z of
    # a DIV of non-uniform operands it sent one or two slots before not in them
    three_pass = {(k, cycle) for k, cycle, a, b in sent if a != (a[0],) * 3 or b != (b[0],) * 3}
    for cycle, ready in readies:
        want = [int(cycle % slots == k and (k, cycle - slots) not in three_pass
                    and (k, cycle - 2 * slots) not in three_pass) for k in range(clients)]
        assert ready == want, cycle
    return sent


@pytest.mark.parametrize("clients, slots", [(1, 2), (2, 2), (2, 3), (3, 3)])
def test_shared_divider_serves_each_client_its_own_quotients(clients, slots):
    sent = run_clients(clients, 400, seed=40 + clients, slots=slots)
    for k in range(clients):                          # every client got its slots
        assert sum(1 for c, *_ in sent if c == k) > 400 // (4 * slots)
    # a DIV of non-uniform operands keeps the divider for three cycles
    assert any(len(set(a)) > 1 for _, _, a, _ in sent)


# the refused dividers exist before their check raises (Amaranth warns they were never used)
@pytest.mark.filterwarnings("ignore::amaranth.hdl.UnusedElaboratable")
def test_shared_divider_needs_a_client():
    with pytest.raises(ValueError, match=r"clients must be 1 \.\. slots \(2\), got 0"):
        SharedDivider(0)
    with pytest.raises(ValueError, match=r"clients must be 1 \.\. slots \(2\), got 3"):
        SharedDivider(3)
    with pytest.raises(ValueError, match="a shared divider has two slots or more, got 1"):
        SharedDivider(1, slots=1)
    gc.collect()                                # (their warnings while the filter holds)
