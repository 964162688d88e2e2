"""hdl/gpu/scanout_reader.py: the display's rows read from a frame buffer in a plain memory
(rows stored from the bottom, three bytes a pixel, two to a word), frames of even and odd
widths (rows starting at odd bytes), the pixels taken at random, every row's pixels in order."""

import random

import numpy as np
from amaranth.sim import Simulator

from hdl.display.mode import VGA_640X480
from hdl.gpu.scanout_reader import ScanoutReader
from hdl.mem.sdram_chip import ULX3S_SDRAM
from sim.sdram.bus_model import serve_bus

BASE = 0x1000


def test_rows_come_from_the_frame_buffer_top_down():
    rng = random.Random(5)
    reader = ScanoutReader(ULX3S_SDRAM, VGA_640X480)
    memory = np.array([rng.getrandbits(16) for _ in range(1 << 15)], dtype=np.uint16)
    frame_bytes = memory.view(np.uint8)[2 * BASE:]
    sizes = [(7, 5), (16, 3), (33, 4)]
    received = []

    async def display(ctx):
        ctx.set(reader.base, BASE)
        for width, height in sizes:
            ctx.set(reader.height, height)
            rows = []
            for row in range(height):
                ctx.set(reader.line_req.payload, {"row": row, "width": width})
                ctx.set(reader.line_req.valid, 1)
                await ctx.tick().until(reader.line_req.ready)
                ctx.set(reader.line_req.valid, 0)
                pixels = []
                while len(pixels) < width:
                    ready = rng.random() < 0.7
                    ctx.set(reader.pixels.ready, ready)
                    _, _, valid, pixel = await ctx.tick().sample(reader.pixels.valid,
                                                                 reader.pixels.payload)
                    if ready and valid:
                        pixels.append((int(pixel.r), int(pixel.g), int(pixel.b)))
                ctx.set(reader.pixels.ready, 0)
                rows.append(pixels)
            received.append(rows)
        for _ in range(20):        # nothing more comes
            _, _, valid = await ctx.tick().sample(reader.pixels.valid)
            assert not valid

    sim = Simulator(reader)
    sim.add_clock(1e-8)
    sim.add_process(serve_bus(reader.sdram, memory, rng, wait=(0, 8)))
    sim.add_testbench(display)
    sim.run()
    for (width, height), rows in zip(sizes, received):
        image = frame_bytes[:3 * width * height].reshape(height, width, 3)
        assert rows == [[tuple(int(c) for c in pixel) for pixel in image[height - 1 - r]]
                        for r in range(height)]
