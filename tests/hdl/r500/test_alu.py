"""The R500 lane datapath (``hdl.r500.alu.LaneAlu``) against the model, bit for bit.

Each instruction runs on quads: each lane's source slots 0-2 are its temporaries 0-2 (both
addresses of slot n name temporary n), the model computes every lane's results
(``sim.r500.decode``, ``operands.resolve_sources`` and ``lane_operands``, ``alu.unit_results``)
and the four lane-ops of each quad are streamed into LaneAlu with random idle cycles between
them, i_quad_slot0 carrying slot 0 of lanes 0-2; every channel is compared.

Directed instructions cover each RGB and alpha operation, each swizzle code, modifier and srcp
operation, OMOD 0-7 with and without clamp, SOP, DP4 with the alpha unit's DP, D2A, and MDH/MDV
with the units choosing differently; seeded random instructions, built field by field from the
ISA tables, mix all of it on edge-heavy operands (±0, subnormals, ±inf, NaNs with payloads,
0.5 and 1.0 and neighbours, the flush and overflow boundaries, random patterns).
"""

import random

import pytest

from hdl.isa import (US_ALU_ALPHA_INST, US_ALU_RGB_INST, US_ALU_RGBA_INST, US_CMN_INST,
                     AlphaOp, InstType, Omod, RgbOp, Swizzle)
from hdl.r500.alu import LaneAlu
from sim.r500.alu import unit_results
from sim.r500.decode import decode
from sim.r500.operands import SLOTS, lane_operands, resolve_sources
from tests.helpers.r500 import SWIZZLE_CODES, addr, alu
from tests.helpers.r500_units import EDGES, random_pattern, stream

LANES = 4
CHANNELS = 4
#: MDH and MDV read slot 0 of lanes 0 (A), 1 and 2 (C)
QUAD_SLOT0_LANES = 3
#: slot n of every lane reads temporary n
TEMPORARIES = tuple(f"t{n}" for n in range(SLOTS))
RANDOM_QUADS = 800
IDLE = 0.1


# --- quads: operands, the model's results, the lane-ops ------------------------------------

def edge_quad(rng):
    """Every lane's temporaries 0-2, four channels each, all edge values."""
    return [[[rng.choice(EDGES) for _ in range(CHANNELS)] for _ in range(SLOTS)]
            for _ in range(LANES)]


def random_quad(rng):
    """Every lane's temporaries 0-2 from edge-heavy random patterns."""
    return [[[random_pattern(rng) for _ in range(CHANNELS)] for _ in range(SLOTS)]
            for _ in range(LANES)]


def pack(values, width=32):
    """Integers packed from bit 0 up, as a lib.data ArrayLayout places its elements."""
    return sum(v << width * i for i, v in enumerate(values))


def pack_slots(slots):
    """Three slots of four channels as an SLOTS_LAYOUT value."""
    return pack([pack(slot) for slot in slots], 32 * CHANNELS)


def model_results(words, temps):
    """[r, g, b, a] of every lane, from the model."""
    inst = decode(words)
    rgb_sources = resolve_sources(inst.rgb_addr, 0, SLOTS)
    alpha_sources = resolve_sources(inst.alpha_addr, 0, SLOTS)
    lanes = [lane_operands(inst, rgb_sources, alpha_sources, temps[lane], [])
             for lane in range(LANES)]
    return [r.rgb + [r.alpha] for r in unit_results(inst, lanes)]


def lane_ops(words, temps):
    """The four lane-ops of an instruction on a quad: LaneAlu's input ports."""
    inst = decode(words)
    for fields in (inst.rgb_addr, inst.alpha_addr):
        assert [fields[f"ADDR{n}"] for n in range(SLOTS)] == list(range(SLOTS))
    quad_slot0 = pack_slots([temps[lane][0] for lane in range(QUAD_SLOT0_LANES)])
    return [{"i_rgb": words[3], "i_alpha": words[4], "i_rgba": words[5],
             "i_rgb_srcp": inst.rgb_addr["SRCP_OP"], "i_alpha_srcp": inst.alpha_addr["SRCP_OP"],
             "i_rgb_clamp": inst.cmn["RGB_CLAMP"], "i_alpha_clamp": inst.cmn["ALPHA_CLAMP"],
             "i_slots": pack_slots(temps[lane]),
             "i_quad_slot0": quad_slot0}
            for lane in range(LANES)]


