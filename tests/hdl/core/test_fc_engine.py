"""The flow-control engine RTL (hdl/core/fc_engine.py) against the model (sim/fc_model.py).

The testbench plays the core: it holds a flat program, feeds the instruction at the PC each
cycle (an FC instruction with ``valid``, or an ALU pseudo-instruction as ``alu_result``/``pred``
writes, sometimes in the same cycle as the FC instruction after it), follows ``next_pc``, and
compares every cycle jump / next_pc / error / active / aL / lane_pred / lane_alu_result (and,
after the edge, the lane states and stack depths) with the model; at the end the per-lane traces
are compared with each lane run alone (``run_lane``). With ``kill_rate`` the testbench also
kills random lanes between instructions (a TEXKILL: the model's ``kill``, the ``killed`` input).
"""

import random

import pytest
from amaranth.sim import Simulator

from hdl.core.fc_engine import FlowControlEngine
from hdl.isa import FcError
from sim.fc_model import (
    FlowControlError, FlowControl, int_const, theia_branch, theia_call, theia_ret, fc_ret,
    fc_loop, fc_endloop, select_int_const,
)
from sim.fc_programs import (
    FcOp, AluOp, FlatProgram, Cond, Alu, If, Loop, Call, Program, compile_program, run_lane,
    random_program, alu_lane_values,
)

from tests.helpers.fc_programs import DIRECTED, theia_program


class Job:
    """``kills``: {pc: lanes} killed before the instruction at pc executes (each time)."""

    def __init__(self, flat, covered=None, name="", kills=None):
        self.flat, self.covered, self.name, self.kills = flat, covered, name, kills or {}
        self.traces = self.error = self.cycles = self.killed = None


