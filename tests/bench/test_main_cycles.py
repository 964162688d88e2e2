"""bench.main_cycles on every preset's core (a few samples): MAIN runs on the RTL core as it
ships (with its shared divider where it has one) and matches the model register for register."""

import json

import pytest

from bench.main_cycles import main
from hdl.config import CORE_PRESET_NAMES


@pytest.mark.slow
@pytest.mark.parametrize("config", CORE_PRESET_NAMES)
def test_main_cycles_runs_on_every_preset(config, scenes_dir, tmp_path, capsys):
    out = tmp_path / "cycles.json"
    main(["--scene", str(scenes_dir / "example3"), "--config", config, "--samples", "4",
          "--model-samples", "200", "--json", str(out)])
    result = json.loads(out.read_text())
    assert result["config"] == config
    assert result["miss_cycles"]["runs"] >= 1 and result["hit_cycles"]["runs"] >= 1
    # a ray-triangle test takes tens of cycles on every preset, not the original's 272
    assert 10 < result["weighted_cycles_per_test"] < 100
