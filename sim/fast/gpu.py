"""A whole frame on the GPU top (hdl/gpu/gpu.py) in the fast simulator, through its host bus only
(docs/host-interface.md): load, start, poll, read back.

    omem, stats = render_gpu_fast(scene, default_rom(), cores=4, progress=print)
"""

import inspect
import time

import numpy as np

from sim.fast.build import Design
from sim.fast.driver import FastSim, FastSimError

__all__ = ["render_gpu_fast", "HostMap", "scene_writes", "make_gpu", "gpu_design"]


class HostMap:
    """Word addresses of docs/host-interface.md."""
    CONTROL = 0x0000_0000
    CONFIG = 0x0010_0000
    BANDS = 0x0020_0000
    TRIANGLES = 0x0100_0000
    TEXTURE = 0x0200_0000
    USER_CODE = 0x0300_0000
    OUTPUT = 0x0400_0000

    CTRL, STATUS, NUM_TRIANGLES, NUM_BANDS, ERROR_INFO, CORES = 0, 1, 2, 3, 4, 5
    CYCLES, INSTRUCTIONS, IO_WAIT, STALLS, PIXELS = 8, 9, 10, 11, 12

    START = 1
    BUSY, DONE, ERROR = 1, 2, 4


def scene_writes(scene):
    """(addresses, words) that load ``scene`` through the host bus, in a safe order: user
    code, texture, triangles, configuration rows, band table, counts (the GPU is idle)."""
    addrs, words = [], []

    def put(addr, word):
        addrs.append(addr)
        words.append(word & 0xFFFF_FFFF)

    for i, word in enumerate(scene.user_code or []):
        put(HostMap.USER_CODE + 2 * i, word >> 32)
        put(HostMap.USER_CODE + 2 * i + 1, word)          # stored when the low half lands
    for i, word in enumerate(scene.texture):
        put(HostMap.TEXTURE + i, word)
    for t, triangle in enumerate(scene.triangles):
        for row, value in enumerate(triangle):
            for lane in range(3):                         # stored when z lands
                put(HostMap.TRIANGLES + (t * 8 + row) * 4 + lane, value[lane])
    for row, value in enumerate(scene.config):
        for lane in range(3):
            put(HostMap.CONFIG + row * 4 + lane, value[lane])
    for band, (initial, final) in enumerate(scene.bands):
        base = HostMap.BANDS + band * 8
        for lane in range(3):
            put(base + lane, initial[lane])
            put(base + 4 + lane, final[lane])
        put(base + 3, scene.band_output_base(band))
    put(HostMap.CONTROL + HostMap.NUM_TRIANGLES, len(scene.triangles))
    put(HostMap.CONTROL + HostMap.NUM_BANDS, len(scene.bands))
    return np.array(addrs, dtype=np.uint32), np.array(words, dtype=np.uint32)


def make_gpu(rom, cores, scene=None, **params):
    """A ``hdl.gpu.Gpu``; memory sizes the scene needs are passed when the constructor takes
    them (``tmem_words``, ``omem_words``) and they are not given."""
    return gpu_design(rom, cores, scene, **params).make()


def gpu_design(rom, cores, scene=None, **params):
    """``make_gpu``'s GPU as a ``sim.fast.build.Design``: cached builds are found by its
    constructor arguments and the RTL sources, without elaborating it."""
    from hdl.gpu.gpu import Gpu
    accepted = inspect.signature(Gpu).parameters
    if scene is not None:
        needs = {"tmem_words": max(len(scene.texture), 1),
                 "omem_words": 3 * scene.width * scene.height}
        for name, words in needs.items():
            if name in accepted and name not in params:
                default = accepted[name].default
                if default is inspect.Parameter.empty or default < words:
                    params[name] = words
    return Design(Gpu, [int(w) for w in rom], cores=cores, **params)


def _core_error(info):
    from hdl.core.core import CoreError
    core, code, pc = info >> 24, (info >> 16) & 7, info & 0xFFFF
    try:
        what = CoreError(code).name.lower().replace("_", " ")
    except ValueError:
        what = f"error {code}"
    return f"core {core} stopped: {what} at {pc:#06x}"


def render_gpu_fast(scene, rom, cores=1, backend=None, progress=None, chunk_cycles=100_000,
                    max_cycles=2_000_000_000, gpu_params=None, sim=None, log=None):
    """Render ``scene`` on a ``cores``-core GPU in the fast simulator; return
    (output words as a list, stats). ``progress(pixels_done, cycles)`` is called after every
    ``chunk_cycles``. ``sim``: an existing FastSim of a Gpu (idle) to reuse instead of building.

    stats: cycles (the GPU's frame counter), wall_s (load + run + read back), run_s, cores,
    instructions, io_wait_cycles, stall_cycles, pixels, bus_cycles (loading and reading
    back), backend, prepare_s (elaboration, export and build or cache look-up; not in wall_s),
    build_s (0 when the model came from the cache).
    """
    prepare_start = time.monotonic()
    if sim is None:
        sim = FastSim(gpu_design(rom, cores, scene, **(gpu_params or {})), backend=backend,
                      log=log)
    prepare_s = time.monotonic() - prepare_start
    start = time.monotonic()
    sim.attach_bus()
    control = HostMap.CONTROL
    built_cores = int(sim.bus_read(control + HostMap.CORES, 1)[0])
    if built_cores != cores:
        raise FastSimError(f"the GPU model has {built_cores} cores, not {cores}")
    addrs, words = scene_writes(scene)
    bus_cycles = sim.bus_write_scatter(addrs, words)
    load_s = time.monotonic() - start

    run_start = time.monotonic()
    sim.bus_write(control + HostMap.CTRL, [HostMap.START])
    total = 0
    while True:
        budget = min(chunk_cycles, max_cycles - total)
        # a status read every 1024 cycles: the frame's end is seen at most that late (its
        # cycle count comes from the GPU's counter), and the loop stays in plain cycles
        cycles, status = sim.bus_poll(control + HostMap.STATUS, HostMap.DONE | HostMap.ERROR,
                                      budget, interval=1024)
        total += cycles
        if status & HostMap.ERROR:
            info = int(sim.bus_read(control + HostMap.ERROR_INFO, 1)[0])
            raise FastSimError(f"{scene.name}: {_core_error(info)}")
        if status & HostMap.DONE:
            break
        if progress:
            progress(int(sim.bus_read(control + HostMap.PIXELS, 1)[0]), total)
        if total >= max_cycles:
            raise FastSimError(f"{scene.name}: frame not done after {total} cycles")
    run_s = time.monotonic() - run_start

    counters = sim.bus_read(control + HostMap.CYCLES, 5)
    before = sim.cycles
    omem = sim.bus_read(HostMap.OUTPUT, 3 * scene.width * scene.height)
    bus_cycles += sim.cycles - before
    if progress:
        progress(int(counters[4]), total)
    stats = {
        "backend": sim.backend,
        "cores": cores,
        "cycles": int(counters[0]),
        "instructions": int(counters[1]),
        "io_wait_cycles": int(counters[2]),
        "stall_cycles": int(counters[3]),
        "pixels": int(counters[4]),
        "bus_cycles": int(bus_cycles),
        "wall_s": round(time.monotonic() - start, 3),
        "load_s": round(load_s, 3),
        "run_s": round(run_s, 3),
        "prepare_s": round(prepare_s, 3),
        "build_s": 0.0 if sim.build_info.cached else sim.build_info.build_s,
    }
    return [int(w) for w in omem], stats
