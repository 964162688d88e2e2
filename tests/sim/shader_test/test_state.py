"""What the commands set up: where a rectangle lands, the framebuffer's bytes and the probe
tolerance, uniform values in the constants, textures on the R500 samplers."""

import numpy as np
import pytest

from sim.r500 import fp32
from sim.r500.tex import Sampler
from sim.shader_test.commands import TexParameter, TextureImage, UniformSet
from sim.shader_test.errors import Failure, ShaderTestError, Skip
from sim.shader_test.textures import TEXTURE_WORDS, Textures, make_texture
from sim.shader_test.uniforms import UNIFORM_TYPES, Uniforms
from sim.shader_test.window import (DEFAULT_TOLERANCE, Projection, covered_pixels,
                                    first_mismatch, pixels_to_clip, unorm8)

WINDOW = (250, 250)


def f(x):
    return fp32.from_float(x)


# --- the window ------------------------------------------------------------------------------

def test_the_whole_window_and_half_of_it():
    assert covered_pixels((-1, -1, 2, 2), WINDOW) == (0, 250, 0, 250)
    assert covered_pixels((-1, -1, 1, 2), WINDOW) == (0, 125, 0, 250)
    assert covered_pixels((1, 1, -2, -2), WINDOW) == (0, 250, 0, 250)     # negative sizes
    assert covered_pixels((2, 2, 1, 1), WINDOW) == (250, 250, 250, 250)   # off the window: none


def test_pixel_centres_decide_half_open_at_the_right_and_top():
    """A pixel is covered when its centre lies in [x0, x1) × [y0, y1)."""
    def span(x0, x1):
        return covered_pixels(pixels_to_clip((x0, 0, x1 - x0, 1), WINDOW), WINDOW)[:2]
    assert span(10, 20) == (10, 20)
    assert span(10.5, 20.5) == (10, 20)         # a centre on the left edge is in, right out
    assert span(10.6, 20.4) == (11, 20)
    assert span(10.4, 10.6) == (10, 11)
    assert span(10.6, 11.4) == (11, 11)         # no centre inside: empty


def test_ortho_maps_window_pixels():
    ortho = Projection(0, 250, 0, 250)
    assert covered_pixels((10, 10, 10, 10), WINDOW, ortho) == (10, 20, 10, 20)
    assert covered_pixels((10, 10, 10, 10), WINDOW) == (250, 250, 250, 250)
    assert covered_pixels((0, 0, 5, 5), WINDOW, Projection(0, 10, 0, 10)) == (0, 125, 0, 125)


@pytest.mark.parametrize("value, byte", [(0.0, 0), (1.0, 255), (-3.0, 0), (7.0, 255),
                                         (0.5, 128), (127.5 / 255, 128), (127.49 / 255, 127),
                                         (float("nan"), 0), (float("inf"), 255)])
def test_unorm8(value, byte):
    assert unorm8(value) == byte


def _fails(byte, expected, tolerance=DEFAULT_TOLERANCE):
    pixels = np.array([[[byte, 0, 0, 0]]], dtype=np.uint8)
    return first_mismatch(pixels, (expected, 0.0, 0.0), tolerance) is not None


def test_the_tolerance_is_3_over_256_and_its_edge_fails():
    assert DEFAULT_TOLERANCE == (0.01171875,) * 4
    assert not _fails(0, 0.0117187)             # just inside
    assert _fails(0, 0.01171875)                # |0 - t| >= t: piglit fails it
    assert not _fails(128, 0.5) and not _fails(125, 0.5) and not _fails(130, 0.5)
    assert _fails(124, 0.5) and _fails(131, 0.5)
    assert not _fails(255, float("nan"))        # NaN compares false: piglit passes it
    assert _fails(0, 0.5, (0.5, 0.5, 0.5, 0.5)) and not _fails(0, 0.49, (0.5,) * 4)


def test_the_first_failing_pixel_is_reported_bottom_row_first():
    pixels = np.zeros((3, 4, 4), dtype=np.uint8)
    pixels[2, 0] = pixels[1, 3] = (255, 0, 0, 0)
    assert first_mismatch(pixels, (0, 0, 0), DEFAULT_TOLERANCE) == (1, 3)
    assert first_mismatch(pixels[:1], (0, 0, 0, 0), DEFAULT_TOLERANCE) is None
    pixels[0, 0, 3] = 255                       # alpha is compared by rgba probes only
    assert first_mismatch(pixels[:1], (0, 0, 0), DEFAULT_TOLERANCE) is None
    assert first_mismatch(pixels[:1], (0, 0, 0, 0), DEFAULT_TOLERANCE) == (0, 0)


# --- uniforms --------------------------------------------------------------------------------

