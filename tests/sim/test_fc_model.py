"""The flow-control model (sim/fc_model.py) against r500-us.md §2 and against each lane run alone.

The strongest check: running a structured program on L lanes in lock-step must give every lane
the same sequence of executed (ACTIVE) ALU instructions, with the same aL, as running that lane
alone as plain Python structured code (``run_lane``).
"""

import random

import pytest

from hdl.isa import US_FC_INST, FcOp as Opc, AddrOp, BranchOp, JumpFunc, PredSel
from hdl.isa import LaneState, FcError
from sim.fc_model import (
    FlowControlError, FcAddr, FlowControl,
    fc_inst, fc_if, fc_else, fc_endif, fc_loop, fc_rep, fc_endloop, fc_endrep, fc_break,
    fc_continue, fc_call, fc_ret, theia_branch, theia_jmp, theia_call, theia_ret, int_const,
    illegal_fc_fields,
)
from sim.fc_programs import (FcOp, AluOp, FlatProgram, run_lockstep, compile_program, run_lane,
                             random_program)
from tests.helpers.fc_programs import DIRECTED, theia_program

A, BI, BRK, CNT = LaneState


def states(fc):
    return [(l.state, l.value) if l.state != A else A for l in fc.lane]


# --- the words of §2's Mesa table ------------------------------------------------------------

MESA_TABLE = {      # construct: OP, JUMP_FUNC, ANY, B_ELSE, B_OP0, B_OP1, POP_CNT, IGN_UNC, A_OP
    "IF_ELSE": (Opc.JUMP, 0x0F, 0, 0, BranchOp.INCR, BranchOp.INCR, 0, 1, AddrOp.NONE),
    "IF": (Opc.JUMP, 0x0F, 0, 0, BranchOp.INCR, BranchOp.NONE, 0, 1, AddrOp.NONE),
    "ELSE": (Opc.JUMP, 0x00, 0, 1, BranchOp.NONE, BranchOp.DECR, 1, 0, AddrOp.NONE),
    "ENDIF": (Opc.JUMP, 0x00, 1, 0, BranchOp.DECR, BranchOp.NONE, 1, 0, AddrOp.NONE),
    "LOOP": (Opc.LOOP, 0x00, 0, 0, BranchOp.NONE, BranchOp.NONE, 0, 1, AddrOp.NONE),
    "BREAK": (Opc.BREAKLOOP, 0xFF, 0, 0, BranchOp.NONE, BranchOp.DECR, 3, 1, AddrOp.NONE),
    "CONTINUE": (Opc.CONTINUE, 0xFF, 0, 0, BranchOp.NONE, BranchOp.DECR, 2, 1, AddrOp.NONE),
    "ENDLOOP": (Opc.ENDLOOP, 0xFF, 1, 0, BranchOp.NONE, BranchOp.NONE, 0, 1, AddrOp.NONE),
    "CALL": (Opc.JUMP, 0xFF, 0, 0, BranchOp.NONE, BranchOp.NONE, 0, 0, AddrOp.PUSH),
    "RET": (Opc.JUMP, 0xFF, 0, 0, BranchOp.NONE, BranchOp.NONE, 0, 0, AddrOp.POP),
}


@pytest.mark.parametrize("name, built, target", [
    ("IF_ELSE", fc_if(7, True), 7), ("IF", fc_if(9, False), 9), ("ELSE", fc_else(5), 5),
    ("ENDIF", fc_endif(4), 4), ("LOOP", fc_loop(12, 3), 12), ("BREAK", fc_break(13, 3), 13),
    ("CONTINUE", fc_continue(12, 2), 12), ("ENDLOOP", fc_endloop(2, 3), 2),
    ("CALL", fc_call(0x8100), 0x8100), ("RET", fc_ret(), None),
])
def test_builders_match_the_mesa_table(name, built, target):
    inst, addr = built
    f = US_FC_INST.unpack(inst)
    got = (f["OP"], f["JUMP_FUNC"], f["JUMP_ANY"], f["B_ELSE"], f["B_OP0"], f["B_OP1"],
           f["B_POP_CNT"], f["IGNORE_UNCOVERED"], f["A_OP"])
    assert got == MESA_TABLE[name]
    if target is not None:
        assert addr.jump_addr == target
    if name in ("LOOP", "ENDLOOP"):
        assert addr.int_addr == 3


