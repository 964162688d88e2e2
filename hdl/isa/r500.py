"""The R500 ("US") fragment-shader words: the one table of their fields, opcodes and enums.

The flow-control stack engine (THEIA cores at one lane, the R500 shader core at four), the R500
model, assembler and disassembler all read these. Normative source:
``shared/spec/r500-us.md`` (sections quoted as §n below).
"""

from enum import IntEnum

from amaranth.lib import data

__all__ = [
    "WordFormat", "US_CMN_INST", "US_ALU_ALPHA_INST", "US_FC_INST", "US_FC_ADDR", "US_ALU_ADDR",
    "US_ALU_RGB_INST", "US_ALU_RGBA_INST", "US_TEX_INST", "US_TEX_ADDR", "US_TEX_ADDR_DXDY",
    "US_INT_CONST",
    "InstType", "FcOp", "AddrOp", "BranchOp", "PredSel", "JumpFunc", "LaneState", "FcError",
    "RgbOp", "AlphaOp", "TexOp", "Swizzle", "Mod", "SrcpOp", "Omod", "Compare", "Sel",
    "AluResultSel", "QuadFault", "QUAD_FAULT_TEXT",
    "R500_TEMPS", "R500_CONSTS", "R500_MAX_INSTRUCTIONS", "R500_WORDS_PER_INSTRUCTION",
    "R500_BOOLS", "R500_INT_CONSTS", "R500_SAMPLERS", "R500_RENDER_TARGETS",
]

# --- resources (r500-us.md §1) ---------------------------------------------------------------

R500_TEMPS = 128                    # vec4 temporaries per pixel
R500_CONSTS = 256                   # vec4 constants
R500_MAX_INSTRUCTIONS = 512         # instruction memory
R500_WORDS_PER_INSTRUCTION = 6      # inst0 ... inst5
R500_BOOLS = 32                     # static boolean constants
R500_INT_CONSTS = 32                # integer loop constants
R500_SAMPLERS = 16                  # TEX_ID
R500_RENDER_TARGETS = 4             # OUT's TARGET


# --- R500 "US" instruction words (r500-us.md §1; used by the flow-control stack engine) ----

class WordFormat:
    """A 32-bit register word as a field table: Python pack/unpack and a ``lib.data`` layout.

    ``fields`` is a sequence of ``(name, hi, lo)`` in the spec's ``hi:lo`` notation; bits not
    named are reserved (written 0).
    """

    def __init__(self, name, fields):
        self.name = name
        self.fields = {fname: (lo, hi - lo + 1) for fname, hi, lo in fields}
        used = 0
        for fname, (lo, width) in self.fields.items():
            mask = ((1 << width) - 1) << lo
            assert not used & mask, f"{name}.{fname} overlaps another field"
            used |= mask
        members, pos = {}, 0
        for fname, (lo, width) in sorted(self.fields.items(), key=lambda kv: kv[1][0]):
            if lo > pos:
                members[f"_reserved{pos}"] = lo - pos
            members[fname] = width
            pos = lo + width
        if pos < 32:
            members[f"_reserved{pos}"] = 32 - pos
        self.layout = data.StructLayout(members)

    def pack(self, **values):
        word = 0
        for fname, value in values.items():
            lo, width = self.fields[fname]
            if not 0 <= value < (1 << width):
                raise ValueError(f"{self.name}.{fname} = {value} does not fit in {width} bits")
            word |= value << lo
        return word

    def unpack(self, word):
        return {fname: (word >> lo) & ((1 << width) - 1)
                for fname, (lo, width) in self.fields.items()}


