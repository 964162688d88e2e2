"""Directed tests of the reference model (sim.model.Core) against theia-isa.md §1-§8.

Every opcode of hdl.isa.Op is run as user code (assembled with firmware.asm, first instruction
at 0x800C). Results are compared with sim/fixed.py lane by lane over a grid of typical and edge
values, and with words worked out by hand from the spec for a few cases, so that a mistake shared
by fixed.py and the model still shows.
"""

import itertools

import pytest

from firmware.asm import assemble
from firmware.rom import default_rom
from hdl.isa import (
    Op, ONE, MASK32, USER_CODE_START, NUM_REGS, OPS, Kind, reg,
)
from sim import fixed as fx
from sim.exec import run_program_model
from sim.model import Core

R = {f"R{i}": reg(f"R{i}") for i in range(1, 13)}
C1 = reg("C1")


def neg_word(v):
    return (-v) & MASK32


#: typical and edge lane values: zero, +-1 LSB, +-1.0, fractions, big magnitudes, both ends of
#: the range and 0x5555_5556 (the original's multiplier went wrong above 0x5555_5555)
EDGES = [0, 1, MASK32, ONE, neg_word(ONE), 0x3_0000, neg_word(0x4_8000), 0x00C8_0000,
         0x5555_5556, 0x7FFF_FFFF, 0x8000_0000, 0x8000_0001, 0x0001_FFFF, 0x1234_5678]


def vectors(values=EDGES):
    """All ordered pairs of ``values`` packed three to a vector pair: [(a, b), ...]."""
    pairs = list(itertools.product(values, repeat=2))
    pairs += pairs[: (-len(pairs)) % 3]
    out = []
    for i in range(0, len(pairs), 3):
        chunk = pairs[i:i + 3]
        out.append((tuple(p[0] for p in chunk), tuple(p[1] for p in chunk)))
    return out


def set_lines(dst, value):
    """Assembly that loads a 3-lane vector of 32-bit words into ``dst``."""
    return "".join(f"    SET{lane} {dst} 0x{v:08X}\n" for lane, v in zip("XYZ", value))


def make_core(text, **kw):
    program = assemble(text)
    kw.setdefault("omem", [0] * 64)
    return Core(default_rom(), program.words, **kw)


def run(text, **kw):
    """Assemble ``text`` as user code, run it from 0x800C; return (core, RETURN value)."""
    core = make_core(text, **kw)
    return core, core.run(USER_CODE_START)


def alu(op, a, b=(0, 0, 0), dst=(0, 0, 0)):
    """DST after ``op R3 R1 R2`` with R1 = a, R2 = b, R3 = dst beforehand."""
    text = (set_lines("R1", a) + set_lines("R2", b) + set_lines("R3", dst)
            + f"    {op} R3 R1 R2\n    RETURN RT_TRUE\n")
    core, result = run(text)
    assert result is True
    return core.regs[R["R3"]]


# --- lane-wise arithmetic against sim/fixed.py -------------------------------------------------

LANEWISE2 = {"ADD": fx.add, "SUB": fx.sub, "DIV": fx.div, "MUL": fx.mul, "MOD": fx.mod,
             "IMUL": fx.imul}
LANEWISE1 = {"INC": fx.inc, "DEC": fx.dec, "FRAC": fx.frac, "INTP": fx.intp, "NEG": fx.neg,
             "UNSCALE": fx.unscale, "RESCALE": fx.rescale}


@pytest.mark.parametrize("name", sorted(LANEWISE2))
def test_lanewise_binary_matches_fixed(name):
    f = LANEWISE2[name]
    for a, b in vectors():
        assert alu(name, a, b, dst=(7, 7, 7)) == tuple(map(f, a, b)), (name, a, b)


@pytest.mark.parametrize("name", sorted(LANEWISE1))
def test_lanewise_unary_matches_fixed(name):
    f = LANEWISE1[name]
    values = EDGES + [0] * ((-len(EDGES)) % 3)          # a multiple of three
    for i in range(0, len(values), 3):
        a = tuple(values[i:i + 3])
        assert alu(name, a, (9, 9, 9), dst=(7, 7, 7)) == tuple(map(f, a)), (name, a)


