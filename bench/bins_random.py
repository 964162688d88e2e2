"""Random scenes: does every bin hold every triangle the model's test accepts?

    python -m bench.bins_random --scenes 200 --seed 0 [--size 12] [--triangles 14]

For the scenes of seeds S, S+1, … (``sim.random_scene``: triangles behind the camera, crossing
its plane, degenerate, tiny and huge among ordinary ones) runs the whole unbinned test on the
model (``sim.bins.missing_hits``) and prints one JSON object:

    {"scenes": 200, "seed": 0, "pixels": 28800, "tests_full": 403200, "tests_binned": 91000,
     "missing": 0, "wall_s": 310.2}

``missing`` counts (pixel, triangle) pairs the test accepts that a bin left out (each goes to
stderr with its seed); the exit status is 1 if there is any.
"""

import argparse
import json
import sys
import time

from sim.bins import band_pixels, bin_scene, missing_hits
from sim.random_scene import random_scene


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.bins_random",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--scenes", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--size", type=int, default=12, help="pixels per side")
    parser.add_argument("--triangles", type=int, default=14)
    args = parser.parse_args(argv)
    start = time.monotonic()
    totals = {"pixels": 0, "tests_full": 0, "tests_binned": 0, "missing": 0}
    for seed in range(args.seed, args.seed + args.scenes):
        scene = random_scene(seed, size=args.size, triangles=args.triangles)
        bins = bin_scene(scene)
        pixels = scene.width * scene.height
        totals["pixels"] += pixels
        totals["tests_full"] += pixels * len(scene.triangles)
        totals["tests_binned"] += sum(len(bins.triangles_at(position))
                                      for band in range(len(scene.bands))
                                      for position in band_pixels(scene, band))
        for position, triangle in missing_hits(scene, bins):
            print(f"seed {seed}: pixel {position}: triangle {triangle} left out", file=sys.stderr)
            totals["missing"] += 1
    print(json.dumps({"scenes": args.scenes, "seed": args.seed, **totals,
                      "wall_s": round(time.monotonic() - start, 1)}))
    return 1 if totals["missing"] else 0


if __name__ == "__main__":
    sys.exit(main())