def test_theia_words():
    assert US_FC_INST.unpack(theia_branch(5)[0])["JUMP_FUNC"] == JumpFunc.ALU
    assert US_FC_INST.unpack(theia_jmp(5)[0])["JUMP_FUNC"] == JumpFunc.ALWAYS
    for inst, a_op in ((theia_call(5)[0], AddrOp.PUSH), (theia_ret()[0], AddrOp.POP)):
        f = US_FC_INST.unpack(inst)
        assert (f["JUMP_FUNC"], f["A_OP"], f["B_OP0"], f["B_OP1"]) == (0xFF, a_op, 0, 0)


def test_fc_addr_word_round_trip():
    addr = FcAddr(0x1A5, bool_addr=17, int_addr=30, jump_global=0)
    assert FcAddr.from_word(addr.word) == addr
    with pytest.raises(ValueError):
        FcAddr(0x8000).word         # a THEIA address does not fit the 9-bit JUMP_ADDR


# --- steps 1-6, one at a time ----------------------------------------------------------------

@pytest.mark.parametrize("pred_sel", list(PredSel) + [6, 7])
@pytest.mark.parametrize("pred_inv", [0, 1])
def test_wish_is_the_jump_func_bit(pred_sel, pred_inv):
    """Step 2: bit (alu << 2 | p << 1 | b) of JUMP_FUNC, p per RGB_PRED_SEL/INV (L = 1, ALL)."""
    for jump_func in (0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0xA5):
        for alu in (0, 1):
            for pred in (0x0, 0x1, 0x2, 0x4, 0x8, 0xF, 0x7):
                for b in (0, 1):
                    fc = FlowControl(1)
                    fc.start(10)
                    fc.set_alu_result([alu])
                    fc.set_pred([pred])
                    p = {PredSel.RGBA: int(pred == 0xF), PredSel.RRRR: pred & 1,
                         PredSel.GGGG: pred >> 1 & 1, PredSel.BBBB: pred >> 2 & 1,
                         PredSel.AAAA: pred >> 3 & 1}.get(pred_sel, 0) ^ pred_inv
                    want = jump_func >> (alu << 2 | p << 1 | b) & 1
                    jumped, nxt = fc.execute(fc_inst(jump_func=jump_func), FcAddr(3, bool_addr=9),
                                             b << 9, None, pred_sel, pred_inv)
                    assert (jumped, nxt) == (bool(want), 3 if want else 11)


@pytest.mark.parametrize("jump_any", [0, 1])
def test_decision_voters_and_no_voters(jump_any):
    """Step 3: ANY / ALL over ACTIVE (and covered, with IGNORE_UNCOVERED) lanes."""
    for wishes in range(16):
        for covered in (0xF, 0x5, 0x0):
            for ign in (0, 1):
                fc = FlowControl(4)
                fc.start(0, covered)
                fc.set_alu_result(wishes)
                jumped, _ = fc.execute(fc_inst(jump_func=JumpFunc.ALU, jump_any=jump_any,
                                               ignore_uncovered=ign), FcAddr(40))
                voters = [i for i in range(4) if covered >> i & 1 or not ign]
                votes = [wishes >> i & 1 for i in voters]
                expect = any(votes) if jump_any else all(votes)
                assert jumped == expect, (wishes, covered, ign)


def test_else_swaps_active_and_inactive_zero():
    """Step 1 and step 5: IF deactivates (INCR), ELSE swaps, ENDIF reactivates (DECR)."""
    fc = FlowControl(4)
    fc.start(0)
    fc.set_alu_result(0b0011)                       # lanes 0, 1 take the IF
    assert fc.execute(*fc_if(10)) == (False, 1)
    assert states(fc) == [A, A, (BI, 0), (BI, 0)]
    fc.set_alu_result(0b0001)                       # nested IF: lane 1 leaves
    fc.execute(*fc_if(10, has_else=False))
    assert states(fc) == [A, (BI, 0), (BI, 1), (BI, 1)]
    fc.execute(*fc_endif(3))                        # inner ENDIF
    assert states(fc) == [A, A, (BI, 0), (BI, 0)]
    assert fc.execute(*fc_else(20)) == (False, 4)   # ELSE: lanes 2, 3 run, 0, 1 wait
    assert states(fc) == [(BI, 0), (BI, 0), A, A]
    assert fc.active_mask() == 0b1100
    fc.execute(*fc_endif(5))
    assert states(fc) == [A] * 4


