"""Spellings of R500 assembly, shared by the assembler and the disassembler so that the two can
never disagree. Codes come from ``hdl.isa`` (the one table); this module only names them."""

from hdl.isa import (
    US_CMN_INST, US_ALU_ADDR, US_ALU_RGB_INST, US_ALU_ALPHA_INST, US_ALU_RGBA_INST, US_TEX_INST,
    US_TEX_ADDR, US_TEX_ADDR_DXDY, US_FC_INST, US_FC_ADDR,
    AddrOp, AlphaOp, AluResultSel, BranchOp, Compare, FcOp, InstType, JumpFunc, PredSel, RgbOp,
    SrcpOp, TexOp,
)

__all__ = [
    "RGB_MASKS", "ALPHA_MASKS", "SWIZZLE_CHARS", "TEX_SWIZZLE_CHARS", "OMODS", "NOOMOD",
    "SRCP_OPS", "COMPARES", "ALPHA_ONLY", "RGB_ONLY", "ALU_OPCODES", "TAG_FIELDS",
    "FIELD_ENUMS", "TEX_OPCODES", "FC_OPCODES", "STRUCTURED", "format_of",
    "UNIT_FIELDS", "INPUT_FIELDS", "DECL_WORDS", "SELS",
]

#: write masks by code (r500-us.md §5.2)
RGB_MASKS = ("none", "r", "g", "rg", "b", "rb", "gb", "rgb")
ALPHA_MASKS = ("none", "a")
#: ALU swizzle characters by code: R G B A, 0, h (one half), 1, _ (unused)
SWIZZLE_CHARS = "rgba0h1_"
TEX_SWIZZLE_CHARS = "rgba"
#: OMOD spellings (``2.0 * MAD``) by code; code 7 is the word NOOMOD (no OMOD, no clamp)
OMODS = {"1.0": 0, "2.0": 1, "4.0": 2, "8.0": 3, "0.5": 4, "0.25": 5, "0.125": 6}
NOOMOD = "NOOMOD"
SRCP_OPS = {op.name.lower(): op.value for op in SrcpOp}
#: the comparison of a predicate destination ``pred[lt].r`` and of ALU_RESULT_OP
COMPARES = {c.name.lower(): c.value for c in Compare}

#: §5.3 rule 1: opcodes only one unit runs
ALPHA_ONLY = frozenset({"DP", "EX2", "LN2", "RCP", "RSQ", "SIN", "COS"})
RGB_ONLY = frozenset({"DP3", "DP4", "D2A", "SOP"})
ALU_OPCODES = {"rgb": {op.name: op.value for op in RgbOp},
               "alpha": {op.name: op.value for op in AlphaOp}}
assert ALPHA_ONLY == ALU_OPCODES["alpha"].keys() - ALU_OPCODES["rgb"].keys()
assert RGB_ONLY == ALU_OPCODES["rgb"].keys() - ALU_OPCODES["alpha"].keys()

#: the word format of inst0 … inst5 for each instruction type (None: a word with no fields)
_FORMATS = {
    InstType.ALU: (US_CMN_INST, US_ALU_ADDR, US_ALU_ADDR, US_ALU_RGB_INST, US_ALU_ALPHA_INST,
                   US_ALU_RGBA_INST),
    InstType.TEX: (US_CMN_INST, US_TEX_INST, US_TEX_ADDR, US_TEX_ADDR_DXDY, None, None),
    InstType.FC: (US_CMN_INST, None, US_FC_INST, US_FC_ADDR, None, None),
}
_FORMATS[InstType.OUT] = _FORMATS[InstType.ALU]


def format_of(inst_type, k):
    return _FORMATS[InstType(inst_type)][k]


def _tag_fields(words_and_excluded):
    fields = {}
    for k, fmt, excluded in words_and_excluded:
        for name in fmt.fields:
            if name not in excluded:
                assert name not in fields, f"tag {name} is in two words"
                fields[name] = (k, fmt)
    return fields