def run(cases, seed):
    """Stream every (name, words, temps) case's lane-ops through one LaneAlu; assert every
    channel of every lane equals the model's."""
    inputs, expected = [], []
    for name, words, temps in cases:
        inputs += lane_ops(words, temps)
        for lane, want in enumerate(model_results(words, temps)):
            expected.append((name, lane, temps[lane], want))
    results = stream(LaneAlu(), inputs, seed, idle=IDLE)
    bad = []
    for (name, lane, slots, want), got in zip(expected, results):
        got = [got >> 32 * channel & 0xFFFF_FFFF for channel in range(CHANNELS)]
        if got != want:
            bad.append((name, lane, [[f"{v:08x}" for v in slot] for slot in slots],
                        "got", [f"{v:08x}" for v in got], "want", [f"{v:08x}" for v in want]))
    assert not bad, f"{len(bad)} of {len(expected)} lane-ops differ, first: {bad[:4]}"
    return len(expected)


def quads(name, words, rng, count=4):
    """``count`` cases of one instruction: edge quads and random quads, alternately."""
    return [(name, words, (edge_quad if q % 2 == 0 else random_quad)(rng))
            for q in range(count)]


def on_temps(**kw):
    """``alu(...)`` with the slots on temporaries 0-2 in both units."""
    return alu(rgb=TEMPORARIES, alpha=TEMPORARIES, **kw)


# --- directed instructions -----------------------------------------------------------------

def op_instructions():
    """Each RGB operation (paired with a legal alpha one) and each alpha operation."""
    cases = []
    for op in RgbOp:
        alpha_op = AlphaOp.DP if op in (RgbOp.DP3, RgbOp.DP4) else AlphaOp.MAD
        cases.append((f"rgb {op.name}", on_temps(
            rgb_op=op, a="src0.rgb", b="src1.gbr", c="src2.brg", alpha_op=alpha_op,
            aa="src0.a", ab="src1.r", ac="src2.a")))
    for op in AlphaOp:
        rgb_op = RgbOp.DP3 if op == AlphaOp.DP else RgbOp.MAD
        cases.append((f"alpha {op.name}", on_temps(
            rgb_op=rgb_op, a="src0.rgb", b="src1.rgb", c="src2.rgb", alpha_op=op,
            aa="src0.a", ab="src1.a", ac="src2.g")))
    return cases


