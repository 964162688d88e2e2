"""The THEIA instruction set: the one table of encodings, opcodes and registers.

Everything that needs to know what an instruction word means imports it (as ``hdl.isa``): the
reference model (`sim/`), the assembler and disassembler (`firmware/`) and the RTL (`hdl/`).
There is no second copy of any table here anywhere in the project.

Normative source: ``shared/spec/theia-isa.md`` (sections quoted as §n below).
"""

from dataclasses import dataclass
from enum import IntEnum

from amaranth.lib import data

__all__ = [
    "SCALE", "ONE", "MASK32", "LANES", "LANE_WMASK_BITS",
    "Op", "OpInfo", "OPS", "op_info", "Kind",
    "Instruction", "pack", "unpack", "encode_imm",
    "InstructionLayout", "VectorLayout",
    "Bank", "BANKS", "bank_of", "NUM_REGS", "VOID",
    "BANK_CONFIG", "BANK_SWAP", "BANK_CONSTANT", "BANK_USER", "BANK_INTERNAL", "BANK_OUTPUT",
    "reg", "RT_TRUE", "RT_FALSE",
    "REG_NAMES", "REG_BY_NAME", "REG_ALIASES", "reg_name",
    "SWIZZLES", "SWIZZLE_BY_NAME",
    "ENTRY_NAMES", "ENTRY_INDEX", "ORIGINAL_ENTRY_ADDRESSES", "R500_EXPORT_PC",
    "R500_EXPORT_REGISTERS",
    "USER_CODE_BASE", "USER_CODE_START", "NUM_ENTRIES",
    "jump_lane", "jump_relation", "Relation", "compare", "CoreError",
]

# --- §1 data ---------------------------------------------------------------------------------

SCALE = 17                      # fraction bits of the Q14.17 lanes
ONE = 1 << SCALE                # 1.0
MASK32 = 0xFFFF_FFFF
LANES = ("x", "y", "z")         # x = bits 95:64, y = 63:32, z = 31:0
LANE_WMASK_BITS = (("x", 2), ("y", 1), ("z", 0))    # each lane's bit in a write mask


# --- §3 opcodes ------------------------------------------------------------------------------

class Op(IntEnum):
    NOP = 0x00
    ADD = 0x01
    SUB = 0x02
    DIV = 0x03
    MUL = 0x04
    MAG = 0x05
    COPY = 0x07
    JGX = 0x08
    JLX = 0x09
    JEQX = 0x0A
    JNEX = 0x0B
    JGEX = 0x0C
    JLEX = 0x0D
    INC = 0x0E
    ZERO = 0x0F
    JGY = 0x10
    JLY = 0x11
    JEQY = 0x12
    JNEY = 0x13
    JGEY = 0x14
    JLEY = 0x15
    CROSS = 0x16
    DOT = 0x17
    JGZ = 0x18
    JLZ = 0x19
    JEQZ = 0x1A
    JNEZ = 0x1B
    JGEZ = 0x1C
    JLEZ = 0x1D
    DEBUG_PRINT = 0x1E
    MULP = 0x1F
    MOD = 0x20
    FRAC = 0x21
    INTP = 0x22
    NEG = 0x23
    DEC = 0x24
    XCHANGEX = 0x25
    XCHANGEY = 0x26
    XCHANGEZ = 0x27
    IMUL = 0x28
    UNSCALE = 0x29
    RESCALE = 0x2A
    INCX = 0x2B
    INCY = 0x2C
    INCZ = 0x2D
    OMWRITE = 0x2F
    TMREAD = 0x30
    LEA = 0x31
    RETURN = 0x40
    SETX = 0x41
    SETY = 0x42
    SETZ = 0x43
    SWIZZLE3D = 0x44
    JMP = 0x58
    CALL = 0x59
    RET = 0x5A


class Kind(IntEnum):
    """How the core executes an instruction (which unit, which side effects)."""
    NOP = 0       # nothing at all
    ALU = 1       # lanes of DST written from A and B
    BRANCH = 2    # conditional jump: compare A and B on one lane, jump to DST
    JUMP = 3      # JMP
    CALL = 4      # push PC + 1, jump
    RET = 5       # pop, jump; DST.x = IMM unless DST is VOID
    RETURN = 6    # end of routine
    OMWRITE = 7   # output memory store
    TMREAD = 8    # texture memory load
    DEBUG = 9     # DEBUG_PRINT: no architectural effect


