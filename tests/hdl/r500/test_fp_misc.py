"""The R500 core's small binary32 pieces against sim.r500.fp32, bit for bit: the comparisons and
selects (``fp_compare``), OMOD and clamp (``FpPost``), FRC (``FpFrc``, and its floor on its
own), inline constants and source modifiers (``operand_values``).

Combinational helpers are driven through one wrapper module; the clocked units are streamed one
input per cycle with random idle cycles, so ``valid`` is checked travelling with the data. Every
piece sees edge values (all pairs for the two-operand pieces; every pair with every value of C
from the decision's neighbourhood for CND/CMP) and at least 2,000 seeded random inputs.
"""

import random

from amaranth import Elaboratable, Module, Signal
from amaranth.sim import Simulator

from hdl.r500.fp_compare import (fp_cmp, fp_cnd, fp_eq, fp_ge, fp_gt, fp_lt, fp_max, fp_min,
                                 fp_ne)
from hdl.r500.fp_frc import FpFrc, fp_floor
from hdl.r500.fp_post import FpPost
from hdl.r500.operand_values import abs_, inline_constant, nab, neg, source_modifier
from sim.r500 import fp32
from tests.helpers.r500_units import EDGES, random_pattern, stream

RANDOM = 10_000


def _hex(x):
    return f"{x:#010x}"


def assert_all_match(cases):
    """cases: (what, inputs, got, want); every got must equal its want."""
    bad = [(what, [_hex(v) for v in inputs], f"got {_hex(got)}", f"want {_hex(want)}")
           for what, inputs, got, want in cases if got != want]
    assert not bad, f"{len(bad)} mismatches, first: {bad[:8]}"


# --- combinational helpers -------------------------------------------------------------------

class Combinational(Elaboratable):
    """Every combinational helper on the same inputs."""

    def __init__(self):
        self.a, self.b, self.c = Signal(32), Signal(32), Signal(32)
        self.code, self.mod = Signal(8), Signal(2)
        self.out = {name: Signal(32, name=name) for name in [
            "lt", "ge", "gt", "eq", "ne", "min", "max", "cnd", "cmp", "floor",
            "inline", "neg", "abs", "nab", "modified"]}

    def elaborate(self, platform):
        m = Module()
        a, b, c, o = self.a, self.b, self.c, self.out
        m.d.comb += [
            o["lt"].eq(fp_lt(a, b)), o["ge"].eq(fp_ge(a, b)), o["gt"].eq(fp_gt(a, b)),
            o["eq"].eq(fp_eq(a, b)), o["ne"].eq(fp_ne(a, b)),
            o["min"].eq(fp_min(a, b)), o["max"].eq(fp_max(a, b)),
            o["cnd"].eq(fp_cnd(a, b, c)), o["cmp"].eq(fp_cmp(a, b, c)),
            o["floor"].eq(fp_floor(m, a)), o["inline"].eq(inline_constant(self.code)),
            o["neg"].eq(neg(a)), o["abs"].eq(abs_(a)), o["nab"].eq(nab(a)),
            o["modified"].eq(source_modifier(a, self.mod)),
        ]
        return m


def _modified(x, mod):
    return (x, fp32.neg(x), fp32.abs_(x), fp32.nab(x))[mod]


#: output name -> the model, on the inputs (a, b, c, code, mod)
COMBINATIONAL_MODEL = {
    "lt": lambda a, b, c, code, mod: int(fp32.lt(a, b)),
    "ge": lambda a, b, c, code, mod: int(fp32.ge(a, b)),
    "gt": lambda a, b, c, code, mod: int(fp32.gt(a, b)),
    "eq": lambda a, b, c, code, mod: int(fp32.eq(a, b)),
    "ne": lambda a, b, c, code, mod: int(fp32.ne(a, b)),
    "min": lambda a, b, c, code, mod: fp32.min_(a, b),
    "max": lambda a, b, c, code, mod: fp32.max_(a, b),
    "cnd": lambda a, b, c, code, mod: fp32.cnd(a, b, c),
    "cmp": lambda a, b, c, code, mod: fp32.cmp(a, b, c),
    "floor": lambda a, b, c, code, mod: fp32.floor_(a),
    "inline": lambda a, b, c, code, mod: fp32.inline_constant(code),
    "neg": lambda a, b, c, code, mod: fp32.neg(a),
    "abs": lambda a, b, c, code, mod: fp32.abs_(a),
    "nab": lambda a, b, c, code, mod: fp32.nab(a),
    "modified": lambda a, b, c, code, mod: _modified(a, mod),
}


