"""An interpreter of the GLSL compiler's IR (firmware/glsl/ir.py), one lane at a time: what
the lowering means, to hold the selected and allocated machine code to it (and to find which
half of the compiler a wrong result comes from)."""

import math

from firmware.glsl import fold as F
from firmware.glsl import ir

__all__ = ["run_ir"]


class _Killed(Exception):
    pass


class _Lane:
    def __init__(self, uniforms, temps):
        self.uniforms, self.temps = uniforms, temps
        self.values = {}
        self.outputs = {}

    def ref(self, ref):
        node, swz = ref
        return [self.value(node)[i] for i in swz]

    def value(self, node):
        v = self.values.get(node)
        if v is None:
            v = self.values[node] = self.compute(node)
        return v

    def compute(self, node):
        op = node.op
        if op == "const":
            return node.values
        if op == "undef":
            return [0.0] * node.width
        if op == "uniform":
            leaf = node.attr
            return [float(x) for x in
                    self.uniforms[leaf.key][leaf.offset:leaf.offset + leaf.size]]
        if op == "input":
            return [F.f32(x) for x in self.temps.get(node.attr, [0.0] * 4)]
        if op == "combine":
            return [self.ref(r)[0] for r in node.args]
        if op == "phi":
            raise KeyError(f"phi {node} read before it was set")
        args = [self.ref(r) for r in node.args]
        if op in ("tex", "ddx", "ddy"):
            raise NotImplementedError(op)
        return F.fold(op, args)

    def region(self, region):
        for item in region.items:
            if isinstance(item, ir.Kill):
                if any(math.copysign(1.0, v) < 0 for v in self.ref(item.ref)):
                    raise _Killed
            elif isinstance(item, ir.Output):
                out = self.outputs.setdefault(item.target, [0.0] * 4)
                for ch, comp in item.comps.items():
                    out[ch] = self.ref((comp[0], (comp[1],)))[0]
            elif isinstance(item, ir.Loop):
                self.loop(item)
            elif isinstance(item, ir.Break):
                for phi, r in item.copies:
                    if r is not None and r[0].op != "undef":
                        self.values[phi] = self.ref(r)
                if item.cond is None or self.ref(item.cond)[0] != 0.0:
                    return "break"
        return None

    def loop(self, loop):
        for phi in loop.header:
            self.values[phi] = self.ref(phi.args[0]) if phi.args[0][0].op != "undef" \
                else [0.0] * phi.width
        inner = {n for n in _nodes(loop.body)}
        for _ in range(255 * 255):
            for node in inner:                  # a new iteration recomputes the body
                self.values.pop(node, None)
            if self.region(loop.body) == "break":
                return
            for phi in loop.header:
                if phi.args[1] is not None:
                    self.values[phi] = self.ref(phi.args[1])


def _nodes(region):
    for item in region.items:
        if isinstance(item, ir.Node):
            yield item
        elif isinstance(item, ir.Loop):
            yield from _nodes(item.body)


def run_ir(lowered, uniforms, temps):
    """Run the lowered program for one lane: {target: [r, g, b, a]}, or None if killed.
    ``uniforms``: interface name -> list of floats; ``temps``: temporary -> 4 floats."""
    lane = _Lane(uniforms, temps)
    try:
        lane.region(lowered.region)
    except _Killed:
        return None
    return lane.outputs