@pytest.mark.parametrize("name, a, b, expected", [
    # fix: the true sign and the low 31 bits (theia-isa.md §4: 0x7FFF_FFFF + 1 = 0)
    ("ADD", (0x7FFF_FFFF, 0x3_0000, 0x8000_0000), (1, 0x3_0000, 0x8000_0000),
     (0, 0x6_0000, 0x8000_0000)),
    ("ADD", (ONE, neg_word(ONE), 0xFFFF_FFFF), (neg_word(ONE), neg_word(ONE), 1),
     (0, 0xFFFC_0000, 0)),
    ("SUB", (0, 0x8000_0000, 0x3_0000), (ONE, 1, 0x4_0000), (0xFFFE_0000, 0xFFFF_FFFF, 0xFFFF_0000)),
    # mul: sign-magnitude, truncated toward zero
    ("MUL", (0x3_0000, 3, neg_word(3)), (neg_word(0x4_0000), 0x1_0000, 0x1_0000),
     (0xFFFA_0000, 1, 0xFFFF_FFFF)),
    ("MUL", (0x1_0000, 1, 0x8000_0000), (0x1_0000, 1, ONE), (0x8000, 0, 0x8000_0000)),
    # div: x/0 = +-0x0FFFFFFF with a's sign, 0/0 positive, truncation toward zero
    ("DIV", (ONE, neg_word(ONE), 0), (0, 0, 0), (0x0FFF_FFFF, 0xF000_0001, 0x0FFF_FFFF)),
    ("DIV", (ONE, neg_word(ONE), 0x6_0000), (0x6_0000, 0x6_0000, neg_word(ONE)),
     (0xAAAA, 0xFFFF_5556, 0xFFFA_0000)),
    # MOD: A & (B - one): 5.5 mod 4.0 = 1.0, 7.25 mod 2.0 = 1.0, 3.0 mod 1.0 = 0
    ("MOD", (0xB_0000, 0xE_8000, 0x6_0000), (0x8_0000, 0x4_0000, ONE), (0x2_0000, 0x2_0000, 0)),
    ("IMUL", (3, neg_word(3), 0x1_0000), (4, 4, 0x1_0000), (12, 0xFFFF_FFF4, 0)),
    ("XCHANGEX", (1, 2, 3), (4, 5, 6), (4, 2, 3)),
    ("XCHANGEY", (1, 2, 3), (4, 5, 6), (1, 5, 3)),
    ("XCHANGEZ", (1, 2, 3), (4, 5, 6), (1, 2, 6)),
    ("COPY", (1, 0x8000_0000, MASK32), (4, 5, 6), (1, 0x8000_0000, MASK32)),
    ("ZERO", (1, 2, 3), (4, 5, 6), (0, 0, 0)),
    ("INC", (0x7FFF_FFFF, neg_word(ONE), 0), (0, 0, 0), (0x1_FFFF, 0, ONE)),
    ("DEC", (0, ONE, 0x8000_0000), (0, 0, 0), (0xFFFE_0000, 0, 0xFFFE_0000)),
    ("FRAC", (0xB_0000, 0xFFFD_8000, ONE), (0, 0, 0), (0x1_0000, 0x1_8000, 0)),
    ("INTP", (0xB_0000, 0xFFFD_8000, 0x1_FFFF), (0, 0, 0), (0xA_0000, 0xFFFC_0000, 0)),
    ("NEG", (ONE, 0x8000_0000, 0), (0, 0, 0), (0xFFFE_0000, 0x8000_0000, 0)),
    # UNSCALE is an arithmetic shift: -1.5 >> 17 = -2
    ("UNSCALE", (0xFFFD_0000, 0xB_0000, 0x8000_0000), (0, 0, 0), (0xFFFF_FFFE, 5, 0xFFFF_C000)),
    ("RESCALE", (5, MASK32, 0x4000), (0, 0, 0), (0xA_0000, 0xFFFE_0000, 0x8000_0000)),
    ("INCX", (ONE, ONE, ONE), (0, 0, 0), (0x4_0000, ONE, ONE)),
    ("INCY", (ONE, 0x7FFF_FFFF, ONE), (0, 0, 0), (ONE, 0x1_FFFF, ONE)),
    ("INCZ", (ONE, ONE, neg_word(ONE)), (0, 0, 0), (ONE, ONE, 0)),
])
def test_hand_worked_results(name, a, b, expected):
    assert alu(name, a, b, dst=(0xDEAD, 0xBEEF, 0xF00D)) == expected


