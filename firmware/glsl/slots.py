"""Source slots of an ALU instruction (r500-us.md §3.2): three slots, each a vec4 whose .rgb
come from its RGB address and whose .a from its alpha address; every input (A, B, C of each
unit) reads one slot; the pre-subtract unit reads slots 0 and 1; MDH/MDV read slot 0.

``requirements`` lists what an instruction's operations need; ``assign`` finds slot numbers
for them (or None), with ``key`` naming a base: the scheduler keys virtual registers, the
emitter physical registers."""

from firmware.glsl.machine import ConstReg, Inline

__all__ = ["requirements", "assign", "lane_side", "presub_side"]

_DP = ("DP3", "DP4")


def lane_side(base, comp, unit):
    """Which address of a slot a lane reads: 'rgb' or 'alpha'."""
    if isinstance(base, Inline):
        return "alpha" if unit == "alpha" else "rgb"
    if isinstance(base, ConstReg):
        return "alpha" if comp == 3 else "rgb"
    return "alpha" if base.channels[comp] == 3 else "rgb"


def presub_side(mop, lane):
    """The side of the pre-subtract a lane of ``mop`` uses (where its operands sit)."""
    _, p0, p1 = mop.presub
    for p in (p0, p1):
        if p is not None and not isinstance(p.base, Inline):
            return lane_side(p.base, p.sel[lane], None)
    return "alpha" if mop.unit == "alpha" else "rgb"


class Need:
    """One input: the bases it needs per side, and the slot it must use (or None)."""

    __slots__ = ("sides", "fixed", "what")

    def __init__(self, sides, fixed=None, what=None):
        self.sides, self.fixed, self.what = sides, fixed, what


def _operand_need(op, unit, lanes=None, fixed=None, what=None):
    if op is None or op.base is None or op.base == "srcp":
        return None
    sides = {}
    for i, s in enumerate(op.sel):
        if lanes is not None and i not in lanes:
            continue
        if isinstance(s, int):
            side = lane_side(op.base, s, unit)
            sides[side] = op.base
    if not sides:
        return None
    return Need(sides, fixed, what)


def requirements(mops_units):
    """The Needs of an instruction's operations ((mop, unit) pairs), and the SRCP_OP codes per
    side; None if two operations want different pre-subtract codes on one side."""
    needs, srcp = [], {}
    for mop, unit in mops_units:
        if mop.opcode == "DP4":
            for k in (0, 1):
                needs.append(_operand_need(mop.srcs[k], "rgb", lanes={0, 1, 2},
                                           what=(mop, "rgb", k)))
                needs.append(_operand_need(mop.srcs[k], "alpha", lanes={3},
                                           what=(mop, "alpha", k)))
        elif mop.opcode in ("MDH", "MDV"):
            needs.append(_operand_need(mop.srcs[0], unit, fixed=0, what=(mop, unit, 0)))
            needs.append(_operand_need(mop.srcs[1], unit, what=(mop, unit, 1)))
            needs.append(_operand_need(mop.srcs[2], unit, fixed=0, what=(mop, unit, 2)))
        else:
            for k, op in enumerate(mop.srcs):
                needs.append(_operand_need(op, unit, what=(mop, unit, k)))
        if mop.presub is not None:
            code, p0, p1 = mop.presub
            for lane in range(len(p0.sel)):
                side = presub_side(mop, lane)
                if srcp.setdefault(side, code) != code:
                    return None, None
                for slot, p in ((0, p0), (1, p1)):
                    if p is not None and p.base is not None:
                        needs.append(Need({side: p.base}, slot, (mop, "presub", slot)))
    return [n for n in needs if n is not None], srcp


def assign(needs, key=lambda b: b):
    """Slot numbers for the needs: a list parallel to ``needs``, or None if they do not fit.
    Inline constants count as bases; two needs of one base share a slot."""
    slots = [{}, {}, {}]                 # side -> key
    order = sorted(range(len(needs)), key=lambda i: needs[i].fixed is None)
    result = [None] * len(needs)

    def fits(need, n):
        for side, base in need.sides.items():
            k = key(base)
            if slots[n].get(side, k) != k:
                return False
        return True

    def place(j):
        if j == len(order):
            return True
        i = order[j]
        need = needs[i]
        choices = [need.fixed] if need.fixed is not None else [0, 1, 2]
        for n in choices:
            if fits(need, n):
                added = [s for s in need.sides if s not in slots[n]]
                for side in added:
                    slots[n][side] = key(need.sides[side])
                result[i] = n
                if place(j + 1):
                    return True
                for side in added:
                    del slots[n][side]
        return False
    return result if place(0) else None
