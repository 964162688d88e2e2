"""The control unit's per-band sequence (theia-system.md §2) driving reference-model cores.

``render_model(scene, cores)`` renders a whole scene: band b goes to core ``b % cores`` (a core
given several bands runs them in order, its registers carrying over), each band's pixels land
in its own part of one output memory. Cores are independent, so they run in separate processes
when there is more than one.

With ``bins`` (``sim.bins``), each pixel tests only its tile's triangles, in file order: the
same image, bit for bit, in fewer tests.

A scene with an R500 fragment program (``scene.shader``, r500-us.md §4.2) renders in two steps:
the cores record every pixel after PSU2 in place of PIXELSHADER, then the program shades the
whole image in quads (``sim.r500.shading``).
"""

import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from hdl.isa import ENTRY_INDEX, reg
from sim.model import Core, TheiaError, DEFAULT_LIMITS
from sim.r500.shading import ShadingError, shade
from sim.r500.theia_inputs import PixelRecorder

POSITION = reg("CREG_PIXEL_2D_POSITION")
TRIANGLE_ROWS = [reg(n) for n in ("CREG_V0", "CREG_UV0", "CREG_V1", "CREG_UV1", "CREG_V2",
                                  "CREG_UV2", "CREG_TRI_DIFFUSE")]
INITIAL, CPPU, RGU, PSU2, NPG, USERCONSTANTS, PIXELSHADER, MAIN = (
    ENTRY_INDEX[n] for n in ("INITIAL", "CPPU", "RGU", "PSU2", "NPG", "USERCONSTANTS",
                             "PIXELSHADER", "MAIN"))


#: the name under which render_model counts an R500 program's instructions
R500_ROUTINE = "R500"


class RenderError(Exception):
    pass


@dataclass
class BandResult:
    band: int
    core: int
    pixels: int
    instructions: int
    tests: int = 0          # ray/triangle tests (MAIN runs)


def configure_core(core, scene):
    """What the IO side writes once: configuration rows 0-5. (The scene's legacy AABB node is
    not loaded: no routine of the sequence reads AABBMIN/AABBMAX.)"""
    for row, value in enumerate(scene.config):
        core.write_config(row, value)


def run_band(core, scene, band, max_pixels, pixel_stage=None, bins=None):
    """Run the §2 sequence for one band on ``core``; return (pixels done, ray/triangle tests).
    ``pixel_stage(core, hit)``, when given, runs in place of the PIXELSHADER routine; with
    ``bins`` a pixel tests only its bin's triangles."""
    initial, final = scene.bands[band]
    core.write_config(6, initial)
    core.write_config(7, final)
    core.run_routine(INITIAL)
    core.run_routine(CPPU)
    core.run_routine(USERCONSTANTS)
    pixels = tests = 0
    everything = range(len(scene.triangles))
    while True:
        hit = False
        chosen = everything if bins is None else bins.triangles_at(core.regs[POSITION])
        tests += len(chosen)
        core.run_routine(RGU)
        for triangle in (scene.triangles[k] for k in chosen):
            # The IO side streams the triangle into the copy EXE does not see; the flip is the
            # only synchronisation.
            for row, value in zip(TRIANGLE_ROWS, triangle):
                core.write_swap(row, value)
            core.flip()
            hit |= core.run_routine(MAIN)
        if hit:
            core.run_routine(PSU2)
        if pixel_stage is None:
            core.run_routine(PIXELSHADER)
        else:
            pixel_stage(core, hit)
        pixels += 1
        if not core.run_routine(NPG):
            return pixels, tests
        if pixels >= max_pixels:
            raise RenderError(f"band {band}: NPG did not end the band after {pixels} pixels")


def texture_memory(scene, limits):
    """The texture memory's words: the scene's texture, then zeros up to its size."""
    words = max(limits.get("tmem_words", DEFAULT_LIMITS["tmem_words"]), len(scene.texture))
    return list(scene.texture) + [0] * (words - len(scene.texture))


def _run_core(args):
    """Run every band assigned to one core; returns (writes, results, routine instructions,
    pixel records for an R500 program). Runs in a worker."""
    scene, rom, core_index, bands, omem_words, limits, bins = args
    omem = [None] * omem_words            # None = not written by this core
    core = Core(rom, scene.user_code, tmem=texture_memory(scene, limits), omem=omem, **limits)
    configure_core(core, scene)
    recorder = PixelRecorder() if scene.shader is not None else None
    results = []
    for band in bands:
        core.omem_base = scene.band_output_base(band)
        before = core.stats.instructions
        try:
            pixels, tests = run_band(core, scene, band, max_pixels=scene.width * scene.height,
                                     pixel_stage=recorder, bins=bins)
        except TheiaError as e:
            raise RenderError(f"core {core_index}, band {band}: {e}") from None
        results.append(BandResult(band, core_index, pixels, core.stats.instructions - before,
                                  tests))
    writes = {i: v for i, v in enumerate(omem) if v is not None}
    return writes, results, core.stats.routines, recorder.records if recorder else []


def render_model(scene, rom, cores=1, jobs=None, bins=None, **limits):
    """Render ``scene`` on ``cores`` model cores; return (output words, band results,
    instructions per routine). With an R500 program the routines include ``R500``: the
    instructions its quads executed. ``bins``: the scene's ``sim.bins.Bins``, or None to
    test every triangle at every pixel."""
    if cores < 1:
        raise ValueError("--cores must be at least 1")
    omem_words = 3 * scene.width * scene.height
    assignments = [(scene, rom, c, list(range(c, len(scene.bands), cores)), omem_words, limits,
                    bins)
                   for c in range(min(cores, len(scene.bands)))]
    jobs = jobs or os.cpu_count() or 1
    if jobs > 1 and len(assignments) > 1:
        with ProcessPoolExecutor(max_workers=min(jobs, len(assignments))) as pool:
            outcomes = list(pool.map(_run_core, assignments))
    else:
        outcomes = [_run_core(a) for a in assignments]
    omem = [0] * omem_words
    results, routines, records = [], {}, []
    for writes, band_results, core_routines, core_records in outcomes:
        for i, v in writes.items():
            omem[i] = v
        results.extend(band_results)
        records.extend(core_records)
        for name, n in core_routines.items():
            routines[name] = routines.get(name, 0) + n
    results.sort(key=lambda r: r.band)
    if scene.shader is not None:
        routines[R500_ROUTINE] = _shade(scene, records, omem, jobs, limits)
    return omem, results, routines


def _shade(scene, records, omem, jobs, limits):
    """Run the scene's R500 program over the recorded pixels; its instruction count."""
    try:
        return shade(scene.shader, texture_memory(scene, limits), records, omem, scene.width,
                     scene.height, jobs).instructions
    except ShadingError as e:
        raise RenderError(str(e)) from None
