"""Render a scene: ``python -m sim.render SCENE --engine model --out FILE.png|FILE.ppm``.

SCENE is a theia-2010 scene directory, a .toml/.json scene description or ``demo``, the
built-in demo scene (``sim.scene_loader.load_any_scene``). The image is written as PPM in the
reference layout (first row = y 0) or as PNG the right way up.

``--shader PROG [--constants FILE | --uniforms FILE]`` shades the hits with an R500 fragment
program (assembly, or GLSL compiled on the spot) in place of THEIA's PIXELSHADER
(docs/r500-shading.md), on the model or on the GPU's R500 stage.
"""

import argparse
import json
import sys
import time

from hdl.config import PRESET_NAMES
from sim.errors import cli_errors
from sim.scene_loader import SCENE_ARGUMENT_HELP, add_shader_arguments, scene_from_arguments


RTL_BACKENDS = ("fast", "verilator", "cxxrtl", "pysim")


def render(scene, engine="model", config=None, jobs=None, backend="fast", vcd=None,
           progress=None, binning=True, screen=False):
    """Render ``scene`` on ``config``'s GPU (a ``hdl.config.GpuConfig``, default the
    ``default`` preset; the model shares the bands out over as many cores); return (the output
    memory, stats). The output is words, or with ``stats["output"] == "pixels"`` the
    converted pixels of a GPU with an 8-bit output store. ``binning``: each pixel tests only
    its bin's triangles (docs/binning.md; the same image). ``screen`` (rtl on the fast backend,
    a GPU with a display): ``stats["screen"]`` is the display's picture of the frame, decoded
    from its TMDS symbols (``sim.display.capture``)."""
    from firmware.rom import default_rom
    from hdl.config import preset
    config = config or preset("default")
    start = time.monotonic()
    if engine == "model":
        from sim.bins import frame_bins
        from sim.sequencer import render_model
        bins = frame_bins(scene, binning)
        omem, bands, routines = render_model(scene, default_rom(), cores=config.cores, jobs=jobs,
                                             bins=bins)
        stats = {
            "engine": engine,
            "output": "words",
            "cores": config.cores,
            "instructions": sum(b.instructions for b in bands),
            "cycles": None,
            "pixels": sum(b.pixels for b in bands),
            "tests": sum(b.tests for b in bands),
            "binning": bins is not None,
            "routine_instructions": routines,
        }
    elif engine == "rtl":
        if backend == "pysim":
            from sim.gpu_pysim import render_gpu_pysim
            omem, stats = render_gpu_pysim(scene, default_rom(), config, vcd=vcd,
                                           progress=progress, binning=binning)
        else:
            from sim.fast import render_gpu_fast
            kwargs = {} if backend == "fast" else {"backend": backend}
            if screen:
                kwargs["sim"], capture = _screen_sim(scene, config, binning, kwargs)
            omem, stats = render_gpu_fast(scene, default_rom(), config, progress=progress,
                                          binning=binning, **kwargs)
            if screen:
                stats["screen"] = capture.take()
        stats = {"engine": engine, "backend": backend,
                 "output": "pixels" if config.narrow_stores else "words", **stats}
    else:
        raise ValueError(f"unknown engine '{engine}' (model or rtl)")
    stats["wall_s"] = round(time.monotonic() - start, 3)
    return omem, stats


def _write_screen(path, screen, rgb, mode):
    """Write the display's picture; say whether it is the frame scaled and centred, and what
    the stream showed; a picture that is not exits 1."""
    from sim.display.capture import stream_checks
    from sim.display.raster import scaled_screen
    from sim.image import write_png
    write_png(path, screen.picture[::-1])           # (the monitor's rows from the top)
    differ = int((screen.picture != scaled_screen(rgb[::-1], mode)).any(axis=-1).sum())
    print(f"{path}: {'identical to' if not differ else f'{differ} pixels differ from'} the "
          f"frame scaled and centred; stream: {stream_checks(screen.timing)}", file=sys.stderr)
    if differ:
        raise SystemExit(1)


def _screen_sim(scene, config, binning, kwargs):
    """(a fast simulation of ``config``'s GPU with its display, a ScreenCapture on it)."""
    from firmware.rom import default_rom
    from sim.bins import frame_bins
    from sim.display.capture import ScreenCapture
    from sim.fast.gpu import gpu_sim
    memory = config.memory
    if memory is None:
        raise ValueError(f"--screen: the GPU has no display (a preset with its memories in "
                         f"SDRAM, e.g. ulx3s)")
    sim = gpu_sim(default_rom(), config, scene, frame_bins(scene, binning), **kwargs)
    return sim, ScreenCapture(sim, memory.mode, memory.clock_hz, memory.pixel_hz)