def operand_instructions():
    """Every swizzle code in every input, every modifier, every srcp operation in each unit,
    the derivatives with the units choosing differently."""
    cases = []
    letters = {code: letter for letter, code in SWIZZLE_CODES.items()}
    for code in Swizzle:
        ch = letters[code]
        cases.append((f"swizzle {code.name}", on_temps(
            rgb_op=RgbOp.MAD, a=f"src0.{ch}{ch}{ch}", b=f"src1.{ch}gb", c=f"src2.r{ch}b",
            alpha_op=AlphaOp.MAD, aa=f"src0.{ch}", ab=f"src1.{ch}", ac=f"src2.{ch}")))
        cases.append((f"swizzle {code.name} of srcp", on_temps(
            rgb_op=RgbOp.MAD, a=f"srcp.{ch}g{ch}", b="src1.rgb", c=f"srcp.{ch}{ch}b",
            alpha_op=AlphaOp.MAD, aa=f"srcp.{ch}", ab="src1.a", ac=f"srcp.{ch}",
            rgb_srcp=code % 4, alpha_srcp=3 - code % 4)))
    for sign, bars in (("", ""), ("-", ""), ("", "|"), ("-", "|")):
        def mod(text):
            return f"{sign}{bars}{text}{bars}"
        cases.append((f"modifier {sign}{bars}", on_temps(
            rgb_op=RgbOp.MAD, a=mod("src0.rgb"), b=mod("srcp.gbr"), c=mod("src2.rgb"),
            alpha_op=AlphaOp.MAD, aa=mod("src0.a"), ab=mod("src1.a"), ac=mod("srcp.a"))))
        cases.append((f"modifier {sign}{bars} of selects", on_temps(
            rgb_op=RgbOp.MIN, a=mod("src0.rgb"), b=mod("src1.rgb"), alpha_op=AlphaOp.CMP,
            aa=mod("src0.a"), ab=mod("src1.a"), ac=mod("src2.a"))))
    for rgb_srcp in range(4):
        for alpha_srcp in range(4):
            cases.append((f"srcp {rgb_srcp} {alpha_srcp}", on_temps(
                rgb_op=RgbOp.MAD, a="srcp.rgb", b="src2.111", c="src2.000", alpha_op=AlphaOp.MAD,
                aa="srcp.a", ab="src2.1", ac="src2.0", rgb_srcp=rgb_srcp,
                alpha_srcp=alpha_srcp)))
    derivatives = ((RgbOp.MDH, AlphaOp.MDV), (RgbOp.MDV, AlphaOp.MDH), (RgbOp.MDH, AlphaOp.MDH),
                   (RgbOp.MDV, AlphaOp.MDV), (RgbOp.MDH, AlphaOp.MAD), (RgbOp.MAD, AlphaOp.MDV))
    for rgb_op, alpha_op in derivatives:
        cases.append((f"{rgb_op.name} {alpha_op.name}", on_temps(
            rgb_op=rgb_op, a="-src2.bgr", b="src1.rgb", c="|srcp.gbr|", alpha_op=alpha_op,
            aa="-|src1.r|", ab="srcp.a", ac="-src2.b", rgb_srcp=1, alpha_srcp=2)))
    return cases


def result_instructions():
    """OMOD 0-7 with and without clamp on each unit (on a MAD and on a select, whose NaNs OMOD
    7 lets through), SOP after several alpha operations, DP4 with the alpha unit's DP, D2A,
    alpha DP after DP3."""
    cases = []
    for omod in Omod:
        for clamp in (0, 1):
            cases.append((f"omod {omod.name} clamp {clamp}", on_temps(
                rgb_op=RgbOp.MAD, a="src0.rgb", b="src1.rgb", c="src2.rgb",
                alpha_op=AlphaOp.MAX, aa="src0.a", ab="src1.a", rgb_omod=omod,
                alpha_omod=7 - omod, RGB_CLAMP=clamp, ALPHA_CLAMP=1 - clamp)))
            cases.append((f"omod {omod.name} clamp {clamp} of selects", on_temps(
                rgb_op=RgbOp.CND, a="src0.rgb", b="src1.rgb", c="src2.rgb",
                alpha_op=AlphaOp.RCP, aa="src0.a", rgb_omod=omod, alpha_omod=omod,
                RGB_CLAMP=clamp, ALPHA_CLAMP=clamp)))
    for alpha_op in (AlphaOp.MAD, AlphaOp.MIN, AlphaOp.CND, AlphaOp.FRC, AlphaOp.EX2,
                     AlphaOp.LN2, AlphaOp.RSQ, AlphaOp.COS, AlphaOp.MDV):
        cases.append((f"SOP of {alpha_op.name}", on_temps(
            rgb_op=RgbOp.SOP, alpha_op=alpha_op, aa="src0.a", ab="src1.a", ac="src2.a",
            rgb_omod=Omod.MUL2, alpha_omod=Omod.DIV4, RGB_CLAMP=1)))
    cases.append(("DP4 and DP", on_temps(
        rgb_op=RgbOp.DP4, a="src0.rgb", b="src1.rgb", alpha_op=AlphaOp.DP, aa="srcp.a",
        ab="-src2.a", rgb_omod=Omod.DIV2, alpha_omod=Omod.DISABLE, alpha_srcp=1)))
    cases.append(("DP4 of one channel", on_temps(
        rgb_op=RgbOp.DP4, a="src0.rgb", b="src0.rgb", alpha_op=AlphaOp.DP, aa="src0.a",
        ab="src0.a", ALPHA_CLAMP=1)))
    cases.append(("DP3 and DP", on_temps(
        rgb_op=RgbOp.DP3, a="src0.rgb", b="-src1.bgr", alpha_op=AlphaOp.DP, rgb_omod=Omod.MUL8,
        ALPHA_CLAMP=1)))
    cases.append(("DP3 and RCP", on_temps(
        rgb_op=RgbOp.DP3, a="src0.rgb", b="src1.rgb", alpha_op=AlphaOp.RCP, aa="src2.a")))
    cases.append(("D2A", on_temps(
        rgb_op=RgbOp.D2A, a="src0.rgb", b="src1.rgb", c="srcp.gbr", alpha_op=AlphaOp.SIN,
        aa="src2.a", rgb_srcp=0)))
    return cases


