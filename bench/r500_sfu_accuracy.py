"""Accuracy of the R500 special functions (sim/r500/sfu.py) against r500-us.md §3.3's bounds.

    python -m bench.r500_sfu_accuracy [--samples N] [--seed S] [--json FILE]

RCP and RSQ are checked exhaustively over all 2^23 fractions at one exponent (RSQ at an even
and at an odd one; the exponent only shifts the result, which tests/sim/r500/test_sfu.py checks
on its own), through the same integer cores as the model, element-wise in NumPy. Every function
is also sampled (``--samples`` seeded random arguments, spread over its whole domain) through
the model's binary32 entry points and compared with the host's double-precision functions,
whose own error (~2^-53 relative) is far below the bounds.

Prints JSON ``{function: {"metric", "max_error", "at", "bound", "worst_ratio", "samples",
"exhaustive"}}``: the error is in ulps of the exact result (RCP, RSQ, EX2) or absolute (LN2,
SIN, COS), ``at`` the argument pattern where it is largest, ``worst_ratio`` the largest error
over its bound (LN2's bound, max(2^-21, 1 ulp), depends on the result). Exit status 1 if any
ratio exceeds 1.
"""

import argparse
import json
import math
import random
import sys

import numpy as np

from sim.r500 import fp32, sfu
from sim.r500.fp32 import FRACTION_BITS, round_half_even

ULP_BOUNDS = {"RCP": 1, "RSQ": 2, "EX2": 2}
ABSOLUTE_BOUNDS = {"LN2": 2.0 ** -21, "SIN": 2.0 ** -20, "COS": 2.0 ** -20}
FUNCTIONS = {"EX2": sfu.ex2, "LN2": sfu.ln2, "RCP": sfu.rcp, "RSQ": sfu.rsq, "SIN": sfu.sin,
             "COS": sfu.cos}


# --- the exact values --------------------------------------------------------------------------

def reference(name, a):
    """The function of the float a, in double precision."""
    if name in ("SIN", "COS"):
        turn = a - math.floor(a)                           # exact for a binary32 a
        return (math.sin if name == "SIN" else math.cos)(2 * math.pi * turn)
    return {"EX2": lambda: 2.0 ** a, "LN2": lambda: math.log2(abs(a)),
            "RCP": lambda: 1 / a, "RSQ": lambda: 1 / math.sqrt(abs(a))}[name]()


def ulp(value):
    """The binary32 ulp at |value| (normal range)."""
    return 2.0 ** (math.frexp(abs(value))[1] - 24)


def error_and_bound(name, a, result):
    """(error, bound) of the binary32 ``result`` for the argument a (a float)."""
    exact = reference(name, a)
    difference = abs(fp32.to_float(result) - exact)
    if name in ULP_BOUNDS:
        return difference / ulp(exact), ULP_BOUNDS[name]
    if name == "LN2":
        return difference, max(ABSOLUTE_BOUNDS["LN2"], ulp(exact))
    return difference, ABSOLUTE_BOUNDS[name]


# --- the arguments -----------------------------------------------------------------------------

def _pattern(rng, low_exponent, high_exponent):
    """A binary32 pattern of random sign and fraction, biased exponent in [low, high]."""
    return (rng.getrandbits(1) << 31 | rng.randint(low_exponent, high_exponent) << 23
            | rng.getrandbits(FRACTION_BITS))


def arguments(name, rng, count):
    """``count`` arguments of ``name``: half spread over every binade of its domain, half
    uniform over its busiest range."""
    for i in range(count):
        if name in ("RCP", "RSQ", "LN2"):
            yield _pattern(rng, 1, 254) if i % 2 else _pattern(rng, 120, 134)
        elif name == "EX2":
            yield _pattern(rng, 1, 134) if i % 2 else fp32.from_float(rng.uniform(-126, 128))
        else:
            yield _pattern(rng, 1, 152) if i % 2 else fp32.from_float(rng.uniform(-4, 4))


def _sampled_result(name, a, result):
    """(error, bound), or None where the exact result is out of the normal range (flushed or
    overflowing: the special values, tested on their own)."""
    exact = reference(name, fp32.to_float(a))
    if exact != 0 and not 2.0 ** -126 <= abs(exact) < 2.0 ** 128:
        return None
    return error_and_bound(name, fp32.to_float(a), result)