def run_combinational(vectors):
    """vectors: (a, b, c, code, mod); returns the mismatch-check cases for every output."""
    dut = Combinational()
    cases = []

    async def testbench(ctx):
        for vector in vectors:
            a, b, c, code, mod = vector
            ctx.set(dut.a, a)
            ctx.set(dut.b, b)
            ctx.set(dut.c, c)
            ctx.set(dut.code, code)
            ctx.set(dut.mod, mod)
            for name, model in COMBINATIONAL_MODEL.items():
                cases.append((name, vector, ctx.get(dut.out[name]), model(*vector)))

    sim = Simulator(dut)
    sim.add_testbench(testbench)
    sim.run()
    assert len(cases) == len(vectors) * len(COMBINATIONAL_MODEL)
    return cases


#: values of C around CND's 0.5 and CMP's 0
DECISION_EDGES = [x for x in EDGES if (x & 0x7F80_0000) in (0, 0x3F00_0000, 0x3E80_0000)
                  or x & 0x7FFF_FFFF >= 0x7F80_0000 or x in (0x3F7F_FFFF, 0x3F80_0000)]


def test_combinational_edges():
    """Every pair of edge values as (A, B), with C running over all edge values across the
    pairs; every (A, B) of a smaller set with every C near the decisions; every inline-constant
    code; every modifier."""
    n = len(EDGES)
    vectors = [(a, b, EDGES[(i * 7 + j) % n], (i * n + j) & 0xFF, (i + j) & 3)
               for i, a in enumerate(EDGES) for j, b in enumerate(EDGES)]
    few = [0x8000_0000, 0x0000_0001, 0x3F80_0000, 0xBF80_0000, 0x7F80_0000, 0xFFC0_1234,
           0x807F_FFFF]
    vectors += [(a, b, c, 0, 0) for a in few for b in few for c in DECISION_EDGES]
    vectors += [(c, 0, 0, code, code & 3) for code, c in zip(range(256), EDGES * 5)]
    assert len(DECISION_EDGES) >= 20
    assert_all_match(run_combinational(vectors))


def test_combinational_random():
    rng = random.Random(11)
    vectors = []
    for _ in range(RANDOM):
        a, b = random_pattern(rng), random_pattern(rng)
        roll = rng.random()
        if roll < 0.2:
            b = a ^ rng.choice([0, 0x8000_0000, 1, 0x8000_0001])   # equal, -x, neighbours
        c = random_pattern(rng) if roll < 0.6 else rng.choice(DECISION_EDGES) + rng.randint(-2, 2)
        vectors.append((a, b, c & 0xFFFF_FFFF, rng.getrandbits(8), rng.getrandbits(2)))
    assert_all_match(run_combinational(vectors))


# --- clocked units -----------------------------------------------------------------------------

def post_model(x, code, clamp):
    y = fp32.omod(x, code)
    return fp32.clamp(y) if clamp and code != fp32.OMOD_NONE else y


def test_post_latency():
    assert 1 <= FpPost.LATENCY <= 3


def test_post_matches_model():
    """OMOD then clamp: every edge value with every code, clamp on and off; random values."""
    rng = random.Random(21)
    inputs = [{"i_x": x, "i_omod": code, "i_clamp": clamp}
              for x in EDGES for code in range(8) for clamp in (0, 1)]
    for _ in range(RANDOM):
        x = random_pattern(rng)
        if rng.random() < 0.3:                      # halving onto the 2^-149 grid, ties
            x = rng.getrandbits(1) << 31 | rng.randint(1, 4) << 23 | rng.choice(
                [rng.getrandbits(23), 0x7F_FFFF, 0x7F_FFFE, 0x7F_FFFC, 4, 3, 2, 1, 0])
        inputs.append({"i_x": x, "i_omod": rng.getrandbits(3), "i_clamp": rng.getrandbits(1)})
    results = stream(FpPost(), inputs, seed=22)
    assert_all_match([("post", [i["i_x"], i["i_omod"], i["i_clamp"]], got,
                       post_model(i["i_x"], i["i_omod"], i["i_clamp"]))
                      for i, got in zip(inputs, results)])


def test_frc_matches_model():
    """FRC: every edge value, every value with a fraction field near the binary point in each
    binade from 2^-2 to 2^24, random values."""
    rng = random.Random(31)
    values = list(EDGES)
    for exp in range(125, 152):
        for frac in (0, 1, 0x40_0000, 0x7F_FFFF, 0x7F_FFFE, 0x00_0100):
            values += [exp << 23 | frac, 0x8000_0000 | exp << 23 | frac]
    for _ in range(RANDOM):
        x = random_pattern(rng)
        if rng.random() < 0.3:                      # tiny negatives (FRC rounds to 1.0)
            x = 0x8000_0000 | rng.randint(1, 110) << 23 | rng.getrandbits(23)
        values.append(x)
    results = stream(FpFrc(), [{"i_a": x} for x in values], seed=32)
    assert_all_match([("frc", [x], got, fp32.frc(x)) for x, got in zip(values, results)])
