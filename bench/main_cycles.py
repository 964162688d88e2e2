"""Cycles of one MAIN call (one ray-triangle test) on the RTL core, miss path and hit path.

    python -m bench.main_cycles --scene ../shared/scenes/theia-2010/example3 [--samples 200]
                                [--seed 1] [--config NAME] [--json [FILE]]

The reference model renders up to a pixel as the control unit would (configuration rows, the
pixel's band rows, INITIAL, CPPU, USERCONSTANTS, then RGU for the pixel), the triangle is
streamed into the swap bank and flipped in, and that register state is copied into the RTL core
(testbench backdoor into the register memory). MAIN (entry 11) then runs on the core in
Amaranth's simulator and its ``cycles`` counter is read; the registers after MAIN are checked
against the model's, bit for bit.

Reported: one miss and one hit at the image's centre pixel, then ``--samples`` random
(pixel, triangle) pairs: the model's hit ratio over them and over a larger model-only sample,
the RTL's mean cycles of misses and of hits (hits are topped up with random hitting pairs so
that both means rest on data), and their mean weighted by the model's hit ratio, next to the
original THEIA's 272 cycles per ray-triangle test. Prints JSON (``--json FILE`` also writes it).
``--config``: whose core (a preset of hdl/config.py, default ``default``; ``ulx3s`` is the
board's: no forwarding into the ALU). A core that shares a divider runs with that divider, its
other client idle (``sim.core_pysim.core_top``).
"""

import argparse
import json
import random
import sys
import time

from hdl.config import PRESET_NAMES, preset
from hdl.isa import ENTRY_INDEX, NUM_REGS, BANK_OUTPUT, ONE, reg
from sim.core_pysim import (MemoryModel, core_under_test, poke_code, poke_register,
                             read_registers, run_routine, simulate)
from sim.errors import cli_errors

ORIGINAL_CYCLES_PER_TEST = 272
MAIN = ENTRY_INDEX["MAIN"]
PIXEL_2D_POSITION = reg("CREG_PIXEL_2D_POSITION")


class ModelFrame:
    """The reference model of one core, set up for a scene, that can be put at any pixel."""

    def __init__(self, scene):
        from firmware.rom import default_rom
        from sim.model import Core as ModelCore, DEFAULT_LIMITS
        from sim.sequencer import configure_core
        self.scene = scene
        self.rom = default_rom()
        tmem_words = max(DEFAULT_LIMITS["tmem_words"], len(scene.texture))
        self.tmem = list(scene.texture) + [0] * (tmem_words - len(scene.texture))
        self.core = ModelCore(self.rom, scene.user_code, tmem=self.tmem,
                              omem=[0] * (3 * scene.width * scene.height))
        configure_core(self.core, scene)
        self._pixel_state = {}

    def band_of(self, y):
        for initial, final in self.scene.bands:
            if initial[1] <= y * ONE < final[1]:
                return initial, final
        return self.scene.bands[-1]

    def at_pixel(self, x, y):
        """Registers (EXE view) and IO swap copy after RGU of pixel (x, y)."""
        key = (x, y)
        if key not in self._pixel_state:
            from sim.sequencer import INITIAL, CPPU, USERCONSTANTS, RGU
            core = self.core
            initial, final = self.band_of(y)
            core.write_config(6, initial)
            core.write_config(7, final)
            for routine in (INITIAL, CPPU, USERCONSTANTS):
                core.run_routine(routine)
            core.regs[PIXEL_2D_POSITION] = (x * ONE, y * ONE, 0)
            core.run_routine(RGU)
            self._pixel_state[key] = (list(core.regs), list(core.swap_io))
        return self._pixel_state[key]

    def main_case(self, x, y, t):
        """(registers before MAIN, registers after MAIN, hit) for triangle t at pixel (x, y)."""
        from sim.sequencer import TRIANGLE_ROWS
        core = self.core
        regs, swap_io = self.at_pixel(x, y)
        core.regs, core.swap_io = list(regs), list(swap_io)
        for row, value in zip(TRIANGLE_ROWS, self.scene.triangles[t]):
            core.write_swap(row, value)
        core.flip()
        before = list(core.regs)
        hit = core.run_routine(MAIN)
        return before, list(core.regs), hit


def rtl_main_cycles(frame, cases, config):
    """Run MAIN on the RTL core of ``config`` (a ``hdl.config.CoreConfig``) for each (registers
    before, registers after) case; return the cycle counts, checking every register against
    the model's after each run."""
    scene = frame.scene
    # (with its divider when it shares one, the other client idle)
    core = core_under_test(frame.rom, config, tmem_words=len(frame.tmem),
                           omem_words=3 * scene.width * scene.height)
    cycles = []
    memories = MemoryModel(frame.tmem, omem_words=3 * scene.width * scene.height)

    async def testbench(ctx):
        if scene.user_code:
            poke_code(ctx, core, scene.user_code)
        for before, after in cases:
            for addr in range(BANK_OUTPUT.first):
                poke_register(ctx, core, addr, before[addr])
            run = await run_routine(ctx, core, entry=MAIN, max_cycles=100_000)
            if run.error:
                raise RuntimeError(f"MAIN on the RTL core: {run.error}")
            regs = read_registers(ctx, core)
            wrong = [a for a in range(NUM_REGS) if tuple(regs[a]) != tuple(after[a])]
            if wrong:
                raise RuntimeError(f"RTL and model registers differ after MAIN: {wrong[:8]}")
            cycles.append(run.cycles)

    simulate(core, testbench, memories)
    return cycles


