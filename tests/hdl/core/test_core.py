"""Directed tests of the RTL core (hdl/core/core.py) against the reference model (sim/model.py),
on the core of every preset that ships (``core`` fixture: full, default, ulx3s).

Each test loads a small user program through the ``imem_*`` port, sets registers where it needs
to (backdoor ``poke_register`` or the IO port), runs a routine and checks registers, errors and
performance counters. Expected register values come from the reference model run from the same
state (with the preset's user RAM size), and for the hazard cases also from ``sim.fixed``
directly, so that a model bug cannot hide a core bug. Counts of cycles that differ by preset
are computed from the preset's latencies. Each preset's core is simulated once per test process
(tests/helpers/core.py: reset, registers and user RAM zeroed between tests).
"""

import pytest

from firmware.asm import assemble
from hdl.core.core import CoreError
from hdl.isa import (NUM_REGS, ONE, MASK32, USER_CODE_START, USER_CODE_BASE, ENTRY_INDEX, Op,
                     reg)
from sim import fixed as fx
from sim.core_pysim import (wait_settled, load_code, poke_code, poke_register, read_registers,
                            io_write, flip_swap, run_routine)
from sim.model import (Core as ModelCore, IllegalInstruction, StackError, MemoryAccessError,
                       TheiaError)
from tests.helpers.core import ROM, CoreSession

TMEM_WORDS = 16
OMEM_WORDS = 64
R1, R2, R3, R4, R5, R6 = (reg(f"R{i}") for i in range(1, 7))

#: on one worker when tests run in parallel: each preset's core is built once
pytestmark = pytest.mark.xdist_group("core-directed")


@pytest.fixture(scope="module")
def core(core_config):
    """The core of each preset, built once for this module."""
    return CoreSession(core_config, tmem_words=TMEM_WORDS, omem_words=OMEM_WORDS)


def words_of(source):
    return assemble(source).words


def run_rtl(core, words, *, regs=None, tmem=None, entry=None, pc=USER_CODE_START, script=None,
            max_cycles=20_000, backdoor=False):
    """On ``core`` (a CoreSession): load ``words`` (through ``imem_*``, or the backdoor), poke
    ``regs`` ({addr: (x, y, z)}), run; return (RoutineRun, registers, output memory).
    ``script(ctx, core)``, if given, replaces the single run and returns the result."""
    async def job(ctx, dut):
        if backdoor:
            poke_code(ctx, dut, words)
        else:
            await load_code(ctx, dut, words)
        for addr, value in (regs or {}).items():
            poke_register(ctx, dut, addr, value)
        if script is not None:
            run = await script(ctx, dut)
        else:
            run = await run_routine(ctx, dut, entry=entry, pc=None if entry is not None else pc,
                                    max_cycles=max_cycles)
        return run, read_registers(ctx, dut)

    run, registers = core.run(job, tmem=tmem)
    return run, registers, list(core.memories.omem)


def run_model(core, words, *, regs=None, tmem=None, entry=None, pc=USER_CODE_START):
    """The model from the same state, with ``core``'s user RAM size: (registers, error or None,
    instructions, omem)."""
    model = ModelCore(ROM, words, tmem=tmem or [0] * TMEM_WORDS, omem=[0] * OMEM_WORDS,
                      tmem_words=TMEM_WORDS, user_words=core.config.user_words)
    for addr, value in (regs or {}).items():
        model.regs[addr] = tuple(v & MASK32 for v in value) if addr < 128 else (0, 0, 0)
    error = None
    try:
        if entry is not None:
            model.run_routine(entry)
        else:
            model.run(pc)
    except TheiaError as e:
        error = e
    return model.register_dump(), error, model.stats.instructions, model.omem


