"""Selection of each IR operation (mixed into the selector): MAD/MIN/MAX/CMP/FRC/DP3/DP4 and
the special functions, moves, the fused forms (MAD, OMOD, clamp, compare-and-select through
the pre-subtract unit), and the flow-control condition."""

from firmware.glsl.constants import inline_code
from firmware.glsl.machine import HALF, ONE, ZERO, ConstReg, Inline, MOp, Operand, VReg
from firmware.glsl.operands import compose_mod

__all__ = ["OpSelection", "OMOD_OF"]

#: multiplier -> OMOD code
OMOD_OF = {2.0: 1, 4.0: 2, 8.0: 3, 0.5: 4, 0.25: 5, 0.125: 6}
_SPECIAL = {"rcp": "RCP", "rsq": "RSQ", "ex2": "EX2", "lg2": "LN2", "sin": "SIN", "cos": "COS"}
_COMPARE = ("slt", "sge", "seq", "sne")
#: ALU_RESULT_OP of a comparison on the difference a - b (seq/sne on -|a - b| ... see below)
_RESULT_OP = {"slt": "lt", "sge": "ge", "seq": "eq", "sne": "ne"}
_MOV_OMOD = 7                       # a copy moves the bits: no OMOD, no clamp


def _ident(n):
    return tuple(range(n))


def _slice(op, lanes):
    """An operand's lanes ``lanes`` (a pre-subtract read renumbered with its lanes)."""
    if op is None:
        return None
    if op.base == "srcp":
        return Operand("srcp", [lanes.index(op.sel[i]) for i in lanes], op.mod)
    return op.lanes(lanes)


