"""The vector ALU of every preset (``core_config``: full, default, ulx3s) against
sim.semantics.alu_result: every ALU-kind opcode streamed as fast as its units take it (in the
fast simulator), a mixed stream scheduled like the core schedules it (writeback slots), directed
corner cases, the collision flag, and a divider shared by two cores in its slots.

Every result must leave exactly ``latency(op)`` cycles after its operation, with its tag (an ALU
that shares a divider carries none), and ``div_ready``, ``mag_ready`` and ``mul_ready`` must be
low in exactly the cycles the reference says (``blocked``): with three lane dividers never, with
a divider shared by two cores (``DividerSharing.PAIR``) in the other core's slots (every second
cycle) and in the two slots after a DIV of non-uniform operands (its lanes y and z), a serial
square root for ``mag_cycles`` after a MAG, two-pass CROSS for a cycle after a CROSS."""

import random

import pytest
from amaranth.lib import data
from amaranth.sim import Simulator

from hdl.isa import MASK32, OPS, SWIZZLES, Kind, Op
from hdl.alu.multiplier import Multiplier
from hdl.alu.valu import ALU_OPS, CLASS_OF, MULTIPLIER_OPS, LatencyClass
from hdl.config import CORE_PRESET_NAMES, DividerSharing, preset
from sim.alu_harness import AluUnderTest
from sim.semantics import alu_result
from tests.helpers.alu import EDGES, TAG_WIDTH, pack, random_word, unpack

OPS_PER_OPCODE = 2000


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
    if op == Op.DIV and rng.random() < 0.3:        # uniform, like MAIN's quotients of DOTs
        a, b = (a[0],) * 3, (b[1],) * 3
    if op == Op.MOD and rng.random() < 0.5:       # the intended use: B a power of two >= 1.0
        b = tuple(1 << rng.randrange(17, 32) for _ in range(3))
    imm = rng.randrange(len(SWIZZLES)) if op == Op.SWIZZLE3D else random_word(rng)
    return (op, a, b, imm, rng.getrandbits(16))


# --- the reference of the units' ready signals ------------------------------------------------

#: the units that may be busy for a while: the opcodes that use each, the port that says it is
#: free
UNITS = {"divider": ({Op.DIV}, "div_ready"), "square root": ({Op.MAG}, "mag_ready"),
         "multipliers": (MULTIPLIER_OPS, "mul_ready")}


def units_of(op):
    return [unit for unit, (ops, _) in UNITS.items() if op in ops]


def shares_divider(dut):
    return dut.alu.config.divider == DividerSharing.PAIR


def three_pass(operation):
    """A DIV of non-uniform operands: a shared divider takes it lane by lane."""
    _, a, b = operation[:3]
    return len(set(a)) > 1 or len(set(b)) > 1


def unit_cycles(dut, unit, operation):
    """Cycles ``operation`` keeps the next user of ``unit`` out (a divider of the ALU's own)."""
    op = operation[0]
    if unit == "divider":
        return 1                            # (three lane dividers)
    return dut.mag_cycles() if unit == "square root" else dut.multiplier_cycles(op)


def busy_after(dut, unit, cycle, operation):
    """The cycles after ``cycle`` in which ``operation``, issued then, keeps ``unit`` busy."""
    if unit == "divider" and shares_divider(dut):
        # lanes y and z take the ALU's next two slots
        return {cycle + 2, cycle + 4} if three_pass(operation) else set()
    return set(range(cycle + 1, cycle + unit_cycles(dut, unit, operation)))


def other_slot(dut, unit, cycle):
    """``cycle`` belongs to the other core of a shared divider (the ALU's slots: even cycles)."""
    return unit == "divider" and shares_divider(dut) and cycle % 2 == 1


