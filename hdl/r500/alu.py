"""The R500 core's lane datapath: ``sim.r500.alu.unit_results`` for one lane of an ALU/OUT
instruction, bit for bit (r500-us.md §3.2-3.4; docs/r500-core.md, "The lane datapath").

One lane-op (one pixel's three source slots and the instruction's fields) enters per cycle; its
four results (the RGB unit's r, g, b and the alpha unit's a, after OMOD and clamp) come out
LATENCY = 28 cycles later, never stalling. Every operation takes the same path, so the latency
is the longest operation's, DP4's (the stage numbers below count from the input register):

* 1-7: ``alu_operands.LaneOperands``: the inputs registered, srcp, A, B and C per channel;
* 8-11: four ``FpMul``, A·B per channel (FRC: A·1). Beside them, 8: the selects' order keys
  and C's compares, floor(A)'s fraction mask; 9: the selects' decisions (MIN, MAX, CND, CMP)
  and −floor(A); 10: each channel's addend, C, or −floor(A) for FRC, or the select's pick,
  which rides the addend's registers on to stage 17; 8-18: the ``SpecialFunctionUnit`` on the
  alpha unit's A. The selects, the floor and the special function read copies of A's and B's
  registers of their own, the multipliers theirs;
* 12: the adders' operands, registered: product and addend per channel, but the green product
  as the red adder's second operand for DP3, DP4 and D2A;
* 13-16: four ``FpAdd``, product + addend (the dot products: red + green);
* 17: each unit's result but a dot product's or a special function's (the sum or the pick;
  SOP: the alpha unit's);
* 17-20: ``FpAdd``, + the third product (DP3, DP4) or + C.b (D2A); 21: DP3's and D2A's results,
  the alpha unit's DP after DP3, and the special function's result (SOP: in every channel);
* 21-24: ``FpAdd``, + Aα·Bα (DP4); 25: DP4's results, in both units;
* 26-28: four ``FpPost``, OMOD (two stages) then clamp.

Every choice between values sits in a stage of its own, after registers: no multiplexer follows
an adder's rounding in its cycle, and none stands in front of an adder's first stage (stage 12
is there for the red adder's: in front of ``FpAdd``'s operand compare and alignment it made the
unit's slowest path, ~16 ns on the ECP5). Datapath registers have no reset; ``o_valid`` is
``i_valid`` delayed. Illegal encodings (RGB_OP 6, 13-15, ALPHA_OP 4, DP pairings) compute
something of no use: the decoder rejects them first.
"""

from amaranth import Module, Mux, Signal
from amaranth.lib.wiring import In, Out

from hdl.isa import US_ALU_ALPHA_INST, US_ALU_RGB_INST, US_ALU_RGBA_INST
from hdl.lib.pipeline import delay, register_stage
from hdl.r500.alu_control import SelectKind
from hdl.r500.alu_operands import ALPHA, SLOTS_LAYOUT, LaneOperands
from hdl.r500.fp32 import SIGN, PipelinedUnit, flush
from hdl.r500.fp_add import FpAdd
from hdl.r500.fp_compare import HALF, ZERO, fp_ge, fp_gt, is_nan, order_key
from hdl.r500.fp_frc import floor_parts, floor_value
from hdl.r500.fp_mul import FpMul
from hdl.r500.fp_post import FpPost
from hdl.r500.operand_values import VEC4
from hdl.r500.sfu import SpecialFunctionUnit

__all__ = ["LaneAlu"]

CHANNELS = ALPHA + 1

# the pipeline stages where each value is registered
OPERANDS = LaneOperands.LATENCY
KEYS = OPERANDS + 1                     # the compares' keys, floor(A)'s mask
DECISIONS = KEYS + 1                    # the selects' decisions, −floor(A)
ADDENDS = DECISIONS + 1                 # C, −floor(A) or the select's pick
PRODUCTS = OPERANDS + FpMul.LATENCY
SPECIAL = OPERANDS + SpecialFunctionUnit.LATENCY
TERMS = PRODUCTS + 1                    # the adders' operands
SUMS = TERMS + FpAdd.LATENCY
EARLY = SUMS + 1                        # every result but a dot product's
DOT3_SUM = SUMS + FpAdd.LATENCY         # + the third term
DOT3 = DOT3_SUM + 1                     # DP3, D2A and the alpha unit's DP done
DOT4_SUM = DOT3_SUM + FpAdd.LATENCY     # + the fourth term
RAW = DOT4_SUM + 1                      # DP4 done: every raw result
assert ADDENDS <= PRODUCTS and SPECIAL <= DOT3_SUM


def _unit(control, channel):
    """The UNIT_CONTROL of the unit computing ``channel``."""
    return control.alpha if channel == ALPHA else control.rgb


