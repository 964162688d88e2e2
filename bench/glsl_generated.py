"""Generated shader_test files of every GLSL 1.20 built-in function and operator, run on the
R500 stage (``sim.shader_test``), in the layout of piglit's generated built-in tests
(``generated_tests/gen_builtin_uniform_tests.py`` there, its fragment-shader ``fs-*`` files).

    python -m bench.glsl_generated [--rtl N|all] [--modes compare,if,scaled,const]
                                   [--only SUBSTRING …] [--keep DIR] [--extra FILE_OR_DIR …]

The files are ``bench.glsl_shader_tests``'s: one per overload of every built-in function and
operator (``fs-sin-vec3``, ``fs-op-mult-mat3x2-vec3``, …) in each mode (piglit's check
against ``expected`` and ``tolerance`` uniforms, its ``-using-if`` variant of bool results,
its first layout of scaled results probed as colours, and constant arguments that the
compiler folds), written to a temporary directory (``--keep DIR``: there, kept).

Every file runs on the model; ``--rtl N`` also runs N of them (spread evenly; ``all``: every
one) on the RTL core with every quad compared against the model. ``--extra`` runs other
shader_test files too (piglit's own, say), each directory's ``*.shader_test`` recursively,
counted apart (on the RTL too, compared, when ``--rtl`` is not 0). Prints one JSON object:

    {"files": 2306, "model": {"pass": …, "fail": …, "skip": …},
     "failures": [{"file": …, "reason": …}],
     "rtl": {"files": 60, "pass": …, "fail": …, "skip": …, "failures": […]},
     "extra": {"files": …, "pass": …, "fail": …, "skip": …, "failures": […], "skips": […],
               "rtl": {"pass": …, …}},
     "wall_s": …}

Exit status 1 if any file failed on either engine.
"""

import argparse
import json
import os
import sys
import tempfile
import time

from bench.glsl_shader_tests import MODES, all_tests, write_tests
from sim.shader_test import make_engine, run_test
from sim.shader_test.engines import EngineUnavailable
from sim.shader_test.errors import ShaderTestError


def run_files(paths, engine, root):
    """Counts and failures of ``paths`` on ``engine`` (names relative to ``root``)."""
    counts = {"pass": 0, "fail": 0, "skip": 0}
    failures, skips = [], []
    for path in paths:
        try:
            outcome = run_test(path, engine)
            result, reason = outcome.result, outcome.reason
        except ShaderTestError as error:
            result, reason = "fail", str(error)
        counts[result] += 1
        name = os.path.relpath(path, root) if root else path
        if result == "fail":
            failures.append({"file": name, "reason": reason})
            print(f"FAIL {name}: {reason}", file=sys.stderr, flush=True)
        elif result == "skip":
            skips.append({"file": name, "reason": reason})
    return counts, failures, skips


def _spread(paths, count):
    if count >= len(paths):
        return list(paths)
    step = len(paths) / count
    return [paths[int(k * step)] for k in range(count)]


def _extra_files(names):
    paths = []
    for name in names:
        if os.path.isdir(name):
            for folder, _, files in sorted(os.walk(name)):
                paths += [os.path.join(folder, f) for f in sorted(files)
                          if f.endswith(".shader_test")]
        else:
            paths.append(name)
    return paths


def _arguments(argv):
    parser = argparse.ArgumentParser(prog="python -m bench.glsl_generated",
                                     description="Generated built-in and operator shader "
                                                 "tests on the R500 stage.")
    parser.add_argument("--rtl", default="40",
                        help="how many files also run on the RTL, compared (a number or all)")
    parser.add_argument("--only", nargs="+", metavar="SUBSTRING",
                        help="only the files whose name contains one of these")
    parser.add_argument("--modes", default=",".join(MODES),
                        help="the layouts to generate (default %(default)s)")
    parser.add_argument("--keep", help="write the files here (kept) instead of a temporary "
                                       "directory")
    parser.add_argument("--extra", nargs="*", default=[],
                        help="other shader_test files or directories to run as well")
    args = parser.parse_args(argv)
    args.modes = args.modes.split(",")
    if not set(args.modes) <= set(MODES):
        parser.error(f"--modes takes some of {','.join(MODES)}")
    if args.rtl != "all" and not args.rtl.isdigit():
        parser.error("--rtl takes a number or all")
    return args


def _run(args, root):
    """The report of the generated files (written under ``root``) and the extra ones."""
    tests = [t for t in all_tests(args.modes)
             if not args.only or any(part in t.filename for part in args.only)]
    paths = write_tests(tests, root)
    counts, failures, _ = run_files(paths, make_engine("model"), root)
    report = {"files": len(paths), "model": counts, "failures": failures}
    rtl_count = len(paths) if args.rtl == "all" else int(args.rtl)
    if rtl_count:
        sample = _spread(paths, rtl_count)
        rtl_counts, rtl_failures, _ = run_files(sample, make_engine("rtl", True), root)
        report["rtl"] = {"files": len(sample), **rtl_counts, "failures": rtl_failures}
    extra = _extra_files(args.extra)
    if extra:
        counts, failures, skips = run_files(extra, make_engine("model"), None)
        report["extra"] = {"files": len(extra), **counts, "failures": failures,
                           "skips": skips}
        if rtl_count:
            counts, failures, _ = run_files(extra, make_engine("rtl", True), None)
            report["extra"]["rtl"] = {**counts, "failures": failures}
    return report


def main(argv=None):
    args = _arguments(argv)
    started = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory() as temporary:
            report = _run(args, args.keep or temporary)
    except EngineUnavailable as error:
        print(f"bench.glsl_generated: the rtl engine is not available: {error}",
              file=sys.stderr)
        return 2
    report["wall_s"] = round(time.perf_counter() - started, 1)
    print(json.dumps(report))
    extra = report.get("extra", {})
    counts = [report["model"], report.get("rtl", {}), extra, extra.get("rtl", {})]
    return 1 if any(c.get("fail") for c in counts) else 0


if __name__ == "__main__":
    sys.exit(main())
