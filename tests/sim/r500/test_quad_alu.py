"""The quad model's ALU and OUT instructions (r500-us.md §3.2-3.4), one feature at a time."""

import math

import pytest

from hdl.isa import RgbOp, AlphaOp, SrcpOp, PredSel, Compare
from sim.fc_model import fc_loop, fc_endloop, fc_if, fc_endif, int_const
from sim.r500 import fp32
from tests.helpers.r500 import alu, bits, fc, f, floats, run, vec

NAN = bits(fp32.CANONICAL_NAN)
NEG_ZERO = bits(fp32.NEG_ZERO)
RGBA = dict(RGB_WMASK=7, ALPHA_WMASK=1)


def temps_after(program, temps=None, lane=0, **kw):
    result = run(program, temps, **kw)
    assert result.error is None, result.error
    return result.lanes[lane].temps


def t1_after(inst, temps=None, **kw):
    """temp[1] of lane 0 after one instruction that writes it."""
    return temps_after([inst], temps, **kw)[1]


def mov(**kw):
    """t1 = src0 (both units, every channel)."""
    return alu(rgb=("t0",), alpha=("t0",), rgb_dest=1, alpha_dest=1, **RGBA, **kw)


# --- operations ----------------------------------------------------------------------------

def test_mad_both_units():
    inst = alu(RgbOp.MAD, "src0.rgb", "src1.rgb", "src2.rgb", AlphaOp.MAD, "src0.a", "src1.a",
               "src2.a", rgb=("t0", "t1", "t2"), alpha=("t0", "t1", "t2"), rgb_dest=3,
               alpha_dest=3, **RGBA)
    temps = temps_after([inst], {0: (1.5, 2, 3, 4), 1: (2, 0.5, -1, 2), 2: (0.25, 1, 1, -8)})
    assert floats(temps[3]) == [3.25, 2.0, -2.0, 0.0]


def test_mad_is_not_fused():
    """(a·b) + c rounds twice: (1 + 2^-12)² − 1 loses the 2^-24 term a fused MAD keeps."""
    a = 1 + 2 ** -12
    inst = alu(a="src0.rrr", b="src0.rrr", c="-src0.111", rgb=("t0",), rgb_dest=1, RGB_WMASK=1)
    assert floats(t1_after(inst, {0: (a, 0, 0, 0)}))[0] == 2 ** -11


def test_dot_products():
    temps = {0: (1, 2, 3, 4), 1: (5, 6, 7, 8), 2: (0, 0, 100, 0)}
    srcs = dict(rgb=("t0", "t1", "t2"), alpha=("t0", "t1", "t2"), rgb_dest=3, alpha_dest=3,
                **RGBA)
    dp3 = alu(RgbOp.DP3, "src0.rgb", "src1.rgb", alpha_op=AlphaOp.DP, **srcs)
    assert floats(temps_after([dp3], temps)[3]) == [38.0] * 4
    dp4 = alu(RgbOp.DP4, "src0.rgb", "src1.rgb", alpha_op=AlphaOp.DP, aa="src0.a",
              ab="src1.a", **srcs)
    assert floats(temps_after([dp4], temps)[3]) == [70.0] * 4
    d2a = alu(RgbOp.D2A, "src0.rgb", "src1.rgb", "src2.rgb", **srcs)
    assert floats(temps_after([d2a], temps)[3])[:3] == [117.0] * 3


@pytest.mark.parametrize("op, a, b, omod, expect", [
    (RgbOp.MIN, NAN, 1.0, 0, 1.0),                  # NaN < 1 is false: B
    (RgbOp.MIN, 1.0, NAN, 0, NAN),                  # 1 < NaN is false: B, canonical
    (RgbOp.MIN, 1.0, bits(0xFFC00001), 7, bits(0xFFC00001)),   # OMOD 7: the NaN as it was
    (RgbOp.MIN, NEG_ZERO, 0.0, 7, 0.0),             # -0 < +0 is false
    (RgbOp.MAX, NEG_ZERO, 0.0, 7, NEG_ZERO),        # -0 >= +0
    (RgbOp.MAX, 2.0, -3.0, 0, 2.0),
    (RgbOp.MIN, 2.0, -3.0, 0, -3.0),
])
def test_min_max(op, a, b, omod, expect):
    inst = alu(op, "src0.rrr", "src1.rrr", rgb=("t0", "t1"), rgb_dest=1, rgb_omod=omod,
               RGB_WMASK=1)
    assert t1_after(inst, {0: (a, 0, 0, 0), 1: (b, 0, 0, 0)})[0] == f(expect)


