"""bench/frame.py: one frame's figures on the RTL (the ``default`` GPU, the compiled model
tests/hdl/gpu/test_binning.py builds too), binned and not, its ``--set`` fields, and the frame's
time at a build's clocks (its report.json or the command line's)."""

import argparse

import pytest

from bench.frame import (_clock, _setting, clocks_from_report, config_name, frame_figures,
                         frame_seconds, main, stage_figures, summary)
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
    assert binned["domain_mhz"] is None and binned["fps"] is None   # (no board build)
    assert "stage_wait_cycles" not in binned                        # (no R500 program)


def test_the_frames_time_is_its_sync_cycles_at_the_sync_clock():
    config = preset("ulx3s-r500")
    assert config.clock_domains == ("sync",)
    assert frame_seconds(4_000_000, {"sync": 40.0}, config) == 0.1
    assert frame_seconds(4_000_000, None, config) is None
    for clocks in ({"r500": 40.0}, {"sync": 40.0, "r500": 50.0}):
        with pytest.raises(ValueError, match="clock domains are sync"):
            frame_seconds(1, clocks, config)


def test_clocks_come_from_a_report_or_the_command_line(tmp_path):
    one = tmp_path / "report.json"
    one.write_text('{"config": "ulx3s", "cores": 4, "fmax_mhz": 79.59, "target_mhz": 75.0}')
    assert clocks_from_report(one) == ({"sync": 79.59}, "ulx3s", 4)
    two = tmp_path / "two.json"
    two.write_text('{"config": "ulx3s", "cores": 4, "fmax_mhz": 76.1, '
                   '"domains": {"sync": 76.1, "r500": 52.3}}')
    assert clocks_from_report(two)[0] == {"sync": 76.1, "r500": 52.3}
    for text in ('{"config": "ulx3s", "cores": 4, "fmax_mhz": null}', "[1]", "not json"):
        one.write_text(text)
        with pytest.raises(ValueError, match="report.json"):
            clocks_from_report(one)
    assert _clock("sync=44.81") == ("sync", 44.81)
    for bad in ("sync", "=40", "sync=fast", "sync=0"):
        with pytest.raises(argparse.ArgumentTypeError):
            _clock(bad)


def test_a_report_of_another_gpu_is_refused_in_one_line(tmp_path, capsys):
    report = tmp_path / "report.json"
    report.write_text('{"config": "ulx3s", "cores": 4, "fmax_mhz": 79.59}')
    for other in (["--config", "ulx3s-r500"], ["--cores", "2"], ["--set", "cross_passes=1"]):
        with pytest.raises(SystemExit) as exit:
            main(["--scene", "demo", "--report", str(report), *other])
        assert exit.value.code == 1
        assert "is a build of ulx3s with 4 cores" in capsys.readouterr().err


def test_the_stages_figures_and_their_line():
    stats = {"cycles": 1000, "r500_wait_cycles": [300, 100], "r500_busy_cycles": 600}
    stage = stage_figures(stats)
    assert stage == {"stage_wait_cycles": 400, "stage_wait_per_core": [300, 100],
                     "stage_busy_cycles": 600, "stage_idle_cycles": 400}
    assert stage_figures({"cycles": 1000}) == {}
    figures = {"scene": "demo-lit", "config": "ulx3s", "cores": 2, "cycles": 1000,
               "domain_mhz": {"sync": 50.0}, "frame_ms": 0.02, "fps": 50000.0, **stage}
    assert summary(figures) == (
        "demo-lit on ulx3s (2 cores): 1,000 cycles, 0.02 ms at sync 50 MHz: 50000 fps; the "
        "cores waited 400 cycles on the R500 stage (20% of their time; by core 300, 100); the "
        "stage ran quads 600 cycles (60%), idle 400")
