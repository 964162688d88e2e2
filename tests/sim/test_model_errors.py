"""Conditions that stop a reference-model core (theia-isa.md §2, §3 notes, §6): each is a
TheiaError subclass whose message and ``pc`` name the address of the instruction at fault."""

import pytest

from firmware.asm import assemble
from firmware.rom import default_rom
from hdl.isa import Instruction, Op, USER_CODE_BASE, USER_CODE_START, pack
from sim.exec import run_program_model
from sim.model import (
    Core, IllegalInstruction, MemoryAccessError, RunawayRoutine, StackError, TheiaError,
)

#: two NOPs first, so that the faulting instruction is not at the first address
PROLOGUE = "    NOP\n    NOP\n"
FAULT_PC = USER_CODE_START + 2


def core_for(text, **kw):
    return Core(default_rom(), assemble(text).words, omem=kw.pop("omem", [0] * 16), **kw)


def expect_error(text, error, pc, **kw):
    """Run ``text``; it must stop with ``error`` at ``pc``, named in the message."""
    core = core_for(text, **kw)
    with pytest.raises(error) as info:
        core.run(USER_CODE_START)
    assert info.value.pc == pc
    assert f"{pc:#06x}" in str(info.value)
    assert "\n" not in str(info.value)
    return info.value


def raw(word):
    return f"    .word 0x{word:016X}\n"


def test_errors_are_theia_errors():
    for cls in (IllegalInstruction, StackError, MemoryAccessError, RunawayRoutine):
        assert issubclass(cls, TheiaError)


# --- illegal instructions ----------------------------------------------------------------------

@pytest.mark.parametrize("opcode", [0x06, 0x2E, 0x32, 0x3F, 0x45, 0x57, 0x5B, 0x7F,
                                    0x80, 0x0101, 0x8001, 0xFFFF])
def test_illegal_opcode(opcode):
    word = opcode << 48 | 1 << 32 | 2 << 16 | 3
    e = expect_error(PROLOGUE + raw(word) + "    RETURN RT_TRUE\n", IllegalInstruction, FAULT_PC)
    assert f"{word:016X}" in str(e)


def test_illegal_instruction_after_a_jump_names_its_own_address():
    text = "    JMP BAD\n    RETURN RT_TRUE\n    NOP\nBAD:\n" + raw(0x06 << 48)
    expect_error(text, IllegalInstruction, USER_CODE_START + 3)


def test_nothing_runs_before_the_illegal_word_is_reached():
    # the illegal word is never fetched when a jump skips it
    core = core_for("    JMP OK\n" + raw(0x2E << 48) + "OK:\n    RETURN RT_TRUE\n")
    assert core.run(USER_CODE_START) is True


def _insn(op, dst=0, src1=0, src2=0):
    return pack(Instruction(int(op), dst, src1, src2))


@pytest.mark.parametrize("word, field", [
    (_insn(Op.ADD, 132, 71, 72), "DST"),
    (_insn(Op.ADD, 71, 132, 72), "SRC1"),
    (_insn(Op.ADD, 71, 72, 0xFFFF), "SRC2"),
    (_insn(Op.COPY, 71, 200, 0), "SRC1"),
    (_insn(Op.JGX, 0x800C, 132, 71), "SRC1"),
    (_insn(Op.JLEZ, 0x800C, 71, 140), "SRC2"),
    (_insn(Op.OMWRITE, 0, 132, 71), "SRC1"),
    (_insn(Op.OMWRITE, 0, 71, 1000), "SRC2"),
    (_insn(Op.TMREAD, 132, 71, 0), "DST"),
    (_insn(Op.TMREAD, 71, 132, 0), "SRC1"),
    (_insn(Op.DEBUG_PRINT, 0, 132, 0), "SRC1"),
    (_insn(Op.MULP, 71, 0x8000, 0), "SRC1"),
    (pack(Instruction.type2(Op.SETX, 132, 5)), "DST"),
    (pack(Instruction.type2(Op.SWIZZLE3D, 0xFFFF, 0)), "DST"),
    (pack(Instruction.type2(Op.RET, 132, 1)), "DST"),
])
def test_register_operand_132_or_more_is_illegal(word, field):
    e = expect_error(PROLOGUE + raw(word) + "    RETURN RT_TRUE\n", IllegalInstruction, FAULT_PC)
    assert field in str(e)


@pytest.mark.parametrize("word", [
    _insn(Op.MAG, 71, 72, 0xFFFF),            # MAG ignores SRC2
    _insn(Op.ZERO, 71, 0xFFFF, 0xFFFF),       # ZERO reads nothing
    _insn(Op.LEA, 71, 500, 600),
    _insn(Op.TMREAD, 71, 72, 0xFFFF),         # TMREAD has no B
    _insn(Op.OMWRITE, 0xFFFF, 71, 72),        # OMWRITE's DST is no register
    _insn(Op.NOP, 0xFFFF, 0xFFFF, 0xFFFF),
    pack(Instruction.type2(Op.SETY, 71, 0xFFFF_FFFF)),   # a big IMM is not a register
])
def test_fields_that_are_not_registers_may_hold_anything(word):
    core = core_for(raw(word) + "    RETURN RT_TRUE\n")
    assert core.run(USER_CODE_START) is True


@pytest.mark.parametrize("selector", [22, 23, 0xFFFF, 0x1_0000, 0xFFFF_FFFF])
def test_swizzle_selector_out_of_range_is_illegal(selector):
    word = pack(Instruction.type2(Op.SWIZZLE3D, 71, selector))
    e = expect_error(PROLOGUE + raw(word) + "    RETURN RT_TRUE\n", IllegalInstruction, FAULT_PC)
    assert "SWIZZLE3D" in str(e)