@pytest.mark.parametrize("op, cond, expect", [
    (RgbOp.CND, 0.5, 2.0), (RgbOp.CND, 0.50001, 1.0), (RgbOp.CND, NAN, 2.0),
    (RgbOp.CMP, 0.0, 1.0), (RgbOp.CMP, NEG_ZERO, 1.0), (RgbOp.CMP, -1e-30, 2.0),
    (RgbOp.CMP, NAN, 2.0),
])
def test_cnd_cmp(op, cond, expect):
    alpha_op = {RgbOp.CND: AlphaOp.CND, RgbOp.CMP: AlphaOp.CMP}[op]
    inst = alu(op, "src0.111", "src0.rrr", "src1.rrr", alpha_op, "src0.1", "src0.r", "src1.r",
               rgb=("t0", "t1"), alpha=("t0", "t1"), rgb_dest=1, alpha_dest=1, **RGBA)
    assert floats(t1_after(inst, {0: (2, 0, 0, 0), 1: (cond, 0, 0, 0)})) == [expect] * 4


def test_frc():
    inst = alu(RgbOp.FRC, "src0.rgb", alpha_op=AlphaOp.FRC, aa="src0.a", rgb=("t0",),
               alpha=("t0",), rgb_dest=1, alpha_dest=1, **RGBA)
    assert floats(t1_after(inst, {0: (-1.25, 2.5, 7, -0.0)})) == [0.75, 0.5, 0.0, 0.0]


@pytest.mark.parametrize("op, x, expect", [
    (AlphaOp.EX2, 3.0, 8.0), (AlphaOp.EX2, -2.0, 0.25), (AlphaOp.EX2, 128.0, math.inf),
    (AlphaOp.EX2, -127.0, 0.0), (AlphaOp.LN2, 8.0, 3.0), (AlphaOp.LN2, -0.25, -2.0),
    (AlphaOp.LN2, 0.0, -math.inf), (AlphaOp.LN2, math.inf, math.inf),
    (AlphaOp.RCP, 4.0, 0.25), (AlphaOp.RCP, NEG_ZERO, -math.inf),
    (AlphaOp.RCP, -math.inf, NEG_ZERO),
    (AlphaOp.RSQ, 16.0, 0.25), (AlphaOp.RSQ, -4.0, 0.5), (AlphaOp.RSQ, 0.0, math.inf),
    (AlphaOp.SIN, 0.25, 1.0), (AlphaOp.SIN, 0.75, -1.0), (AlphaOp.SIN, 10.5, 0.0),
    (AlphaOp.COS, 0.5, -1.0), (AlphaOp.COS, -3.0, 1.0), (AlphaOp.COS, math.inf, NAN),
    (AlphaOp.SIN, NAN, NAN),
])
def test_special_functions(op, x, expect):
    inst = alu(alpha_op=op, aa="src0.a", alpha=("t0",), alpha_dest=1, ALPHA_WMASK=1)
    assert t1_after(inst, {0: (0, 0, 0, x)})[3] == f(expect)


def ulp32(x):
    return 2.0 ** (math.frexp(x)[1] - 24)


def test_special_functions_accuracy():
    """Normal results within the bounds of §3.3 (against Python's float functions)."""
    lane_x = [0.3, 1.7, -2.2, 5.123]
    for op, fn, ulps in ((AlphaOp.EX2, lambda x: 2 ** x, 2), (AlphaOp.RCP, lambda x: 1 / x, 1),
                         (AlphaOp.RSQ, lambda x: abs(x) ** -0.5, 2)):
        inst = alu(alpha_op=op, aa="src0.a", alpha=("t0",), alpha_dest=1, ALPHA_WMASK=1)
        result = run([inst], [{0: (0, 0, 0, x)} for x in lane_x])
        for x, lane in zip(lane_x, result.lanes):
            got, want = lane.temps[1][3], fn(fp32.to_float(f(x)))
            assert abs(fp32.to_float(got) - want) <= ulps * ulp32(want)
    for op, fn in ((AlphaOp.SIN, math.sin), (AlphaOp.COS, math.cos)):
        inst = alu(alpha_op=op, aa="src0.a", alpha=("t0",), alpha_dest=1, ALPHA_WMASK=1)
        result = run([inst], [{0: (0, 0, 0, x)} for x in lane_x])
        for x, lane in zip(lane_x, result.lanes):
            want = fn(2 * math.pi * fp32.to_float(f(x)))
            assert abs(fp32.to_float(lane.temps[1][3]) - want) <= 2 ** -20


