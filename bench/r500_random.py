"""Random R500 programs on an engine, checked against the model.

    python -m bench.r500_random --programs 200 --seed 0 [--engine model] [--temporaries 128]

Runs ``--programs`` random jobs (``sim.r500.random_program.random_job`` of the seeds S, S+1, …,
for a core of ``--temporaries`` temporaries) on the engine and prints one JSON object:

    {"programs": 200, "seed": 0, "engine": "model", "errors": {"illegal instruction": 1, …},
     "instructions": 9120, "mismatches": null, "wall_s": 4.1}

``errors`` counts the jobs that stopped with each error of §4.3 (every kind listed),
``instructions`` the instructions the engine executed in all. On an engine other than the model
every job also runs on the model and the two results are compared
(``sim.r500.compare``): ``mismatches`` counts the jobs that differ (their first
differences go to stderr, with the seed) and the exit status is 1 if any does; on the model
alone ``mismatches`` is null. ``wall_s`` is the whole run's time.
"""

import argparse
import importlib
import json
import sys
import time

from hdl.isa import R500_TEMPS
from sim.r500.errors import QuadErrorCode
from sim.r500.compare import compare
from sim.r500.random_program import random_job

#: engine name -> "module:function": a function that takes a ``sim.r500.job.Job`` and returns
#: its ``QuadResult``.
ENGINES = {
    "model": "sim.r500.job:Job.run",
    "rtl": "sim.r500.rtl:run_result",
}

SHOWN_DIFFERENCES = 5


def engine_function(name):
    module, _, path = ENGINES[name].partition(":")
    function = importlib.import_module(module)
    for attribute in path.split("."):
        function = getattr(function, attribute)
    return function


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.r500_random",
                                     description="Random R500 programs on an engine.")
    parser.add_argument("--programs", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0, help="the first job's seed")
    parser.add_argument("--engine", choices=sorted(ENGINES), default="model")
    parser.add_argument("--temporaries", type=int, default=R500_TEMPS,
                        help="the core's temporaries (4 … 128)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    run = engine_function(args.engine)
    reference = None if args.engine == "model" else engine_function("model")
    errors = {code.value: 0 for code in QuadErrorCode}
    instructions, mismatches = 0, 0
    for seed in range(args.seed, args.seed + args.programs):
        job = random_job(seed, temporaries=args.temporaries)
        result = run(job)
        instructions += result.instructions
        if result.error is not None:
            errors[result.error.code.value] += 1
        if reference is not None:
            differences = compare(reference(job), result, ("model", args.engine))
            if differences:
                mismatches += 1
                shown = differences[:SHOWN_DIFFERENCES]
                more = len(differences) - len(shown)
                print(f"seed {seed}: " + "; ".join(shown) + (f" (+{more} more)" if more else ""),
                      file=sys.stderr)
    print(json.dumps({"programs": args.programs, "seed": args.seed, "engine": args.engine,
                      "errors": errors, "instructions": instructions,
                      "mismatches": None if reference is None else mismatches,
                      "wall_s": round(time.perf_counter() - started, 3)}))
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
