"""Register allocation over the scheduled program: liveness per component on the control-flow
graph (loops' back edges and breaks included), interference per virtual register, then each
register given a temporary in order of definition, the first that has its channels free
(several small values packing one temporary), a copy's partner's temporary first so that the
copy disappears. Copies whose source and destination end up in the same place are removed."""

from firmware.glsl.errors import GlslError
from firmware.glsl.machine import Block, FcItem, VReg

__all__ = ["allocate"]


def _linear(items):
    """Segments of the program: (kind, payload) with kind 'block' (list of Instrs) or 'fc'."""
    return [("block", it) if isinstance(it, Block) else ("fc", it) for it in items]


def _edges(items):
    succ = [[] for _ in items]
    open_loops, ends = [], {}
    for i, it in enumerate(items):
        if isinstance(it, FcItem) and it.kind == "LOOP":
            open_loops.append(i)
        elif isinstance(it, FcItem) and it.kind == "ENDLOOP":
            ends[open_loops.pop()] = i
    starts = {e: s for s, e in ends.items()}
    loop_of_break = {}
    stack = []
    for i, it in enumerate(items):
        if isinstance(it, FcItem):
            if it.kind == "LOOP":
                stack.append(i)
            elif it.kind == "ENDLOOP":
                stack.pop()
            elif it.kind == "BREAK":
                loop_of_break[i] = stack[-1]
    for i, it in enumerate(items):
        if i + 1 < len(items):
            succ[i].append(i + 1)
        if isinstance(it, FcItem):
            if it.kind == "LOOP" and ends[i] + 1 < len(items):
                succ[i].append(ends[i] + 1)
            elif it.kind == "ENDLOOP":
                succ[i].append(starts[i] + 1)
            elif it.kind == "BREAK":
                end = ends[loop_of_break[i]]
                if end + 1 < len(items):
                    succ[i].append(end + 1)
    return succ


def _rw(instr):
    reads, writes = set(), set()
    for m in instr.mops():
        reads.update((v, c) for v, c in m.reads() if isinstance(v, VReg))
        writes.update(m.writes())
    return reads, writes


def _liveness(items):
    succ = _edges(items)
    use = [set() for _ in items]
    defs = [set() for _ in items]
    for i, it in enumerate(items):
        if isinstance(it, Block):
            for instr in it.instrs:
                r, w = _rw(instr)
                use[i] |= r - defs[i]
                defs[i] |= w
    live_in = [set() for _ in items]
    live_out = [set() for _ in items]
    changed = True
    while changed:
        changed = False
        for i in range(len(items) - 1, -1, -1):
            out = set()
            for s in succ[i]:
                out |= live_in[s]
            new_in = use[i] | (out - defs[i])
            if out != live_out[i] or new_in != live_in[i]:
                live_out[i], live_in[i] = out, new_in
                changed = True
    return live_in, live_out


def _interference(items, inputs):
    live_in, live_out = _liveness(items)
    neighbours = {}
    first_def = {}

    def link(a, b):
        if a is not b:
            neighbours.setdefault(a, set()).add(b)
            neighbours.setdefault(b, set()).add(a)
    position = 0
    start_live = {v for v, _ in live_in[0]} if items else set()
    for v in inputs:
        first_def[v] = -1
        for u in start_live:
            link(v, u)
    for i, it in enumerate(items):
        if not isinstance(it, Block):
            position += 1
            continue
        live = set(live_out[i])
        steps = []
        for instr in reversed(it.instrs):
            r, w = _rw(instr)
            steps.append((instr, r, w, {v for v, _ in live}))
            live = (live - w) | r
        for instr, r, w, after in reversed(steps):
            for v in {v for v, _ in w}:
                first_def.setdefault(v, position)
                for u in after:
                    link(v, u)
            position += 1
    for sets in (live_in, live_out):          # read but never written: undefined values
        for live in sets:
            for v, _ in live:
                first_def.setdefault(v, -1)
    return neighbours, first_def