def test_sop_takes_the_raw_alpha_then_the_rgb_omod_and_clamp():
    inst = alu(RgbOp.SOP, alpha_op=AlphaOp.EX2, aa="src0.a", rgb=("t0",), alpha=("t0",),
               rgb_dest=1, alpha_dest=1, rgb_omod=1, alpha_omod=4, **RGBA)
    assert floats(t1_after(inst, {0: (0, 0, 0, 3)})) == [16.0, 16.0, 16.0, 4.0]
    clamped = alu(RgbOp.SOP, alpha_op=AlphaOp.EX2, aa="src0.a", rgb=("t0",), alpha=("t0",),
                  rgb_dest=1, alpha_dest=1, **RGBA, RGB_CLAMP=1)
    assert floats(t1_after(clamped, {0: (0, 0, 0, 3)})) == [1.0, 1.0, 1.0, 8.0]


def test_alpha_dp_takes_the_raw_dot_product_then_the_alpha_omod_and_clamp():
    inst = alu(RgbOp.DP3, "src0.rgb", "src0.rgb", alpha_op=AlphaOp.DP, rgb=("t0",),
               rgb_dest=1, alpha_dest=1, rgb_omod=1, alpha_omod=4, **RGBA, ALPHA_CLAMP=1)
    assert floats(t1_after(inst, {0: (1, 1, 1, 0)})) == [6.0, 6.0, 6.0, 1.0]


# --- zeros, NaN, subnormals, modifiers -----------------------------------------------------

def test_mesa_mov_keeps_negative_zero():
    """MOV x, -|c| is MAD(-|c|, 1, 0): the sum of two zeros is its left operand."""
    inst = alu(a="-|src0.rgb|", rgb=("c0",), alpha=("c0",), aa="-|src0.a|", rgb_dest=1,
               alpha_dest=1, **RGBA)
    assert t1_after(inst, constants={0: (0.0, -0.0, 2.0, 0.0)}) == vec(
        NEG_ZERO, NEG_ZERO, -2.0, NEG_ZERO)


@pytest.mark.parametrize("operand, x, expect", [
    ("-src0.rrr", 0.0, NEG_ZERO), ("|src0.rrr|", -0.0, 0.0), ("-|src0.rrr|", 3.0, -3.0),
    ("-src0.rrr", NAN, bits(0xFFC00000)), ("|src0.rrr|", bits(0xFFC00123), bits(0x7FC00123)),
])
def test_modifiers_act_on_the_sign_bit(operand, x, expect):
    """MAX(x, x) with OMOD 7 moves the bit pattern through."""
    inst = alu(RgbOp.MAX, operand, operand, rgb=("t0",), rgb_dest=1, rgb_omod=7, RGB_WMASK=1)
    assert t1_after(inst, {0: (x, 0, 0, 0)})[0] == f(expect)


def test_nan_results_are_canonical():
    inst = alu(a="-src0.rgb", rgb=("t0",), rgb_dest=1, RGB_WMASK=7)
    assert t1_after(inst, {0: (bits(0x7F800001), math.inf, 0, 0)})[:2] == [
        fp32.CANONICAL_NAN, fp32.NEG_INF]


def test_subnormal_operands_read_as_signed_zeros():
    inst = alu(RgbOp.MAX, "src0.rgb", "src0.rgb", rgb=("t0",), rgb_dest=1, rgb_omod=7,
               RGB_WMASK=7)
    assert t1_after(inst, {0: (bits(1), bits(0x807FFFFF), bits(0x00800000), 0)})[:3] == [
        0, fp32.NEG_ZERO, 0x00800000]


