"""One R500 instruction's six words as fields (r500-us.md §1) and its legality (§3.6).

``decode`` unpacks the words by the shared field tables of ``hdl/isa/r500.py`` and raises
``QuadError(ILLEGAL_INSTRUCTION)`` for every illegal encoding; what the fields mean is in
``operands``, ``alu``, ``tex`` and ``quad``.
"""

from dataclasses import dataclass

from hdl.isa import (US_CMN_INST, US_ALU_ADDR, US_ALU_RGB_INST, US_ALU_ALPHA_INST,
                     US_ALU_RGBA_INST, US_TEX_INST, US_TEX_ADDR, InstType, PredSel, RgbOp,
                     AlphaOp, TexOp, R500_WORDS_PER_INSTRUCTION)
from sim.fc_model import illegal_fc_fields
from sim.r500.errors import QuadError, QuadErrorCode

__all__ = ["Instruction", "decode"]


@dataclass(frozen=True)
class Instruction:
    """The decoded words; the per-type dicts are empty for the other types."""
    words: tuple
    type: InstType
    cmn: dict                   # inst0, US_CMN_INST
    rgb_addr: dict = None       # ALU/OUT inst1, US_ALU_RGB_ADDR
    alpha_addr: dict = None     # ALU/OUT inst2, US_ALU_ALPHA_ADDR
    rgb: dict = None            # ALU/OUT inst3, US_ALU_RGB_INST
    alpha: dict = None          # ALU/OUT inst4, US_ALU_ALPHA_INST
    rgba: dict = None           # ALU/OUT inst5, US_ALU_RGBA_INST
    tex: dict = None            # TEX inst1, US_TEX_INST
    tex_addr: dict = None       # TEX inst2, US_TEX_ADDR

    @property
    def fc_inst(self):
        """FC inst2, the US_FC_INST word."""
        return self.words[2]

    @property
    def fc_addr(self):
        """FC inst3, the US_FC_ADDR word."""
        return self.words[3]


def _illegal(detail):
    return QuadError(QuadErrorCode.ILLEGAL_INSTRUCTION, detail=detail)


def _check_alu(rgb_op, alpha_op):
    legal_rgb = {op.value for op in RgbOp}
    legal_alpha = {op.value for op in AlphaOp}
    if rgb_op not in legal_rgb:
        raise _illegal(f"RGB_OP {rgb_op}")
    if alpha_op not in legal_alpha:
        raise _illegal(f"ALPHA_OP {alpha_op}")
    # the alpha unit's DP is the RGB unit's dot product, and DP4 needs the alpha unit's A, B
    if alpha_op == AlphaOp.DP and rgb_op not in (RgbOp.DP3, RgbOp.DP4):
        raise _illegal(f"ALPHA_OP DP with RGB_OP {RgbOp(rgb_op).name}")
    if rgb_op == RgbOp.DP4 and alpha_op != AlphaOp.DP:
        raise _illegal(f"RGB_OP DP4 with ALPHA_OP {AlphaOp(alpha_op).name}")


def decode(words):
    """The Instruction of six words; raises QuadError(ILLEGAL_INSTRUCTION) (without a PC)."""
    words = tuple(words)
    assert len(words) == R500_WORDS_PER_INSTRUCTION
    cmn = US_CMN_INST.unpack(words[0])
    kind = InstType(cmn["TYPE"])
    if cmn["RGB_PRED_SEL"] > PredSel.AAAA:
        raise _illegal(f"RGB_PRED_SEL {cmn['RGB_PRED_SEL']}")
    if kind != InstType.FC and cmn["ALPHA_PRED_SEL"] > PredSel.AAAA:
        raise _illegal(f"ALPHA_PRED_SEL {cmn['ALPHA_PRED_SEL']}")
    if kind == InstType.FC:
        reason = illegal_fc_fields(words[2])
        if reason:
            raise _illegal(reason)
        return Instruction(words, kind, cmn)
    if kind == InstType.TEX:
        tex = US_TEX_INST.unpack(words[1])
        if tex["INST"] not in {op.value for op in TexOp}:
            raise _illegal(f"TEX INST {tex['INST']}")
        return Instruction(words, kind, cmn, tex=tex, tex_addr=US_TEX_ADDR.unpack(words[2]))
    rgb, alpha, rgba = (US_ALU_RGB_INST.unpack(words[3]), US_ALU_ALPHA_INST.unpack(words[4]),
                        US_ALU_RGBA_INST.unpack(words[5]))
    _check_alu(rgba["RGB_OP"], alpha["ALPHA_OP"])
    return Instruction(words, kind, cmn, US_ALU_ADDR.unpack(words[1]),
                       US_ALU_ADDR.unpack(words[2]), rgb, alpha, rgba)
