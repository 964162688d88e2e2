"""``python -m sim.shader_test``: one line per file, --json, the exit status, malformed files in
one line; the RTL engine gives the model's results (--compare)."""

import json
import subprocess
import sys

import pytest

import sim.shader_test.compile
import sim.shader_test.engines
from sim.shader_test.__main__ import main
from tests.sim.shader_test.fake_glsl import COMPILER
from tests.sim.shader_test.helpers import POSITION_SHADER, write_test
from tests.sim.shader_test.test_run import DERIVATIVE, DISCARD, TEXTURE


@pytest.fixture
def stand_in(monkeypatch):
    """The CLI compiles with the stand-in compiler."""
    monkeypatch.setattr(sim.shader_test.compile, "glsl_compiler", lambda: COMPILER)


@pytest.fixture
def files(tmp_path):
    passing = write_test(tmp_path, "uniform vec4 color 0 1 0 1\ndraw rect -1 -1 2 2\n"
                                   "probe all rgba 0 1 0 1\n", name="pass.shader_test")
    failing = write_test(tmp_path, "clear color 1 0 0 1\nclear\nprobe rgb 1 1 0 1 0\n",
                         name="fail.shader_test")
    skipped = write_test(tmp_path, "draw arrays GL_POINTS 0 1\n", name="skip.shader_test")
    malformed = tmp_path / "bad.shader_test"
    malformed.write_text("[require]\nGLSL >= 1.10\n[fragment shader]\nvoid main() { }\n[test]\n"
                         "probe rgb 1 2\n")
    return {"pass": str(passing), "fail": str(failing), "skip": str(skipped),
            "bad": str(malformed)}


def cli(capsys, *args):
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out.splitlines(), err.splitlines()


def test_lines_and_summary(stand_in, capsys, files):
    status, out, err = cli(capsys, files["pass"], files["skip"])
    assert status == 0 and err == []
    assert out == [f"PASS {files['pass']}",
                   f"SKIP {files['skip']}: unsupported command 'draw arrays GL_POINTS 0 1'",
                   "1 passed, 0 failed, 1 skipped (model)"]


def test_a_failing_file_exits_1(stand_in, capsys, files):
    status, out, _ = cli(capsys, files["fail"], files["pass"])
    assert status == 1
    assert out[0].startswith(f"FAIL {files['fail']}: line ") and out[0].endswith(
        "probe rgb 1 1 0 1 0: pixel (1, 1) expected (0, 1, 0), observed (1, 0, 0)")
    assert out[-1] == "1 passed, 1 failed, 0 skipped (model)"


def test_a_malformed_file_is_one_line_and_exits_2(stand_in, capsys, files):
    status, out, err = cli(capsys, files["bad"], files["pass"])
    assert status == 2
    assert err == [f"{files['bad']}:6: probe rgb 1 2 needs 5 numbers, got 2"]
    assert out == [f"PASS {files['pass']}", "1 passed, 1 failed, 0 skipped (model)"]


def test_json_one_object_per_file(stand_in, capsys, files):
    status, out, err = cli(capsys, "--json", *files.values())
    assert status == 2 and err == []
    lines = [json.loads(line) for line in out]
    assert [(d["file"], d["result"]) for d in lines] == [
        (files["pass"], "pass"), (files["fail"], "fail"), (files["skip"], "skip"),
        (files["bad"], "fail")]
    assert all(set(d) == {"file", "result", "reason"} for d in lines)
    assert lines[0]["reason"] is None
    assert lines[3]["reason"] == f"{files['bad']}:6: probe rgb 1 2 needs 5 numbers, got 2"


def test_no_compiler_is_one_line(monkeypatch, capsys, files):
    def missing():
        raise ImportError("No module named 'firmware.glsl'")
    monkeypatch.setattr(sim.shader_test.compile, "glsl_compiler", missing)
    status, out, err = cli(capsys, files["pass"])
    assert status == 2 and out == []
    assert err == ["python -m sim.shader_test: the GLSL compiler is not available: No module "
                   "named 'firmware.glsl'"]


def test_no_rtl_model_is_one_line(monkeypatch, stand_in, capsys, files):
    import sim.fast.build
    monkeypatch.setattr(sim.fast.build, "check_tools", lambda backend: "no verilator here")
    monkeypatch.setattr(sim.shader_test.engines, "_runner", None)
    status, out, err = cli(capsys, "--engine", "rtl", files["pass"])
    assert status == 2 and out == []
    assert err == ["python -m sim.shader_test: the rtl engine is not available: no verilator here"]


def test_the_command_line_never_shows_a_traceback(files, tmp_path):
    """The real command: a malformed file, a missing one and a skip (no compiler needed)."""
    result = subprocess.run([sys.executable, "-m", "sim.shader_test", files["bad"],
                             str(tmp_path / "missing.shader_test"), files["skip"]],
                            capture_output=True, text=True)
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        f"{files['bad']}:6: probe rgb 1 2 needs 5 numbers, got 2",
        f"{tmp_path / 'missing.shader_test'}: No such file or directory"]
    assert result.stdout.splitlines()[-1] == "0 passed, 2 failed, 1 skipped (model)"
    bad = subprocess.run([sys.executable, "-m", "sim.shader_test", files["skip"],
                          "--max-instructions", "0"], capture_output=True, text=True)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


@pytest.mark.xdist_group("r500_job_top")
def test_the_rtl_engine_gives_the_models_results(stand_in, capsys, tmp_path):
    """ALU, discard, texture and derivative programs on the RTL core, every quad checked
    against the model (--compare), across several batches of ten contexts."""
    probes = "draw rect -1 -1 2 2\nprobe rect rgba (120, 60, 12, 8) (0, 1, 0, 1)\n"
    tests = [write_test(tmp_path, "draw rect -1 -1 2 2\nprobe rect rgb (10, 20, 2, 2) "
                                  "(0.044, 0.084, 0)\n", name="position.shader_test",
                        fragment=POSITION_SHADER),
             write_test(tmp_path, "clear color 0 1 0 1\nclear\n" + probes,
                        name="discard.shader_test", fragment=DISCARD),
             write_test(tmp_path, "texture rgbw 0 (8, 8)\ntexparameter 2D min linear\n"
                                  "texparameter 2D mag linear\ndraw rect -1 -1 2 2\n"
                                  "probe rgb 30 30 1 0 0\nprobe rgb 200 60 0 1 0\n",
                        name="texture.shader_test", fragment=TEXTURE),
             write_test(tmp_path, "draw rect -1 -1 2 2\nprobe rgba 7 9 0.5 0 0 1\n",
                        name="derivative.shader_test", fragment=DERIVATIVE)]
    status, out, _ = cli(capsys, "--engine", "rtl", "--compare", *tests)
    assert out[-1] == "4 passed, 0 failed, 0 skipped (rtl+model)" and status == 0
