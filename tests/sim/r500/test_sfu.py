"""The special functions of sim/r500/sfu.py against r500-us.md §3.3.

The special values and the exact cases one by one; RCP and RSQ exhaustively over the fractions
at one exponent (the cores run element-wise in NumPy, checked against the binary32 entry points
on a sample), the exponent handling separately; every function densely sampled over its domain
against the host's double-precision functions (bench/r500_sfu_accuracy.py, which also reports
the figures).
"""

import math

import numpy as np
import pytest

from bench import r500_sfu_accuracy as accuracy
from sim.r500 import fp32 as fp
from sim.r500 import sfu

NANS = (0x7FC0_0000, 0x7F80_0001, 0xFFFF_FFFF, 0xFFC0_1234)
SUBNORMALS = (0x0000_0001, 0x007F_FFFF)
FUNCTIONS = accuracy.FUNCTIONS


def power_of_two(k):
    return (k + fp.BIAS) << 23


# --- special values ----------------------------------------------------------------------------

@pytest.mark.parametrize("name", FUNCTIONS)
def test_nan_in_gives_the_canonical_nan(name):
    for nan in NANS:
        assert FUNCTIONS[name](nan) == fp.CANONICAL_NAN


# (function, argument, result); subnormal arguments read as zeros of their sign
SPECIAL_VALUES = [
    (sfu.ex2, fp.POS_INF, fp.POS_INF), (sfu.ex2, fp.NEG_INF, fp.ZERO),
    (sfu.ex2, fp.ZERO, fp.ONE), (sfu.ex2, fp.NEG_ZERO, fp.ONE), (sfu.ex2, 0x8000_0001, fp.ONE),
    (sfu.ex2, fp.from_float(128.0), fp.POS_INF), (sfu.ex2, fp.from_float(1e30), fp.POS_INF),
    (sfu.ex2, fp.from_float(-126.00001), fp.ZERO), (sfu.ex2, fp.from_float(-1e30), fp.ZERO),
    (sfu.ex2, fp.from_float(-126.0), fp.MIN_NORMAL),
    (sfu.ln2, fp.ZERO, fp.NEG_INF), (sfu.ln2, fp.NEG_ZERO, fp.NEG_INF),
    (sfu.ln2, 0x0000_0001, fp.NEG_INF), (sfu.ln2, fp.POS_INF, fp.POS_INF),
    (sfu.ln2, fp.NEG_INF, fp.POS_INF), (sfu.ln2, fp.ONE, fp.ZERO),
    (sfu.rcp, fp.ZERO, fp.POS_INF), (sfu.rcp, fp.NEG_ZERO, fp.NEG_INF),
    (sfu.rcp, 0x8000_0001, fp.NEG_INF), (sfu.rcp, fp.POS_INF, fp.ZERO),
    (sfu.rcp, fp.NEG_INF, fp.NEG_ZERO),
    # 1/2^127 and 1/(1.5 * 2^126) are below 2^-126: flushed
    (sfu.rcp, power_of_two(127), fp.ZERO), (sfu.rcp, 0xFF40_0000, fp.NEG_ZERO),
    (sfu.rsq, fp.ZERO, fp.POS_INF), (sfu.rsq, fp.NEG_ZERO, fp.POS_INF),
    (sfu.rsq, 0x007F_FFFF, fp.POS_INF), (sfu.rsq, fp.POS_INF, fp.ZERO),
    (sfu.rsq, fp.NEG_INF, fp.ZERO), (sfu.rsq, fp.from_float(-4.0), fp.HALF),
    (sfu.sin, fp.POS_INF, fp.CANONICAL_NAN), (sfu.sin, fp.NEG_INF, fp.CANONICAL_NAN),
    (sfu.cos, fp.POS_INF, fp.CANONICAL_NAN), (sfu.cos, fp.NEG_INF, fp.CANONICAL_NAN),
    (sfu.sin, fp.NEG_ZERO, fp.ZERO), (sfu.cos, fp.NEG_ZERO, fp.ONE),
    (sfu.sin, 0x8000_0001, fp.ZERO),
]


@pytest.mark.parametrize("function, argument, result", SPECIAL_VALUES)
def test_special_value(function, argument, result):
    assert function(argument) == result


# --- exact cases -------------------------------------------------------------------------------

def test_ex2_of_integers_is_exact():
    for n in range(-126, 128):
        assert sfu.ex2(fp.from_float(float(n))) == power_of_two(n)


def test_ln2_of_powers_of_two_is_exact():
    for k in range(-126, 128):
        for s in (0, 1):
            assert sfu.ln2(s << 31 | power_of_two(k)) == fp.from_float(float(k))


def test_rcp_of_powers_of_two_is_exact():
    for k in range(-126, 127):
        for s in (0, 1):
            assert sfu.rcp(s << 31 | power_of_two(k)) == s << 31 | power_of_two(-k)


def test_rsq_of_powers_of_four_is_exact():
    for k in range(-63, 64):
        assert sfu.rsq(power_of_two(2 * k)) == power_of_two(-k)


QUARTER_TURNS = {0: (fp.ZERO, fp.ONE), 1: (fp.ONE, fp.ZERO), 2: (fp.ZERO, fp.neg(fp.ONE)),
                 3: (fp.neg(fp.ONE), fp.ZERO)}