@dataclass(frozen=True)
class OpInfo:
    """What the hardware, the model and the assembler need to know about one opcode.

    ``dst_reg``/``a_reg``/``b_reg`` say which fields name registers (a register field >= 132
    makes the instruction illegal, §2); ``wmask`` is the lane write mask (x, y, z as bits 2, 1,
    0) of instructions that write DST.
    """
    op: Op
    kind: Kind
    dst_reg: bool          # DST is a register address (not a code address, not ignored)
    a_reg: bool            # SRC1 is read as a register (type I only)
    b_reg: bool            # SRC2 is read as a register (type I) / DST read as B (type II)
    wmask: int             # lanes written: bit 2 = x, bit 1 = y, bit 0 = z

    @property
    def name(self):
        return self.op.name

    @property
    def type2(self):
        return bool(self.op & 0x40)

    @property
    def writes(self):
        return self.wmask != 0


def _alu(op, a=True, b=True, wmask=0b111):
    return OpInfo(op, Kind.ALU, True, a, b, wmask)


def _branch(op):
    return OpInfo(op, Kind.BRANCH, False, True, True, 0)


OPS = {info.op: info for info in [
    OpInfo(Op.NOP, Kind.NOP, False, False, False, 0),
    _alu(Op.ADD), _alu(Op.SUB), _alu(Op.DIV), _alu(Op.MUL),
    _alu(Op.MAG, b=False),
    _alu(Op.COPY, b=False),
    _alu(Op.INC, b=False),
    _alu(Op.ZERO, a=False, b=False),
    _alu(Op.CROSS), _alu(Op.DOT),
    OpInfo(Op.DEBUG_PRINT, Kind.DEBUG, False, True, False, 0),
    _alu(Op.MULP, b=False, wmask=0b001),
    _alu(Op.MOD), _alu(Op.FRAC, b=False), _alu(Op.INTP, b=False), _alu(Op.NEG, b=False),
    _alu(Op.DEC, b=False),
    _alu(Op.XCHANGEX), _alu(Op.XCHANGEY), _alu(Op.XCHANGEZ),
    _alu(Op.IMUL), _alu(Op.UNSCALE, b=False), _alu(Op.RESCALE, b=False),
    _alu(Op.INCX, b=False), _alu(Op.INCY, b=False), _alu(Op.INCZ, b=False),
    OpInfo(Op.OMWRITE, Kind.OMWRITE, False, True, True, 0),
    OpInfo(Op.TMREAD, Kind.TMREAD, True, True, False, 0b111),
    _alu(Op.LEA, a=False, b=False),
    OpInfo(Op.RETURN, Kind.RETURN, False, False, False, 0),
    OpInfo(Op.SETX, Kind.ALU, True, False, True, 0b100),
    OpInfo(Op.SETY, Kind.ALU, True, False, True, 0b010),
    OpInfo(Op.SETZ, Kind.ALU, True, False, True, 0b001),
    OpInfo(Op.SWIZZLE3D, Kind.ALU, True, False, True, 0b111),
    OpInfo(Op.JMP, Kind.JUMP, False, False, False, 0),
    OpInfo(Op.CALL, Kind.CALL, False, False, False, 0),
    # RET writes DST.x; DST = 0 (VOID) makes it write nothing, which the bank rules give for free.
    OpInfo(Op.RET, Kind.RET, True, False, False, 0b100),
] + [_branch(op) for op in Op if op.name.startswith("J") and op not in (Op.JMP,)]}


def op_info(opcode):
    """OpInfo of a 16-bit opcode field, or None when the opcode is illegal (§2)."""
    if opcode & ~0x7F:
        return None
    try:
        return OPS[Op(opcode)]
    except ValueError:
        return None


class Relation(IntEnum):
    """Opcode bits 2:0 of a conditional jump (§5)."""
    GT = 0
    LT = 1
    EQ = 2
    NE = 3
    GE = 4
    LE = 5


def jump_lane(op):
    """Lane index (0 = x, 1 = y, 2 = z) a conditional jump compares (opcode bits 4:3)."""
    return ((int(op) >> 3) & 0b11) - 1


def jump_relation(op):
    return Relation(int(op) & 0b111)


