"""hdl/lib/arbiter.py: round-robin order, fairness under load, backpressure, the slot arbiter's
turns, the shared read port routing each word back to the requester that asked for it, and the
stream register."""

import random

import pytest

from amaranth import Module, Signal, unsigned
from amaranth.lib.memory import Memory
from amaranth.sim import Simulator

from hdl.lib.arbiter import RoundRobinArbiter, SlotArbiter, SharedReadPort


def run(dut, *testbenches, processes=()):
    sim = Simulator(dut)
    sim.add_clock(1e-8)
    for tb in testbenches:
        sim.add_testbench(tb)
    for p in processes:
        sim.add_process(p)
    sim.run()


def offer(ctx, dut, rng, queues, sent, offered):
    """Seeded random producers: each one not offering a word starts offering its next (with
    probability 0.7) and holds it (valid and payload) until taken, as a stream must."""
    for k, queue in enumerate(queues):
        if not offered[k] and sent[k] < len(queue) and rng.random() < 0.7:
            offered[k] = True
        ctx.set(dut.i[k].valid, offered[k])
        ctx.set(dut.i[k].payload, queue[sent[k]] if offered[k] else 0)


def test_round_robin_rotates_when_everyone_asks():
    n = 4
    dut = RoundRobinArbiter(n, 8)
    grants = []

    async def tb(ctx):
        for k in range(n):
            ctx.set(dut.i[k].valid, 1)
            ctx.set(dut.i[k].payload, 0x10 + k)
        ctx.set(dut.o.ready, 1)
        for _ in range(4 * n):
            assert ctx.get(dut.o.valid)
            k = ctx.get(dut.grant)
            assert ctx.get(dut.o.payload) == 0x10 + k
            assert [ctx.get(dut.i[j].ready) for j in range(n)] == [j == k for j in range(n)]
            grants.append(k)
            await ctx.tick()

    run(dut, tb)
    assert grants == [k % n for k in range(4 * n)]


def test_no_grant_without_ready_and_idle_when_nobody_asks():
    dut = RoundRobinArbiter(3, 4)

    async def tb(ctx):
        assert not ctx.get(dut.o.valid)
        ctx.set(dut.i[2].valid, 1)
        ctx.set(dut.o.ready, 0)
        for _ in range(3):
            assert ctx.get(dut.o.valid) and ctx.get(dut.grant) == 2
            assert not ctx.get(dut.i[2].ready)         # held back: nothing is taken
            await ctx.tick()
        ctx.set(dut.i[0].valid, 1)
        ctx.set(dut.o.ready, 1)
        # the pointer did not move while o was stalled: 0 comes after the initial "last" (2)
        assert ctx.get(dut.grant) == 0
        await ctx.tick()
        assert ctx.get(dut.grant) == 2

    run(dut, tb)


def test_random_producers_with_backpressure():
    """Seeded random producers (holding valid and payload until taken, as a stream must) and a
    random consumer: every word arrives once, each producer's words in order, the grant names
    the producer, and a waiting producer is served within n transfers."""
    n, per_producer = 3, 40
    rng = random.Random(1234)
    dut = RoundRobinArbiter(n, 16)
    queues = [[(k << 8) | i for i in range(per_producer)] for k in range(n)]
    received = [[] for _ in range(n)]
    waiting_transfers = [0] * n

    async def tb(ctx):
        sent = [0] * n
        offered = [False] * n
        cycles = 0
        while any(len(r) < per_producer for r in received):
            cycles += 1
            assert cycles < 2000, "the arbiter stopped moving words"
            offer(ctx, dut, rng, queues, sent, offered)
            ready = rng.random() < 0.6
            ctx.set(dut.o.ready, ready)
            taken = None
            if ctx.get(dut.o.valid) and ready:
                taken = ctx.get(dut.grant)
                word = ctx.get(dut.o.payload)
                assert word >> 8 == taken, "payload does not come from the granted producer"
                assert ctx.get(dut.i[taken].ready)
                received[taken].append(word)
            for k in range(n):
                if k != taken:
                    assert not ctx.get(dut.i[k].ready)
            await ctx.tick()
            if taken is not None:
                sent[taken] += 1
                offered[taken] = False
                for k in range(n):
                    if k != taken and offered[k]:
                        waiting_transfers[k] += 1
                        assert waiting_transfers[k] < n, f"producer {k} starved"
                waiting_transfers[taken] = 0

    run(dut, tb)
    assert received == queues