@pytest.mark.parametrize("whole", [0, 1, -1, -2, 7, 1000, -123457, 2 ** 21, -(2 ** 21) + 3])
def test_sin_cos_at_quarter_turns_are_exact(whole):
    for quarter, (sine, cosine) in QUARTER_TURNS.items():
        a = fp.from_float(whole + quarter / 4)
        assert fp.to_float(a) == whole + quarter / 4
        assert (sfu.sin(a), sfu.cos(a)) == (sine, cosine), (whole, quarter)


def test_sin_cos_of_large_integers():
    for a in (fp.from_float(2.0 ** 24), fp.from_float(-3.0 * 2 ** 40), 0x7F7F_FFFF, 0xFF7F_FFFF):
        assert (sfu.sin(a), sfu.cos(a)) == (fp.ZERO, fp.ONE)


def test_sin_of_tiny_arguments():
    assert sfu.sin(fp.from_float(-1e-30)) == fp.ZERO        # the turn rounds to 0
    assert abs(fp.to_float(sfu.sin(fp.from_float(1e-5))) - 2 * math.pi * 1e-5) < 2.0 ** -24


# --- exhaustive over the fractions, and the exponents ------------------------------------------

def test_rcp_exhaustive_over_the_fractions():
    errors = accuracy.rcp_errors()
    assert errors.max() <= 1
    # the entry point rounds the same significands
    rng = np.random.default_rng(1)
    q = accuracy.rounded(sfu.rcp_significand(accuracy.FRACTIONS))
    for fraction in rng.choice(accuracy.FRACTIONS, 2000):
        result = sfu.rcp(fp.ONE | int(fraction))
        assert result == fp.round_to_fp32(0, int(q[fraction]), -24)


@pytest.mark.parametrize("parity", [0, 1])
def test_rsq_exhaustive_over_the_fractions(parity):
    errors = accuracy.rsq_errors(parity)
    assert errors.max() <= 2
    rng = np.random.default_rng(2 + parity)
    q = accuracy.rounded(sfu.rsq_significand(parity, accuracy.FRACTIONS))
    for fraction in rng.choice(accuracy.FRACTIONS, 2000):
        x = power_of_two(parity) | int(fraction)
        assert sfu.rsq(x) == fp.round_to_fp32(0, int(q[fraction]), -24)


FRACTION_SAMPLE = (0, 1, 0x12_3456, 0x40_0000, 0x7F_FFFF)


def scale(pattern, k):
    """The normal pattern times 2^k (k small enough to stay normal)."""
    return pattern + (k << 23)


def test_rcp_exponents():
    for fraction in FRACTION_SAMPLE:
        base = sfu.rcp(fp.ONE | fraction)
        for k in range(-125, 126):
            assert sfu.rcp(scale(fp.ONE | fraction, k)) == scale(base, -k), (fraction, k)
            assert sfu.rcp(fp.neg(scale(fp.ONE | fraction, k))) == fp.neg(scale(base, -k))


def test_rsq_exponents():
    for fraction in FRACTION_SAMPLE:
        for parity in (0, 1):
            x = power_of_two(parity) | fraction
            base = sfu.rsq(x)
            for k in range(-63, 63):
                assert sfu.rsq(scale(x, 2 * k)) == scale(base, -k), (fraction, parity, k)
                assert sfu.rsq(fp.neg(scale(x, 2 * k))) == scale(base, -k)


def test_ln2_exponents_add_the_exponent():
    for fraction in FRACTION_SAMPLE:
        y = int(sfu.ln2_significand(fraction))
        for k in range(-126, 128):
            x = power_of_two(k) | fraction
            expected = fp.round_to_fp32(int(k < 0 and (k << sfu.RESULT_BITS) + y < 0),
                                        abs((k << sfu.RESULT_BITS) + y), -sfu.RESULT_BITS)
            assert sfu.ln2(x) == expected


def test_ex2_integer_part_scales():
    for fraction in (0x1234, 0x40_0000, 0x7F_FFFF):
        base = sfu.ex2(fp.HALF | fraction)                  # 2^[0.5, 1)
        for n in range(-125, 127):
            a = fp.add(fp.from_float(float(n)), fp.HALF | fraction)
            if fp.to_float(a) - n == fp.to_float(fp.HALF | fraction):   # no rounding in a
                assert sfu.ex2(a) == scale(base, n), (fraction, n)


# --- dense sampling against the bounds ---------------------------------------------------------

@pytest.mark.parametrize("name", FUNCTIONS)
def test_sampled_accuracy_within_bounds(name):
    worst = accuracy.sample(name, 20_000, seed=0)
    assert worst.samples > 15_000
    assert worst.ratio <= 1, (name, worst.report(False))


def test_tables_fit_the_datapath():
    for table in sfu.TABLES:
        c0, c1, c2 = table.widths()
        assert c0 <= sfu.RESULT_BITS + 2 and c1 <= sfu.C1_BITS and c2 <= sfu.C2_BITS
        assert len(table.c0) == len(table.c1) == len(table.c2) == 1 << sfu.INDEX_BITS
        assert table.offset_bits <= 17                      # h is an 18-bit signed operand


def test_bench_reports(capsys):
    assert accuracy.main(["--samples", "200"]) == 0
    report = capsys.readouterr().out
    assert '"RCP"' in report and '"exhaustive": true' in report