class ProgressBar:
    """One status line on stderr: pixels done, simulated cycles per second, time left.

    Rate and ETA are measured from the first call (so building/loading the model is not
    counted); the line is redrawn at most every ``interval`` seconds. When the stream is not a
    terminal (a log file, CI), a plain line is printed every ~10 % of the pixels instead."""

    def __init__(self, total_pixels, stream=sys.stderr, interval=0.5, clock=time.monotonic):
        self.total = total_pixels
        self.stream = stream
        self.interval = interval
        self.clock = clock
        isatty = getattr(stream, "isatty", None)
        self.tty = bool(isatty and isatty())
        self.first = None           # (time, cycles, pixels) at the first call
        self.last_draw = None
        self.next_tenth = 1         # non-TTY: print when done >= next_tenth / 10
        self.drawn = False

    def __call__(self, pixels, cycles):
        now = self.clock()
        if self.first is None:
            self.first = (now, cycles, pixels)
        done = min(pixels / self.total, 1.0) if self.total else 1.0
        if self.tty:
            if self.last_draw is not None and now - self.last_draw < self.interval and done < 1:
                return
        else:
            if done * 10 < self.next_tenth:
                return
            self.next_tenth = int(done * 10) + 1
        self.last_draw = now
        start, start_cycles, start_pixels = self.first
        elapsed = now - start
        rate = (cycles - start_cycles) / elapsed if elapsed > 0 else float("nan")
        pixel_rate = (pixels - start_pixels) / elapsed if elapsed > 0 else 0.0
        eta = (self.total - pixels) / pixel_rate if pixel_rate > 0 else float("nan")
        rate_text = f"{rate / 1e6:.2f} M cycles/s" if rate == rate else "- M cycles/s"
        eta_text = f"ETA {eta:5.0f} s" if eta == eta else "ETA     - s"
        text = (f"{pixels}/{self.total} pixels  {cycles:,} cycles  {rate_text}  {eta_text}")
        if self.tty:
            self.stream.write(f"\r[{'#' * int(30 * done):<30}] {text} ")
        else:
            self.stream.write(f"{int(100 * done):3d}% {text}\n")
        self.stream.flush()
        self.drawn = True

    def close(self):
        if self.tty and self.drawn:
            self.stream.write("\n")
            self.stream.flush()


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m sim.render", description=__doc__.splitlines()[0])
    parser.add_argument("scene", help=SCENE_ARGUMENT_HELP)
    parser.add_argument("--engine", default="model", choices=["model", "rtl"],
                        help="model (the reference model) or rtl (the simulated hardware)")
    parser.add_argument("--backend", default="fast",
                        help="rtl only: fast (default: compiled simulation), verilator, cxxrtl, "
                             "or pysim (Amaranth's simulator: small scenes, --vcd)")
    parser.add_argument("--out", required=True, help="output image, .ppm or .png")
    parser.add_argument("--config", default="default", choices=PRESET_NAMES,
                        help="the GPU's configuration preset (hdl/config.py; default 'default')")
    parser.add_argument("--cores", type=int, default=None,
                        help="number of cores, bands shared out (default: the preset's)")
    parser.add_argument("--jobs", type=int, default=None,
                        help="model only: host processes (default: all CPUs)")
    parser.add_argument("--stats", help="write render statistics as JSON to this file")
    parser.add_argument("--vcd", help="pysim backend only: write a waveform file")
    parser.add_argument("--screen", help="rtl on a preset with a display (ulx3s): the "
                                         "display's 640x480 picture of the frame, decoded from "
                                         "its TMDS symbols (.png)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--no-binning", dest="binning", action="store_false",
                        help="every pixel tests every triangle (default: only its bin's, "
                             "docs/binning.md; the same image)")
    add_shader_arguments(parser)
    args = parser.parse_args(argv)
    with cli_errors("sim.render"):
        if args.cores is not None and args.cores < 1:
            raise SystemExit("sim.render: --cores must be at least 1")
        from hdl.config import preset
        config = preset(args.config, **({"cores": args.cores} if args.cores else {}))
        if args.backend not in RTL_BACKENDS:
            raise SystemExit(f"sim.render: unknown backend '{args.backend}' "
                             f"(one of {', '.join(RTL_BACKENDS)})")
        if args.vcd and not (args.engine == "rtl" and args.backend == "pysim"):
            raise SystemExit("sim.render: --vcd needs --engine rtl --backend pysim")
        if args.screen and not (args.engine == "rtl" and args.backend == "fast"):
            raise SystemExit("sim.render: --screen needs --engine rtl (the fast backend)")
        from sim.image import output_to_rgb, write_image
        scene = scene_from_arguments(args)
        progress = None
        if args.engine == "rtl" and not args.quiet:
            progress = ProgressBar(scene.width * scene.height)
        try:
            omem, stats = render(scene, args.engine, config, args.jobs, args.backend,
                                 args.vcd, progress, args.binning, screen=bool(args.screen))
        except ImportError as e:
            raise SystemExit(f"sim.render: the rtl engine's {args.backend} backend is not "
                             f"available ({e})") from None
        finally:
            if progress:
                progress.close()
        rgb = output_to_rgb(omem, scene.width, scene.height, pixels=stats["output"] == "pixels")
        write_image(args.out, rgb)
        if args.screen:
            _write_screen(args.screen, stats.pop("screen"), rgb, config.memory.mode)
        from sim.sequencer import R500_ROUTINE
        cycles = f", {stats['cycles']:,} cycles" if stats.get("cycles") else ""
        r500 = stats.get("routine_instructions", {}).get(R500_ROUTINE,
                                                          stats.get("r500_instructions"))
        r500 = f", {r500:,} R500 instructions" if r500 is not None else ""
        tests = f", {stats['tests']:,} ray/triangle tests" if "tests" in stats else ""
        print(f"{args.out}: {scene.width}x{scene.height}, {stats['pixels']} pixels{tests}, "
              f"{stats['instructions']:,} instructions{r500}{cycles}, {stats['wall_s']} s",
              file=sys.stderr)
        if args.stats:
            with open(args.stats, "w") as f:
                json.dump(stats, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