def compare(relation, a, b):
    """The signed comparison of two 32-bit words (§5)."""
    a = a - (1 << 32) if a & 0x8000_0000 else a
    b = b - (1 << 32) if b & 0x8000_0000 else b
    return {
        Relation.GT: a > b, Relation.LT: a < b, Relation.EQ: a == b,
        Relation.NE: a != b, Relation.GE: a >= b, Relation.LE: a <= b,
    }[Relation(relation)]


# --- §2 instruction word -------------------------------------------------------------------

class InstructionLayout(data.Struct):
    """The 64-bit instruction word (type I view; type II's IMM is ``imm``)."""
    src2: 16
    src1: 16
    dst: 16
    opcode: 16

    @property
    def imm(self):
        return self.as_value()[0:32]


class VectorLayout(data.Struct):
    """A 96-bit register: z in bits 31:0, y in 63:32, x in 95:64 (§1)."""
    z: 32
    y: 32
    x: 32


@dataclass(frozen=True)
class Instruction:
    """A decoded instruction word. For type II, ``imm`` = src1 << 16 | src2."""
    opcode: int
    dst: int = 0
    src1: int = 0
    src2: int = 0

    @property
    def imm(self):
        return (self.src1 << 16) | self.src2

    @property
    def info(self):
        return op_info(self.opcode)

    @classmethod
    def type2(cls, opcode, dst, imm):
        imm &= MASK32
        return cls(int(opcode), dst, imm >> 16, imm & 0xFFFF)

    @property
    def word(self):
        return pack(self)


def pack(insn):
    return ((insn.opcode & 0xFFFF) << 48 | (insn.dst & 0xFFFF) << 32
            | (insn.src1 & 0xFFFF) << 16 | (insn.src2 & 0xFFFF))


def unpack(word):
    return Instruction((word >> 48) & 0xFFFF, (word >> 32) & 0xFFFF,
                       (word >> 16) & 0xFFFF, word & 0xFFFF)


def encode_imm(value):
    """A Python int (possibly negative) as the 32-bit IMM field."""
    return value & MASK32


# --- §7 register map -----------------------------------------------------------------------

@dataclass(frozen=True)
class Bank:
    name: str
    first: int
    last: int              # inclusive
    exe_read: bool         # EXE reads give the stored value (False: reads give 0)
    exe_write: bool        # EXE writes land (False: dropped silently)

    def __contains__(self, addr):
        return self.first <= addr <= self.last

    @property
    def size(self):
        return self.last - self.first + 1


BANKS = (
    Bank("config", 0, 41, True, False),
    Bank("swap", 42, 63, True, True),
    Bank("constant", 64, 70, True, True),
    Bank("user", 71, 82, True, True),
    Bank("internal", 83, 127, True, True),
    Bank("output", 128, 131, False, False),
)
NUM_REGS = 132
VOID = 0
BANK_CONFIG, BANK_SWAP, BANK_CONSTANT, BANK_USER, BANK_INTERNAL, BANK_OUTPUT = BANKS


def bank_of(addr):
    for bank in BANKS:
        if addr in bank:
            return bank
    return None


_CREG = {
    0: "LIGHT_INFO", 1: "CAMERA_POSITION", 2: "PROJECTION_WINDOW_MIN",
    3: "PROJECTION_WINDOW_MAX", 4: "RESOLUTION", 5: "TEXTURE_SIZE",
    6: "PIXEL_2D_INITIAL_POSITION", 7: "PIXEL_2D_FINAL_POSITION", 8: "FIRST_LIGHT",
    42: "AABBMIN", 43: "AABBMAX", 44: "V0", 45: "UV0", 46: "V1", 47: "UV1", 48: "V2",
    49: "UV2", 50: "TRI_DIFFUSE",
    **{53 + i: f"TEX_COLOR{i + 1}" for i in range(7)},
    83: "PROJECTION_WINDOW_SCALE", 84: "UNNORMALIZED_DIRECTION", 85: "RAY_DIRECTION",
    86: "E1_LAST", 87: "E2_LAST", 88: "T", 89: "P", 90: "Q", 91: "UV0_LAST", 92: "UV1_LAST",
    93: "UV2_LAST", 94: "TRI_DIFFUSE_LAST", 95: "LAST_t", 96: "LAST_u", 97: "LAST_v",
    98: "COLOR_ACC", 99: "t", 100: "E1", 101: "E2", 102: "DELTA", 103: "u", 104: "v",
    105: "H1", 106: "H2", 107: "H3", 108: "PIXEL_PITCH", 109: "LAST_COL",
    110: "TEXTURE_COLOR", 111: "PIXEL_2D_POSITION",
    112: "TEXWEIGHT1", 113: "TEXWEIGHT2", 114: "TEXWEIGHT3", 115: "TEXWEIGHT4",
    116: "TEX_COORD1", 117: "TEX_COORD2", 119: "ZERO", 120: "CURRENT_OUTPUT_PIXEL",
    121: "3", 122: "012",
}
_OREG = {128: "PIXEL_COLOR", 129: "TEX_COORD1", 130: "TEX_COORD2", 131: "ADDR_O"}