def test_inc_lane_matches_fixed():
    for op, lane in (("INCX", 0), ("INCY", 1), ("INCZ", 2)):
        for a, _ in vectors():
            want = list(a)
            want[lane] = fx.inc(a[lane])
            assert alu(op, a, (5, 5, 5), dst=(7, 7, 7)) == tuple(want), (op, a)


# --- vector instructions --------------------------------------------------------------------

VECTOR_CASES = [((0x6_0000, 0x8_0000, 0), (1, 2, 3)),                      # MAG (3, 4, 0) = 5
                ((neg_word(0x6_0000), 0x8_0000, 0), (0, 0, 0)),
                ((ONE, 0x4_0000, 0x6_0000), (0x8_0000, 0xA_0000, 0xC_0000)),  # (1,2,3).(4,5,6)
                ((ONE, 0, 0), (0, ONE, 0)),
                ((0x7FFF_FFFF, 0x7FFF_FFFF, 0x7FFF_FFFF), (0x8000_0000, 1, 0x7FFF_FFFF)),
                ((0x1234_5678, neg_word(0x0765_4321), 0x0ABC_DEF0),
                 (neg_word(0x0001_0203), 0x0304_0506, 0x7777_7777))]


def test_mag_dot_cross_match_fixed():
    for a, b in VECTOR_CASES + vectors()[::5]:
        assert alu("MAG", a, b) == (fx.mag(a),) * 3, a
        assert alu("DOT", a, b) == (fx.dot(a, b),) * 3, (a, b)
        assert alu("CROSS", a, b) == fx.cross(a, b), (a, b)


def test_vector_hand_worked():
    assert alu("MAG", (0x6_0000, 0x8_0000, 0)) == (0xA_0000,) * 3            # |(3,4,0)| = 5
    assert alu("MAG", (neg_word(0x6_0000), 0, neg_word(0x8_0000))) == (0xA_0000,) * 3
    assert alu("MAG", (ONE, ONE, 0)) == (0x2_D413,) * 3                        # sqrt 2, truncated
    assert alu("DOT", (ONE, 0x4_0000, 0x6_0000), (0x8_0000, 0xA_0000, 0xC_0000)) == (0x40_0000,) * 3
    # DOT sums the three 64-bit products before one fix: the halves cancel although each
    # product on its own would overflow 32 bits
    assert alu("DOT", (0x4000_0000, 0x4000_0000, 0), (0x10_0000, neg_word(0x10_0000), 0)) == (0, 0, 0)
    assert alu("CROSS", (ONE, 0, 0), (0, ONE, 0)) == (0, 0, ONE)               # x * y = z
    assert alu("CROSS", (0, ONE, 0), (ONE, 0, 0)) == (0, 0, neg_word(ONE))
    assert alu("CROSS", (ONE, 0x4_0000, 0x6_0000), (0x8_0000, 0xA_0000, 0xC_0000)) == \
        (neg_word(0x6_0000), 0xC_0000, neg_word(0x6_0000))                    # (-3, 6, -3)


# --- lane write masks ---------------------------------------------------------------------------

def test_mulp_writes_only_z():
    for a, _ in vectors()[::3]:
        assert alu("MULP", a, (1, 2, 3), dst=(0xAAAA, 0xBBBB, 0xCCCC)) == \
            (0xAAAA, 0xBBBB, fx.mul(a[0], a[1])), a
    assert alu("MULP", (0x3_0000, neg_word(0x4_0000), 0x9_9999), dst=(1, 2, 3)) == (1, 2, 0xFFFA_0000)


@pytest.mark.parametrize("op, lane", [("SETX", 0), ("SETY", 1), ("SETZ", 2)])
def test_set_writes_one_lane(op, lane):
    for imm in (0, 1, ONE, 0x8000_0000, MASK32):
        text = set_lines("R4", (0x1111, 0x2222, 0x3333)) + f"    {op} R4 0x{imm:X}\n    RETURN RT_TRUE\n"
        core, _ = run(text)
        want = [0x1111, 0x2222, 0x3333]
        want[lane] = imm
        assert core.regs[R["R4"]] == tuple(want)


def test_set_immediate_forms():
    core, _ = run("SETX R1 -2.25\nSETY R1 -1\nSETZ R1 32'h0001_FFFF\nRETURN RT_TRUE\n")
    assert core.regs[R["R1"]] == (0xFFFB_8000, MASK32, 0x1_FFFF)


