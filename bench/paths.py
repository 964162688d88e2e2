"""Estimated longest register-to-register paths of a synthesised ECP5 netlist (before placement).

    python -m bench.paths DIR/top.json [--top 15] [--json]

Place and route of one core takes 15-20 minutes and nextpnr reports one critical path; this
reads Yosys' netlist (``top.json`` of a board build, written before nextpnr runs) and ranks many
paths in seconds, so that several can be shortened per place-and-route. The delays are
estimates (cell delays of the LFE5U-6 as nextpnr reports them, a routing delay per net that
grows with its fan-out): use the ranking, and nextpnr for the numbers.
"""

import argparse
import json
import math
import re
import sys
from collections import defaultdict

from hdl.config import PRESET_NAMES, preset

# cell delays in ns (LFE5U speed grade 6, as seen in nextpnr's path reports)
LUT_DELAY = 0.24
MUX_DELAY = 0.20             # PFUMX / L6MUX21
CARRY_IN_DELAY = 0.45        # CCU2C: A/B/C/D -> S or COUT
CARRY_THROUGH = 0.07         # CCU2C: CIN -> COUT (two bits)
CARRY_SUM = 0.30             # CCU2C: CIN -> S
FF_CLK_TO_Q = 0.52
BRAM_CLK_TO_Q = 5.6          # DP16KD without its output register
LUTRAM_READ = 0.6            # TRELLIS_DPR16X4: RAD -> DO
MULT_DELAY = 4.0             # MULT18X18D without registers
SETUP = 0.1

# inputs that reach the cell over dedicated wires (no general routing)
_DEDICATED = {("PFUMX", "ALUT"), ("PFUMX", "BLUT"), ("L6MUX21", "D0"), ("L6MUX21", "D1"),
              ("CCU2C", "CIN")}


def routing_delay(fanout):
    return 0.6 + 0.15 * math.log2(max(fanout, 1))


def _port_bits(cell, direction):
    for port, bits in cell["connections"].items():
        if cell["port_directions"].get(port) == direction:
            for i, bit in enumerate(bits):
                if isinstance(bit, int):
                    yield port, i, bit


def _arcs(cell):
    """(input port, output port, delay) of a combinational cell, or None for sequential ones."""
    kind = cell["type"]
    if kind == "LUT4":
        return [(p, "Z", LUT_DELAY) for p in "ABCD"]
    if kind == "PFUMX":
        return [(p, "Z", MUX_DELAY) for p in ("ALUT", "BLUT", "C0")]
    if kind == "L6MUX21":
        return [(p, "Z", MUX_DELAY) for p in ("D0", "D1", "SD")]
    if kind == "CCU2C":
        arcs = [("CIN", "COUT", CARRY_THROUGH), ("CIN", "S0", CARRY_SUM),
                ("CIN", "S1", CARRY_SUM)]
        for n in "01":
            for p in "ABCD":
                arcs += [(p + n, "S" + n, CARRY_IN_DELAY), (p + n, "COUT", CARRY_IN_DELAY)]
                if n == "0":
                    arcs.append((p + n, "S1", CARRY_IN_DELAY))
        return arcs
    if kind == "TRELLIS_DPR16X4":
        return [("RAD", "DO", LUTRAM_READ)]
    if kind == "MULT18X18D" and not any("REG" in k and v != "NONE"
                                         for k, v in cell["parameters"].items()):
        return [(p, "P", MULT_DELAY) for p in ("A", "B")]
    return None


def _launch_delay(cell):
    kind = cell["type"]
    if kind == "DP16KD":
        return BRAM_CLK_TO_Q
    return FF_CLK_TO_Q