#: canonical assembly name of every named register
REG_NAMES = {
    **{addr: f"CREG_{name}" for addr, name in _CREG.items()},
    **{64 + i: f"C{i + 1}" for i in range(7)},
    **{71 + i: f"R{i + 1}" for i in range(12)},
    118: "R99",
    **{addr: f"OREG_{name}" for addr, name in _OREG.items()},
}
#: the original's spellings, accepted by the assembler, never printed
REG_ALIASES = {
    "CREG_UNORMALIZED_DIRECTION": 84,
    "CREG_FIRST_LIGTH": 8,
    "CREG_FIRST_LIGTH_DIFFUSE": 8,
}
REG_BY_NAME = {name: addr for addr, name in REG_NAMES.items()} | REG_ALIASES | {"VOID": VOID}


def reg_name(addr):
    """Assembly spelling of a register address (a plain number where it has no name)."""
    return REG_NAMES.get(addr, str(addr))


def reg(name):
    """Register address of a canonical name, e.g. ``reg("CREG_t")``."""
    return REG_BY_NAME[name]


# --- §6 swizzles ---------------------------------------------------------------------------

#: selector -> (name, lane sources); lane index 0 = x, 1 = y, 2 = z
SWIZZLES = {}
for _sel, _name in enumerate("XXX YYY ZZZ XYY XXY XZZ XXZ YXX YYX YZZ YYZ ZXX ZZX ZYY ZZY "
                             "XZX XYX YXY YZY ZXZ ZYZ YXZ".split()):
    SWIZZLES[_sel] = (_name, tuple("XYZ".index(c) for c in _name))
SWIZZLE_BY_NAME = {f"SWIZZLE_{name}": sel for sel, (name, _) in SWIZZLES.items()}


# --- errors (§3, §4): a core stops with one of these and the instruction's address --------

class CoreError(IntEnum):
    """Why a core stopped (the core's ``error_code``, ERROR_INFO's code)."""
    NONE = 0
    ILLEGAL_INSTRUCTION = 1
    STACK = 2
    MEMORY = 3           # TMREAD / OMWRITE address outside the memory
    FETCH = 4            # code address outside the firmware ROM / user RAM


# --- §8 programming model ------------------------------------------------------------------

ENTRY_NAMES = ("INITIAL", "CPPU", "RGU", "AABBIU", "BIU", "PSU", "PSU2", "TCC", "NPG",
               "USERCONSTANTS", "PIXELSHADER", "MAIN")
ENTRY_INDEX = {name: i for i, name in enumerate(ENTRY_NAMES)}
NUM_ENTRIES = len(ENTRY_NAMES)
#: what the original's tools wrote into the entry table for the built-in routines; we read any
#: value below USER_CODE_BASE as "the built-in routine for this index" and write these back
ORIGINAL_ENTRY_ADDRESSES = (0x00, 0x2C, 0x2F, 0x45, 0x9D, 0xE8, 0xF8, 0xBE, 0x37, 0x114, 0x116,
                            0x25)
#: the R500 stage's pixel export routine (r500-us.md §4.2), the first routine of the firmware
#: ROM: it OMWRITEs these registers, in this order, to the R500 stage in place of PIXELSHADER
R500_EXPORT_PC = NUM_ENTRIES
R500_EXPORT_REGISTERS = ("PIXEL_2D_POSITION", "TEXTURE_COLOR", "LAST_u", "LAST_v", "LAST_t",
                         "UV0_LAST", "UV1_LAST", "UV2_LAST", "E1_LAST", "E2_LAST",
                         "TRI_DIFFUSE_LAST", "RAY_DIRECTION")
USER_CODE_BASE = 0x8000          # code addresses >= this are user instruction RAM
USER_CODE_START = USER_CODE_BASE + NUM_ENTRIES   # 0x800C: first user instruction

RT_TRUE = 1
RT_FALSE = 0
