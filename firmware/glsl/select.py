"""Instruction selection: IR nodes to R500 operations on virtual registers.

Nodes are computed on demand, when a side effect (an output, a kill, a break, a loop's
copies) or another node needs them, into the block of the region they belong to (so a value
made before a loop and first needed inside it is computed before the loop). On the way
operations fold into their users: neg/abs into operand modifiers, a multiply into the add that
is its only user (MAD), a multiply by 2, 4, 8, 1/2, 1/4, 1/8 into its operand's OMOD, a clamp to
[0, 1] into its operand's clamp, a comparison into the select or branch that uses it (a CMP on
the operands' difference, made by the pre-subtract unit where it can)."""

from collections import Counter

from firmware.glsl import ir
from firmware.glsl.constants import ConstantPool
from firmware.glsl.errors import GlslError
from firmware.glsl.fold import bits as fbits
from firmware.glsl.machine import Block, FcItem, MOp, Operand, VReg
from firmware.glsl.operands import OperandResolver
from firmware.glsl.select_ops import OpSelection

__all__ = ["select", "Selection", "LOOP_STACK"]

#: the flow-control engine's loop stack (r500-us.md §2, the full R500 of §4.3)
LOOP_STACK = 8


class Selection:
    """What selection produced: ``items`` (Blocks and FcItems in program order), the
    constant pool, the input registers, the loops."""

    def __init__(self, items, pool, inputs, loops):
        self.items, self.pool, self.inputs, self.loops = items, pool, inputs, loops


def _walk_regions(region, fn):
    for item in region.items:
        fn(region, item)
        if isinstance(item, ir.Loop):
            _walk_regions(item.body, fn)