def test_if_with_else_all_skip_jumps_to_else_plus_one_with_incr():
    fc = FlowControl(4)
    fc.start(0, covered=0b0111)
    fc.set_alu_result(0b1000)       # only the uncovered lane 3 wants the then-branch
    assert fc.execute(*fc_if(7)) == (True, 7)
    assert states(fc) == [A, A, A, (BI, 0)]         # lane 3 "decided not to jump": inactive
    assert fc.execute(*fc_endif(8)) == (False, 8)
    assert states(fc) == [A] * 4


def test_else_with_nobody_left_jumps_and_decrements():
    fc = FlowControl(2)
    fc.start(0)
    fc.set_alu_result(0b11)
    fc.execute(*fc_if(10))                          # both take the then-branch
    assert fc.execute(*fc_else(30)) == (True, 30)   # nobody for the else-branch
    assert states(fc) == [A, A]


def test_loop_aL_and_rep():
    """LOOP pushes {KR, KG}; ENDLOOP aL += KB (signed, mod 256) and jumps to LOOP+1 until the
    count ends; REP leaves aL alone; a nested LOOP has its own aL; popping restores the outer."""
    code = [
        FcOp(*fc_loop(9, 0)),           # 0
        AluOp(0),                       # 1
        FcOp(*fc_rep(4, 1)),            # 2
        AluOp(1),                       # 3
        FcOp(*fc_endrep(3, 1)),         # 4
        FcOp(*fc_loop(7, 2)),           # 5
        AluOp(2),                       # 6
        FcOp(*fc_endloop(6, 2)),        # 7
        AluOp(3),                       # 8
        FcOp(*fc_endloop(1, 0)),        # 9
        AluOp(4),                       # 10
    ]
    consts = [int_const(3, 10, -4), int_const(2, 77, 1), int_const(3, 250, 5)] + [0] * 29
    result = run_lockstep(FlatProgram(code, int_consts=consts), 1)
    expect = []
    for a in (10, 6, 2):
        expect += [(0, a), (1, a), (1, a), (2, 250), (2, 255), (2, 4), (3, a)]
    assert result.traces[0] == expect + [(4, 0)]
    assert result.fc.loop_stack == []


def test_loop_with_zero_count_pushes_a_placeholder_its_endloop_pops():
    consts = [int_const(0, 5, 1)]
    fc = FlowControl(4)
    fc.start(0)
    assert fc.execute(*fc_loop(6, 0), int_consts=consts) == (True, 6)
    assert [(e.count, e.aL) for e in fc.loop_stack] == [(1, 5)]
    assert fc.execute(*fc_endloop(1, 0), int_consts=consts) == (False, 7)
    assert fc.loop_stack == []


def test_divergent_break_waits_for_the_endloop():
    consts = [int_const(4)]
    fc = FlowControl(4)
    fc.start(0)
    fc.execute(*fc_loop(8, 0), int_consts=consts)   # 0
    fc.set_alu_result(0b0101)
    fc.execute(*fc_if(4, has_else=False))           # 1
    assert fc.execute(*fc_break(9, 1)) == (False, 3)    # 2: lanes 1, 3 are still live
    assert states(fc) == [(BRK, 1), (BI, 0), (BRK, 1), (BI, 0)]
    fc.execute(*fc_endif(4))                        # 3
    assert states(fc) == [(BRK, 1), A, (BRK, 1), A]
    fc.pc = 8
    assert fc.execute(*fc_endloop(1, 0), int_consts=consts) == (True, 1)
    assert fc.loop_stack[0].count == 3
    fc.set_alu_result(0b1010)                       # now lanes 1, 3 break: nobody live
    fc.execute(*fc_if(4, has_else=False))
    assert fc.execute(*fc_break(9, 1)) == (True, 9)     # jump, pop, everyone back
    assert states(fc) == [A] * 4 and fc.loop_stack == []


