"""Random programs (sim/random_program.py) on the RTL core of every preset and on the reference
model.

Each preset's core runs seeds of its own (``SEEDS``, ``MEMORY_SEEDS``). Each program starts from
a seeded random register state (every bank, both swap copies, flipped or not) and random texture
memory; afterwards all 132 registers as EXE sees them, output memory, the RETURN value and the
number of retired instructions must be identical. One simulator runs a
whole batch: elaborating the core costs about as much as a small program, so each program is
put into the user RAM and the register memory through the testbench's backdoor (``poke_*``)
and started with ``start_direct`` at 0x800C. A failing seed is reproducible on its own:
``python -m sim.random_program SEED``, and ``check_seeds([SEED], config=preset(NAME).core)``
below.
"""

import dataclasses
import random

import pytest

from firmware.asm import assemble
from firmware.rom import default_rom
from hdl.config import CORE_PRESET_NAMES
from hdl.isa import NUM_REGS, BANK_SWAP, BANK_OUTPUT, USER_CODE_START, Kind, Op, OPS, SWIZZLES
from sim.core_pysim import (core_under_test, MemoryModel, poke_code, poke_register, read_registers, flip_swap,
                          run_routine, simulate)
from sim.model import Core as ModelCore, TheiaError
from sim.random_program import (random_program, INTERESTING_VALUES, BRANCH_OPCODES,
                                MAX_SUBROUTINES)

#: the seeds each preset's core runs: 70 programs each, 210 in all
PROGRAMS_PER_PRESET = 70
SEEDS = {name: range(k * PROGRAMS_PER_PRESET, (k + 1) * PROGRAMS_PER_PRESET)
         for k, name in enumerate(CORE_PRESET_NAMES)}
#: and the memory-heavy ones (TMREAD/OMWRITE about half the blocks, a slow memory)
MEMORY_PROGRAMS_PER_PRESET = 10
MEMORY_SEEDS = {name: range(10_000 + k * MEMORY_PROGRAMS_PER_PRESET,
                            10_000 + (k + 1) * MEMORY_PROGRAMS_PER_PRESET)
                for k, name in enumerate(CORE_PRESET_NAMES)}
TMEM_WORDS = 64
OMEM_WORDS = 64
USER_WORDS = 1024
ROM = default_rom()


def initial_state(seed):
    """(registers, IO swap copy, flip before running, texture words) for program ``seed``."""
    rng = random.Random(f"state-{seed}")

    def word():
        return rng.choice(INTERESTING_VALUES) if rng.random() < 0.3 else rng.getrandbits(32)

    regs = [tuple(word() for _ in range(3)) if addr < BANK_OUTPUT.first else (0, 0, 0)
            for addr in range(NUM_REGS)]
    swap_io = [tuple(word() for _ in range(3)) for _ in range(BANK_SWAP.size)]
    tmem = [rng.getrandbits(32) for _ in range(TMEM_WORDS)]
    return regs, swap_io, rng.random() < 0.5, tmem


def run_model(program_words, regs, swap_io, flip, tmem, trace=None):
    core = ModelCore(ROM, program_words, tmem=list(tmem), omem=[0] * OMEM_WORDS,
                     user_words=USER_WORDS, tmem_words=TMEM_WORDS, max_routine_steps=20_000)
    core.regs = list(regs)
    core.swap_io = list(swap_io)
    if flip:
        core.flip()
    core.trace = trace
    error = result = None
    try:
        result = int(core.run(USER_CODE_START))
    except TheiaError as e:
        error = str(e)
    return {"regs": core.register_dump(), "omem": core.omem, "result": result,
            "retired": core.stats.instructions, "error": error}


