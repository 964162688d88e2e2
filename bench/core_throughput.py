"""Issue rate of the RTL core for independent instructions of each latency class.

    python -m bench.core_throughput [--config NAME] [--n 200] [--ops ADD,MUL,...] [--json out.json]

For each opcode a block of N and one of 2N independent instructions (destinations rotating over
45 registers, sources two registers the block never writes) runs on the RTL core of the preset
(``--config``, hdl/config.py; default ``full``) in Amaranth's simulator; ``(cycles(2N) - cycles(N)) / N`` is the cost of one more instruction, without the
start-up and the drain of the pipeline. A core that issues one instruction per cycle whatever
the latency gives 1.0; the requirement is <= 1.5. Prints one JSON object
``{op: {"n", "cycles_n", "cycles_2n", "cycles_per_instruction"}}`` (also written to --json).
"""

import argparse
import dataclasses
import json
import sys
import time

from firmware.asm import assemble
from firmware.rom import default_rom
from hdl.config import PRESET_NAMES, preset
from hdl.isa import USER_CODE_START, reg
from sim.core_pysim import core_under_test, poke_code, poke_register, run_routine, simulate

OPS = ("ADD", "MUL", "DOT", "CROSS", "DIV", "MAG")
LIMIT = 1.5
#: the block writes these (45 registers: more than the longest latency, so no WAW stall)
DESTINATIONS = tuple(range(83, 128))
SOURCES = (reg("R1"), reg("R2"))


def block(op, n):
    lines = [f"{op} {DESTINATIONS[i % len(DESTINATIONS)]} R1 R2" for i in range(n)]
    return assemble("\n".join(lines + ["RETURN RT_TRUE"]), f"<{op} x {n}>")


def measure(op, n, config):
    """(cycles of N, cycles of 2N) for ``op`` on a core of ``config`` (a CoreConfig): both
    blocks in one simulation."""
    core = core_under_test(default_rom(), dataclasses.replace(config, user_words=2 * n + 16),
                           tmem_words=16, omem_words=16)
    cycles = []

    async def testbench(ctx):
        poke_register(ctx, core, SOURCES[0], (3 << 17, 5 << 17, 7 << 17))
        poke_register(ctx, core, SOURCES[1], (2 << 17, 0x0000_8000, 0xFFFE_0000))
        for count in (n, 2 * n):
            poke_code(ctx, core, block(op, count).words)
            run = await run_routine(ctx, core, pc=USER_CODE_START, max_cycles=100 * count)
            if run.error:
                raise RuntimeError(f"{op} x {count}: {run.error}")
            cycles.append(run.cycles)

    simulate(core, testbench)
    return cycles


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.core_throughput",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="full", choices=PRESET_NAMES,
                        help="whose core (default 'full': every unit at full throughput)")
    parser.add_argument("--n", type=int, default=200, help="block length N (default 200)")
    parser.add_argument("--ops", default=",".join(OPS), help="comma-separated opcodes")
    parser.add_argument("--json", metavar="FILE", help="also write the result here")
    args = parser.parse_args(argv)
    if args.n < 1:
        parser.error("--n must be at least 1")
    ops = [op.strip().upper() for op in args.ops.split(",") if op.strip()]
    unknown = [op for op in ops if op not in OPS]
    if unknown:
        parser.error(f"unknown op(s) {', '.join(unknown)}; choose from {', '.join(OPS)}")
    result = {}
    for op in ops:
        start = time.perf_counter()
        cycles_n, cycles_2n = measure(op, args.n, preset(args.config).core)
        result[op] = {"n": args.n, "cycles_n": cycles_n, "cycles_2n": cycles_2n,
                      "cycles_per_instruction": round((cycles_2n - cycles_n) / args.n, 4)}
        print(f"{op}: {result[op]['cycles_per_instruction']} cycles/instruction "
              f"({time.perf_counter() - start:.1f} s)", file=sys.stderr)
    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")
    worst = max(r["cycles_per_instruction"] for r in result.values())
    return 0 if worst <= LIMIT else 1


if __name__ == "__main__":
    sys.exit(main())