def run_on_engine(jobs, lanes, fuse=0.5, seed=1, check_states=True, fused_start=None,
                  kill_rate=0.0, same_cycle=True, two_cycle=False, **params):
    """Run every job on one engine (``start`` between programs), checking it against the model
    cycle by cycle. Fills ``job.traces``, ``job.error`` (FcError or None), ``job.cycles``,
    ``job.killed`` (the lanes killed by the end).
    ``fuse``: probability of an ALU op sharing its cycle with the next FC instruction;
    ``fused_start``: ``start`` with the first instruction (True), a cycle before (False), random;
    ``kill_rate``: probability, before each instruction, of killing a random set of lanes.
    ``same_cycle=False`` (the R500 core's engines): ``start`` a cycle before the first
    instruction, no ALU write in an FC instruction's cycle, an idle cycle after each FC
    instruction (``aL`` is then stale); ``two_cycle``: each FC instruction's inputs held for
    two cycles, its outputs checked in the second (none in the first)."""
    dut = FlowControlEngine(lanes, same_cycle=same_cycle, two_cycle=two_cycle, **params)
    if not same_cycle:
        fuse, fused_start = 0.0, False
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    rng = random.Random(seed)
    all_lanes = (1 << lanes) - 1

    async def bench(ctx):
        def clear_writes():
            ctx.set(dut.alu_result_we, 0)
            ctx.set(dut.pred_we, [0] * lanes)

        def check_state(model, where):
            for i in range(lanes):
                got = (ctx.get(dut.lane_state[i]), ctx.get(dut.lane_value[i]))
                assert got == (int(model.lane[i].state), model.lane[i].value), (where, i, got)
            assert ctx.get(dut.loop_sp) == len(model.loop_stack), where
            assert ctx.get(dut.addr_sp) == len(model.addr_stack), where
            assert ctx.get(dut.alu_result_r) == sum(b << i for i, b in enumerate(model.alu_result))
            assert [ctx.get(p) for p in dut.pred_r] == model.pred, where

        def check_lane_outputs(model, where):
            """The engine's view of the lanes this cycle, before this cycle's ALU writes."""
            assert ctx.get(dut.active) == model.active_mask(), where
            assert ctx.get(dut.lane_alu_result) == \
                sum(b << i for i, b in enumerate(model.alu_result)), where
            assert list(ctx.get(dut.lane_pred)) == model.pred, where

        for job in jobs:
            prog = job.flat
            model = FlowControl(lanes, **params)
            model.start(prog.base, job.covered, prog.code_offset)
            traces, counts = [[] for _ in range(lanes)], [{} for _ in range(lanes)]
            ctx.set(dut.covered, all_lanes if job.covered is None else job.covered)
            ctx.set(dut.bool_const, prog.bool_const)
            ctx.set(dut.code_offset, prog.code_offset)
            ctx.set(dut.killed, 0)
            cycles = 0
            ctx.set(dut.start, 1)
            if not (rng.random() < 0.5 if fused_start is None else fused_start):
                await ctx.tick()
                ctx.set(dut.start, 0)
                cycles += 1
            pc = prog.base
            while pc != prog.end:
                where = (job.name, hex(pc))
                insn = prog.at(pc)
                if kill_rate and rng.random() < kill_rate:
                    model.kill(rng.getrandbits(lanes))
                model.kill(job.kills.get(pc, 0))
                ctx.set(dut.killed, model.killed_mask())
                if isinstance(insn, AluOp):
                    active = ctx.get(dut.active)
                    assert ctx.get(dut.aL) == model.aL, where
                    bits, preds = alu_lane_values(insn, active, lanes, counts, traces, model.aL)
                    if insn.fn is not None:
                        # killed and inactive lanes get random values: the engine must drop them
                        noise = rng.getrandbits(lanes) & ~active
                        ctx.set(dut.alu_result_we, all_lanes)
                        ctx.set(dut.alu_result, sum(b << i for i, b in enumerate(bits)) | noise)
                        ctx.set(dut.pred_we, [0xF] * lanes)
                        ctx.set(dut.pred, [p | (rng.getrandbits(4) if not active >> i & 1 else 0)
                                           for i, p in enumerate(preds)])
                    check_lane_outputs(model, where)        # not yet the writes just given
                    if insn.fn is not None:
                        model.set_alu_result(bits)
                        model.set_pred(preds)
                    model.advance()
                    nxt = (pc + 1) & model.pc_mask
                    if nxt != prog.end and isinstance(prog.at(nxt), FcOp) and rng.random() < fuse:
                        pc, insn = nxt, prog.at(nxt)    # the FC instruction in the same cycle
                        where = (job.name, hex(pc))
                    else:
                        ctx.set(dut.valid, 0)
                        await ctx.tick()
                        ctx.set(dut.start, 0)
                        clear_writes()
                        cycles += 1
                        pc = nxt
                        continue
                else:
                    check_lane_outputs(model, where)
                ctx.set(dut.valid, 1)
                ctx.set(dut.pc, pc)
                ctx.set(dut.inst.as_value(), insn.inst)
                ctx.set(dut.addr, insn.addr._asdict())
                ctx.set(dut.int_const.as_value(),       # the core's INT_CONST lookup
                        select_int_const(prog.int_consts, insn.addr.int_addr))
                ctx.set(dut.pred_sel, insn.pred_sel)
                ctx.set(dut.pred_inv, insn.pred_inv)
                assert ctx.get(dut.active) == model.active_mask(), where
                if two_cycle:               # the first cycle: no outputs yet, no state change
                    assert (ctx.get(dut.jump), ctx.get(dut.error)) == (0, 0), where
                    await ctx.tick()
                    ctx.set(dut.start, 0)
                    clear_writes()
                    cycles += 1
                    if check_states:
                        check_state(model, where)
                    check_lane_outputs(model, where)
                    assert ctx.get(dut.active) == model.active_mask(), where
                depth = len(model.addr_stack)
                assert (ctx.get(dut.addr_full), ctx.get(dut.addr_empty)) == \
                    (depth == model.addr_depth, depth == 0), where
                got = (ctx.get(dut.jump), ctx.get(dut.next_pc), ctx.get(dut.error),
                       ctx.get(dut.error_code))
                try:
                    jumped, next_pc = model.execute(insn.inst, insn.addr, prog.bool_const,
                                                    prog.int_consts, insn.pred_sel, insn.pred_inv)
                except FlowControlError as e:
                    assert got[2:] == (1, e.code), (where, got, str(e))
                    await ctx.tick()            # an error commits nothing
                    ctx.set(dut.start, 0)
                    clear_writes()
                    ctx.set(dut.valid, 0)
                    check_state(model, where)
                    job.error = e.code
                    break
                assert got == (int(jumped), next_pc, 0, FcError.NONE), (where, insn.note, got,
                                                                       jumped, next_pc)
                await ctx.tick()
                ctx.set(dut.start, 0)
                clear_writes()
                ctx.set(dut.valid, 0)
                cycles += 1
                if check_states:
                    check_state(model, where)
                if not same_cycle:          # the user's idle cycle after an FC instruction
                    await ctx.tick()
                    cycles += 1
                pc = next_pc
            job.traces, job.cycles, job.killed = traces, cycles, model.killed_mask()

    sim.add_testbench(bench)
    sim.run()
    return jobs


