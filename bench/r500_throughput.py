"""Cycles per quad-instruction of the R500 core, independent and dependent, by opcode class.

    python -m bench.r500_throughput [--instructions 64] [--quads N]

Runs, on the R500 job top in the fast simulator (hdl/gpu/r500_top.py), programs of
``--instructions`` instructions of one class: *independent* (every instruction reads the
inputs and writes a temporary of its own) and *dependent* (every instruction reads the one
before). ``--quads`` quads (default: the core's contexts, all of them busy) run the program at
once; the figure is the cycles from their launch until the last one ends, over quads ×
instructions. The target (issue 22): a quad instruction every 4 cycles independent (one
pixel-instruction per cycle), every 8 cycles dependent; one quad alone is also measured
(``single``: the pipeline's latency, which several quads hide). Prints one JSON object:

    {"contexts": 8, "quads": 8, "instructions": 64, "target": {...},
     "classes": {"MAD": {"independent": 4.05, "dependent": 4.1, "single_dependent": 36.0}, ...}}
"""

import argparse
import json
import random
import time

from hdl.gpu.address_map import R5Area, R5Reg, Region, host_address, r500_address
from host.port import BlockingPort, run_blocking
from host.r500_job import launch_quad, load_quad
from host.r500_state import r500_load_runs, shading_state
from firmware.r500asm import assemble
from sim.r500 import fp32
from sim.r500.job import Job
from sim.r500.quad import LaneInput
from sim.r500.rtl import THROUGHPUT_TOP, QuadRunner
from sim.r500.tex import Sampler

TARGET = {"independent": 4, "dependent": 8}
FIRST_OUTPUT = 10           # the temporaries the programs write start here


def _alu_class(rgb, alpha):
    """Instructions of one class, in assembly: ``rgb`` and ``alpha`` the two operations on
    src0 (the source temporary), src1 and src2 (temporaries 2 and 3)."""
    def instruction(source, dest):
        return (f"src0.rgb = temp[{source}], src1.rgb = temp[2], src2.rgb = temp[3], "
                f"src0.a = temp[{source}], src1.a = temp[2], src2.a = temp[3] : "
                f"temp[{dest}].rgb = {rgb}, temp[{dest}].a = {alpha} ;")
    return instruction


def _tex(source, dest):
    return f"TEX temp[{dest}].rgba = LD tex[0].rgba temp[{source}].rgba ;"


CLASSES = {
    "MAD": _alu_class("MAD src0.rgb src1.rgb src2.rgb", "MAD src0.a src1.a src2.a"),
    "DP3": _alu_class("DP3 src0.rgb src1.rgb", "DP"),
    "DP4": _alu_class("DP4 src0.rgb src1.rgb", "DP"),
    "CMP": _alu_class("CMP src0.rgb src1.rgb src2.rgb", "CMP src0.a src1.a src2.a"),
    "FRC": _alu_class("FRC src0.rgb", "FRC src0.a"),
    "SFU": _alu_class("MAX src0.rgb src1.rgb", "RSQ src0.a"),
    "MDH": _alu_class("MDH src0.rgb src1.rgb src2.rgb", "MDV src0.a src1.a src2.a"),
    "TEX": _tex,
}


def program(make, count, dependent):
    """``count`` instructions of one class, writing temporaries FIRST_OUTPUT... in turn; each
    reads temporary 1 (independent) or what the one before wrote (dependent)."""
    span = 128 - FIRST_OUTPUT
    text = "\n".join(make(FIRST_OUTPUT + (k - 1) % span if dependent and k else 1,
                          FIRST_OUTPUT + k % span) for k in range(count))
    return list(assemble(text).words)


def job(words, seed=0):
    rng = random.Random(seed)
    value = lambda: fp32.from_float(rng.uniform(0.25, 0.75))
    lanes = [LaneInput({t: [value() for _ in range(4)] for t in (1, 2, 3)}) for _ in range(4)]
    texture = [rng.randrange(256) << 9 for _ in range(3 * 16 * 16)]
    return Job(program=words, lanes=lanes, texture=texture,
               samplers={0: Sampler(0, 16, 16, "bilinear")})


def measure(runner, j, quads):
    """Cycles from launching ``quads`` copies of the job until the last one ends."""
    port = BlockingPort(runner.host)

    async def sequence():
        for address, words in r500_load_runs(shading_state(j, len(j.texture))):
            await port.write(address, words)
        await port.write(host_address(Region.TEXTURE), list(j.texture))
        lanes = [(lane.temps, lane.covered) for lane in j.lanes]
        for context in range(quads):
            await load_quad(port, lanes, context)
        for context in range(quads):
            await launch_quad(port, lanes, context)
        for context in range(quads):          # (CONTEXT picks whose end STATUS shows)
            await port.write(r500_address(R5Area.REGS, R5Reg.CONTEXT), [context])
            await port.wait_frame()
        return (await port.read(r500_address(R5Area.REGS, R5Reg.CYCLES), 1))[0]

    return run_blocking(sequence())


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.r500_throughput",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--instructions", type=int, default=64)
    parser.add_argument("--quads", type=int, default=THROUGHPUT_TOP.contexts)
    args = parser.parse_args(argv)
    if not 1 <= args.quads <= THROUGHPUT_TOP.contexts:
        raise SystemExit(f"bench.r500_throughput: --quads must be 1 to {THROUGHPUT_TOP.contexts}")
    started = time.monotonic()
    runner = QuadRunner(THROUGHPUT_TOP)
    n = args.instructions
    classes = {}
    for name, make in CLASSES.items():
        figures = {}
        for kind in ("independent", "dependent"):
            words = program(make, n, kind == "dependent")
            cycles = measure(runner, job(words), args.quads)
            figures[kind] = round(cycles / (args.quads * n), 2)
        figures["single_dependent"] = round(measure(runner, job(program(make, n, True)), 1) / n,
                                            2)
        classes[name] = figures
    print(json.dumps({"contexts": THROUGHPUT_TOP.contexts, "quads": args.quads, "instructions": n,
                      "target": TARGET, "classes": classes,
                      "wall_s": round(time.monotonic() - started, 1)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
