"""The R500 binary32 adder and multiplier against sim.r500.fp32.add / mul, bit for bit.

Each unit is streamed one operand pair per cycle (with a few bubbles, so ``valid`` is checked
travelling with the data): every directed pair, then seeded random pairs mixing random bit
patterns, edge values and operands built to meet near cancellation, rounding and the flush.
"""

import random

from hdl.r500.fp_add import FpAdd
from hdl.r500.fp_mul import FpMul
from sim.r500 import fp32
from tests.helpers.r500_units import stream

RANDOM_PAIRS = 10_000

#: zeros, subnormals, the normal range's ends, ones and their neighbours, infinities, NaNs
EDGES = [
    0x0000_0000, 0x8000_0000, 0x0000_0001, 0x8000_0001, 0x0040_0000, 0x807F_FFFF,
    0x0080_0000, 0x8080_0000, 0x0080_0001, 0x00FF_FFFF, 0x0100_0000,
    0x3F80_0000, 0xBF80_0000, 0x3F80_0001, 0x3F7F_FFFF, 0x3FFF_FFFF, 0x4000_0000, 0xC040_0000,
    0x3300_0000, 0x3380_0000, 0xB380_0000, 0x1FFF_FFFF, 0x2000_0000, 0x5F80_0000,
    0x7F00_0000, 0x7F7F_FFFF, 0xFF7F_FFFF, 0x7300_0000, 0x7F80_0000, 0xFF80_0000,
    0x7FC0_0000, 0xFFC0_0000, 0x7F80_0001, 0xFFFF_FFFF, 0x7FBF_FFFF, 0xFFC0_1234,
]

# pairs aimed at one rule each (both units run every pair; comments say which one it targets)
DIRECTED = [
    (0x3F80_0000, 0x3380_0000),   # add: 1 + 2^-24, a tie, to even: 1.0
    (0x3F80_0001, 0x3380_0000),   # add: a tie, odd kept part: up
    (0x3F80_0000, 0xB300_0000),   # add: 1 - 2^-25: just under a tie
    (0x3F80_0000, 0xB380_0000),   # add: 1 - 2^-24: exact, a binade down
    (0x3F80_0000, 0xBF7F_FFFF),   # add: 1 - (1 - 2^-24) = 2^-24, massive cancellation
    (0x4B00_0000, 0xB000_0000),   # add: exponent difference 38, subtract: sticky only
    (0x4B00_0001, 0xB000_0000),
    (0x3F80_0000, 0x3080_0000),   # add: difference 30, add: sticky only
    (0x7F00_0000, 0x0080_0000),   # add: the largest difference
    (0x0080_0001, 0x8080_0000),   # add: 2^-149, below 2^-126: flushes to +0
    (0x8080_0001, 0x0080_0000),   # ... to -0
    (0x0100_0000, 0x8080_0001),   # add: 2^-126 - 2^-149: flushes
    (0x0100_0001, 0x8080_0001),   # add: exactly 2^-126
    (0x0080_0000, 0x0080_0000),   # add: 2^-125
    (0x7F7F_FFFF, 0x7F7F_FFFF),   # add: overflow
    (0x7F7F_FFFF, 0x7300_0000),   # add: max + half an ulp, a tie with an odd kept part: inf
    (0x7F7F_FFFF, 0x72FF_FFFF),   # add: just under that tie: max
    (0xFF7F_FFFF, 0xF300_0000),   # add: -inf
    (0x1FFF_FFFF, 0x2000_0000),   # mul: rounds up to exactly 2^-126, kept
    (0x1FFF_FFFE, 0x2000_0000),   # mul: just below 2^-126 after rounding: flushes
    (0x9FFF_FFFF, 0x2000_0000),   # mul: -2^-126
    (0x1F80_0000, 0x2000_0000),   # mul: exactly 2^-127: flushes
    (0x3FFF_FFFF, 0x0000_0001),   # mul: a subnormal factor is a zero
    (0x2000_0000, 0x1F00_0000),   # mul: two binades under
    (0x3FC0_0000, 0x3F80_0001),   # mul: 1.5 * (1 + 2^-23), a tie, to even: down
    (0x3FC0_0000, 0x3F80_0003),   # mul: a tie, odd kept part: up
    (0x7F7F_FFFF, 0x3F80_0001),   # mul: max * (1 + 2^-23): overflows
    (0x7F7F_FFFF, 0x4000_0000),   # mul: overflow
    (0x7F7F_FFFF, 0x3F7F_FFFF),   # mul: under max
    (0x5F80_0000, 0x5F80_0000),   # mul: 2^128: overflow
    (0x5F80_0000, 0x5F7F_FFFF),   # mul: just under 2^128
    (0x0080_0000, 0x3F00_0000),   # mul: 2^-127: flushes
    (0x0080_0000, 0x3F80_0000),   # mul: 2^-126 * 1
    (0x7F80_0000, 0x8000_0000),   # mul: inf * -0: -0; add: inf
    (0x7FC0_0001, 0x8000_0000),   # mul: NaN * -0: -0 (the XOR sign); add: NaN
    (0x7F80_0000, 0xFF80_0000),   # add: inf - inf: NaN; mul: -inf
]


