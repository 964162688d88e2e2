"""The RGB and alpha units (r500-us.md §3.3, §3.4): raw results, then OMOD and clamp.

``unit_results`` works on all four lanes at once because MDH and MDV read other lanes' slot 0:
lane 0's (the A term) and lane 1's (MDH) or lane 2's (MDV) (the C term).
"""

from typing import NamedTuple

from hdl.isa import RgbOp, AlphaOp, Omod, Compare
from sim.r500 import fp32, sfu
from sim.r500.operands import apply_mod

__all__ = ["UnitResults", "unit_results", "finish", "compare_with_zero"]

# the lane whose slot 0 is the C term of a derivative
_NEIGHBOUR = {RgbOp.MDH: 1, RgbOp.MDV: 2, AlphaOp.MDH: 1, AlphaOp.MDV: 2}

_RGB_SELECT = {
    RgbOp.MIN: fp32.min_,
    RgbOp.MAX: fp32.max_,
}
_RGB_CONDITIONAL = {RgbOp.CND: fp32.cnd, RgbOp.CMP: fp32.cmp}
_ALPHA_SELECT = {AlphaOp.MIN: fp32.min_, AlphaOp.MAX: fp32.max_}
_ALPHA_CONDITIONAL = {AlphaOp.CND: fp32.cnd, AlphaOp.CMP: fp32.cmp}
_SPECIAL = {AlphaOp.EX2: sfu.ex2, AlphaOp.LN2: sfu.ln2, AlphaOp.RCP: sfu.rcp,
            AlphaOp.RSQ: sfu.rsq, AlphaOp.SIN: sfu.sin, AlphaOp.COS: sfu.cos}
_COMPARE = {Compare.EQ: fp32.eq, Compare.LT: fp32.lt, Compare.GE: fp32.ge, Compare.NE: fp32.ne}


class UnitResults(NamedTuple):
    """One lane's results after OMOD and clamp: three RGB channels and alpha."""
    rgb: list
    alpha: int


def finish(raw, omod, clamp):
    """clamp(OMOD(raw)); OMOD 7 is neither."""
    if omod == Omod.DISABLE:
        return raw
    value = fp32.omod(raw, omod)
    return fp32.clamp(value) if clamp else value


def compare_with_zero(compare, value):
    """``value ⟂ 0`` for a TARGET used as a predicate update, or ALU_RESULT_OP."""
    return int(_COMPARE[compare](value, fp32.ZERO))


def _derivative_terms(lanes, channel, a_mod, c_mod, op):
    """(A₀, C₁ or C₂) of MDH/MDV for one channel: slot 0 of lane 0 and of the neighbour, with the
    A and C modifiers (their selects and swizzles are ignored)."""
    a0 = apply_mod(a_mod, lanes[0].slots[0][channel])
    cn = apply_mod(c_mod, lanes[_NEIGHBOUR[op]].slots[0][channel])
    return a0, cn


def _rgb_raw(inst, lanes, lane):
    """The RGB unit's raw channels (None for SOP, which takes the alpha unit's value)."""
    op = RgbOp(inst.rgba["RGB_OP"])
    a, b, c = lanes[lane].rgb
    alpha_a, alpha_b, _ = lanes[lane].alpha
    if op == RgbOp.MAD:
        return [fp32.mad(a[i], b[i], c[i]) for i in range(3)]
    if op == RgbOp.DP3:
        return [fp32.dp3(a, b)] * 3
    if op == RgbOp.DP4:
        return [fp32.dp4(a + [alpha_a], b + [alpha_b])] * 3
    if op == RgbOp.D2A:
        return [fp32.d2a(a[:2], b[:2], c[2])] * 3
    if op in _RGB_SELECT:
        return [_RGB_SELECT[op](a[i], b[i]) for i in range(3)]
    if op in _RGB_CONDITIONAL:
        return [_RGB_CONDITIONAL[op](a[i], b[i], c[i]) for i in range(3)]
    if op == RgbOp.FRC:
        return [fp32.frc(a[i]) for i in range(3)]
    if op == RgbOp.SOP:
        return None
    # MDH, MDV
    result = []
    for i in range(3):
        a0, cn = _derivative_terms(lanes, i, inst.rgb["RGB_MOD_A"], inst.rgba["RGB_MOD_C"], op)
        result.append(fp32.mad(a0, b[i], cn))
    return result


def _alpha_raw(inst, lanes, lane, rgb_raw):
    op = AlphaOp(inst.alpha["ALPHA_OP"])
    a, b, c = lanes[lane].alpha
    if op == AlphaOp.MAD:
        return fp32.mad(a, b, c)
    if op == AlphaOp.DP:                # the RGB unit's DP3/DP4, before its OMOD and clamp
        return rgb_raw[0]
    if op in _ALPHA_SELECT:
        return _ALPHA_SELECT[op](a, b)
    if op in _ALPHA_CONDITIONAL:
        return _ALPHA_CONDITIONAL[op](a, b, c)
    if op == AlphaOp.FRC:
        return fp32.frc(a)
    if op in _SPECIAL:
        return _SPECIAL[op](a)
    a0, cn = _derivative_terms(lanes, 3, inst.alpha["ALPHA_MOD_A"], inst.rgba["ALPHA_MOD_C"], op)
    return fp32.mad(a0, b, cn)


def unit_results(inst, lanes):
    """Every lane's UnitResults of an ALU/OUT instruction from all lanes' LaneOperands."""
    results = []
    for lane in range(len(lanes)):
        rgb_raw = _rgb_raw(inst, lanes, lane)
        alpha_raw = _alpha_raw(inst, lanes, lane, rgb_raw)
        if rgb_raw is None:             # SOP: the raw alpha value, RGB OMOD and clamp
            rgb_raw = [alpha_raw] * 3
        rgb = [finish(v, inst.rgb["OMOD"], inst.cmn["RGB_CLAMP"]) for v in rgb_raw]
        alpha = finish(alpha_raw, inst.alpha["OMOD"], inst.cmn["ALPHA_CLAMP"])
        results.append(UnitResults(rgb, alpha))
    return results