def assert_traces_match(program, job, lanes=4):
    """Each covered lane ran as if alone; a killed lane ran a prefix of that and stopped."""
    for lane in range(lanes):
        if job.covered is None or job.covered >> lane & 1:
            alone = run_lane(program, lane)
            if job.killed and job.killed >> lane & 1:
                assert job.traces[lane] == alone[:len(job.traces[lane])], (job.name, lane)
            else:
                assert job.traces[lane] == alone, (job.name, lane)


# --- directed structured programs, L = 4 -----------------------------------------------------

#: the engine's timing variants: the THEIA core's (same-cycle views, one cycle per FC
#: instruction), flip-flop views, and the R500 core's (flip-flop views, FC in two cycles)
VARIANTS = pytest.mark.parametrize("variant", [
    {}, {"same_cycle": False}, {"same_cycle": False, "two_cycle": True},
], ids=["same_cycle", "late", "two_cycle"])


@VARIANTS
def test_directed_programs(variant):
    jobs, programs = [], []
    for name in sorted(DIRECTED):
        for covered in (0b1111, 0b0110):
            jobs.append(Job(compile_program(DIRECTED[name]), covered, name))
            programs.append(DIRECTED[name])
    run_on_engine(jobs, 4, **variant)
    for program, job in zip(programs, jobs):
        assert job.error is None
        assert_traces_match(program, job)


@VARIANTS
def test_directed_programs_r500_addressing(variant):
    """9-bit jump addresses relative to a code offset (JUMP_GLOBAL = 0), shallow stacks."""
    jobs, programs = [], []
    for name in sorted(DIRECTED):
        jobs.append(Job(compile_program(DIRECTED[name], base=0x1C0, relative=True), None, name))
        programs.append(DIRECTED[name])
    run_on_engine(jobs, 4, fuse=1.0, loop_depth=4, addr_depth=4, jump_addr_bits=9, **variant)
    for program, job in zip(programs, jobs):
        assert job.error is None
        assert_traces_match(program, job)


# --- errors ----------------------------------------------------------------------------------

def nested_calls(depth):
    """main calls f0, f_i calls f_(i+1), ..., f_(depth-1) does an ALU op: ``depth`` pushes."""
    names = [f"f{i}" for i in range(depth)]
    functions = {n: [Alu(i), Call(names[i + 1])] if i + 1 < depth else [Alu(i)]
                 for i, n in enumerate(names)}
    return Program([Call("f0"), Alu(100)], functions)


def nested(depth, make):
    body = [Alu(99)]
    for _ in range(depth):
        body = [make(body)]
    return Program([Alu(98, lambda lane, k: (int(lane == 0), 0))] + body)