US_CMN_INST = WordFormat("US_CMN_INST", [
    ("TYPE", 1, 0), ("TEX_SEM_WAIT", 2, 2), ("RGB_PRED_SEL", 5, 3), ("RGB_PRED_INV", 6, 6),
    ("WRITE_INACTIVE", 7, 7), ("LAST", 8, 8), ("NOP", 9, 9), ("ALU_WAIT", 10, 10),
    ("RGB_WMASK", 13, 11), ("ALPHA_WMASK", 14, 14), ("RGB_OMASK", 17, 15),
    ("ALPHA_OMASK", 18, 18), ("RGB_CLAMP", 19, 19), ("ALPHA_CLAMP", 20, 20),
    ("ALU_RESULT_SEL", 21, 21), ("ALPHA_PRED_INV", 22, 22), ("ALU_RESULT_OP", 24, 23),
    ("ALPHA_PRED_SEL", 27, 25), ("STAT_WE", 31, 28),
])
US_ALU_ALPHA_INST = WordFormat("US_ALU_ALPHA_INST", [
    ("ALPHA_OP", 3, 0), ("ALPHA_ADDRD", 10, 4), ("ALPHA_ADDRD_REL", 11, 11),
    ("ALPHA_SEL_A", 13, 12), ("ALPHA_SWIZ_A", 16, 14), ("ALPHA_MOD_A", 18, 17),
    ("ALPHA_SEL_B", 20, 19), ("ALPHA_SWIZ_B", 23, 21), ("ALPHA_MOD_B", 25, 24),
    ("OMOD", 28, 26), ("TARGET", 30, 29), ("W_OMASK", 31, 31),
])
US_FC_INST = WordFormat("US_FC_INST", [
    ("OP", 2, 0), ("B_ELSE", 4, 4), ("JUMP_ANY", 5, 5), ("A_OP", 7, 6), ("JUMP_FUNC", 15, 8),
    ("B_POP_CNT", 20, 16), ("B_OP0", 25, 24), ("B_OP1", 27, 26), ("IGNORE_UNCOVERED", 28, 28),
])
US_FC_ADDR = WordFormat("US_FC_ADDR", [
    ("BOOL_ADDR", 4, 0), ("INT_ADDR", 12, 8), ("JUMP_ADDR", 24, 16), ("JUMP_GLOBAL", 31, 31),
])
#: US_ALU_RGB_ADDR and US_ALU_ALPHA_ADDR share this layout
US_ALU_ADDR = WordFormat("US_ALU_ADDR", [
    ("ADDR0", 7, 0), ("ADDR0_CONST", 8, 8), ("ADDR0_REL", 9, 9),
    ("ADDR1", 17, 10), ("ADDR1_CONST", 18, 18), ("ADDR1_REL", 19, 19),
    ("ADDR2", 27, 20), ("ADDR2_CONST", 28, 28), ("ADDR2_REL", 29, 29), ("SRCP_OP", 31, 30),
])
US_ALU_RGB_INST = WordFormat("US_ALU_RGB_INST", [
    ("RGB_SEL_A", 1, 0), ("RED_SWIZ_A", 4, 2), ("GREEN_SWIZ_A", 7, 5), ("BLUE_SWIZ_A", 10, 8),
    ("RGB_MOD_A", 12, 11), ("RGB_SEL_B", 14, 13), ("RED_SWIZ_B", 17, 15),
    ("GREEN_SWIZ_B", 20, 18), ("BLUE_SWIZ_B", 23, 21), ("RGB_MOD_B", 25, 24), ("OMOD", 28, 26),
    ("TARGET", 30, 29), ("ALU_WMASK", 31, 31),
])
US_ALU_RGBA_INST = WordFormat("US_ALU_RGBA_INST", [
    ("RGB_OP", 3, 0), ("RGB_ADDRD", 10, 4), ("RGB_ADDRD_REL", 11, 11), ("RGB_SEL_C", 13, 12),
    ("RED_SWIZ_C", 16, 14), ("GREEN_SWIZ_C", 19, 17), ("BLUE_SWIZ_C", 22, 20),
    ("RGB_MOD_C", 24, 23), ("ALPHA_SEL_C", 26, 25), ("ALPHA_SWIZ_C", 29, 27),
    ("ALPHA_MOD_C", 31, 30),
])
US_TEX_INST = WordFormat("US_TEX_INST", [
    ("TEX_ID", 19, 16), ("INST", 24, 22), ("TEX_SEM_ACQUIRE", 25, 25),
    ("IGNORE_UNCOVERED", 26, 26), ("UNSCALED", 27, 27),
])
US_TEX_ADDR = WordFormat("US_TEX_ADDR", [
    ("SRC_ADDR", 6, 0), ("SRC_ADDR_REL", 7, 7), ("SRC_S_SWIZ", 9, 8), ("SRC_T_SWIZ", 11, 10),
    ("SRC_R_SWIZ", 13, 12), ("SRC_Q_SWIZ", 15, 14), ("DST_ADDR", 22, 16),
    ("DST_ADDR_REL", 23, 23), ("DST_R_SWIZ", 25, 24), ("DST_G_SWIZ", 27, 26),
    ("DST_B_SWIZ", 29, 28), ("DST_A_SWIZ", 31, 30),
])
#: inst3 of a TEX instruction (§3.5); read for nothing by this project's core
US_TEX_ADDR_DXDY = WordFormat("US_TEX_ADDR_DXDY", [
    ("DX_ADDR", 6, 0), ("DX_ADDR_REL", 7, 7), ("DX_S_SWIZ", 9, 8), ("DX_T_SWIZ", 11, 10),
    ("DX_R_SWIZ", 13, 12), ("DX_Q_SWIZ", 15, 14), ("DY_ADDR", 22, 16),
    ("DY_ADDR_REL", 23, 23), ("DY_S_SWIZ", 25, 24), ("DY_T_SWIZ", 27, 26),
    ("DY_R_SWIZ", 29, 28), ("DY_Q_SWIZ", 31, 30),
])
US_INT_CONST = WordFormat("US_INT_CONST", [("KR", 7, 0), ("KG", 15, 8), ("KB", 23, 16)])


