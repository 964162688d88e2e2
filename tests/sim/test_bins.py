"""sim.bins: a pixel's bin holds every triangle whose fixed-point test can accept it, so that a
binned frame is the frame, bit for bit."""

import dataclasses
import pytest

from firmware.rom import default_rom
from hdl.isa import ONE, ENTRY_INDEX, USER_CODE_BASE, Op, Instruction, reg
from sim.bins import bin_scene, missing_hits, unsafe_user_code
from sim.demo_scene import demo_scene
from sim.random_scene import random_scene
from sim.scene import load_scene
from sim.sequencer import render_model


def assert_bins_hold_every_hit(scene):
    bins = bin_scene(scene)
    assert missing_hits(scene, bins) == [], scene.name
    return bins


# --- the bound ---------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(6))
def test_random_scenes_bins_hold_every_accepted_triangle(seed):
    assert_bins_hold_every_hit(random_scene(seed))


def test_demo_bins_hold_every_hit_and_are_small():
    bins = assert_bins_hold_every_hit(demo_scene(size=32, bands=4, texture_size=16))
    assert sum(bins.tests_per_tile) < len(bins.lists) * 28 / 2     # 8 x 8 of 32 x 32 pixels


def test_a_triangle_through_the_camera_is_kept():
    """Its DELTA can be 0 and its quotients anything: no tile can prove a miss."""
    scene = demo_scene(size=16, bands=2, texture_size=16)
    camera = scene.camera
    wild = (camera, (0, 0, 0), (ONE, 0, 5 * ONE), (0, 0, 0), (0, ONE, 5 * ONE), (0, 0, 0),
            (0, 0, 0))
    scene = dataclasses.replace(scene, triangles=[wild])
    bins = assert_bins_hold_every_hit(scene)
    assert all(entries == (0,) for entries in bins.lists)


# --- frames --------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(3))
def test_binned_random_frames_are_the_frames(seed):
    scene = random_scene(100 + seed, size=10, triangles=10)
    plain, _, _ = render_model(scene, default_rom(), cores=2, jobs=1)
    binned, results, _ = render_model(scene, default_rom(), cores=2, jobs=1,
                                      bins=bin_scene(scene))
    assert binned == plain
    assert sum(r.tests for r in results) <= 100 * 10


@pytest.mark.parametrize("name", ["example1", "shaders"])
def test_reference_scenes_binned(scenes_dir, name):
    scene = load_scene(scenes_dir / name)
    bins = bin_scene(scene)
    assert bins is not None, unsafe_user_code(scene)
    plain, _, _ = render_model(scene, default_rom(), cores=4)
    binned, results, _ = render_model(scene, default_rom(), cores=4, bins=bins)
    assert binned == plain
    assert sum(r.tests for r in results) < scene.width * scene.height * len(scene.triangles)


# --- user code that binning would change ---------------------------------------------------------

def with_user_code(entries, body):
    table = [0] * 12
    for name, address in entries.items():
        table[ENTRY_INDEX[name]] = address
    scene = demo_scene(size=8, bands=1, texture_size=16)
    return dataclasses.replace(scene, user_code=table + [i.word for i in body])


def test_user_code_that_binning_would_change_is_not_binned():
    start = USER_CODE_BASE + 12
    ret = Instruction.type2(Op.RETURN, 0, 1)
    reads_u = Instruction(Op.ADD, reg("R5"), reg("CREG_u"), reg("R5"))
    writes_ray = Instruction(Op.ADD, reg("CREG_RAY_DIRECTION"), reg("R5"), reg("R5"))
    calls_rom = Instruction(Op.CALL, 0x10)
    harmless = Instruction(Op.ADD, reg("R5"), reg("CREG_LAST_u"), reg("R5"))
    assert unsafe_user_code(with_user_code({"PIXELSHADER": start}, [harmless, ret])) is None
    for entries, body, words in [
        ({"RGU": start}, [ret], "replaces RGU"),
        ({"PIXELSHADER": start}, [reads_u, ret], "reads a register MAIN rewrites"),
        ({"PIXELSHADER": start}, [writes_ray, ret], "writes a register the rays depend on"),
        ({"PIXELSHADER": start}, [calls_rom, ret], "runs firmware code"),
    ]:
        scene = with_user_code(entries, body)
        assert words in unsafe_user_code(scene)
        assert bin_scene(scene) is None
