"""Render a scene: ``python -m sim.render SCENE_DIR|demo --engine model --out FILE.png|FILE.ppm``.

SCENE_DIR is a theia-2010 scene directory; ``demo`` is the built-in demo scene. The image is
written as PPM in the reference layout (first row = y 0) or as PNG the right way up.
"""

import argparse
import json
import sys
import time

from sim.errors import cli_errors


def load_any_scene(name):
    if name == "demo":
        from sim.demo_scene import demo_scene
        return demo_scene()
    from sim.scene import load_scene
    return load_scene(name)


def render(scene, engine="model", cores=1, jobs=None, backend="fast", vcd=None, progress=None):
    """Render ``scene``; return (output words, stats dict)."""
    from firmware.rom import default_rom
    start = time.monotonic()
    if engine == "model":
        from sim.sequencer import render_model
        omem, bands, routines = render_model(scene, default_rom(), cores=cores, jobs=jobs)
        stats = {
            "engine": engine,
            "cores": cores,
            "instructions": sum(b.instructions for b in bands),
            "cycles": None,
            "pixels": sum(b.pixels for b in bands),
            "routine_instructions": routines,
        }
    elif engine == "rtl":
        if backend == "pysim":
            from sim.gpu_pysim import render_gpu_pysim
            omem, stats = render_gpu_pysim(scene, default_rom(), cores=cores, vcd=vcd,
                                           progress=progress)
        else:
            from sim.fast import render_gpu_fast
            kwargs = {} if backend == "fast" else {"backend": backend}
            omem, stats = render_gpu_fast(scene, default_rom(), cores=cores, progress=progress,
                                          **kwargs)
        stats = {"engine": engine, "backend": backend, **stats}
    else:
        raise ValueError(f"unknown engine '{engine}' (model or rtl)")
    stats["wall_s"] = round(time.monotonic() - start, 3)
    return omem, stats


class ProgressBar:
    """One status line on stderr: pixels done, simulated cycles per second, time left."""

    def __init__(self, total_pixels, stream=sys.stderr):
        self.total = total_pixels
        self.stream = stream
        self.start = time.monotonic()

    def __call__(self, pixels, cycles):
        elapsed = max(time.monotonic() - self.start, 1e-9)
        rate = cycles / elapsed
        done = min(pixels / self.total, 1.0) if self.total else 1.0
        eta = elapsed * (1 - done) / done if done > 0 else float("nan")
        bar = "#" * int(30 * done)
        self.stream.write(f"\r[{bar:<30}] {pixels}/{self.total} pixels  {cycles:,} cycles  "
                          f"{rate / 1e6:.2f} M cycles/s  ETA {eta:5.0f} s ")
        self.stream.flush()

    def close(self):
        self.stream.write("\n")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m sim.render", description=__doc__.splitlines()[0])
    parser.add_argument("scene", help="scene directory (theia-2010 format) or 'demo'")
    parser.add_argument("--engine", default="model", choices=["model", "rtl"],
                        help="model (the reference model) or rtl (the simulated hardware)")
    parser.add_argument("--backend", default="fast",
                        help="rtl only: fast (default: compiled simulation), verilator, cxxrtl, "
                             "or pysim (Amaranth's simulator: small scenes, --vcd)")
    parser.add_argument("--out", required=True, help="output image, .ppm or .png")
    parser.add_argument("--cores", type=int, default=1, help="number of cores (bands are shared out)")
    parser.add_argument("--jobs", type=int, default=None,
                        help="model only: host processes (default: all CPUs)")
    parser.add_argument("--stats", help="write render statistics as JSON to this file")
    parser.add_argument("--vcd", help="pysim backend only: write a waveform file")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    with cli_errors("sim.render"):
        if args.cores < 1:
            raise SystemExit("sim.render: --cores must be at least 1")
        if args.vcd and not (args.engine == "rtl" and args.backend == "pysim"):
            raise SystemExit("sim.render: --vcd needs --engine rtl --backend pysim")
        from sim.image import words_to_rgb, write_image
        scene = load_any_scene(args.scene)
        progress = None
        if args.engine == "rtl" and not args.quiet:
            progress = ProgressBar(scene.width * scene.height)
        try:
            omem, stats = render(scene, args.engine, args.cores, args.jobs, args.backend,
                                 args.vcd, progress)
        except ImportError as e:
            raise SystemExit(f"sim.render: the rtl engine's {args.backend} backend is not "
                             f"available ({e})") from None
        finally:
            if progress:
                progress.close()
        write_image(args.out, words_to_rgb(omem, scene.width, scene.height))
        cycles = f", {stats['cycles']:,} cycles" if stats.get("cycles") else ""
        print(f"{args.out}: {scene.width}x{scene.height}, {stats['pixels']} pixels, "
              f"{stats['instructions']:,} instructions{cycles}, {stats['wall_s']} s",
              file=sys.stderr)
        if args.stats:
            with open(args.stats, "w") as f:
                json.dump(stats, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
