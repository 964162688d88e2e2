"""Flow-control programs shared by the model's and the engine's tests
(tests/sim/test_fc_model.py, tests/hdl/core/test_fc_engine.py): the directed structured programs
and a THEIA program for one lane."""

from hdl.isa import PredSel
from sim.fc_model import int_const, theia_branch, theia_call, theia_jmp, theia_ret
from sim.fc_programs import (AluOp, FcOp, FlatProgram, Cond, Alu, If, Loop, Break, Continue,
                             Call, Program)


def val(f, pred=None):
    """ALU lane function from f(lane, k) -> alu bit (and pred(lane, k) -> 4 bits)."""
    return lambda lane, k: (int(bool(f(lane, k))), pred(lane, k) if pred else 0)


def _directed():
    C = Cond("alu")
    P = {}
    P["nested_if_else"] = Program([
        Alu(0, val(lambda l, k: l & 1)),
        If(C, [Alu(1), Alu(2, val(lambda l, k: l >> 1)), If(C, [Alu(3)], [Alu(4)])],
           [Alu(5, val(lambda l, k: l == 2)), If(C, [Alu(6)])]),
        Alu(7, val(lambda l, k: 1)),
        If(C, [Alu(8)], [Alu(9)]),                      # uniform: the ELSE jumps
        Alu(10, val(lambda l, k: 0)),
        If(C, [Alu(11)], [Alu(12)]),                    # uniform: the IF jumps
    ])
    P["loop_aL_rep_nested"] = Program([
        Loop(0, [Alu(0), Loop(1, [Alu(1)], rep=True), Loop(2, [Alu(2)]), Alu(3)]),
        Alu(4), Loop(3, [Alu(5)]), Loop(3, [Alu(6)], rep=True), Alu(7),
    ], int_consts=[int_const(4, 10, -3), int_const(2, 0, 0), int_const(3, 200, 30),
                   int_const(0, 1, 1)] + [0] * 28)
    P["break_uniform"] = Program([
        Loop(0, [Alu(0, val(lambda l, k: k == 2)), If(C, [Break()]), Alu(1)]), Alu(2),
    ], int_consts=[int_const(5, 1, 1)])
    P["break_divergent"] = Program([
        Loop(0, [Alu(0, val(lambda l, k: k == l)), If(C, [Alu(1), Break()]), Alu(2)]), Alu(3),
    ], int_consts=[int_const(5, 1, 1)])
    P["continue_divergent"] = Program([
        Loop(0, [Alu(0, val(lambda l, k: (k + l) % 2)), If(C, [Continue()], [Alu(1)]), Alu(2)]),
        Alu(3),
    ], int_consts=[int_const(4, 0, 2)])
    P["continue_then_break_in_else"] = Program([
        Loop(0, [Alu(0, val(lambda l, k: l < 2 or k > 0 and l == 2)),
                 If(C, [Continue()], [Break()]), Alu(1)]), Alu(2),
    ], int_consts=[int_const(3)])
    P["conditional_break_and_continue_by_jump_func"] = Program([
        Loop(0, [Alu(0, val(lambda l, k: k >= l + 1)), Break(C), Alu(1, val(lambda l, k: k == l)),
                 Continue(Cond("alu", inv=True)), Alu(2)]), Alu(3),
    ], int_consts=[int_const(6)])
    P["nested_loops_break_inner_continue_outer"] = Program([
        Loop(0, [Alu(0, val(lambda l, k: (l + k) % 3 == 0)), If(C, [Continue()]),
                 Loop(1, [Alu(1, val(lambda l, k: k % 4 == l)), If(C, [Alu(2), Break()]),
                          Alu(3)]),
                 Alu(4)]), Alu(5),
    ], int_consts=[int_const(3, 0, 1), int_const(4, 50, 1)])
    P["deep_ifs_break_at_depth_3"] = Program([
        Alu(0, val(lambda l, k: l != 3)),
        If(C, [Loop(0, [
            Alu(1, val(lambda l, k: l != 2)),
            If(C, [Alu(2, val(lambda l, k: l != 1 or k > 1)),
                   If(C, [Alu(3, val(lambda l, k: k == l)), If(C, [Break()], [Alu(4)]), Alu(5)],
                      [Alu(6)])],
               [Alu(7)]),
            Alu(8)])], [Alu(9)]),
        Alu(10),
    ], int_consts=[int_const(4, 3, 1)])
    P["rep_with_breakrep"] = Program([
        Loop(0, [Alu(0, val(lambda l, k: k == l + 1)), If(C, [Break()]), Alu(1)], rep=True),
        Alu(2),
    ], int_consts=[int_const(4)])
    P["call_ret_nested"] = Program(
        [Alu(0, val(lambda l, k: l & 1)), Call("f"), If(C, [Call("g")]), Alu(1)],
        {"f": [Alu(2), Call("g"), Alu(3)],
         "g": [Alu(4, val(lambda l, k: (l + k) % 2)), If(C, [Alu(5)], [Alu(6)])]})
    P["call_in_loop_sees_callers_aL"] = Program(
        [Loop(0, [Alu(0, val(lambda l, k: l == k)), If(C, [Call("f")]), Alu(1)])],
        {"f": [Alu(2), Loop(1, [Alu(3)]), Alu(4), Loop(2, [Alu(5)], rep=True)]},
        int_consts=[int_const(4, 7, 2), int_const(2, 100, -1), int_const(2)])
    P["predicates_and_booleans"] = Program([
        Alu(0, val(lambda l, k: 0, lambda l, k: [0x1, 0x2, 0xF, 0xC][l])),
        If(Cond("pred", pred_sel=PredSel.RRRR), [Alu(1)]),
        If(Cond("pred", inv=True, pred_sel=PredSel.AAAA), [Alu(2)], [Alu(3)]),
        If(Cond("pred", pred_sel=PredSel.RGBA), [Alu(4)]),
        If(Cond("pred", pred_sel=PredSel.GGGG), [Alu(5)], [Alu(6)]),
        If(Cond("pred", pred_sel=PredSel.BBBB), [Alu(7)]),
        If(Cond("pred", inv=True, pred_sel=PredSel.NONE), [Alu(8)]),
        If(Cond("bool", bool_addr=5), [Alu(9)], [Alu(10)]),
        If(Cond("bool", inv=True, bool_addr=6), [Alu(11)], [Alu(12)]),
    ], bool_const=1 << 5)
    P["loop_zero_count_inside_divergent_if"] = Program([
        Alu(0, val(lambda l, k: l < 2)),
        If(C, [Loop(0, [Alu(1)]), Loop(1, [Alu(2)])], [Loop(1, [Alu(3)], rep=True)]),
    ], int_consts=[int_const(0), int_const(2, 9, 9)])
    P["stale_alu_result_survives_inactivity"] = Program([
        Alu(0, val(lambda l, k: l & 1)),
        If(C, [Alu(1, val(lambda l, k: 0))], [Alu(2, val(lambda l, k: 1))]),
        If(C, [Alu(3)], [Alu(4)]),      # reads the values written while the others waited
        Alu(5, val(lambda l, k: l < 2, lambda l, k: 0xF)),
        If(C, [Alu(6, val(lambda l, k: 0, lambda l, k: 0x0))]),
        If(Cond("pred", pred_sel=PredSel.RGBA), [Alu(7)], [Alu(8)]),
    ])
    return P


#: the directed structured programs, by name
DIRECTED = _directed()


def theia_program():
    """main: a counted loop by a backward conditional jump, CALL f twice; f calls g;
    a forward conditional jump skips code."""
    code = [
        AluOp(0),                                       # 0
        AluOp(1, lambda lane, k: (int(k < 3), 0)),      # 1: compare ...
        FcOp(*theia_branch(1)),                         # 2: ... and jump back while k < 3
        FcOp(*theia_call(8)),                           # 3
        FcOp(*theia_call(8)),                           # 4
        AluOp(2, lambda lane, k: (1, 0)),               # 5
        FcOp(*theia_branch(13)),                        # 6: jumps over the JMP to the end
        FcOp(*theia_jmp(6)),                            # 7 (never)
        AluOp(3),                                       # 8: f
        FcOp(*theia_call(11)),                          # 9
        FcOp(*theia_ret()),                             # 10
        AluOp(4),                                       # 11: g
        FcOp(*theia_ret()),                             # 12
    ]
    return FlatProgram(code, base=0, end=13)
