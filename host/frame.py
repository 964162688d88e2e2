"""The frame sequence every host runs (docs/host-interface.md): check that the GPU is idle,
load the scene, start, wait until STATUS says done or error, read the counters and the output.
It talks to a port (host/port.py)."""

import time
from dataclasses import dataclass

from hdl.gpu.address_map import (COUNTERS, CTRL_RUN, CTRL_START, CTRL_STOP, R500_STAGE, R5Area,
                                 R5Reg, Reg, Region, STATUS_BUSY, STATUS_DONE, STATUS_ERROR,
                                 STATUS_RUNNING,
                                 display_word, host_address, r500_address, register_address)
from hdl.gpu.scene_layout import SLOT_ROWS, bin_rows_needed
from host.errors import CoreStopped, FrameError, R500Stopped
from host.port import BlockingPort, run_blocking
from host.scene_writes import bins_fit, r500_band_problem, scene_load_runs

__all__ = ["Frame", "load_scene", "start_frame", "show_frames", "run_frames", "stop_frames",
           "show_scene", "show_scene_blocking",
           "read_counters", "render_frame", "render_frame_blocking"]


@dataclass
class Frame:
    """What ``render_frame`` read back."""
    cores: int
    counters: dict          # COUNTERS' names -> values; with an R500 program also r500_quads,
                            # r500_instructions, r500_busy_cycles (a context ran) and
                            # r500_wait_cycles (a list: the cycles each core waited on the stage)
    output: list | bytes    # 3 x width x height output words (or their bits 7:0)
    load_s: float           # wall time loading the scene
    run_s: float            # wall time from the start until STATUS said the frame ended
    binned: bool = False    # each pixel tested its bin's triangles


async def load_scene(port, scene, texture_words=None, bins=None):
    for address, words in scene_load_runs(scene, texture_words, bins):
        await port.write(address, words)


async def start_frame(port):
    await port.write(register_address(Reg.CTRL), [CTRL_START])


async def show_frames(port, width, height):
    """A GPU with a display shows its frames of ``width`` x ``height`` (scaled and centred;
    the plain screen until a frame is finished). Without a display the write is ignored."""
    await port.write(register_address(Reg.DISPLAY), [display_word(width, height)])


async def run_frames(port):
    """Render the loaded scene frame after frame (continuous rendering)."""
    await port.write(register_address(Reg.CTRL), [CTRL_RUN])


async def stop_frames(port):
    """Stop continuous rendering after the frame under way."""
    await port.write(register_address(Reg.CTRL), [CTRL_STOP])


async def read_counters(port):
    """The counters of the last frame, by COUNTERS' names."""
    words = await port.read(register_address(Reg.CYCLES), len(COUNTERS))
    return dict(zip(COUNTERS, words))


async def _r500_check(port, scene):
    """A scene with an R500 program needs a GPU with an R500 stage and bands it can shade."""
    contexts, = await port.read(r500_address(R5Area.REGS, R5Reg.CONTEXTS), 1)
    if contexts == 0:
        raise FrameError("this GPU has no R500 stage to run the scene's R500 "
                         "program (build it with one, or render on the model)")
    problem = r500_band_problem(scene)
    if problem:
        raise FrameError(problem)


async def _idle_gpu(port, scene, cores, bins, log):
    """Check that the GPU is idle, has ``cores`` cores (if given) and can shade ``scene``;
    returns (its cores, ``bins`` or None if they do not fit its scene memory)."""
    first = Reg.STATUS
    registers = await port.read(register_address(first), Reg.SCENE_ROWS - first + 1)
    status, built, scene_rows = (registers[reg - first]
                                 for reg in (Reg.STATUS, Reg.CORES, Reg.SCENE_ROWS))
    if status & STATUS_RUNNING:
        log("the GPU renders frames one after another: stopping it")
        await stop_frames(port)
        status = await port.wait_frame()
    if status & STATUS_BUSY:
        raise FrameError("the GPU is busy with a frame started earlier")
    if cores is not None and built != cores:
        raise FrameError(f"the GPU has {built} cores, not {cores}")
    if getattr(scene, "shader", None) is not None:
        await _r500_check(port, scene)
    log(f"the GPU is idle, {built} cores")
    if bins is not None and not bins_fit(scene, bins, scene_rows):
        log(f"the bins need {bin_rows_needed(bins.lists)} scene memory rows beside the "
            f"triangles' {len(scene.triangles) * SLOT_ROWS}, the GPU has {scene_rows}: every "
            f"pixel tests every triangle")
        bins = None
    return built, bins


