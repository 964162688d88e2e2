"""The SDRAM controller on the fast backend: correctness under random traffic and the
bandwidth of the GPU's access patterns.

    python -m bench.sdram [--ops N] [--clock-mhz 75] [--chip NAME] [--json]

Builds (or finds cached) the arbiter + controller + PHY (sim/sdram/top.py) for ``--chip``
(default the ULX3S envelope, hdl/mem/sdram_chip.py) at ``--clock-mhz``, with the chip model
(sim/sdram/model.py) on its pins checking every command, preloaded with a random image.

* mixed: ``--ops`` requests on the four ports at once, each with the pattern of its requester
  on the board (scan-out: 16-word reads front to back over a 640x480 frame; texture fills:
  8-word lines anywhere; frame writes: 16-word writes front to back over the same frame; host:
  1-16 words, reads and writes, anywhere), read words taken in 70 % of the cycles; every read
  word is compared with a dictionary of the memory replayed in grant order.
* bandwidth: each pattern alone on one port (min(``--ops``, 20000) requests, read words taken
  at once): MB/s at the clock, beside the peak (clock x 2 bytes). Refreshes and row changes
  are in the figures.

``wall_s`` and ``cpu_s`` (this process's CPU time: the steadier figure on a shared machine)
of the mixed run; docs/sdram.md has the figures.

Exit status 1 on a mismatch or a rule the model saw broken (the message names it).
"""

import argparse
import json
import random
import subprocess
import sys
import time

from hdl.mem.sdram_chip import PARTS, ULX3S_SDRAM, chip_by_name
from sim.errors import cli_errors
from sim.sdram.model import SdramViolation
from sim.sdram.traffic import frame_writes, line_fills, random_requests, random_words, \
    scanout_reads

FRAME_WORDS = 640 * 480
CHUNK = 40_000          # requests per run of the C++ loop (memory for the queues)
BANDWIDTH_OPS = 20_000


#: the bandwidth patterns: name -> (chip, rng, count) -> requests
BANDWIDTH_PATTERNS = {
    "scan-out (16-word reads in order)":
        lambda chip, rng, n: scanout_reads(chip, n, 16, frame_words=FRAME_WORDS),
    "texture fills (8-word lines)": lambda chip, rng, n: line_fills(chip, rng, n, 8),
    "texture fills (16-word lines)": lambda chip, rng, n: line_fills(chip, rng, n, 16),
    "frame writes (16-word writes in order)":
        lambda chip, rng, n: frame_writes(chip, rng, n, frame_words=FRAME_WORDS),
    "random single words (reads)": lambda chip, rng, n: random_words(chip, rng, n, 0.0),
}


def _commit():
    try:
        out = subprocess.run(["git", "describe", "--always", "--dirty"], capture_output=True,
                             text=True, timeout=10)
        return out.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def mixed_run(traffic, chip, ops, seed):
    """``ops`` requests over the four ports in chunks; totals."""
    rng = random.Random(seed)
    done = words = cycles = mismatches = calls = 0
    start, cpu = time.monotonic(), time.process_time()
    while done < ops:
        n = min(CHUNK, ops - done) // 4 or 1
        at = 16 * done // 4
        requests = [scanout_reads(chip, n, 16, at, FRAME_WORDS), line_fills(chip, rng, n, 8),
                    frame_writes(chip, rng, n, 16, at, FRAME_WORDS),
                    random_requests(chip, rng, n, 16, rows_per_bank=64)]
        result = traffic.run(requests)
        done += 4 * n
        words += result.words
        cycles += result.cycles
        mismatches += result.mismatches
        calls += result.model_calls
    return {"requests": done, "words": words, "cycles": cycles, "mismatches": mismatches,
            "model_calls": calls, "wall_s": round(time.monotonic() - start, 1),
            "cpu_s": round(time.process_time() - cpu, 1)}


def bandwidth_run(traffic, chip, pattern, ops, seed, clock_hz):
    requests = BANDWIDTH_PATTERNS[pattern](chip, random.Random(seed), ops)
    result = traffic.run([requests])
    mbps = result.words * chip.data_width / 8 / (result.cycles / clock_hz) / 1e6
    peak = clock_hz * chip.data_width / 8 / 1e6
    return {"pattern": pattern, "requests": ops, "words": result.words,
            "cycles": result.cycles, "MBps": round(mbps, 1), "of_peak": round(mbps / peak, 3),
            "mismatches": result.mismatches}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.sdram",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--ops", type=int, default=20_000,
                        help="requests of the mixed run (default 20000)")
    parser.add_argument("--clock-mhz", type=float, default=75.0)
    parser.add_argument("--chip", default=ULX3S_SDRAM.name, help=", ".join(PARTS))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    from sim.sdram.fast import FastTraffic
    with cli_errors("bench.sdram"):
        chip = chip_by_name(args.chip)
        clock_hz = args.clock_mhz * 1e6
        start = time.monotonic()
        mixed_traffic = FastTraffic(chip, clock_hz, ports=4, ready_share=0.7, seed=args.seed)
        single = FastTraffic(chip, clock_hz, ports=1, seed=args.seed + 1)
        prepare_s = time.monotonic() - start
        report = {"commit": _commit(), "chip": chip.name, "clock_mhz": args.clock_mhz,
                  "peak_MBps": round(clock_hz * chip.data_width / 8 / 1e6, 1),
                  "cas_latency": chip.cas_latency,
                  "phase_deg": mixed_traffic.plan.phase_deg,
                  "violations": 0, "prepare_s": round(prepare_s, 1)}
        try:
            mixed_traffic.wait_initialised()
            single.wait_initialised()
            report["mixed"] = mixed_run(mixed_traffic, chip, args.ops, args.seed)
            report["bandwidth"] = [
                bandwidth_run(single, chip, name, min(args.ops, BANDWIDTH_OPS), args.seed + k,
                              clock_hz) for k, name in enumerate(BANDWIDTH_PATTERNS)]
        except SdramViolation as e:
            report["violations"] = 1
            report["violation"] = str(e)
        report["wall_s"] = round(time.monotonic() - start, 1)
    failed = report["violations"] or report.get("mixed", {}).get("mismatches") or any(
        b["mismatches"] for b in report.get("bandwidth", []))
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        _print_table(report)
    return 1 if failed else 0


def _print_table(report):
    print(f"{report['chip']} at {report['clock_mhz']:g} MHz (CL{report['cas_latency']}, chip "
          f"clock {report['phase_deg']:g} degrees), commit {report['commit']}; peak "
          f"{report['peak_MBps']:g} MB/s")
    if "violation" in report:
        print(f"rule broken: {report['violation']}")
    mixed = report.get("mixed")
    if mixed:
        print(f"mixed: {mixed['requests']} requests, {mixed['words']} words, {mixed['cycles']} "
              f"cycles, {mixed['mismatches']} mismatches, {report['violations']} rule "
              f"violations, {mixed['wall_s']} s ({mixed['cpu_s']} s CPU)")
    for row in report.get("bandwidth", []):
        print(f"  {row['pattern']:40s} {row['MBps']:7.1f} MB/s  {100 * row['of_peak']:5.1f} % "
              f"of peak  ({row['mismatches']} mismatches)")
    print(f"wall {report['wall_s']} s")


if __name__ == "__main__":
    sys.exit(main())
