"""The pipelined lane divider against sim.fixed.div, streamed one operation per cycle."""

import random

import pytest

from hdl.alu.divider import Divider, divider_latency
from sim import fixed as fx
from tests.helpers.alu import DIV_EDGES, TAG_WIDTH, random_word, stream


def divider_operands(seed, count):
    rng = random.Random(seed)
    pairs = [(a, b) for a in DIV_EDGES for b in DIV_EDGES]
    while len(pairs) < count:
        a, b = random_word(rng), random_word(rng)
        if rng.random() < 0.05:
            b = 0                                   # x / 0 with random x
        if rng.random() < 0.05:
            b = a ^ rng.choice([0, 0x8000_0000])   # |a| / |a|: quotient exactly one
        pairs.append((a, b))
    return pairs


def run_divider(bits_per_stage, pairs):
    dut = Divider(tag_width=TAG_WIDTH, bits_per_stage=bits_per_stage)
    assert dut.latency == divider_latency(bits_per_stage)
    mismatches = []

    def check(index, ctx):
        a, b = pairs[index]
        got, want = ctx.get(dut.o_q), fx.div(a, b)
        if got != want:
            mismatches.append((hex(a), hex(b), hex(got), hex(want)))

    stream(dut, [((dut.i_a, a), (dut.i_b, b)) for a, b in pairs], check)
    assert not mismatches, f"{len(mismatches)} mismatches, first: {mismatches[:5]}"


def test_divider_edge_cases_are_what_the_spec_says():
    # the reference itself on the cases the spec names (guards the test's own expectations)
    assert fx.div(0x0002_0000, 0) == 0x0FFF_FFFF
    assert fx.div(0xFFFE_0000, 0) == (-0x0FFF_FFFF) & 0xFFFF_FFFF
    assert fx.div(0, 0) == 0x0FFF_FFFF
    assert fx.div(0xFFFE_0000, 0x0004_0000) == 0xFFFF_0000      # -1 / 2 = -0.5


def test_divider_default_stream():
    """bits_per_stage = 2 (the default): directed pairs and random operands, 2,500 divisions."""
    run_divider(2, divider_operands(2, 2500))


@pytest.mark.parametrize("bits_per_stage", [1, 3])
def test_divider_other_stage_widths(bits_per_stage):
    run_divider(bits_per_stage, divider_operands(3 + bits_per_stage, 700))


def test_divisors_at_the_step_widths():
    """Divisors at and beside +-2**w, where a restoring step's "|b| is wider" test flips (it is
    worked out from b without negating it), with random and edge dividends."""
    rng = random.Random(11)
    divisors = [(sign * (1 << w) + delta) & 0xFFFF_FFFF
                for w in range(1, 32) for sign in (1, -1) for delta in (-1, 0, 1)]
    pairs = [(a, b) for b in divisors
             for a in [random_word(rng), 0x7FFF_FFFF, 0x8000_0000, 1 << rng.randrange(32)]]
    run_divider(2, pairs)