def mean(values):
    return sum(values) / len(values) if values else None


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.main_cycles",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--scene", required=True, help="scene directory (theia-2010 format)")
    parser.add_argument("--samples", type=int, default=200,
                        help="random (pixel, triangle) pairs run on the RTL core (default 200)")
    parser.add_argument("--model-samples", type=int, default=20_000,
                        help="pairs run on the model only, for the hit ratio (default 20000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--config", default="default", choices=PRESET_NAMES,
                        help="whose core: a preset of hdl/config.py (default 'default')")
    parser.add_argument("--json", nargs="?", const="-", metavar="FILE",
                        help="print JSON only (and write it to FILE if given)")
    args = parser.parse_args(argv)
    with cli_errors("bench.main_cycles"):
        from sim.scene import load_scene
        scene = load_scene(args.scene)
        started = time.perf_counter()
        frame = ModelFrame(scene)
        rng = random.Random(args.seed)

        def random_pair():
            return (rng.randrange(scene.width), rng.randrange(scene.height),
                    rng.randrange(len(scene.triangles)))

        # the centre pixel: its first missing and first hitting triangle
        cx, cy = scene.width // 2, scene.height // 2
        centre = {}
        for t in range(len(scene.triangles)):
            before, after, hit = frame.main_case(cx, cy, t)
            key = "hit" if hit else "miss"
            centre.setdefault(key, (t, before, after))
            if len(centre) == 2:
                break

        # the model's hit ratio over many random pairs
        model_hits = sum(frame.main_case(*random_pair())[2] for _ in range(args.model_samples))
        hit_ratio = model_hits / args.model_samples if args.model_samples else None

        sample = [random_pair() for _ in range(args.samples)]
        sample_cases = [frame.main_case(*p) for p in sample]
        sample_hits = sum(hit for _, _, hit in sample_cases)
        # top up the hits so that their mean rests on enough runs
        extra_hits, tries = [], 0
        want = max(0, min(args.samples // 4, 50) - sample_hits)
        while len(extra_hits) < want and tries < 200_000:
            tries += 1
            case = frame.main_case(*random_pair())
            if case[2]:
                extra_hits.append(case)

        cases = [(before, after) for _, (before, after) in
                 ((k, centre[k][1:]) for k in ("miss", "hit") if k in centre)]
        cases += [(b, a) for b, a, _ in sample_cases + extra_hits]
        cycles = rtl_main_cycles(frame, cases, preset(args.config).core)
        n_centre = len(cases) - len(sample_cases) - len(extra_hits)
        centre_cycles = dict(zip([k for k in ("miss", "hit") if k in centre], cycles[:n_centre]))
        sample_cycles = cycles[n_centre:n_centre + len(sample_cases)]
        extra_cycles = cycles[n_centre + len(sample_cases):]
        miss_cycles = [c for c, (_, _, hit) in zip(sample_cycles, sample_cases) if not hit]
        hit_cycles = [c for c, (_, _, hit) in zip(sample_cycles, sample_cases) if hit] + \
            extra_cycles
        ratio = hit_ratio if hit_ratio is not None else sample_hits / max(1, args.samples)
        weighted = None
        if miss_cycles and hit_cycles:
            weighted = ratio * mean(hit_cycles) + (1 - ratio) * mean(miss_cycles)
        elif miss_cycles:
            weighted = mean(miss_cycles)
        result = {
            "scene": str(args.scene), "config": args.config,
            "centre_pixel": [cx, cy],
            "centre_miss": {"triangle": centre["miss"][0], "cycles": centre_cycles["miss"]}
            if "miss" in centre else None,
            "centre_hit": {"triangle": centre["hit"][0], "cycles": centre_cycles["hit"]}
            if "hit" in centre else None,
            "samples": args.samples,
            "sample_hits": sample_hits,
            "extra_hit_pairs": len(extra_hits),
            "model_samples": args.model_samples,
            "model_hit_ratio": round(ratio, 5),
            "miss_cycles": {"mean": mean(miss_cycles), "min": min(miss_cycles, default=None),
                            "max": max(miss_cycles, default=None), "runs": len(miss_cycles)},
            "hit_cycles": {"mean": mean(hit_cycles), "min": min(hit_cycles, default=None),
                           "max": max(hit_cycles, default=None), "runs": len(hit_cycles)},
            "weighted_cycles_per_test": round(weighted, 2) if weighted is not None else None,
            "original_cycles_per_test": ORIGINAL_CYCLES_PER_TEST,
            "speedup_vs_original": round(ORIGINAL_CYCLES_PER_TEST / weighted, 2)
            if weighted else None,
            "seconds": round(time.perf_counter() - started, 1),
        }
    text = json.dumps(result, indent=2)
    if args.json not in (None, "-"):
        with open(args.json, "w") as f:
            f.write(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