def _keys(a, b, c):
    """What a select's decision needs, for one register between it and A, B, C: the order keys
    of A and B (the flush and the key before a 32-bit compare made a ~14 ns path), whether
    either is a NaN, and C's compares with constants (short)."""
    return {"key_a": order_key(a), "key_b": order_key(b), "unordered": is_nan(a) | is_nan(b),
            "c_gt_half": fp_gt(c, HALF), "c_ge_zero": fp_ge(c, ZERO)}


def _takes_a(m, kind, keys):
    """A select's decision, A (1) or B (0), by its ``kind`` (a SelectKind view), from
    ``_keys``' values."""
    less = keys["key_a"] < keys["key_b"]
    ordered = ~keys["unordered"]
    decisions = {
        SelectKind.MIN: ordered & less,
        SelectKind.MAX: ordered & ~less,                            # a >= b, one comparator
        SelectKind.CND: keys["c_gt_half"],
        SelectKind.CMP: keys["c_ge_zero"],
    }
    takes = Signal()
    with m.Switch(kind):
        for case, decision in decisions.items():
            with m.Case(case):
                m.d.comb += takes.eq(decision)
    return takes


def _adder(m, name, valid, a, b):
    """An FpAdd of ``a`` and ``b``, named ``name``; its registered sum."""
    add = FpAdd()
    m.submodules[name] = add
    m.d.comb += [add.i_valid.eq(valid), add.i_a.eq(a), add.i_b.eq(b)]
    return add.o_result