def _copy_pairs(items):
    pairs = []
    for it in items:
        if isinstance(it, Block):
            for instr in it.instrs:
                for m in instr.mops():
                    if m.opcode == "MAX" and m.omod == 7 and m.dst is not None and \
                            not m.nowrite and isinstance(m.srcs[0].base, VReg) and \
                            m.srcs[0].mod == 0:
                        pairs.append((m.dst, m.srcs[0].base, m))
    return pairs


def _place(v, temp, taken, want_flex=None):
    """Channels for v in a temporary whose ``taken`` channels are used: v's channel list, or
    None if they do not fit."""
    fixed = [c for c in v.channels if c is not None]
    if any(c in taken for c in fixed):
        return None
    channels = list(v.channels)
    free = [c for c in (0, 1, 2) if c not in taken and c not in fixed]
    for i, c in enumerate(channels):
        if c is None:
            if not free:
                return None
            pick = want_flex if want_flex in free else free[0]
            channels[i] = pick
            free.remove(pick)
    return channels


def allocate(items, inputs, limits):
    """Give every VReg a temporary (``temp``) and channels; raises GlslError over the
    limit. Removes copies that became no-ops."""
    neighbours, first_def = _interference(items, inputs)
    partners = {}
    for d, s, _ in _copy_pairs(items):
        partners.setdefault(d, []).append(s)
        partners.setdefault(s, []).append(d)
    placed = {}                          # vreg -> (temp, channels)
    for v in inputs:
        if v.pinned >= limits.temporaries:
            raise GlslError(f"the shader reads input temporary {v.pinned}; the build has "
                            f"{limits.temporaries} temporaries", _use_pos(items, v))
        v.temp = v.pinned
        placed[v] = (v.pinned, list(v.channels))
    for v in sorted(first_def, key=lambda v: (first_def[v], v.id)):
        if v in placed:
            continue
        blocked = {}
        for u in neighbours.get(v, ()):
            if u in placed:
                t, chans = placed[u]
                blocked.setdefault(t, set()).update(chans)
        order = []
        for p in partners.get(v, ()):
            if p in placed and placed[p][0] not in order:
                order.append(placed[p][0])
        want = None
        for p in partners.get(v, ()):
            if p in placed and v.width == 1:
                want = placed[p][1][0]
        spot = None
        for t in order + [t for t in range(limits.temporaries) if t not in order]:
            channels = _place(v, t, blocked.get(t, set()), want)
            if channels is not None:
                spot = (t, channels)
                break
        if spot is None:
            raise GlslError(f"the shader needs more than {limits.temporaries} temporaries "
                            f"(the build's limit)", _def_pos(items, v))
        placed[v] = spot
        v.temp, v.channels = spot[0], spot[1]
    for v, (t, chans) in placed.items():
        v.temp, v.channels = t, chans
    _drop_noop_copies(items)


def _def_pos(items, v):
    for it in items:
        if isinstance(it, Block):
            for instr in it.instrs:
                for m in instr.mops():
                    if m.dst is v and m.pos is not None:
                        return m.pos
    return None


def _use_pos(items, v):
    for it in items:
        if isinstance(it, Block):
            for instr in it.instrs:
                for m in instr.mops():
                    if any(base is v for base, _ in m.reads()) and m.pos is not None:
                        return m.pos
    return None


def _noop(m):
    if not (m.opcode == "MAX" and m.omod == 7 and not m.clamp and m.out is None
            and m.alu_result is None and m.dst is not None and not m.nowrite):
        return False
    src = m.srcs[0]
    if not isinstance(src.base, VReg) or src.mod or src.base.temp != m.dst.temp:
        return False
    return all(isinstance(s, int) and src.base.channels[s] == m.dst.channels[c]
               for s, c in zip(src.sel, m.comps))


def _drop_noop_copies(items):
    for it in items:
        if not isinstance(it, Block):
            continue
        kept = []
        for instr in it.instrs:
            if instr.rgb is not None and _noop(instr.rgb):
                instr.rgb = None
            if instr.alpha is not None and _noop(instr.alpha):
                instr.alpha = None
            if instr.rgb or instr.alpha or instr.tex:
                kept.append(instr)
        it.instrs = kept
