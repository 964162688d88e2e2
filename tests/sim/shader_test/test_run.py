"""Running files on the model with the stand-in compiler: draws, clears, probes, discard,
textures, derivatives, uniforms, link checks, compile errors, quad errors; only the quads the
probes read are run."""

from dataclasses import replace

import pytest

from sim.shader_test import make_engine, run_test
from sim.shader_test.engines import CompareEngine, ModelEngine
from tests.sim.shader_test.fake_glsl import COMPILER
from tests.sim.shader_test.helpers import POSITION_SHADER, line_of, run, write_test

DISCARD = "void main() { if (gl_FragCoord.x < 125.0) discard; gl_FragColor = vec4(0, 1, 0, 1); }"
TEXTURE = "uniform sampler2D tex;\nvoid main() { gl_FragColor = texture2D(tex, gl_FragCoord.xy /" \
          " 250.0); }"
DERIVATIVE = "void main() { gl_FragColor = vec4(dFdx(gl_FragCoord.x) * 0.5, 0.0, 0.0, 1.0); }"
KINDS = ("uniform float f; uniform int i; uniform bool b; uniform mat2 m;\nvoid main() { "
         "gl_FragColor = vec4(f, float(i) * 0.5, b ? 1.0 : 0.0, m[1][0]); }")
STRUCT = ("struct S { float a; vec2 b; };\nuniform S s;\nuniform float arr[3];\nvoid main() { "
          "gl_FragColor = vec4(s.a, s.b, arr[2]); }")


class CountingEngine(ModelEngine):
    """The model, counting the quads it runs and the batches."""

    def __init__(self):
        self.quads, self.batches = 0, 0

    def run(self, state, jobs):
        self.quads += len(jobs)
        self.batches += 1
        return super().run(state, jobs)


def passes(outcome):
    assert (outcome.result, outcome.reason) == ("pass", None)
    return True


def test_a_uniform_colour_over_half_the_window(tmp_path):
    assert passes(run(tmp_path, "clear color 0 0 1 1\nclear\nuniform vec4 color 0 1 0 1\n"
                                "draw rect -1 -1 1 2\nprobe rect rgba (0, 0, 125, 250) (0, 1, 0, 1)"
                                "\nprobe rect rgba (125, 0, 125, 250) (0, 0, 1, 1)\n"))


def test_a_failing_probe_names_its_line_pixel_and_values(tmp_path):
    outcome = run(tmp_path, "uniform vec4 color 0.5 0 0 1\ndraw rect -1 -1 2 2\n"
                            "probe rgb 3 4 0.5 0 0\nprobe rgba 7 8 0.5 0.1 0 1\n"
                            "probe all rgb 0 0 0\n")
    assert outcome.result == "fail"
    line = line_of(tmp_path / "t.shader_test", "probe rgba 7 8")
    assert outcome.reason == (f"line {line}: probe rgba 7 8 0.5 0.1 0 1: pixel (7, 8) expected "
                              "(0.5, 0.1, 0, 1), observed (0.502, 0, 0, 1) (and 1 more failing "
                              "probes)")


def test_clear_needs_a_clear_colour_and_the_window_starts_black(tmp_path):
    assert passes(run(tmp_path, "clear\nprobe all rgba 0 0 0 0\nclear color 1 0 0 1\n"
                                "probe all rgba 0 0 0 0\nclear\nprobe all rgba 1 0 0 1\n"))


def test_later_draws_and_clears_replace_earlier_ones(tmp_path):
    assert passes(run(tmp_path, "uniform vec4 color 1 0 0 1\ndraw rect -1 -1 2 2\n"
                                "uniform vec4 color 0 0 1 1\ndraw rect 0 0 1 1\n"
                                "probe rgb 10 10 1 0 0\nprobe rgb 200 200 0 0 1\n"
                                "clear color 0 1 0 0\nclear\nprobe rgb 200 200 0 1 0\n"))


def test_ortho_and_draw_rect_ortho(tmp_path):
    """ortho projects only through a fixed-function vertex stage; draw rect ortho is pixels."""
    common = "uniform vec4 color 1 1 1 1\northo\n"
    fixed = "[vertex shader]\nvoid main() { gl_Position = ftransform(); }\n"
    assert passes(run(tmp_path, common + "draw rect 10 20 5 5\nprobe rect rgb (10, 20, 5, 5) "
                                         "(1, 1, 1)\nprobe rgb 15 20 0 0 0\nprobe rgb 9 20 0 0 0\n",
                      vertex=fixed))
    assert passes(run(tmp_path, common + "draw rect 10 20 5 5\nprobe all rgb 0 0 0\n"))
    assert passes(run(tmp_path, "uniform vec4 color 1 1 1 1\ndraw rect ortho 10 20 5 5\n"
                                "probe rect rgb (10, 20, 5, 5) (1, 1, 1)\nprobe rgb 15 24 0 0 0\n"))


