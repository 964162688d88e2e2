"""Rendering a scene on the whole GPU (hdl/gpu/gpu.py) in Amaranth's own simulator.

Everything goes through the host port, exactly as docs/host-interface.md describes it (the
same sequence a CPU or the fast-simulation driver uses): user code, texture, triangles,
configuration rows, band table with output bases, counts; CTRL start; poll STATUS; read the
counters and the output memory. Slow (a few hundred to a few thousand cycles per second): for
tiny scenes, tests and VCD debugging.

    omem, stats = render_gpu_pysim(scene, default_rom(), cores=2)
"""

import time

from amaranth.sim import Simulator

from hdl.gpu.gpu import Gpu
from hdl.gpu.host_bus import (Region, Reg, host_address, CTRL_START, STATUS_DONE, STATUS_ERROR,
                          STATUS_BUSY)
from hdl.gpu.io_unit import SLOT_ROWS

__all__ = ["render_gpu_pysim", "scene_bus_writes", "gpu_for_scene", "GpuRenderError",
           "HostDriver", "error_info_message"]


class GpuRenderError(Exception):
    pass


def error_info_message(info):
    """ERROR_INFO as text: 'core K: <what> at 0xPPPP'."""
    from sim.backends import core_error_message
    return f"core {info >> 24}: " + core_error_message((info >> 16) & 7, info & 0xFFFF)


def scene_bus_writes(scene):
    """(address, word) pairs that load ``scene`` into an idle GPU."""
    writes = []
    for i, word in enumerate(scene.user_code or []):
        writes.append((host_address(Region.USER, 2 * i), word >> 32))
        writes.append((host_address(Region.USER, 2 * i + 1), word & 0xFFFF_FFFF))
    for i, word in enumerate(scene.texture):
        writes.append((host_address(Region.TEXTURE, i), word))
    for t, triangle in enumerate(scene.triangles):
        for row, value in enumerate(triangle):
            for lane in range(3):                 # the row is stored with its z word
                writes.append((host_address(Region.SCENE, (t * SLOT_ROWS + row) * 4 + lane),
                               value[lane]))
    for row, value in enumerate(scene.config):
        for lane in range(3):
            writes.append((host_address(Region.CONFIG, row * 4 + lane), value[lane]))
    for band, (initial, final) in enumerate(scene.bands):
        for lane in range(3):
            writes.append((host_address(Region.BANDS, band * 8 + lane), initial[lane]))
            writes.append((host_address(Region.BANDS, band * 8 + 4 + lane), final[lane]))
        writes.append((host_address(Region.BANDS, band * 8 + 3), scene.band_output_base(band)))
    writes.append((host_address(Region.CONTROL, Reg.NUM_TRIANGLES), len(scene.triangles)))
    writes.append((host_address(Region.CONTROL, Reg.NUM_BANDS), len(scene.bands)))
    return writes


def gpu_for_scene(scene, rom, cores=1, **params):
    """A Gpu whose memories are just big enough for ``scene`` (small = faster to simulate)."""
    sizes = {"max_triangles": max(1, len(scene.triangles)),
             "tmem_words": max(1, len(scene.texture)),
             "omem_words": 3 * scene.width * scene.height,
             "max_bands": max(1, len(scene.bands))}
    sizes.update(params)
    return Gpu(rom, cores=cores, **sizes)