def test_ret_writes_dst_x_only():
    text = (set_lines("R5", (0x1111, 0x2222, 0x3333)) +
            "    CALL SUB\n    RETURN RT_TRUE\nSUB:\n    RET R5 0x1234ABCD\n")
    core, result = run(text)
    assert result is True
    assert core.regs[R["R5"]] == (0x1234_ABCD, 0x2222, 0x3333)


def test_ret_void_writes_nothing():
    core = make_core("    CALL SUB\n    RETURN RT_FALSE\nSUB:\n    RET VOID 0xFFFFFFFF\n")
    core.write_config(0, (5, 6, 7))
    before = list(core.regs)
    assert core.run(USER_CODE_START) is False
    assert core.regs == before


# --- SWIZZLE3D: the table of theia-isa.md §6, written out independently ---------------------

SPEC_SWIZZLES = "XXX YYY ZZZ XYY XXY XZZ XXZ YXX YYX YZZ YYZ ZXX ZZX ZYY ZZY XZX XYX YXY YZY ZXZ ZYZ YXZ"


@pytest.mark.parametrize("selector, name", list(enumerate(SPEC_SWIZZLES.split())))
def test_swizzle3d(selector, name):
    src = {"X": 0x1_1111, "Y": 0x2_2222, "Z": 0x8003_3333}
    want = tuple(src[c] for c in name)
    for operand in (f"SWIZZLE_{name}", str(selector)):
        text = set_lines("R2", (src["X"], src["Y"], src["Z"])) + \
            f"    SWIZZLE3D R2 {operand}\n    RETURN RT_TRUE\n"
        core, _ = run(text)
        assert core.regs[R["R2"]] == want, operand


def test_swizzle_only_permutes_dst_own_lanes():
    # SWIZZLE3D reads DST (B), not R1 (register 71 is SRC1's bit pattern in no field here)
    text = set_lines("R1", (9, 9, 9)) + set_lines("R2", (1, 2, 3)) + \
        "    SWIZZLE3D R2 SWIZZLE_ZYZ\n    RETURN RT_TRUE\n"
    core, _ = run(text)
    assert core.regs[R["R2"]] == (3, 2, 3)
    assert core.regs[R["R1"]] == (9, 9, 9)


# --- LEA, NOP, DEBUG_PRINT, RETURN -----------------------------------------------------------

def test_lea_gives_address_plus_one():
    core, _ = run("    NOP\n    NOP\n    LEA R1 VOID VOID\n    LEA C1 VOID VOID\n    RETURN RT_TRUE\n")
    lea1 = USER_CODE_START + 2
    assert core.regs[R["R1"]] == (lea1 + 1,) * 3 == (0x800F,) * 3
    assert core.regs[C1] == (lea1 + 2,) * 3


def _snapshot_after(text):
    core = make_core(set_lines("R1", (1, 2, 3)) + set_lines("R2", (4, 5, 6)) + text)
    core.write_config(3, (0xA, 0xB, 0xC))
    core.write_swap(44, (0xD, 0xE, 0xF))
    core.flip()
    result = core.run(USER_CODE_START)
    return core, result


def test_nop_and_debug_print_change_nothing():
    base, _ = _snapshot_after("    RETURN RT_TRUE\n")
    core, result = _snapshot_after(
        "    NOP\n    DEBUG_PRINT VOID R2 VOID\n    NOP RT_FALSE\n    DEBUG_PRINT R1 CREG_V0 R1\n"
        "    RETURN RT_TRUE\n")
    assert result is True
    assert core.regs == base.regs
    assert core.swap_io == base.swap_io
    assert core.omem == base.omem
    assert base.debug_log == []
    first = USER_CODE_START + 6       # after the six SETs
    assert core.debug_log == [(first + 1, (4, 5, 6)), (first + 3, (0xD, 0xE, 0xF))]
    assert core.stats.instructions == base.stats.instructions + 4


@pytest.mark.parametrize("imm, expected", [("RT_TRUE", True), ("RT_FALSE", False), ("2", False),
                                           ("3", True), ("0xFFFFFFFE", False), ("0x80000001", True)])
def test_return_value_is_bit0(imm, expected):
    base, _ = _snapshot_after("    RETURN RT_TRUE\n")
    core, result = _snapshot_after(f"    RETURN {imm}\n")
    assert result is expected
    assert core.regs == base.regs                  # RETURN writes nothing