def test_a_program_that_ignores_its_position_runs_one_quad(tmp_path):
    engine = CountingEngine()
    path = write_test(tmp_path, "uniform vec4 color 0 1 0 1\ndraw rect -1 -1 2 2\n"
                                "probe all rgba 0 1 0 1\nuniform vec4 color 1 0 0 1\n"
                                "draw rect 0 0 1 1\nprobe rgb 249 249 1 0 0\n")
    assert passes(run_test(path, engine, COMPILER))
    assert (engine.quads, engine.batches) == (2, 2)


def test_a_position_dependent_program_runs_the_probed_quads(tmp_path):
    engine = CountingEngine()
    path = write_test(tmp_path, "draw rect -1 -1 2 2\nprobe rgb 0 0 0.002 0.002 0\n"
                                "probe rgb 249 125 0.998 0.502 0\n"
                                "probe rect rgb (100, 101, 3, 3) (0.406, 0.41, 0)\n",
                      fragment=POSITION_SHADER)
    assert passes(run_test(path, engine, COMPILER))
    assert (engine.quads, engine.batches) == (1 + 1 + 4, 1)


def test_without_inputs_in_the_interface_the_words_tell_who_reads_the_position(tmp_path):
    engine = CountingEngine()
    path = write_test(tmp_path, "draw rect -1 -1 2 2\nprobe rect rgba (10, 10, 4, 2) "
                                "(0.05, 0.05, 0.05, 0.05)\n",
                      fragment="void main() { gl_FragColor = vec4(gl_FragCoord.x / 250.0); }")
    assert passes(run_test(path, engine, COMPILER))
    assert engine.quads == 2


def test_discard_keeps_what_was_there(tmp_path):
    assert passes(run(tmp_path, "clear color 1 0 0 1\nclear\ndraw rect -1 -1 2 2\n"
                                "probe rect rgb (119, 100, 6, 4) (1, 0, 0)\n"
                                "probe rect rgb (125, 100, 7, 4) (0, 1, 0)\n",
                      fragment=DISCARD))


def test_rgbw_texture_at_the_window_position(tmp_path):
    common = "uniform int tex 1\ntexture rgbw 1 (8, 8)\ndraw rect -1 -1 2 2\n"
    assert passes(run(tmp_path, common + "relative probe rgb (0.25, 0.25) (1, 0, 0)\n"
                                         "relative probe rgb (0.75, 0.25) (0, 1, 0)\n"
                                         "relative probe rgb (0.25, 0.75) (0, 0, 1)\n"
                                         "relative probe rgba (0.75, 0.75) (1, 1, 1, 1)\n",
                      fragment=TEXTURE))
    # no texture on the sampler's unit: GL's incomplete texture, black
    assert passes(run(tmp_path, "texture rgbw 0 (8, 8)\nuniform int tex 3\ndraw rect -1 -1 2 2\n"
                                "probe rect rgba (0, 0, 4, 4) (0, 0, 0, 1)\n", fragment=TEXTURE))


def test_texture_alpha_is_named_when_an_rgba_probe_fails(tmp_path):
    outcome = run(tmp_path, "texture checkerboard 0 0 (8, 8) (1, 0, 0, 0.5) (1, 0, 0, 0.5)\n"
                            "draw rect -1 -1 2 2\nprobe rgba 1 1 1 0 0 0.5\n", fragment=TEXTURE)
    assert outcome.result == "fail"
    assert outcome.reason.endswith("(a texture has alpha other than 1.0; the R500 samples "
                                   "alpha 1.0)")


def test_derivatives_along_x(tmp_path):
    assert passes(run(tmp_path, "draw rect -1 -1 2 2\nprobe rgba 0 0 0.5 0 0 1\n"
                                "probe rgba 249 249 0.5 0 0 1\n", fragment=DERIVATIVE))


def test_uniforms_of_each_kind(tmp_path):
    assert passes(run(tmp_path, "uniform float f 0.25\nuniform int i 1\nuniform bool b 1\n"
                                "uniform mat2 m 0 0 0.75 0\ndraw rect -1 -1 2 2\n"
                                "probe all rgba 0.25 0.5 1 0.75\n", fragment=KINDS))
    assert passes(run(tmp_path, "uniform float s.a 0.5\nuniform vec2 s.b 0.25 1\n"
                                "uniform float arr 0 0 0.2\ndraw rect -1 -1 2 2\n"
                                "probe all rgba 0.5 0.25 1 0.2\n", fragment=STRUCT))