ERROR_CASES = {
    "addr_overflow": (nested_calls(9), FcError.ADDR_OVERFLOW),
    "addr_underflow": (FlatProgram([AluOp(0), FcOp(*fc_ret())]), FcError.ADDR_UNDERFLOW),
    "loop_overflow": (nested(9, lambda body: Loop(0, body)), FcError.LOOP_OVERFLOW),
    "loop_underflow": (FlatProgram([FcOp(*fc_endloop(0, 0))]), FcError.LOOP_UNDERFLOW),
    "counter_overflow": (nested(65, lambda body: If(Cond("alu"), body)), FcError.COUNTER_OVERFLOW),
}


@VARIANTS
def test_error_cases(variant):
    jobs = []
    for name, (program, code) in ERROR_CASES.items():
        flat = compile_program(program) if isinstance(program, Program) else program
        flat.int_consts[0] = int_const(1)
        jobs.append(Job(flat, None, name))
    run_on_engine(jobs, 4, **variant)
    for job, (_, code) in zip(jobs, ERROR_CASES.values()):
        assert job.error == code, job.name


def test_start_in_the_first_instructions_cycle_resets_everything():
    """After an error (lanes inactive, stacks full), ``start`` with the first instruction of the
    next program already gives that instruction the start state."""
    jobs, programs = [], []
    for name in ("counter_overflow", "loop_overflow", "addr_overflow"):
        program = ERROR_CASES[name][0]
        flat = compile_program(program)
        flat.int_consts[0] = int_const(1)
        jobs.append(Job(flat, None, name))
        programs.append(None)
        jobs.append(Job(compile_program(DIRECTED["nested_if_else"]), None, "after " + name))
        programs.append(DIRECTED["nested_if_else"])
    jobs.append(Job(FlatProgram([FcOp(*fc_ret())]), None, "ret after a clean program"))
    programs.append(None)
    run_on_engine(jobs, 4, fused_start=True)
    assert [job.error for job in jobs] == [FcError.COUNTER_OVERFLOW, None, FcError.LOOP_OVERFLOW,
                                          None, FcError.ADDR_OVERFLOW, None,
                                          FcError.ADDR_UNDERFLOW]
    for program, job in zip(programs, jobs):
        if program is not None:
            assert_traces_match(program, job)


@VARIANTS
def test_no_error_at_the_limits(variant):
    """Depth 8 calls, 8 nested loops and counter 63 are fine."""
    cases = [nested_calls(8), nested(8, lambda body: Loop(0, body)),
             nested(64, lambda body: If(Cond("alu"), body))]
    jobs = []
    for program in cases:
        flat = compile_program(program)
        flat.int_consts[0] = int_const(2)
        jobs.append(Job(flat))
    run_on_engine(jobs, 4, fuse=0.0, **variant)
    for program, job in zip(cases, jobs):
        assert job.error is None
        program.int_consts[0] = int_const(2)
        assert_traces_match(program, job)


@VARIANTS
def test_killed_lanes_do_not_overflow_counters(variant):
    """65 nested IFs that only lane 0 enters overflow the other lanes' counters (63 before the
    last IF) unless those lanes are killed by then, or lane 0 is (no voter is left, the IFs jump
    over the deeper ones); a killed lane's state stays as it was (the states are checked)."""
    program = ERROR_CASES["counter_overflow"][0]
    jobs = [Job(compile_program(program), name="kill lanes 1-3", kills={65: 0b1110}),
            Job(compile_program(program), name="kill lanes 1-2", kills={65: 0b0110}),
            Job(compile_program(program), name="kill lane 0", kills={30: 0b0001})]
    run_on_engine(jobs, 4, **variant)
    assert [job.error for job in jobs] == [None, FcError.COUNTER_OVERFLOW, None]
    assert_traces_match(program, jobs[0])
    assert_traces_match(program, jobs[2])


# --- seeded random structured programs -------------------------------------------------------