def _cancelling(rng, x):
    """An operand close to -x (same or neighbouring exponent, few differing low bits)."""
    exponent_step = rng.choice([0, 0, 0, 1, -1]) << 23
    return (x ^ 0x8000_0000) + exponent_step + rng.randint(-8, 8) & 0xFFFF_FFFF


def _pattern(rng):
    """A random pattern: uniform bits, an edge value, or a finite number near 1."""
    kind = rng.random()
    if kind < 0.5:
        return rng.getrandbits(32)
    if kind < 0.65:
        return rng.choice(EDGES)
    return rng.getrandbits(1) << 31 | rng.randint(100, 154) << 23 | rng.getrandbits(23)


def random_pairs(seed, unit):
    rng = random.Random(seed)
    pairs = []
    for _ in range(RANDOM_PAIRS):
        a, b = _pattern(rng), _pattern(rng)
        roll = rng.random()
        if unit == "add" and roll < 0.25:
            b = _cancelling(rng, a)
        elif unit == "add" and roll < 0.4:            # exponent differences around 0..40
            b = (b & ~0x7F80_0000) | max(1, min(254, (a >> 23 & 0xFF) - rng.randint(0, 40))) << 23
        elif unit == "mul" and roll < 0.3:            # exponent sums near the flush and overflow
            target = rng.choice([BIAS_SUM_UNDER, BIAS_SUM_OVER]) + rng.randint(-2, 2)
            ea = rng.randint(max(1, target - 254), min(254, target - 1))
            a = (a & ~0x7F80_0000) | ea << 23
            b = (b & ~0x7F80_0000) | (target - ea) << 23
        pairs.append((a, b))
    return pairs


#: the exponent-field sums where a product is near 2^-126 / near 2^128
BIAS_SUM_UNDER = 127 + 1
BIAS_SUM_OVER = 127 + 254


def check(dut, model, pairs, seed):
    results = stream(dut, [{"i_a": a, "i_b": b} for a, b in pairs], seed)
    mismatches = [(f"{a:#010x}", f"{b:#010x}", f"got {got:#010x}", f"want {model(a, b):#010x}")
                  for (a, b), got in zip(pairs, results) if got != model(a, b)]
    assert not mismatches, f"{len(mismatches)} mismatches, first: {mismatches[:8]}"


def directed_pairs():
    return [(a, b) for a in EDGES for b in EDGES] + DIRECTED + [(b, a) for a, b in DIRECTED]


def test_adder_matches_model():
    pairs = directed_pairs() + random_pairs(2, "add")
    pairs += [(x, x ^ 0x8000_0000) for x, _ in pairs[-200:]]   # x - x
    check(FpAdd(), fp32.add, pairs, seed=3)


def test_multiplier_matches_model():
    check(FpMul(), fp32.mul, directed_pairs() + random_pairs(4, "mul"), seed=5)
