"""sim/scene_import.py: OBJ + PNG + TOML/JSON to a theia-2010 scene (docs/scene-import.md)."""

import dataclasses
import json

import numpy as np
import pytest
from PIL import Image

from firmware.rom import default_rom
from hdl.isa import ONE, MASK32
from sim.image import words_to_rgb
from sim.scene_loader import load_any_scene
from sim.scene import SceneError, load_scene
from sim.scene_import import (import_scene, load_description, load_obj, load_texture, main,
                              split_bands)
from sim.sequencer import render_model
from tests.helpers import REPO

EXAMPLE = REPO / "examples" / "cube" / "cube.toml"
RED = (255, 0, 0)


def q(x):
    return round(x * ONE) & MASK32


def render(scene):
    omem, _, _ = render_model(scene, default_rom(), cores=1, jobs=1)
    return words_to_rgb(omem, scene.width, scene.height)


def write(path, text):
    path.write_text(text)
    return path


# --- a tiny scene in tmp_path: one quad facing the camera -------------------------------------

QUAD_OBJ = """\
v -1 -1 -2
v  1 -1 -2
v  1  1 -2
v -1  1 -2
vt 0 0
vt 0.96875 0
vt 0.96875 0.96875
vt 0 0.96875
f 1/1 2/2 3/3 4/4
"""

QUAD_TOML = """\
mesh = "quad.obj"
texture = "tex.png"
camera = [0.0, 0.0, 4.0]
window_min = [-0.5, -0.5]
window_max = [0.5, 0.5]
resolution = [8, 8]
bands = 2
"""

TOP, BOTTOM = (200, 40, 40), (40, 40, 200)     # the PNG's upper and lower halves


