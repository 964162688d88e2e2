"""The vector ALU against sim.semantics.alu_result: every ALU-kind opcode streamed one per cycle,
a mixed stream scheduled like the core schedules it (writeback slots), and the collision flag."""

import random

import pytest
from amaranth.sim import Simulator

from hdl.isa import MASK32, OPS, SWIZZLES, Kind, Op
from hdl.valu import ALU_OPS, CLASS_OF, LatencyClass, VectorALU
from sim.semantics import alu_result
from tests.test_multiplier import EDGES, random_word

TAG_WIDTH = 16
OPS_PER_OPCODE = 2000


def pack(vector):
    x, y, z = vector
    return (x << 64) | (y << 32) | z


def unpack(word):
    return ((word >> 64) & MASK32, (word >> 32) & MASK32, word & MASK32)


def random_operation(rng, op):
    """(op, a, b, imm, pc) with operands that reach the interesting corners of ``op``."""
    a = tuple(random_word(rng) for _ in range(3))
    b = tuple(random_word(rng) for _ in range(3))
    if rng.random() < 0.1:
        a = tuple(rng.choice(EDGES) for _ in range(3))
    if rng.random() < 0.1:
        b = tuple(rng.choice(EDGES) for _ in range(3))
    if op == Op.DIV and rng.random() < 0.05:
        b = (0, b[1], 0)
    if op == Op.MOD and rng.random() < 0.5:       # the intended use: B a power of two >= 1.0
        b = tuple(1 << rng.randrange(17, 32) for _ in range(3))
    imm = rng.randrange(len(SWIZZLES)) if op == Op.SWIZZLE3D else random_word(rng)
    return (op, a, b, imm, rng.getrandbits(16))


def run_schedule(dut, issues, cycles):
    """Drive ``issues`` ({cycle: operation}) and check every result against alu_result.

    Each result must leave exactly ``dut.latency(op)`` cycles after its operation went in, with
    its tag; returns (checked, mismatches)."""
    due = {}
    for cycle, operation in issues.items():
        done = cycle + dut.latency(operation[0]) - 1
        assert done not in due, "the schedule itself collides"
        due[done] = cycle
    mismatches = []
    checked = []

    async def testbench(ctx):
        for cycle in range(cycles):
            operation = issues.get(cycle)
            if operation is None:
                ctx.set(dut.i_valid, 0)
            else:
                op, a, b, imm, pc = operation
                ctx.set(dut.i_valid, 1)
                ctx.set(dut.i_op, op)
                ctx.set(dut.i_a.as_value(), pack(a))
                ctx.set(dut.i_b.as_value(), pack(b))
                ctx.set(dut.i_imm, imm)
                ctx.set(dut.i_pc, pc)
                ctx.set(dut.i_tag, cycle % (1 << TAG_WIDTH))
            await ctx.tick()
            if cycle in due:
                issued = due[cycle]
                assert ctx.get(dut.o_valid), f"no result for the operation issued at {issued}"
                assert ctx.get(dut.o_tag) == issued % (1 << TAG_WIDTH)
                op, a, b, imm, pc = issues[issued]
                got = unpack(ctx.get(dut.o_result.as_value()))
                want = alu_result(op, a, b, imm, pc)
                checked.append(op)
                if got != want:
                    mismatches.append((Op(op).name, [hex(v) for v in a], [hex(v) for v in b],
                                       hex(imm), pc, [hex(v) for v in got],
                                       [hex(v) for v in want]))
            else:
                assert not ctx.get(dut.o_valid), f"unexpected result at cycle {cycle}"
        assert not ctx.get(dut.collision)

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(testbench)
    sim.run()
    assert len(checked) == len(issues)
    return checked, mismatches


def opcode_streams(rng, ops, count, dut):
    """``count`` operations of each opcode back to back, the pipe drained between opcodes."""
    issues, cycle = {}, 0
    for op in ops:
        for _ in range(count):
            issues[cycle] = random_operation(rng, op)
            cycle += 1
        cycle += dut.max_latency
    return issues, cycle + 1


def test_every_alu_opcode_has_a_class_and_latency():
    dut = VectorALU(TAG_WIDTH)
    assert set(ALU_OPS) == {op for op, info in OPS.items() if info.kind == Kind.ALU}
    assert set(CLASS_OF) == set(ALU_OPS)
    assert dut.latency(Op.ADD) == 1 and dut.latency(Op.MUL) == 4
    assert dut.latency(Op.DOT) == dut.latency(Op.CROSS) == 5
    assert dut.latency(Op.DIV) == 26 and dut.latency(Op.MAG) == 36
    with pytest.raises(ValueError, match="not an ALU-kind opcode"):
        dut.latency(Op.JMP)
    with pytest.raises(ValueError, match="not an ALU-kind opcode"):
        dut.latency(0x7F)


def test_every_opcode_streamed_back_to_back():
    """OPS_PER_OPCODE operations of every ALU-kind opcode, one per cycle (throughput 1/cycle)."""
    dut = VectorALU(TAG_WIDTH)
    issues, cycles = opcode_streams(random.Random(11), ALU_OPS, OPS_PER_OPCODE, dut)
    checked, mismatches = run_schedule(dut, issues, cycles)
    assert not mismatches, f"{len(mismatches)} mismatches, first: {mismatches[:3]}"
    for op in ALU_OPS:
        assert checked.count(op) == OPS_PER_OPCODE


def test_mixed_stream_with_reserved_writeback_slots():
    """Random opcodes issued like the core issues them: an operation waits (a bubble) when its
    result would leave in a cycle already taken."""
    dut = VectorALU(TAG_WIDTH)
    rng = random.Random(12)
    issues, taken, cycle = {}, set(), 0
    while len(issues) < 3000:
        op = rng.choice(ALU_OPS)
        done = cycle + dut.latency(op)
        if done not in taken:
            taken.add(done)
            issues[cycle] = random_operation(rng, op)
        cycle += 1
    checked, mismatches = run_schedule(dut, issues, cycle + dut.max_latency + 1)
    assert not mismatches, f"{len(mismatches)} mismatches, first: {mismatches[:3]}"
    assert {CLASS_OF[op] for op in checked} == set(LatencyClass)
    assert cycle < 1.5 * len(issues), "slot reservation should rarely stall"


def test_collision_flag_is_sticky():
    dut = VectorALU(TAG_WIDTH)
    first, second = Op.DIV, Op.ADD
    gap = dut.latency(first) - dut.latency(second)
    seen = []

    async def testbench(ctx):
        for cycle in range(gap + 4):
            ctx.set(dut.i_valid, cycle in (0, gap))
            ctx.set(dut.i_op, first if cycle == 0 else second)
            await ctx.tick()
            seen.append(ctx.get(dut.collision))
        for _ in range(3):
            await ctx.tick()
            seen.append(ctx.get(dut.collision))

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(testbench)
    sim.run()
    assert seen[:gap] == [0] * gap
    assert seen[-4:] == [1, 1, 1, 1]
