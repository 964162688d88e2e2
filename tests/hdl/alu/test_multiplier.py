"""The pipelined multiplier against sim.fixed.mul64 / imul64, streamed one operation per cycle."""

import random

from hdl.alu.multiplier import Multiplier
from sim import fixed as fx
from tests.helpers.alu import EDGES, TAG_WIDTH, random_word, stream


def operands(seed, count):
    """Directed edge cases (every pair) followed by seeded random words of mixed magnitudes."""
    rng = random.Random(seed)
    pairs = [(a, b) for a in EDGES for b in EDGES]
    while len(pairs) < count:
        pairs.append((random_word(rng), random_word(rng)))
    return pairs


def test_multiplier_scaled_and_integer_products_stream():
    dut = Multiplier(tag_width=TAG_WIDTH)
    pairs = operands(1, 2300)
    # alternate scaled / unscaled per operation: both modes share the pipeline every cycle
    ops = [(a, b, i % 2) for i, (a, b) in enumerate(pairs + pairs)]
    mismatches = []

    def check(index, ctx):
        a, b, scaled = ops[index]
        want = (fx.mul64 if scaled else fx.imul64)(a, b)
        got = ctx.get(dut.o_p)
        if got != want:
            mismatches.append((hex(a), hex(b), scaled, hex(got), hex(want)))

    stream(dut, [((dut.i_a, a), (dut.i_b, b), (dut.i_scaled, s)) for a, b, s in ops], check)
    assert not mismatches, f"{len(mismatches)} mismatches, first: {mismatches[:5]}"
    assert sum(s for _, _, s in ops) >= 2000 and sum(1 - s for _, _, s in ops) >= 2000

