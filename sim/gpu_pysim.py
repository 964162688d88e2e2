"""Rendering a scene on the whole GPU (hdl/gpu/gpu.py) in Amaranth's own simulator.

Everything goes through the host port with the frame sequence every host uses
(host/frame.py, docs/host-interface.md): user code, texture, triangles,
configuration rows, band table with output bases, counts; CTRL start; poll STATUS; read the
counters and the output memory. Slow (a few hundred to a few thousand cycles per second): for
tiny scenes, tests and VCD debugging.

    output, stats = render_gpu_pysim(scene, default_rom(), preset("default", cores=2))
"""

import time

from amaranth.sim import Simulator

from hdl.config import r500_row_words
from hdl.gpu.gpu import Gpu
from hdl.gpu.address_map import FRAME_ENDED, Reg, register_address
from host.errors import FrameError
from host.frame import render_frame
from sim.bins import bin_rows_for, frame_bins

__all__ = ["render_gpu_pysim", "gpu_for_scene", "GpuRenderError", "HostDriver", "PysimPort"]


class GpuRenderError(Exception):
    pass


def gpu_for_scene(scene, rom, config, bins=None):
    """The Gpu of ``config`` (a ``hdl.config.GpuConfig``) with memories just big enough for
    ``scene`` and its ``bins`` (small = faster to simulate), unless its memories are fixed (a
    board's: the scene must fit them)."""
    if config.fixed_memories:
        return Gpu(rom, config.fitted(scene))
    return Gpu(rom, config.replace(max_triangles=max(1, len(scene.triangles)),
                                   bin_rows=bin_rows_for(bins),
                                   tmem_words=max(1, len(scene.texture)),
                                   omem_words=3 * scene.width * scene.height,
                                   max_bands=max(1, len(scene.bands)),
                                   user_words=max(1, len(scene.user_code or ()),
                                                  config.core.user_words),
                                   r500_row_words=max(1, r500_row_words(scene))))


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
        return await self.read(register_address(reg))


class PysimPort:
    """A HostDriver as the port of the host protocol's frame sequence
    (host/frame.py): ``wait_frame`` reads STATUS every ``poll_every`` cycles, calls
    ``progress(pixels, cycles)`` after each read and gives up after ``max_cycles``."""

    def __init__(self, driver, poll_every=64, progress=None, max_cycles=None):
        self.driver = driver
        self.poll_every = poll_every
        self.progress = progress
        self.max_cycles = max_cycles

    async def write(self, addr, words):
        for i, word in enumerate(words):
            await self.driver.write(addr + i, word)

    async def read(self, addr, count):
        return await self.driver.read_many(addr, count)

    async def wait_frame(self):
        driver = self.driver
        cycles = 0
        while True:
            await driver.ctx.tick().repeat(self.poll_every)
            cycles += self.poll_every
            status = await driver.control(Reg.STATUS)
            if self.progress:
                self.progress(await driver.control(Reg.PIXELS), await driver.control(Reg.CYCLES))
            if status & FRAME_ENDED:
                return status
            if self.max_cycles and cycles > self.max_cycles:
                raise FrameError(f"frame not done after {cycles} cycles")


def render_gpu_pysim(scene, rom, config, vcd=None, progress=None, max_cycles=None,
                     poll_every=64, binning=True, observers=()):
    """Render ``scene`` on the Gpu of ``config`` (``gpu_for_scene``); return (the output memory:
    words, or converted pixels with the 8-bit output store; stats).

    stats: cycles (the GPU's frame counter), wall_s, cores, instructions, io_wait_cycles,
    stall_cycles, pixels, tests, binning (``binning``: each pixel tests only its bin's
    triangles, ``sim.bins.frame_bins``). A core error raises GpuRenderError with ERROR_INFO decoded.
    ``progress(pixels, cycles)`` is called at each STATUS poll. ``observers``: functions of the
    Gpu that return async testbenches, run in the background beside the host (e.g. to sample
    signals every cycle, ``bench.pixel_cycles``).
    """
    if config.memory is not None:
        # the memory system's SDRAM and display clocks are the system top's (sim/system_top.py),
        # which the fast simulator runs; the bare Gpu here would wait for SDRAM forever
        raise GpuRenderError("this preset's memories are in SDRAM, which Amaranth's simulator "
                             "does not run here: use the fast backend (--backend fast)")
    bins = frame_bins(scene, binning)
    gpu = gpu_for_scene(scene, rom, config, bins)
    cores = config.cores
    result = {}

    async def host(ctx):
        port = PysimPort(HostDriver(ctx, gpu.host), poll_every, progress, max_cycles)
        try:
            result["frame"] = await render_frame(port, scene, cores=cores,
                                                 texture_words=gpu.config.tmem_words,
                                                 bins=bins)
        except FrameError as e:
            result["error"] = f"{scene.name}: {e}"

    sim = Simulator(gpu)
    sim.add_clock(1e-8)
    sim.add_testbench(host)
    for observer in observers:
        sim.add_testbench(observer(gpu), background=True)
    start = time.monotonic()
    if vcd:
        with sim.write_vcd(vcd):
            sim.run()
    else:
        sim.run()
    wall = round(time.monotonic() - start, 3)
    if "error" in result:
        raise GpuRenderError(result["error"])
    frame = result["frame"]
    stats = {"cycles": frame.counters["cycles"], "wall_s": wall, "cores": cores,
             **frame.counters, "binning": frame.binned}
    return frame.output, stats