class InstType(IntEnum):
    ALU = 0
    OUT = 1
    FC = 2
    TEX = 3


class FcOp(IntEnum):
    JUMP = 0
    LOOP = 1
    ENDLOOP = 2
    REP = 3
    ENDREP = 4
    BREAKLOOP = 5
    BREAKREP = 6
    CONTINUE = 7


class AddrOp(IntEnum):
    NONE = 0
    POP = 1
    PUSH = 2


class BranchOp(IntEnum):
    NONE = 0
    DECR = 1
    INCR = 2


class PredSel(IntEnum):
    NONE = 0
    RGBA = 1
    RRRR = 2
    GGGG = 3
    BBBB = 4
    AAAA = 5


class JumpFunc(IntEnum):
    """Common JUMP_FUNC tables (bit index = alu_result << 2 | pred << 1 | bool)."""
    NEVER = 0x00
    ALWAYS = 0xFF
    ALU = 0xF0
    NOT_ALU = 0x0F
    PRED = 0xCC
    NOT_PRED = 0x33
    BOOL = 0xAA
    NOT_BOOL = 0x55


# --- ALU and TEX opcodes and operand codes (r500-us.md §3.2-3.5, §5.2) ------------------------

class RgbOp(IntEnum):
    """US_ALU_RGBA_INST.RGB_OP; 6 and 13-15 are illegal."""
    MAD = 0
    DP3 = 1
    DP4 = 2
    D2A = 3
    MIN = 4
    MAX = 5
    CND = 7
    CMP = 8
    FRC = 9
    SOP = 10
    MDH = 11
    MDV = 12


class AlphaOp(IntEnum):
    """US_ALU_ALPHA_INST.ALPHA_OP; 4 is illegal."""
    MAD = 0
    DP = 1
    MIN = 2
    MAX = 3
    CND = 5
    CMP = 6
    FRC = 7
    EX2 = 8
    LN2 = 9
    RCP = 10
    RSQ = 11
    SIN = 12
    COS = 13
    MDH = 14
    MDV = 15


class TexOp(IntEnum):
    """US_TEX_INST.INST; 7 is illegal."""
    NOP = 0
    LD = 1
    TEXKILL = 2
    PROJ = 3
    LODBIAS = 4
    LOD = 5
    DXDY = 6


class Swizzle(IntEnum):
    """An ALU input channel's SWIZ code (TEX swizzles use R … A only)."""
    R = 0
    G = 1
    B = 2
    A = 3
    ZERO = 4
    HALF = 5
    ONE = 6
    UNUSED = 7      # reads 0.0


