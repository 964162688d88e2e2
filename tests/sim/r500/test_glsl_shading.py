"""GLSL programs in scenes (sim/r500/glsl_shading.py, sim/r500/shader_config.py): a [shader]
section naming a .frag with its uniforms and samplers by name, rendered on the model;
``--shader X.frag --uniforms FILE``; our shaders by name; demo-lit through lit.frag against
lit.asm; and the errors, each one line (a compile error the compiler's ``file:line:column``,
exit 2)."""

import json

import numpy as np
import pytest

from sim.demo_scene import LIGHT, LIT_CONSTANTS, LIT_UNIFORMS, demo_lit_scene
from sim.r500 import fp32
from sim.r500.glsl_shading import ShaderSourceError
from sim.r500.shader_config import SHADER_DIR, load_shading, shader_path
from sim.r500.tex import Sampler
from sim.scene import SceneError
from sim.scene_import import import_scene
from sim.scene_loader import load_any_scene
from sim.settings import read_settings
from tests.sim.r500.test_shading import render
from tests.sim.test_scene_import import BOTTOM, QUAD_TOML, TOP, quad_scene, render as rgb_of, \
    write

SHADE_FRAG = """\
struct Light { vec3 colour; float gain; };
uniform Light light;
uniform float weights[2];
uniform bool useTexture;
uniform sampler2D unused;
uniform sampler2D tex;

void main()
{
    vec3 c = light.colour * light.gain * (weights[0] + weights[1]);
    if (useTexture)
        c = texture2D(tex, vec2(0.5, theia_Pixel.y < 4.0 ? 0.25 : 0.75)).rgb;
    gl_FragColor.rgb = c;
}
"""

FRAG_TOML = QUAD_TOML + """
[shader]
program = "shade.frag"

[shader.uniforms]
light = { colour = [0.5, 0.25, 1.0], gain = 0.5 }
weights = [0.75, "0x3e800000"]
useTexture = false

[shader.samplers.tex]
width = 32
height = 32
"""


def render_error(capsys, *args):
    """(exit status, the one line on stderr) of ``python -m sim.render ARGS`` that fails."""
    from sim.render import main
    with pytest.raises(SystemExit) as info:
        main([str(a) for a in args])
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1, err
    return info.value.code, err.strip()


def frag_scene(tmp_path, toml=FRAG_TOML, frag=SHADE_FRAG):
    write(tmp_path / "shade.frag", frag)
    return quad_scene(tmp_path, toml=toml)


def test_a_shader_section_with_a_frag_and_uniforms_by_name(tmp_path):
    """A struct, an array and a bool set by name; a sampler set up by name (TEX_ID 1: the
    second sampler declared)."""
    scene = import_scene(frag_scene(tmp_path))
    shading = scene.shader
    assert shading.samplers == {1: Sampler(0, 32, 32, "nearest", "repeat")}
    assert shading.interface["samplers"] == {"unused": 0, "tex": 1}
    assert (rgb_of(scene) == [64, 32, 128]).all()          # (0.5, 0.25, 1) * 0.5 * 1.0


def test_uniforms_from_a_file_and_a_sampler_by_name(tmp_path):
    """``uniforms = "FILE"``; the program samples the texture through the sampler it names:
    the texture's two halves, one in each half of the image."""
    write(tmp_path / "u.json", json.dumps({"useTexture": True, "light.gain": 1,
                                           "weights[1]": 2.0}))
    toml = FRAG_TOML.split("[shader.uniforms]")[0] + 'uniforms = "u.json"\n' + \
        FRAG_TOML.split("useTexture = false\n")[1]
    rgb = rgb_of(import_scene(frag_scene(tmp_path, toml)))
    assert (rgb[:4] == rgb[0, 0]).all() and (rgb[4:] == rgb[7, 0]).all()
    halves = sorted([rgb[0, 0].astype(int), rgb[7, 0].astype(int)], key=tuple)
    for half, colour in zip(halves, sorted([BOTTOM, TOP])):
        assert np.abs(half - colour).max() <= 1


FRAG_ERRORS = [
    (("light = {", "lihgt = {"),
     'shader.uniforms["lihgt"]: shade.frag has no uniform \'lihgt\' (its uniforms: light.colour, '
     'light.gain, useTexture, weights[0], weights[1])'),
    (("colour = [0.5, 0.25, 1.0]", "colour = [0.5, 0.25]"),
     'shader.uniforms["light.colour"]: 2 values for 3 components'),
    (('weights = [0.75, "0x3e800000"]', 'weights = [0.75, "0x3e80000g"]'),
     'shader.uniforms["weights[1]"]: \'0x3e80000g\' is not a hexadecimal number'),
    (("useTexture = false", 'useTexture = "yes"'),
     "shader.uniforms[\"useTexture\"]: 'yes' is neither a number nor a \"0x…\" string"),
    (("[shader.samplers.tex]", "[shader.samplers.texture]"),
     'shader.samplers["texture"]: shade.frag has no sampler \'texture\' (its samplers: tex, '
     'unused)'),
    (("width = 32", "width = 48"), 'shader.samplers["tex"].width: 48 is not a power of two'),
    (('program = "shade.frag"', 'program = "shade.frag"\nbools = 1'),
     "shader.bools: shade.frag is GLSL: its constants come from its uniforms, given by name "
     "(shader.uniforms)"),
    (('program = "shade.frag"', 'program = "none.frag"'),
     "shader.program: no file '{dir}/none.frag'"),
    (('program = "shade.frag"', 'program = "lit"'),
     "shader.uniforms: lit.asm is assembly: uniforms by name need a GLSL program (.frag); give "
     "its constants by index (shader.constants)"),
]