def run_rtl_batch(cases, config, serve=None):
    """Run ``cases`` = [(program words, regs, swap_io, flip, tmem)] one after another in one
    simulation on a core of ``config`` (a CoreConfig) whose user RAM holds at least USER_WORDS
    (the programs are up to about 220 words: more than ``ulx3s``'s 64, which is then made
    larger); return their outcomes (the same dict as ``run_model``)."""
    config = dataclasses.replace(config, user_words=max(config.user_words, USER_WORDS))
    core = core_under_test(ROM, config, tmem_words=TMEM_WORDS, omem_words=OMEM_WORDS)
    memories = MemoryModel()
    outcomes = []

    async def testbench(ctx):
        for words, regs, swap_io, flip, tmem in cases:
            # words past the program keep the previous program's code: a correct core never
            # fetches them (the model would read NOPs there)
            poke_code(ctx, core, words)
            memories.tmem = list(tmem)
            memories.omem = [0] * OMEM_WORDS
            sel = ctx.get(core.swap_sel)
            for addr in range(NUM_REGS):
                poke_register(ctx, core, addr, regs[addr], swap_copy=sel)
            for i, value in enumerate(swap_io):
                poke_register(ctx, core, BANK_SWAP.first + i, value, swap_copy=1 - sel)
            if flip:
                await flip_swap(ctx, core)
            run = await run_routine(ctx, core, pc=USER_CODE_START, max_cycles=20_000)
            outcomes.append({"regs": read_registers(ctx, core), "omem": list(memories.omem),
                             "result": run.result, "retired": run.retired, "error": run.error,
                             "counters": run.counters,
                             "collision": ctx.get(core.valu.collision)})

    simulate(core, testbench, memories, serve=serve)
    return outcomes


def differences(rtl, model):
    """Human-readable list of what differs (empty when the runs agree)."""
    problems = []
    if model["error"] is not None:
        problems.append(f"model error: {model['error']}")
    if rtl["error"] is not None:
        problems.append(f"RTL error: {rtl['error']}")
    for addr in range(NUM_REGS):
        if tuple(rtl["regs"][addr]) != tuple(model["regs"][addr]):
            problems.append(f"register {addr}: RTL " +
                            " ".join(f"{v:08X}" for v in rtl["regs"][addr]) + ", model " +
                            " ".join(f"{v:08X}" for v in model["regs"][addr]))
    for i, (a, b) in enumerate(zip(rtl["omem"], model["omem"])):
        if a != b:
            problems.append(f"output word {i}: RTL {a:08X}, model {b:08X}")
    if rtl.get("collision"):
        problems.append("two results met at the vector ALU's output (write-port reservation)")
    if rtl["retired"] != model["retired"]:
        problems.append(f"retired instructions: RTL {rtl['retired']}, model {model['retired']}")
    if rtl["result"] != model["result"]:
        problems.append(f"RETURN value: RTL {rtl['result']}, model {model['result']}")
    return problems


def check_seeds(seeds, config, memory_heavy=False, serve=None):
    programs = [assemble(random_program(seed, tmem_words=TMEM_WORDS, omem_words=OMEM_WORDS,
                                        memory_heavy=memory_heavy), f"<random {seed}>")
                for seed in seeds]
    states = [initial_state(seed) for seed in seeds]
    cases = [(p.words,) + s for p, s in zip(programs, states)]
    rtl_outcomes = run_rtl_batch(cases, config, serve)
    failures = []
    for seed, (words, regs, swap_io, flip, tmem), rtl in zip(seeds, cases, rtl_outcomes):
        model = run_model(words, regs, swap_io, flip, tmem)
        problems = differences(rtl, model)
        if problems:
            failures.append(f"seed {seed} (python -m sim.random_program {seed}): "
                            + "; ".join(problems[:6]))
    return failures, rtl_outcomes


@pytest.mark.slow(weight=2)
def test_random_programs_match_model(core_config, preset_name):
    """The preset's seeds on its core. (``default``: a divider shared with another core, idle
    here, in time slots, the serial square root, CROSS in two passes over three multipliers,
    SIMPLE results in two cycles: a DIV of non-uniform operands keeps the next DIV out for its
    lanes' slots, a MAG the next MAG for 30, a CROSS any multiplier operation for one. ``ulx3s``:
    the same, and no forwarding into the ALU's operands.)"""
    seeds = list(SEEDS[preset_name])
    failures, outcomes = check_seeds(seeds, core_config)
    assert not failures, f"{len(failures)} of {len(seeds)} programs differ:\n" + \
        "\n".join(failures[:10])
    # the programs did real work: they retired instructions and stalled on hazards
    assert sum(o["retired"] for o in outcomes) > 50 * len(seeds)
    assert sum(o["counters"]["stall_operand"] for o in outcomes) > 0


