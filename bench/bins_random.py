"""Random scenes: does every bin hold every triangle the model's test accepts?

    python -m bench.bins_random --scenes 200 --seed 0 [--size 12] [--triangles 14] [--rtl]

For the scenes of seeds S, S+1, … (``sim.random_scene``: triangles behind the camera, crossing
its plane, degenerate, tiny and huge among ordinary ones) runs the whole unbinned test on the
model (``sim.bins.missing_hits``) and prints one JSON object:

    {"scenes": 200, "seed": 0, "pixels": 28800, "tests_full": 403200, "tests_binned": 91000,
     "missing": 0, "wall_s": 310.2}

``missing`` counts (pixel, triangle) pairs the test accepts that a bin left out (each goes to
stderr with its seed). With ``--rtl`` each scene is also rendered binned on the RTL GPU (fast
backend, the ``default`` preset: one compiled model for every scene) and compared with the
model's unbinned frame: ``rtl_frames``, ``rtl_mismatches`` (frames not identical, or whose
test count is not the model's binned one). The exit status is 1 if anything is missing or
mismatched.
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
    parser.add_argument("--rtl", action="store_true",
                        help="also render each scene binned on the RTL and compare")
    args = parser.parse_args(argv)
    start = time.monotonic()
    totals = {"pixels": 0, "tests_full": 0, "tests_binned": 0, "missing": 0}
    rtl = _RtlFrames() if args.rtl else None
    if rtl:
        totals.update(rtl_frames=0, rtl_mismatches=0)
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
        if rtl:
            totals["rtl_frames"] += 1
            if not rtl.matches(scene, bins):
                print(f"seed {seed}: the binned RTL frame differs", file=sys.stderr)
                totals["rtl_mismatches"] += 1
    print(json.dumps({"scenes": args.scenes, "seed": args.seed, **totals,
                      "wall_s": round(time.monotonic() - start, 1)}))
    return 1 if totals["missing"] or totals.get("rtl_mismatches") else 0


class _RtlFrames:
    """One compiled GPU (the ``default`` preset) rendering scene after scene, binned."""

    def __init__(self):
        from firmware.rom import default_rom
        from hdl.config import preset
        self.rom, self.config, self.sim = default_rom(), preset("default"), None

    def matches(self, scene, bins):
        from sim.fast import FastSim
        from sim.fast.gpu import gpu_design, render_gpu_fast
        from sim.sequencer import render_model
        if self.sim is None:
            self.sim = FastSim(gpu_design(self.rom, self.config, scene, bins))
        plain, _, _ = render_model(scene, self.rom, jobs=1)
        _, binned, _ = render_model(scene, self.rom, jobs=1, bins=bins)
        omem, stats = render_gpu_fast(scene, self.rom, self.config, sim=self.sim)
        return (stats["binning"] and omem == plain
                and stats["tests"] == sum(r.tests for r in binned))


if __name__ == "__main__":
    sys.exit(main())
