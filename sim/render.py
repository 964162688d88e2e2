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


def render(scene, engine="model", cores=1, jobs=None):
    """Render ``scene``; return (output words, stats dict)."""
    if engine != "model":
        raise NotImplementedError(f"the '{engine}' engine does not exist yet (only 'model')")
    from firmware.rom import default_rom
    from sim.sequencer import render_model
    start = time.monotonic()
    omem, bands, routines = render_model(scene, default_rom(), cores=cores, jobs=jobs)
    stats = {
        "engine": engine,
        "cores": cores,
        "wall_s": round(time.monotonic() - start, 3),
        "instructions": sum(b.instructions for b in bands),
        "cycles": None,
        "pixels": sum(b.pixels for b in bands),
        "routine_instructions": routines,
    }
    return omem, stats


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m sim.render", description=__doc__.splitlines()[0])
    parser.add_argument("scene", help="scene directory (theia-2010 format) or 'demo'")
    parser.add_argument("--engine", default="model", help="model (reference model); rtl comes later")
    parser.add_argument("--out", required=True, help="output image, .ppm or .png")
    parser.add_argument("--cores", type=int, default=1, help="number of cores (bands are shared out)")
    parser.add_argument("--jobs", type=int, default=None, help="host processes (default: all CPUs)")
    parser.add_argument("--stats", help="write render statistics as JSON to this file")
    args = parser.parse_args(argv)
    with cli_errors("sim.render"):
        if args.engine != "model":
            raise SystemExit(f"sim.render: engine '{args.engine}' is not available yet; use --engine model")
        if args.cores < 1:
            raise SystemExit("sim.render: --cores must be at least 1")
        from sim.image import words_to_rgb, write_image
        scene = load_any_scene(args.scene)
        omem, stats = render(scene, args.engine, args.cores, args.jobs)
        write_image(args.out, words_to_rgb(omem, scene.width, scene.height))
        print(f"{args.out}: {scene.width}x{scene.height}, {stats['pixels']} pixels, "
              f"{stats['instructions']:,} instructions, {stats['wall_s']} s", file=sys.stderr)
        if args.stats:
            with open(args.stats, "w") as f:
                json.dump(stats, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