async def slow_memories(ctx, core, memories):
    """Texture answers 1-4 cycles late, request and output ports not always ready (seeded)."""
    rng = random.Random(1234)
    pending = []          # [cycles left, data]
    async for _, _, tm_valid, tm_ready, tm_addr, om_valid, om_ready, om_addr, om_data in \
            ctx.tick().sample(core.tm_req.valid, core.tm_req.ready, core.tm_req.payload,
                              core.om_req.valid, core.om_req.ready, core.om_req.payload.addr,
                              core.om_req.payload.data):
        for p in pending:
            p[0] -= 1
        if pending and pending[0][0] <= 0:
            ctx.set(core.tm_resp.valid, 1)
            ctx.set(core.tm_resp.payload, pending.pop(0)[1])
        else:
            ctx.set(core.tm_resp.valid, 0)
        if tm_valid and tm_ready:
            pending.append([rng.randint(0, 3), memories.tmem[tm_addr]])
        if om_valid and om_ready:
            memories.omem[om_addr] = om_data
        ctx.set(core.tm_req.ready, rng.random() < 0.6)
        ctx.set(core.om_req.ready, rng.random() < 0.6)


@pytest.mark.slow(weight=2)
def test_random_memory_programs_match_model(core_config, preset_name):
    """TMREAD-/OMWRITE-heavy programs, random texture contents, a memory that makes the core
    wait (late texture answers, request ports not ready)."""
    seeds = list(MEMORY_SEEDS[preset_name])
    failures, outcomes = check_seeds(seeds, core_config, memory_heavy=True, serve=slow_memories)
    assert not failures, "\n".join(failures[:10])
    assert sum(o["counters"]["stall_memory"] for o in outcomes) > 0
    assert sum(1 for o in outcomes for w in o["omem"] if w) > 100


def test_generator_covers_the_isa():
    """What the programs of ``test_random_programs_match_model`` execute (on the model), over
    all presets: every opcode, every SWIZZLE3D selector, every conditional jump both taken and
    not taken, RET with a DST and VOID, the full call depth, and all of it without an error."""
    executed, taken, not_taken, selectors = set(), set(), set(), set()
    ret_forms, depth = set(), 0
    for seed in sorted(seed for seeds in SEEDS.values() for seed in seeds):
        program = assemble(random_program(seed, tmem_words=TMEM_WORDS, omem_words=OMEM_WORDS))
        regs, swap_io, flip, tmem = initial_state(seed)
        last = {}

        def trace(pc, d):
            nonlocal depth
            if last:
                prev_pc, prev = last["pc"], last["d"]
                if prev.kind == Kind.BRANCH:
                    (taken if pc == prev.dst != prev_pc + 1 else not_taken).add(prev.op)
            last.update(pc=pc, d=d)
            executed.add(d.op)
            if d.op == Op.SWIZZLE3D:
                selectors.add(d.imm)
            if d.op == Op.RET:
                ret_forms.add("VOID" if d.dst == 0 else "DST")
            depth = max(depth, len(model_stack))

        core = ModelCore(ROM, program.words, tmem=tmem, omem=[0] * OMEM_WORDS,
                         tmem_words=TMEM_WORDS)
        model_stack = core.stack
        core.regs, core.swap_io = list(regs), list(swap_io)
        core.trace = trace
        core.run(USER_CODE_START)
    assert executed == set(OPS), f"never executed: {set(OPS) - executed}"
    assert taken >= set(BRANCH_OPCODES), f"never taken: {set(BRANCH_OPCODES) - taken}"
    assert not_taken >= set(BRANCH_OPCODES), f"never fell through: {set(BRANCH_OPCODES) - not_taken}"
    assert selectors == set(SWIZZLES)
    assert ret_forms == {"VOID", "DST"}
    assert depth == MAX_SUBROUTINES


def test_generator_is_deterministic():
    assert random_program(42) == random_program(42)
    assert random_program(42) != random_program(43)
