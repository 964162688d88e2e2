"""hdl/gpu/frame_writer.py against a plain memory: the output words of several interleaved
pixel streams (cores), quads on two rows (the R500 stage) and scattered words, converted and
combined into line writes; after ``flush`` and ``idle`` every byte is the last word written to
it (converted), every other byte as it was; far fewer SDRAM requests than words."""

import random

import numpy as np
from amaranth.sim import Simulator

from hdl.gpu.frame_writer import FrameWriter
from hdl.mem.sdram_chip import ULX3S_SDRAM
from sim.image import word_to_u8
from sim.sdram.bus_model import serve_bus

BASE = 0x2000


def interleaved_streams(rng, width, rows):
    """Output word addresses as four cores (a band each) and the R500 stage (2x2 quads) write
    them, interleaved at random, then a few scattered ones."""
    streams = []
    band_rows = rows // 5
    for core in range(4):
        first = core * band_rows * width
        streams.append([3 * p + c for p in range(first, first + band_rows * width)
                        for c in range(3)])
    quads = []
    y0 = 4 * band_rows
    for x in range(0, width, 2):
        for dy, dx in ((0, 0), (0, 1), (1, 0), (1, 1)):
            p = (y0 + dy) * width + x + dx
            quads += [3 * p, 3 * p + 1, 3 * p + 2]
    streams.append(quads)
    order = []
    while any(streams):
        stream = rng.choice([s for s in streams if s])
        order.append(stream.pop(0))
    order += [rng.randrange(3 * width * rows) for _ in range(40)]
    return order


def run(writer, writes, memory, rng, stall, flushing=False, wait=(0, 20)):
    """Offer ``writes`` (address, word) with random idle cycles, then flush and wait for
    ``idle`` (``flushing``: flush all along, as between frames); returns the SDRAM requests
    and the writer's count of them."""
    requests = []
    state = {}

    async def source(ctx):
        ctx.set(writer.base, BASE)
        ctx.set(writer.flush, flushing)
        for addr, word in writes:
            while rng.random() < stall:
                await ctx.tick()
            ctx.set(writer.i.payload, {"addr": addr, "data": word})
            ctx.set(writer.i.valid, 1)
            await ctx.tick().until(writer.i.ready)
            ctx.set(writer.i.valid, 0)
        ctx.set(writer.flush, 1)
        await ctx.tick()
        while not ctx.get(writer.idle):
            await ctx.tick()
        state["line_writes"] = ctx.get(writer.line_writes)

    sim = Simulator(writer)
    sim.add_clock(1e-8)
    sim.add_process(serve_bus(writer.sdram, memory, rng, wait=wait, requests=requests))
    sim.add_testbench(source)
    sim.run()
    return requests, state["line_writes"]


def check(writes, flushing, stall=0.3, wait=(0, 20)):
    rng = random.Random(3)
    memory = np.array([rng.getrandbits(16) for _ in range(1 << 15)], dtype=np.uint16)
    before = memory.copy()
    # six streams at once (four cores, a quad's two rows): eight lines
    writer = FrameWriter(ULX3S_SDRAM, 12, lines=8, line_bytes=16)
    requests, line_writes = run(writer, writes, memory, rng, stall, flushing, wait)
    expected = before.view(np.uint8).copy()
    frame = expected[2 * BASE:]
    for addr, word in writes:
        frame[addr] = word_to_u8(word)
    assert (memory.view(np.uint8) == expected).all()
    assert all(write and count == 8 and (addr - BASE) % 8 == 0
               for addr, write, count in requests)
    assert line_writes == len(requests)
    return requests


def test_writes_land_converted_and_combined():
    rng = random.Random(3)
    width, rows = 20, 10
    addresses = interleaved_streams(rng, width, rows)
    # words: plain colours << 9, large and negative ones (255 when converted)
    writes = [(a, rng.choice([rng.randrange(256) << 9, rng.getrandbits(32)]))
              for a in addresses]
    requests = check(writes, flushing=False)
    assert len(requests) < len(writes) / 8        # combined: ~16 bytes a request


def test_writes_while_flushing_join_no_line_on_its_way_out():
    rng = random.Random(4)
    # runs of a few bytes, some written twice: a write often finds its line leaving
    writes = []
    for _ in range(60):
        start = rng.randrange(600)
        for a in range(start, start + rng.randrange(1, 12)):
            writes.append((a, rng.randrange(256) << 9))
            if rng.random() < 0.3:
                writes.append((a, rng.randrange(256) << 9))
    check(writes, flushing=True, stall=0.1, wait=(0, 2))
