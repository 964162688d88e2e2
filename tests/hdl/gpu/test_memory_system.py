"""hdl/gpu/memory_system.py: two frame buffers in a plain memory behind stand-in SDRAM ports.
A frame's output writes land in the back buffer; the display keeps showing the front one (and
the plain screen before any frame) until its vertical blanking after the frame finished, when
they swap; meanwhile the next frame may not start and the host reads the finished frame."""

import random

import numpy as np
from amaranth.sim import Simulator

from hdl.config import MemoryConfig, preset
from hdl.gpu.memory_system import MemorySystem
from hdl.mem.sdram_arbiter import PORT_ORDER
from sim.display.harness import TINY_MODE
from sim.sdram.bus_model import serve_bus

WIDTH, HEIGHT = 4, 3


def _frame(seed):
    rng = random.Random(seed)
    return [rng.randrange(1 << 17) for _ in range(3 * WIDTH * HEIGHT)]


def _converted(words):
    return [min(255, w >> 9) for w in words]


def test_frames_swap_at_the_vertical_blanking_after_they_finish():
    config = preset("ulx3s", cores=1, tmem_words=1024, omem_words=3 * 16 * 12,
                    memory=MemoryConfig(mode=TINY_MODE, frame_span=1 << 9, cache_lines=16))
    dut = MemorySystem(config, 1, 10)
    memory = np.zeros(1 << 12, dtype=np.uint16)
    rng = random.Random(3)
    frames = [_frame(1), _frame(2)]
    seen = {}

    async def output_writes(ctx, words):
        for addr, word in enumerate(words):
            ctx.set(dut.output.payload, {"addr": addr, "data": word})
            ctx.set(dut.output.valid, 1)
            await ctx.tick().until(dut.output.ready)
        ctx.set(dut.output.valid, 0)
        ctx.set(dut.flush, 1)
        await ctx.tick().until(dut.landed)
        ctx.set(dut.flush, 0)
        ctx.set(dut.finished, 1)
        await ctx.tick()
        ctx.set(dut.finished, 0)

    async def host_read(ctx, offset):
        ctx.set(dut.host_req.payload, {"write": 0, "output": 1, "offset": offset})
        ctx.set(dut.host_req.valid, 1)
        await ctx.tick().until(dut.host_req.ready)
        ctx.set(dut.host_req.valid, 0)
        while True:
            _, _, valid, word = await ctx.tick().sample(dut.host_resp.valid,
                                                        dut.host_resp.payload)
            if valid:
                return int(word)

    async def config_sent(ctx):
        """The display configuration the memory system sends next."""
        ctx.set(dut.display.config.ready, 1)
        while True:
            _, _, valid, payload = await ctx.tick().sample(dut.display.config.valid,
                                                           dut.display.config.payload)
            if valid:
                break
        ctx.set(dut.display.config.ready, 0)
        return int(payload.width), int(payload.height), int(payload.show)

    async def vblank(ctx):
        ctx.set(dut.display.vblank, 1)
        await ctx.tick()
        ctx.set(dut.display.vblank, 0)
        await ctx.tick()

    async def row(ctx, r):
        ctx.set(dut.display.line_req.payload, {"row": r, "width": WIDTH})
        ctx.set(dut.display.line_req.valid, 1)
        await ctx.tick().until(dut.display.line_req.ready)
        ctx.set(dut.display.line_req.valid, 0)
        ctx.set(dut.display.pixels.ready, 1)
        pixels = []
        while len(pixels) < 3 * WIDTH:
            _, _, valid, pixel = await ctx.tick().sample(dut.display.pixels.valid,
                                                         dut.display.pixels.payload)
            if valid:
                pixels += [int(pixel.r), int(pixel.g), int(pixel.b)]
        ctx.set(dut.display.pixels.ready, 0)
        return pixels

    def file_row(words, r):            # the display's row r: the file's row HEIGHT - 1 - r
        start = 3 * WIDTH * (HEIGHT - 1 - r)
        return _converted(words)[start:start + 3 * WIDTH]

    async def bench(ctx):
        ctx.set(dut.width, WIDTH)
        ctx.set(dut.height, HEIGHT)
        seen["plain"] = await config_sent(ctx)
        assert ctx.get(dut.may_start)
        await output_writes(ctx, frames[0])
        assert not ctx.get(dut.may_start)                         # waits for the swap
        # the host reads the finished frame while it waits
        seen["waiting"] = [await host_read(ctx, a) for a in (0, 5, 3 * WIDTH * HEIGHT - 1)]
        await vblank(ctx)
        assert ctx.get(dut.may_start)
        assert await config_sent(ctx) == (WIDTH, HEIGHT, 1)
        seen["front"] = [await row(ctx, r) for r in range(HEIGHT)]
        # the second frame goes to the other buffer; the display still shows the first
        await output_writes(ctx, frames[1])
        seen["still"] = await row(ctx, 0)
        seen["read"] = await host_read(ctx, 0)
        await vblank(ctx)
        seen["next"] = await row(ctx, 0)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    for k in range(len(PORT_ORDER)):
        sim.add_process(serve_bus(dut.sdram[k], memory, rng, wait=(0, 6)))
    sim.add_testbench(bench)
    sim.run()
    first, second = (_converted(f) for f in frames)
    assert seen["plain"] == (WIDTH, HEIGHT, 0)              # the plain screen first
    assert seen["waiting"] == [first[0], first[5], first[-1]]
    assert seen["front"] == [file_row(frames[0], r) for r in range(HEIGHT)]
    assert seen["still"] == file_row(frames[0], 0)
    assert seen["read"] == second[0]
    assert seen["next"] == file_row(frames[1], 0)
    # the two buffers hold the two frames, bytes in output order (the first frame in buffer 1:
    # buffer 0 is shown first)
    buffers = memory.view(np.uint8)
    assert [int(b) for b in buffers[2 << 9:(2 << 9) + len(first)]] == first
    assert [int(b) for b in buffers[:len(second)]] == second