def test_return_ends_routine():
    core, result = run("    RETURN RT_FALSE\n    SETX R1 1\n    RETURN RT_TRUE\n")
    assert result is False
    assert core.regs[R["R1"]] == (0, 0, 0)
    assert core.stats.instructions == 1


# --- conditional jumps ---------------------------------------------------------------------

RELATIONS = {"G": lambda a, b: a > b, "L": lambda a, b: a < b, "EQ": lambda a, b: a == b,
             "NE": lambda a, b: a != b, "GE": lambda a, b: a >= b, "LE": lambda a, b: a <= b}
JUMP_PAIRS = [(-1, 1), (1, -1), (5, -5), (-5, 5), (3, 3), (-3, -3), (0, 0),
              (-(1 << 31), (1 << 31) - 1), (0, -(1 << 31)), (ONE, ONE + 1), (ONE + 1, ONE)]


def _jump_program(mnemonic, lane, a, b, other):
    va, vb = [other[0]] * 3, [other[1]] * 3
    va[lane], vb[lane] = a & MASK32, b & MASK32
    return (set_lines("R1", va) + set_lines("R2", vb) +
            f"    {mnemonic} TAKEN R1 R2\n    SETX R3 1\n    RETURN RT_FALSE\n"
            f"TAKEN:\n    SETX R3 2\n    RETURN RT_TRUE\n")


def test_all_eighteen_jumps_exist():
    names = {f"J{rel}{lane}" for rel in RELATIONS for lane in "XYZ"}
    assert len(names) == 18
    assert names == {op.name for op, info in OPS.items() if info.kind == Kind.BRANCH}


@pytest.mark.parametrize("lane_index, lane", list(enumerate("XYZ")))
@pytest.mark.parametrize("rel", sorted(RELATIONS))
def test_conditional_jump(rel, lane, lane_index):
    mnemonic = f"J{rel}{lane}"
    relation = RELATIONS[rel]
    seen = set()
    for a, b in JUMP_PAIRS:
        expected = relation(a, b)
        seen.add(expected)
        # the other two lanes hold a pair with the opposite outcome: only the named lane counts
        other = next(p for p in [(0, 1), (1, 0), (0, 0)] if relation(*p) != expected)
        core, result = run(_jump_program(mnemonic, lane_index, a, b, other))
        assert result is expected, (mnemonic, a, b)
        assert core.regs[R["R3"]][0] == (2 if expected else 1)
    assert seen == {True, False}


def test_signed_comparison_examples():
    # theia-isa.md §9: the original's JL meant <= and == compared magnitudes; ours are signed
    for mnemonic, a, b, taken in [("JLX", -1, 1, True), ("JLX", 1, -1, False),
                                  ("JNEX", 5, -5, True), ("JEQX", 5, -5, False),
                                  ("JLX", 3, 3, False), ("JLEX", 3, 3, True),
                                  ("JGX", 0, -(1 << 31), True)]:
        _, result = run(_jump_program(mnemonic, 0, a, b, (0, 0) if not taken else (1, 1)))
        assert result is taken, (mnemonic, a, b)


def test_jump_to_lower_address_loops():
    # count R1.x down from 5.0 to 0 with a backward jump; 5 iterations of 2 instructions
    text = ("    SETX R1 5.0\n    ZERO R2 VOID VOID\nLOOP:\n    DEC R1 R1 VOID\n"
            "    JGX LOOP R1 R2\n    RETURN RT_TRUE\n")
    core, _ = run(text)
    assert core.regs[R["R1"]] == (0, neg_word(5 * ONE), neg_word(5 * ONE))
    assert core.stats.instructions == 2 + 5 * 2 + 1


def test_jmp():
    core, result = run("    JMP OVER\n    SETX R1 1\n    RETURN RT_FALSE\nOVER:\n    SETY R1 2\n"
                       "    RETURN RT_TRUE\n")
    assert result is True
    assert core.regs[R["R1"]] == (0, 2, 0)
    assert core.stats.instructions == 3


# --- CALL / RET ----------------------------------------------------------------------------

