"""The intermediate representation: hash-consed vector operations in structured regions.

A value of the shader is a tuple of *components*, each ``(node, index)``: so a swizzle, a write
to one channel or a constructor only rearranges components, and vector operations are made when
something computes. A ``Node`` is one operation on ``Ref``s ``(node, swizzle)``; identical
operations on identical operands are one node (common subexpressions are shared by
construction), operations on constants fold (``fold.py``), and some algebra simplifies
(``x * 1``, ``x + 0``, ``-(-x)``, a select between equal values...).

Node operations (width w unless said; all per component):

=========================  =====================================================================
const                      ``attr`` the binary32 patterns
uniform                    a uniform leaf (``attr``: its ``UniformLeaf``), w components
input                      temporary ``attr`` (4 components)
add mul min max            a + b, a * b, min, max
mad                        a * b + c (two roundings, as the R500's MAD)
neg abs frc sat            -a, |a|, a - floor(a), clamp to [0, 1]
cmp                        c >= 0 ? a : b
select                     c != 0 ? a : b  (c a bool: 1.0 or 0.0)
slt sge seq sne            a < b, a >= b, a == b, a != b as 1.0 / 0.0
dot                        a . b over the operands' width; w = 1
rcp rsq ex2 lg2 sin cos    the R500's special functions (sin, cos of turns); w = 1
ddx ddy                    the quad's derivatives (MDH, MDV)
combine                    one-component operands gathered into a vector
tex                        ``attr`` (sampler, kind); operand the coordinates; w = 3 (.rgb: the
                           R500's texels have alpha 1.0, which the builder supplies)
phi                        a value of a real loop (``attr`` a ``Phi``), operands set later
=========================  =====================================================================

Regions hold, in order, the nodes created in them and the side effects: ``Kill``, ``Output``,
``Loop`` (a loop on the flow-control engine) and ``Break``.
"""

from firmware.glsl import fold as F

__all__ = ["Node", "Region", "Kill", "Output", "Loop", "Break", "Phi", "IRBuilder",
           "is_const", "const_value", "COMMUTATIVE", "SPECIAL"]

COMMUTATIVE = frozenset({"add", "mul", "min", "max", "seq", "sne"})
SPECIAL = frozenset({"rcp", "rsq", "ex2", "lg2", "sin", "cos"})
_SCALAR_OUT = SPECIAL | {"dot"}
_NEGATED = {"slt": "sge", "sge": "slt", "seq": "sne", "sne": "seq"}
_SWIZZLE_BITS = {F.bits(0.0), F.bits(0.5), F.bits(1.0)}


class Node:
    __slots__ = ("op", "args", "attr", "width", "id", "pos")
    _count = 0

    def __init__(self, op, args, attr, width, pos=None):
        Node._count += 1
        self.op, self.args, self.attr, self.width, self.id = op, args, attr, width, Node._count
        self.pos = pos

    def __repr__(self):
        if self.op == "const":
            return f"%{self.id}=const{tuple(F.from_bits(b) for b in self.attr)}"
        args = ", ".join(f"%{n.id}.{''.join('xyzw'[i] for i in s)}" for n, s in self.args)
        return f"%{self.id}={self.op}{self.width}({args})"

    @property
    def values(self):
        """A const node's values as floats."""
        return [F.from_bits(b) for b in self.attr]


class Phi:
    """A real loop's value: ``kind`` "header" (operands: the value before the loop, the value
    at the end of the body) or "exit" (operands: the value at each break)."""

    def __init__(self, kind, loop=None):
        self.kind, self.loop = kind, loop


class Region:
    def __init__(self):
        self.items = []


class Kill:
    """Kill the lanes where any component of ``ref`` is negative (its sign bit set)."""

    def __init__(self, ref, pos=None):
        self.ref, self.pos = ref, pos


class Output:
    """Write components to render target ``target``: ``comps`` is {channel: component}."""

    def __init__(self, target, comps, pos=None):
        self.target, self.comps, self.pos = target, comps, pos


class Loop:
    """A loop on the flow-control engine: ``count`` iterations at most (an integer constant's
    KR), leaving by ``Break``s; ``header`` and ``exits`` are its phi nodes."""

    def __init__(self, count, pos=None):
        self.count, self.pos = count, pos
        self.body = Region()
        self.header = []
        self.exits = []