def test_break_does_not_jump_over_continue_lanes():
    consts = [int_const(2)]
    fc = FlowControl(2)
    fc.start(0)
    fc.execute(*fc_loop(9, 0), int_consts=consts)   # 0
    fc.set_alu_result(0b01)
    fc.execute(*fc_if(4))                           # 1
    assert fc.execute(*fc_continue(9, 1)) == (False, 3)     # 2: lane 1 is live
    assert fc.execute(*fc_else(6)) == (False, 4)    # 3
    assert fc.execute(*fc_break(10, 1)) == (False, 5)   # 4: lane 0 waits at the ENDLOOP
    assert states(fc) == [(CNT, 1), (BRK, 1)]
    fc.execute(*fc_endif(6))                        # 5
    fc.pc = 9
    assert fc.execute(*fc_endloop(1, 0), int_consts=consts) == (True, 1)
    assert states(fc) == [A, (BRK, 1)]


def in_loop_and_if(count, loop_end, taken, if_target):
    """Four lanes past a LOOP of ``count`` iterations and an IF (no ELSE) the lanes in the mask
    ``taken`` enter."""
    fc = FlowControl(4)
    fc.start(0)
    fc.execute(*fc_loop(loop_end, 0), int_consts=[int_const(count)])
    fc.set_alu_result(taken)
    fc.execute(*fc_if(if_target, has_else=False))
    return fc


def test_uniform_continue_is_a_plain_jump():
    consts = [int_const(3)]
    fc = in_loop_and_if(3, 9, 0b1111, 5)
    assert fc.execute(*fc_continue(9, 1)) == (True, 9)
    assert states(fc) == [(CNT, 1)] * 4
    assert fc.execute(*fc_endloop(1, 0), int_consts=consts) == (True, 1)
    assert states(fc) == [A] * 4


def test_break_jump_decrements_outer_counters():
    """Lanes inactive from an IF around the loop keep their counter across a BREAK's jump."""
    consts = [int_const(5)]
    fc = FlowControl(2)
    fc.start(0)
    fc.set_alu_result(0b01)
    fc.execute(*fc_if(20, has_else=False))          # 0: lane 1 out, BI(0)
    fc.execute(*fc_loop(9, 0), int_consts=consts)   # 1
    fc.set_alu_result(0b01)
    fc.execute(*fc_if(6, has_else=False))           # 2: lane 1 -> BI(1)
    fc.execute(*fc_if(6, has_else=False))           # 3: lane 1 -> BI(2)
    assert states(fc)[1] == (BI, 2)
    assert fc.execute(*fc_break(10, 2)) == (True, 10)
    assert states(fc) == [A, (BI, 0)]
    fc.execute(*fc_endif(11))
    assert states(fc) == [A, A]


def test_call_pushes_pc_plus_one_and_ret_pops():
    fc = FlowControl(1)
    fc.start(0x8010)
    assert fc.execute(*theia_call(0x8100)) == (True, 0x8100)
    assert fc.addr_stack == [0x8011]
    assert fc.execute(*theia_call(0x8200)) == (True, 0x8200)
    fc.pc = 0x8205
    assert fc.execute(*theia_ret()) == (True, 0x8101)
    assert fc.execute(*theia_ret()) == (True, 0x8011)
    assert fc.addr_stack == []


def test_code_offset_unless_jump_global():
    fc = FlowControl(1, jump_addr_bits=9)
    fc.start(0x40, code_offset=0x100)
    assert fc.execute(fc_inst(jump_func=0xFF), FcAddr(0x20, jump_global=0)) == (True, 0x120)
    assert fc.execute(fc_inst(jump_func=0xFF), FcAddr(0x20, jump_global=1)) == (True, 0x20)
    fc.pc = 0x1FF
    assert fc.execute(fc_inst(), FcAddr(0)) == (False, 0)       # PC wraps at 9 bits


def test_alu_and_pred_writes_only_in_active_lanes():
    fc = FlowControl(4)
    fc.start(0)
    fc.set_alu_result(0b0011)
    fc.execute(*fc_if(10))
    fc.set_alu_result(0b1100)
    assert fc.alu_result == [0, 0, 0, 0]            # lanes 2, 3 inactive, 0, 1 written 0
    fc.set_pred([0xF, 0xF, 0xF, 0xF], write_mask=0b0101)
    assert fc.pred == [0x5, 0x5, 0, 0]
    fc.set_pred([0, 0xF, 0, 0], write_mask=[0xF, 0b0010, 0, 0])
    assert fc.pred == [0x0, 0x7, 0, 0]
    fc.start(3)
    assert (fc.alu_result, fc.pred, fc.active_mask(), fc.pc) == ([0] * 4, [0] * 4, 0xF, 3)


