"""Cycles per second of the fast simulation backend (sim/fast/).

    python -m bench.fast_sim [--backend verilator|cxxrtl] [--config NAME] [--cores N]
                             [--workload gpu|core] [--iterations N] [--size S]

Workloads: ``core``: one core of the preset (``--config``, hdl/config.py) running a long loop
(ADD, MUL, DOT, CROSS, DIV and the loop counter per iteration; texture/output memories served in
C++); ``gpu`` (the default): a frame of the demo scene (``--size``) on the preset's Gpu
(``--cores`` overrides its core count) through the host bus.

Prints one JSON object: {backend, workload, config, cores, cycles, wall_s, cpu_s, cycles_per_s,
cycles_per_cpu_s, build_s, prepare_s}. ``build_s`` is the time the (cached) build took when it
was made; ``prepare_s`` is this run's elaboration + cache look-up (or build). The machine may be
shared: ``cycles_per_cpu_s`` (process CPU time) is the steadier figure.
"""

import argparse
import json
import sys
import time

from hdl.config import PRESET_NAMES, preset
from sim.errors import cli_errors
from sim.fast.build import BACKENDS, DEFAULT_BACKEND

LOOP = """
    SETX R1 0
    SETX R3 1
    SETX R2 {n}
    SETX R4 3.0
    SETY R4 2.0
    SETZ R4 0.5
LOOP:
    ADD R5 R4 R4
    MUL R6 R4 R4
    DOT R7 R4 R4
    CROSS R8 R4 R4
    ADD R1 R1 R3
    DIV R9 R4 R4
    JLX LOOP R1 R2
    RETURN RT_TRUE
"""


def bench_core(backend, config, iterations):
    import numpy as np
    from firmware.asm import assemble
    from firmware.rom import default_rom
    from sim.core_pysim import core_under_test
    from sim.fast.driver import FastSim, Design

    program = assemble(LOOP.format(n=iterations), "<loop>")
    start = time.monotonic()
    sim = FastSim(Design(core_under_test, default_rom(), config.core, tmem_words=4096,
                         omem_words=4096), backend=backend)
    prepare_s = time.monotonic() - start
    sim.serve_reads("tm_req", "tm_resp", np.zeros(4096, dtype=np.uint32))
    sim.serve_writes("om_req", np.zeros(4096, dtype=np.uint32))
    sim.start_program(program.words)
    wall, cpu = time.monotonic(), time.process_time()
    cycles = sim.run_until(["done", "error"], 50 * iterations + 1000)
    wall, cpu = time.monotonic() - wall, time.process_time() - cpu
    if not sim.get("done"):
        raise SystemExit("bench.fast_sim: the loop program did not finish")
    return cycles, wall, cpu, sim.build_info, prepare_s


def bench_gpu(backend, config, size):
    from firmware.rom import default_rom
    from sim.demo_scene import demo_scene
    from sim.fast.driver import FastSim
    from sim.fast.gpu import render_gpu_fast, gpu_design

    scene = demo_scene(size=size, bands=max(config.cores, 4), texture_size=64)
    start = time.monotonic()
    sim = FastSim(gpu_design(default_rom(), config, scene), backend=backend)
    prepare_s = time.monotonic() - start
    cpu = time.process_time()
    _, stats = render_gpu_fast(scene, default_rom(), config, sim=sim, max_cycles=100_000_000)
    cpu = time.process_time() - cpu
    return sim.cycles, stats["wall_s"], cpu, sim.build_info, prepare_s


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.fast_sim",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=BACKENDS, default=DEFAULT_BACKEND)
    parser.add_argument("--config", default="default", choices=PRESET_NAMES,
                        help="the GPU's preset (hdl/config.py; default 'default')")
    parser.add_argument("--cores", type=int, default=None,
                        help="GPU cores (gpu workload; default: the preset's)")
    parser.add_argument("--workload", choices=("gpu", "core"), default="gpu")
    parser.add_argument("--iterations", type=int, default=200_000,
                        help="loop iterations (core workload; ~26 cycles each)")
    parser.add_argument("--size", type=int, default=32, help="demo scene size (gpu workload)")
    args = parser.parse_args(argv)
    if args.cores is not None and args.cores < 1:
        parser.error("--cores must be at least 1")
    config = preset(args.config, **({"cores": args.cores} if args.cores else {}))
    workload = args.workload
    with cli_errors("bench.fast_sim"):
        if workload == "gpu":
            cycles, wall, cpu, info, prepare_s = bench_gpu(args.backend, config, args.size)
        else:
            cycles, wall, cpu, info, prepare_s = bench_core(args.backend, config,
                                                            args.iterations)
    print(json.dumps({
        "backend": args.backend, "workload": workload, "config": args.config,
        "cores": config.cores if workload == "gpu" else None,
        "cycles": int(cycles), "wall_s": round(wall, 3), "cpu_s": round(cpu, 3),
        "cycles_per_s": round(cycles / wall) if wall else None,
        "cycles_per_cpu_s": round(cycles / cpu) if cpu else None,
        "build_s": info.build_s, "prepare_s": round(prepare_s, 2), "cached": info.cached,
    }, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