class Break:
    """Leave the innermost loop where ``cond`` (a one-component ref, a bool) is true (always if
    None), after writing ``copies`` [(exit phi node, component)]."""

    def __init__(self, cond, copies, pos=None):
        self.cond, self.copies, self.pos = cond, copies, pos


def is_const(comp):
    return comp[0].op == "const"


def const_value(comp):
    node, i = comp
    return F.from_bits(node.attr[i])


def _identity(n):
    return tuple(range(n))


class IRBuilder:
    """Makes nodes: hash-consed within the open scopes, folded, simplified, recorded in the
    current region."""

    def __init__(self):
        self.tables = [{}]
        self.regions = [Region()]       # the open regions, one per scope (loops nest)
        self.depth = {}                 # node -> the scope it lives in
        self.pos = None                 # the source position new nodes are tagged with
        self.log = []                   # (table, key) of every node made, for rollback
        self.count = 0                  # nodes made

    @property
    def region(self):
        return self.regions[-1]

    def checkpoint(self):
        return [len(r.items) for r in self.regions], len(self.log), self.count

    def rollback(self, checkpoint):
        """Forget everything made since ``checkpoint`` (in the same scopes)."""
        items, logged, count = checkpoint
        for region, n in zip(self.regions, items):
            del region.items[n:]
        for table, key in self.log[logged:]:
            table.pop(key, None)
        del self.log[logged:]
        self.count = count

    # --- scopes and regions ------------------------------------------------------------------

    def push_scope(self, region):
        """Enter a loop's body: new nodes go to ``region``, except those whose operands all
        come from outside it (loop invariants), which stay outside."""
        self.tables.append({})
        self.regions.append(region)

    def pop_scope(self):
        self.tables.pop()
        self.regions.pop()

    def emit(self, item):
        self.region.items.append(item)

    def place_phi(self, node, inside):
        """A phi node lives in the current scope (``inside``: the loop's body, one deeper)."""
        self.depth[node] = len(self.tables) - (0 if inside else 1)     # before push_scope

    def new_node(self, op, args, attr, width):
        key = (op, args, attr)
        for table in self.tables:
            node = table.get(key)
            if node is not None:
                return node
        node = Node(op, args, attr, width, self.pos)
        # (a loop's phis, read after it, are values of the enclosing scope there)
        depth = min(max((self.depth.get(n, 0) for n, _ in args), default=0),
                    len(self.tables) - 1)
        self.depth[node] = depth
        self.tables[depth][key] = node
        self.log.append((self.tables[depth], key))
        self.regions[depth].items.append(node)
        self.count += 1
        return node

    # --- values ------------------------------------------------------------------------------

    def const(self, values):
        """A vector of constants (Python floats, rounded to binary32)."""
        attr = tuple(F.bits(F.f32(float(v))) for v in values)
        node = self.new_node("const", (), attr, len(attr))
        return tuple((node, i) for i in range(len(attr)))

    def scalar_const(self, value, n=1):
        return self.const([value] * n)

    def ref(self, vec):
        """A Ref (node, swizzle) reading the components ``vec``: one node read with a swizzle,
        or a new combine (or constant) node."""
        if all(is_const(c) for c in vec):
            vec = self.const([const_value(c) for c in vec])
        node = vec[0][0]
        if all(c[0] is node for c in vec):
            return node, tuple(c[1] for c in vec)
        args = tuple((c[0], (c[1],)) for c in vec)
        node = self.new_node("combine", args, None, len(vec))
        return node, _identity(len(vec))

    def leaf(self, op, attr, width):
        node = self.new_node(op, (), attr, width)
        return tuple((node, i) for i in range(width))

    def op(self, op, *vecs, attr=None, width=None):
        """Apply a node operation to component vectors; returns the result's components."""
        if width is None:
            width = 1 if op in _SCALAR_OUT else len(vecs[-1])
        if (op in F.OPS or op == "dot") and all(is_const(c) for v in vecs for c in v):
            return self.const(F.fold(op, [[const_value(c) for c in v] for v in vecs]))
        simpler = self._simplify(op, vecs)
        if simpler is not None:
            return simpler
        if op in F.OPS and width > 1 and all(len(v) == width for v in vecs):
            split = self._constant_lanes(op, vecs, attr, width)
            if split is not None:
                return split
        if op in COMMUTATIVE and self._order(vecs[1]) < self._order(vecs[0]):
            vecs = (vecs[1], vecs[0])
        args = tuple(self.ref(v) for v in vecs)
        node = self.new_node(op, args, attr, width)
        return tuple((node, i) for i in range(width))

    def _constant_lanes(self, op, vecs, attr, width):
        """Lanes whose operands are all constant fold on their own when their results are
        swizzle constants (0, 1/2, 1: free to read); the rest is a narrower operation."""
        fixed = {}
        for i in range(width):
            if all(is_const(v[i]) for v in vecs):
                value = F.fold(op, [[const_value(v[i])] for v in vecs])[0]
                if F.bits(F.f32(value)) in _SWIZZLE_BITS:
                    fixed[i] = value
        if not fixed or len(fixed) == width:
            return None
        rest = [i for i in range(width) if i not in fixed]
        part = iter(self.op(op, *(tuple(v[i] for i in rest) for v in vecs), attr=attr))
        return tuple(self.const([fixed[i]])[0] if i in fixed else next(part)
                     for i in range(width))

    def _select_defined(self, op, c, x, y):
        """A select where a side is undefined takes the other side there."""
        out, rest = [], []
        for i, (xi, yi) in enumerate(zip(x, y)):
            if yi[0].op == "undef":
                out.append(xi)
            elif xi[0].op == "undef":
                out.append(yi)
            else:
                out.append(None)
                rest.append(i)
        if rest:
            picked = self.op(op, *(tuple(v[i] for i in rest) for v in (c, x, y)))
            for i, comp in zip(rest, picked):
                out[i] = comp
        return tuple(out)

    @staticmethod
    def _order(vec):
        return tuple((c[0].id, c[1]) for c in vec)

    def _all_const(self, vec, value):
        return all(is_const(c) and const_value(c) == value and
                   F.bits(const_value(c)) == F.bits(float(value)) for c in vec)

    def _simplify(self, op, vecs):
        a = vecs[0]
        if op == "add":                 # x + 0 and 0 + x are x (zeros of either sign)
            if all(is_const(c) and const_value(c) == 0.0 for c in vecs[1]):
                return a
            if all(is_const(c) and const_value(c) == 0.0 for c in a):
                return vecs[1]
        elif op == "mul":
            for x, y in ((a, vecs[1]), (vecs[1], a)):
                if self._all_const(y, 1.0):
                    return x
                if self._all_const(y, -1.0):
                    return self.op("neg", x)
                if all(is_const(c) and const_value(c) == 0.0 for c in y):
                    return self.const([0.0] * len(x))
        elif op == "mad":
            if self._all_const(vecs[1], 1.0):
                return self.op("add", a, vecs[2])
            if self._all_const(a, 1.0):
                return self.op("add", vecs[1], vecs[2])
            if all(is_const(c) and const_value(c) == 0.0 for c in a + vecs[1]):
                return vecs[2]
            if self._all_const(vecs[2], 0.0):
                return self.op("mul", a, vecs[1])
        elif op in ("neg", "abs") and a[0][0].op in ("neg", "abs") and \
                all(c[0] is a[0][0] for c in a):
            src_node, src_swz = a[0][0].args[0]
            inner = tuple((src_node, src_swz[i]) for _, i in a)
            if op == "neg" and a[0][0].op == "neg":
                return inner
            if op == "abs":
                return self.op("abs", inner)
        elif op == "seq" and self._all_const(vecs[1], 0.0) and a[0][0].op in _NEGATED and \
                all(c[0] is a[0][0] for c in a):
            node = a[0][0]                  # !(x < y) is x >= y, and so on
            x, y = (tuple((n, s[i]) for _, i in a) for n, s in node.args)
            return self.op(_NEGATED[node.op], x, y)
        elif op in ("min", "max") and a == vecs[1]:
            return a
        elif op == "sat" and a[0][0].op == "sat" and all(c[0] is a[0][0] for c in a):
            return a
        elif op in ("select", "cmp"):
            c, x, y = vecs
            if x == y:
                return x
            if any(k[0].op == "undef" for k in x + y):
                return self._select_defined(op, c, x, y)
            if all(is_const(k) for k in c):
                pick = []
                for k, xi, yi in zip(c, x, y):
                    v = const_value(k)
                    take = (v != 0.0) if op == "select" else (v >= 0.0)
                    pick.append(xi if take else yi)
                return tuple(pick)
        return None