def quad_scene(tmp_path, toml=QUAD_TOML, obj=QUAD_OBJ, size=32):
    image = Image.new("RGB", (size, size), BOTTOM)
    image.paste(TOP, (0, 0, size, size // 2))  # rows 0 .. size/2 - 1 = the top of the picture
    image.save(tmp_path / "tex.png")
    write(tmp_path / "quad.obj", obj)
    return write(tmp_path / "quad.toml", toml)


# --- the example -------------------------------------------------------------------------------

def test_example_import_values():
    scene = import_scene(EXAMPLE)
    assert scene.name == "cube"
    assert (scene.width, scene.height, scene.texture_size) == (128, 128, 64)
    assert len(scene.triangles) == 12                # 5 cube quads + the floor, as fans
    assert len(scene.bands) == 4 and scene.pixel_count == 128 * 128
    assert scene.camera == (q(4.0), q(4.0), q(5.0))
    assert scene.config[2] == (q(0.2), q(0.2), 0) and scene.config[3] == (q(2.8), q(2.8), 0)
    # first face "f 1/5/1 2/6/1 3/7/1 4/8/1", translated by z - 3
    v0, uv0, v1, uv1, v2, uv2, diffuse = scene.triangles[0]
    assert v0 == (q(-1), q(-1), q(-2)) and v1 == (q(1), q(-1), q(-2)) and v2 == (q(1), q(1), q(-2))
    assert uv0 == (q(0.5), q(0.5), 0) and uv2 == (q(0.984375), q(0.984375), 0)
    assert diffuse == (ONE, ONE, ONE)
    # texel (U, V) at word 3(U + V S), V counted from the bottom row of the PNG
    pixels = np.asarray(Image.open(EXAMPLE.parent / "crate.png").convert("RGB"))
    for u, v in ((0, 0), (5, 40), (63, 63), (40, 2)):
        word = 3 * (u + v * 64)
        assert scene.texture[word:word + 3] == [int(c) << 9 for c in pixels[63 - v, u]]


def test_example_renders(tmp_path):
    scene = import_scene(EXAMPLE, resolution=(16, 16))
    assert len(scene.bands) == 4
    rgb = render(scene)
    colours = [tuple(p) for p in rgb.reshape(-1, 3).tolist()]
    hit = sum(c != RED for c in colours)
    assert hit >= 0.95 * len(colours), f"only {hit} of {len(colours)} pixels hit"
    orange = sum(r > 150 and 60 < g < 180 and b < 90 for r, g, b in colours)   # crate face
    slate = sum(r < 110 and b > r + 15 for r, g, b in colours)                 # floor check
    assert orange >= 20 and slate >= 5, (orange, slate)
    # the same scene through a written directory renders the same
    assert main([str(EXAMPLE), "--out", str(tmp_path / "cube"), "--resolution", "16x16"]) == 0
    assert np.array_equal(render(load_scene(tmp_path / "cube")), rgb)


def test_render_accepts_description_paths(tmp_path):
    scene = load_any_scene(str(EXAMPLE))
    assert len(scene.triangles) == 12
    data = {"mesh": "cube.obj", "texture": "crate.png", "camera": [4, 4, 5],
            "window_min": [0.2, 0.2], "window_max": [2.8, 2.8], "resolution": [128, 128],
            "transform": {"translate": [0, 0, -3]}}
    json_path = tmp_path / "cube.json"
    json_path.write_text(json.dumps({**data, "mesh": str(EXAMPLE.parent / "cube.obj"),
                                     "texture": str(EXAMPLE.parent / "crate.png")}))
    from_json = load_any_scene(str(json_path))
    assert from_json.triangles == scene.triangles and from_json.config == scene.config
    assert from_json.texture == scene.texture and from_json.bands == scene.bands


# --- conventions -------------------------------------------------------------------------------

def test_v_goes_up_the_image(tmp_path):
    """The PNG's top half must come out at the top of the rendered quad: output row 0 is y = 0,
    the bottom of the projection window."""
    rgb = render(import_scene(quad_scene(tmp_path)))
    # the fixed-point blend truncates, so allow a count or two
    assert np.abs(rgb[0, 4].astype(int) - BOTTOM).max() <= 2, rgb[0, 4]
    assert np.abs(rgb[7, 4].astype(int) - TOP).max() <= 2, rgb[7, 4]
    assert not any(tuple(p) == RED for p in rgb.reshape(-1, 3).tolist())


def test_uvs_wrap_per_triangle(tmp_path):
    """Whole turns are taken off each triangle's UVs (TCC wraps with MOD), so tiling UVs far
    outside [0, 1) import and render as the same picture."""
    shifted = QUAD_OBJ.replace("vt 0 0\n", "vt 5 -3\n").replace(
        "vt 0.96875 0\n", "vt 5.96875 -3\n").replace(
        "vt 0.96875 0.96875\n", "vt 5.96875 -2.03125\n").replace(
        "vt 0 0.96875\n", "vt 5 -2.03125\n")
    plain = import_scene(quad_scene(tmp_path))
    tiled = import_scene(quad_scene(tmp_path, obj=shifted))
    assert tiled.triangles == plain.triangles


def test_split_bands():
    assert split_bands(10, 4) == [(0, 3), (3, 6), (6, 8), (8, 10)]
    assert split_bands(8, 8) == [(i, i + 1) for i in range(8)]
    assert split_bands(5, 1) == [(0, 5)]


def test_bands_rows_in_params(tmp_path):
    scene = import_scene(quad_scene(tmp_path), resolution=(6, 10), bands=4)
    assert [(s[1] >> 17, e[1] >> 17) for s, e in scene.bands] == [(0, 3), (3, 6), (6, 8), (8, 10)]
    assert all(s[0] == 0 and e[0] == q(6) for s, e in scene.bands)
    assert scene.pixel_count == 60


def test_transform_and_diffuse(tmp_path):
    toml = QUAD_TOML + ('diffuse = [0.5, 0.25, 1.0]\n[transform]\nscale = 0.5\n'
                        'rotate = [0, 0, 90]\ntranslate = [0, 0, -1]\n')
    scene = import_scene(quad_scene(tmp_path, toml=toml))
    v0 = scene.triangles[0][0]                          # (-1, -1, -2) -> (0.25, -0.25, -2)
    assert v0 == (q(0.5), q(-0.5), q(-2))
    assert scene.triangles[0][6] == (q(0.5), q(0.25), q(1.0))


# --- OBJ parsing -------------------------------------------------------------------------------

def test_obj_fans_negative_indices_and_ignored_lines(tmp_path):
    path = write(tmp_path / "m.obj", """\
# comment
mtllib m.mtl
o thing
v 0 0 0
v 1 0 0
v 1 1 0
v 0.5 1.5 0
v 0 1 0 1.0
vt 0 0
vt 1 0 0
vt 1 1
vt 0.5
vt 0 1
vn 0 0 1
usemtl red
s off
f -5/-5/1 -4/-4/1 -3/-3/1 -2/-2/1 -1/-1/1
f 1/1 2/2 3/3
""")
    mesh = load_obj(path)
    assert len(mesh.positions) == 5 and mesh.uvs[3] == (0.5, 0.0)
    assert [t[:3] for t in mesh.triangles] == [
        ((0, 0), (1, 1), (2, 2)), ((0, 0), (2, 2), (3, 3)), ((0, 0), (3, 3), (4, 4)),
        ((0, 0), (1, 1), (2, 2))]
    assert [t[3] for t in mesh.triangles] == [17, 17, 17, 18]


@pytest.mark.parametrize("body, line, message", [
    ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", 4, "UVs are required"),
    ("v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1//1 2//1 3//1\n", 5, "UVs are required"),
    ("v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/1 2/1 4/1\n", 5, "vertex index 4 out of range"),
    ("v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/1 2/2 3/1\n", 5, "texture coordinate index 2 out"),
    ("v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 0/1 2/1 3/1\n", 5, "index 0 out of range"),
    ("v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf -4/1 2/1 3/1\n", 5, "index -4 out of range"),
    ("v 0 0 0\nv 1 0x 0\n", 2, "malformed number '0x'"),
    ("v 0 0\n", 1, "needs x y z"),
    ("v 0 0 nan\n", 1, "non-finite"),
    ("vt 0 0\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/1 2/a 3/1\n", 5, "malformed texture coordinate"),
    ("v 0 0 0\nvt 0 0\nf 1/1 1/1\n", 3, "at least 3 vertices"),
])
def test_obj_errors(tmp_path, body, line, message):
    path = write(tmp_path / "bad.obj", body)
    with pytest.raises(SceneError) as info:
        load_obj(path)
    assert info.value.line == line
    assert str(info.value).startswith(f"{path}:{line}: ") and message in str(info.value)


def test_obj_without_faces_and_missing(tmp_path):
    with pytest.raises(SceneError, match="no faces"):
        load_obj(write(tmp_path / "e.obj", "v 0 0 0\n"))
    with pytest.raises(SceneError, match="file not found"):
        load_obj(tmp_path / "nope.obj")


# --- PNG ---------------------------------------------------------------------------------------

def test_texture_words_and_errors(tmp_path):
    image = Image.new("RGBA", (4, 4), (0, 0, 0, 128))
    image.putpixel((1, 0), (255, 128, 7, 0))           # top row of the picture: V = 3
    image.save(tmp_path / "t.png")
    words, size = load_texture(tmp_path / "t.png")
    assert size == 4 and len(words) == 48
    assert words[3 * (1 + 3 * 4):3 * (1 + 3 * 4) + 3] == [255 << 9, 128 << 9, 7 << 9]
    assert sum(words) == (255 + 128 + 7) << 9
    Image.new("RGB", (8, 4)).save(tmp_path / "wide.png")
    with pytest.raises(SceneError, match=r"wide.png: texture is 8x4: it must be square"):
        load_texture(tmp_path / "wide.png")
    Image.new("RGB", (24, 24)).save(tmp_path / "odd.png")
    with pytest.raises(SceneError, match=r"size 24 is not a power of two.*16 or 32"):
        load_texture(tmp_path / "odd.png")
    write(tmp_path / "junk.png", "not a png")
    with pytest.raises(SceneError, match="not an image"):
        load_texture(tmp_path / "junk.png")


# --- description errors ------------------------------------------------------------------------

@pytest.mark.parametrize("edit, message", [
    (("camera = [0.0, 0.0, 4.0]\n", ""), "missing required setting 'camera'"),
    (("bands = 2\n", "band = 2\n"), "band: unknown setting"),
    (("camera = [0.0, 0.0, 4.0]", "camera = [0.0, 4.0]"), "camera: expected a list of 3 numbers"),
    (("resolution = [8, 8]", "resolution = [8, 0]"), "resolution: expected [width, height]"),
    (("bands = 2", "bands = 9"), "bands: expected a whole number from 1 to the height 8"),
    (("window_max = [0.5, 0.5]", "window_max = [0.5, -0.5]"), "must be above window_min"),
    (("camera = [0.0, 0.0, 4.0]", "camera = [0.0, 0.0, 0.0]"), "z must not be 0"),
    (("camera = [0.0, 0.0, 4.0]", "camera = [0.0, 0.0, -1.5]"), "not in front of the camera"),
    (("camera = [0.0, 0.0, 4.0]", "camera = [0.0, 0.0, 20000.0]"), "does not fit Q14.17"),
    (("bands = 2\n", "bands = 2\n[transform]\nscale = 9000\n"), "does not fit Q14.17"),
    (("bands = 2\n", "bands = 2\n[transform]\nscale = 60\n"), "beyond Q14.17"),
    (("bands = 2\n", "bands = 2\n[transform]\nshift = 1\n"), "transform.shift: unknown"),
    (('mesh = "quad.obj"', 'mesh = "missing.obj"'), "missing.obj: file not found"),
    (("bands = 2", "bands = = 2"), "invalid TOML"),
])
def test_description_errors(tmp_path, edit, message):
    toml = QUAD_TOML.replace(*edit)
    assert toml != QUAD_TOML
    assert message in import_error(quad_scene(tmp_path, toml=toml))


def import_error(path):
    """The one-line message of the SceneError that importing ``path`` raises."""
    with pytest.raises(SceneError) as info:
        import_scene(path)
    assert "\n" not in str(info.value)
    return str(info.value)


def test_description_error_names_the_line(tmp_path):
    path = quad_scene(tmp_path, toml=QUAD_TOML.replace("bands = 2", "bands = 0"))
    with pytest.raises(SceneError) as info:
        load_description(path)
    assert str(info.value).startswith(f"{path}:7: bands:")
    json_path = write(tmp_path / "s.json", '{"mesh": "quad.obj",\n "camera": [1, 2,]}')
    with pytest.raises(SceneError, match=r"s.json:2: invalid JSON"):
        load_description(json_path)


def test_cli_error_is_one_line(tmp_path, capsys):
    path = quad_scene(tmp_path, obj=QUAD_OBJ.replace("f 1/1 2/2 3/3 4/4", "f 1 2 3 4"))
    with pytest.raises(SystemExit) as info:
        main([str(path), "--out", str(tmp_path / "out")])
    assert info.value.code == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("sim.scene_import: ")
    assert "quad.obj:9: face vertex '1' has no texture coordinate" in err[0]
    assert not (tmp_path / "out").exists()


# --- the [shader] section: an R500 program and its host state (docs/r500-shading.md) ------------

SHADER_TOML = QUAD_TOML + """
[shader]
program = "shade.asm"
bools = "0x5"
max_instructions = 2000

[shader.constants]
0 = [0.5, -1, "0x80000000", 0]

[shader.int_consts]
0 = 255

[shader.samplers.2]
base = 3
width = 4
height = 2
filter = "bilinear"
wrap = "clamp"
"""
SHADE_ASM = "OUT src0.rgb = const[0] : out[0].rgb = MAX src0.rgb src0.rgb ;\n"


def shader_scene(tmp_path, toml=SHADER_TOML):
    write(tmp_path / "shade.asm", SHADE_ASM)
    return quad_scene(tmp_path, toml=toml)


def test_shader_section(tmp_path):
    from sim.r500.tex import Sampler
    scene = import_scene(shader_scene(tmp_path))
    shading = scene.shader
    assert shading.instructions == 1 and shading.end == 0
    assert shading.constants == {0: [0x3F000000, 0xBF800000, 0x80000000, 0]}
    assert (shading.bools, shading.int_consts, shading.max_instructions) == (5, {0: 255}, 2000)
    assert shading.samplers == {2: Sampler(3, 4, 2, "bilinear", "clamp")}
    assert shading.source == str(tmp_path / "shade.asm")
    rgb = render(scene)
    assert (rgb == [128, 0, 0]).all()                # 0.5, -1 and -0 as bytes


def test_shader_constants_from_a_file(tmp_path):
    write(tmp_path / "c.json", '{"0": [0.25, 0.25, 0.25, 1]}')
    toml = QUAD_TOML + '[shader]\nprogram = "shade.asm"\nconstants = "c.json"\n'
    scene = import_scene(shader_scene(tmp_path, toml))
    assert scene.shader.constants == {0: [0x3E800000] * 3 + [0x3F800000]}
    assert scene.shader.samplers == {} and scene.shader.max_instructions == 100_000


@pytest.mark.parametrize("edit, message", [
    (('program = "shade.asm"', ''), "shader.program: missing"),
    (('program = "shade.asm"', 'program = "none.asm"'), "shader.program: no file"),
    (('program = "shade.asm"', 'program = "shade.txt"'), "a program file is .asm"),
    (('program = "shade.asm"', 'program = 3'), "shader.program: expected a file name"),
    (("bools = \"0x5\"", "bool = 5"), "shader: unknown key 'bool'"),
    (("bools = \"0x5\"", "bools = -1"), "shader.bools: -1 is outside"),
    (("max_instructions = 2000", "max_instructions = 0"), "shader.max_instructions: 0 is"),
    (('0 = [0.5, -1, "0x80000000", 0]', '0 = [0.5, -1, "0x8000000g", 0]'),
     'shader.constants["0"][2]: \'0x8000000g\' is not a hexadecimal number'),
    (('0 = [0.5, -1, "0x80000000", 0]', '0 = [0.5, -1, 0]'),
     'shader.constants["0"]: expected 4 values, got 3'),
    (('0 = [0.5, -1, "0x80000000", 0]', '256 = [0, 0, 0, 0]'),
     'shader.constants["256"]: the index must be 0 … 255'),
    (("0 = 255", "32 = 255"), 'shader.int_consts["32"]: the index must be 0 … 31'),
    (('filter = "bilinear"', 'filter = "linear"'),
     'shader.samplers["2"].filter: \'linear\' is not one of nearest, bilinear'),
    (('wrap = "clamp"', 'wrap = "mirror"'),
     'shader.samplers["2"].wrap: \'mirror\' is not one of repeat, clamp'),
    (("width = 4", "width = 3"), 'shader.samplers["2"].width: 3 is not a power of two'),
    (("height = 2", "height = 12"), 'shader.samplers["2"].height: 12 is not a power of two'),
    (("height = 2", "height = 0"), 'shader.samplers["2"].height: 0 is outside'),
    (("base = 3", "base = -1"), 'shader.samplers["2"].base: -1 is outside'),
    (("base = 3", "base = 3070"),
     'shader.samplers["2"]: its texels, words 3070 to 3093 (4 x 2 of 3), lie outside the '
     "texture's 3072 words"),
    (("height = 2\n", ""), "shader.samplers[\"2\"]: missing 'height'"),
])
def test_shader_section_errors(tmp_path, edit, message):
    toml = SHADER_TOML.replace(*edit)
    assert toml != SHADER_TOML
    path = shader_scene(tmp_path, toml)
    text = import_error(path)
    assert text.startswith(f"{path}: ") and message in text, text


def test_shader_program_errors_are_one_line(tmp_path):
    path = shader_scene(tmp_path)
    write(tmp_path / "shade.asm", "OUT : out[0].rgb = MAX src0.rgb src0.rgb\n: FOO ;\n: BAR ;\n")
    text = import_error(path)
    assert text.startswith(f"{path}: shader.program: ") and "more)" in text


def test_example_with_a_shader_section():
    """examples/cube/cube-lit.toml: cube.toml's scene, lit by lit.frag with its uniforms by
    name."""
    lit = import_scene(EXAMPLE.with_name("cube-lit.toml"), resolution=(8, 8))
    plain = import_scene(EXAMPLE, resolution=(8, 8))
    assert lit.shader.source.endswith("firmware/r500_shaders/lit.frag")
    shininess = lit.shader.interface["uniforms"]["shininess"]
    assert [lit.shader.constants[i][c] for i, c in shininess] == [0x41800000]     # 16.0
    assert sorted(lit.shader.constants) == [0, 1, 2, 3]
    assert dataclasses.replace(lit, shader=None, name="cube") == plain
    assert not np.array_equal(render(lit), render(plain))
