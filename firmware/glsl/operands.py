"""IR references to machine operands: sign modifiers folded from neg/abs nodes, constants as
swizzle constants, inline constants or literal registers, uniforms as their registers, inputs
as their temporaries, and combines read in place when one base supplies them."""

from firmware.glsl.constants import inline_code
from firmware.glsl.fold import bits, from_bits
from firmware.glsl.machine import HALF, ONE, ZERO, Inline, Operand

__all__ = ["compose_mod", "apply_mod", "OperandResolver"]

_SWIZZLE_BITS = {bits(0.0): ZERO, bits(0.5): HALF, bits(1.0): ONE}
_NEG = {0: 1, 1: 0, 2: 3, 3: 2}


def compose_mod(outer, inner):
    """The modifier of outer(inner(x)) (0 none, 1 neg, 2 abs, 3 -abs)."""
    if outer in (2, 3):
        return outer
    return inner if outer == 0 else _NEG[inner]


def apply_mod(mod, v):
    if mod == 1:
        return -v
    if mod == 2:
        return abs(v)
    if mod == 3:
        return -abs(v)
    return v


def _constant_lanes(values):
    """Encode constant lanes without a modifier: (base, sel), or None. The base is None
    (swizzle constants only) or one inline constant for every other lane."""
    sel, rest = [], []
    for v in values:
        b = bits(v)
        if b in _SWIZZLE_BITS:
            sel.append(_SWIZZLE_BITS[b])
        else:
            sel.append(None)
            rest.append(b)
    if not rest:
        return None, sel
    if len(set(rest)) != 1 or rest[0] & 0x80000000:
        return None
    value = from_bits(rest[0])
    code = inline_code(value)
    if code is None:
        return None
    return Inline(code, value), [0 if s is None else s for s in sel]


class OperandResolver:
    """Mixed into the selector, which provides ``pool`` (ConstantPool), ``input_vreg(temp)``,
    ``vreg(node)`` (the register of a computed node) and ``materialized``."""

    def chain(self, ref):
        """Walk neg/abs nodes: (node, swizzle, modifier)."""
        node, swz = ref
        ops = []
        while node.op in ("neg", "abs"):
            ops.append(node.op)
            inner, inner_swz = node.args[0]
            swz = tuple(inner_swz[i] for i in swz)
            node = inner
        mod = 0
        for op in reversed(ops):
            mod = compose_mod(2 if op == "abs" else 1, mod)
        return node, swz, mod

    def resolve(self, ref):
        """An Operand for ``ref``; computes (materializes) the node if it must."""
        node, swz, mod = self.chain(ref)
        if node.op in ("const", "undef"):
            values = [node.values[i] if node.op == "const" else 0.0 for i in swz]
            return self.constant(values, mod)
        if node.op == "uniform":
            reg, first = self.pool.uniform(node.attr)
            return Operand(reg, [first + i for i in swz], mod)
        if node.op == "input":
            return Operand(self.input_vreg(node.attr), swz, mod)
        if node.op == "combine" and node not in self.materialized:
            direct = self.combine_lanes(node, swz, mod)
            if direct is not None:
                return direct
        return Operand(self.vreg(node), swz, mod)

    def constant(self, values, mod=0):
        """Constants (read under ``mod``): swizzle constants, an inline constant (negated
        with NEG if every lane is negative), or a literal register."""
        wanted = [apply_mod(mod, v) for v in values]
        lanes = _constant_lanes(wanted)
        if lanes is not None:
            return Operand(lanes[0], lanes[1], 0)
        lanes = _constant_lanes([-v for v in wanted])
        if lanes is not None:
            return Operand(lanes[0], lanes[1], 1)
        reg, channels = self.pool.literal(wanted, self.pos)
        return Operand(reg, channels, 0)

    def combine_lanes(self, node, swz, mod):
        """Read a combine in place: every lane from one base (one modifier), constants as
        swizzle constants. None if it cannot be."""
        base, base_mod, sel, consts = None, None, [], []
        for i in swz:
            arg_node, arg_swz = node.args[i]
            inner, comp_swz, m = self.chain((arg_node, arg_swz))
            if inner.op == "const":
                sel.append(None)
                consts.append((len(sel) - 1, inner.values[comp_swz[0]], m))
                continue
            op = self.resolve((arg_node, arg_swz))
            if op.base is None or not isinstance(op.sel[0], int):
                return None
            if base is None:
                base, base_mod = op.base, op.mod
            elif op.base != base or op.mod != base_mod:
                return None
            sel.append(op.sel[0])
        if base is None:
            return None
        total = compose_mod(mod, base_mod)
        for lane, value, m in consts:
            want = bits(apply_mod(mod, apply_mod(m, value)))
            for code in (ZERO, HALF, ONE):
                v = {ZERO: 0.0, HALF: 0.5, ONE: 1.0}[code]
                if bits(apply_mod(total, v)) == want:
                    sel[lane] = code
                    break
            else:
                return None
        return Operand(base, sel, total)
