"""Scheduling: each block's operations into instructions of one RGB and one alpha operation
(or one TEX), list scheduling by critical path. An operation waits for the instructions that
write what it reads; one that overwrites a register may share the instruction that last reads
it (every source is read before any write). A scalar that either unit can run goes where it
lets another operation pair with it; the pair must fit the three source slots."""

from firmware.glsl.machine import Instr
from firmware.glsl.slots import assign, requirements

__all__ = ["schedule_block"]


def _dependencies(mops):
    """For each op: (strict predecessors, same-instruction-allowed predecessors)."""
    last_write, readers = {}, {}
    strict = [set() for _ in mops]
    loose = [set() for _ in mops]
    for i, m in enumerate(mops):
        for v, c in m.reads():
            w = last_write.get((v, c))
            if w is not None:
                strict[i].add(w)
        for v, c in m.writes():
            w = last_write.get((v, c))
            if w is not None:
                strict[i].add(w)
            for r in readers.get((v, c), ()):
                if r != i:
                    loose[i].add(r)
        for v, c in m.reads():
            readers.setdefault((v, c), []).append(i)
        for v, c in m.writes():
            last_write[(v, c)] = i
            readers[(v, c)] = []
    loose = [l - s for l, s in zip(loose, strict)]
    return strict, loose


def _heights(mops, strict):
    height = [1] * len(mops)
    for i in range(len(mops) - 1, -1, -1):
        for p in strict[i]:
            height[p] = max(height[p], height[i] + 1)
    return height


def _units(mop, taken):
    """The units ``mop`` could take given the taken ones."""
    if mop.unit == "both":
        return ["both"] if not taken else []
    if mop.unit == "any":
        return [u for u in ("alpha", "rgb") if u not in taken]
    return [mop.unit] if mop.unit not in taken else []


def _fits(placed):
    needs, _ = requirements(placed)
    return needs is not None and assign(needs) is not None


def schedule_block(mops):
    """Schedule one block's MOps; returns Instrs (and sets each 'any' op's unit)."""
    n = len(mops)
    strict, loose = _dependencies(mops)
    height = _heights(mops, strict)
    done = [None] * n                   # instruction index of each op
    instrs = []
    remaining = set(range(n))
    while remaining:
        cur = len(instrs)

        def ready(i, placed_now):
            return all(done[p] is not None and done[p] < cur for p in strict[i]) and \
                all(done[p] is not None or p in placed_now for p in loose[i])
        cands = sorted((i for i in remaining if ready(i, ())),
                       key=lambda i: (-height[i], i))
        if not cands:
            cands = sorted(remaining, key=lambda i: (-height[i], i))[:1]
        first = cands[0]
        instr = Instr()
        if mops[first].kind in ("tex", "kill"):
            instr.tex = mops[first]
            done[first] = cur
            remaining.discard(first)
            instrs.append(instr)
            continue
        best = None
        for unit in _units(mops[first], set()):
            placed = [(mops[first], unit)]
            taken = {"rgb", "alpha"} if unit == "both" else {unit}
            partner = None
            for j in sorted((j for j in remaining if j != first and ready(j, {first})),
                            key=lambda j: (-height[j], j)):
                if mops[j].kind in ("tex", "kill"):
                    continue
                for u in _units(mops[j], taken):
                    if _fits(placed + [(mops[j], u)]):
                        partner = (j, u)
                        break
                if partner:
                    break
            if best is None or (partner and not best[1]):
                best = (unit, partner)
            if partner:
                break
        unit, partner = best
        chosen = [(first, unit)] + ([partner] if partner else [])
        for i, u in chosen:
            m = mops[i]
            if m.unit == "any":
                m.unit = u
                if m.dst is not None and not m.nowrite and m.dst.width == 1:
                    m.dst.channels[0] = 3 if u == "alpha" else None
            if u in ("rgb", "both"):
                instr.rgb = m
            if u in ("alpha", "both"):
                instr.alpha = m
            done[i] = cur
            remaining.discard(i)
        instrs.append(instr)
    return instrs
