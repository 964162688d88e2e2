"""One frame on the RTL GPU (fast backend): cycles, ray/triangle tests, the R500 stage's waits and
frames per second.

    python -m bench.frame --scene SCENE [--config PRESET] [--cores N] [--no-binning]
                          [--set FIELD=VALUE ...] [--report DIR/report.json] [--check]
                          [--json FILE] [--shader PROG [--uniforms FILE | --constants FILE]]

SCENE and the shader arguments as ``python -m sim.render`` takes them (a theia-2010 directory,
a .toml/.json scene, ``demo``, ``demo-lit``; the preset is ``ulx3s``, or ``ulx3s-r500`` for a
scene with an R500 program). Prints one JSON object: ``cycles`` (the GPU's frame counter),
``tests`` (MAINs run), ``cycles_per_test``, ``fmax_mhz`` (the Fmax of the preset's latest
routed board build at this core count, from bench/measured_builds.json, or of the build whose
``--report`` is given; null when there is none), ``clock_mhz`` (the board's clock, when that
build meets it), ``fps`` (frames per second at that clock) and ``binning`` (the frame was
binned, docs/binning.md), with the scene, preset, cores, pixels and ``wall_s`` (the bins, the
load, the frame and the read-back). A preset with its memories
in SDRAM (the board presets) runs with the SDRAM chip model and the display: the second of two
frames is measured, rendered while the display shows the first (``cache_fills``,
``line_writes``: the texture cache's line fills and the frame writer's line writes over both). ``--check``: the frame must
equal the model's (``identical``; exit 1 if not), and the scene directory's ``Reference.ppm``
when it has one (``reference``: the values that differ from it). With an R500 program, the
stage's counters (docs/r500-core.md, "Where the frame's time goes"): ``stage_wait_cycles`` (the
cycles the THEIA cores waited on the stage, all cores) and ``stage_wait_per_core``;
``stage_busy_cycles`` (a context ran on the R500 core) and ``stage_idle_cycles`` (the rest of
the frame). ``frame_ms``: the frame's time at ``clock_mhz``. A line of text on stderr says it
all in words. A ``--report`` of another preset or core count is refused (its clock is not this
GPU's). ``--set`` changes a field of
the preset (``GpuConfig`` or its ``CoreConfig``: ``--set divider=lanes --set
cross_passes=1``), to measure what a choice costs; ``fmax_mhz`` is then null.
"""

import argparse
import json
import sys
import time
from pathlib import Path

from bench.measured_builds import board_build
from hdl.config import PRESET_NAMES, preset
from sim.errors import cli_errors
from sim.scene_loader import SCENE_ARGUMENT_HELP, add_shader_arguments, scene_from_arguments


def board_clock(config, report=None):
    """(Fmax, the board's clock if met) in MHz of the board build of ``config``: the one of
    ``report`` (a board build's report.json, as a dict) if given, else the latest routed one
    bench/measured_builds.json holds for its preset and core count; (None, None) if none."""
    if report is not None:
        fmax, clock = report["fmax_mhz"], report["target_mhz"]
    else:
        build = board_build(config_name(config), config.cores)
        if build is None:
            return None, None
        fmax, clock = build["fmax_mhz"], build["clock_mhz"]
    return fmax, (clock if fmax is not None and fmax >= clock else None)


def frame_figures(scene, config, binning=True, check=False, reference=None, report=None):
    """Render ``scene`` on ``config``'s GPU (fast backend); the JSON figures (``check``: and
    the comparisons with the model and the ``reference`` image, a path or None; ``report``:
    the board build to take the clock from, ``board_clock``)."""
    from firmware.rom import default_rom
    from sim.fast import render_gpu_fast
    started = time.monotonic()
    # (memories in SDRAM: the second frame is measured, rendered while the display reads the
    # first from the front buffer, its scan-out competing for the SDRAM)
    frames = 2 if config.memory is not None else 1
    output, stats = render_gpu_fast(scene, default_rom(), config, binning=binning,
                                    frames=frames)
    fmax, clock = board_clock(config, report)
    figures = {
        "scene": scene.name, "cores": config.cores, "pixels": stats["pixels"],
        "cycles": stats["cycles"], "tests": stats["tests"],
        "cycles_per_test": round(stats["cycles"] / stats["tests"], 2) if stats["tests"] else None,
        "fmax_mhz": fmax, "clock_mhz": clock,
        "frame_ms": round(stats["cycles"] / (clock * 1e3), 3) if clock else None,
        "fps": round(clock * 1e6 / stats["cycles"], 2) if clock else None,
        "binning": stats["binning"],
        **stage_figures(stats),
        "wall_s": round(time.monotonic() - started, 1),
    }
    if config.memory is not None:
        figures.update(frames=frames, cache_fills=stats["cache_fills"],
                       line_writes=stats["line_writes"])
    if check:
        figures.update(_check(scene, config, output, reference))
    return figures


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
        text += f", {f['frame_ms']:g} ms at {f['clock_mhz']:g} MHz: {f['fps']:g} fps"
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


def read_report(path, name, cores, changed):
    """A board build's report.json, if it is a build of the preset ``name`` (None: any) with
    ``cores`` (None: any) unchanged; else ValueError in one line."""
    try:
        report = json.loads(Path(path).read_text())
        missing = [key for key in ("config", "cores", "fmax_mhz", "target_mhz")
                   if key not in report]
    except (json.JSONDecodeError, TypeError) as e:
        raise ValueError(f"{path}: not a report.json of hdl.build ({e!r})") from None
    if missing:
        raise ValueError(f"{path}: not a report.json of hdl.build (no {', '.join(missing)})")
    built, built_cores = report["config"], report["cores"]
    if (name or built, cores or built_cores) != (built, built_cores) or changed:
        raise ValueError(f"{path} is a build of {built} with {built_cores} cores: its clock "
                         f"is not another GPU's")
    return report


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
    parser.add_argument("--report", metavar="DIR/report.json",
                        help="the board build to take Fmax and the clock from, on its preset "
                             "and cores (default: the preset's latest in "
                             "bench/measured_builds.json)")
    parser.add_argument("--check", action="store_true",
                        help="compare the frame with the model's (and Reference.ppm)")
    parser.add_argument("--json", help="also write the JSON to this file")
    add_shader_arguments(parser)
    args = parser.parse_args(argv)
    with cli_errors("bench.frame"):
        scene = scene_from_arguments(args)
        name, cores, report = args.config, args.cores, None
        if args.report:
            report = read_report(args.report, name, cores, bool(args.set))
            name, cores = report["config"], report["cores"]
        name = name or ("ulx3s-r500" if scene.shader else "ulx3s")
        config = preset(name, **({"cores": cores} if cores else {}), **dict(args.set))
        reference = Path(args.scene) / "Reference.ppm"
        figures = {"config": name, **({"set": {k: getattr(v, "value", v)
                                               for k, v in args.set}} if args.set else {}),
                   **frame_figures(scene, config, args.binning,
                                   args.check, reference if reference.is_file() else None,
                                   report)}
        text = json.dumps(figures, indent=2)
        print(text)
        print(summary(figures), file=sys.stderr)
        if args.json:
            Path(args.json).write_text(text + "\n")
    return 0 if figures.get("identical", True) else 1


if __name__ == "__main__":
    sys.exit(main())
