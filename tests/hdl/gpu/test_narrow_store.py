"""hdl/gpu/narrow_store.py: the banked 8-bit texture and output stores against a dictionary model:
what a write keeps, what a read returns, and when (READ_LATENCY = 3 cycles after its address,
holding while no new read is enabled), across banks and a partial last bank."""

import random

import pytest

from amaranth.sim import Simulator

from hdl.gpu.narrow_store import TextureStore, PixelStore


def texture_model(word):
    return word & (0xFF << 9)


def pixel_model(word):
    return min(255, word >> 9)


@pytest.mark.parametrize("store_class, model", [(TextureStore, texture_model),
                                                (PixelStore, pixel_model)])
def test_banked_store_reads_three_cycles_after_the_address(store_class, model):
    depth, bank_words = 100, 16                  # 7 banks, the last one 4 words
    store = store_class(depth, bank_words=bank_words)
    assert store.READ_LATENCY == 3
    assert len(store.banks) == 7 and store.banks[-1].depth == 4
    write = store.write_port()
    read = store.read_port()
    rng = random.Random(5)
    contents = {}
    checked = [0]

    async def tb(ctx):
        for address in range(depth):             # every word once, then random overwrites
            word = rng.getrandbits(32) & (0x1FE00 if store_class is TextureStore
                                          else 0xFFFFFFFF)
            ctx.set(write.addr, address)
            ctx.set(write.data, word)
            ctx.set(write.en, 1)
            contents[address] = model(word)
            await ctx.tick()
        ctx.set(write.en, 0)
        expect = []                               # (cycle due, word) of reads in flight
        held = None
        for cycle in range(400):
            enable = rng.random() < 0.7
            address = rng.randrange(depth)
            writing = rng.random() < 0.3
            ctx.set(read.en, enable)
            ctx.set(read.addr, address)
            ctx.set(write.en, writing)
            if writing:
                # a write to another address than the read's (a read of the address being
                # written is not defined: the ports are not transparent)
                target = (address + 1 + rng.randrange(depth - 1)) % depth
                word = rng.getrandbits(32) & (0x1FE00 if store_class is TextureStore
                                              else 0xFFFFFFFF)
                ctx.set(write.addr, target)
                ctx.set(write.data, word)
            if enable:
                expect.append((cycle + store.READ_LATENCY, contents[address]))
            await ctx.tick()
            if writing:
                contents[target] = model(word)
            now = cycle + 1
            if expect and expect[0][0] == now:
                held = expect.pop(0)[1]
            if held is not None:
                assert ctx.get(read.data) == held, f"cycle {now}"
                checked[0] += 1

    sim = Simulator(store)
    sim.add_clock(1e-8)
    sim.add_testbench(tb)
    sim.run()
    assert checked[0] > 300
