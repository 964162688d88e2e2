"""Every error of r500-us.md §3.6: its code, its text and the PC it names."""

import pytest

from hdl.isa import US_CMN_INST, US_FC_INST, US_ALU_RGBA_INST, US_TEX_INST, RgbOp, AlphaOp, TexOp
from sim.fc_model import (fc_call, fc_ret, fc_if, fc_endif, fc_loop, fc_endloop, fc_inst,
                          FcAddr, int_const)
from sim.r500.errors import QuadErrorCode as E
from sim.r500.quad import run_quad
from sim.r500.tex import Sampler
from tests.helpers.r500 import alu, tex, fc, run

NOP = alu()


def set_field(inst, word_index, fmt, **fields):
    """``inst`` with fields of one word replaced."""
    inst = list(inst)
    unpacked = fmt.unpack(inst[word_index])
    unpacked.update(fields)
    inst[word_index] = fmt.pack(**unpacked)
    return inst


def error_of(program, **kw):
    result = run(program, **kw)
    assert result.error is not None, "expected an error"
    return result.error


def assert_error(program, code, pc, **kw):
    error = error_of(program, **kw)
    assert (error.code, error.pc) == (code, pc)
    assert str(error).startswith(f"{code.value} at PC {pc}")
    return error


# --- illegal instructions ------------------------------------------------------------------

@pytest.mark.parametrize("rgb_op", [6, 13, 14, 15])
def test_reserved_rgb_ops(rgb_op):
    bad = set_field(NOP, 5, US_ALU_RGBA_INST, RGB_OP=rgb_op)
    assert_error([NOP, bad], E.ILLEGAL_INSTRUCTION, 1)


def test_reserved_alpha_op_and_dot_product_pairs():
    assert_error([alu(alpha_op=4)], E.ILLEGAL_INSTRUCTION, 0)
    assert_error([NOP, NOP, alu(alpha_op=AlphaOp.DP)], E.ILLEGAL_INSTRUCTION, 2)
    assert_error([alu(RgbOp.DP4)], E.ILLEGAL_INSTRUCTION, 0)
    assert run([alu(RgbOp.DP3, alpha_op=AlphaOp.DP)]).error is None
    assert run([alu(RgbOp.DP3)]).error is None              # DP3 without alpha DP is fine


@pytest.mark.parametrize("field, value, kind, legal", [
    ("RGB_PRED_SEL", 6, "alu", False), ("RGB_PRED_SEL", 7, "fc", False),
    ("RGB_PRED_SEL", 7, "tex", False), ("ALPHA_PRED_SEL", 6, "alu", False),
    ("ALPHA_PRED_SEL", 7, "tex", False), ("ALPHA_PRED_SEL", 7, "fc", True),
    ("RGB_PRED_SEL", 5, "fc", True),
])
def test_reserved_predicate_selects(field, value, kind, legal):
    inst = {"alu": NOP, "fc": fc(fc_endif(2)), "tex": tex(TexOp.NOP)}[kind]
    bad = set_field(inst, 0, US_CMN_INST, **{field: value})
    result = run([NOP, bad, NOP])
    if legal:
        assert result.error is None
    else:
        assert (result.error.code, result.error.pc) == (E.ILLEGAL_INSTRUCTION, 1)


def test_tex_inst_7():
    bad = set_field(tex(TexOp.NOP), 1, US_TEX_INST, INST=7)
    assert_error([bad], E.ILLEGAL_INSTRUCTION, 0)


@pytest.mark.parametrize("field", ["A_OP", "B_OP0", "B_OP1"])
def test_reserved_fc_fields(field):
    bad = set_field(fc(fc_endif(1)), 2, US_FC_INST, **{field: 3})
    error = assert_error([NOP, NOP, bad, NOP], E.ILLEGAL_INSTRUCTION, 2)
    assert field in str(error)


def test_illegal_only_when_executed():
    """An illegal word the program jumps over is no error."""
    bad = set_field(NOP, 5, US_ALU_RGBA_INST, RGB_OP=6)
    jump = fc((fc_inst(jump_func=0xFF), FcAddr(2)))
    assert run([jump, bad, NOP]).error is None


# --- temporaries ---------------------------------------------------------------------------

def test_unused_source_slot_is_range_checked():
    """With 16 temporaries, slot 2 naming t20 is an error even though nothing reads it."""
    assert_error([NOP, alu(rgb=("t0", "t1", "t20"))], E.BAD_TEMPORARY, 1, temporaries=16)
    assert_error([alu(alpha=("t0", "t17"))], E.BAD_TEMPORARY, 0, temporaries=16)
    assert run([alu(rgb=("t0", "t1", "t15"), alpha=("c100", "i0"))], temporaries=16).error is None


