"""Flow control on the quad: the Mesa patterns of r500-us.md §2's table with diverging lanes,
driven by real ALU instructions, against each lane's result computed in plain Python; LAST,
uncovered lanes, and discard (TEXKILL) in an ELSE branch relying on -0.0."""

import pytest

from hdl.isa import Compare, RgbOp, TexOp
from sim.fc_model import (fc_if, fc_else, fc_endif, fc_loop, fc_endloop, fc_rep, fc_endrep,
                          fc_break, fc_continue, fc_call, fc_ret, fc_inst, FcAddr, int_const)
from sim.r500 import fp32
from tests.helpers.r500 import alu, tex, fc, run, floats

MESA_INT_CONSTS = [int_const(255)]          # INT_CONST[0] = {KR 255, KG 0, KB 0}


def set_alu_result(rgb_src, a="src0.rrr", c="src0.000", op=Compare.GE):
    """alu_result = (A·1 + C) ⟂ 0; writes nothing (as Mesa's IF conditions)."""
    return alu(a=a, c=c, rgb=rgb_src, alu_wmask=1, ALU_RESULT_OP=op)


def write(dest, mask, value_code, channel_src=None):
    """temp[dest].mask = inline constant (or ``channel_src`` = (temp, A operand) + inline)."""
    if channel_src is None:
        return alu(rgb=(f"i{value_code}",), rgb_dest=dest, RGB_WMASK=mask)
    temp, a = channel_src
    return alu(a=a, c="src1.rgb", rgb=(temp, f"i{value_code}"), rgb_dest=dest, RGB_WMASK=mask)


ONE, TWO = 56, 64                       # inline constant codes of 1.0 and 2.0


def lanes_of(values):
    return [{0: (v, 0, 0, 0)} if not isinstance(v, tuple) else {0: v} for v in values]


@pytest.mark.parametrize("reds", [(1, -1, 0, -0.0), (1, 1, 1, 1), (-1, -2, -3, -4)])
def test_if_else_endif(reds):
    program = [set_alu_result(("t0",)),                 # 0
               fc(fc_if(4)),                            # 1 IF -> ELSE+1
               write(1, 1, ONE),                        # 2
               fc(fc_else(6)),                          # 3 ELSE -> ENDIF+1
               write(1, 1, TWO),                        # 4
               fc(fc_endif(6)),                         # 5
               write(2, 1, 82, ("t1", "src0.rrr"))]     # 6 t2.r = t1.r + 10
    result = run(program, lanes_of(reds))
    assert result.error is None
    for red, lane in zip(reds, result.lanes):
        expect = 1.0 if red >= 0 else 2.0           # -0 >= 0
        assert floats(lane.temps[1])[0] == expect
        assert floats(lane.temps[2])[0] == expect + 10


def test_nested_ifs():
    program = [set_alu_result(("t0",)),                 # 0
               fc(fc_if(8)),                            # 1 IF r >= 0 (with ELSE)
               set_alu_result(("t0",), a="src0.ggg"),   # 2
               fc(fc_if(6, has_else=False)),            # 3   IF g >= 0
               write(1, 1, ONE),                        # 4     t1.r = 1
               fc(fc_endif(6)),                         # 5   ENDIF
               write(1, 2, ONE),                        # 6   t1.g = 1
               fc(fc_else(10)),                         # 7 ELSE
               write(1, 4, ONE),                        # 8   t1.b = 1
               fc(fc_endif(10)),                        # 9 ENDIF
               alu(rgb=("i56",), alpha=("i56",), alpha_dest=1, ALPHA_WMASK=1)]   # 10
    inputs = [(1, 1, 0, 0), (1, -1, 0, 0), (-1, 1, 0, 0), (-1, -1, 0, 0)]
    result = run(program, lanes_of(inputs))
    assert result.error is None
    for (r, g, _, _), lane in zip(inputs, result.lanes):
        expect = [0.0] * 4
        if r >= 0:
            if g >= 0:
                expect[0] = 1.0
            expect[1] = 1.0
        else:
            expect[2] = 1.0
        expect[3] = 1.0
        assert floats(lane.temps[1]) == expect


def loop_with_break_and_continue():
    """for (c = 1;; c++) { if (c >= limit) break; if (c odd) continue; evens++; } after: 7."""
    return [fc(fc_loop(13, 0)),                                     # 0 LOOP
            write(1, 1, ONE, ("t1", "src0.rrr")),                   # 1 c += 1
            set_alu_result(("t1", "t0"), c="-src1.rrr"),            # 2 c - limit >= 0
            fc(fc_if(6, has_else=False)),                           # 3 IF
            fc(fc_break(14, 1)),                                    # 4   BREAK
            fc(fc_endif(6)),                                        # 5 ENDIF
            alu(a="src0.rrr", b="src1.rrr", rgb=("t1", "i48"), rgb_dest=2,
                RGB_WMASK=1),                                       # 6 t2.r = c / 2
            alu(RgbOp.FRC, rgb=("t2",), alu_wmask=1, ALU_RESULT_OP=Compare.NE),  # 7 odd?
            fc(fc_if(11, has_else=False)),                          # 8 IF
            fc(fc_continue(13, 1)),                                 # 9   CONTINUE
            fc(fc_endif(11)),                                       # 10 ENDIF
            write(1, 2, ONE, ("t1", "src0.ggg")),                   # 11 evens += 1
            alu(),                                                  # 12
            fc(fc_endloop(1, 0)),                                   # 13 ENDLOOP
            write(1, 4, 61)]                                        # 14 t1.b = 1.625


