"""Rendering a scene on one RTL shader core, without the GPU around it, in Amaranth's simulator.

For tests of the shader core and its control unit on their own (whole GPUs render through
``sim/gpu_pysim.py`` and ``sim/fast``). Slow: tiny scenes only. The testbench
plays the IO side of theia-system.md §2: it writes the configuration rows, streams each
triangle into the swap bank's IO copy while MAIN runs on the previous one, and serves texture
and output memory.
"""

import time

from hdl.core.shader_core import ShaderCore
from sim.core_pysim import MemoryModel, simulate, io_write, settled_counters, standalone
from sim.sequencer import TRIANGLE_ROWS

__all__ = ["render_rtl_pysim"]


def render_rtl_pysim(scene, rom, config=None, vcd=None, max_cycles=None, progress=None):
    """Render ``scene`` band after band on one RTL shader core of ``config`` (a
    ``hdl.config.CoreConfig``, default the ``default`` preset's); return (omem words, stats)."""
    from hdl.config import preset
    dut = standalone(ShaderCore(rom, config or preset("default").core,
                                tmem_words=len(scene.texture),
                                omem_words=3 * scene.width * scene.height))
    memories = MemoryModel(scene.texture, omem_words=3 * scene.width * scene.height)
    stats = {}
    triangles = scene.triangles

    async def io_side(ctx):
        for i, word in enumerate(scene.user_code or []):
            ctx.set(dut.imem_we, 1)
            ctx.set(dut.imem_addr, i)
            ctx.set(dut.imem_data, word)
            await ctx.tick()
        ctx.set(dut.imem_we, 0)
        for row, value in enumerate(scene.config):
            await io_write(ctx, dut, row, value)
        # (every pixel tests every triangle: the count is always there)
        ctx.set(dut.pixel_triangles.valid, 1)
        ctx.set(dut.pixel_triangles.payload, len(triangles))
        cycles = 0
        next_triangle = 0
        for band in range(len(scene.bands)):
            initial, final = scene.bands[band]
            await io_write(ctx, dut, 6, initial)
            await io_write(ctx, dut, 7, final)
            ctx.set(dut.omem_base, scene.band_output_base(band))
            ctx.set(dut.band_start, 1)
            await ctx.tick()
            ctx.set(dut.band_start, 0)
            loaded = False
            while True:
                if triangles and not loaded:
                    # stream the next triangle into the IO copy (MAIN may be running)
                    for row, value in zip(TRIANGLE_ROWS, triangles[next_triangle]):
                        cycles += await io_write(ctx, dut, row, value)
                    ctx.set(dut.tri_ready, 1)
                    loaded = True
                # the flip happens at the clock edge where tri_flip is high: tri_ready must
                # stay up until then (a valid/ready handshake)
                flipped = ctx.get(dut.tri_flip)
                if ctx.get(dut.band_done):
                    await ctx.tick()
                    break
                if ctx.get(dut.error):
                    from sim.core_pysim import core_error_message
                    raise RuntimeError(f"band {band}: core stopped: " + core_error_message(
                        ctx.get(dut.error_code), ctx.get(dut.error_pc)))
                await ctx.tick()
                cycles += 1
                if flipped:
                    ctx.set(dut.tri_ready, 0)
                    loaded = False
                    next_triangle = (next_triangle + 1) % len(triangles)
                if max_cycles and cycles > max_cycles:
                    raise RuntimeError(f"no end of band {band} after {max_cycles} cycles")
                if progress and cycles % 10000 == 0:
                    progress(ctx.get(dut.pixels), cycles)
        counters = await settled_counters(ctx, dut)
        stats.update({
            "cycles": cycles, "instructions": counters.retired,
            "io_wait_cycles": ctx.get(dut.io_wait_cycles),
            "stall_cycles": counters.stall_operand + counters.stall_writeback
            + counters.stall_memory,
            "core_cycles": counters.cycles, "pixels": ctx.get(dut.pixels),
        })

    start = time.monotonic()
    simulate(dut, io_side, memories, vcd=vcd)
    stats["wall_s"] = round(time.monotonic() - start, 3)
    stats["cores"] = 1
    return memories.omem, stats
