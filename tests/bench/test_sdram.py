"""bench.sdram on a few hundred requests: no mismatch, no rule broken, every pattern measured;
the scan-out's long sequential reads keep the bus nearly full (the figures are cycle counts
of the RTL, not times). Needs the fast backend (its builds are shared with
tests/sim/test_sdram_fast.py)."""

import json

import pytest

from bench.sdram import BANDWIDTH_PATTERNS, main
from sim.fast import check_tools

pytestmark = pytest.mark.xdist_group("fast-sdram")


@pytest.mark.slow
def test_bench_sdram_runs_clean(capsys):
    problem = check_tools("verilator")
    if problem:
        pytest.skip(f"verilator backend unavailable: {problem}")
    assert main(["--ops", "400", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["violations"] == 0 and report["mixed"]["mismatches"] == 0
    assert report["mixed"]["requests"] == 400
    rows = {row["pattern"]: row for row in report["bandwidth"]}
    assert set(rows) == set(BANDWIDTH_PATTERNS)
    assert all(row["mismatches"] == 0 for row in rows.values())
    assert rows["scan-out (16-word reads in order)"]["of_peak"] > 0.9
