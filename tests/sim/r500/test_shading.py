"""Shading THEIA's hits with an R500 program on the model (r500-us.md §4.2; sim/r500/shading.py):
example3 through the pass-through program equals Reference.ppm, the inputs and the quad order,
kills and unwritten outputs, errors, our shaders, and ``sim.render --shader/--constants``."""

import dataclasses
import math

import numpy as np
import pytest

from firmware.r500asm import assemble
from firmware.rom import default_rom
from hdl.isa import SCALE
from sim.demo_scene import LIGHT, LIT_CONSTANTS, demo_lit_scene, demo_scene
from sim.image import compare_images, read_png, read_ppm, words_to_rgb
from sim.model import Core
from sim.r500 import fp32
from sim.r500.shader_config import SHADER_DIR, load_constants, load_shading
from sim.r500.shading import R500Shading
from sim.r500.theia_inputs import INPUT_REGISTERS, PixelRecorder
from sim.sequencer import (R500_ROUTINE, RenderError, configure_core, render_model, run_band,
                           texture_memory)
from tests.sim.test_render_cli import one_line_error, sim_render
from tests.sim.test_scene_import import quad_scene


def program(text, **settings):
    """An R500Shading of assembly ``text``; ``constants`` may be given as floats."""
    assembled = assemble(text)
    constants = {i: [fp32.from_float(v) for v in c]
                 for i, c in settings.pop("constants", {}).items()}
    return R500Shading(list(assembled.words), end=assembled.end_addr, constants=constants,
                       **settings)


def render(scene, shader=None):
    """(output words, routine instructions) of ``scene``, with ``shader`` if given."""
    if shader is not None:
        scene = dataclasses.replace(scene, shader=shader)
    omem, _, routines = render_model(scene, default_rom(), cores=2, jobs=1)
    return omem, routines


def image(scene, omem):
    return words_to_rgb(omem, scene.width, scene.height)


def pixel_records(scene):
    """Every pixel's PixelRecord, from the THEIA sequence run with a recorder on one core."""
    core = Core(default_rom(), scene.user_code, tmem=texture_memory(scene, {}),
                omem=[0] * (3 * scene.width * scene.height))
    configure_core(core, scene)
    recorder = PixelRecorder()
    for band in range(len(scene.bands)):
        core.omem_base = scene.band_output_base(band)
        run_band(core, scene, band, scene.width * scene.height, pixel_stage=recorder)
    return recorder.records


@pytest.fixture(scope="module")
def small_demo():
    """15 x 15: the last column and row of quads have uncovered lanes."""
    return demo_scene(size=15, bands=3)


# --- the pass-through program -----------------------------------------------------------------

