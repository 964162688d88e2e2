"""hdl/gpu/texture_cache.py against a plain memory: several clients asking at random for
addresses that hit, miss and evict one another's lines (misses colliding with fills and with
each other's requests), every answer in each client's order; an invalidation after the
texture changed; the line fills the SDRAM port sees."""

import random

import numpy as np
import pytest
from amaranth.sim import Simulator

from hdl.config import TEXTURE_SHIFT
from hdl.gpu.texture_cache import TextureCache
from hdl.mem.sdram_chip import ULX3S_SDRAM
from sim.sdram.bus_model import serve_bus

BASE = 0x4000            # the texture's first SDRAM word


def texture_bytes(rng, words):
    return np.array([rng.randrange(256) for _ in range(words)], dtype=np.uint8)


def load(memory, texture):
    """The SDRAM image of ``texture`` (one byte a texture word, two to an SDRAM word)."""
    padded = np.append(texture, np.zeros(len(texture) % 2, dtype=np.uint8))
    memory[BASE:BASE + len(padded) // 2] = padded[0::2].astype(np.uint16) | \
        padded[1::2].astype(np.uint16) << 8


def run(cache, phases, rng, memory, stall=0.5):
    """``phases``: [(requests per client, the texture to load before)]: the texture is written
    into ``memory``, the cache invalidated, then each client asks for its addresses (a random
    number of idle cycles before each). Returns per phase each client's answers, and the
    requests the SDRAM port saw."""
    answers = [[[] for _ in range(cache.n)] for _ in phases]
    fills = []

    async def clients(ctx):
        for phase, (requests, texture) in enumerate(phases):
            load(memory, texture)
            ctx.set(cache.invalidate, 1)
            await ctx.tick()
            ctx.set(cache.invalidate, 0)
            pending = [list(r) for r in requests]
            offered = [False] * cache.n
            expected = sum(map(len, requests))
            got = answers[phase]
            while sum(map(len, got)) < expected:
                for k in range(cache.n):
                    if not offered[k] and pending[k] and rng.random() >= stall:
                        ctx.set(cache.req[k].payload, pending[k][0])
                        ctx.set(cache.req[k].valid, 1)
                        offered[k] = True
                samples = [v for k in range(cache.n) for v in (
                    cache.req[k].ready, cache.resp[k].valid, cache.resp[k].payload)]
                sampled = (await ctx.tick().sample(*samples))[2:]
                for k in range(cache.n):
                    ready, valid, word = sampled[3 * k:3 * k + 3]
                    if offered[k] and ready:
                        pending[k].pop(0)
                        offered[k] = False
                        ctx.set(cache.req[k].valid, 0)
                    if valid:
                        got[k].append(word)

    sim = Simulator(cache)
    sim.add_clock(1e-8)
    sim.add_process(serve_bus(cache.sdram, memory, rng, requests=fills))
    sim.add_testbench(clients)
    sim.run()
    return answers, fills


def expected_answers(requests, texture):
    return [[int(texture[a]) << TEXTURE_SHIFT for a in r] for r in requests]


@pytest.mark.parametrize("ways, slotted", [(1, True), (2, False)])
def test_random_requests_of_several_clients_match_the_memory(ways, slotted):
    rng = random.Random(ways)
    words = 3000
    cache = TextureCache(ULX3S_SDRAM, 3, 12, base=BASE, lines=16, line_bytes=16, ways=ways,
                         slotted=slotted)
    memory = np.zeros(1 << 16, dtype=np.uint16)
    phases = []
    for _ in range(2):          # the texture changes between the phases
        texture = texture_bytes(rng, words)
        # mostly near a few hot spots (hits), some anywhere (misses, evictions)
        spots = [rng.randrange(words) for _ in range(4)]
        requests = [[min(words - 1, max(0, rng.choice(spots) + rng.randrange(-24, 24)))
                     if rng.random() < 0.8 else rng.randrange(words) for _ in range(150)]
                    for _ in range(3)]
        phases.append((requests, texture))
    answers, fills = run(cache, phases, rng, memory)
    for (requests, texture), got in zip(phases, answers):
        assert got == expected_answers(requests, texture)
    assert fills and all(not write and count == 8 and (addr - BASE) % 8 == 0
                         for addr, write, count in fills)
    # hits happened: far fewer fills than requests
    assert len(fills) < 0.6 * sum(len(r) for requests, _ in phases for r in requests)


def test_a_line_stays_once_filled_and_two_ways_keep_two_tags():
    rng = random.Random(7)
    texture = texture_bytes(rng, 4096)
    memory = np.zeros(1 << 16, dtype=np.uint16)
    # 16 lines of 16 bytes, 2 ways: addresses 0 and 128 share set 0; so do 0 and 256
    cache = TextureCache(ULX3S_SDRAM, 1, 12, base=BASE, lines=16, line_bytes=16, ways=2)
    requests = [[0, 1, 128, 129, 0, 15, 128, 143, 256, 0]]
    answers, fills = run(cache, [(requests, texture)], rng, memory, stall=0.0)
    assert answers[0] == expected_answers(requests, texture)
    # 0 and 128 filled once each; 256 evicts one of them, and the last 0 refills if it went
    lines = [(addr - BASE) * 2 for addr, _, _ in fills]
    assert lines[:3] == [0, 128, 256]
    assert len(lines) in (3, 4)