def test_call_ret_nested_to_depth_eight():
    # main calls S1, S1 calls S2 ... S7 calls S8 (8 return addresses on the stack at once).
    # Each level records its depth in R2 on the way in and adds 1.0 to R3 on the way out.
    lines = ["    CALL S1", "    INCZ R3 R3 VOID", "    RETURN RT_TRUE"]
    for level in range(1, 9):
        lines += [f"S{level}:", f"    SETX R2 {level}"]
        if level < 8:
            lines += [f"    CALL S{level + 1}"]
        else:
            lines += ["    LEA R4 VOID VOID"]
        lines += ["    INCX R3 R3 VOID", "    RET VOID 0"]
    core = make_core("\n".join(lines) + "\n")
    depth_seen = []
    core.trace = lambda pc, d: depth_seen.append(len(core.stack))
    assert core.run(USER_CODE_START) is True
    assert max(depth_seen) == 8
    assert core.stack == []
    assert core.regs[R["R2"]][0] == 8
    assert core.regs[R["R3"]] == (8 * ONE, 0, ONE)


def test_call_pushes_call_plus_one():
    text = "    NOP\n    CALL SUB\n    SETY R1 7\n    RETURN RT_TRUE\nSUB:\n    RET VOID 0\n"
    core = make_core(text)
    pushed = []
    core.trace = lambda pc, d: pushed.append(list(core.stack)) if d.op == Op.RET else None
    assert core.run(USER_CODE_START) is True
    assert pushed == [[USER_CODE_START + 2]]
    assert core.regs[R["R1"]] == (0, 7, 0)


def test_call_into_firmware_rom():
    # user code may CALL the built-in firmware's subroutines. With every register 0, BIU's
    # DELTA is 0, u = v = 0/0 = 0x0FFFFFFF, so u + v > 1: a miss, RET R99 RT_FALSE.
    from firmware.rom import default_rom_program
    biu = default_rom_program().entries.get("BIU")
    assert biu is not None and biu < 0x8000
    core, result = run(f"    SETX R99 5\n    CALL {biu}\n    RETURN RT_TRUE\n")
    assert result is True
    assert core.regs[reg("R99")] == (0, 0, 0)
    assert core.regs[reg("CREG_u")] == (0x0FFF_FFFF,) * 3


def test_stack_emptied_when_a_routine_starts():
    core = make_core("    RETURN RT_TRUE\n")
    core.stack.extend([1, 2, 3])
    core.run(USER_CODE_START)
    assert core.stack == []


# --- register banks (theia-isa.md §7) -----------------------------------------------------

def test_config_bank_is_read_only_to_exe():
    writes = "".join(f"    SETX {a} 0x1234\n    COPY {a} C1 VOID\n" for a in (0, 1, 5, 8, 41))
    core = make_core(set_lines("C1", (9, 9, 9)) + writes +
                     "    COPY R1 CREG_RESOLUTION VOID\n    COPY R2 41 VOID\n    RETURN RT_TRUE\n")
    for a in range(42):
        core.write_config(a, (a, a + 100, a + 200))
    core.run(USER_CODE_START)
    for a in range(42):
        assert core.regs[a] == (a, a + 100, a + 200), a
    assert core.regs[R["R1"]] == (4, 104, 204)
    assert core.regs[R["R2"]] == (41, 141, 241)


def test_output_bank_drops_writes_and_reads_zero():
    text = set_lines("R1", (1, 2, 3))
    for a in range(128, 132):
        text += f"    COPY {a} R1 VOID\n    SETX {a} 5\n    INC {a} R1 VOID\n"
    for i, a in enumerate(range(128, 132)):
        text += f"    COPY R{i + 2} {a} VOID\n"
    text += "    COPY R6 OREG_PIXEL_COLOR VOID\n    RETURN RT_TRUE\n"
    core, _ = run(text)
    for i in range(2, 7):
        assert core.regs[R[f"R{i}"]] == (0, 0, 0)
    for a in range(128, 132):
        assert core.regs[a] == (0, 0, 0)


@pytest.mark.parametrize("first, last", [(64, 70), (71, 82), (83, 127)])
def test_read_write_banks(first, last):
    # a distinct vector written to every register of the bank lands; a read of the bank
    # (as ADD's operands) returns what was written
    text = ""
    for a in range(first, last + 1):
        text += set_lines(str(a), (a, a << 8, a << 16))
    text += "    RETURN RT_TRUE\n"
    core, _ = run(text)
    for a in range(first, last + 1):
        assert core.regs[a] == (a, a << 8, a << 16), a
    core2, _ = run(set_lines(str(last), (1, 2, 3)) + f"    ADD {first} {last} {last}\n    RETURN RT_TRUE\n")
    assert core2.regs[first] == (2, 4, 6)


