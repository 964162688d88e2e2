"""A whole frame on the GPU top (hdl/gpu/gpu.py) in the fast simulator, through its host bus only
with the frame sequence every host uses (host/frame.py, docs/host-interface.md): load,
start, poll, read back.

    output, stats = render_gpu_fast(scene, default_rom(), preset("default", cores=4))

A GPU with its memories in SDRAM (``GpuConfig.memory``: the board presets) runs as the board
holds it (``gpu_sim``): the system top (sim/system_top.py: the Gpu, the SDRAM controller with
the chip model of sim/sdram/ on its pins, refreshes and all, and the display's pipeline at its
own pixel clock, reading the front buffer as it shows it), the GPU's clock at the board's
frequency.
"""

import time

from hdl.gpu.address_map import FRAME_ENDED, Reg, register_address
from host.errors import FrameError
from host.frame import render_frame_blocking
from sim.bins import bin_rows_for, frame_bins
from sim.fast.build import Design
from sim.fast.driver import FastSim, FastSimError

__all__ = ["render_gpu_fast", "gpu_design", "gpu_sim", "start_memory_system", "BusHost"]


def gpu_design(rom, config, scene=None, bins=None):
    """The Gpu of ``config`` (a ``hdl.config.GpuConfig``, fitted to ``scene`` and its ``bins``
    when given) as a ``sim.fast.build.Design``: cached builds are found by its constructor
    arguments and the RTL sources, without elaborating it. With ``config.memory``: the system
    top around it (sim/system_top.py)."""
    if scene is not None:
        config = config.fitted(scene, bin_rows_for(bins))
    if config.memory is not None:
        from sim.system_top import SystemSimTop
        return Design(SystemSimTop, [int(w) for w in rom], config)
    from hdl.gpu.gpu import Gpu
    return Design(Gpu, [int(w) for w in rom], config)


def gpu_sim(rom, config, scene=None, bins=None, backend=None, log=None):
    """A FastSim of ``gpu_design``'s top, ready for the host bus: with ``config.memory``, its
    clocks running and the SDRAM initialised (``start_memory_system``)."""
    sim = FastSim(gpu_design(rom, config, scene, bins), backend=backend, log=log)
    if config.memory is not None:
        start_memory_system(sim, config.memory)
    return sim


def start_memory_system(sim, memory, prefix="pins"):
    """Run a system top's clocks at the board's frequencies (``memory``: the GPU's
    ``MemoryConfig``; the display's pixel clock and, if the top has it, the TMDS clock at five
    times that), put the SDRAM chip model on its pins ``<prefix>__...`` (``sim.sdram_model``)
    and run until the controller has initialised the SDRAM (its 200 us power-up)."""
    from hdl.gpu.system import sdram_plan
    from sim.sdram.fast import attach_chip
    from sim.sdram.model import SdramChipModel
    clocks = {"pixel": memory.pixel_hz, "tmds": 5 * memory.pixel_hz}
    sim.set_clocks(memory.clock_hz, {name: hz for name, hz in clocks.items()
                                     if name in sim.clocks})
    sim.sdram_model = SdramChipModel(memory.chip, memory.clock_hz, sdram_plan(memory))
    attach_chip(sim, sim.sdram_model, prefix)
    limit = sim.sdram_model.t.power_up + 10_000
    sim.run_until("initialised", limit)
    if not sim.get("initialised"):
        raise FastSimError(f"the SDRAM is not initialised after {limit} cycles")


class BusHost:
    """A FastSim's host bus as the blocking host of the frame sequence
    (host/frame.py). Counts the bus cycles of its writes and reads, and the
    cycles of the frame (``frame_cycles``)."""

    def __init__(self, sim, progress, chunk_cycles, max_cycles):
        self.sim = sim
        self.progress = progress
        self.chunk_cycles = chunk_cycles
        self.max_cycles = max_cycles
        self.bus_cycles = 0
        self.frame_cycles = 0

    def write(self, addr, words):
        self.bus_cycles += self.sim.bus_write(addr, words)

    def read(self, addr, count):
        before = self.sim.cycles
        words = self.sim.bus_read(addr, count)
        self.bus_cycles += self.sim.cycles - before
        return [int(w) for w in words]

    def wait_frame(self):
        sim, total = self.sim, 0
        while True:
            budget = min(self.chunk_cycles, self.max_cycles - total)
            # a status read every 1024 cycles: the frame's end is seen at most that late (its
            # cycle count comes from the GPU's counter), and the loop stays in plain cycles
            cycles, status = sim.bus_poll(register_address(Reg.STATUS), FRAME_ENDED, budget,
                                          interval=1024)
            total += cycles
            self.frame_cycles = total
            if status & FRAME_ENDED:
                return status
            if self.progress:
                self.progress(int(sim.bus_read(register_address(Reg.PIXELS), 1)[0]), total)
            if total >= self.max_cycles:
                raise FrameError(f"frame not done after {total} cycles")


def render_gpu_fast(scene, rom, config, backend=None, progress=None, chunk_cycles=100_000,
                    max_cycles=2_000_000_000, sim=None, log=None, binning=True, frames=1):
    """Render ``scene`` on the GPU of ``config`` (a ``hdl.config.GpuConfig``) in the fast
    simulator; return (the output memory as a list: words, or converted pixels with the 8-bit
    output store; stats). ``progress(pixels_done, cycles)`` is called after every
    ``chunk_cycles``. ``sim``: an existing FastSim of such a Gpu (idle) to reuse instead of
    building (``gpu_sim``'s). ``binning``: each pixel tests only its bin's triangles
    (``sim.bins.frame_bins``). ``frames``: render that many frames, the figures the last's
    (``host.frame.render_frame``).

    stats: cycles (the GPU's frame counter), wall_s (load + run + read back), run_s, cores,
    instructions, io_wait_cycles, stall_cycles, pixels, tests (ray/triangle tests), binning
    (the frame was binned), bus_cycles (loading and reading
    back), backend, prepare_s (elaboration, export and build or cache look-up; not in wall_s),
    build_s (0 when the model came from the cache); with the memories in SDRAM also
    cache_fills and line_writes (since the model was built), sdram_commands (the cycles the
    chip model was shown).
    """
    prepare_start = time.monotonic()
    bins = frame_bins(scene, binning)
    if sim is None:
        sim = gpu_sim(rom, config, scene, bins, backend=backend, log=log)
    prepare_s = time.monotonic() - prepare_start
    start = time.monotonic()
    sim.attach_bus()
    host = BusHost(sim, progress, chunk_cycles, max_cycles)
    try:
        frame = render_frame_blocking(host, scene, cores=config.cores,
                                      texture_words=config.fitted(scene).tmem_words,
                                      bins=bins, log=log, frames=frames)
    except FrameError as e:
        raise FastSimError(f"{scene.name}: {e}") from None
    if progress:
        progress(frame.counters["pixels"], host.frame_cycles)
    stats = {
        "backend": sim.backend,
        "cores": config.cores,
        **frame.counters,
        "binning": frame.binned,
        "bus_cycles": int(host.bus_cycles),
        "wall_s": round(time.monotonic() - start, 3),
        "load_s": round(frame.load_s, 3),
        "run_s": round(frame.run_s, 3),
        "prepare_s": round(prepare_s, 3),
        "build_s": 0.0 if sim.build_info.cached else sim.build_info.build_s,
    }
    if config.memory is not None:
        stats.update(cache_fills=int(sim.get("cache_fills")),
                     line_writes=int(sim.get("line_writes")),
                     sdram_commands=int(sim.pin_model_calls()))
    return [int(w) for w in frame.output], stats