SLOTS = {"f": [[0, 0]], "v": [[1, 0], [1, 1], [1, 2]], "i": [[0, 1]], "b": [[0, 2]],
         "bv": [[2, 0], [2, 1]], "m": [[3, 0], [3, 1], [3, 2], [3, 3]],
         "m23": [[4, k] for k in range(4)] + [[5, 0], [5, 1]],
         "a[0]": [[6, 0]], "a[1]": [[6, 1]], "a[2]": [[6, 2]], "s.x": [[7, 3]],
         "unread": [], "half": [[8, 0], None]}
SOURCE = "uniform float f; uniform float unused; uniform S s; uniform float a[3];"


def uniforms(**extra):
    return Uniforms({"uniforms": SLOTS, "samplers": {"tex": 0}, **extra}, {9: [1, 2, 3, 4]},
                    SOURCE, "t.shader_test")


def setu(u, type_, name, *values):
    u.set(UniformSet(7, type_, name, [str(v) for v in values]))
    return u.snapshot()


def test_every_glsl_120_uniform_type_is_known():
    assert set(UNIFORM_TYPES) == {"float", "int", "bool", *(f"{p}vec{n}" for p in "bi "
                                                            .replace(" ", "") for n in (2, 3, 4)),
                                  *(f"vec{n}" for n in (2, 3, 4)),
                                  *(f"mat{n}" for n in (2, 3, 4)),
                                  *(f"mat{c}x{r}" for c in (2, 3, 4) for r in (2, 3, 4))}
    assert UNIFORM_TYPES["mat2x3"] == ("float", 6) and UNIFORM_TYPES["bvec3"] == ("bool", 3)


def test_values_land_in_their_slots():
    u = uniforms()
    assert setu(u, "float", "f", 0.25)[0] == (f(0.25), 0, 0, 0)
    assert setu(u, "vec3", "v", 1, -2, "0x7fc00000")[1] == (f(1), f(-2), 0x7FC00000, 0)
    assert setu(u, "int", "i", "0x10")[0] == (f(0.25), f(16), 0, 0)
    assert setu(u, "bool", "b", 7)[0][2] == f(1.0)
    assert setu(u, "bvec2", "bv", "true", "false")[2] == (f(1), f(0), 0, 0)
    assert setu(u, "mat2", "m", 1, 2, 3, 4)[3] == (f(1), f(2), f(3), f(4))    # column-major
    snapshot = setu(u, "mat2x3", "m23", 1, 2, 3, 4, 5, 6)
    assert snapshot[4] == (f(1), f(2), f(3), f(4)) and snapshot[5] == (f(5), f(6), 0, 0)
    assert setu(u, "float", "s.x", 3)[7] == (0, 0, 0, f(3))
    assert setu(u, "vec2", "half", 5, 6)[8] == (f(5), 0, 0, 0)       # .y is not read
    assert 10 not in setu(u, "vec3", "unread", 1, 2, 3)           # listed, not read
    assert snapshot[9] == (1, 2, 3, 4)          # the compiler's own constants stay


def test_values_are_read_as_piglits_strtod_loop_reads_them():
    """piglit's tests/shaders/glsl-fs-mod writes ``uniform vec4 arg0 0.5 -1.5 1.5, 0.0``:
    strtod stops at the comma and the components not read are 0."""
    u = uniforms(uniforms={**SLOTS, "v4": [[1, k] for k in range(4)]})
    assert setu(u, "vec4", "v4", 0.5, -1.5, "1.5,", 0.0)[1] == (f(0.5), f(-1.5), f(1.5), 0)
    assert setu(u, "vec4", "v4", "2,", 3, 4, 5)[1] == (f(2), 0, 0, 0)
    assert setu(u, "int", "i", "12x")[0][1] == f(12)
    assert setu(u, "float", "f", "1e3,")[0][0] == f(1000)
    with pytest.raises(ShaderTestError, match="',' is not a number"):
        setu(u, "vec4", "v4", ",", 1, 2, 3)


def test_arrays_element_by_element_or_several_at_once():
    u = uniforms()
    assert setu(u, "float", "a[1]", 5)[6] == (0, f(5), 0, 0)
    assert setu(u, "float", "a", 1, 2)[6] == (f(1), f(2), 0, 0)     # a[0], a[1]
    assert setu(u, "float", "a[1]", 7, 8)[6] == (f(1), f(7), f(8), 0)


def test_samplers_take_a_texture_unit():
    u = uniforms()
    setu(u, "int", "tex", 3)
    assert u.units == {"tex": 3}
    with pytest.raises(Failure, match="the sampler tex is set with an int"):
        setu(u, "float", "tex", 1)