class Selector(OpSelection, OperandResolver):
    def __init__(self, lowered, limits):
        self.lowered = lowered
        self.pool = ConstantPool(limits)
        self.items = []
        self.vregs = {}
        self.inputs = {}
        self.region_block = {}
        self.home = {}
        self.uses = Counter()
        self.mops_of = {}
        self.loops = []
        self.cur = None
        self.exit_copies = {}           # exit phi node -> [refs]
        self.open_loops = []            # the "left the loop" flag of each loop being walked
        self.loop_stack = 0             # loop-stack entries the open loops take

    @property
    def materialized(self):
        return self.vregs

    # --- liveness of IR nodes ----------------------------------------------------------------

    def _analyse(self):
        roots, breaks = [], []

        def visit(region, item):
            if isinstance(item, ir.Node):
                self.home[item] = region
            elif isinstance(item, ir.Output):
                roots.extend((c[0],) for c in item.comps.values())
            elif isinstance(item, ir.Kill):
                roots.append((item.ref[0],))
            elif isinstance(item, ir.Break):
                breaks.append(item)
                if item.cond is not None:
                    roots.append((item.cond[0],))
                for phi, ref in item.copies:
                    self.exit_copies.setdefault(phi, []).append(ref)
            elif isinstance(item, ir.Loop):
                for phi in item.header:
                    self.home[phi] = item.body
                for phi in item.exits:
                    self.home[phi] = region
        _walk_regions(self.lowered.region, visit)
        live, work = set(), [r[0] for r in roots]
        for node in work:
            self.uses[node] += 1
        while work:
            node = work.pop()
            if node in live:
                continue
            live.add(node)
            refs = list(node.args) if node.op != "phi" else \
                [a for a in node.args if a is not None] + self.exit_copies.get(node, [])
            for n, _ in refs:
                self.uses[n] += 1
                if n not in live:
                    work.append(n)
        self.live = live
        # a uniform read in part (a matrix column, say) is placed whole: the interface lists
        # every component of what the program reads
        leaves = []
        _walk_regions(self.lowered.region, lambda r, it: leaves.append((it.attr, it in live))
                      if isinstance(it, ir.Node) and it.op == "uniform" else None)
        read = {leaf.key for leaf, is_live in leaves if is_live}
        self.pool.place_uniforms([leaf for leaf, _ in leaves if leaf.key in read])

    # --- blocks --------------------------------------------------------------------------------

    def new_block(self, region):
        block = Block()
        self.items.append(block)
        self.region_block[region] = block
        self.cur = block
        return block

    def emit(self, mop):
        mop.pos = mop.pos or self.pos
        self.cur.mops.append(mop)
        return mop

    def input_vreg(self, temp):
        if temp not in self.inputs:
            self.inputs[temp] = VReg(4, [0, 1, 2, 3], pinned=temp, name=f"t{temp}")
        return self.inputs[temp]

    def vreg(self, node):
        """The register of a computed node, computing it (in its region's block) if needed."""
        if node in self.vregs:
            return self.vregs[node]
        saved, saved_pos = self.cur, self.pos
        self.cur = self.region_block[self.home[node]]
        self.pos = node.pos
        getattr(self, "_n_" + node.op)(node)
        self.cur, self.pos = saved, saved_pos
        return self.vregs[node]

    # --- regions and side effects --------------------------------------------------------------

    def run(self):
        self._analyse()
        self.pos = None
        self.walk(self.lowered.region)
        return Selection(self.items, self.pool, self.inputs, self.loops)

    def walk(self, region):
        self.new_block(region)
        for item in region.items:
            self.pos = getattr(item, "pos", None)
            if isinstance(item, ir.Kill):
                self.kill(item)
            elif isinstance(item, ir.Output):
                self.output(item)
            elif isinstance(item, ir.Break):
                self.brk(item, region)
            elif isinstance(item, ir.Loop):
                self.loop(item, region)

    def kill(self, item):
        reg, sel = self.as_temp(item.ref)
        lanes = [sel[i % len(sel)] for i in range(4)]
        mop = MOp("TEXKILL", None, (), [Operand(reg, lanes)], unit="tex", kind="kill")
        self.emit(mop)

    def output(self, item):
        channels = sorted(item.comps)
        groups = self.group_lanes([(c[0], (c[1],)) for c in
                                   (item.comps[ch] for ch in channels)])
        for lanes, operand in groups:
            comps = [channels[i] for i in lanes]
            for mop in self.mov(None, comps, operand, sides_from=comps):
                mop.out = item.target
                mop.nowrite = True

    def brk(self, item, region):
        """A BREAK: the exit phis' copies, then the condition: into the loop's done flag
        (which sets alu_result too), or alu_result alone."""
        self.copies(item.copies)
        done = self.open_loops[-1]
        fc = FcItem("BREAK", None, item.pos)
        if done is not None:
            self.flag(self.vregs[done], item.cond)
            fc.conditional = item.cond is not None
        elif item.cond is not None:
            self.emit(self.condition(item.cond))
            fc.conditional = True
        self.items.append(fc)
        self.new_block(region)

    def copies(self, pairs):
        """Parallel copies into phi registers. A value only the copy reads is computed into
        the phi's register in place of the copy (its operation moves to the copy's place);
        a source that another copy overwrites is saved first."""
        targets = {self.vregs[phi] for phi, _ in pairs if phi in self.live}
        plan = []
        for phi, ref in pairs:
            if phi not in self.live or ref is None or ref[0].op == "undef":
                continue
            dst = self.vregs[phi]
            op = self.resolve(ref)
            if op.base is dst and op.mod == 0 and list(op.sel) == list(range(dst.width)):
                continue
            plan.append((dst, op, ref[0]))
        # which values are computed in place (in an order where none reads a phi another
        # has already written), then the sources of the other copies that some copy writes
        # are saved before anything is written, then the sunk operations, then the moves
        sinks, written, pending = [], set(), list(plan)
        progress = True
        while progress:
            progress = False
            for item in sorted(pending, key=lambda it: sum(
                    self._reads(other[2], it[0]) for other in pending if other is not it)):
                if self._can_sink(*item, written):
                    pending.remove(item)
                    sinks.append(item)
                    written.add(item[0])
                    progress = True
                    break
        moves = []
        for dst, op, node in pending:
            if op.base in targets and any(d is op.base for d, _, _ in plan if d is not dst):
                tmp = VReg(dst.width, dst.channels)
                self.mov(tmp, range(dst.width), op)
                op = Operand(tmp, range(dst.width))
            moves.append((dst, op))
        for dst, op, node in sinks:
            self._sink(dst, node)
        for dst, op in moves:
            for mop in self.mov(dst, range(dst.width), op):
                mop.note = "copy"

    def _reads(self, node, reg):
        return any(v is reg for m in self.mops_of.get(node, []) for v, _ in m.reads())

    def _can_sink(self, dst, op, node, written):
        """Can ``node`` (whose value only this copy reads) be computed into ``dst`` at the
        copy's place?"""
        src = op.base
        if not isinstance(src, VReg) or src.pinned is not None or op.mod or \
                list(op.sel) != list(range(dst.width)) or src.width != dst.width or \
                self.uses[node] != 1 or self.vregs.get(node) is not src:
            return False
        mops = self.mops_of.get(node, [])
        if not mops or any(m not in self.cur.mops or m.kind != "alu" or m.out is not None
                           or m.alu_result or m.dst is not src for m in mops):
            return False
        for m in mops:
            if any(v in written for v, _ in m.reads()):
                return False
            for c in m.comps:
                want, have = dst.channels[c], src.channels[c]
                if have is not None and have != want:
                    return False
                if have is None and not (want == 3 and m.unit in ("any", "alpha") or
                                         want != 3 and m.unit in ("any", "rgb")):
                    return False
        return True

    def _sink(self, dst, node):
        for m in self.mops_of[node]:
            self.cur.mops.remove(m)
            if m.unit == "any":
                m.unit = "alpha" if dst.channels[m.comps[0]] == 3 else "rgb"
            m.dst = dst
            self.cur.mops.append(m)

    def loop(self, loop, region):
        """A loop of up to 255 x 255 iterations: an outer LOOP around the inner LOOP the
        body runs in; every BREAK first sets the loop's "done" flag to its condition, and the
        outer loop ends where it is set (the inner one ends after 255 iterations). Where the
        engine's loop stack (8 entries) has no room for two, one LOOP (255 iterations)."""
        self.loops.append(loop)
        for phi in loop.header + loop.exits:
            if phi in self.live or phi in loop.header:
                self.vregs[phi] = VReg(phi.width, [3] if phi.width == 1 else None,
                                       name="phi")
        levels = 2 if self.loop_stack + 2 <= LOOP_STACK - self._inner_loops(loop.body) else 1
        if self.loop_stack + levels > LOOP_STACK:
            raise GlslError(f"loops on the flow-control engine nest more than {LOOP_STACK} "
                            f"deep (a loop whose trip count is not known when compiling "
                            f"runs there)", loop.pos)
        done = ir.Node("phi", (), ir.Phi("done", loop), 1)
        self.vregs[done] = VReg(1, [3], name="done")
        self.live.add(done)
        init = [(phi, phi.args[0]) for phi in loop.header]
        # every iteration's BREAKs set the done flag before the end of the body reads it;
        # a loop without one needs it cleared
        breaks = any(isinstance(it, ir.Break) for it in loop.body.items)
        self.copies(init + ([(done, self.const_ref(0.0))] if levels == 2 and not breaks
                            else []))
        for _ in range(levels):
            self.items.append(FcItem("LOOP", loop, loop.pos))
        self.loop_stack += levels
        self.open_loops.append(done if levels == 2 else None)
        self.walk(loop.body)
        self.copies([(phi, phi.args[1]) for phi in loop.header if phi.args[1] is not None])
        self.open_loops.pop()
        self.loop_stack -= levels
        self.items.append(FcItem("ENDLOOP", loop, loop.pos))
        self.new_block(region)
        if levels == 2:
            self.emit(self.condition((done, (0,))))
            fc = FcItem("BREAK", None, loop.pos)
            fc.conditional = True
            self.items.append(fc)
            self.items.append(FcItem("ENDLOOP", loop, loop.pos))
            self.new_block(region)

    @staticmethod
    def _inner_loops(region):
        """Loop-stack entries the loops inside a region need at least (one per level)."""
        deepest = 0
        for item in region.items:
            if isinstance(item, ir.Loop):
                deepest = max(deepest, 1 + Selector._inner_loops(item.body))
        return deepest

    def const_ref(self, value):
        node = ir.Node("const", (), (fbits(value),), 1)
        return node, (0,)


def select(lowered, limits):
    return Selector(lowered, limits).run()