class OpSelection:
    # --- emitting ----------------------------------------------------------------------------

    def emit_vec(self, opcode, dst, comps, srcs, presub=None, omod=0, clamp=False,
                 node=None):
        """Emit an operation writing ``comps`` of ``dst``: one MOp on the RGB unit for the
        components in .rgb, one on the alpha unit for .a."""
        comps = list(comps)
        sides = {}
        for lane, c in enumerate(comps):
            ch = dst.channels[c] if dst is not None else None
            sides.setdefault("alpha" if ch == 3 else "rgb", []).append(lane)
        mops = []
        for side, lanes in sides.items():
            ch = dst.channels[comps[lanes[0]]] if dst is not None else None
            unit = side
            if side == "rgb" and len(lanes) == 1 and ch is None and opcode not in ("DP3",):
                unit = "any"
            mop = MOp(opcode, dst, [comps[i] for i in lanes],
                      [_slice(s, lanes) for s in srcs], unit=unit)
            if presub is not None:
                mop.presub = (presub[0],) + tuple(p.lanes(lanes) if p is not None else None
                                                  for p in presub[1:])
            mop.omod, mop.clamp = omod, clamp
            mops.append(self.emit(mop))
        if node is not None:
            self.mops_of[node] = mops
        return mops

    def result(self, node, width=None, channels=None):
        reg = VReg(width or node.width, channels)
        self.vregs[node] = reg
        return reg

    def mov(self, dst, comps, operand, sides_from=None, clamp=False):
        """Copy ``operand`` into components ``comps`` of ``dst`` (dst None: an output, whose
        components are the channels ``sides_from``)."""
        comps = list(comps)
        srcs = [operand, operand, None]
        if dst is None:
            tmp = VReg(4, [0, 1, 2, 3])
            return self.emit_vec("MAX", tmp, comps, srcs, omod=0 if clamp else _MOV_OMOD,
                                 clamp=clamp)
        return self.emit_vec("MAX", dst, comps, srcs, omod=0 if clamp else _MOV_OMOD,
                             clamp=clamp)

    def as_temp(self, ref):
        """The value of ref in a temporary with no modifier: (VReg, per-lane components)."""
        op = self.resolve(ref)
        if isinstance(op.base, VReg) and op.mod == 0 and all(isinstance(s, int)
                                                             for s in op.sel):
            return op.base, op.sel
        reg = VReg(len(op.sel))
        self.mov(reg, range(len(op.sel)), op)
        return reg, _ident(len(op.sel))

    def group_lanes(self, refs):
        """Operands reading one-component refs, as few as possible: [(lane indices,
        operand over those lanes)]."""
        ops = [self.resolve(r) for r in refs]
        groups = []
        for lane, op in enumerate(ops):
            for g in groups:
                if self._joins(g[1], op):
                    g[0].append(lane)
                    g[1] = self._join(g[1], op)
                    break
            else:
                groups.append([[lane], op])
        return [(g[0], g[1]) for g in groups]

    @staticmethod
    def _joins(a, b):
        """Can one operand read both a's and b's lanes (one base, one modifier)?"""
        same_base = a.base is None or b.base is None or a.base == b.base
        return same_base and a.mod == b.mod

    @staticmethod
    def _join(a, b):
        base = a.base if a.base is not None else b.base
        mod = a.mod if a.base is not None else b.mod
        return Operand(base, a.sel + b.sel, mod)

    # --- absorbing ----------------------------------------------------------------------------

    def absorbable(self, node):
        """Can ``node`` be folded into its only user (which is being selected)?"""
        return (self.uses[node] == 1 and node not in self.vregs
                and node.op not in ("const", "uniform", "input", "undef", "combine", "phi",
                                    "tex"))

    def operand_of(self, node, lane_swz, arg, outer_mod=0):
        """Operand for argument ``arg`` of ``node`` read through the user's swizzle."""
        n, s = node.args[arg]
        op = self.resolve((n, tuple(s[i] for i in lane_swz)))
        return Operand(op.base, op.sel, compose_mod(outer_mod, op.mod))

    # --- the pre-subtract unit ----------------------------------------------------------------

    def _only_user(self, inner, node):
        return self.uses[inner] == sum(1 for r in node.args if r[0] is inner)

    def presub_form(self, add, swz):
        """(SRCP_OP code, slot-0 operand, slot-1 operand) computing ``add`` (read through
        ``swz``) in the pre-subtract unit, or None."""
        (an, asw), (bn, bsw) = add.args
        a_node, _, a_mod = self.chain((an, tuple(asw[i] for i in swz)))
        b_node, _, b_mod = self.chain((bn, tuple(bsw[i] for i in swz)))
        x = self._in_slot(self.operand_of(add, swz, 0))
        y = self._in_slot(self.operand_of(add, swz, 1))
        forms = []
        if y.mod == 1:                                   # a - b: src1 - src0
            forms.append((1, Operand(y.base, y.sel, 0), x))
        elif x.mod == 1:
            forms.append((1, Operand(x.base, x.sel, 0), y))
        if isinstance(x.base, Inline) and x.base.value == 1.0 and x.mod == 0 and y.mod == 1:
            forms.insert(0, (3, Operand(y.base, y.sel, 0), None))      # 1 - src0
        if x.mod == 0 and y.mod == 0:
            forms.append((2, y, x))                                      # src1 + src0
        for code, p0, p1 in forms:
            if p0.mod or (p1 is not None and p1.mod):
                continue
            if p1 is None and p0.base is not None and \
                    all(isinstance(s, int) for s in p0.sel):
                return code, p0, None
            if p1 is not None and self._aligned(p1, p0):
                return code, p0, p1
        return None

    def args_with_presub(self, node, arg_count=None):
        """Operands of node's arguments; an add among them only ``node`` reads may become
        the pre-subtract (returned as the second value, or None)."""
        refs = node.args[:arg_count] if arg_count else node.args
        for k, ref in enumerate(refs):
            inner, swz, mod = self.chain(ref)
            if inner.op != "add" or inner in self.vregs or not self._only_user(inner, node):
                continue
            presub = self.presub_form(inner, swz)
            if presub is None:
                continue
            ops = []
            for j, r in enumerate(refs):
                rn, rswz, rmod = self.chain(r)
                if rn is inner:
                    ops.append(Operand("srcp", _ident(len(rswz)), rmod))
                else:
                    ops.append(self.resolve(r))
            if self._fits([o for o in ops if o.base != "srcp"], presub):
                return ops, presub
        return [self.resolve(r) for r in refs], None

    # --- arithmetic ---------------------------------------------------------------------------

    def _binary(self, node, opcode):
        (a, b), presub = self.args_with_presub(node)
        reg = self.result(node)
        return self.emit_vec(opcode, reg, _ident(node.width), [a, b, None], presub=presub,
                             node=node)

    def _n_add(self, node):
        for m, other in ((0, 1), (1, 0)):
            mnode, mswz, mmod = self.chain(node.args[m])
            if mnode.op == "mul" and mmod in (0, 1) and self.absorbable(mnode):
                x = self.operand_of(mnode, mswz, 0, mmod)
                y = self.operand_of(mnode, mswz, 1)
                c = self.resolve(node.args[other])
                reg = self.result(node)
                return self.emit_vec("MAD", reg, _ident(node.width), [x, y, c], node=node)
        a, b = (self.resolve(r) for r in node.args)
        reg = self.result(node)
        one = Operand(None, [ONE] * node.width)
        return self.emit_vec("MAD", reg, _ident(node.width), [a, one, b], node=node)

    def _n_mul(self, node):
        for k, x in ((1, 0), (0, 1)):
            knode, kswz, kmod = self.chain(node.args[k])
            xnode, xswz, xmod = self.chain(node.args[x])
            if knode.op != "const" or xmod != 0 or not self.absorbable(xnode) or \
                    xswz != _ident(xnode.width) or xnode.width != node.width:
                continue
            values = {knode.values[i] for i in kswz}
            if kmod == 0 and len(values) == 1 and values.pop() in OMOD_OF:
                factor = knode.values[kswz[0]]
                reg = self.vreg(xnode)
                mops = self.mops_of.get(xnode, [])
                if mops and all(m.omod == 0 and not m.clamp for m in mops):
                    for m in mops:
                        m.omod = OMOD_OF[factor]
                    self.vregs[node] = reg
                    self.mops_of[node] = mops
                    return mops
        (a, b), presub = self.args_with_presub(node)
        reg = self.result(node)
        zero = Operand(None, [ZERO] * node.width)
        return self.emit_vec("MAD", reg, _ident(node.width), [a, b, zero], presub=presub,
                             node=node)

    def _n_mad(self, node):
        (a, b, c), presub = self.args_with_presub(node)
        reg = self.result(node)
        return self.emit_vec("MAD", reg, _ident(node.width), [a, b, c], presub=presub,
                             node=node)

    def _n_min(self, node):
        return self._binary(node, "MIN")

    def _n_max(self, node):
        return self._binary(node, "MAX")

    def _n_frc(self, node):
        (a,), presub = self.args_with_presub(node)
        reg = self.result(node)
        return self.emit_vec("FRC", reg, _ident(node.width), [a, None, None], presub=presub,
                             node=node)

    def _n_sat(self, node):
        xnode, xswz, xmod = self.chain(node.args[0])
        if xmod == 0 and self.absorbable(xnode) and xswz == _ident(xnode.width) and \
                xnode.width == node.width:
            reg = self.vreg(xnode)
            mops = self.mops_of.get(xnode, [])
            if mops and all(m.omod != 7 and not m.clamp for m in mops):
                for m in mops:
                    m.clamp = True
                self.vregs[node] = reg
                self.mops_of[node] = mops
                return mops
        a = self.resolve(node.args[0])
        reg = self.result(node)
        return self.emit_vec("MAX", reg, _ident(node.width), [a, a, None], clamp=True,
                             node=node)

    def _n_neg(self, node):
        return self._copy_node(node)

    def _n_abs(self, node):
        return self._copy_node(node)

    def _copy_node(self, node):
        op = self.resolve((node, _ident(node.width)))
        reg = self.result(node)
        return self.mov(reg, _ident(node.width), op)

    def _n_combine(self, node):
        reg = self.result(node)
        groups = self.group_lanes([(n, s) for n, s in node.args])
        for lanes, op in groups:
            self.mov(reg, lanes, op)
        return reg

    def _n_cmp(self, node):
        c, a, b = (self.resolve(r) for r in node.args)
        reg = self.result(node)
        return self.emit_vec("CMP", reg, _ident(node.width), [a, b, c], node=node)

    # --- comparisons and selects -------------------------------------------------------------

    def difference(self, cmp_node, lane_swz):
        """An operand whose sign answers the comparison ``cmp_node`` (slt/sge: x - y;
        seq/sne: -|x - y|), and the presub that makes it (or None)."""
        x = self.operand_of(cmp_node, lane_swz, 0)
        y = self.operand_of(cmp_node, lane_swz, 1)
        abs_mod = 3 if cmp_node.op in ("seq", "sne") else 0
        if y.base is None and all(s == ZERO for s in y.sel) and y.mod == 0:
            return Operand(x.base, x.sel, compose_mod(abs_mod, x.mod)), None
        if x.base is None and all(s == ZERO for s in x.sel) and x.mod == 0:
            return Operand(y.base, y.sel, compose_mod(abs_mod, compose_mod(1, y.mod))), None
        if x.base is None and all(s == ONE for s in x.sel) and x.mod == 0 and y.mod == 0 and \
                y.base is not None and all(isinstance(s, int) for s in y.sel):
            # srcp = 1 - src0
            return Operand("srcp", _ident(len(y.sel)), abs_mod), (3, y, None)
        x, y = self._in_slot(x), self._in_slot(y)
        if self._aligned(x, y):
            # srcp = src1 - src0 with src0 = y, src1 = x
            return Operand("srcp", _ident(len(x.sel)), abs_mod), (1, y, x)
        return self._difference_in_register(cmp_node, lane_swz), None

    @staticmethod
    def _in_slot(op):
        """A swizzle-constant operand of one value as an inline constant (for the
        pre-subtract unit, which reads slots)."""
        if op.base is None and len(set(op.sel)) == 1 and op.mod in (0, 1):
            value = {ZERO: 0.0, HALF: 0.5, ONE: 1.0}[op.sel[0]]
            return Operand(Inline(inline_code(value), value), [0] * len(op.sel), op.mod)
        return op

    def _aligned(self, x, y):
        """Can the pre-subtract unit combine x and y lane by lane (same channel in every
        lane, no modifier, no swizzle constant)?"""
        if x.mod or y.mod or x.base is None or y.base is None:
            return False
        if not all(isinstance(s, int) for s in x.sel + y.sel):
            return False
        for a, b in zip(x.sel, y.sel):
            ca, cb = self._channel(x.base, a), self._channel(y.base, b)
            if ca is None or cb is None:
                return False
            if ca != cb and ca != "any" and cb != "any":
                return False
        bases = {x.base, y.base}
        return len(bases) <= 2

    @staticmethod
    def _channel(base, comp):
        if isinstance(base, Inline):
            return "any"
        if isinstance(base, ConstReg):
            return comp
        return base.channels[comp]

    def _select_cmp(self, node, cond_ref, if_true, if_false, reg=None):
        """Emit ``cond ? if_true : if_false`` (operands) for a bool cond ref, into node's
        register (or ``reg``, one component wide)."""
        cnode, cswz, cmod = self.chain(cond_ref)
        if reg is None:
            reg, width = self.result(node), node.width
        else:
            width = 1
        if cnode.op in ("slt", "sge", "seq", "sne") and cmod == 0:
            a, b = (if_true, if_false) if cnode.op in ("sge", "seq") else (if_false, if_true)
            diff, presub = self.difference(cnode, cswz)
            if presub is None or self._fits([a, b], presub):
                return self.emit_vec("CMP", reg, _ident(width), [a, b, diff], presub=presub,
                                     node=node)
            diff = self._difference_in_register(cnode, cswz)
            return self.emit_vec("CMP", reg, _ident(width), [a, b, diff], node=node)
        c = self.resolve(cond_ref)
        neg_c = Operand(c.base, c.sel, compose_mod(1, c.mod))
        return self.emit_vec("CMP", reg, _ident(width), [if_false, if_true, neg_c], node=node)

    def flag(self, reg, cond_ref):
        """``reg`` (a one-component register) = cond ? 1 : 0, setting alu_result to it."""
        one, zero = Operand(None, [ONE]), Operand(None, [ZERO])
        if cond_ref is None:
            mops = self.mov(reg, [0], one)
        else:
            mops = self._select_cmp(None, cond_ref, one, zero, reg=reg)
        for m in mops:
            m.alu_result = "ne"
        return mops

    def _difference_in_register(self, cnode, cswz):
        """The comparison's difference computed once per distinct lane into a register."""
        lanes = list(dict.fromkeys(cswz))
        x = self.operand_of(cnode, lanes, 0)
        y = self.operand_of(cnode, lanes, 1)
        diff = VReg(len(lanes))
        one = Operand(None, [ONE] * len(lanes))
        self.emit_vec("MAD", diff, _ident(len(lanes)),
                      [Operand(y.base, y.sel, compose_mod(1, y.mod)), one, x])
        abs_mod = 3 if cnode.op in ("seq", "sne") else 0
        return Operand(diff, [lanes.index(s) for s in cswz], abs_mod)

    @staticmethod
    def _fits(operands, presub):
        """Do the operands fit the slots the pre-subtract leaves (it takes slot 0, and slot 1
        when it has two operands, even for one base twice)?"""
        inputs = [p for p in presub[1:] if p is not None]
        own = {p.base for p in inputs}
        others = {o.base for o in operands if o.base is not None and o.base not in own}
        return len(inputs) + len(others) <= 3

    def _n_select(self, node):
        a, b = self.resolve(node.args[1]), self.resolve(node.args[2])
        return self._select_cmp(node, node.args[0], a, b)

    def _compare(self, node):
        one = Operand(None, [ONE] * node.width)
        zero = Operand(None, [ZERO] * node.width)
        return self._select_cmp(node, (node, _ident(node.width)), one, zero)

    _n_slt = _n_sge = _n_seq = _n_sne = _compare

    def condition(self, ref):
        """An operation that sets alu_result where the bool ``ref`` is true (writes
        nothing)."""
        cnode, cswz, cmod = self.chain(ref)
        if cnode.op in _COMPARE and cmod == 0:
            diff, presub = self.difference(cnode, cswz)
            one = Operand(None, [ONE])
            zero = Operand(None, [ZERO])
            mop = MOp("MAD", None, (0,), [diff, one, zero], unit="any")
            mop.presub = presub
            mop.alu_result = _RESULT_OP[cnode.op]
        else:
            c = self.resolve(ref)
            mop = MOp("MAX", None, (0,), [c, c, None], unit="any")
            mop.alu_result = "ne"
        mop.nowrite = True
        return mop

    # --- dot products, special functions, derivatives, textures ------------------------------

    def _n_dot(self, node):
        (a, b), presub = self.args_with_presub(node)
        n = len(a.sel)
        if n == 4:
            reg = self.result(node, 1, [3])
            mop = MOp("DP4", reg, (0,), [a, b, None], unit="both")
        else:
            if presub is not None:              # the pre-subtract lanes stay 0 .. n-1
                presub = (presub[0],) + tuple(p and Operand(p.base, list(p.sel) + [p.sel[0]]
                                                            * (3 - n), p.mod)
                                              for p in presub[1:])
            a, b = (Operand(o.base, list(o.sel) + [ZERO] * (3 - n), o.mod) for o in (a, b))
            reg = self.result(node, 1, [None])
            mop = MOp("DP3", reg, (0,), [a, b, None], unit="rgb")
        mop.presub = presub
        self.mops_of[node] = [self.emit(mop)]

    def _special(self, node):
        (a,), presub = self.args_with_presub(node)
        reg = self.result(node, 1, [3])
        mop = MOp(_SPECIAL[node.op], reg, (0,), [a, None, None], unit="alpha")
        mop.presub = presub
        self.mops_of[node] = [self.emit(mop)]

    _n_rcp = _n_rsq = _n_ex2 = _n_lg2 = _n_sin = _n_cos = _special

    def _derivative(self, node):
        op = self.resolve(node.args[0])
        width = node.width
        reg = self.result(node, width, [3] if width == 1 else None)
        aligned = isinstance(op.base, VReg) and all(
            isinstance(s, int) and op.base.channels[s] == reg.channels[i]
            for i, s in enumerate(op.sel))
        if not aligned:
            src = VReg(width, reg.channels)
            self.mov(src, _ident(width), op)
            op = Operand(src, _ident(width))
        opcode = "MDH" if node.op == "ddx" else "MDV"
        neg = Operand(op.base, op.sel, compose_mod(1, op.mod))
        one = Operand(None, [ONE] * width)
        return self.emit_vec(opcode, reg, _ident(width), [neg, one, op], node=node)

    _n_ddx = _n_ddy = _derivative

    def _n_tex(self, node):
        sampler, kind = node.attr
        reg_src, sel = self.as_temp(node.args[0])
        lanes = [sel[0], sel[1], sel[0], sel[-1]] if kind == "proj" else \
            [sel[0], sel[1], sel[0], sel[1]]
        reg = self.result(node, 3)
        mop = MOp("TEX", reg, (0, 1, 2), [Operand(reg_src, lanes)], unit="tex", kind="tex")
        mop.tex = (sampler, {"ld": "LD", "bias": "LODBIAS", "proj": "PROJ"}[kind])
        self.mops_of[node] = [self.emit(mop)]
