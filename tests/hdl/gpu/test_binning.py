"""Binning on the RTL GPU (fast backend, docs/binning.md): random scenes of every awkward
triangle kind (sim/random_scene.py: behind the camera, crossing its plane, degenerate, tiny,
huge) give the model's unbinned frame bit for bit, in exactly the tests the model's bins give,
fewer than every triangle at every pixel. One compiled GPU (the ``default`` preset, whose
memories hold every scene here) renders them all."""

import pytest

from firmware.rom import default_rom
from hdl.config import preset
from sim.bins import frame_bins
from sim.random_scene import random_scene
from sim.sequencer import render_model

SEEDS = range(200, 216)


@pytest.fixture(scope="module")
def gpu_sim():
    from sim.fast import FastSim, check_tools
    from sim.fast.gpu import gpu_design
    problem = check_tools("verilator")
    if problem:
        pytest.skip(f"fast backend unavailable: {problem}")
    scene = random_scene(SEEDS[0], size=20)
    return FastSim(gpu_design(default_rom(), preset("default"), scene, frame_bins(scene)))


@pytest.mark.slow(weight=3)
def test_binned_random_frames_on_the_rtl_are_the_frames(gpu_sim):
    from sim.fast.gpu import render_gpu_fast
    rom = default_rom()
    fewer = 0
    for seed in SEEDS:
        scene = random_scene(seed, size=20)
        plain, _, _ = render_model(scene, rom, jobs=1)
        _, binned, _ = render_model(scene, rom, jobs=1, bins=frame_bins(scene))
        omem, stats = render_gpu_fast(scene, rom, preset("default"), sim=gpu_sim)
        assert stats["binning"], scene.name
        assert omem == plain, f"{scene.name}: the binned RTL frame is not the frame"
        assert stats["tests"] == sum(r.tests for r in binned), scene.name
        fewer += stats["tests"] < scene.width * scene.height * len(scene.triangles)
    assert fewer >= len(SEEDS) // 2