_SYNTAX_INST0 = {"TYPE", "RGB_WMASK", "ALPHA_WMASK", "RGB_OMASK", "ALPHA_OMASK"}
#: The fields an instruction type spells as tags, ``NAME`` (a 1-bit field set to 1) or
#: ``NAME(value)``: inst0's fields (the base's tags TEX_SEM_WAIT, LAST, NOP, ALU_WAIT among them)
#: except those its other syntax sets, plus the words' flags that no other syntax covers.
#: name -> (word index, word format)
TAG_FIELDS = {
    InstType.ALU: _tag_fields([
        (0, US_CMN_INST, _SYNTAX_INST0),
        (3, US_ALU_RGB_INST, set(US_ALU_RGB_INST.fields) - {"ALU_WMASK"}),
        (4, US_ALU_ALPHA_INST, set(US_ALU_ALPHA_INST.fields) - {"W_OMASK"}),
    ]),
    InstType.TEX: _tag_fields([
        (0, US_CMN_INST, {"TYPE", "RGB_WMASK", "ALPHA_WMASK"}),
        (1, US_TEX_INST, {"TEX_ID", "INST"}),
    ]),
    InstType.FC: _tag_fields([
        (0, US_CMN_INST, {"TYPE"}),
        (2, US_FC_INST, {"OP"}),
        (3, US_FC_ADDR, set()),
    ]),
}
TAG_FIELDS[InstType.OUT] = TAG_FIELDS[InstType.ALU]

#: value names of tag fields (printed lower case, read in any case)
FIELD_ENUMS = {
    "RGB_PRED_SEL": PredSel, "ALPHA_PRED_SEL": PredSel, "ALU_RESULT_SEL": AluResultSel,
    "ALU_RESULT_OP": Compare, "A_OP": AddrOp, "B_OP0": BranchOp, "B_OP1": BranchOp,
    "JUMP_FUNC": JumpFunc,
}

#: opcode names per type
TEX_OPCODES = {op.name: op.value for op in TexOp}
FC_OPCODES = {op.name: op.value for op in FcOp}

#: structured flow-control words (expanded by ``firmware.r500.flow``)
STRUCTURED = frozenset({"IF", "ELSE", "ENDIF", "LOOP", "ENDLOOP", "REP", "ENDREP", "BREAK",
                        "CONTINUE", "CALL", "RET"})


# --- where each ALU unit's parts live (word index, field name) ---------------------------------

#: per unit: opcode, destination address and its REL bit, OMOD, TARGET, write and output masks
UNIT_FIELDS = {
    "rgb": {"op": (5, "RGB_OP"), "addrd": (5, "RGB_ADDRD"), "rel": (5, "RGB_ADDRD_REL"),
            "omod": (3, "OMOD"), "target": (3, "TARGET"), "wmask": (0, "RGB_WMASK"),
            "omask": (0, "RGB_OMASK")},
    "alpha": {"op": (4, "ALPHA_OP"), "addrd": (4, "ALPHA_ADDRD"), "rel": (4, "ALPHA_ADDRD_REL"),
              "omod": (4, "OMOD"), "target": (4, "TARGET"), "wmask": (0, "ALPHA_WMASK"),
              "omask": (0, "ALPHA_OMASK")},
}
#: per unit, inputs A, B, C: (word index, SEL field, swizzle fields, MOD field)
INPUT_FIELDS = {
    "rgb": [(k, f"RGB_SEL_{x}", tuple(f"{c}_SWIZ_{x}" for c in ("RED", "GREEN", "BLUE")),
             f"RGB_MOD_{x}") for k, x in ((3, "A"), (3, "B"), (5, "C"))],
    "alpha": [(k, f"ALPHA_SEL_{x}", (f"ALPHA_SWIZ_{x}",), f"ALPHA_MOD_{x}")
              for k, x in ((4, "A"), (4, "B"), (5, "C"))],
}
#: source-slot declarations: ``.rgb`` ones go to inst1, ``.a`` ones to inst2
DECL_WORDS = {"rgb": 1, "a": 2}
SELS = ("src0", "src1", "src2", "srcp")