class HostDriver:
    """The host side of the bus in an async testbench (``ctx``)."""

    def __init__(self, ctx, bus):
        self.ctx = ctx
        self.bus = bus

    async def write(self, addr, word):
        ctx, bus = self.ctx, self.bus
        ctx.set(bus.valid, 1)
        ctx.set(bus.write, 1)
        ctx.set(bus.addr, addr)
        ctx.set(bus.wdata, word & 0xFFFF_FFFF)
        while not ctx.get(bus.ready):
            await ctx.tick()
        await ctx.tick()
        ctx.set(bus.valid, 0)

    async def read(self, addr):
        ctx, bus = self.ctx, self.bus
        ctx.set(bus.valid, 1)
        ctx.set(bus.write, 0)
        ctx.set(bus.addr, addr)
        while not ctx.get(bus.ready):
            await ctx.tick()
        await ctx.tick()
        ctx.set(bus.valid, 0)
        while not ctx.get(bus.rvalid):
            await ctx.tick()
        return ctx.get(bus.rdata)

    async def read_many(self, addr, count):
        """``count`` words from ``addr`` on, one read per cycle (reads are pipelined)."""
        return await self.read_each(range(addr, addr + count))

    async def read_each(self, addrs):
        """The words at ``addrs``, a read offered every cycle (reads are pipelined)."""
        ctx, bus = self.ctx, self.bus
        addrs = list(addrs)
        count = len(addrs)
        words = []
        ctx.set(bus.write, 0)
        issued = 0
        cycles = 0
        while len(words) < count:
            cycles += 1
            if cycles > 100 + 10 * count:
                raise RuntimeError(f"{count} reads gave {len(words)} answers in {cycles} cycles")
            ctx.set(bus.valid, issued < count)
            ctx.set(bus.addr, addrs[min(issued, count - 1)])
            accepted = issued < count and ctx.get(bus.ready)
            await ctx.tick()
            if accepted:
                issued += 1
            if ctx.get(bus.rvalid):
                words.append(ctx.get(bus.rdata))
        ctx.set(bus.valid, 0)
        return words

    async def control(self, reg):
        return await self.read(host_address(Region.CONTROL, reg))


def render_gpu_pysim(scene, rom, cores=1, vcd=None, progress=None, max_cycles=None,
                     gpu_params=None, poll_every=64):
    """Render ``scene`` on a ``cores``-core Gpu; return (output words, stats).

    stats: cycles (the GPU's frame counter), wall_s, cores, instructions, io_wait_cycles,
    stall_cycles, pixels, bus_cycles (loading and reading back). A core error raises
    GpuRenderError with ERROR_INFO decoded. ``progress(pixels, cycles)`` is called at each
    STATUS poll.
    """
    gpu = gpu_for_scene(scene, rom, cores, **(gpu_params or {}))
    omem_words = 3 * scene.width * scene.height
    result = {}

    async def host(ctx):
        bus = HostDriver(ctx, gpu.host)
        cycle = 0
        for addr, word in scene_bus_writes(scene):
            await bus.write(addr, word)
        await bus.write(host_address(Region.CONTROL, Reg.CTRL), CTRL_START)
        while True:
            await ctx.tick().repeat(poll_every)
            cycle += poll_every
            status = await bus.control(Reg.STATUS)
            if progress:
                progress(await bus.control(Reg.PIXELS), await bus.control(Reg.CYCLES))
            if status & STATUS_ERROR and not status & STATUS_BUSY:
                info = await bus.control(Reg.ERROR_INFO)
                result["error"] = f"{scene.name}: {error_info_message(info)}"
                return
            if status & STATUS_DONE:
                break
            if max_cycles and cycle > max_cycles:
                result["error"] = f"{scene.name}: frame not done after {cycle} cycles"
                return
        counters = await bus.read_many(host_address(Region.CONTROL, Reg.CYCLES), 5)
        result["counters"] = counters
        result["omem"] = await bus.read_many(host_address(Region.OUTPUT), omem_words)

    sim = Simulator(gpu)
    sim.add_clock(1e-8)
    sim.add_testbench(host)
    start = time.monotonic()
    if vcd:
        with sim.write_vcd(vcd):
            sim.run()
    else:
        sim.run()
    wall = round(time.monotonic() - start, 3)
    if "error" in result:
        raise GpuRenderError(result["error"])
    cycles, instructions, io_wait, stalls, pixels = result["counters"]
    stats = {"cycles": cycles, "wall_s": wall, "cores": cores, "instructions": instructions,
             "io_wait_cycles": io_wait, "stall_cycles": stalls, "pixels": pixels}
    return result["omem"], stats
