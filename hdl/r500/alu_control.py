"""What the lane datapath (``alu.LaneAlu``) does with each lane-op, decoded once from RGB_OP
and ALPHA_OP (r500-us.md §3.3) into the bits its stages steer by (``CONTROL``).

Both units share the channel pipeline's shape: A·B + C on a multiplier and an adder (MAD; FRC
as A·1 + (−floor A); MDH and MDV with their own A and C), or a select on compares (MIN, MAX,
CND, CMP). The RGB unit's dot products use the red channel's adder and two more; the alpha unit
has the special functions.
"""

from enum import IntEnum
from functools import reduce
from operator import or_

from amaranth import Signal
from amaranth.lib import data

from hdl.isa import AlphaOp, RgbOp

__all__ = ["SelectKind", "UNIT_CONTROL", "CONTROL", "is_one_of", "decode_control"]


class SelectKind(IntEnum):
    """The decision a select takes: MIN A < B, MAX A >= B, CND C > 0.5, CMP C >= 0 (A if it
    holds, else B)."""
    MIN = 0
    MAX = 1
    CND = 2
    CMP = 3


#: one unit's steering bits
UNIT_CONTROL = data.StructLayout({
    "sum": 1,           # MAD, FRC, MDH, MDV: the result is the channel adder's sum
    "frc": 1,           # FRC: B is 1.0, C is −floor(A)
    "derivative": 1,    # MDH, MDV: A and C are slot 0 of lanes 0 and 1 (MDH) or 2 (MDV)
    "vertical": 1,      # MDV
    "select": 1,        # MIN, MAX, CND, CMP
    "select_kind": SelectKind,
    "omod": 3,
    "clamp": 1,
})

#: both units' bits and the RGB unit's dot products, SOP, the alpha unit's special functions
CONTROL = data.StructLayout({
    "rgb": UNIT_CONTROL,
    "alpha": UNIT_CONTROL,
    "dot": 1,           # DP3, DP4, D2A: the red adder sums the first two products
    "d2a": 1,           # D2A: the second adder adds C.b, not the third product
    "dp4": 1,           # DP4: the third adder's sum, for both units
    "sop": 1,           # SOP: the RGB unit takes the alpha unit's raw value
    "alpha_dp": 1,      # alpha DP: the RGB unit's dot product
    "special": 1,       # EX2 … COS
    "special_op": 3,    # SfuOp: ALPHA_OP − EX2
})


def is_one_of(value, *codes):
    """``value`` equals one of ``codes``."""
    return reduce(or_, (value == code for code in codes))


def _unit(m, control, op, ops, omod, clamp):
    """``control`` (a UNIT_CONTROL view) for ``op`` of the opcode enum ``ops``: the opcodes
    both units have, by name."""
    m.d.comb += [
        control.sum.eq(is_one_of(op, ops.MAD, ops.FRC, ops.MDH, ops.MDV)),
        control.frc.eq(op == ops.FRC),
        control.derivative.eq(is_one_of(op, ops.MDH, ops.MDV)),
        control.vertical.eq(op == ops.MDV),
        control.select.eq(is_one_of(op, ops.MIN, ops.MAX, ops.CND, ops.CMP)),
        control.omod.eq(omod),
        control.clamp.eq(clamp),
    ]
    with m.Switch(op):
        for kind in SelectKind:
            with m.Case(ops[kind.name]):
                m.d.comb += control.select_kind.eq(kind)


def decode_control(m, rgb_op, alpha_op, rgb_omod, alpha_omod, rgb_clamp, alpha_clamp):
    """The CONTROL of one lane-op (combinational)."""
    control = Signal(CONTROL)
    _unit(m, control.rgb, rgb_op, RgbOp, rgb_omod, rgb_clamp)
    _unit(m, control.alpha, alpha_op, AlphaOp, alpha_omod, alpha_clamp)
    m.d.comb += [
        control.dot.eq(is_one_of(rgb_op, RgbOp.DP3, RgbOp.DP4, RgbOp.D2A)),
        control.d2a.eq(rgb_op == RgbOp.D2A),
        control.dp4.eq(rgb_op == RgbOp.DP4),
        control.sop.eq(rgb_op == RgbOp.SOP),
        control.alpha_dp.eq(alpha_op == AlphaOp.DP),
        control.special.eq((alpha_op >= AlphaOp.EX2) & (alpha_op <= AlphaOp.COS)),
        control.special_op.eq(alpha_op - AlphaOp.EX2),
    ]
    return control
