"""The shader_test suite of tests/shader_tests: every file passes on the model; a sample
covering ALU, flow control, texture, derivatives and discard passes on the RTL core with every
quad checked against the model."""

from pathlib import Path

import pytest

from sim.shader_test import make_engine, run_test

pytest.importorskip("firmware.glsl", reason="the GLSL compiler (firmware.glsl) is not present")

SUITE = Path(__file__).resolve().parents[2] / "shader_tests"
FILES = sorted(SUITE.glob("*.shader_test"))
RTL_SAMPLE = ["builtin-geometric", "builtin-exponential", "types-matrices", "functions",
              "flow-break-continue", "flow-divergent", "builtin-texture",
              "builtin-texture-filtering", "builtin-derivatives", "discard"]
_MODEL = make_engine("model")


def test_the_suite_and_the_sample_exist():
    assert len(FILES) >= 30
    assert {f"{name}.shader_test" for name in RTL_SAMPLE} <= {f.name for f in FILES}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_on_the_model(path):
    outcome = run_test(path, _MODEL)
    assert (outcome.result, outcome.reason) == ("pass", None)


@pytest.mark.xdist_group("r500_job_top")
@pytest.mark.parametrize("name", RTL_SAMPLE)
def test_a_sample_on_the_rtl(name):
    outcome = run_test(SUITE / f"{name}.shader_test", make_engine("rtl", compare=True))
    assert (outcome.result, outcome.reason) == ("pass", None)
