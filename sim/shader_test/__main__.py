"""``python -m sim.shader_test FILE.shader_test … [--engine model|rtl] [--compare] [--json]``:
run piglit shader_test files on the R500 stage (docs/shader-test.md).

One line per file: ``PASS file``, ``FAIL file: reason``, ``SKIP file: reason`` and a summary;
with ``--json`` one JSON object per file instead, ``{"file": …, "result": "pass"|"fail"|"skip",
"reason": …}``. A malformed file is one line ``file:line: problem`` (on stderr; in --json a
"fail" whose reason is that line). Exit status: 0 when no file failed (skips do not fail),
1 when a file failed, 2 when a file was malformed or the command line was wrong.
"""

import argparse
import json
import os
import sys

from sim.shader_test.engines import ENGINES, EngineUnavailable, make_engine
from sim.shader_test.errors import ShaderTestError
from sim.shader_test.evaluate import DEFAULT_MAX_INSTRUCTIONS, Outcome, run_test

PROG = "python -m sim.shader_test"


def _arguments(argv):
    parser = argparse.ArgumentParser(prog=PROG, description="Run piglit shader_test files on the "
                                                            "R500 fragment stage.")
    parser.add_argument("files", nargs="+", metavar="FILE", help="shader_test files")
    parser.add_argument("--engine", choices=ENGINES, default="model",
                        help="the R500 model (default) or the RTL core (fast simulator)")
    parser.add_argument("--compare", action="store_true",
                        help="also run every quad on the model; a difference fails the file")
    parser.add_argument("--json", action="store_true", help="one JSON object per file")
    parser.add_argument("--max-instructions", type=int, default=DEFAULT_MAX_INSTRUCTIONS,
                        help="the instruction limit per quad (default %(default)s)")
    return parser.parse_args(argv)


def _print(text):
    try:
        print(text, flush=True)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def main(argv=None):
    args = _arguments(argv)
    if args.max_instructions < 1:
        print(f"{PROG}: --max-instructions must be at least 1", file=sys.stderr)
        return 2
    engine = make_engine(args.engine, args.compare)
    counts = {"pass": 0, "fail": 0, "skip": 0}
    malformed = False
    for path in args.files:
        bad = False
        try:
            outcome = run_test(path, engine, max_instructions=args.max_instructions)
        except ShaderTestError as error:
            malformed = bad = True
            outcome = Outcome("fail", str(error))
            if not args.json:
                print(error, file=sys.stderr)
        except ImportError as error:
            print(f"{PROG}: the GLSL compiler is not available: {error}", file=sys.stderr)
            return 2
        except EngineUnavailable as error:
            print(f"{PROG}: the rtl engine is not available: {error}", file=sys.stderr)
            return 2
        counts[outcome.result] += 1
        if args.json:
            _print(json.dumps({"file": path, "result": outcome.result,
                               "reason": outcome.reason}))
        elif not bad:
            reason = f": {outcome.reason}" if outcome.reason else ""
            _print(f"{outcome.result.upper()} {path}{reason}")
    if not args.json:
        _print(f"{counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped "
               f"({engine.name})")
    return 2 if malformed else 1 if counts["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
