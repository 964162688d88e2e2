"""``python -m sim.r500 run JOB.json --engine model|rtl``: one quad, its answer as JSON
(r500-us.md §4.3). Exit status: 0 done, 1 the quad stopped with an error (the answer says
which), 2 a malformed job or command line (one line on stderr)."""

import argparse
import json
import sys

from sim.r500.job import JobError, run_job

ENGINES = ("model", "rtl")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m sim.r500",
                                     description="Run R500 fragment-shader quads.")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run one quad of a JSON job and print the answer")
    run.add_argument("job", help="the job file (JSON, r500-us.md §4.3)")
    run.add_argument("--engine", choices=ENGINES, default="model",
                     help="the executable model (default) or the RTL core")
    args = parser.parse_args(argv)
    if args.engine == "rtl":
        print("python -m sim.r500: the RTL engine is not built yet (use --engine model)",
              file=sys.stderr)
        return 2
    try:
        result, status = run_job(args.job)
    except JobError as error:
        print(f"python -m sim.r500: {error}", file=sys.stderr)
        return 2
    print(format_answer(result))
    return status


def format_answer(result):
    """The answer as JSON with one line per lane."""
    lanes = ",\n  ".join(json.dumps(lane) for lane in result["lanes"])
    rest = ", ".join(f"{json.dumps(key)}: {json.dumps(value)}"
                     for key, value in result.items() if key != "lanes")
    return f'{{"lanes": [\n  {lanes}],\n {rest}}}'


if __name__ == "__main__":
    sys.exit(main())