@pytest.mark.slow(weight=4)
def test_example3_through_passthrough_matches_reference(tmp_path, scenes_dir):
    """Every one of the 76,800 values of example3/Reference.ppm through the R500 path."""
    out = tmp_path / "example3.ppm"
    proc = sim_render(scenes_dir / "example3", "--shader", "passthrough", "--cores", 8,
                      "--engine", "model", "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert "6,400 R500 instructions" in proc.stderr              # one per quad
    ours = read_ppm(out)
    reference = read_ppm(scenes_dir / "example3" / "Reference.ppm")
    assert reference.size == 76_800
    assert compare_images(ours, reference)["identical"] == 76_800
    assert np.array_equal(ours, reference)


def test_demo_with_and_without_passthrough(small_demo):
    plain, routines = render(small_demo)
    shaded, shaded_routines = render(small_demo, load_shading("passthrough"))
    assert np.array_equal(image(small_demo, plain), image(small_demo, shaded))
    assert "PIXELSHADER" in routines and "PIXELSHADER" not in shaded_routines
    assert shaded_routines[R500_ROUTINE] == 8 * 8                # one instruction per quad


# --- inputs, quads, outputs -------------------------------------------------------------------

# out.rg = the pixel's x, y / 256 (bytes x, y); out.b = MDH of x: x(lane 1) - x(lane 0) = 1
# (byte 255) only if lane 1 is the pixel to the right of lane 0
COORDINATES = """
src0.rgb = temp[9] : temp[10].b = MAD src0.rrr src0.111 src0.000 ;
OUT src0.rgb = temp[9], src1.rgb = const[0] :
  out[0].rg = MAD src0.rg0 src1.rrr src0.000 ;
OUT src0.rgb = temp[10] : out[0].b = MDH -src0.rgb src0.111 src0.rgb ;
"""


def test_pixel_coordinates_and_lane_order(small_demo):
    omem, _ = render(small_demo, program(COORDINATES, constants={0: (1 / 256, 0, 0, 0)}))
    rgb = image(small_demo, omem)
    ys, xs = np.mgrid[0:15, 0:15]
    assert np.array_equal(rgb[..., 0], xs) and np.array_equal(rgb[..., 1], ys)
    assert (rgb[..., 2] == 255).all()           # uncovered lanes (x = 15) hold their x too


def test_inputs_are_the_registers_after_psu2(small_demo):
    """Temporary 1 is (LAST_u.x, LAST_v.x, LAST_t.x) of the lane's own pixel, rounded to
    binary32: out = t1.rgb scaled so that the bytes are u·255, v·255 and t·4."""
    shader = program("""OUT src0.rgb = temp[1], src1.rgb = const[0] :
                          out[0].rgb = MAD src0.rgb src1.rgb src0.000 ;""",
                     constants={0: (255 / 256, 255 / 256, 1 / 64, 0)})
    omem, _ = render(small_demo, shader)
    records = {(r.x, r.y): r for r in pixel_records(small_demo)}
    rgb = image(small_demo, omem)
    t_row = INPUT_REGISTERS.index("LAST_t")
    u_row, v_row = INPUT_REGISTERS.index("LAST_u"), INPUT_REGISTERS.index("LAST_v")
    for (x, y), r in records.items():
        u, v, t = (fp32.to_float(fp32.from_q17(r.rows[i][0])) for i in (u_row, v_row, t_row))
        expected = [min(255, max(0, math.floor(c * 256)))
                    for c in (u * 255 / 256, v * 255 / 256, t / 64)]
        assert list(rgb[y, x]) == pytest.approx(expected, abs=1), (x, y)
    assert all(r.hit for r in records.values())                 # the demo's sky is everywhere


KILL_LEFT_HALF = """
src0.rgb = const[0], src1.rgb = temp[9], srcp.rgb = sub :
  temp[10].rgb = MAD srcp.rrr src0.111 src0.000 ;          -- x - 8: negative for x < 8
TEX temp[10].none = TEXKILL tex[0].rgba temp[10].rrrr ;
"""


def test_killed_pixels_keep_the_output(small_demo):
    shader = program(KILL_LEFT_HALF + "OUT src0.rgb = temp[0] : "
                                      "out[0].rgb = MAX src0.rgb src0.rgb ;",
                     constants={0: (8, 0, 0, 0)})
    omem, _ = render(small_demo, shader)
    plain, _ = render(small_demo)
    rgb, expected = image(small_demo, omem), image(small_demo, plain)
    assert not rgb[:, :8].any()
    assert np.array_equal(rgb[:, 8:], expected[:, 8:])


def test_pixels_without_render_target_0_keep_the_output(small_demo):
    shader = program("OUT src0.rgb = temp[0] : out[1].rgb = MAX src0.rgb src0.rgb ;")
    omem, _ = render(small_demo, shader)
    assert not any(omem)


def test_quad_error_names_pixel_and_pc(small_demo):
    """A quad at its instruction limit stops the render: one line, the pixel and the PC."""
    shader = program("""LOOP ;\n: ;\nENDLOOP ;\nOUT : out[0].rgb = MAX src0.rgb src0.rgb ;""",
                     int_consts={0: 255}, max_instructions=50)
    with pytest.raises(RenderError) as error:
        render(small_demo, shader)
    message = str(error.value)
    assert "\n" not in message
    assert "pixel (0, 0)" in message and "instruction limit at PC" in message


# --- our shaders ------------------------------------------------------------------------------

def _normalise(v):
    m = math.sqrt(sum(c * c for c in v))
    return [c / m for c in v]


def _dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def lit_colour(record, constants):
    """lit.asm's colour computed in binary64 from the pixel's register words."""
    rows = {name: [(w - (1 << 32) if w >> 31 else w) / (1 << SCALE) for w in row]
            for name, row in zip(INPUT_REGISTERS, record.rows)}
    tex = rows["TEXTURE_COLOR"]
    if not record.hit:
        return tex
    e1, e2 = rows["E1_LAST"], rows["E2_LAST"]
    n = _normalise([e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                    e1[0] * e2[1] - e1[1] * e2[0]])
    v = [-c for c in _normalise(rows["RAY_DIRECTION"])]
    if _dot(n, v) < 0:
        n = [-c for c in n]
    c0, light, ambient, specular = constants
    to_light = _normalise(c0[:3])
    h = _normalise([a + b for a, b in zip(to_light, v)])
    diffuse = min(1.0, max(0.0, _dot(n, to_light)))
    shine = min(1.0, max(0.0, _dot(n, h))) ** specular[3] if diffuse > 0 else 0.0
    return [t * (light[k] * diffuse + ambient[k]) + light[k] * specular[k] * shine
            for k, t in enumerate(tex)]


def test_lit_against_a_binary64_computation():
    scene = demo_lit_scene(size=16, bands=2)
    asm_constants = load_constants(SHADER_DIR / LIT_CONSTANTS)      # the same values as c0-c3
    constants = [[fp32.to_float(w) for w in asm_constants[i]] for i in range(4)]
    omem, _ = render(scene)
    rgb = image(scene, omem)
    worst = 0
    for record in pixel_records(scene):
        expected = [min(255, max(0, math.floor(c * 256))) for c in lit_colour(record, constants)]
        worst = max(worst, *(abs(int(a) - b) for a, b in zip(rgb[record.y, record.x], expected)))
    assert worst <= 1


def test_lit_keeps_the_background_of_misses():
    """A scene without its sky: pixels that hit nothing keep TEXTURE_COLOR (NPG's red)."""
    scene = demo_lit_scene(size=16, bands=2)
    scene = dataclasses.replace(scene, triangles=scene.triangles[2:])
    plain, _ = render(dataclasses.replace(scene, shader=None))
    lit, _ = render(scene)
    misses = [r for r in pixel_records(scene) if not r.hit]
    assert misses
    for r in misses:
        assert [lit[i] for i in r.output] == [min(255, plain[i] >> 9) << 9 for i in r.output]


def test_demo_lit_constants_use_the_demo_light():
    constants = load_constants(SHADER_DIR / LIT_CONSTANTS)
    assert constants[0][:3] == [fp32.from_float(c) for c in LIGHT]


def test_discard_kills_outside_the_circle_and_colours_misses():
    """discard.asm on the demo without its sky: black outside the circle (killed), c1 for
    misses inside, the texture darkened towards the rim for hits."""
    scene = demo_scene(size=16, bands=2)
    scene = dataclasses.replace(scene, triangles=scene.triangles[2:])
    shading = load_shading("discard")
    shading.constants = {0: [fp32.from_float(v) for v in (7.5, 7.5, 1 / 6, 0.5)],
                         1: [fp32.from_float(v) for v in (0.25, 0.5, 0.75, 0)]}
    plain, _ = render(scene)
    omem, _ = render(scene, shading)
    kinds = set()
    for r in pixel_records(scene):
        d2 = ((r.x - 7.5) ** 2 + (r.y - 7.5) ** 2) / 36
        words = [omem[i] for i in r.output]
        if d2 > 1:
            kinds.add("killed")
            assert words == [0, 0, 0]
        elif not r.hit:
            kinds.add("miss")
            assert words == [64 << 9, 128 << 9, 192 << 9]
        else:
            kinds.add("hit")
            expected = [(plain[i] >> 9) * (1 - 0.5 * d2) for i in r.output]
            assert [w >> 9 for w in words] == pytest.approx(expected, abs=1.01)
    assert kinds == {"killed", "miss", "hit"}


# --- the command line -------------------------------------------------------------------------

def test_cli_shader_and_constants_files(tmp_path):
    scene = quad_scene(tmp_path)                                  # 8 x 8, one textured quad
    constants = tmp_path / "c.json"
    constants.write_text('{"0": [0.0, 0.0, 0.0, 0.0], "1": [0, 0, 0, "0x00000000"]}')
    prog = tmp_path / "flat.asm"
    prog.write_text("OUT src0.rgb = const[2] : out[0].rgb = MAX src0.rgb src0.rgb ;\n")
    toml = tmp_path / "c.toml"
    toml.write_text('2 = [0.5, "0x3e800000", 1.0, 0]\n')
    out = tmp_path / "flat.png"
    proc = sim_render(scene, "--shader", prog, "--constants", toml, "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert (read_png(out) == [128, 64, 255]).all()
    plain, shaded = tmp_path / "plain.png", tmp_path / "shaded.png"
    for args, out in (([], plain), (["--shader", "passthrough", "--constants", constants],
                                    shaded)):
        proc = sim_render(scene, *args, "--out", out)
        assert proc.returncode == 0, proc.stderr
    assert np.array_equal(read_png(plain), read_png(shaded))


@pytest.mark.parametrize("args, words", [
    (["--constants", "c.toml"], ["--constants", "no R500 program"]),
    (["--shader", "nosuch"], ["nosuch", "lit", "passthrough"]),
    (["--shader", "lit", "--constants", "bad.toml"], ["bad.toml", "constants[\"3\"][1]"]),
    (["--shader", "bad.asm"], ["--shader", "bad.asm:2: unknown opcode 'FOO'"]),
])
def test_cli_errors_are_one_line(tmp_path, args, words):
    (tmp_path / "c.toml").write_text("0 = [1, 1, 1, 1]\n")
    (tmp_path / "bad.toml").write_text('3 = [1, "red", 1, 1]\n')
    (tmp_path / "bad.asm").write_text("-- a typo\nOUT : out[0].rgb = FOO ;\n")
    args = [str(tmp_path / a) if a.endswith((".toml", ".asm")) else a for a in args]
    line = one_line_error(sim_render("demo", *args, "--out", tmp_path / "x.png"))
    assert all(w in line for w in words), line
    assert not (tmp_path / "x.png").exists()


def test_the_board_takes_a_scene_with_a_program(tmp_path):
    """The host tool loads demo-lit for the board (what stops it here is the missing port)."""
    from boards.host import main
    with pytest.raises(SystemExit) as info:
        main(["demo", "--shader", "passthrough", "--port", str(tmp_path / "no-port"),
              "--out", str(tmp_path / "x.png")])
    assert str(info.value).startswith("error: host link: ")
