"""R500 instructions for the quad model's tests, built field by field from the shared tables of
``hdl/isa/r500.py`` (packed by ``sim.r500.words``), and a runner that takes lane values as
Python floats.

Operands are written as in the assembly syntax (r500-us.md §5): ``"-|src1.gr0|"``, ``"srcp.a"``;
source addresses as ``"t5"`` (temporary), ``"c3"`` (constant), ``"t5+"``/``"c3+"`` (+ aL),
``"i56"`` (inline constant code 56); an unnamed slot is the inline constant 0.
"""

import re

from hdl.isa import US_ALU_ADDR, InstType, RgbOp, AlphaOp, TexOp, Sel, Mod
from sim.r500 import fp32
from sim.r500.quad import LaneInput, run_quad
from sim.r500.words import alu_words, tex_words, fc_words as fc

__all__ = ["bits", "f", "vec", "floats", "addr", "alu", "tex", "fc", "run", "lanes_with"]

SWIZZLE_CODES = {ch: code for code, ch in enumerate("rgba0h1_")}
_OPERAND = re.compile(r"^(-?)(\|?)(src[012p])\.([rgba0h1_]+)\|?$")


class bits(int):
    """A value given as its bit pattern, not as a number."""


def f(x):
    """The binary32 pattern of a number (a ``bits`` as it is)."""
    return int(x) if isinstance(x, bits) else fp32.from_float(float(x))


def vec(*values):
    return [f(v) for v in values]


def floats(words):
    return [fp32.to_float(w) for w in words]


def _operand(text):
    """(SEL, swizzle codes, MOD) of an operand."""
    m = _OPERAND.match(text)
    assert m, f"bad operand {text!r}"
    neg, bars, sel, swz = m.groups()
    mod = {("", ""): Mod.NOP, ("-", ""): Mod.NEG, ("", "|"): Mod.ABS, ("-", "|"): Mod.NAB}
    sel = Sel.SRCP if sel == "srcp" else Sel(int(sel[-1]))
    return sel, [SWIZZLE_CODES[c] for c in swz], mod[neg, bars]


def addr(*slots, srcp=0):
    """A US_ALU_RGB_ADDR / US_ALU_ALPHA_ADDR word."""
    return US_ALU_ADDR.pack(**_addr_fields(slots, srcp))


def _addr_fields(slots, srcp):
    fields = {"SRCP_OP": srcp}
    for n in range(3):
        spec = slots[n] if n < len(slots) and slots[n] else "i0"
        kind, number, rel = spec[0], int(spec[1:].rstrip("+")), int(spec.endswith("+"))
        fields[f"ADDR{n}"] = number | 0x80 if kind == "i" else number
        fields[f"ADDR{n}_CONST"] = int(kind == "c")
        fields[f"ADDR{n}_REL"] = rel
    return fields


def _rgb_fields(letter, text):
    sel, swz, mod = _operand(text)
    swz = (swz * 3)[:3] if len(swz) == 1 else swz
    return {f"RGB_SEL_{letter}": sel, f"RED_SWIZ_{letter}": swz[0],
            f"GREEN_SWIZ_{letter}": swz[1], f"BLUE_SWIZ_{letter}": swz[2],
            f"RGB_MOD_{letter}": mod}


def _alpha_fields(letter, text):
    sel, swz, mod = _operand(text)
    return {f"ALPHA_SEL_{letter}": sel, f"ALPHA_SWIZ_{letter}": swz[0],
            f"ALPHA_MOD_{letter}": mod}


def alu(rgb_op=RgbOp.MAD, a="src0.rgb", b="src0.111", c="src0.000",
        alpha_op=AlphaOp.MAD, aa="src0.a", ab="src0.1", ac="src0.0", *,
        rgb=(), alpha=(), rgb_srcp=0, alpha_srcp=0, rgb_dest=0, alpha_dest=0,
        rgb_dest_rel=0, alpha_dest_rel=0, rgb_omod=0, alpha_omod=0, rgb_target=0,
        alpha_target=0, alu_wmask=0, w=0, out=False, **cmn):
    """An ALU (or with ``out`` an OUT) instruction: by default a MOV of src0 in both units.
    ``rgb``/``alpha`` are the source slots; ``cmn`` holds US_CMN_INST fields (RGB_WMASK, …)."""
    inst3 = dict(**_rgb_fields("A", a), **_rgb_fields("B", b), OMOD=rgb_omod,
                 TARGET=rgb_target, ALU_WMASK=alu_wmask)
    inst4 = dict(ALPHA_OP=alpha_op, ALPHA_ADDRD=alpha_dest, ALPHA_ADDRD_REL=alpha_dest_rel,
                 **_alpha_fields("A", aa), **_alpha_fields("B", ab), OMOD=alpha_omod,
                 TARGET=alpha_target, W_OMASK=w)
    inst5 = dict(RGB_OP=rgb_op, RGB_ADDRD=rgb_dest, RGB_ADDRD_REL=rgb_dest_rel,
                 **_rgb_fields("C", c), **_alpha_fields("C", ac))
    kind = InstType.OUT if out else InstType.ALU
    return alu_words(dict(TYPE=kind, **cmn), _addr_fields(rgb, rgb_srcp),
                     _addr_fields(alpha, alpha_srcp), inst3, inst4, inst5)


def tex(op=TexOp.LD, src=0, dst=0, tex_id=0, coords="rgba", swz="rgba", *, src_rel=0,
        dst_rel=0, unscaled=0, mask="rgba", **cmn):
    """A TEX instruction: dst.mask = op tex[tex_id].swz temp[src].coords."""
    sc = [SWIZZLE_CODES[ch] for ch in coords]
    dc = [SWIZZLE_CODES[ch] for ch in swz]
    inst2 = dict(SRC_ADDR=src, SRC_ADDR_REL=src_rel, SRC_S_SWIZ=sc[0], SRC_T_SWIZ=sc[1],
                 SRC_R_SWIZ=sc[2], SRC_Q_SWIZ=sc[3], DST_ADDR=dst, DST_ADDR_REL=dst_rel,
                 DST_R_SWIZ=dc[0], DST_G_SWIZ=dc[1], DST_B_SWIZ=dc[2], DST_A_SWIZ=dc[3])
    rgb_mask = sum(1 << i for i, ch in enumerate("rgb") if ch in mask)
    cmn.setdefault("RGB_WMASK", rgb_mask)
    cmn.setdefault("ALPHA_WMASK", int("a" in mask))
    return tex_words(cmn, dict(TEX_ID=tex_id, INST=op, UNSCALED=unscaled), inst2)


def lanes_with(temps_per_lane, covered=(True,) * 4):
    """Four LaneInputs from [{index: [values]}, …] (floats or patterns)."""
    return [LaneInput({i: vec(*v) for i, v in temps.items()}, c)
            for temps, c in zip(temps_per_lane, covered)]


def run(program, temps=None, covered=(True,) * 4, constants=None, **kw):
    """run_quad on a list of instructions; ``temps`` one {index: values} for every lane or a
    list of four; ``constants`` {index: values}."""
    temps = temps or {}
    per_lane = temps if isinstance(temps, list) else [temps] * 4
    consts = {i: vec(*v) for i, v in (constants or {}).items()}
    words = [w for inst in program for w in inst]
    return run_quad(words, lanes_with(per_lane, covered), consts, **kw)