def test_swap_bank_two_copies():
    core = make_core("    COPY R1 CREG_V0 VOID\n    COPY R2 63 VOID\n    SETX CREG_V0 0x77\n"
                     "    RETURN RT_TRUE\n")
    core.write_swap(44, (1, 2, 3))
    core.write_swap(63, (4, 5, 6))
    core.run(USER_CODE_START)
    # the IO side's writes are invisible until the flip
    assert core.regs[R["R1"]] == (0, 0, 0)
    assert core.regs[R["R2"]] == (0, 0, 0)
    assert core.regs[44] == (0x77, 0, 0)
    core.flip()
    core.run(USER_CODE_START)
    assert core.regs[R["R1"]] == (1, 2, 3)
    assert core.regs[R["R2"]] == (4, 5, 6)
    # EXE wrote its own copy (now (0x77, 2, 3)); the copy that flipped away kept (0x77, 0, 0)
    assert core.regs[44] == (0x77, 2, 3)
    assert core.swap_io[44 - 42] == (0x77, 0, 0)
    # an IO write does not disturb what EXE sees
    core.write_swap(44, (8, 8, 8))
    assert core.regs[44] == (0x77, 2, 3)
    core.flip()
    assert core.regs[44] == (8, 8, 8)
    assert core.swap_io[44 - 42] == (0x77, 2, 3)


# --- memories -------------------------------------------------------------------------------

def test_tmread():
    tmem = [0x1000 + i for i in range(64)]
    tmem[63] = 0x8000_0000
    text = set_lines("R1", (2, 0, 63)) + "    TMREAD R2 R1 VOID\n" + \
        set_lines("R3", (5, 5, 5)) + "    TMREAD R3 R3 R1\n    RETURN RT_TRUE\n"
    core, _ = run(text, tmem=tmem)
    assert core.regs[R["R2"]] == (0x1002, 0x1000, 0x8000_0000)
    assert core.regs[R["R3"]] == (0x1005,) * 3


def test_tmread_default_size_is_196608_words():
    core, _ = run(set_lines("R1", (196_607, 0, 0)) + "    TMREAD R2 R1 VOID\n    RETURN RT_TRUE\n")
    assert len(core.tmem) == 196_608
    assert core.regs[R["R2"]] == (0, 0, 0)


def test_omwrite_with_base():
    omem = [0] * 32
    text = (set_lines("R1", (0, 1, 2)) + set_lines("R2", (0xAAAA, 0xBBBB, 0x8000_0000)) +
            "    OMWRITE VOID R1 R2\n" + set_lines("R3", (7, 7, 7)) +
            set_lines("R4", (1, 2, 3)) + "    OMWRITE 0xFFFF R3 R4\n    RETURN RT_TRUE\n")
    core = make_core(text, omem=omem, omem_base=10)
    core.run(USER_CODE_START)
    assert omem[10:13] == [0xAAAA, 0xBBBB, 0x8000_0000]
    # x, y, z are stored in that order: the z lane's value is what stays at a shared address
    assert omem[17] == 3
    assert sum(1 for v in omem if v) == 4
    assert core.regs[0] == (0, 0, 0)          # OMWRITE's DST field names no register


def test_omwrite_writes_no_register():
    text = (set_lines("R1", (0, 1, 2)) + set_lines("R2", (4, 5, 6)) +
            f"    OMWRITE {reg('R5')} R1 R2\n    RETURN RT_TRUE\n")
    core, _ = run(text)
    assert core.regs[R["R5"]] == (0, 0, 0)
    assert core.omem[:3] == [4, 5, 6]


# --- whole-program helper -------------------------------------------------------------------

def test_run_program_model():
    program = assemble(set_lines("R12", (1, 2, 3)) + "    RETURN RT_TRUE\n")
    result = run_program_model(program)
    assert set(result) == {"regs", "instructions", "cycles", "error"}
    assert result["error"] is None
    assert result["instructions"] == 4
    assert result["regs"][str(reg("R12"))] == [1, 2, 3]
    assert len(result["regs"]) == NUM_REGS


def test_every_opcode_is_covered_here():
    """A new opcode in hdl.isa must get a test in this file (the 18 conditional jumps are
    spelled out by test_conditional_jump)."""
    source = open(__file__).read()
    missing = [op.name for op in Op if op.name not in source and OPS[op].kind != Kind.BRANCH]
    assert not missing
