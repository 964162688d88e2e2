"""A whole (tiny) frame on the RTL shader core, driven by the Python IO side, equals the model."""

import dataclasses

import pytest

from firmware.rom import default_rom
from sim.demo_scene import demo_scene
from sim.shader_core_pysim import render_rtl_pysim
from sim.sequencer import render_model


@pytest.mark.slow
def test_tiny_demo_frame_is_identical_to_the_model():
    scene = demo_scene(size=4, bands=2)
    scene = dataclasses.replace(scene, triangles=scene.triangles[:8])
    expected, bands, _ = render_model(scene, default_rom(), cores=1, jobs=1)
    words, stats = render_rtl_pysim(scene, default_rom(), max_cycles=200_000)
    assert words == expected
    assert stats["pixels"] == scene.width * scene.height
    assert stats["instructions"] == sum(b.instructions for b in bands)
    # the Python IO side loads each triangle while MAIN runs: MAIN never waits for one
    assert stats["io_wait_cycles"] == 0