def check_against_model(core, source, regs=None, tmem=None):
    words = words_of(source)
    run, rtl_regs, omem = run_rtl(core, words, regs=regs, tmem=tmem)
    model_regs, error, instructions, model_omem = run_model(core, words, regs=regs, tmem=tmem)
    assert error is None and run.error is None, (error, run.error)
    diffs = [(a, rtl_regs[a], model_regs[a]) for a in range(NUM_REGS) if rtl_regs[a] != model_regs[a]]
    assert not diffs, f"registers differ (addr, RTL, model): {diffs[:5]}"
    assert omem == model_omem
    assert run.retired == instructions
    return run, rtl_regs


def dependent_issue_gap(core, op):
    """Cycles from the issue of ``op`` to the issue of an ALU operation that reads its result on
    ``core`` (a CoreSession): the result's latency, one more without forwarding into the ALU."""
    return core.core.valu.latency(op) + (0 if core.config.alu_forwarding else 1)


def vec(x, y, z):
    return tuple(v & MASK32 for v in (x, y, z))


A = vec(3 * ONE + 5, -2 * ONE, ONE // 3)
B = vec(-ONE - 7, 5 * ONE, 7 * ONE)


# --- forwarding and hazards ----------------------------------------------------------------

@pytest.mark.parametrize("op", ["ADD", "MUL", "DOT", "CROSS", "DIV", "MAG", "MULP", "IMUL",
                                "SWIZZLE3D", "SETX"])
def test_back_to_back_dependent(core, op):
    """Producer then three consumers of its result right behind it, of every latency class;
    the chain's values are checked against sim.fixed computed here, and the model."""
    producer = {"SWIZZLE3D": "SWIZZLE3D R3 SWIZZLE_YXZ",
                "SETX": "SETX R3 0x00050000"}.get(op, f"{op} R3 R1 R2")
    setup = {R1: A, R2: B, R3: vec(11, 22, 33)}
    run, regs = check_against_model(core, f"""
        {producer}
        ADD R4 R3 R1
        SUB R5 R4 R3
        ADD R6 R3 R3
        RETURN RT_TRUE
    """, regs=setup)
    a, b = A, B
    r3 = {
        "ADD": tuple(fx.add(x, y) for x, y in zip(a, b)),
        "MUL": tuple(fx.mul(x, y) for x, y in zip(a, b)),
        "IMUL": tuple(fx.imul(x, y) for x, y in zip(a, b)),
        "DOT": (fx.dot(a, b),) * 3,
        "CROSS": fx.cross(a, b),
        "DIV": tuple(fx.div(x, y) for x, y in zip(a, b)),
        "MAG": (fx.mag(a),) * 3,
        "MULP": (11, 22, fx.mul(a[0], a[1])),
        "SWIZZLE3D": (22, 11, 33),
        "SETX": (0x0005_0000, 22, 33),
    }[op]
    assert regs[R3] == r3
    r4 = tuple(fx.add(x, y) for x, y in zip(r3, a))
    assert regs[R4] == r4
    assert regs[R5] == tuple(fx.sub(x, y) for x, y in zip(r4, r3))
    assert regs[R6] == tuple(fx.add(x, x) for x in r3)
    if dependent_issue_gap(core, Op[op]) == 1:
        assert run.counters["stall_operand"] == 0, "a 1-cycle result is forwarded without a stall"
    else:
        assert run.counters["stall_operand"] > 0


def test_simple_chain_runs_at_full_rate(core):
    """Sixteen dependent ADDs: each issues as soon as the one before's result can reach it (one
    per cycle with one-cycle SIMPLE results forwarded, as in ``full``)."""
    body = "\n".join("ADD R1 R1 R2" for _ in range(16))
    run, regs = check_against_model(core, f"{body}\nRETURN RT_TRUE", regs={R1: A, R2: B})
    waits = dependent_issue_gap(core, Op.ADD) - 1
    assert run.counters["stall_operand"] == 15 * waits
    assert run.cycles <= 16 + 15 * waits + 8


def test_waw_div_then_add(core):
    """A slow DIV and a later ADD to the same register: the ADD's value is what stays."""
    run, regs = check_against_model(core, """
        DIV R3 R1 R2
        ADD R3 R2 R2
        RETURN RT_TRUE
    """, regs={R1: A, R2: B})
    assert regs[R3] == tuple(fx.add(y, y) for y in B)
    assert run.counters["stall_operand"] > 0          # the ADD waits for the DIV (WAW)


def test_waw_mag_then_mul_then_copy(core):
    run, regs = check_against_model(core, """
        MAG R3 R1 VOID
        MUL R3 R1 R2
        COPY R3 R2 VOID
        RETURN RT_TRUE
    """, regs={R1: A, R2: B})
    assert regs[R3] == B


def test_raw_on_z_lane_after_mulp(core):
    """MULP writes only z: a reader right behind sees the new z and the old x, y."""
    old = vec(0x1234, -0x5678, 0x9ABC)
    run, regs = check_against_model(core, """
        MULP R3 R1 VOID
        COPY R4 R3 VOID
        ADD R5 R3 R2
        MULP R3 R3 VOID
        RETURN RT_TRUE
    """, regs={R1: A, R2: B, R3: old})
    z = fx.mul(A[0], A[1])
    assert regs[R4] == (old[0], old[1], z)
    assert regs[R5] == tuple(fx.add(x, y) for x, y in zip((old[0], old[1], z), B))
    assert regs[R3] == (old[0], old[1], fx.mul(old[0], old[1]))


def test_lane_masked_set_after_pending_div(core):
    """SETX to a register a DIV is still computing: x is the SETX's, y and z the DIV's."""
    run, regs = check_against_model(core, """
        DIV R3 R1 R2
        SETX R3 7.0
        SETZ R3 0x00000009
        COPY R4 R3 VOID
        RETURN RT_TRUE
    """, regs={R1: A, R2: B})
    q = tuple(fx.div(x, y) for x, y in zip(A, B))
    assert regs[R3] == (7 * ONE, q[1], 9)
    assert regs[R4] == regs[R3]


def test_ret_writes_dst_x_seen_right_after_return(core):
    run, regs = check_against_model(core, """
        CALL SUB
        ADD R4 R3 R3
        CALL SUB2
        RETURN RT_TRUE
    SUB:
        RET R3 3.0
    SUB2:
        RET VOID 5
    """, regs={R3: vec(1, 2, 3)})
    assert regs[R3] == (3 * ONE, 2, 3)
    assert regs[R4] == (6 * ONE, 4, 6)


def test_lea_and_branch_on_just_written_register(core):
    run, regs = check_against_model(core, """
        LEA R1 VOID VOID
        SETY R2 0x00000005
        JEQY TAKEN R2 R2
        SETX R3 1
    TAKEN:
        JGY NOT_TAKEN R2 R2
        SETX R3 2
    NOT_TAKEN:
        RETURN RT_TRUE
    """, regs={R3: vec(0, 0, 0)})
    assert regs[R1] == (0x800D,) * 3
    assert regs[R3] == (2, 0, 0)


# --- register banks --------------------------------------------------------------------------

def test_config_writes_dropped_output_reads_zero(core):
    config = vec(0x1111, 0x2222, 0x3333)
    run, regs = check_against_model(core, """
        SETX 5 0x00000001
        ADD 3 R1 R1
        COPY R3 3 VOID
        COPY 128 R1 VOID
        ADD R4 OREG_PIXEL_COLOR OREG_ADDR_O
        COPY R5 131 VOID
        RETURN RT_TRUE
    """, regs={3: config, 5: config, R1: A, R4: A, R5: A})
    assert regs[3] == config and regs[5] == config
    assert regs[R3] == config
    assert regs[R4] == (0, 0, 0) and regs[R5] == (0, 0, 0)
    assert all(regs[a] == (0, 0, 0) for a in range(128, 132))


def test_swap_bank_io_and_flip(core):
    """The IO side writes swap rows (and a config row) while idle and while a program runs;
    EXE sees them only after a flip, and EXE's own swap writes stay in its copy."""
    v0 = reg("CREG_V0")
    read_v0 = words_of("""
        COPY R1 CREG_V0 VOID
        COPY R2 CREG_LIGHT_INFO VOID
        RETURN RT_TRUE
    """)
    # a long program: reads V0 at the start and at the end, writes UV0 (EXE's copy)
    long_program = words_of("""
        COPY R3 CREG_V0 VOID
        DIV R4 R3 R3
        DIV R4 R4 R4
        MAG R4 R4 VOID
        COPY R5 CREG_V0 VOID
        SETX CREG_UV0 0x00000077
        RETURN RT_TRUE
    """)
    first, second, third = vec(1, 2, 3), vec(4, 5, 6), vec(7, 8, 9)
    seen = {}

    async def script(ctx, core):
        await io_write(ctx, core, v0, first)
        await io_write(ctx, core, 0, vec(0xAA, 0xBB, 0xCC))     # config: EXE sees it at once
        await flip_swap(ctx, core)
        await load_code(ctx, core, read_v0)
        run = await run_routine(ctx, core, pc=USER_CODE_START)
        seen["after_flip"] = read_registers(ctx, core)
        await load_code(ctx, core, long_program)
        ctx.set(core.start, 1)
        ctx.set(core.start_direct, 1)
        ctx.set(core.start_pc, USER_CODE_START)
        await ctx.tick()
        ctx.set(core.start, 0)
        assert ctx.get(core.busy)
        await io_write(ctx, core, v0, second)                # while the program runs
        ctx.set(core.flip, 1)                                # ignored: the core is busy
        await ctx.tick()
        ctx.set(core.flip, 0)
        while not ctx.get(core.done):
            await ctx.tick()
        await wait_settled(ctx, core)
        seen["long"] = read_registers(ctx, core)
        await flip_swap(ctx, core)
        await load_code(ctx, core, read_v0)
        await run_routine(ctx, core, pc=USER_CODE_START)
        seen["second"] = read_registers(ctx, core)
        await io_write(ctx, core, v0, third)
        await flip_swap(ctx, core)
        await run_routine(ctx, core, pc=USER_CODE_START)
        seen["back"] = read_registers(ctx, core)
        return run

    run, regs, _ = run_rtl(core, read_v0, script=script)
    assert run.error is None
    assert seen["after_flip"][R1] == first
    assert seen["after_flip"][R2] == (0xAA, 0xBB, 0xCC)
    assert seen["long"][R3] == first and seen["long"][R5] == first   # not the IO write
    assert seen["long"][reg("CREG_UV0")][0] == 0x77
    assert seen["second"][R1] == second
    assert seen["second"][reg("CREG_UV0")] == (0, 0, 0)             # the other copy
    # back to the copy EXE wrote UV0 in; the IO side wrote `third` into its V0 meanwhile
    assert seen["back"][R1] == third
    assert seen["back"][reg("CREG_UV0")][0] == 0x77


# --- errors --------------------------------------------------------------------------------

def check_error(core, source, code, model_error, regs=None, tmem=None):
    words = words_of(source) if isinstance(source, str) else source
    run, rtl_regs, _ = run_rtl(core, words, regs=regs, tmem=tmem)
    model_regs, error, instructions, _ = run_model(core, words, regs=regs, tmem=tmem)
    assert isinstance(error, model_error), error
    assert run.error_code == code, run.error
    assert run.error_pc == error.pc, (hex(run.error_pc), error)
    assert not run.done
    # everything before the faulting instruction happened, nothing after it
    diffs = [a for a in range(NUM_REGS) if rtl_regs[a] != model_regs[a]]
    assert not diffs, f"registers differ after the error: {diffs}"
    return run


@pytest.mark.parametrize("word", [0x0006_0000_0000_0000, 0x0081_0000_0000_0000,
                                  0x002E_0047_0048_0049, 0xFFFF_0000_0000_0000])
def test_illegal_opcode(core, word):
    run = check_error(core, f"SETX R1 0x00000001\nADD R2 R1 R1\n.word 0x{word:016X}\n"
                      "SETX R3 5\nRETURN RT_TRUE", CoreError.ILLEGAL_INSTRUCTION,
                      IllegalInstruction)
    assert run.error_pc == USER_CODE_START + 2


@pytest.mark.parametrize("word", [
    0x0001_0084_0047_0047,      # ADD DST=132
    0x0001_0047_00C8_0047,      # ADD SRC1=200
    0x0001_0047_0047_FFFF,      # ADD SRC2=0xFFFF
    0x0041_0084_0000_0001,      # SETX DST=132
    0x0030_0047_0100_0000,      # TMREAD SRC1=256
    0x0008_8010_0047_0085,      # JGX SRC2=133
    0x0044_0047_0000_0016,      # SWIZZLE3D selector 22
    0x005A_0090_0000_0001,      # RET DST=144
])
def test_illegal_operand(core, word):
    run = check_error(core, f"DIV R2 R1 R1\n.word 0x{word:016X}\nRETURN RT_TRUE",
                      CoreError.ILLEGAL_INSTRUCTION, IllegalInstruction, regs={R1: A})
    assert run.error_pc == USER_CODE_START + 1


def test_fields_not_read_as_registers_may_hold_anything(core):
    """MAG's SRC2, ZERO's SRC1/SRC2, OMWRITE's DST, DEBUG_PRINT's DST: no illegal-operand error."""
    check_against_model(core, """
        MAG R2 R1 0xFFFF
        ZERO R3 0x1234 0xFFFF
        SETX R4 1
        SETY R4 2
        SETZ R4 3
        OMWRITE 0xFFFF R4 R1
        DEBUG_PRINT 0xFFFF R1 0xFFFF
        RETURN RT_TRUE
    """, regs={R1: A})


def test_call_depth_nine_is_a_stack_error(core):
    subs = "\n".join(f"S{i}:\n    CALL S{i + 1}\n    RET VOID 0" for i in range(8))
    run = check_error(core, f"CALL S0\nRETURN RT_TRUE\n{subs}\nS8:\n    RET VOID 0",
                      CoreError.STACK, StackError)
    assert run.error_pc == assemble(f"CALL S0\nRETURN RT_TRUE\n{subs}\nS8:\n RET VOID 0"
                                    ).labels["S7"]


def test_call_depth_eight_is_fine(core):
    subs = "\n".join(f"S{i}:\n    CALL S{i + 1}\n    INC R1 R1 VOID\n    RET VOID 0"
                     for i in range(7))
    run, regs = check_against_model(core, f"CALL S0\nRETURN RT_TRUE\n{subs}\nS7:\n    RET R2 7",
                                    regs={R1: vec(0, 0, 0)})
    assert regs[R1] == (7 * ONE,) * 3 and regs[R2][0] == 7


def test_ret_on_empty_stack(core):
    run = check_error(core, "SETX R1 0x00000001\nRET R2 5\nRETURN RT_TRUE", CoreError.STACK,
                      StackError)
    assert run.error_pc == USER_CODE_START + 1


def test_tmread_out_of_range(core):
    run = check_error(core, f"""
        SETX R1 1
        SETY R1 2
        SETZ R1 {TMEM_WORDS}
        TMREAD R2 R1 VOID
        RETURN RT_TRUE
    """, CoreError.MEMORY, MemoryAccessError, tmem=list(range(100, 100 + TMEM_WORDS)))
    assert run.error_pc == USER_CODE_START + 3


def test_omwrite_out_of_range(core):
    run = check_error(core, """
        SETX R1 0xFFFFFFFF
        OMWRITE VOID R1 R1
        RETURN RT_TRUE
    """, CoreError.MEMORY, MemoryAccessError, regs={R1: vec(0, 0, 0)})
    assert run.error_pc == USER_CODE_START + 1


def test_fetch_past_user_ram(core):
    end = USER_CODE_BASE + core.config.user_words
    run = check_error(core, f"SETX R1 3\nJMP {end}\nRETURN RT_TRUE", CoreError.FETCH,
                      MemoryAccessError)
    assert run.error_pc == end


def test_fetch_past_rom(core):
    run = check_error(core, f"SETX R1 3\nJMP {len(ROM)}\nRETURN RT_TRUE", CoreError.FETCH,
                      MemoryAccessError)
    assert run.error_pc == len(ROM)


def test_last_word_of_user_ram(core):
    """RETURN (and a taken jump) in the last RAM word: fetching past the end on the wrong path
    behind them is no error."""
    user_words = core.config.user_words
    filler = "\n".join("NOP" for _ in range(user_words - 12 - 7))
    source = f"""
        JMP NEAR_END
        {filler}
    NEAR_END:
        JEQX LAST R1 R1
        SETX R2 1
        RETURN RT_FALSE
    BACK:
        SETX R2 2
        RETURN RT_TRUE
    LAST:
        JMP BACK
    """
    words = words_of(source)
    assert len(words) == user_words
    run, regs, _ = run_rtl(core, words, regs={R1: A, R2: vec(0, 0, 0)}, backdoor=True)
    assert run.done and run.error is None and run.result == 1
    assert regs[R2] == (2, 0, 0)
    words[-1] = words_of("RETURN RT_TRUE")[-1]
    run, regs, _ = run_rtl(core, words, regs={R1: A, R2: vec(0, 0, 0)}, backdoor=True)
    assert run.done and run.error is None and run.result == 1 and run.retired == 3


def test_error_then_restart(core):
    """After an error the core stays stopped; the next start clears it and runs normally."""
    bad = words_of(".word 0x0006000000000000\nRETURN RT_TRUE")
    good = words_of("SETX R1 0x00000042\nRETURN RT_TRUE")
    seen = {}

    async def script(ctx, core):
        first = await run_routine(ctx, core, pc=USER_CODE_START)
        for _ in range(5):
            await ctx.tick()
        seen["stopped"] = (ctx.get(core.error), ctx.get(core.busy))
        await load_code(ctx, core, good)
        second = await run_routine(ctx, core, pc=USER_CODE_START)
        seen["error_after"] = ctx.get(core.error)
        return first, second

    (first, second), regs, _ = run_rtl(core, bad, script=script)
    assert first.error_code == CoreError.ILLEGAL_INSTRUCTION
    assert seen["stopped"] == (1, 0)
    assert second.done and second.error is None and seen["error_after"] == 0
    assert regs[R1][0] == 0x42


# --- starting routines -------------------------------------------------------------------------

def test_start_entry_builtin_initial(core):
    """A user program without an INITIAL entry: entry 0 runs the ROM's INITIAL."""
    words = words_of("RETURN RT_FALSE")
    run, regs, _ = run_rtl(core, words, entry=ENTRY_INDEX["INITIAL"])
    model_regs, error, instructions, _ = run_model(core, words, entry=ENTRY_INDEX["INITIAL"])
    assert run.done and run.result == 1 and error is None
    assert regs[reg("CREG_3")] == (3, 3, 3)
    assert regs[reg("CREG_012")] == (0, 1, 2)
    assert regs[reg("CREG_LAST_t")][0] == 250 * ONE
    assert regs == model_regs and run.retired == instructions


def test_start_entry_user_routine_wins(core):
    """A user entry >= 0x8000 wins; MAIN defined by the user returns its own value."""
    words = words_of("""
        RETURN RT_TRUE
    ENTRYPOINT_ADRR_MAIN:
        SETX R1 0x00000011
        RETURN RT_FALSE
    ENTRYPOINT_ADRR_INITIAL:
        SETX R1 0x00000022
        RETURN RT_TRUE
    """)
    run, regs, _ = run_rtl(core, words, entry=ENTRY_INDEX["MAIN"])
    assert run.done and run.result == 0 and regs[R1][0] == 0x11
    run, regs, _ = run_rtl(core, words, entry=ENTRY_INDEX["INITIAL"])
    assert run.done and run.result == 1 and regs[R1][0] == 0x22
    assert regs[reg("CREG_3")] == (0, 0, 0)              # the ROM's INITIAL did not run


def test_start_entry_below_user_base_means_builtin(core):
    """An entry word < 0x8000 (here the original's ROM address of NPG) means the built-in."""
    source = ".entry NPG 0x37\nRETURN RT_TRUE"
    words = words_of(source)
    regs = {reg("CREG_PIXEL_2D_POSITION"): vec(3, 0, 0), reg("CREG_LAST_COL"): vec(5, 0, 0),
            reg("CREG_PIXEL_2D_FINAL_POSITION"): vec(6, 4, 0)}
    run, rtl_regs, _ = run_rtl(core, words, regs=regs, entry=ENTRY_INDEX["NPG"])
    model_regs, error, instructions, _ = run_model(core, words, regs=regs,
                                                   entry=ENTRY_INDEX["NPG"])
    assert run.done and error is None
    assert rtl_regs == model_regs and run.retired == instructions
    assert rtl_regs[reg("CREG_PIXEL_2D_POSITION")][0] == fx.inc(3)


# --- memories and counters ----------------------------------------------------------------

def test_tmread_and_omwrite(core):
    tmem = [0x1000 + i for i in range(TMEM_WORDS)]
    run, regs = check_against_model(core, f"""
        SETX R1 3
        SETY R1 {TMEM_WORDS - 1}
        SETZ R1 0
        TMREAD R1 R1 VOID
        ADD R2 R1 R1
        SETX R3 10
        SETY R3 11
        SETZ R3 10
        OMWRITE VOID R3 R2
        RETURN RT_TRUE
    """, tmem=tmem)
    assert regs[R1] == (0x1003, 0x1000 + TMEM_WORDS - 1, 0x1000)


def test_counters_plausible(core):
    run, regs = check_against_model(core, """
        SETX R1 0x00030000
        DIV R2 R1 R1
        ADD R3 R2 R2
        JMP SKIP
        NOP
    SKIP:
        ADD R4 R1 R1
        ADD R5 R1 R1
        DIV R6 R1 R1
        DIV CREG_TEX_COLOR1 R1 R1
        RETURN RT_TRUE
    """, regs={R1: A})
    c = run.counters
    assert c["retired"] == 9
    assert c["stall_operand"] >= 20                # ADD R3 waits for the DIV
    assert c["bubbles"] >= 2                       # the taken JMP
    assert c["drain"] >= 20                        # RETURN waits for the DIV into the swap bank
    assert c["cycles"] >= c["retired"] + c["stall_operand"] + c["drain"]
    assert c["cycles"] <= c["retired"] + sum(c[k] for k in ("stall_operand", "stall_writeback",
                                                            "stall_memory", "bubbles", "drain"))


def test_return_does_not_wait_for_writes_outside_the_swap_bank(core):
    """A DIV still in flight at RETURN lands afterwards; only swap-bank writes hold RETURN."""
    run, regs = check_against_model(core, """
        SETX R1 0x00030000
        DIV R6 R1 R1
        RETURN RT_TRUE
    """, regs={R1: A})
    c = run.counters
    assert c["drain"] == 0
    assert c["cycles"] < 20                        # done long before the DIV's 26 (32) cycles


# --- conditional jumps decided from a DIV's outlook --------------------------------------

OUTLOOK_CASES = [
    (3 * ONE, 2 * ONE), (3 * ONE, -2 * ONE), (-3 * ONE, 2 * ONE), (-3 * ONE, -2 * ONE),
    (1, 3 * ONE),                  # quotient 0
    (-1, 3 * ONE),                 # quotient -0 = 0
    (5 * ONE, 0), (-5 * ONE, 0), (0, 0),          # division by zero
    (0x7FFF_FFFF, 1), (0x8000_0000, 1),           # the quotient's kept bits need the divider
    (0, -ONE),
]


@pytest.mark.parametrize("relation", ["JGX", "JLX", "JEQX", "JNEX", "JGEX", "JLEX"])
@pytest.mark.parametrize("a, b", OUTLOOK_CASES)
def test_jump_on_a_dividing_quotient_matches_the_model(core, relation, a, b):
    run, regs = check_against_model(core, source=f"""
        SETX R1 {a & MASK32}
        SETX R2 {b & MASK32}
        ZERO R4 VOID VOID
        DIV R3 R1 R2
        {relation} TAKEN R3 R4
        SETX R5 1
        RETURN RT_FALSE
    TAKEN:
        SETX R5 2
        RETURN RT_TRUE
    """)


def test_jump_on_a_quotient_does_not_wait_for_the_divider(core):
    run, regs = check_against_model(core, """
        SETX R1 0xFFFA0000
        SETX R2 0x00020000
        ZERO R4 VOID VOID
        DIV R3 R1 R2
        JLX NEGATIVE R3 R4
        RETURN RT_FALSE
    NEGATIVE:
        RETURN RT_TRUE
    """)
    assert run.result == 1
    # done at least 11 cycles before the quotient could be there (the DIV alone takes 26 cycles,
    # 32 with a shared divider)
    assert run.cycles < core.core.valu.latency(Op.DIV) - 11


@pytest.mark.parametrize("gap", range(4))
def test_jump_some_instructions_after_its_div_does_not_wait_either(core, gap):
    """The outlook reaches the scoreboard's planes two cycles after the DIV issues (the issue
    and the outlook each pass a register on the way): a jump 0-3 instructions behind the DIV
    sees it wherever it is meanwhile, and a write to the register in between forgets it."""
    nops = "\n".join("        NOP" for _ in range(gap))
    source = f"""
        SETX R1 0xFFFA0000
        SETX R2 0x00020000
        ZERO R4 VOID VOID
        DIV R3 R1 R2
{nops}
        JLX NEGATIVE R3 R4
        RETURN RT_FALSE
    NEGATIVE:
        RETURN RT_TRUE
    """
    run, regs = check_against_model(core, source)
    assert run.result == 1
    assert run.cycles < 20 + gap                   # the DIV alone takes 26 (32 shared)
    forgotten, regs = check_against_model(
        core, source.replace("        JLX", "        SETX R3 1\n        JLX"))
    assert forgotten.result == 0


@pytest.mark.parametrize("b_before, b_now", [(0, 0x00050000), (0x00050000, 0)])
def test_jump_whose_b_lands_right_before_it_compares_the_new_b(core, b_before, b_now):
    """B.x = 0 lets a jump decide from the DIV's outlook; a B landing in the jump's last
    cycle of waiting must be the one it compares (-3 < 5: taken; -3 < 0: taken too, from the
    outlook, with B.x = 0 only)."""
    run, regs = check_against_model(core, source=f"""
        SETX R1 0xFFFA0000
        SETX R2 0x00020000
        SETX R4 {b_before}
        DIV R3 R1 R2
        SETX R4 {b_now}
        JGX TAKEN R3 R4
        RETURN RT_FALSE
    TAKEN:
        RETURN RT_TRUE
    """)
    assert run.result == 0                         # -3 > B holds for neither B


def test_two_writes_in_flight_to_one_register_land_in_order(core):
    """A second DIV to the same register issues at once; readers see the second result."""
    run, regs = check_against_model(core, """
        SETX R1 0x00060000
        SETX R2 0x00020000
        SETX R4 0xFFFE0000
        DIV R3 R1 R2
        DIV R3 R4 R2
        ADD R5 R3 R3
        JLX NEGATIVE R3 CREG_ZERO
        SETX R6 1
    NEGATIVE:
        MUL R3 R3 R3
        DIV R3 R1 R1
        COPY R6 R3 VOID
        RETURN RT_TRUE
    """)
    assert run.counters["stall_operand"] < 3 * 26    # the second DIV did not wait for the first
