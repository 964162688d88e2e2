"""bench.r500_random: random R500 programs on an engine, end to end."""

import json

from bench import r500_random


def perturbed(job):
    """An engine that gets one temporary wrong in every quad that runs to its end."""
    result = job.run()
    if result.error is None:
        result.lanes[0].temps[0][0] ^= 1
    return result


def test_model_engine(capsys):
    assert r500_random.main(["--programs", "20", "--seed", "5"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["programs"] == 20 and report["seed"] == 5 and report["engine"] == "model"
    assert report["mismatches"] is None and report["instructions"] > 20 * 10
    assert sum(report["errors"].values()) == 1           # seed 15 plants one
    assert report["wall_s"] > 0


def test_another_engine_is_compared_with_the_model(capsys, monkeypatch):
    monkeypatch.setitem(r500_random.ENGINES, "twin", "sim.r500.job:Job.run")
    monkeypatch.setitem(r500_random.ENGINES, "wrong", f"{__name__}:perturbed")
    assert r500_random.main(["--programs", "10", "--engine", "twin"]) == 0
    assert json.loads(capsys.readouterr().out)["mismatches"] == 0
    assert r500_random.main(["--programs", "10", "--engine", "wrong"]) == 1
    captured = capsys.readouterr()
    assert json.loads(captured.out)["mismatches"] == 10
    assert "seed 0: lane 0 temp[0].r: model " in captured.err
