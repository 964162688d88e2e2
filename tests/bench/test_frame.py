"""bench/frame.py: one frame's figures on the RTL (the ``default`` GPU, the compiled model
tests/hdl/gpu/test_binning.py builds too), binned and not, and its ``--set`` fields."""

import argparse

import pytest

from bench.frame import _setting, config_name, frame_figures, main, stage_figures, summary
from hdl.config import DividerSharing, preset
from sim.random_scene import random_scene


def test_settings_are_typed_as_the_fields():
    assert _setting("divider=lanes") == ("divider", DividerSharing.LANES)
    assert _setting("cross_passes=1") == ("cross_passes", 1)
    assert _setting("serial_sqrt=false") == ("serial_sqrt", False)
    assert _setting("bin_rows=0") == ("bin_rows", 0)
    for bad in ("divider=x", "cores", "nothing=1", "serial_sqrt=1"):
        with pytest.raises(argparse.ArgumentTypeError):
            _setting(bad)


def test_config_name_is_the_preset_at_any_core_count():
    assert config_name(preset("ulx3s", cores=2)) == "ulx3s"
    assert config_name(preset("ulx3s", cross_passes=1)) is None


@pytest.mark.slow(weight=2)
def test_a_frames_figures_binned_and_not():
    from sim.fast import check_tools
    if check_tools("verilator"):
        pytest.skip("fast backend unavailable")
    scene = random_scene(200, size=20)
    binned = frame_figures(scene, preset("default"), check=True)
    plain = frame_figures(scene, preset("default"), binning=False, check=True)
    assert binned["identical"] and plain["identical"]
    assert binned["binning"] and not plain["binning"]
    assert plain["tests"] == scene.width * scene.height * len(scene.triangles)
    assert binned["tests"] < plain["tests"] and binned["cycles"] < plain["cycles"]
    assert binned["cycles_per_test"] == round(binned["cycles"] / binned["tests"], 2)
    assert binned["fmax_mhz"] is None and binned["fps"] is None    # (no board build)
    assert binned["frame_ms"] is None
    assert "stage_wait_cycles" not in binned                        # (no R500 program)


def test_a_report_of_another_gpu_is_refused_in_one_line(tmp_path, capsys):
    report = tmp_path / "report.json"
    report.write_text('{"config": "ulx3s", "cores": 4, "fmax_mhz": 79.59, "target_mhz": 75.0}')
    for other in (["--config", "ulx3s-r500"], ["--cores", "2"], ["--set", "cross_passes=1"]):
        with pytest.raises(SystemExit) as exit:
            main(["--scene", "demo", "--report", str(report), *other])
        assert exit.value.code == 1
        assert "is a build of ulx3s with 4 cores" in capsys.readouterr().err
    for text in ('{"config": "ulx3s", "cores": 4}', "[1]", "not json"):
        report.write_text(text)
        with pytest.raises(SystemExit):
            main(["--scene", "demo", "--report", str(report)])
        assert "not a report.json of hdl.build" in capsys.readouterr().err


def test_the_stages_figures_and_their_line():
    stats = {"cycles": 1000, "r500_wait_cycles": [300, 100], "r500_busy_cycles": 600}
    stage = stage_figures(stats)
    assert stage == {"stage_wait_cycles": 400, "stage_wait_per_core": [300, 100],
                     "stage_busy_cycles": 600, "stage_idle_cycles": 400}
    assert stage_figures({"cycles": 1000}) == {}
    figures = {"scene": "demo-lit", "config": "ulx3s", "cores": 2, "cycles": 1000,
               "clock_mhz": 50.0, "frame_ms": 0.02, "fps": 50000.0, **stage}
    assert summary(figures) == (
        "demo-lit on ulx3s (2 cores): 1,000 cycles, 0.02 ms at 50 MHz: 50000 fps; the "
        "cores waited 400 cycles on the R500 stage (20% of their time; by core 300, 100); the "
        "stage ran quads 600 cycles (60%), idle 400")