class Reference:
    """The cycles each unit is busy, by the reference, as operations are issued."""

    def __init__(self, dut):
        self.dut = dut
        self.busy = {unit: set() for unit in UNITS}

    def ready(self, op, cycle):
        """Every unit ``op`` uses is free in ``cycle``."""
        return not any(cycle in self.busy[unit] or other_slot(self.dut, unit, cycle)
                       for unit in units_of(op))

    def issue(self, cycle, operation):
        for unit in units_of(operation[0]):
            self.busy[unit] |= busy_after(self.dut, unit, cycle, operation)

    def not_ready(self, unit, cycles):
        """The cycles below ``cycles`` in which ``unit``'s ready port must be low."""
        return sorted({c for c in self.busy[unit] if c < cycles}
                      | {c for c in range(cycles) if other_slot(self.dut, unit, c)})


# --- driving the ALU in Amaranth's simulator or the fast one ----------------------------------

class PysimPorts:
    """Ports by name in an Amaranth testbench."""

    def __init__(self, ctx, dut):
        self.ctx, self.dut = ctx, dut

    def _signal(self, name):
        port = getattr(self.dut, name)
        return port.as_value() if isinstance(port, data.View) else port

    def get(self, name):
        return self.ctx.get(self._signal(name))

    def set(self, name, value):
        self.ctx.set(self._signal(name), value)

    async def tick(self):
        await self.ctx.tick()


class FastPorts:
    """Ports by name of a compiled model (``sim.fast.FastSim``)."""

    def __init__(self, sim):
        self.sim = sim
        self.get, self.set = sim.get, sim.set

    async def tick(self):
        self.sim.step()


def simulate(dut, testbench, backend):
    """Run ``async testbench(ports)`` against ``dut`` in Amaranth's simulator (``"pysim"``) or
    compiled (``"fast"``: a testbench that awaits nothing but ``ports.tick()`` runs straight
    through)."""
    if backend == "pysim":
        async def bench(ctx):
            await testbench(PysimPorts(ctx, dut))
        sim = Simulator(dut)
        sim.add_clock(1e-6)
        sim.add_testbench(bench)
        sim.run()
        return
    from sim.fast import FastSim, check_tools
    problem = check_tools("verilator")
    if problem:
        pytest.skip(f"the fast simulation is unavailable: {problem}")
    with FastSim(dut) as sim:
        coroutine = testbench(FastPorts(sim))
        try:
            coroutine.send(None)
        except StopIteration:
            return
        raise AssertionError("the testbench waited for something other than a clock edge")


def run_schedule(dut, issues, cycles, backend="pysim"):
    """Drive ``issues`` ({cycle: operation}) and check every result against alu_result.

    Each result must leave exactly ``dut.latency(op)`` cycles after its operation went in, with
    its tag; returns (checked, mismatches)."""
    due = {}
    reference = Reference(dut)
    for cycle, operation in sorted(issues.items()):
        done = cycle + dut.latency(operation[0]) - 1
        assert done not in due, "the schedule itself collides"
        due[done] = cycle
        assert reference.ready(operation[0], cycle), \
            f"the schedule sends a {Op(operation[0]).name} while its unit is busy"
        reference.issue(cycle, operation)
    ready = {unit: [] for unit in UNITS}
    mismatches = []
    checked = []
    tags = dut.tag_width > 0

    async def testbench(ports):
        for cycle in range(cycles):
            operation = issues.get(cycle)
            for unit, (_, port) in UNITS.items():
                ready[unit].append(ports.get(port))
            if operation is None:
                ports.set("i_valid", 0)
            else:
                op, a, b, imm, pc = operation
                ports.set("i_valid", 1)
                ports.set("i_op", op)
                ports.set("i_a", pack(a))
                ports.set("i_b", pack(b))
                ports.set("i_imm", imm)
                ports.set("i_pc", pc)
                if tags:
                    ports.set("i_tag", cycle % (1 << TAG_WIDTH))
            await ports.tick()
            if cycle in due:
                issued = due[cycle]
                assert ports.get("o_valid"), f"no result for the operation issued at {issued}"
                if tags:
                    assert ports.get("o_tag") == issued % (1 << TAG_WIDTH)
                op, a, b, imm, pc = issues[issued]
                got = unpack(ports.get("o_result"))
                want = alu_result(op, a, b, imm, pc)
                checked.append(op)
                if got != want:
                    mismatches.append((Op(op).name, [hex(v) for v in a], [hex(v) for v in b],
                                       hex(imm), pc, [hex(v) for v in got],
                                       [hex(v) for v in want]))
            else:
                assert not ports.get("o_valid"), f"unexpected result at cycle {cycle}"
        assert not ports.get("collision")

    simulate(dut, testbench, backend)
    assert len(checked) == len(issues)
    # div_ready (mag_ready, mul_ready) is low exactly while the reference says the divider
    # (square root, multipliers) is busy
    for unit, (_, port) in UNITS.items():
        assert [c for c, r in enumerate(ready[unit]) if not r] == \
            reference.not_ready(unit, cycles), port
    return checked, mismatches


