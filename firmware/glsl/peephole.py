"""Clean-ups on the selected operations, before scheduling: a copy to the render target of a
value no one else reads becomes the computing operation's own output write."""

from collections import Counter

from firmware.glsl.machine import Block, VReg

__all__ = ["fold_outputs"]


def _readers(items):
    count = Counter()
    for it in items:
        if isinstance(it, Block):
            for m in it.mops:
                for base in {o.base for o in m.operands()}:
                    if isinstance(base, VReg):
                        count[base] += 1
    return count


def _is_output_copy(m):
    return m.opcode == "MAX" and m.omod == 7 and m.out is not None and m.nowrite and \
        isinstance(m.srcs[0].base, VReg) and m.srcs[0].mod == 0 and \
        all(isinstance(s, int) for s in m.srcs[0].sel)


def fold_outputs(items):
    """Let the producers of output copies write the render target themselves."""
    readers = _readers(items)
    for it in items:
        if not isinstance(it, Block):
            continue
        copies = {}
        for m in it.mops:
            if _is_output_copy(m):
                copies.setdefault(m.srcs[0].base, []).append(m)
        for src, group in copies.items():
            if readers[src] != len(group) or src.pinned is not None or \
                    len({m.out for m in group}) != 1:
                continue
            writers = [m for m in it.mops if m.dst is src and not m.nowrite]
            if not writers or any(w.out is not None or w.kind != "alu" or
                                  w.alu_result for w in writers):
                continue
            # channel c of the target takes component sel[i]: the producer's result must sit
            # in channel c
            want = {}
            for copy in group:
                for s_, c in zip(copy.srcs[0].sel, copy.comps):
                    if want.setdefault(s_, copy.dst.channels[c]) != copy.dst.channels[c]:
                        want = None
                        break
                if want is None:
                    break
            written = {c for w in writers for c in w.comps}
            if want is None or set(want) != written or \
                    any(not _can_place(w, want) for w in writers):
                continue
            for w in writers:
                _place(w, src, want)
                w.out = group[0].out
                w.nowrite = True
            for copy in group:
                it.mops.remove(copy)
            readers[src] = 0


def _can_place(w, want):
    for c in w.comps:
        ch = want[c]
        fixed = w.dst.channels[c]
        if fixed is not None and fixed != ch:
            return False
        if fixed is None and (ch == 3 or w.unit not in ("any", "rgb")):
            if not (ch == 3 and w.unit in ("any", "alpha")):
                return False
    return True


def _place(w, src, want):
    for c in w.comps:
        if src.channels[c] is None:
            src.channels[c] = want[c]
            if w.unit == "any":
                w.unit = "alpha" if want[c] == 3 else "rgb"