class LaneAlu(PipelinedUnit):
    """One lane-op per cycle: ``o_result`` (r, g, b, a after OMOD and clamp) LATENCY cycles
    after ``i_valid``."""

    LATENCY = RAW + FpPost.LATENCY

    i_valid: In(1)
    i_rgb: In(US_ALU_RGB_INST.layout)           # inst3
    i_alpha: In(US_ALU_ALPHA_INST.layout)       # inst4
    i_rgba: In(US_ALU_RGBA_INST.layout)         # inst5
    i_rgb_srcp: In(2)                           # SRCP_OP of inst1
    i_alpha_srcp: In(2)                         # SRCP_OP of inst2
    i_rgb_clamp: In(1)                          # inst0's RGB_CLAMP
    i_alpha_clamp: In(1)                        # inst0's ALPHA_CLAMP
    i_slots: In(SLOTS_LAYOUT)                   # this lane's slots 0-2, as stored
    i_quad_slot0: In(SLOTS_LAYOUT)              # slot 0 of lanes 0, 1, 2, as stored
    o_valid: Out(1)
    o_result: Out(VEC4)

    def elaborate(self, platform):
        m = Module()

        # stages 1-7: A, B, C
        m.submodules.operands = operands = LaneOperands()
        for name in ("valid", "rgb", "alpha", "rgba", "rgb_srcp", "alpha_srcp", "rgb_clamp",
                     "alpha_clamp", "slots", "quad_slot0"):
            m.d.comb += getattr(operands, f"i_{name}").eq(getattr(self, f"i_{name}"))
        valid, control = operands.o_valid, operands.o_control
        a, b, c = operands.o_a, operands.o_b, operands.o_c

        # stages 8-11: the products; 8-13: the special function
        products = []
        for channel in range(CHANNELS):
            mul = FpMul()
            m.submodules[f"mul{channel}"] = mul
            m.d.comb += [mul.i_valid.eq(valid), mul.i_a.eq(a[channel]),
                         mul.i_b.eq(b[channel])]
            products.append(mul.o_result)
        m.submodules.sfu = sfu = SpecialFunctionUnit()
        m.d.comb += [sfu.i_valid.eq(valid), sfu.i_op.eq(control.special_op),
                     sfu.i_a.eq(operands.o_a_sfu)]
        # the selects and the floor read their own copies of A and B
        a, b = operands.o_a_select, operands.o_b_select

        # stage 8: the compares' keys and floor(A)'s mask; A and B flushed for the pick (the
        # selects return the operand they choose flushed; the floor reads A flushed too)
        keyed = {"valid": valid, "control": control}
        for channel in range(CHANNELS):
            floor = floor_parts(m, a[channel])
            keyed.update({
                f"a{channel}": floor["flushed"], f"b{channel}": flush(b[channel]),
                f"c{channel}": c[channel],
                **{f"{name}{channel}": value
                   for name, value in _keys(a[channel], b[channel], c[channel]).items()},
                **{f"floor_{name}{channel}": value for name, value in floor.items()
                   if name != "flushed"},
            })
        keyed = register_stage(m, KEYS, keyed)

        # stage 9: the selects' decisions and −floor(A)
        decided = {"valid": keyed["valid"], "control": keyed["control"]}
        for channel in range(CHANNELS):
            kind = _unit(keyed["control"], channel).select_kind
            keys = {name: keyed[f"{name}{channel}"]
                    for name in ("key_a", "key_b", "unordered", "c_gt_half", "c_ge_zero")}
            floor = {"flushed": keyed[f"a{channel}"],
                     **{name: keyed[f"floor_{name}{channel}"]
                        for name in ("mask", "nan", "kept", "small")}}
            decided.update({
                f"a{channel}": keyed[f"a{channel}"], f"b{channel}": keyed[f"b{channel}"],
                f"c{channel}": keyed[f"c{channel}"],
                f"takes_a{channel}": _takes_a(m, kind, keys),
                f"neg_floor{channel}": floor_value(m, floor) ^ SIGN,
            })
        decided = register_stage(m, DECISIONS, decided)

        # stage 10: each channel's addend; a select's pick rides the addend's registers
        addends = {"valid": decided["valid"], "control": decided["control"]}
        for channel in range(CHANNELS):
            unit = _unit(decided["control"], channel)
            pick = Mux(decided[f"takes_a{channel}"], decided[f"a{channel}"],
                       decided[f"b{channel}"])
            addends[f"addend{channel}"] = Mux(unit.frc, decided[f"neg_floor{channel}"],
                                              Mux(unit.select, pick, decided[f"c{channel}"]))
        addends = delay(m, "addends", register_stage(m, ADDENDS, addends), PRODUCTS - ADDENDS)
        control = addends["control"]

        # stage 12: the adders' operands, registered: the red adder's second one is the green
        # product for the dot products, and no multiplexer stands in front of an adder
        terms = register_stage(m, TERMS, {
            "valid": addends["valid"], "control": control,
            **{f"product{channel}": products[channel] for channel in range(CHANNELS)},
            **{f"addend{channel}": addends[f"addend{channel}"] for channel in range(CHANNELS)},
            "red_second": Mux(control.dot, products[1], addends["addend0"]),
            "third_term": Mux(control.d2a, addends["addend2"], products[2]),
        })

        # stages 13-16: product + addend; the dot products start on the red adder
        sums = [_adder(m, f"add{channel}", terms["valid"], terms[f"product{channel}"],
                       terms["red_second"] if channel == 0 else terms[f"addend{channel}"])
                for channel in range(CHANNELS)]
        terms = delay(m, "terms", {
            "valid": terms["valid"], "control": terms["control"],
            **{f"addend{channel}": terms[f"addend{channel}"] for channel in range(CHANNELS)},
            "third_term": terms["third_term"], "fourth_term": terms[f"product{ALPHA}"],
        }, SUMS - TERMS)
        control = terms["control"]

        # stages 17-20: + the third term
        dot3 = _adder(m, "add_dot3", terms["valid"], sums[0], terms["third_term"])

        # stage 17: every result but a dot product's or a special function's
        alpha_early = Mux(control.alpha.sum, sums[ALPHA], terms[f"addend{ALPHA}"])
        early = {"valid": terms["valid"], "control": control,
                 "fourth_term": terms["fourth_term"], f"early{ALPHA}": alpha_early}
        for channel in range(ALPHA):
            early[f"early{channel}"] = Mux(control.sop, alpha_early,
                                           Mux(control.rgb.sum, sums[channel],
                                               terms[f"addend{channel}"]))
        early = delay(m, "early", register_stage(m, EARLY, early), DOT3_SUM - EARLY)
        control = early["control"]

        # stages 21-24: + the fourth term
        dot4 = _adder(m, "add_dot4", early["valid"], dot3, early["fourth_term"])

        # stage 21: DP3 and D2A done, the alpha unit's DP after DP3, and the special function
        # (SOP: in every channel); the special-function unit is too long for stage 17
        special = delay(m, "special", {"special_result": sfu.o_result},
                        DOT3_SUM - SPECIAL)["special_result"]
        done3 = {"valid": early["valid"], "control": control}
        for channel in range(CHANNELS):
            dot = control.alpha_dp if channel == ALPHA else control.dot
            takes_special = control.special & (1 if channel == ALPHA else control.sop)
            done3[f"result{channel}"] = Mux(dot, dot3, Mux(takes_special, special,
                                                           early[f"early{channel}"]))
        done3 = delay(m, "done3", register_stage(m, DOT3, done3), DOT4_SUM - DOT3)
        control = done3["control"]

        # stage 25: DP4 done, in both units
        raw = register_stage(m, RAW, {
            "valid": done3["valid"], "control": control,
            **{f"raw{channel}": Mux(control.dp4, dot4, done3[f"result{channel}"])
               for channel in range(CHANNELS)},
        })

        # stages 26-28: OMOD, rounding, clamp
        for channel in range(CHANNELS):
            post = FpPost()
            m.submodules[f"post{channel}"] = post
            unit = _unit(raw["control"], channel)
            m.d.comb += [post.i_valid.eq(raw["valid"]), post.i_x.eq(raw[f"raw{channel}"]),
                         post.i_omod.eq(unit.omod), post.i_clamp.eq(unit.clamp),
                         self.o_result[channel].eq(post.o_result)]
            if channel == 0:
                m.d.comb += self.o_valid.eq(post.o_valid)
        return m