@pytest.mark.parametrize("swizzle, expect", [
    ("src0.bgr", [3.0, 2.0, 1.0]), ("src0.a0h", [4.0, 0.0, 0.5]), ("src0.1_r", [1.0, 0.0, 1.0]),
])
def test_swizzles(swizzle, expect):
    inst = alu(a=swizzle, rgb=("t0",), alpha=("t0",), rgb_dest=1, RGB_WMASK=7)
    assert floats(t1_after(inst, {0: (1, 2, 3, 4)}))[:3] == expect


@pytest.mark.parametrize("op, expect", [
    (SrcpOp.NEG2, [0.5, -1.0, 1.0, -7.0]), (SrcpOp.SUB, [1.75, 1.0, NEG_ZERO, 4.0]),
    (SrcpOp.ADD, [2.25, 3.0, NEG_ZERO, 12.0]), (SrcpOp.NEG, [0.75, 0.0, 1.0, -3.0]),
])
def test_srcp(op, expect):
    inst = alu(a="srcp.rgb", aa="srcp.a", rgb=("t0", "t1"), alpha=("t0", "t1"), rgb_srcp=op,
               alpha_srcp=op, rgb_dest=2, alpha_dest=2, rgb_omod=7, alpha_omod=7, **RGBA)
    temps = temps_after([inst], {0: (0.25, 1, 0, 4), 1: (2, 2, NEG_ZERO, 8)})
    assert temps[2] == vec(*expect)


def test_srcp_rgb_and_alpha_ops_are_separate():
    inst = alu(a="srcp.rgb", aa="srcp.a", rgb=("t0", "t1"), alpha=("t0", "t1"),
               rgb_srcp=SrcpOp.ADD, alpha_srcp=SrcpOp.SUB, rgb_dest=2, alpha_dest=2, **RGBA)
    assert floats(temps_after([inst], {0: (1, 1, 1, 1), 1: (3, 3, 3, 3)})[2]) == [4, 4, 4, 2]


@pytest.mark.parametrize("code, value", [(0, 0.0), (1, 2 ** -9), (7, 7 * 2 ** -9), (56, 1.0),
                                         (64, 2.0), (82, 10.0), (61, 1.625), (127, 480.0)])
def test_inline_constants(code, value):
    inst = alu(rgb=(f"i{code}",), alpha=(f"i{code}",), rgb_dest=1, alpha_dest=1, **RGBA)
    assert floats(t1_after(inst)) == [value] * 4


def test_constants_and_relative_addressing():
    """REL adds aL: mod 256 for constants, mod 128 for temporaries, not for inline constants;
    .rgb and .a of a slot come from the two addresses."""
    body = alu(RgbOp.MAD, "src0.rgb", "src1.111", "src2.rgb", AlphaOp.MAD, "src0.a", "src1.1",
               "src2.a", rgb=("c250+", "i56+", "t120+"), alpha=("c4", "i56", "t2+"),
               rgb_dest=1, alpha_dest=120, alpha_dest_rel=1, **RGBA)
    program = [fc(fc_loop(2, 0)), body, fc(fc_endloop(1, 0))]
    temps = temps_after(program, {2: (100, 200, 300, 400), 12: (1, 1, 1, 1)},
                        constants={4: (1, 2, 3, 4), 250: (-1, -1, -1, -1)},
                        int_consts=[int_const(1, 10)])
    assert floats(temps[1])[:3] == [101.0, 202.0, 303.0]      # c4 + t2 (aL = 10)
    assert floats(temps[2])[3] == 5.0                         # c4.a + t12.a into t(120 + 10)


# --- OMOD, clamp ---------------------------------------------------------------------------

@pytest.mark.parametrize("omod, value", [(0, 3.0), (1, 6.0), (2, 12.0), (3, 24.0), (4, 1.5),
                                         (5, 0.75), (6, 0.375)])
def test_omod(omod, value):
    inst = mov(rgb_omod=omod, alpha_omod=omod)
    assert floats(t1_after(inst, {0: (3, 3, 3, 3)})) == [value] * 4