def _run_directed(instructions, seed):
    rng = random.Random(seed)
    cases = [case for name, words in instructions for case in quads(name, words, rng)]
    return run(cases, seed)


def test_operations():
    assert _run_directed(op_instructions(), 1) == (len(RgbOp) + len(AlphaOp)) * 4 * LANES


def test_operands():
    assert _run_directed(operand_instructions(), 2) > 0


def test_results():
    assert _run_directed(result_instructions(), 3) > 0


# --- random instructions -------------------------------------------------------------------

def random_word(fmt, rng, **fixed):
    """A word of ``fmt`` with every field random but those given."""
    fields = {name: rng.getrandbits(width) for name, (_, width) in fmt.fields.items()}
    return fmt.pack(**{**fields, **fixed})


def random_ops(rng):
    """A legal (RGB_OP, ALPHA_OP): alpha DP needs DP3 or DP4, DP4 needs alpha DP."""
    rgb_op = rng.choice(list(RgbOp))
    if rgb_op == RgbOp.DP4:
        return rgb_op, AlphaOp.DP
    alpha_ops = [op for op in AlphaOp if op != AlphaOp.DP or rgb_op == RgbOp.DP3]
    return rgb_op, rng.choice(alpha_ops)


def random_instruction(rng):
    """Six words of a random legal ALU or OUT instruction on temporaries 0-2."""
    rgb_op, alpha_op = random_ops(rng)
    return [
        US_CMN_INST.pack(TYPE=rng.choice((InstType.ALU, InstType.OUT)),
                         RGB_CLAMP=rng.getrandbits(1), ALPHA_CLAMP=rng.getrandbits(1)),
        addr(*TEMPORARIES, srcp=rng.getrandbits(2)),
        addr(*TEMPORARIES, srcp=rng.getrandbits(2)),
        random_word(US_ALU_RGB_INST, rng),
        random_word(US_ALU_ALPHA_INST, rng, ALPHA_OP=alpha_op),
        random_word(US_ALU_RGBA_INST, rng, RGB_OP=rgb_op),
    ]


@pytest.mark.slow
def test_random_instructions():
    rng = random.Random(4)
    cases = []
    for q in range(RANDOM_QUADS):
        words = random_instruction(rng)
        cases.append((f"random {q}", words, random_quad(rng)))
    ops = {(decode(w).rgba["RGB_OP"], decode(w).alpha["ALPHA_OP"]) for _, w, _ in cases}
    assert {rgb for rgb, _ in ops} == set(RgbOp) and {a for _, a in ops} == set(AlphaOp)
    assert run(cases, 4) == RANDOM_QUADS * LANES