def test_a_uniform_the_shader_lacks_fails(tmp_path):
    outcome = run(tmp_path, "uniform vec4 colour 1 1 1 1\ndraw rect -1 -1 2 2\n")
    line = line_of(tmp_path / "t.shader_test", "uniform vec4 colour")
    assert (outcome.result, outcome.reason) == (
        "fail", f"line {line}: the fragment shader has no uniform 'colour'")


def test_link_error_expects_the_compiler_to_fail(tmp_path):
    broken = "void main() { syntax error }\n"
    assert passes(run(tmp_path, "link error\n", fragment=broken))
    outcome = run(tmp_path, "link error\n")
    assert (outcome.result, outcome.reason) == (
        "fail", "a link error was expected, but the shader compiled")
    outcome = run(tmp_path, "link error\ndraw rect -1 -1 2 2\n", fragment=broken)
    line = line_of(tmp_path / "t.shader_test", "draw rect")
    assert outcome.reason == f"line {line}: draw rect with no program"
    assert passes(run(tmp_path, "link success\n"))


def test_compile_errors_fail_with_the_test_files_line(tmp_path):
    """The shader gets a #version line first; its error lines are still the file's."""
    outcome = run(tmp_path, "draw rect -1 -1 2 2\n",
                  fragment="void main()\n{\n   syntax error\n}\n")
    path = tmp_path / "t.shader_test"
    assert outcome.result == "fail" and outcome.reason == f"{path}:9:4: syntax error"
    assert line_of(path, "syntax error") == 9


def test_a_compiler_crash_is_a_failure_not_a_traceback(tmp_path):
    def crash(text, path):
        raise ZeroDivisionError("oops")
    outcome = run_test(write_test(tmp_path, "link error\n"), ModelEngine(), (crash, KeyError))
    assert (outcome.result, outcome.reason) == (
        "fail", "the compiler crashed: ZeroDivisionError: oops")


def test_a_quad_that_stops_fails_the_file(tmp_path):
    outcome = run(tmp_path, "draw rect -1 -1 2 2\nprobe rgb 5 5 0 0 0\n",
                  fragment=DISCARD, max_instructions=2)
    line = line_of(tmp_path / "t.shader_test", "draw rect")
    assert (outcome.result, outcome.reason) == (
        "fail", f"line {line}: the quad at pixel (4, 4) stopped: instruction limit at PC 2")


def test_probes_outside_the_window_fail(tmp_path):
    outcome = run(tmp_path, "probe rgb 250 0 0 0 0\n")
    line = line_of(tmp_path / "t.shader_test", "probe rgb")
    assert outcome.reason == f"line {line}: probe rgb 250 0 0 0 0: outside the 250x250 window"


def test_a_smaller_window(tmp_path):
    assert passes(run(tmp_path, "uniform vec4 color 1 0 0 1\ndraw rect 0 0 1 1\n"
                                "probe rect rgb (8, 4, 8, 4) (1, 0, 0)\nprobe rgb 7 3 0 0 0\n"
                                "relative probe rgb (1.0, 1.0) (1, 0, 0)\n",
                      require="GLSL >= 1.10\nSIZE 16 8"))


def test_a_program_writing_nothing_leaves_the_window(tmp_path):
    assert passes(run(tmp_path, "clear color 0 0 1 0\nclear\ndraw rect -1 -1 2 2\n"
                                "probe all rgba 0 0 1 0\n", fragment="void main() { }\n"))


@pytest.mark.parametrize("engine", ["model"])
def test_make_engine(engine):
    assert make_engine(engine).name == "model"
    assert make_engine(engine, compare=True).name == "model+model"


class WrongEngine(ModelEngine):
    """The model with lane 3's colour lost: what an RTL bug would look like."""
    name = "wrong"

    def run(self, state, jobs):
        return [replace(o, colours=o.colours[:3] + (None,)) for o in super().run(state, jobs)]


def test_compare_fails_a_file_where_the_engines_differ(tmp_path):
    path = write_test(tmp_path, "uniform vec4 color 1 0 0 1\ndraw rect -1 -1 2 2\n"
                                "probe rgb 0 0 1 0 0\n")
    outcome = run_test(path, CompareEngine(WrongEngine()), COMPILER)
    assert outcome.result == "fail"
    assert outcome.reason == ("the quad at pixel (0, 0): wrong (0x3f800000, 0x00000000, "
                              "0x00000000, 0x3f800000); (0x3f800000, 0x00000000, 0x00000000, "
                              "0x3f800000); (0x3f800000, 0x00000000, 0x00000000, 0x3f800000); -, "
                              "model (0x3f800000, 0x00000000, 0x00000000, 0x3f800000); "
                              "(0x3f800000, 0x00000000, 0x00000000, 0x3f800000); (0x3f800000, "
                              "0x00000000, 0x00000000, 0x3f800000); (0x3f800000, 0x00000000, "
                              "0x00000000, 0x3f800000)")
