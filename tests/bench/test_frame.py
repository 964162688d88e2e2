"""bench/frame.py: one frame's figures on the RTL (the ``default`` GPU, the compiled model
tests/hdl/gpu/test_binning.py builds too), binned and not, and its ``--set`` fields."""

import argparse

import pytest

from bench.frame import _setting, config_name, frame_figures
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