# --- the return stack ------------------------------------------------------------------------

def nested_calls(levels):
    """main calls S1 ... S(levels-1) calls S(levels): ``levels`` return addresses at once."""
    lines = ["    CALL S1", "    RETURN RT_TRUE"]
    for level in range(1, levels + 1):
        lines += [f"S{level}:"]
        lines += [f"    CALL S{level + 1}"] if level < levels else ["    NOP"]
        lines += ["    RET VOID 0"]
    return "\n".join(lines) + "\n"


def test_call_depth_eight_is_fine():
    assert core_for(nested_calls(8)).run(USER_CODE_START) is True


def test_call_on_a_full_stack():
    program = assemble(nested_calls(9))
    ninth_call = program.labels["S8"]          # S8's CALL S9 would be the 9th entry
    e = expect_error(nested_calls(9), StackError, ninth_call)
    assert "CALL" in str(e)


def test_call_depth_is_a_build_parameter():
    core = core_for(nested_calls(9), stack_depth=9)
    assert core.run(USER_CODE_START) is True


def test_ret_on_an_empty_stack():
    e = expect_error(PROLOGUE + "    RET VOID 0\n    RETURN RT_TRUE\n", StackError, FAULT_PC)
    assert "RET" in str(e)


def test_ret_after_balanced_calls_is_empty():
    text = "    CALL SUB\n    RET R1 5\nSUB:\n    RET VOID 0\n"
    expect_error(text, StackError, USER_CODE_START + 1)


# --- memories -------------------------------------------------------------------------------

def _set(dst, value):
    return "".join(f"    SET{lane} {dst} {v}\n" for lane, v in zip("XYZ", value))


@pytest.mark.parametrize("addresses", [(16, 0, 0), (0, 0, 16), (0, 0xFFFF_FFFF, 0)])
def test_tmread_out_of_range(addresses):
    text = _set("R1", addresses) + "    TMREAD R2 R1 VOID\n    RETURN RT_TRUE\n"
    e = expect_error(text, MemoryAccessError, USER_CODE_START + 3, tmem=[0] * 16)
    assert "TMREAD" in str(e)


def test_tmread_out_of_default_texture_memory():
    text = _set("R1", (196_608, 0, 0)) + "    TMREAD R2 R1 VOID\n    RETURN RT_TRUE\n"
    expect_error(text, MemoryAccessError, USER_CODE_START + 3)


@pytest.mark.parametrize("addresses, base", [((8, 0, 0), 0), ((0, 1, 2), 6), ((0, 0, 0xFFFF_FFFF), 0)])
def test_omwrite_out_of_range(addresses, base):
    text = _set("R1", addresses) + _set("R2", (1, 2, 3)) + "    OMWRITE VOID R1 R2\n    RETURN RT_TRUE\n"
    e = expect_error(text, MemoryAccessError, USER_CODE_START + 6, omem=[0] * 8, omem_base=base)
    assert "OMWRITE" in str(e)


def test_omwrite_last_word_in_range():
    text = _set("R1", (7, 7, 7)) + _set("R2", (1, 2, 3)) + "    OMWRITE VOID R1 R2\n    RETURN RT_TRUE\n"
    omem = [0] * 8
    core = core_for(text, omem=omem)
    assert core.run(USER_CODE_START) is True
    assert omem[7] == 3


# --- runaway routines and code fetch ---------------------------------------------------------

def test_routine_that_never_returns():
    text = PROLOGUE + "LOOP:\n    INCX R1 R1 VOID\n    JMP LOOP\n"
    core = core_for(text, max_routine_steps=100)
    with pytest.raises(RunawayRoutine) as info:
        core.run(USER_CODE_START)
    assert "100" in str(info.value)
    assert info.value.pc in (FAULT_PC, FAULT_PC + 1)
    assert f"{info.value.pc:#06x}" in str(info.value)
    assert core.stats.instructions == 100


def test_routine_just_within_the_step_limit():
    core = core_for("    NOP\n" * 9 + "    RETURN RT_TRUE\n", max_routine_steps=10)
    assert core.run(USER_CODE_START) is True


def test_fetch_outside_user_ram():
    # the code after the program is zero (NOP) up to the end of the 1,024-word RAM
    expect_error("    JMP 0x8400\n", MemoryAccessError, USER_CODE_BASE + 1024)
    expect_error("    JMP 0xFFFF\n", MemoryAccessError, 0xFFFF)
    core = core_for("    JMP 0x83FF\n")
    with pytest.raises(MemoryAccessError) as info:
        core.run(USER_CODE_START)
    assert info.value.pc == 0x8400                # 0x83FF is a NOP, then the fetch fails
    assert "fetch" in str(info.value)


def test_fetch_outside_user_ram_of_a_smaller_build():
    expect_error("    JMP 0x8020\n", MemoryAccessError, 0x8020, user_words=32)


def test_fetch_outside_firmware_rom():
    rom_words = len(default_rom())
    expect_error(f"    JMP {rom_words}\n", MemoryAccessError, rom_words)
    expect_error("    JMP 0x7FFF\n", MemoryAccessError, 0x7FFF)


def test_user_program_larger_than_ram():
    with pytest.raises(ValueError, match="1024"):
        Core(default_rom(), [0] * 1025)


# --- the errors through sim.exec.run_program_model ------------------------------------------

def test_run_program_model_reports_error():
    result = run_program_model(assemble(PROLOGUE + raw(0x7F << 48)))
    assert result["error"] is not None
    assert f"{FAULT_PC:#06x}" in result["error"]
    assert result["instructions"] == 2
    result = run_program_model(assemble("L:\n    JMP L\n"), max_instructions=50)
    assert "did not RETURN" in result["error"]
    assert result["instructions"] == 50