def test_slot_arbiter_serves_each_requester_in_its_turn():
    """Seeded random producers and consumer: in cycle t only requester t mod n may pass (ready
    is its turn and the consumer's ready, whoever else waits), the output is its request, and
    every word arrives once, in order."""
    n, per_producer = 3, 30
    rng = random.Random(4321)
    dut = SlotArbiter(n, 16)
    queues = [[(k << 8) | i for i in range(per_producer)] for k in range(n)]
    received = [[] for _ in range(n)]

    async def tb(ctx):
        sent = [0] * n
        offered = [False] * n
        cycle = 0
        while any(len(r) < per_producer for r in received):
            assert cycle < 2000, "the arbiter stopped moving words"
            offer(ctx, dut, rng, queues, sent, offered)
            ready = rng.random() < 0.7
            ctx.set(dut.o.ready, ready)
            turn = cycle % n
            assert [ctx.get(dut.i[k].ready) for k in range(n)] == \
                [int(k == turn and ready) for k in range(n)], cycle
            assert ctx.get(dut.grant) == turn
            assert ctx.get(dut.o.valid) == offered[turn]
            if offered[turn]:
                assert ctx.get(dut.o.payload) == queues[turn][sent[turn]]
            await ctx.tick()
            cycle += 1
            if offered[turn] and ready:
                received[turn].append(queues[turn][sent[turn]])
                sent[turn] += 1
                offered[turn] = False

    run(dut, tb)
    assert received == queues


@pytest.mark.parametrize("memory_latency, registered, slotted",
                         [(1, False, False), (1, True, False), (2, False, False),
                          (2, False, True)])
def test_shared_read_port_routes_answers_in_order(memory_latency, registered, slotted):
    n, depth = 3, 64
    rng = random.Random(99)
    contents = [rng.getrandbits(32) for _ in range(depth)]
    m = Module()
    m.submodules.port = port = SharedReadPort(n, range(depth), 32, registered=registered,
                                              memory_latency=memory_latency, slotted=slotted)
    m.submodules.mem = mem = Memory(shape=unsigned(32), depth=depth, init=contents)
    rp = mem.read_port()
    m.d.comb += [rp.addr.eq(port.mem_addr), rp.en.eq(port.mem_en)]
    data = rp.data
    for _ in range(memory_latency - 1):         # a memory whose words are registered again
        data_q = Signal.like(data)
        m.d.sync += data_q.eq(data)
        data = data_q
    m.d.comb += port.mem_data.eq(data)
    requests = [[rng.randrange(depth) for _ in range(30)] for _ in range(n)]
    answers = [[] for _ in range(n)]
    taken_at = [[] for _ in range(n)]
    answered_at = [[] for _ in range(n)]

    async def requesters(ctx):
        sent = [0] * n
        offered = [False] * n
        cycle = 0
        while any(len(a) < len(r) for a, r in zip(answers, requests)):
            assert cycle < 1000
            for k in range(n):
                if not offered[k] and sent[k] < len(requests[k]) and rng.random() < 0.5:
                    offered[k] = True
                ctx.set(port.req[k].valid, offered[k])
                ctx.set(port.req[k].payload, requests[k][sent[k]] if offered[k] else 0)
            accepted = [offered[k] and ctx.get(port.req[k].ready) for k in range(n)]
            assert sum(accepted) <= 1
            await ctx.tick()
            cycle += 1
            for k in range(n):
                if accepted[k]:
                    taken_at[k].append(cycle)
                    sent[k] += 1
                    offered[k] = False
                if ctx.get(port.resp[k].valid):
                    answers[k].append(ctx.get(port.resp[k].payload))
                    answered_at[k].append(cycle)

    run(m, requesters)
    for k in range(n):
        assert answers[k] == [contents[a] for a in requests[k]]
        delay = memory_latency - 1 + registered
        assert answered_at[k] == [c + delay for c in taken_at[k]], \
            "an answer must come memory_latency cycles after its request (+1 when registered)"
