"""The GPU's R500 stage (hdl/gpu/r500_stage.py, quad formers, the host protocol's R500 part) in
the fast simulator against the model: lit, discarding and pass-through programs on small
scenes of odd and even sizes and on one and two cores, the frame's R500 counters (quads,
instructions, the stage's busy cycles, the cycles each core waited on it), a quad's
fault reported with its pixel and PC (and the next frame clean), scenes the stage cannot shade
refused in one line, and a GPU without an R500 stage refusing a scene with a program."""

import dataclasses

import pytest

from firmware.rom import default_rom
from hdl.config import preset
from host.scene_writes import r500_band_problem
from sim.demo_scene import demo_scene
from sim.fast.driver import FastSim, FastSimError
from sim.fast.gpu import gpu_design, render_gpu_fast
from sim.r500.shader_config import SHADER_DIR, load_shading
from sim.sequencer import RenderError, render_model

LIT_CONSTANTS = SHADER_DIR / "lit-demo.toml"


def scene_with(program, size, bands=2, constants=None, triangles=None):
    scene = demo_scene(size=size, bands=bands, texture_size=16)
    if triangles is not None:
        scene = dataclasses.replace(scene, triangles=scene.triangles[:triangles])
    return dataclasses.replace(
        scene, shader=program if not isinstance(program, str) else load_shading(program, constants))


def rtl_and_model(scene, cores=1, r500_from="default"):
    """The frame on the RTL (the ``default`` preset with the R500 stage of ``r500_from``'s)
    and on the model."""
    config = preset("default", cores=cores, r500=preset(r500_from).r500)
    got, stats = render_gpu_fast(scene, default_rom(), config)
    want, _, routines = render_model(scene, default_rom(), cores=cores, jobs=1)
    return got, want, stats, routines


@pytest.mark.slow(weight=2)
@pytest.mark.parametrize("program, size, cores, bands, r500_from", [
    ("lit", 9, 1, 2, "default"), ("lit", 10, 2, 5, "full"), ("discard", 11, 1, 1, "default"),
    ("passthrough", 8, 2, 4, "full")])
def test_frame_matches_model(program, size, cores, bands, r500_from):
    """On one core the ``default`` preset's stage (two contexts); on two the ``full`` one's
    (ten contexts, more than two formers keep busy)."""
    constants = LIT_CONSTANTS if program == "lit" else None
    scene = scene_with(program, size, bands=bands, constants=constants)
    assert r500_band_problem(scene) is None
    got, want, stats, routines = rtl_and_model(scene, cores, r500_from)
    assert got == want
    quads = ((size + 1) // 2) ** 2
    assert stats["r500_quads"] == quads
    assert stats["r500_instructions"] == routines["R500"]
    assert_stage_counters(stats, cores)


def assert_stage_counters(stats, cores):
    """A context runs at least a cycle per instruction, within the frame; a core waits on the
    stage at most the frame's cycles."""
    assert stats["r500_instructions"] <= stats["r500_busy_cycles"] <= stats["cycles"]
    assert len(stats["r500_wait_cycles"]) == cores
    assert all(0 <= wait < stats["cycles"] for wait in stats["r500_wait_cycles"])


@pytest.mark.slow
def test_frame_matches_model_on_the_boards_r500_stage():
    """The board's R500 stage (the ``ulx3s-r500`` preset's: one context, the instructions in
    LUT RAM) fed by two cores, so that both formers take turns at its one context."""
    scene = scene_with("lit", 10, bands=5, constants=LIT_CONSTANTS)
    got, want, stats, routines = rtl_and_model(scene, 2, r500_from="ulx3s-r500")
    assert got == want
    assert stats["r500_quads"] == 25 and stats["r500_instructions"] == routines["R500"]
    assert_stage_counters(stats, 2)
    # (one context for two cores: each waits its turn)
    assert all(wait > 0 for wait in stats["r500_wait_cycles"])


#: an ALU instruction with RGB_OP 6: illegal (r500-us.md §3.3)
ILLEGAL = [0x0000_0000, 0x0802_0080, 0x0802_0080, 0, 0, 6]


def test_fault_names_pixel_and_pc_and_the_next_frame_is_clean():
    scene = scene_with("passthrough", 6, bands=3, triangles=2)
    bad = dataclasses.replace(scene, shader=dataclasses.replace(
        scene.shader, program=list(scene.shader.program) + ILLEGAL, end=1))
    sim = FastSim(gpu_design(default_rom(), preset("default"), scene))
    with pytest.raises(FastSimError) as error:
        render_gpu_fast(bad, default_rom(), preset("default"), sim=sim)
    with pytest.raises(RenderError) as model_error:
        render_model(bad, default_rom(), cores=1, jobs=1)
    assert "stopped: illegal instruction at PC 1" in str(error.value)
    assert str(error.value).split("stopped: ")[1] in str(model_error.value)
    assert "the quad of pixel (0, 0)" in str(error.value)
    # (STATUS says error at once; the cores finish their bands, the stage drains, then the GPU
    # is idle)
    sim.step(100_000)
    got, _ = render_gpu_fast(scene, default_rom(), preset("default"), sim=sim)
    want, _, _ = render_model(scene, default_rom(), cores=1, jobs=1)
    assert got == want


def test_bands_of_odd_rows_are_refused():
    scene = scene_with("passthrough", 9, bands=3, triangles=2)
    assert "band 0" in r500_band_problem(scene)
    with pytest.raises(FastSimError, match="even row"):
        render_gpu_fast(scene, default_rom(), preset("default"))


def test_a_gpu_without_an_r500_stage_refuses_a_program():
    scene = scene_with("passthrough", 4, triangles=2)
    with pytest.raises(FastSimError, match="no R500 stage"):
        render_gpu_fast(scene, default_rom(), preset("default", r500=None))