class Mod(IntEnum):
    """An ALU input's MOD: sign-bit operations."""
    NOP = 0
    NEG = 1
    ABS = 2
    NAB = 3         # -|x|


class SrcpOp(IntEnum):
    """SRCP_OP of US_ALU_RGB_ADDR / US_ALU_ALPHA_ADDR."""
    NEG2 = 0        # 1 - 2*src0
    SUB = 1         # src1 - src0
    ADD = 2         # src1 + src0
    NEG = 3         # 1 - src0


class Omod(IntEnum):
    """OMOD of US_ALU_RGB_INST / US_ALU_ALPHA_INST: a multiply by a power of two."""
    MUL1 = 0
    MUL2 = 1
    MUL4 = 2
    MUL8 = 3
    DIV2 = 4
    DIV4 = 5
    DIV8 = 6
    DISABLE = 7     # neither OMOD nor clamp


class Compare(IntEnum):
    """``result ? 0`` for an ALU instruction's TARGET used as a predicate update and for
    ALU_RESULT_OP."""
    EQ = 0
    LT = 1
    GE = 2
    NE = 3


class Sel(IntEnum):
    """An ALU input's SEL: a source slot or the pre-subtract slot."""
    SRC0 = 0
    SRC1 = 1
    SRC2 = 2
    SRCP = 3


class AluResultSel(IntEnum):
    """US_CMN_INST.ALU_RESULT_SEL: which unit's result sets ``alu_result``."""
    RED = 0
    ALPHA = 1


# --- flow-control stack engine state (r500-us.md §2; hdl/core/fc_engine.py, sim/fc_model.py) ---

class LaneState(IntEnum):
    """A lane's flow-control state; the RTL stores it in 2 bits with these codes."""
    ACTIVE = 0
    BRANCH_INACTIVE = 1     # value = branch counter
    BREAK = 2               # value = loop-stack depth when the BREAK executed
    CONTINUE = 3            # value = loop-stack depth when the CONTINUE executed


class FcError(IntEnum):
    """Error codes (the RTL's ``error_code`` output). Several at once: the lowest step wins
    (loop stack in step 4, counters in step 5, address stack in step 6)."""
    NONE = 0
    ADDR_OVERFLOW = 1
    ADDR_UNDERFLOW = 2
    LOOP_OVERFLOW = 3
    LOOP_UNDERFLOW = 4
    COUNTER_OVERFLOW = 5


class QuadFault(IntEnum):
    """Why a quad stopped (r500-us.md §3.6, §4.3): the R500 core's error codes, in the order of
    §4.3's texts. The flow-control errors follow ``FcError``'s order."""
    NONE = 0
    ILLEGAL_INSTRUCTION = 1
    BAD_TEMPORARY = 2
    SAMPLER_NOT_SET_UP = 3
    PC_OUTSIDE = 4
    INSTRUCTION_LIMIT = 5
    ADDR_OVERFLOW = 6
    ADDR_UNDERFLOW = 7
    LOOP_OVERFLOW = 8
    LOOP_UNDERFLOW = 9
    COUNTER_OVERFLOW = 10

    @classmethod
    def from_fc(cls, fc_error):
        """The fault of a flow-control engine's ``FcError``."""
        return cls(cls.ADDR_OVERFLOW + fc_error - FcError.ADDR_OVERFLOW)


#: what each fault is called: the texts an R500 job's answer starts with (r500-us.md §4.3)
QUAD_FAULT_TEXT = {
    QuadFault.ILLEGAL_INSTRUCTION: "illegal instruction",
    QuadFault.BAD_TEMPORARY: "bad temporary address",
    QuadFault.SAMPLER_NOT_SET_UP: "sampler not set up",
    QuadFault.PC_OUTSIDE: "PC outside the program",
    QuadFault.INSTRUCTION_LIMIT: "instruction limit",
    QuadFault.ADDR_OVERFLOW: "address stack overflow",
    QuadFault.ADDR_UNDERFLOW: "address stack underflow",
    QuadFault.LOOP_OVERFLOW: "loop stack overflow",
    QuadFault.LOOP_UNDERFLOW: "loop stack underflow",
    QuadFault.COUNTER_OVERFLOW: "branch counter overflow",
}