def test_an_unused_uniform_is_ignored_and_an_unknown_one_fails():
    u = uniforms()
    before = u.snapshot()
    assert setu(u, "float", "unused", 1) == before
    with pytest.raises(Failure, match="line 7: the fragment shader has no uniform 'nope'"):
        setu(u, "float", "nope", 1)
    with pytest.raises(Failure, match="uniform vec4 v gives 4 components, the shader's v has 3"):
        setu(u, "vec4", "v", 1, 2, 3, 4)


@pytest.mark.parametrize("type_, values, error, message", [
    ("vec3", (1, 2), ShaderTestError, "needs a multiple of 3 values, got 2"),
    ("float", ("x",), ShaderTestError, "'x' is not a number"),
    ("vec5", (1,), ShaderTestError, "unknown uniform type 'vec5'"),
    ("uint", (1,), Skip, "uniform type uint"),
    ("dvec2", (1, 2), Skip, "uniform type dvec2"),
])
def test_bad_uniform_commands(type_, values, error, message):
    with pytest.raises(error, match=message):
        setu(uniforms(), type_, "f", *values)


# --- textures --------------------------------------------------------------------------------

def test_rgbw_quadrants_from_the_bottom_left():
    texture = make_texture(TextureImage(1, "rgbw", 0, (4, 2)))
    assert [texture.texels[k][:3] for k in (0, 3, 4, 7)] == [(1, 0, 0), (0, 1, 0), (0, 0, 1),
                                                              (1, 1, 1)]
    assert not texture.has_alpha
    assert texture.words()[:6] == [1 << 17, 0, 0, 1 << 17, 0, 0]


def test_checkerboard_and_8_bit_texels():
    texture = make_texture(TextureImage(1, "checkerboard", 0, (4, 4),
                                        ((0.1, 0, 0, 0.5), (0, 0, 1, 1))))
    first = (round(0.1 * 255) / 255, 0, 0, round(0.5 * 255) / 255)
    assert texture.texels[0] == first and texture.texels[2][2] == 1.0
    assert texture.texels[10] == first and texture.has_alpha
    assert texture.words()[0] == round(26 / 255 * (1 << 17))


def test_a_draw_lays_its_textures_out_in_the_memory():
    textures = Textures()
    textures.bind(TextureImage(1, "rgbw", 2, (8, 8)))
    textures.bind(TextureImage(2, "rgbw", 0, (4, 4)))
    textures.parameter(TexParameter(3, "2D", "mag", "linear"), "t")
    textures.parameter(TexParameter(4, "2D", "min", "linear"), "t")
    textures.parameter(TexParameter(5, "2D", "wrap_s", "repeat"), "t")
    textures.parameter(TexParameter(6, "2D", "wrap_t", "repeat"), "t")
    samplers, words, alpha = textures.layout({0: 2, 1: 0, 2: 2, 3: 5})
    assert samplers[0] == samplers[2] == Sampler(0, 8, 8, "nearest", "clamp")
    assert samplers[1] == Sampler(192, 4, 4, "bilinear", "repeat")
    assert samplers[3] == Sampler(240, 1, 1, "nearest", "clamp")     # no texture: black
    assert len(words) == 243 and words[240:] == [0, 0, 0] and not alpha


@pytest.mark.parametrize("parameters, size, reason", [
    ([], (6, 8), "a 6x8 texture"),
    ([("min", "linear")], (8, 8), "texture filters min linear, mag nearest"),
    ([("min", "nearest_mipmap_nearest"), ("mag", "nearest_mipmap_nearest")], (8, 8),
     "texture filter nearest_mipmap_nearest"),
    ([("wrap_s", "repeat")], (8, 8), "texture wrap s repeat, t clamp_to_edge"),
    ([("wrap_s", "mirrored_repeat"), ("wrap_t", "mirrored_repeat")], (8, 8), "texture wrap"),
    ([], (256, 256), "the textures need 196608 words"),
    ([("compare_func", "less")], (8, 8), "texparameter compare_func"),
])
def test_textures_the_samplers_cannot_hold_skip(parameters, size, reason):
    textures = Textures()
    textures.bind(TextureImage(1, "rgbw", 0, size))
    with pytest.raises(Skip, match=reason):
        for name, value in parameters:
            textures.parameter(TexParameter(2, "2D", name, value), "t")
        textures.layout({0: 0})


def test_texparameter_needs_a_texture():
    with pytest.raises(ShaderTestError, match="t:4: texparameter with no texture bound"):
        Textures().parameter(TexParameter(4, "2D", "min", "linear"), "t")


def test_the_texture_memory_is_the_rtl_job_tops():
    from sim.r500.rtl import TEXTURE_WORDS as JOB_TOP_WORDS
    assert TEXTURE_WORDS == JOB_TOP_WORDS
