"""One frame on the RTL GPU (fast backend): cycles, ray/triangle tests, the R500 stage's waits and
frames per second at the build's clocks.

    python -m bench.frame --scene SCENE [--config PRESET] [--cores N] [--no-binning]
                          [--set FIELD=VALUE ...] [--check] [--json FILE]
                          [--report BUILD/report.json | --clock-mhz DOMAIN=MHZ ...]
                          [--shader PROG [--uniforms FILE | --constants FILE]]

SCENE and the shader arguments as ``python -m sim.render`` takes them (a theia-2010 directory,
a .toml/.json scene, ``demo``, ``demo-lit``; the preset is ``ulx3s``, or ``ulx3s-r500`` for a
scene with an R500 program). Prints one JSON object: ``cycles`` (the GPU's frame counter),
``tests`` (MAINs run), ``cycles_per_test``, ``binning`` (the frame was binned,
docs/binning.md), with the scene, preset, cores, pixels and ``wall_s`` (the bins, the load, the
frame and the read-back); then a line of text on stderr.

The frame's time: ``domain_mhz`` (each clock domain of the build and its clock), ``clock_from``
(where they came from), ``frame_ms`` and ``fps``. The clocks are a board build's routed Fmax:
``--report`` reads them from ``hdl.build``'s report.json (its ``domains``, or ``fmax_mhz`` for
the one domain ``sync``; the preset and cores are the report's), ``--clock-mhz sync=44.81``
gives them, and otherwise the preset's measured Fmax is taken (``FMAX_MHZ``, docs/fpga.md's
builds; null for anything else, and with ``--set``). The frame counter counts ``sync`` cycles,
so the time is cycles / the sync clock; a build whose units run in more domains
(``GpuConfig.clock_domains``) needs every domain's clock, and its frame simulated with the
domains' clocks in that ratio for the count to be its time.

With an R500 program, the stage's counters (docs/r500-core.md, "Where the frame's time goes"):
``stage_wait_cycles`` (the cycles the THEIA cores waited on the stage, all cores) and
``stage_wait_per_core``; ``stage_busy_cycles`` (a context ran on the R500 core) and
``stage_idle_cycles`` (the rest of the frame).

``--check``: the frame must equal the model's (``identical``; exit 1 if not), and the scene
directory's ``Reference.ppm`` when it has one (``reference``: the values that differ from it).
``--set`` changes a field of the preset (``GpuConfig`` or its ``CoreConfig``: ``--set
divider=lanes --set cross_passes=1``), to measure what a choice costs.
"""

import argparse
import json
import sys
import time
from pathlib import Path

from hdl.config import PRESET_NAMES, preset
from sim.errors import cli_errors
from sim.scene_loader import SCENE_ARGUMENT_HELP, add_shader_arguments, scene_from_arguments

#: measured Fmax per preset (MHz): the board build of docs/fpga.md's table (dc2370a, seed 1)
FMAX_MHZ = {"ulx3s": 79.59, "ulx3s-r500": 44.81}


def frame_figures(scene, config, binning=True, check=False, reference=None, clocks=None):
    """Render ``scene`` on ``config``'s GPU (fast backend); the JSON figures (``check``: and
    the comparisons with the model and the ``reference`` image, a path or None). ``clocks``:
    (MHz by clock domain, where they came from), or None: the preset's measured Fmax."""
    from firmware.rom import default_rom
    from sim.fast import render_gpu_fast
    started = time.monotonic()
    output, stats = render_gpu_fast(scene, default_rom(), config, binning=binning)
    if clocks is None:
        fmax = FMAX_MHZ.get(config_name(config))
        clocks = ({"sync": fmax}, "FMAX_MHZ (docs/fpga.md)") if fmax else (None, None)
    cycles = stats["cycles"]
    seconds = frame_seconds(cycles, clocks[0], config)
    figures = {
        "scene": scene.name, "cores": config.cores, "pixels": stats["pixels"],
        "cycles": cycles, "tests": stats["tests"],
        "cycles_per_test": round(cycles / stats["tests"], 2) if stats["tests"] else None,
        "domain_mhz": clocks[0], "clock_from": clocks[1],
        "frame_ms": round(seconds * 1e3, 3) if seconds else None,
        "fps": round(1 / seconds, 2) if seconds else None,
        "binning": stats["binning"],
        **stage_figures(stats),
        "wall_s": round(time.monotonic() - started, 1),
    }
    if check:
        figures.update(_check(scene, config, output, reference))
    return figures


