"""The three user pixel shaders of the `shaders` scene (theia-system.md §5), rendered on the
reference model and checked against the default render of the same scene.

The checks are on output words where the shader's effect is exact (shader 1 and 2 at every
pixel, shader 3 worked out pixel by pixel from the default render's colours), and on the 8-bit
image as the spec states them.
"""

import dataclasses

import numpy as np
import pytest

from firmware.asm import assemble_file
from firmware.rom import default_rom
from hdl.isa import ONE, USER_CODE_BASE, ENTRY_INDEX
from sim import fixed as fx
from sim.image import hit_mask, word_to_u8, words_to_rgb
from sim.scene import load_scene
from sim.sequencer import render_model
from tests.helpers import REPO

SHADERS = REPO / "firmware" / "shaders"
WHITE, BLACK = (ONE, ONE, ONE), (0, 0, 0)


@pytest.fixture(scope="module")
def scene(scenes_dir):
    scene = load_scene(scenes_dir / "shaders")
    assert scene.user_code is None          # the directory has no Instructions.mem
    return scene


def render(scene, shader=None):
    """Output words as a list of (r, g, b) per pixel, and the 8-bit image."""
    if shader is not None:
        scene = dataclasses.replace(scene, user_code=assemble_file(SHADERS / shader).words)
    omem, bands, _ = render_model(scene, default_rom(), cores=4)
    assert sum(b.pixels for b in bands) == scene.width * scene.height
    pixels = [tuple(omem[i:i + 3]) for i in range(0, len(omem), 3)]
    return pixels, words_to_rgb(omem, scene.width, scene.height)


@pytest.fixture(scope="module")
def default(scene):
    return render(scene)


@pytest.fixture(scope="module")
def hits(default):
    # a faithful render has a red background and a black first pixel in each band
    mask = hit_mask(default[1], [(255, 0, 0), (0, 0, 0)])
    assert 1000 < mask.sum() < mask.size - 1000       # the scene's two triangles are in view
    return mask


@pytest.mark.parametrize("shader", ["shader1_default.s", "shader2_tint.s", "shader3_threshold.s"])
def test_shader_defines_both_routines(shader):
    program = assemble_file(SHADERS / shader)
    assert set(program.entries) == {"USERCONSTANTS", "PIXELSHADER"}
    table = program.entry_table()
    for name in ("USERCONSTANTS", "PIXELSHADER"):
        assert table[ENTRY_INDEX[name]] >= USER_CODE_BASE
    # every other routine stays the built-in one
    assert sum(1 for a in table if a >= USER_CODE_BASE) == 2


@pytest.mark.slow
def test_shader1_equals_default_render(scene, default):
    pixels, rgb = render(scene, "shader1_default.s")
    assert pixels == default[0]
    assert np.array_equal(rgb, default[1])


@pytest.mark.slow
def test_shader2_doubles_blue(scene, default, hits):
    pixels, rgb = render(scene, "shader2_tint.s")
    # words: R and G unchanged (mul by 1.0 is exact), B = mul(b, 2.0), at every pixel
    for (r, g, b), (r2, g2, b2) in zip(default[0], pixels):
        assert (r2, g2, b2) == (r, g, fx.mul(b, 2 * ONE))
    # the image at every hit pixel: R and G as the default, B doubled and clamped at 255
    base = default[1][hits].astype(int)
    tinted = rgb[hits].astype(int)
    assert np.array_equal(tinted[:, :2], base[:, :2])
    blue = [word_to_u8(fx.mul(p[2], 2 * ONE)) for p, h in zip(default[0], hits.ravel()) if h]
    assert np.array_equal(tinted[:, 2], blue)
    # for the non-negative colours of a texture that is about 2 * B, clamped at 255
    assert np.all(np.abs(tinted[:, 2] - np.minimum(255, 2 * base[:, 2])) <= 1)
    assert (tinted[:, 2] == 255).any() and (tinted[:, 2] < 255).any()
    assert (tinted[:, 2] > base[:, 2]).any()


@pytest.mark.slow
def test_shader3_black_and_white(scene, default, hits):
    pixels, rgb = render(scene, "shader3_threshold.s")
    # exact: from each pixel's default colour, m = MAG(colour), black if m < 0.2 or m >= 0.9
    for colour, out in zip(default[0], pixels):
        m = fx.signed32(fx.mag(colour))
        assert out == (BLACK if m < 0x06666 or m >= 0x1CCCC else WHITE)
    hit_pixels = rgb[hits]
    black = np.all(hit_pixels == 0, axis=1)
    white = np.all(hit_pixels == 255, axis=1)
    assert np.all(black | white)
    assert black.any() and white.any()
    # the red background (3.0, 0, 0) has length 3.0 >= 0.9: black
    assert np.all(rgb[~hits] == 0)
