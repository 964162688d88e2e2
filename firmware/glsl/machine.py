"""The machine level: virtual registers, operands and R500 operations before and after
scheduling and register allocation.

A ``VReg`` is a vector of components that will live in one temporary. Where each component
lives (its *channel*) is fixed when the register is made, except for a scalar of the RGB unit,
whose channel (r, g or b) the register allocator picks: vectors of two or three components sit
in .r .g (.b), four in .r .g .b .a, a scalar of the alpha unit in .a. An ``Operand`` reads a
base (a VReg, a constant register, an inline constant, or nothing) through a per-lane selection
(a component, or one of the swizzle constants 0, 1/2, 1) and a sign modifier.
"""

__all__ = ["VReg", "ConstReg", "Inline", "Operand", "MOp", "Instr", "FcItem", "Block",
           "ZERO", "HALF", "ONE", "SWIZZLE_CONSTANTS", "ALPHA_ONLY", "RGB_ONLY"]

ZERO, HALF, ONE = "0", "h", "1"
SWIZZLE_CONSTANTS = {0.0: ZERO, 0.5: HALF, 1.0: ONE}
ALPHA_ONLY = frozenset({"EX2", "LN2", "RCP", "RSQ", "SIN", "COS"})
RGB_ONLY = frozenset({"DP3", "D2A"})


class VReg:
    """A virtual register. ``channels[i]``: the channel (0-3) of component i, or None for an
    RGB scalar whose channel the allocator picks. ``pinned``: an input temporary."""
    _count = 0

    def __init__(self, width, channels=None, pinned=None, name=""):
        VReg._count += 1
        self.id = VReg._count
        self.width = width
        self.channels = list(channels) if channels is not None else default_channels(width)
        self.pinned = pinned
        self.name = name
        self.temp = None                # after allocation: the temporary
        self.hint = None                # a VReg to share a temporary with (copies)

    def side(self, comp):
        """'alpha' if the component lives in .a, else 'rgb'."""
        return "alpha" if self.channels[comp] == 3 else "rgb"

    def __repr__(self):
        return f"v{self.id}" + (f"(t{self.pinned})" if self.pinned is not None else "")


def default_channels(width):
    if width == 1:
        return [None]
    return list(range(width))


class ConstReg:
    """A constant register (uniform or literal); components are its channels."""

    def __init__(self, index):
        self.index = index

    def side(self, comp):
        return "alpha" if comp == 3 else "rgb"

    def __eq__(self, other):
        return isinstance(other, ConstReg) and other.index == self.index

    def __hash__(self):
        return hash(("c", self.index))

    def __repr__(self):
        return f"c{self.index}"


class Inline:
    """An inline constant (r500-us.md §3.2): ``code`` the 7-bit code, ``value`` its value; it
    fills every channel of the address that holds it."""

    def __init__(self, code, value):
        self.code, self.value = code, value

    def side(self, comp):
        return None

    def __eq__(self, other):
        return isinstance(other, Inline) and other.code == self.code

    def __hash__(self):
        return hash(("i", self.code))

    def __repr__(self):
        return f"#{self.value}"


class Operand:
    """``base`` read per lane through ``sel`` (a component index or ZERO/HALF/ONE), with
    ``mod`` 0 none, 1 neg, 2 abs, 3 -abs. ``base`` None: swizzle constants only; the string
    "srcp": the pre-subtract result (``sel`` then holds channels)."""

    __slots__ = ("base", "sel", "mod")

    def __init__(self, base, sel, mod=0):
        self.base, self.sel, self.mod = base, tuple(sel), mod

    def lanes(self, picks):
        return Operand(self.base, [self.sel[i] for i in picks], self.mod)

    def reads(self):
        """The (base, component) pairs read."""
        if self.base is None or self.base == "srcp":
            return []
        return [(self.base, s) for s in self.sel if isinstance(s, int)]

    def __repr__(self):
        m = ("", "-", "|", "-|")[self.mod]
        sel = "".join(str(s) for s in self.sel)
        return f"{m}{self.base}.{sel}{'|' if self.mod >= 2 else ''}"


class MOp:
    """One unit's operation. ``unit``: rgb, alpha, any (a scalar either runs), both (DP4, or
    an alpha function written to rgb channels through SOP, or a DP3 written to .a).
    ``dst``/``comps``: the components written, one per lane; ``srcs`` the A, B, C operands;
    ``presub`` (SRCP_OP code, operand in slot 0, operand in slot 1); ``out`` (render target) the
    output this op also writes; ``alu_result`` the comparison that sets the flow-control
    result; kind alu, tex (``tex``: sampler, TexOp name), kill."""

    __slots__ = ("opcode", "unit", "dst", "comps", "srcs", "presub", "omod", "clamp", "out",
                 "alu_result", "kind", "tex", "pos", "note", "nowrite")

    def __init__(self, opcode, dst, comps, srcs, unit="rgb", kind="alu", pos=None):
        self.opcode, self.dst, self.comps, self.srcs = opcode, dst, tuple(comps), list(srcs)
        self.unit, self.kind, self.pos = unit, kind, pos
        self.presub = None
        self.omod = 0
        self.clamp = False
        self.out = None
        self.alu_result = None
        self.tex = None
        self.note = None
        self.nowrite = False            # writes no temporary (only out or alu_result)

    @property
    def width(self):
        return len(self.comps)

    def operands(self):
        ops = [s for s in self.srcs if s is not None]
        if self.presub is not None:
            ops += [s for s in self.presub[1:] if s is not None]
        return ops

    def reads(self):
        return [r for o in self.operands() for r in o.reads()]

    def writes(self):
        if self.dst is None or self.nowrite:
            return []
        return [(self.dst, c) for c in self.comps]

    def __repr__(self):
        d = f"{self.dst}.{''.join(map(str, self.comps))} = " if self.dst and not self.nowrite \
            else ""
        extra = f" presub{self.presub}" if self.presub else ""
        extra += f" out{self.out}" if self.out is not None else ""
        extra += f" alu{self.alu_result}" if self.alu_result else ""
        return f"[{self.unit}] {d}{self.opcode} {self.srcs}{extra}"


class Instr:
    """A scheduled instruction: up to one MOp per unit, or a TEX-type MOp."""

    def __init__(self):
        self.rgb = None
        self.alpha = None
        self.tex = None

    def mops(self):
        if self.tex is not None:
            return [self.tex]
        seen = []
        for m in (self.rgb, self.alpha):
            if m is not None and m not in seen:
                seen.append(m)
        return seen

    def __repr__(self):
        return f"Instr(rgb={self.rgb}, alpha={self.alpha}, tex={self.tex})"


class FcItem:
    """A flow-control instruction: LOOP, ENDLOOP or BREAK (``loop``: its ir.Loop)."""

    def __init__(self, kind, loop, pos=None):
        self.kind, self.loop, self.pos = kind, loop, pos
        self.conditional = False        # BREAK: on alu_result (set in the block before)
        self.int_const = None


class Block:
    """Straight-line machine code: MOps before scheduling, Instrs after."""

    def __init__(self):
        self.mops = []
        self.instrs = []