async def show_scene(port, scene, *, log=None, texture_words=None, bins=None):
    """Load ``scene`` through ``port``, have the display show its frames and render them one
    after another (continuous rendering: ``stop_frames`` ends it); the arguments as for
    ``render_frame``. Returns the GPU's cores."""
    log = log or (lambda text: None)
    built, bins = await _idle_gpu(port, scene, None, bins, log)
    await load_scene(port, scene, texture_words, bins)
    await show_frames(port, scene.width, scene.height)
    await run_frames(port)
    return built


async def render_frame(port, scene, *, output="words", cores=None, log=None,
                       texture_words=None, bins=None, frames=1):
    """Render ``scene`` through ``port``; return a Frame. ``output``: "words" reads the output
    words with ``port.read``, "bytes" their bits 7:0 with ``port.read_bytes`` (a board's
    narrow output store holds converted pixels). ``cores``: the core count the GPU must have.
    ``texture_words``: the GPU's texture memory (where the R500 program's samplers must lie;
    default the scene's texture). ``bins``: the scene's bins (``scene_load_runs``), loaded if
    they fit the GPU's scene memory (else every pixel tests every triangle, and the log says
    so). The display of a GPU that has one shows the frame (DISPLAY). ``frames``: render
    that many frames one after another, each started as the one before ends (on a GPU with
    two frame buffers the next starts once the display shows the last: its counters are the
    last frame's, rendered while the display reads the one before). ``log(text)`` hears of
    each step. A busy GPU, a core count
    other than ``cores``, a scene with an R500 program the GPU cannot shade, a core error or an
    R500 fault raise FrameError (CoreStopped, R500Stopped for the errors)."""
    if output not in ("words", "bytes"):
        raise ValueError(f"output is 'words' or 'bytes', not {output!r}")
    log = log or (lambda text: None)
    built, bins = await _idle_gpu(port, scene, cores, bins, log)
    shading = getattr(scene, "shader", None)

    started = time.monotonic()
    await load_scene(port, scene, texture_words, bins)
    await show_frames(port, scene.width, scene.height)
    load_s = time.monotonic() - started
    log(f"scene loaded in {load_s:.1f} s")

    for _ in range(frames):
        started = time.monotonic()
        await start_frame(port)
        status = await port.wait_frame()
        run_s = time.monotonic() - started
        if not status & STATUS_DONE:
            break
    if status & STATUS_ERROR:
        info, = await port.read(register_address(Reg.ERROR_INFO), 1)
        if info >> 24 == R500_STAGE:
            fault, fault_pixel = await port.read(r500_address(R5Area.REGS, R5Reg.FAULT), 2)
            raise R500Stopped(getattr(shading, "source", "R500 program"), fault, fault_pixel)
        raise CoreStopped(info)
    if not status & STATUS_DONE:
        raise FrameError(f"the wait for the frame ended with STATUS {status:#x}")
    counters = await read_counters(port)
    if shading is not None:
        instructions, busy, quads = await port.read(
            r500_address(R5Area.REGS, R5Reg.INSTRUCTIONS), 3)
        waits = await port.read(r500_address(R5Area.REGS, R5Reg.EXPORT_WAIT), built)
        counters.update(r500_quads=quads, r500_instructions=instructions,
                        r500_busy_cycles=busy, r500_wait_cycles=waits)
    log(f"frame done: {counters['cycles']} GPU cycles")

    count = 3 * scene.width * scene.height
    read = port.read_bytes if output == "bytes" else port.read
    data = await read(host_address(Region.OUTPUT), count)
    return Frame(built, counters, data, load_s, run_s, bins is not None)


def render_frame_blocking(host, scene, **options):
    """``render_frame`` for a synchronous ``host`` (see BlockingPort)."""
    return run_blocking(render_frame(BlockingPort(host), scene, **options))


def show_scene_blocking(host, scene, **options):
    """``show_scene`` for a synchronous ``host``."""
    return run_blocking(show_scene(BlockingPort(host), scene, **options))