# --- killed lanes (§3.5 TEXKILL) ---------------------------------------------------------------

def test_killed_lane_neither_votes_nor_changes_state():
    """A killed lane keeps its state through IF/ELSE/ENDIF and B_ELSE, does not vote (here it is
    the only lane that would veto the jump) and takes no alu_result or predicate update."""
    fc = FlowControl(4)
    fc.start(0)
    fc.set_alu_result(0b0011)
    fc.execute(*fc_if(10))                          # lanes 2, 3 go BRANCH_INACTIVE(0)
    fc.kill(0b1001)                                 # lane 0 ACTIVE, lane 3 inactive: both killed
    assert fc.active_mask() == 0b0010 and fc.killed_mask() == 0b1001
    fc.set_alu_result(0b0000)
    fc.set_pred([0xF] * 4)
    assert fc.alu_result == [1, 0, 0, 0] and fc.pred == [0, 0xF, 0, 0]
    assert fc.execute(*fc_else(20)) == (False, 2)   # lane 2 runs the else-branch
    assert states(fc) == [A, (BI, 0), A, (BI, 0)]   # lanes 0 and 3 unchanged
    assert not fc.all_active()
    fc.execute(*fc_endif(3))
    assert states(fc) == [A, A, A, (BI, 0)] and fc.all_active()
    fc.set_alu_result(0b0000)                       # live lanes 1, 2 all want to skip
    assert fc.execute(*fc_if(9, has_else=False)) == (True, 9)


def test_killed_lanes_are_not_live_for_break():
    """BREAK jumps once every unkilled lane has left the iteration."""
    fc = in_loop_and_if(4, 8, 0b0011, 5)            # lanes 2, 3 wait at the ENDIF
    fc.kill(0b1100)
    assert fc.execute(*fc_break(9, 1)) == (True, 9)
    assert fc.loop_stack == [] and states(fc) == [A, A, (BI, 0), (BI, 0)]


def test_all_killed_group_jumps_with_no_voters():
    fc = FlowControl(4)
    fc.start(0)
    fc.kill(0b1111)
    assert fc.all_active() and fc.active_mask() == 0
    assert fc.execute(*fc_if(7)) == (True, 7)       # JUMP_ANY = 0 with no voters: jump
    assert states(fc) == [A] * 4


@pytest.mark.parametrize("field", ["A_OP", "B_OP0", "B_OP1"])
def test_illegal_fc_fields(field):
    assert illegal_fc_fields(fc_if(3)[0]) is None
    word = fc_if(3)[0] & ~US_FC_INST.pack(**{field: 3}) | US_FC_INST.pack(**{field: 3})
    assert illegal_fc_fields(word) == f"{field} 3"


# --- errors ----------------------------------------------------------------------------------

def expect_error(code, fc, *args, **kwargs):
    before = (states(fc), list(fc.loop_stack), list(fc.addr_stack), fc.pc)
    with pytest.raises(FlowControlError, match=rf"at PC {fc.pc:#06x}: ") as info:
        fc.execute(*args, **kwargs)
    assert info.value.code == code and info.value.pc == before[3]
    assert (states(fc), list(fc.loop_stack), list(fc.addr_stack), fc.pc) == before
    return info.value


def test_address_stack_overflow_and_underflow():
    fc = FlowControl(1, addr_depth=8)
    fc.start(0x8000)
    for depth in range(8):
        fc.execute(*theia_call(0x8100 + depth))
    e = expect_error(FcError.ADDR_OVERFLOW, fc, *theia_call(0x8200))
    assert "address stack overflow" in str(e)
    for _ in range(8):
        fc.execute(*theia_ret())
    expect_error(FcError.ADDR_UNDERFLOW, fc, *theia_ret())


def test_loop_stack_overflow_and_underflow():
    consts = [int_const(1)]
    fc = FlowControl(4, loop_depth=8)
    fc.start(0)
    for _ in range(8):
        fc.execute(*fc_loop(50, 0), int_consts=consts)
    expect_error(FcError.LOOP_OVERFLOW, fc, *fc_rep(50, 0), int_consts=consts)
    fc.start(0)
    for build in (fc_endloop(1, 0), fc_endrep(1, 0), fc_break(9, 0), fc_break(9, 0, rep=True),
                  fc_continue(9, 0)):
        expect_error(FcError.LOOP_UNDERFLOW, fc, *build, int_consts=consts)