def expected_loop(limit):
    c = evens = 0
    while True:
        c += 1
        if c >= limit:
            break
        if c % 2:
            continue
        evens += 1
    return [float(c), float(evens), 1.625, 0.0]


@pytest.mark.parametrize("limits", [(1, 4, 7, 2), (5, 5, 5, 5), (0, 9, 3, 6)])
def test_loop_with_break_and_continue_under_ifs(limits):
    result = run(loop_with_break_and_continue(), lanes_of(limits), int_consts=MESA_INT_CONSTS)
    assert result.error is None
    for limit, lane in zip(limits, result.lanes):
        assert floats(lane.temps[1]) == expected_loop(limit)


def test_loop_ends_after_kr_iterations_and_al_steps():
    """LOOP {KR 4, KG 2, KB 3}: the body adds const[aL] for aL = 2, 5, 8, 11; REP {KR 3} leaves
    aL alone and repeats its body three times."""
    body = alu(a="src0.rgb", c="src1.rgb", rgb=("c0+", "t1"), rgb_dest=1, RGB_WMASK=1)
    program = [fc(fc_loop(5, 1)),                           # 0
               body,                                        # 1
               fc(fc_rep(4, 2)),                            # 2
               write(2, 1, ONE, ("t2", "src0.rrr")),        # 3
               fc(fc_endrep(3, 2)),                         # 4
               fc(fc_endloop(1, 1)),                        # 5
               alu()]
    constants = {i: (float(i), 0, 0, 0) for i in range(16)}
    result = run(program, constants=constants,
                 int_consts=[0, int_const(4, 2, 3), int_const(3)])
    assert result.error is None
    lane = result.lanes[0]
    assert floats(lane.temps[1])[0] == 2 + 5 + 8 + 11
    assert floats(lane.temps[2])[0] == 12.0


def test_call_and_ret():
    program = [fc(fc_call(4)),                              # 0
               fc(fc_call(4)),                              # 1
               write(1, 2, 0, ("t1", "src0.rrr")),          # 2 t1.g = t1.r
               fc((fc_inst(jump_func=0xFF), FcAddr(6))),    # 3 JUMP over the function
               write(1, 1, ONE, ("t1", "src0.rrr")),        # 4 function: t1.r += 1
               fc(fc_ret()),                                # 5
               alu()]                                       # 6
    result = run(program)
    assert result.error is None and result.instructions == 9
    assert floats(result.lanes[0].temps[1])[:2] == [2.0, 2.0]


def test_last_ends_the_program_when_every_lane_is_active():
    program = [write(1, 1, ONE), alu(rgb=("i64",), rgb_dest=2, RGB_WMASK=1, LAST=1),
               write(3, 1, ONE)]
    result = run(program)
    assert result.instructions == 2 and result.lanes[0].temps[3] == [0] * 4
    diverging = [set_alu_result(("t0",)),                   # 0
                 fc(fc_if(4, has_else=False)),              # 1
                 alu(LAST=1),                               # 2 some lanes inactive: no end
                 fc(fc_endif(4)),                           # 3
                 write(3, 1, ONE)]                          # 4
    assert run(diverging, lanes_of((1, -1, 1, 1))).instructions == 5
    assert run(diverging, lanes_of((1, 1, 1, 1))).instructions == 3


def test_uncovered_lanes_compute_but_do_not_vote():
    """Only the uncovered lane 3 wants the then-branch: the IF (IGNORE_UNCOVERED) jumps past
    it, lane 3 with the group."""
    program = [set_alu_result(("t0",)), fc(fc_if(4, has_else=False)), write(1, 1, ONE),
               fc(fc_endif(4)), write(2, 1, ONE)]
    result = run(program, lanes_of((-1, -1, -1, 1)), covered=(True, True, True, False))
    assert [lane.temps[1][0] for lane in result.lanes] == [0] * 4
    assert [lane.temps[2][0] for lane in result.lanes] == [fp32.ONE] * 4


def test_discard_in_else_relies_on_negative_zero():
    """if (r >= 0) { t1 = 2 } else { discard }: Mesa writes -|0| = -0 and kills on its sign.
    Killed lanes leave the vote: the later IF, which only they would have vetoed, jumps."""
    program = [set_alu_result(("t0",)),                         # 0
               fc(fc_if(4)),                                    # 1
               write(1, 7, TWO),                                # 2
               fc(fc_else(8)),                                  # 3
               alu(a="-|src0.rgb|", aa="-|src0.a|", rgb=("i0",), alpha=("i0",), rgb_dest=2,
                   alpha_dest=2, RGB_WMASK=7, ALPHA_WMASK=1),   # 4 t2 = -|0| = -0
               tex(TexOp.TEXKILL, src=2),                       # 5
               write(3, 1, ONE),                                # 6 killed lanes: no write
               fc(fc_endif(8)),                                 # 7
               set_alu_result(("t0",), op=Compare.LT),          # 8 only killed lanes: r < 0
               fc(fc_if(12, has_else=False)),                   # 9 jumps (no live voter)
               write(4, 1, ONE),                                # 10
               fc(fc_endif(12)),                                # 11
               alu(rgb=("t1",), out=True, RGB_OMASK=7)]         # 12
    result = run(program, lanes_of((1, -1, 0.5, -3)))
    assert result.error is None
    assert [lane.killed for lane in result.lanes] == [False, True, False, True]
    for red, lane in zip((1, -1, 0.5, -3), result.lanes):
        if red >= 0:
            assert floats(lane.outputs[0])[:3] == [2.0, 2.0, 2.0]
        else:
            assert lane.outputs == {} and lane.temps[2] == [fp32.NEG_ZERO] * 4
            assert lane.temps[3] == [0] * 4
        assert lane.temps[4] == [0] * 4