class Worst:
    """The largest error seen, relative to its bound, and where."""

    def __init__(self, name, metric):
        self.name, self.metric = name, metric
        self.error, self.ratio, self.at, self.bound, self.samples = 0.0, 0.0, None, None, 0

    def see(self, error, bound, at):
        self.samples += 1
        if self.at is None or error / bound > self.ratio:
            self.error, self.ratio, self.at, self.bound = error, error / bound, at, bound

    def merge(self, other):
        """Take in the samples of another Worst of the same function."""
        if other.ratio > self.ratio:
            self.error, self.ratio, self.at, self.bound = (other.error, other.ratio, other.at,
                                                           other.bound)
        self.samples += other.samples

    def report(self, exhaustive):
        return {"metric": self.metric, "max_error": self.error,
                "at": None if self.at is None else f"0x{self.at:08X}", "bound": self.bound,
                "worst_ratio": self.ratio, "samples": self.samples, "exhaustive": exhaustive}


def sample(name, count, seed):
    """The worst of ``count`` seeded random arguments through the binary32 entry point."""
    rng = random.Random(f"{name}/{seed}")
    worst = Worst(name, "ulp" if name in ULP_BOUNDS else "absolute")
    for a in arguments(name, rng, count):
        measured = _sampled_result(name, a, FUNCTIONS[name](a))
        if measured is not None:
            worst.see(*measured, a)
    return worst


# --- exhaustive sweeps of the significand cores ------------------------------------------------

FRACTIONS = np.arange(1 << FRACTION_BITS, dtype=np.int64)
SIGNIFICANDS = FRACTIONS + (1 << FRACTION_BITS)


def rounded(y):
    """A core's y in [1, 2] (RESULT_BITS fraction bits) rounded to 24 bits, in units of 2^-23,
    as fp32.round_to_fp32 rounds a normal result."""
    return round_half_even(y, sfu.RESULT_BITS - FRACTION_BITS)


def rcp_errors():
    """The error in ulps of RCP of every x in [1, 2): the result (units of 2^-24, the ulp of
    (1/2, 1)) against 2^47 / significand."""
    q = rounded(sfu.rcp_significand(FRACTIONS))
    return np.abs(q * SIGNIFICANDS - 2 ** 47) / SIGNIFICANDS


def rsq_errors(parity):
    """The error in ulps of RSQ of every x in [1, 2) (parity 0) or [2, 4) (parity 1)."""
    q = rounded(sfu.rsq_significand(parity, FRACTIONS))
    exact = 2.0 ** 24 / np.sqrt((1 + parity) * (SIGNIFICANDS / 2.0 ** FRACTION_BITS))
    return np.abs(q - exact)


def exhaustive(name, errors, exponent):
    """The Worst of an error sweep over the fractions at one biased exponent."""
    worst = Worst(name, "ulp")
    i = int(np.argmax(errors))
    worst.see(float(errors[i]), ULP_BOUNDS[name], exponent << 23 | i)
    worst.samples = len(errors)
    return worst


def measure(samples, seed=0):
    """The report of every function: exhaustive sweeps where there are any, merged with the
    sampled worst."""
    sweeps = {"RCP": [exhaustive("RCP", rcp_errors(), 127)],
              "RSQ": [exhaustive("RSQ", rsq_errors(0), 127),
                      exhaustive("RSQ", rsq_errors(1), 128)]}
    report = {}
    for name in FUNCTIONS:
        worst = sample(name, samples, seed)
        for sweep in sweeps.get(name, ()):
            worst.merge(sweep)
        report[name] = worst.report(exhaustive=name in sweeps)
    return report


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.r500_sfu_accuracy",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200_000,
                        help="random arguments per function (default 200,000)")
    parser.add_argument("--seed", type=int, default=0, help="the sampling seed (default 0)")
    parser.add_argument("--json", metavar="FILE", help="also write the result here")
    args = parser.parse_args(argv)
    if args.samples < 0:
        parser.error("--samples must be at least 0")
    report = measure(args.samples, args.seed)
    text = json.dumps(report, indent=2)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")
    return 0 if all(r["worst_ratio"] <= 1 for r in report.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