def analyse(netlist, top=None):
    modules = netlist["modules"]
    if top is None:
        top = next(name for name, mod in modules.items()
                   if mod.get("attributes", {}).get("top"))
    mod = modules[top]
    names = {}
    for name, net in mod["netnames"].items():
        for bit in net["bits"]:
            if isinstance(bit, int):
                old = names.get(bit)
                if old is None or (net["hide_name"], len(name)) < (old[1], len(old[0])):
                    names[bit] = (name, net["hide_name"])
    driver = {}             # bit -> (cell name, launch time or None for comb outputs)
    sinks = defaultdict(list)
    cells = mod["cells"]
    for cname, cell in cells.items():
        for port, _, bit in _port_bits(cell, "output"):
            driver[bit] = cname
        for port, i, bit in _port_bits(cell, "input"):
            sinks[bit].append((cname, port))
    fanout = {bit: len(s) for bit, s in sinks.items()}

    def net_delay(bit, cell_type, port):
        base = re.sub(r"\d+$", "", port) if cell_type != "CCU2C" else port
        if (cell_type, base) in _DEDICATED or (cell_type, port) in _DEDICATED:
            return 0.0
        return routing_delay(fanout.get(bit, 1))

    arrival = {}            # bit -> (time, previous bit)
    arcs_of = {c: _arcs(cell) for c, cell in cells.items()}

    def inputs_of(cname, out_port):
        cell = cells[cname]
        for in_port, o_port, delay in arcs_of[cname]:
            if o_port != out_port:
                continue
            for p, _, bit in _port_bits(cell, "input"):
                if re.sub(r"\d+$", "", p) == in_port or p == in_port:
                    yield bit, delay, p

    def out_port_of(cname, bit):
        for p, _, b in _port_bits(cells[cname], "output"):
            if b == bit:
                return re.sub(r"\d+$", "", p) if cells[cname]["type"] != "CCU2C" else p
        return None

    sys.setrecursionlimit(100000)

    def arrive(bit):
        if bit in arrival:
            return arrival[bit][0]
        cname = driver.get(bit)
        if cname is None:
            arrival[bit] = (0.0, None)
            return 0.0
        cell = cells[cname]
        if arcs_of[cname] is None:
            arrival[bit] = (_launch_delay(cell), None)
            return arrival[bit][0]
        arrival[bit] = (0.0, None)            # breaks combinational loops, should there be any
        best, prev = 0.0, None
        for in_bit, delay, port in inputs_of(cname, out_port_of(cname, bit)):
            t = arrive(in_bit) + net_delay(in_bit, cell["type"], port) + delay
            if t > best:
                best, prev = t, in_bit
        arrival[bit] = (best, prev)
        return best

    endpoints = []
    for cname, cell in cells.items():
        if arcs_of[cname] is not None:
            continue
        for port, _, bit in _port_bits(cell, "input"):
            if port == "CLK" or port.startswith("CLK") or port == "WCK":
                continue
            t = arrive(bit) + net_delay(bit, cell["type"], port) + SETUP
            endpoints.append((t, cname, port, bit))
    endpoints.sort(reverse=True)

    def where(bit):
        """The driving cell's type and the design signal its net is named after (Yosys names
        a mapped net after a design net it connects to) or, for flip-flops and carry chains,
        the Amaranth source line."""
        cname = driver.get(bit)
        name = names.get(bit, (f"bit{bit}",))[0]
        name = re.split(r"_(?:LUT4|PFUMX|L6MUX21|CCU2C|TRELLIS_FF|DP16KD|TRELLIS_DPR16X4)", name)[0]
        if cname is None:
            return name
        src = cells[cname].get("attributes", {}).get("src", "")
        lines = [s for s in src.split("|") if "/amaranth/" not in s and "/share/" not in s]
        line = re.sub(r"^.*/((hdl|boards)/[^:]*:\d+).*$", r"\1", lines[-1]) if lines else ""
        return f"{cells[cname]['type']:15} {name}  {line}".rstrip()

    def path(bit):
        out = []
        while bit is not None:
            out.append((where(bit), round(arrival[bit][0], 2)))
            bit = arrival[bit][1]
        return out[::-1]

    return endpoints, path


def synthesise(config, out_dir):
    """Yosys synth_ecp5 of the ULX3S top with the GPU of ``config`` (no place and route);
    returns the netlist's path."""
    import os
    import subprocess
    from pathlib import Path
    from amaranth_boards.ulx3s import ULX3S_85F_Platform
    from boards.ulx3s import Ulx3sTop
    from hdl.build import _set_tool_env, BuildError, SYNTH_OVERRIDES
    try:
        _set_tool_env()
    except BuildError as e:
        sys.exit(f"error: {e}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    plan = ULX3S_85F_Platform().prepare(Ulx3sTop(config=config), name="top", **SYNTH_OVERRIDES)
    plan.extract(str(out))
    print(f"synthesising {config.cores}-core top in {out} ...", file=sys.stderr)
    result = subprocess.run([os.environ["YOSYS"], "-q", "-l", "top.rpt", "top.ys"], cwd=out)
    if result.returncode:
        sys.exit(f"error: Yosys failed, see {out / 'top.rpt'}")
    return str(out / "top.json")


def _group(cname):
    """The design signal an endpoint cell belongs to (Yosys' mapped names start with it)."""
    return re.sub(r"(_TRELLIS_FF_Q|_DP16KD|\$).*$", "", cname)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.paths",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("netlist", nargs="?",
                        help="Yosys JSON netlist (DIR/top.json of a board build); without it, "
                             "the ULX3S top of --cores is synthesised into --out first")
    parser.add_argument("--config", default="ulx3s", choices=PRESET_NAMES,
                        help="the GPU's preset (default 'ulx3s')")
    parser.add_argument("--cores", type=int, default=1, help="cores (default 1)")
    parser.add_argument("--out", default="build/paths")
    parser.add_argument("--top", type=int, default=15, help="how many endpoint groups")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.netlist is None:
        args.netlist = synthesise(preset(args.config, cores=args.cores), args.out)
    with open(args.netlist) as f:
        netlist = json.load(f)
    endpoints, path = analyse(netlist)
    seen, rows = set(), []
    for t, cname, port, bit in endpoints:
        group = _group(cname)
        if group in seen:
            continue
        seen.add(group)
        rows.append({"ns": round(t, 2), "mhz": round(1000 / t, 1), "endpoint": f"{cname}.{port}",
                     "path": path(bit)})
        if len(rows) == args.top:
            break
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    for row in rows:
        print(f"{row['ns']:6.2f} ns ({row['mhz']} MHz)  -> {row['endpoint']}")
        for name, t in row["path"]:
            print(f"        {t:6.2f}  {name}")


if __name__ == "__main__":
    main()