def frame_seconds(cycles, clocks, config):
    """The frame's time at ``clocks`` (MHz by domain; None: unknown) on ``config``'s GPU: its
    frame counter's ``sync`` cycles at the sync clock."""
    if clocks is None:
        return None
    missing = [d for d in config.clock_domains if d not in clocks]
    unknown = [d for d in clocks if d not in config.clock_domains]
    if missing or unknown:
        raise ValueError(f"the GPU's clock domains are {', '.join(config.clock_domains)}; "
                         f"the clocks given are for {', '.join(clocks)}")
    return cycles / (clocks["sync"] * 1e6)


def stage_figures(stats):
    """The R500 stage's waits and busy cycles from the frame's counters (none without a
    program)."""
    if "r500_wait_cycles" not in stats:
        return {}
    waits = stats["r500_wait_cycles"]
    return {"stage_wait_cycles": sum(waits), "stage_wait_per_core": waits,
            "stage_busy_cycles": stats["r500_busy_cycles"],
            "stage_idle_cycles": max(stats["cycles"] - stats["r500_busy_cycles"], 0)}


def summary(figures):
    """The figures as a line of text."""
    f = figures
    changed = " changed" if "set" in f else ""
    text = (f"{f['scene']} on {f['config']}{changed} ({f['cores']} "
            f"core{'s' if f['cores'] != 1 else ''}): {f['cycles']:,} cycles")
    if f["fps"] is not None:
        clocks = ", ".join(f"{d} {mhz:g} MHz" for d, mhz in f["domain_mhz"].items())
        text += f", {f['frame_ms']:g} ms at {clocks}: {f['fps']:g} fps"
    if "stage_wait_cycles" in f:
        share = f["stage_wait_cycles"] / (f["cycles"] * f["cores"]) if f["cycles"] else 0
        per_core = ", ".join(f"{w:,}" for w in f["stage_wait_per_core"])
        busy = f["stage_busy_cycles"] / f["cycles"] if f["cycles"] else 0
        text += (f"; the cores waited {f['stage_wait_cycles']:,} cycles on the R500 stage "
                 f"({share:.0%} of their time; by core {per_core}); the stage ran quads "
                 f"{f['stage_busy_cycles']:,} cycles ({busy:.0%}), idle "
                 f"{f['stage_idle_cycles']:,}")
    if "identical" in f:
        text += "; identical to the model's" if f["identical"] else "; DIFFERS from the model's"
    return text


def clocks_from_report(path):
    """(MHz by clock domain, the preset's name, cores) of an ``hdl.build`` report.json: its
    ``domains``, or ``fmax_mhz`` for the one domain ``sync``."""
    try:
        report = json.loads(Path(path).read_text())
        clocks = report.get("domains") or {"sync": report["fmax_mhz"]}
        name, cores = report["config"], report["cores"]
    except (json.JSONDecodeError, KeyError, AttributeError, TypeError) as e:
        raise ValueError(f"{path}: not a report.json of hdl.build ({e!r})") from None
    if not all(isinstance(mhz, (int, float)) and mhz > 0 for mhz in clocks.values()):
        raise ValueError(f"{path}: the build has no Fmax for every clock domain ({clocks})")
    return clocks, name, cores


def _clock(text):
    """'DOMAIN=MHZ' -> (domain, MHz)."""
    domain, _, mhz = text.partition("=")
    try:
        value = float(mhz)
    except ValueError:
        value = 0
    if not domain or not value > 0:
        raise argparse.ArgumentTypeError(f"'{text}' is not DOMAIN=MHZ (like sync=44.81)")
    return domain, value


def config_name(config):
    """The preset ``config`` is, with any core count (None if it is none of them)."""
    return next((name for name in PRESET_NAMES
                 if preset(name, cores=config.cores) == config), None)


