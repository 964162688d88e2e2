"""R500 instructions as their six words (r500-us.md §1), packed field by field by the shared
tables of ``hdl/isa/r500.py``. Each builder takes the fields of each word as a dict of field
name to value (missing fields are 0)."""

from hdl.isa import (US_CMN_INST, US_ALU_ADDR, US_ALU_RGB_INST, US_ALU_ALPHA_INST,
                     US_ALU_RGBA_INST, US_TEX_INST, US_TEX_ADDR, US_TEX_ADDR_DXDY, InstType)
from sim.fc_model import FcAddr

__all__ = ["alu_words", "tex_words", "fc_words"]


def alu_words(cmn, rgb_addr, alpha_addr, rgb, alpha, rgba):
    """An ALU or OUT instruction (``cmn["TYPE"]`` says which): inst0 US_CMN_INST, inst1/inst2
    US_ALU_ADDR, inst3 US_ALU_RGB_INST, inst4 US_ALU_ALPHA_INST, inst5 US_ALU_RGBA_INST."""
    return [US_CMN_INST.pack(**cmn), US_ALU_ADDR.pack(**rgb_addr), US_ALU_ADDR.pack(**alpha_addr),
            US_ALU_RGB_INST.pack(**rgb), US_ALU_ALPHA_INST.pack(**alpha),
            US_ALU_RGBA_INST.pack(**rgba)]


def tex_words(cmn, tex, tex_addr, dxdy=None):
    """A TEX instruction: inst1 US_TEX_INST, inst2 US_TEX_ADDR, inst3 US_TEX_ADDR_DXDY (read
    for nothing, §3.5)."""
    return [US_CMN_INST.pack(**dict(cmn, TYPE=InstType.TEX)), US_TEX_INST.pack(**tex),
            US_TEX_ADDR.pack(**tex_addr), US_TEX_ADDR_DXDY.pack(**(dxdy or {})), 0, 0]


def fc_words(built, **cmn):
    """An FC instruction from a ``sim.fc_model`` builder's (US_FC_INST word, FcAddr or
    US_FC_ADDR word); ``cmn`` holds inst0's other fields (ALU_WAIT is 1, as Mesa sets it,
    unless given)."""
    inst, fc_addr = built
    word = fc_addr.word if isinstance(fc_addr, FcAddr) else fc_addr
    cmn = {"ALU_WAIT": 1, **cmn, "TYPE": InstType.FC}
    return [US_CMN_INST.pack(**cmn), 0, inst, word, 0, 0]