def test_destination_and_relative_addresses_are_range_checked():
    assert_error([alu(rgb_dest=16)], E.BAD_TEMPORARY, 0, temporaries=16)
    loop = [fc(fc_loop(2, 0)), alu(rgb=("t10+",)), fc(fc_endloop(1, 0))]
    assert_error(loop, E.BAD_TEMPORARY, 1, temporaries=16, int_consts=[int_const(1, 6)])
    assert run(loop, temporaries=16, int_consts=[int_const(1, 5)]).error is None


def test_tex_addresses_are_range_checked():
    assert_error([tex(TexOp.NOP, src=40)], E.BAD_TEMPORARY, 0, temporaries=32)
    assert_error([tex(TexOp.TEXKILL, dst=32)], E.BAD_TEMPORARY, 0, temporaries=32)


# --- samplers ------------------------------------------------------------------------------

@pytest.mark.parametrize("sampler", [
    None, Sampler(0, 3, 2), Sampler(0, 2, 0), Sampler(0, 2, 2, "trilinear"),
    Sampler(0, 2, 2, wrap="mirror"), Sampler(1, 2, 2), Sampler(-3, 1, 1),
])
def test_sampler_not_set_up(sampler):
    samplers = {} if sampler is None else {0: sampler}
    error = assert_error([NOP, tex(TexOp.LD)], E.SAMPLER_NOT_SET_UP, 1, samplers=samplers,
                         texture=[0] * 12)
    assert "sampler 0" in str(error)


def test_texkill_and_nop_need_no_sampler():
    assert run([tex(TexOp.TEXKILL), tex(TexOp.NOP, tex_id=5)]).error is None


# --- program bounds ------------------------------------------------------------------------

def test_jump_outside_the_program_names_the_jump():
    jump = fc((fc_inst(jump_func=0xFF), FcAddr(7)))
    assert_error([NOP, jump, NOP], E.PC_OUTSIDE, 1)


def test_relative_jumps_and_bounds_from_start_to_end():
    """JUMP_GLOBAL = 0 adds the start address; start … end bound the jumps."""
    local = fc((fc_inst(jump_func=0xFF), FcAddr(2, jump_global=0)))
    words = [w for inst in [NOP, NOP, local, NOP, NOP, NOP] for w in inst]
    assert run_quad(words, start=1, end=4).instructions == 4        # 1, 2, 3 (= start + 2), 4
    error = run_quad(words, start=1, end=2).error                    # start + 2 = 3 > end
    assert (error.code, error.pc) == (E.PC_OUTSIDE, 2)
    backwards = fc((fc_inst(jump_func=0xFF), FcAddr(0)))
    words = [w for inst in [NOP, NOP, backwards] for w in inst]
    assert run_quad(words, start=1).error.code == E.PC_OUTSIDE


def test_return_past_the_end():
    """CALL at the last instruction: its RET returns to end + 1."""
    jump = fc((fc_inst(jump_func=0xFF), FcAddr(2)))
    assert_error([jump, fc(fc_ret()), fc(fc_call(1))], E.PC_OUTSIDE, 1)


def test_instruction_limit():
    program = [fc(fc_loop(2, 0)), NOP, fc(fc_endloop(1, 0)), NOP]
    consts = [int_const(10)]
    assert run(program, int_consts=consts).instructions == 22
    assert run(program, int_consts=consts, max_instructions=22).error is None
    error = assert_error(program, E.INSTRUCTION_LIMIT, 1, int_consts=consts, max_instructions=7)
    assert error.pc == 1


# --- flow-control errors -------------------------------------------------------------------

def test_address_stack_overflow_and_underflow():
    recursive = fc(fc_call(1))
    assert_error([NOP, recursive], E.ADDR_OVERFLOW, 1)
    assert_error([NOP, fc(fc_ret())], E.ADDR_UNDERFLOW, 1)


def test_loop_stack_overflow_and_underflow():
    program = [fc(fc_loop(18 - i, 0)) for i in range(9)] + [NOP]
    program += [fc(fc_endloop(9 - i, 0)) for i in range(9)]
    assert_error(program, E.LOOP_OVERFLOW, 8, int_consts=[int_const(1)])
    assert_error([NOP, fc(fc_endloop(1, 0))], E.LOOP_UNDERFLOW, 1)


def test_branch_counter_overflow():
    """Lane 0 takes every IF, the others fall 64 levels behind: the 64th INCR of a 6-bit
    counter overflows."""
    set_alu = alu(rgb=("t0",), alu_wmask=1)                  # alu_result = (t0.r == 0)
    ifs = [fc(fc_if(70, has_else=False)) for _ in range(65)]
    program = [set_alu] + ifs + [NOP] * 5
    error = assert_error(program, E.COUNTER_OVERFLOW, 65,
                         temps=[{0: (0, 0, 0, 0)}] + [{0: (1, 0, 0, 0)}] * 3)
    assert "branch counter overflow" in str(error)