def test_branch_counter_overflow():
    fc = FlowControl(2, counter_bits=6)
    fc.start(0)
    fc.set_alu_result(0b01)
    for depth in range(64):                         # lane 1: BI(0) .. BI(63)
        fc.execute(*fc_if(500, has_else=False))
    assert states(fc)[1] == (BI, 63)
    e = expect_error(FcError.COUNTER_OVERFLOW, fc, *fc_if(500, has_else=False))
    assert "counter" in str(e) and "PC 0x0040" in str(e)


def test_no_loop_stack_with_depth_zero():
    fc = FlowControl(1, loop_depth=0)
    fc.start(0)
    expect_error(FcError.LOOP_OVERFLOW, fc, *fc_loop(5, 0), int_consts=[int_const(1)])


# --- structured programs: lock-step lanes == each lane alone --------------------------------
# (the directed programs: tests/helpers/fc_programs.py)

@pytest.mark.parametrize("name", sorted(DIRECTED))
@pytest.mark.parametrize("covered", [0b1111, 0b0110])
def test_directed_program_lockstep_equals_lanes_alone(name, covered):
    program = DIRECTED[name]
    result = run_lockstep(compile_program(program), 4, covered)
    for lane in range(4):
        if covered >> lane & 1:
            assert result.traces[lane] == run_lane(program, lane), (name, lane)
    assert result.fc.loop_stack == [] and result.fc.addr_stack == []


def test_directed_traces_are_not_trivial():
    """A few hand-checked traces, so that run_lane itself is checked."""
    t = [run_lane(DIRECTED["break_divergent"], lane) for lane in range(4)]
    assert [i for i, _ in t[0]] == [0, 1, 3]
    assert [i for i, _ in t[2]] == [0, 2, 0, 2, 0, 1, 3]
    t = run_lane(DIRECTED["loop_aL_rep_nested"], 0)
    assert t[:6] == [(0, 10), (1, 10), (1, 10), (2, 200), (2, 230), (2, 4)]
    assert (4, 0) in t and not any(i in (5, 6) for i, _ in t)


def test_uniform_flow_skips_dead_code():
    """All lanes agree: IF/ELSE/BREAK/CONTINUE jump, so dead code is not even stepped."""
    flat = compile_program(DIRECTED["break_uniform"])
    pcs = []
    run_lockstep(flat, 4, on_step=lambda pc, insn: pcs.append(pc))
    alu1 = [i for i, c in enumerate(flat.code) if isinstance(c, AluOp) and c.id == 1][0]
    assert pcs.count(alu1) == 2                     # iterations 0 and 1 only


@pytest.mark.parametrize("relative", [False, True])
def test_random_programs_lockstep_equals_lanes_alone(relative):
    rng = random.Random(20240501)
    for n in range(600):
        program = random_program(rng)
        covered = 0xF if n % 3 else rng.randrange(16)
        flat = compile_program(program, base=0x40 if relative else 0, relative=relative)
        result = run_lockstep(flat, 4, covered, FlowControl(4, jump_addr_bits=9))
        for lane in range(4):
            if covered >> lane & 1:
                assert result.traces[lane] == run_lane(program, lane), (n, lane)


def test_random_programs_exercise_divergence():
    """The generator gives divergent traces and every FC construct."""
    rng = random.Random(7)
    divergent, notes = 0, set()
    for _ in range(200):
        program = random_program(rng)
        flat = compile_program(program)
        notes |= {c.note.split()[0] for c in flat.code if isinstance(c, FcOp)}
        traces = [run_lane(program, lane) for lane in range(4)]
        divergent += len({tuple(t) for t in traces}) > 1
    assert divergent > 100
    assert notes == {"IF", "ELSE", "ENDIF", "LOOP", "ENDLOOP", "REP", "ENDREP", "BREAK",
                     "CONTINUE", "CALL", "RET"}


# --- THEIA on the engine (L = 1; the program: tests/helpers/fc_programs.py) --------------------

def test_theia_jumps_calls_rets_on_one_lane():
    flat = theia_program()
    result = run_lockstep(flat, 1)
    assert [i for i, _ in result.traces[0]] == [0, 1, 1, 1, 1, 3, 4, 3, 4, 2]
    assert result.fc.addr_stack == []
