"""Constant registers: the uniforms the program reads, packed (a vec4 or a matrix column per
register, smaller leaves sharing one), then the literals the code needs that neither a
swizzle constant (0, 1/2, 1) nor an inline constant can give; and the inline constants'
codes (r500-us.md §3.2)."""

from firmware.glsl.errors import GlslError
from firmware.glsl.fold import bits, f32
from firmware.glsl.machine import ConstReg

__all__ = ["ConstantPool", "inline_code", "INLINE_VALUES"]


def _inline_table():
    table = {0.0: 0}
    for e in range(16):
        for m in range(8):
            value = m * 2.0 ** -9 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7)
            table.setdefault(value, e << 3 | m)
    return table


#: value -> 7-bit inline code
INLINE_VALUES = _inline_table()


def inline_code(value):
    """The inline constant code of a value (>= 0, +0.0 only for zero), or None."""
    if value == 0.0 and bits(value) != 0:
        return None
    return INLINE_VALUES.get(value)


class ConstantPool:
    """Allocates constant registers: uniforms first (``place_uniforms``), then literals."""

    def __init__(self, limits):
        self.limits = limits
        self.uniform_regs = 0
        self.leaf_place = {}            # UniformLeaf -> (register, first channel)
        self.literals = []              # per literal register: list of float values
        self.defaults = {}              # register -> [4 values] for uniform initialisers

    def place_uniforms(self, leaves):
        """Pack the uniform leaves the program reads (in declaration order)."""
        free = []                       # per register: set of free channels
        for leaf in sorted(leaves, key=lambda l: -l.size if l.size >= 3 else 0):
            spot = None
            for reg, channels in enumerate(free):
                for first in range(0, 5 - leaf.size):
                    want = set(range(first, first + leaf.size))
                    if want <= channels and (leaf.size != 2 or first in (0, 2)):
                        spot = (reg, first)
                        break
                if spot:
                    break
            if spot is None:
                free.append(set(range(4)))
                spot = (len(free) - 1, 0)
                self._limit(len(free), leaf.pos, "for its uniforms")
            reg, first = spot
            free[reg] -= set(range(first, first + leaf.size))
            self.leaf_place[leaf] = spot
            if leaf.default is not None:
                values = self.defaults.setdefault(reg, [0.0] * 4)
                values[first:first + leaf.size] = leaf.default
        self.uniform_regs = len(free)

    def uniform(self, leaf):
        reg, first = self.leaf_place[leaf]
        return ConstReg(reg), first

    def _limit(self, count, pos, what):
        if count > self.limits.constants:
            raise GlslError(f"the shader needs more than {self.limits.constants} constant "
                            f"registers {what} (the build's limit)", pos)

    def literal(self, values, pos=None):
        """A constant register holding every value of ``values`` (floats): (ConstReg,
        channel per value)."""
        key = [bits(f32(v)) for v in values]
        for i, reg in enumerate(self.literals):
            have = [bits(v) for v in reg]
            missing = [k for k in dict.fromkeys(key) if k not in have]
            if len(have) + len(missing) <= 4:
                for k, v in zip(key, values):
                    if k in missing and k not in [bits(x) for x in reg]:
                        reg.append(f32(v))
                have = [bits(v) for v in reg]
                return ConstReg(self.uniform_regs + i), [have.index(k) for k in key]
        reg = []
        for k, v in zip(key, values):
            if k not in [bits(x) for x in reg]:
                reg.append(f32(v))
        self.literals.append(reg)
        self._limit(self.count, pos, "for its uniforms and literals")
        have = [bits(v) for v in reg]
        return ConstReg(self.uniform_regs + len(self.literals) - 1), [have.index(k)
                                                                      for k in key]

    @property
    def count(self):
        return self.uniform_regs + len(self.literals)

    def literal_values(self):
        """{register: [r, g, b, a]} of the literal registers."""
        return {self.uniform_regs + i: (reg + [0.0] * 4)[:4]
                for i, reg in enumerate(self.literals)}