def opcode_streams(rng, ops, count, dut):
    """``count`` operations of each opcode back to back, each as soon as its units take it,
    the pipe drained between opcodes."""
    issues, cycle = {}, 0
    reference = Reference(dut)
    for op in ops:
        for _ in range(count):
            operation = random_operation(rng, op)
            while not reference.ready(op, cycle):
                cycle += 1
            issues[cycle] = operation
            reference.issue(cycle, operation)
            cycle += 1
        cycle += dut.max_latency
    return issues, cycle + 1


def expected_latencies(config):
    """What the ALU of ``config`` takes, from issue to result, per opcode (theia-isa.md's
    classes; the units as ``config`` builds them)."""
    return {Op.ADD: config.simple_latency, Op.MUL: 3, Op.DOT: 4, Op.CROSS: 3 + config.cross_passes,
            Op.DIV: 26 if config.divider == DividerSharing.LANES else 32, Op.MAG: 35}


def check_latencies(dut, config):
    assert set(ALU_OPS) == {op for op, info in OPS.items() if info.kind == Kind.ALU}
    assert set(CLASS_OF) == set(ALU_OPS)
    assert {op: dut.latency(op) for op in expected_latencies(config)} == \
        expected_latencies(config)
    assert Multiplier.LATENCY == 3
    with pytest.raises(ValueError, match="not an ALU-kind opcode"):
        dut.latency(Op.JMP)
    with pytest.raises(ValueError, match="not an ALU-kind opcode"):
        dut.latency(0x7F)


def test_latencies_of_the_full_preset():
    """``full``: SIMPLE in one cycle, MUL in 3, DOT and CROSS in 4, DIV in 26, MAG in 35."""
    assert expected_latencies(preset("full").core) == {
        Op.ADD: 1, Op.MUL: 3, Op.DOT: 4, Op.CROSS: 4, Op.DIV: 26, Op.MAG: 35}


@pytest.mark.xdist_group("alu-fast")
def test_every_opcode_streamed_back_to_back(core_config):
    """OPS_PER_OPCODE operations of every ALU-kind opcode, each as soon as its units take it
    (one per cycle where they allow), in the fast simulator."""
    dut = AluUnderTest(core_config, TAG_WIDTH)
    issues, cycles = opcode_streams(random.Random(11), ALU_OPS, OPS_PER_OPCODE, dut)
    checked, mismatches = run_schedule(dut, issues, cycles, backend="fast")
    assert not mismatches, f"{len(mismatches)} mismatches, first: {mismatches[:3]}"
    for op in ALU_OPS:
        assert checked.count(op) == OPS_PER_OPCODE


def schedule(dut, operations):
    """Issue ``operations`` in order like the core does: an operation waits (a bubble) while its
    result would leave in a cycle an earlier one already reserved, or while its unit (divider,
    serial square root) is busy. Returns (issues, cycles, cycles spent waiting for a unit)."""
    issues, taken, cycle = {}, set(), 0
    reference = Reference(dut)
    unit_waits = 0                      # cycles spent waiting for a busy unit
    for operation in operations:
        op = operation[0]
        while cycle + dut.latency(op) in taken or not reference.ready(op, cycle):
            unit_waits += not reference.ready(op, cycle)
            cycle += 1
        taken.add(cycle + dut.latency(op))
        issues[cycle] = operation
        reference.issue(cycle, operation)
        cycle += 1
    return issues, cycle + dut.max_latency + 1, unit_waits