def test_clamp_and_omod_7():
    inst = mov(RGB_CLAMP=1, ALPHA_CLAMP=1)
    assert t1_after(inst, {0: (-1.0, NEG_ZERO, 0.5, 3.0)}) == vec(0.0, 0.0, 0.5, 1.0)
    assert t1_after(inst, {0: (NAN, math.inf, -math.inf, 1.0)}) == vec(0.0, 1.0, 0.0, 1.0)
    disabled = mov(rgb_omod=7, alpha_omod=7, RGB_CLAMP=1, ALPHA_CLAMP=1)
    assert floats(t1_after(disabled, {0: (-1.0, 3.0, 0.5, 7.0)})) == [-1.0, 3.0, 0.5, 7.0]


def test_omod_overflow_and_flush():
    inst = mov(rgb_omod=3, alpha_omod=6)
    assert t1_after(inst, {0: (3e38, 0, 0, 2 ** -125)}) == vec(math.inf, 0.0, 0.0, 0.0)


# --- writes, predicates, alu_result --------------------------------------------------------

def test_write_masks_and_destination_read_before_write():
    """t0.rgb = t0.bbb and t0.a = t0.r: the alpha unit reads the old red."""
    inst = alu(a="src0.bbb", aa="src0.r", rgb=("t0",), alpha=("t0",), RGB_WMASK=5,
               ALPHA_WMASK=1)
    assert floats(temps_after([inst], {0: (1, 2, 3, 4)})[0]) == [3.0, 2.0, 3.0, 1.0]


def test_predicate_updates_and_predication():
    lanes = [{0: (-1, 2, 0, 0)}, {0: (1, -2, -3, 5)}, {0: (0, 0, 0, NAN)}, {0: (-5, -5, -5, 1)}]
    set_pred = alu(rgb=("t0",), alpha=("t0",), rgb_target=Compare.LT, alpha_target=Compare.NE,
                   RGB_OMASK=7, ALPHA_OMASK=1)
    ones = dict(rgb=("i56",), alpha=("i56",), **RGBA)
    by_own_bit = alu(rgb_dest=1, alpha_dest=1, RGB_PRED_SEL=PredSel.RGBA,
                     ALPHA_PRED_SEL=PredSel.RGBA, **ones)
    by_not_g = alu(rgb_dest=2, alpha_dest=2, RGB_PRED_SEL=PredSel.GGGG, RGB_PRED_INV=1,
                   ALPHA_PRED_SEL=PredSel.RRRR, **ones)
    result = run([set_pred, by_own_bit, by_not_g], lanes)
    assert result.error is None
    pred = [[int(x < 0) for x in (-1, 2, 0)] + [0], [0, 1, 1, 1], [0, 0, 0, 1], [1, 1, 1, 1]]
    for lane, bits_ in zip(result.lanes, pred):
        assert floats(lane.temps[1]) == [float(b) for b in bits_]
        assert floats(lane.temps[2]) == [float(not bits_[1])] * 3 + [float(bits_[0])]


def test_predication_reads_the_predicates_before_the_instruction():
    """R is set to (t0.r == 0) by the instruction that is predicated on R: it writes nowhere
    the first time, everywhere R held before."""
    inst = alu(rgb=("t0",), rgb_dest=1, rgb_target=Compare.EQ, RGB_OMASK=1, RGB_WMASK=1,
               RGB_PRED_SEL=PredSel.RRRR)
    result = run([inst, inst], {0: (0, 0, 0, 0), 1: (5, 5, 5, 5)})
    assert result.lanes[0].temps[1][0] == 0         # second instruction: R was set
    result = run([inst], {0: (0, 0, 0, 0), 1: (5, 5, 5, 5)})
    assert floats(result.lanes[0].temps[1])[0] == 5.0


def test_alu_result_from_red_or_alpha_drives_an_if():
    """ALU_WMASK: alu_result = red >= 0 (or alpha != 0); IF skips the write where it is 0."""
    for sel, op, lanes_taken in ((0, Compare.GE, [1, 0, 1, 0]), (1, Compare.NE, [1, 1, 0, 0])):
        lanes = [{0: (1, 0, 0, 2)}, {0: (-1, 0, 0, 2)}, {0: (0, 0, 0, 0)}, {0: (-0.5, 0, 0, 0)}]
        program = [alu(rgb=("t0",), alpha=("t0",), alu_wmask=1, ALU_RESULT_SEL=sel,
                       ALU_RESULT_OP=op),
                   fc(fc_if(4, has_else=False)),
                   alu(rgb=("i56",), rgb_dest=1, RGB_WMASK=7),
                   fc(fc_endif(4)),
                   alu()]
        result = run(program, lanes)
        assert [int(lane.temps[1][0] == fp32.ONE) for lane in result.lanes] == lanes_taken


