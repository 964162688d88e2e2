"""ALU operands (r500-us.md §3.2): source slots, the pre-subtract slot, swizzles, modifiers.

Every value is a binary32 bit pattern (an int). A source address resolves once per instruction
(aL is the group's), then each lane reads its slots from its temporaries or the constants.
"""

from typing import NamedTuple

from hdl.isa import Mod, Sel, SrcpOp, Swizzle, R500_TEMPS, R500_CONSTS
from sim.r500 import fp32
from sim.r500.errors import QuadError, QuadErrorCode

__all__ = ["Source", "temp_address", "resolve_sources", "read_slots", "srcp",
           "apply_mod", "swizzle", "LaneOperands", "lane_operands"]

SLOTS = 3
INLINE_BIT = 0x80


class Source(NamedTuple):
    """Where a slot's channels come from: kind "temp" or "const" with an index, or "inline"
    with the constant's value."""
    kind: str
    value: int


def temp_address(addr, rel, aL, temporaries):
    """Temporary ``(addr + (aL if rel)) mod 128``, range-checked against the build's count."""
    index = (addr + (aL if rel else 0)) % R500_TEMPS
    if index >= temporaries:
        raise QuadError(QuadErrorCode.BAD_TEMPORARY,
                        detail=f"temp[{index}] of {temporaries}")
    return index


def resolve_sources(addr_fields, aL, temporaries):
    """The three Sources of a US_ALU_RGB_ADDR / US_ALU_ALPHA_ADDR word (unpacked). Every
    temporary is range-checked, whether the instruction reads the slot or not."""
    sources = []
    for n in range(SLOTS):
        addr, rel = addr_fields[f"ADDR{n}"], addr_fields[f"ADDR{n}_REL"]
        if addr_fields[f"ADDR{n}_CONST"]:
            sources.append(Source("const", (addr + (aL if rel else 0)) % R500_CONSTS))
        elif addr & INLINE_BIT:     # REL does not apply to inline constants
            sources.append(Source("inline", fp32.inline_constant(addr & ~INLINE_BIT)))
        else:
            sources.append(Source("temp", temp_address(addr, rel, aL, temporaries)))
    return sources


def _read(source, temps, constants):
    """The four channels a Source supplies; subnormals read as zeros of the same sign."""
    if source.kind == "inline":
        return [source.value] * 4
    table = temps if source.kind == "temp" else constants
    return [fp32.flush(v) for v in table[source.value]]


def read_slots(rgb_sources, alpha_sources, temps, constants):
    """Slots 0-2 of one lane: .rgb from the RGB address, .a from the alpha address."""
    return [_read(rgb, temps, constants)[:3] + _read(alpha, temps, constants)[3:]
            for rgb, alpha in zip(rgb_sources, alpha_sources)]


_SRCP = {
    SrcpOp.NEG2: lambda s0, s1: fp32.sub(fp32.ONE, fp32.mul(fp32.TWO, s0)),
    SrcpOp.SUB: lambda s0, s1: fp32.sub(s1, s0),
    SrcpOp.ADD: lambda s0, s1: fp32.add(s1, s0),
    SrcpOp.NEG: lambda s0, s1: fp32.sub(fp32.ONE, s0),
}


def srcp(slots, rgb_op, alpha_op):
    """The pre-subtract slot: .rgb by inst1's SRCP_OP, .a by inst2's."""
    s0, s1 = slots[0], slots[1]
    return ([_SRCP[rgb_op](s0[c], s1[c]) for c in range(3)]
            + [_SRCP[alpha_op](s0[3], s1[3])])


_MOD = {Mod.NOP: lambda x: x, Mod.NEG: fp32.neg, Mod.ABS: fp32.abs_, Mod.NAB: fp32.nab}
_SWIZZLE_CONSTANT = {Swizzle.ZERO: fp32.ZERO, Swizzle.HALF: fp32.HALF, Swizzle.ONE: fp32.ONE,
                     Swizzle.UNUSED: fp32.ZERO}


def apply_mod(mod, value):
    return _MOD[mod](value)


def swizzle(vec4, code):
    """Channel ``code`` (R, G, B, A) of a slot, or the constant 0, ½, 1 (7 reads 0)."""
    return vec4[code] if code <= Swizzle.A else _SWIZZLE_CONSTANT[code]


class LaneOperands(NamedTuple):
    """One lane's inputs: ``slots`` 0-2 and srcp (index 3) as vec4s, the RGB unit's A, B, C
    (three channels each) and the alpha unit's A, B, C."""
    slots: list
    rgb: tuple
    alpha: tuple


def _rgb_input(slots, sel, swizzles, mod):
    return [apply_mod(mod, swizzle(slots[sel], code)) for code in swizzles]


def lane_operands(inst, rgb_sources, alpha_sources, temps, constants):
    """Everything one lane's ALU instruction reads (before any of its writes)."""
    slots = read_slots(rgb_sources, alpha_sources, temps, constants)
    slots.append(srcp(slots, inst.rgb_addr["SRCP_OP"], inst.alpha_addr["SRCP_OP"]))
    rgb_fields = {"A": inst.rgb, "B": inst.rgb, "C": inst.rgba}
    rgb = tuple(_rgb_input(slots, Sel(f[f"RGB_SEL_{x}"]),
                           [f[f"{ch}_SWIZ_{x}"] for ch in ("RED", "GREEN", "BLUE")],
                           f[f"RGB_MOD_{x}"])
                for x, f in rgb_fields.items())
    alpha_fields = {"A": inst.alpha, "B": inst.alpha, "C": inst.rgba}
    alpha = tuple(apply_mod(f[f"ALPHA_MOD_{x}"],
                            swizzle(slots[f[f"ALPHA_SEL_{x}"]], f[f"ALPHA_SWIZ_{x}"]))
                  for x, f in alpha_fields.items())
    return LaneOperands(slots, rgb, alpha)