def test_mixed_stream_with_reserved_writeback_slots(core_config):
    """Random opcodes, all classes interleaved, issued through writeback-slot reservation
    (and, with a shared divider, the serial square root and two-pass CROSS, DIVs, MAGs and
    multiplier operations held back while ``div_ready`` / ``mag_ready`` / ``mul_ready`` is
    low; SIMPLE results two cycles after their operations)."""
    dut = AluUnderTest(core_config, TAG_WIDTH)
    assert dut.latency(Op.ADD) == core_config.simple_latency
    rng = random.Random(12)
    operations = [random_operation(rng, rng.choice(ALU_OPS)) for _ in range(3000)]
    issues, cycles, unit_waits = schedule(dut, operations)
    checked, mismatches = run_schedule(dut, issues, cycles)
    assert not mismatches, f"{len(mismatches)} mismatches, first: {mismatches[:3]}"
    assert {CLASS_OF[op] for op in checked} == set(LatencyClass)
    assert cycles - unit_waits < 1.5 * len(issues), "slot reservation should rarely stall"


MIN = 0x8000_0000
MAX = 0x7FFF_FFFF
NEG1 = 0xFFFF_FFFF
ONE_FIX = 0x0002_0000


def directed_operations():
    """Corner cases, each with the value the spec gives (so the reference is checked too)."""
    ops = [
        # (op, a, b, imm, pc), expected
        ((Op.ADD, (MAX, MIN, NEG1), (1, NEG1, 1), 0, 0), (0, MAX | MIN, 0)),
        ((Op.SUB, (MIN, 0, 5), (1, 1, 5), 0, 0), (0xFFFF_FFFF, NEG1, 0)),
        ((Op.INC, (MAX, NEG1, 0), (0, 0, 0), 0, 0), (ONE_FIX - 1, ONE_FIX - 1, ONE_FIX)),
        ((Op.DEC, (MIN, 0, ONE_FIX), (0, 0, 0), 0, 0),
         (MIN | (0x7FFF_FFFF - ONE_FIX + 1), (-ONE_FIX) & MASK32, 0)),
        ((Op.MUL, (NEG1, MIN, ONE_FIX), (1, MIN, 3), 0, 0), (0, 0, 3)),
        ((Op.IMUL, (NEG1, 3, MAX), (1, 5, 2), 0, 0), (NEG1, 15, 0xFFFF_FFFE)),
        ((Op.DIV, (0, ONE_FIX, (-ONE_FIX) & MASK32), (0, 0, 0), 0, 0),
         (0x0FFF_FFFF, 0x0FFF_FFFF, (-0x0FFF_FFFF) & MASK32)),
        ((Op.DIV, ((-ONE_FIX) & MASK32, MAX, 7), (2 * ONE_FIX, 1, (-ONE_FIX) & MASK32), 0, 0),
         ((-(ONE_FIX // 2)) & MASK32, 0x7FFE_0000, (-7) & MASK32)),
        ((Op.MAG, (MIN, MIN, MIN), (0, 0, 0), 0, 0), (MAX, MAX, MAX)),
        ((Op.MAG, (0, 3 * ONE_FIX, 4 * ONE_FIX), (0, 0, 0), 0, 0), (5 * ONE_FIX,) * 3),
        ((Op.MAG, (0, 0, 0), (0, 0, 0), 0, 0), (0, 0, 0)),
        ((Op.DOT, (ONE_FIX, 2 * ONE_FIX, NEG1), (ONE_FIX, ONE_FIX, ONE_FIX), 0, 0),
         (3 * ONE_FIX - 1,) * 3),                  # -1 (raw) * 1.0 = -1 (raw)
        ((Op.CROSS, (ONE_FIX, 0, 0), (0, ONE_FIX, 0), 0, 0), (0, 0, ONE_FIX)),
        ((Op.MULP, (2 * ONE_FIX, 3 * ONE_FIX, 7), (9, 9, 9), 0, 0), (0, 0, 6 * ONE_FIX)),
        ((Op.LEA, (1, 2, 3), (4, 5, 6), 0, 0xFFFF), (0x1_0000,) * 3),
        ((Op.UNSCALE, (NEG1, MIN, 3 * ONE_FIX), (0, 0, 0), 0, 0), (NEG1, 0xFFFF_C000, 3)),
        ((Op.RESCALE, (NEG1, 1, 0x8000), (0, 0, 0), 0, 0), (0xFFFE_0000, ONE_FIX, 0)),
        ((Op.MOD, (0x0007_1234, NEG1, 5), (4 * ONE_FIX,) * 3, 0, 0),
         (0x0006_0000, 0x0006_0000, 0)),          # integer part mod 4.0, fraction cleared
        ((Op.SETY, (0, 0, 0), (1, 2, 3), 0xABCD_0123, 0), (1, 0xABCD_0123, 3)),
        ((Op.XCHANGEZ, (1, 2, 3), (4, 5, 6), 0, 0), (1, 2, 6)),
        ((Op.NEG, (MIN, 0, 1), (0, 0, 0), 0, 0), (MIN, 0, NEG1)),
    ]
    # every SWIZZLE3D selector on distinct lanes
    for selector, (_, sources) in SWIZZLES.items():
        b = (0x1111_1111, 0x2222_2222, 0x3333_3333)
        ops.append(((Op.SWIZZLE3D, (0, 0, 0), b, selector, 0), tuple(b[s] for s in sources)))
    return ops


def test_directed_corner_cases(core_config):
    dut = AluUnderTest(core_config, TAG_WIDTH)
    check_latencies(dut, core_config)
    cases = directed_operations()
    for operation, expected in cases:
        assert alu_result(*operation) == expected, f"the spec value of {operation}"
    issues, cycles, _ = schedule(dut, [operation for operation, _ in cases])
    checked, mismatches = run_schedule(dut, issues, cycles)
    assert not mismatches, f"{len(mismatches)} mismatches, first: {mismatches[:3]}"
    assert len(checked) == len(cases)


#: the presets whose cores share a divider by two
PAIR_PRESETS = [name for name in CORE_PRESET_NAMES
                if preset(name).core.divider == DividerSharing.PAIR]


@pytest.mark.parametrize("name", PAIR_PRESETS)
def test_divider_shared_by_two_cores_streams(name):
    """The ALU of a preset whose cores share a divider by two sends its DIVs to that divider
    (the other core idle here): a DIV may go in the ALU's slot (every second cycle) unless lanes
    y and z of a DIV of non-uniform operands still take it; each quotient comes 32 cycles after
    its DIV; DIVs are offered at random (not whenever the divider is free)."""
    assert PAIR_PRESETS
    dut = AluUnderTest(preset(name).core)
    assert dut.latency(Op.DIV) == 32
    rng = random.Random(13)
    operations = [random_operation(rng, Op.DIV) for _ in range(300)]
    issued, results, readies = [], [], []

    async def testbench(ctx):
        ctx.set(dut.i_op, Op.DIV)
        cycle = 0
        while len(issued) < len(operations) or cycle <= issued[-1] + dut.max_latency:
            ready = ctx.get(dut.div_ready)
            readies.append(ready)
            go = len(issued) < len(operations) and ready and rng.random() < 0.9
            ctx.set(dut.i_valid, go)
            if go:
                _, a, b, imm, pc = operations[len(issued)]
                ctx.set(dut.i_a.as_value(), pack(a))
                ctx.set(dut.i_b.as_value(), pack(b))
                issued.append(cycle)
            await ctx.tick()
            if ctx.get(dut.o_valid):
                results.append((cycle, unpack(ctx.get(dut.o_result.as_value()))))
            cycle += 1
        assert not ctx.get(dut.collision)

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(testbench)
    sim.run()
    want = [(at + dut.latency(Op.DIV) - 1, alu_result(*operation))
            for at, operation in zip(issued, operations)]
    assert results == want
    three_pass = {at for at, (_, a, b, _, _) in zip(issued, operations)
                  if len(set(a)) > 1 or len(set(b)) > 1}
    assert any(three_pass)
    assert readies == [int(cycle % 2 == 0 and cycle - 2 not in three_pass
                           and cycle - 4 not in three_pass) for cycle in range(len(readies))]


def test_collision_flag_is_sticky(core_config):
    dut = AluUnderTest(core_config, TAG_WIDTH)
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