@pytest.mark.parametrize("edit, message", FRAG_ERRORS)
def test_shader_section_errors_name_the_file(tmp_path, edit, message):
    toml = FRAG_TOML.replace(*edit)
    assert toml != FRAG_TOML
    path = frag_scene(tmp_path, toml)
    with pytest.raises(SceneError) as info:
        import_scene(path)
    assert str(info.value) == f"{path}: {message.replace('{dir}', str(tmp_path))}"


def test_a_frag_that_does_not_compile_is_its_line(tmp_path):
    path = frag_scene(tmp_path, frag=SHADE_FRAG.replace("gain;", "gain"))
    with pytest.raises(ShaderSourceError) as info:
        import_scene(path)
    assert str(info.value) == f"{tmp_path / 'shade.frag'}:1:40: expected ';' after a struct " \
                              f"member, got '}}'"


@pytest.mark.parametrize("via", ["scene", "--shader"])
def test_cli_compile_error_is_one_line_and_exit_2(tmp_path, capsys, via):
    path = frag_scene(tmp_path, frag=SHADE_FRAG.replace("useTexture)", "useTexture"))
    args = [path] if via == "scene" else ["demo", "--shader", tmp_path / "shade.frag"]
    assert render_error(capsys, *args, "--out", tmp_path / "x.png") == (
        2, f"{tmp_path / 'shade.frag'}:12:9: expected ')' after the condition, got 'c'")
    assert not (tmp_path / "x.png").exists()


@pytest.mark.parametrize("args, message", [
    (["--shader", "lit.frag", "--constants", "c.toml"],
     "--constants: lit.frag is GLSL: give its uniforms by name with --uniforms"),
    (["--shader", "lit", "--uniforms", "u.toml"],
     "--uniforms: lit.asm is assembly: uniforms by name need a GLSL program (.frag); give its "
     "constants with --constants"),
    (["--shader", "lit.frag", "--uniforms", "u.toml"],
     'u.toml: uniforms["shine"]: lit.frag has no uniform \'shine\' (its uniforms: ambient, '
     'lightColor, lightDirection, shininess, specularColor)'),
    (["--shader", "nosuch.frag"], "nosuch.frag: no such program file, nor a shader of that "
                                  "name (discard, discard.frag, lit, lit.frag, passthrough, "
                                  "passthrough.frag)"),
])
def test_cli_shader_argument_errors(tmp_path, capsys, args, message):
    (tmp_path / "c.toml").write_text("0 = [1, 1, 1, 1]\n")
    (tmp_path / "u.toml").write_text("shine = 3\n")
    args = [str(tmp_path / a) if a.endswith(".toml") else a for a in args]
    assert render_error(capsys, "demo", *args, "--out", tmp_path / "x.png") == (
        1, "sim.render: " + message.replace("u.toml", str(tmp_path / "u.toml")))


def test_our_shaders_by_name():
    """A bare name is the assembly; a file name of ours is found from anywhere."""
    assert shader_path("lit") == SHADER_DIR / "lit.asm"
    assert shader_path("lit.frag") == SHADER_DIR / "lit.frag"
    assert load_shading("passthrough.frag").program == load_shading("passthrough").program


def test_demo_lit_is_lit_frag_and_its_image_is_lit_asms():
    """demo-lit (lit.frag, its uniforms by name) against the same scene through lit.asm and
    lit-demo.toml: the same image, bit for bit, in fewer instructions."""
    scene = demo_lit_scene(size=10, bands=2)
    assert scene.shader.source.endswith("r500_shaders/lit.frag")
    uniforms = read_settings(SHADER_DIR / LIT_UNIFORMS)[0]
    assert uniforms["lightDirection"] == list(LIGHT)
    asm = load_shading("lit", SHADER_DIR / LIT_CONSTANTS)
    frag_words, frag_routines = render(scene)
    asm_words, asm_routines = render(scene, asm)
    assert frag_words == asm_words
    assert scene.shader.instructions < asm.instructions
    assert frag_routines["R500"] < asm_routines["R500"]


def test_uniforms_alone_replace_the_scenes(tmp_path):
    """``--uniforms`` without ``--shader`` on demo-lit: lit.frag with other values."""
    (tmp_path / "u.toml").write_text("shininess = 3.0\nambient = [1, 1, 1]\n")
    scene = load_any_scene("demo-lit", uniforms=tmp_path / "u.toml")
    assert scene.shader.program == demo_lit_scene().shader.program
    shininess, ambient = (scene.shader.interface["uniforms"][n] for n in ("shininess", "ambient"))
    assert [scene.shader.constants[i][c] for i, c in shininess] == [fp32.from_float(3.0)]
    assert [scene.shader.constants[i][c] for i, c in ambient] == [fp32.from_float(1.0)] * 3
    assert all(scene.shader.constants.get(i, [0] * 4)[c] == 0
               for i, c in scene.shader.interface["uniforms"]["lightColor"])


@pytest.mark.parametrize("tool", ["boards.host", "bench.frame"])
def test_other_tools_compile_error_exit_2(tmp_path, capsys, tool):
    """boards.host and bench.frame take --shader X.frag as sim.render does (the error comes
    before any hardware is built)."""
    from bench.frame import main as bench_frame
    from boards.host import main as host
    bad = tmp_path / "bad.frag"
    bad.write_text("void main() { gl_FragColor = vec4(1.0) }\n")
    with pytest.raises(SystemExit) as info:
        if tool == "boards.host":
            host(["demo", "--shader", str(bad), "--simulated", "--out", str(tmp_path / "x.png")])
        else:
            bench_frame(["--scene", "demo", "--shader", str(bad)])
    assert info.value.code == 2
    assert capsys.readouterr().err == f"{bad}:1:40: expected ';' after an expression, got '}}'\n"