def test_write_inactive_writes_every_unkilled_lane_but_updates_only_active_ones():
    lanes = [{0: (1, 0, 0, 0)}, {0: (1, 0, 0, 0)}, {0: (-1, 0, 0, 0)}, {0: (-1, 0, 0, 0)}]
    program = [alu(rgb=("t0",), alu_wmask=1, ALU_RESULT_OP=Compare.GE),
               fc(fc_if(5, has_else=False)),
               alu(rgb=("i64",), rgb_dest=1, RGB_WMASK=1, WRITE_INACTIVE=1, alu_wmask=1,
                   ALU_RESULT_OP=Compare.LT, RGB_OMASK=1, rgb_target=Compare.NE),
               alu(rgb=("i56",), rgb_dest=2, RGB_WMASK=1),
               fc(fc_endif(5)),
               alu()]
    result = run(program, lanes)
    assert [floats(lane.temps[1])[0] for lane in result.lanes] == [2.0] * 4
    assert [floats(lane.temps[2])[0] for lane in result.lanes] == [1.0, 1.0, 0.0, 0.0]


def test_out_writes_render_targets_and_w():
    program = [alu(rgb=("t0",), alpha=("t0",), out=True, RGB_OMASK=5, rgb_target=2,
                   ALPHA_OMASK=1, alpha_target=1, w=1),
               alu(a="src0.ggg", rgb=("t0",), out=True, RGB_OMASK=2, rgb_target=2),
               alu(a="src0.ggg", aa="src0.g", rgb=("t0",), alpha=("t0",), w=1, RGB_OMASK=1,
                   rgb_target=Compare.LT)]   # ALU-type: OMASK sets predicates, no W
    result = run(program, {0: (1, 2, 3, 4)}, covered=(True, False, True, True))
    lane = result.lanes[0]
    assert lane.outputs == {2: vec(1, 2, 3, 0), 1: vec(0, 0, 0, 4)}
    assert lane.w == f(4.0)
    uncovered = result.lanes[1]
    assert uncovered.outputs == {} and uncovered.w == 0 and not uncovered.covered


def test_w_is_predicated_by_the_alpha_channel():
    program = [alu(alpha=("t0",), alpha_target=Compare.GE, ALPHA_OMASK=1),
               alu(alpha=("t0",), out=True, w=1, ALPHA_PRED_SEL=PredSel.AAAA)]
    result = run(program, [{0: (0, 0, 0, x)} for x in (1, -1, 0, -0.0)])
    assert [lane.w for lane in result.lanes] == [f(1.0), 0, 0, fp32.NEG_ZERO]


def test_mdh_mdv_across_lanes():
    """MDH: (A₀·B) + C₁, MDV with C₂: A and C are slot 0 of lanes 0 and 1/2 with their
    modifiers (selects and swizzles ignored); B is each lane's own. Every lane reads before
    lane 0 overwrites its slot-0 temporary."""
    values = [(1, 10, 100, 1000), (3, 30, 300, 3000), (7, 70, 700, 7000), (15, 150, 1500, 0)]
    lanes = [{0: v, 1: (i + 1,) * 4} for i, v in enumerate(values)]
    for rgb_op, alpha_op, neighbour in ((RgbOp.MDH, AlphaOp.MDH, 1),
                                        (RgbOp.MDV, AlphaOp.MDV, 2)):
        inst = alu(rgb_op, "-src1.000", "src1.rgb", "src2.g01", alpha_op, "-src1.0", "src1.a",
                   "src2.1", rgb=("t0", "t1"), alpha=("t0", "t1"), **RGBA)
        result = run([inst], lanes)
        for i, lane in enumerate(result.lanes):
            expect = [values[neighbour][c] - (i + 1) * values[0][c] for c in range(4)]
            assert floats(lane.temps[0]) == expect