@VARIANTS
@pytest.mark.parametrize("seed, count, covered_mix, kill_rate",
                         [(1, 150, False, 0.0), (2, 150, True, 0.03), (3, 100, False, 0.03)])
def test_random_programs(seed, count, covered_mix, kill_rate, variant):
    """Random structured programs; with ``kill_rate`` lanes are killed between instructions
    (the survivors still run as if alone)."""
    rng = random.Random(seed)
    jobs, programs = [], []
    for n in range(count):
        program = random_program(rng)
        covered = rng.randrange(16) if covered_mix and n % 2 else 0xF
        jobs.append(Job(compile_program(program, base=rng.choice([0, 0x8000])), covered, n))
        programs.append(program)
    run_on_engine(jobs, 4, seed=seed, check_states=seed != 2, kill_rate=kill_rate, **variant)
    for program, job in zip(programs, jobs):
        assert job.error is None
        assert_traces_match(program, job)
    assert sum(job.cycles for job in jobs) > 20 * count
    if kill_rate:       # kills of some lanes and of all four both happened
        assert sum(0 < job.killed < 0xF for job in jobs) > count // 5
        assert sum(job.killed == 0xF for job in jobs) > count // 20


# --- THEIA: L = 1 ----------------------------------------------------------------------------

def theia_nested_calls(depth):
    """main: CALL f0; f_i: ALU i, CALL f_(i+1), ALU 50+i, RET; the last one: ALU, RET."""
    base = 0x8000
    code = [FcOp(*theia_call(base + 2)), AluOp(100)]       # base + 1 is the end
    for i in range(depth):
        here = base + len(code)
        if i + 1 < depth:
            code += [AluOp(i), FcOp(*theia_call(here + 4)), AluOp(50 + i), FcOp(*theia_ret())]
        else:
            code += [AluOp(i), FcOp(*theia_ret())]
    return FlatProgram(code, base=base, end=base + 1)


def test_theia_single_lane():
    flat = theia_program()
    deep = theia_nested_calls(8)
    too_deep = theia_nested_calls(9)
    jobs = [Job(flat, name="theia"), Job(deep, name="depth 8"), Job(too_deep, name="depth 9")]
    run_on_engine(jobs, 1, fuse=1.0)                    # the compare in the jump's cycle
    assert [i for i, _ in jobs[0].traces[0]] == [0, 1, 1, 1, 1, 3, 4, 3, 4, 2]
    assert jobs[1].error is None
    assert [i for i, _ in jobs[1].traces[0]] == list(range(8)) + [56 - i for i in range(7)]
    assert jobs[2].error == FcError.ADDR_OVERFLOW
    assert [i for i, _ in jobs[2].traces[0]] == list(range(8))


def test_theia_ret_underflow_and_jump_targets():
    code = [AluOp(0, lambda lane, k: (0, 0)), FcOp(*theia_branch(0x9000)),   # not taken
            AluOp(1, lambda lane, k: (1, 0)), FcOp(*theia_branch(0x8006)),    # taken
            AluOp(2), AluOp(3),
            FcOp(*theia_ret())]                                               # nothing pushed
    job = Job(FlatProgram(code, base=0x8000), name="ret underflow")
    run_on_engine([job], 1, fuse=1.0)
    assert [i for i, _ in job.traces[0]] == [0, 1]
    assert job.error == FcError.ADDR_UNDERFLOW


def test_theia_without_loop_stack():
    """loop_depth = 0 (a core that never loops): jumps work, a LOOP is an overflow."""
    jobs = [Job(theia_program(), name="theia"),
            Job(FlatProgram([AluOp(0), FcOp(*fc_loop(3, 0))]), name="loop")]
    jobs[1].flat.int_consts[0] = int_const(1)
    run_on_engine(jobs, 1, fuse=1.0, loop_depth=0)
    assert [i for i, _ in jobs[0].traces[0]] == [0, 1, 1, 1, 1, 3, 4, 3, 4, 2]
    assert jobs[1].error == FcError.LOOP_OVERFLOW