def _check(scene, config, output, reference):
    from firmware.rom import default_rom
    from sim.image import output_to_rgb, read_ppm, word_to_u8
    from sim.sequencer import render_model
    expected, _, _ = render_model(scene, default_rom(), cores=config.cores)
    if config.narrow_stores:
        expected = [word_to_u8(word) for word in expected]
    result = {"identical": output == expected}
    if reference is not None:
        rgb = output_to_rgb(output, scene.width, scene.height, pixels=config.narrow_stores)
        result["reference"] = int((rgb != read_ppm(reference)).sum())
    return result


def _setting(text):
    """'FIELD=VALUE' -> (field, value) typed as the configuration's field."""
    import dataclasses
    from hdl.config import CoreConfig, DividerSharing, GpuConfig
    name, _, value = text.partition("=")
    fields = {f.name: f for f in dataclasses.fields(CoreConfig) + dataclasses.fields(GpuConfig)}
    if name not in fields or not value:
        raise argparse.ArgumentTypeError(f"'{text}' is not FIELD=VALUE of a GpuConfig or "
                                         f"CoreConfig field")
    default = getattr(CoreConfig() if name in {f.name for f in dataclasses.fields(CoreConfig)}
                      else GpuConfig(), name)
    try:
        if isinstance(default, bool):
            if value not in ("true", "false"):
                raise ValueError(value)
            return name, value == "true"
        if isinstance(default, DividerSharing):
            return name, DividerSharing(value)
        return name, int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{value}' is not a value of {name} "
                                         f"(like {default!r})") from None


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.frame",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--scene", required=True, help=SCENE_ARGUMENT_HELP)
    parser.add_argument("--config", default=None, choices=PRESET_NAMES,
                        help="the GPU's preset (default: the --report's, else ulx3s, or "
                             "ulx3s-r500 for a scene with an R500 program)")
    parser.add_argument("--cores", type=int, help="cores (default: the preset's)")
    parser.add_argument("--no-binning", dest="binning", action="store_false",
                        help="every pixel tests every triangle")
    parser.add_argument("--set", type=_setting, action="append", default=[],
                        metavar="FIELD=VALUE", help="change a field of the preset")
    parser.add_argument("--check", action="store_true",
                        help="compare the frame with the model's (and Reference.ppm)")
    parser.add_argument("--json", help="also write the JSON to this file")
    clocks = parser.add_mutually_exclusive_group()
    clocks.add_argument("--report", metavar="REPORT_JSON",
                        help="hdl.build's report.json: the frame's time at its routed Fmax, on "
                             "its preset and cores")
    clocks.add_argument("--clock-mhz", type=_clock, action="append", metavar="DOMAIN=MHZ",
                        help="a clock domain's clock (sync=MHZ; one per domain)")
    add_shader_arguments(parser)
    args = parser.parse_args(argv)
    with cli_errors("bench.frame"):
        scene = scene_from_arguments(args)
        name, cores, clocks = args.config, args.cores, None
        if args.report:
            built_clocks, built, built_cores = clocks_from_report(args.report)
            if (name or built, cores or built_cores) != (built, built_cores) or args.set:
                raise ValueError(f"{args.report} is a build of {built} with {built_cores} "
                                 f"cores: its clocks are not another GPU's")
            name, cores, clocks = built, built_cores, (built_clocks, args.report)
        elif args.clock_mhz:
            clocks = (dict(args.clock_mhz), "--clock-mhz")
        name = name or ("ulx3s-r500" if scene.shader else "ulx3s")
        config = preset(name, **({"cores": cores} if cores else {}), **dict(args.set))
        reference = Path(args.scene) / "Reference.ppm"
        figures = {"config": name, **({"set": {k: getattr(v, "value", v)
                                               for k, v in args.set}} if args.set else {}),
                   **frame_figures(scene, config, args.binning, args.check,
                                   reference if reference.is_file() else None, clocks)}
        text = json.dumps(figures, indent=2)
        print(text)
        print(summary(figures), file=sys.stderr)
        if args.json:
            Path(args.json).write_text(text + "\n")
    return 0 if figures.get("identical", True) else 1


if __name__ == "__main__":
    sys.exit(main())
