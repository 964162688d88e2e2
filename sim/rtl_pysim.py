"""Rendering a scene on the RTL shader core in Amaranth's own simulator (``--backend pysim``).

Slow (thousands of cycles per second) but needs nothing beyond Amaranth: for small scenes,
debugging (VCD output) and for tests that compare whole frames with the model. The testbench
plays the IO side of theia-system.md §2: it writes the configuration rows, streams each
triangle into the swap bank's IO copy while MAIN runs on the previous one, and serves texture
and output memory.
"""

import time

from amaranth.sim import Simulator

from hdl.shader_core import ShaderCore
from sim.sequencer import TRIANGLE_ROWS

__all__ = ["render_rtl_pysim"]


class _Memories:
    def __init__(self, scene, omem_words):
        self.tmem = list(scene.texture)
        self.omem = [0] * omem_words


async def _serve_memories(ctx, dut, memories):
    """Texture words one cycle after the request; output writes accepted at once."""
    ctx.set(dut.tm_req.ready, 1)
    ctx.set(dut.om_req.ready, 1)
    queue = []
    async for _, _, tm_valid, tm_addr, om_valid, om_addr, om_data in ctx.tick().sample(
            dut.tm_req.valid, dut.tm_req.payload, dut.om_req.valid, dut.om_req.payload.addr,
            dut.om_req.payload.data):
        ctx.set(dut.tm_resp.valid, bool(queue))
        if queue:
            ctx.set(dut.tm_resp.payload, queue.pop(0))
        if tm_valid:
            queue.append(memories.tmem[tm_addr])
        if om_valid:
            memories.omem[om_addr] = om_data


async def _write_row(ctx, dut, addr, value):
    x, y, z = value
    ctx.set(dut.io_valid, 1)
    ctx.set(dut.io_addr, addr)
    ctx.set(dut.io_data, {"x": x, "y": y, "z": z})
    ticks = 1
    while not ctx.get(dut.io_ready):
        await ctx.tick()
        ticks += 1
    await ctx.tick()
    ctx.set(dut.io_valid, 0)
    return ticks


def render_rtl_pysim(scene, rom, vcd=None, max_cycles=None, progress=None):
    """Render ``scene`` band after band on one RTL shader core; return (omem words, stats)."""
    dut = ShaderCore(rom, tmem_words=len(scene.texture), omem_words=3 * scene.width * scene.height)
    memories = _Memories(scene, 3 * scene.width * scene.height)
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
            await _write_row(ctx, dut, row, value)
        ctx.set(dut.num_triangles, len(triangles))
        cycles = 0
        next_triangle = 0
        for band in range(len(scene.bands)):
            initial, final = scene.bands[band]
            await _write_row(ctx, dut, 6, initial)
            await _write_row(ctx, dut, 7, final)
            ctx.set(dut.omem_base, scene.band_output_base(band))
            ctx.set(dut.band_start, 1)
            await ctx.tick()
            ctx.set(dut.band_start, 0)
            loaded = False
            while True:
                if triangles and not loaded:
                    # stream the next triangle into the IO copy (MAIN may be running)
                    for row, value in zip(TRIANGLE_ROWS, triangles[next_triangle]):
                        cycles += await _write_row(ctx, dut, row, value)
                    ctx.set(dut.tri_ready, 1)
                    loaded = True
                # the flip happens at the clock edge where tri_flip is high: tri_ready must
                # stay up until then (a valid/ready handshake)
                flipped = ctx.get(dut.tri_flip)
                if ctx.get(dut.band_done):
                    await ctx.tick()
                    break
                if ctx.get(dut.error):
                    from sim.backends import core_error_message
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
        counters = ctx.get(dut.counters)
        stats.update({
            "cycles": cycles, "instructions": counters.retired,
            "io_wait_cycles": ctx.get(dut.io_wait_cycles),
            "stall_cycles": counters.stall_operand + counters.stall_writeback
            + counters.stall_memory,
            "core_cycles": counters.cycles, "pixels": ctx.get(dut.pixels),
        })

    async def memory_process(ctx):
        await _serve_memories(ctx, dut, memories)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(io_side)
    sim.add_process(memory_process)
    start = time.monotonic()
    if vcd:
        with sim.write_vcd(vcd):
            sim.run()
    else:
        sim.run()
    stats["wall_s"] = round(time.monotonic() - start, 3)
    stats["cores"] = 1
    return memories.omem, stats
