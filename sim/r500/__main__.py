"""``python -m sim.r500 run JOB.json --engine model|rtl [--backend fast|pysim] [--vcd FILE]``:
one quad, its answer as JSON (r500-us.md §4.3). The rtl engine runs the R500 core's RTL: by
default compiled (Verilator) and cached, else in Amaranth's simulator, which can write a VCD.
Exit status: 0 done, 1 the quad stopped with an error (the answer says which), 2 a malformed
job or command line (one line on stderr)."""

import argparse
import json
import os
import sys

from sim.r500.job import JobError, run_job

ENGINES = ("model", "rtl")
BACKENDS = ("fast", "pysim")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m sim.r500",
                                     description="Run R500 fragment-shader quads.")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run one quad of a JSON job and print the answer")
    run.add_argument("job", help="the job file (JSON, r500-us.md §4.3)")
    run.add_argument("--engine", choices=ENGINES, default="model",
                     help="the executable model (default) or the RTL core")
    run.add_argument("--backend", choices=BACKENDS, default="fast",
                     help="rtl only: fast (compiled, cached; default) or pysim (Amaranth's "
                          "simulator)")
    run.add_argument("--vcd", help="rtl with --backend pysim only: write a waveform file")
    args = parser.parse_args(argv)
    if args.vcd and not (args.engine == "rtl" and args.backend == "pysim"):
        print("python -m sim.r500: --vcd needs --engine rtl --backend pysim", file=sys.stderr)
        return 2
    try:
        result, status = run_job(args.job, args.engine, args.backend, args.vcd)
    except JobError as error:
        print(f"python -m sim.r500: {error}", file=sys.stderr)
        return 2
    _print_answer(format_answer(result))
    return status


def _print_answer(text):
    try:
        print(text, flush=True)
    except BrokenPipeError:
        # the reader stopped early (e.g. ``| head``): nothing more to say, and no traceback
        # when Python flushes stdout at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def format_answer(result):
    """The answer as JSON with one line per lane."""
    lanes = ",\n  ".join(json.dumps(lane) for lane in result["lanes"])
    rest = ", ".join(f"{json.dumps(key)}: {json.dumps(value)}"
                     for key, value in result.items() if key != "lanes")
    return f'{{"lanes": [\n  {lanes}],\n {rest}}}'


if __name__ == "__main__":
    sys.exit(main())
