"""Expressions to IR values (``values.py``): operators, swizzles, indexing (a constant index
picks, a dynamic one becomes a chain of selects), constructors and conversions, assignments.
Built-in functions are ``lower_builtins``'s; what the statements around an expression do (the
variables' current values, user functions, conditional evaluation) is the subclass's.

``ConstantEvaluator`` runs the same code on constants only: the checker's constant
expressions."""

from firmware.glsl import ast
from firmware.glsl.ir import IRBuilder, const_value, is_const
from firmware.glsl.lower_builtins import BuiltinLowering
from firmware.glsl.types import BOOL, FLOAT, Array, Basic, Matrix, Struct
from firmware.glsl.values import flatten, map_leaves, unflatten, zero_of

__all__ = ["ExpressionLowering", "ConstantEvaluator", "NotConstant", "INT_DIV_BIAS"]

#: integer division: the quotient is computed as x * (1/y) * (1 + 2^-20) and truncated, so that
#: an exact quotient is never just below its integer (docs/glsl.md, "Integers")
INT_DIV_BIAS = 1.0 + 2.0 ** -20


class NotConstant(Exception):
    """Raised by the constant evaluator for anything that is not a constant expression."""


class ExpressionLowering(BuiltinLowering):
    """Subclasses provide ``read_var(symbol, pos)``, ``write_var(symbol, value)``,
    ``call_user(call)``, ``conditional(cond, then_fn, else_fn, type)`` and ``has_effects(e)``.
    """

    def __init__(self, builder):
        self.b = builder

    # --- small helpers -----------------------------------------------------------------------

    def const(self, values):
        return self.b.const(values)

    def scalar(self, v, n=1):
        return self.b.scalar_const(v, n)

    def op(self, name, *vecs):
        return self.b.op(name, *vecs)

    def broadcast(self, vec, n):
        return vec * n if len(vec) == 1 and n > 1 else vec

    def sub(self, a, b):
        return self.op("add", a, self.op("neg", b))

    def not_(self, a):
        return self.op("seq", a, self.scalar(0.0, len(a)))

    def trunc(self, v):
        """Round toward zero: sign(v) * floor(|v|), floor(|v|) = |v| - fract(|v|)."""
        a = self.op("abs", v)
        t = self.sub(a, self.op("frc", a))
        return self.op("cmp", v, t, self.op("neg", t))

    def to_base(self, comps, src, dst):
        """Convert components from base type ``src`` to ``dst`` (float, int, bool)."""
        if src == dst or (dst == "float" and src in ("int", "bool")) or \
                (dst == "int" and src == "bool"):
            return comps
        if dst == "int":
            return self.trunc(comps)
        return self.op("sne", comps, self.scalar(0.0, len(comps)))

    # --- entry -------------------------------------------------------------------------------

    def value(self, e):
        saved = self.b.pos
        self.b.pos = e.pos
        try:
            return getattr(self, "_" + type(e).__name__)(e)
        finally:
            self.b.pos = saved

    def _Literal(self, e):
        return self.const([float(e.value)])

    def _Ident(self, e):
        return self.read_var(e.symbol, e.pos)

    def _Comma(self, e):
        self.value(e.left)
        return self.value(e.right)

    def _Length(self, e):
        return self.const([float(e.base.type.size)])

    def _Field(self, e):
        base = self.value(e.base)
        if e.components is not None:
            return tuple(base[i] for i in e.components)
        index, _ = e.base.type.member(e.name)
        return base[index]

    def _Index(self, e):
        base = self.value(e.base)
        index = self.value(e.index)
        return self.pick(base, e.base.type, index)

    def pick(self, items, t, index):
        """``items[index]``: a constant index picks, another selects along a chain."""
        if isinstance(t, Basic):                # a vector's components are 1-vectors
            items = tuple((c,) for c in items)
        element = t.element if isinstance(t, Array) else t.column if isinstance(t, Matrix) \
            else Basic(t.base)
        if is_const(index[0]):
            k = int(const_value(index[0]))
            if not 0 <= k < len(items):         # undefined in GLSL: reads 0 here
                return zero_of(element, self.const)
            return items[k]
        result = items[-1]
        for k in range(len(items) - 2, -1, -1):
            hit = self.op("seq", index, self.const([float(k)]))
            result = self.select(hit, items[k], result, element)
        return result

    def select(self, cond, a, b, t):
        """cond (one component, a bool) ? a : b, for a value of any type."""
        return map_leaves(lambda bt, x, y: self.op("select", cond * len(x), x, y), t, a, b)

    # --- operators ---------------------------------------------------------------------------

    def _Unary(self, e):
        if e.op in ("++", "--"):
            return self.increment(e.operand, e.op, prefix=True)
        v = self.value(e.operand)
        t = e.operand.type
        if e.op == "+":
            return v
        if e.op == "!":
            return self.not_(v)
        return map_leaves(lambda bt, x: self.op("neg", x), t, v)

    def _Postfix(self, e):
        return self.increment(e.operand, e.op, prefix=False)

    def increment(self, target, op, prefix):
        path = self.lvalue(target)
        old = self.load(path)
        one = 1.0 if op == "++" else -1.0
        new = map_leaves(lambda bt, x: self.op("add", x, self.scalar(one, len(x))),
                         target.type, old)
        self.store(path, new)
        return new if prefix else old

    def _Binary(self, e):
        op = e.op
        if op in ("&&", "||"):
            if self.has_effects(e.right):
                a = self.value(e.left)
                if op == "&&":
                    return self.conditional(a, lambda: self.value(e.right),
                                            lambda: self.const([0.0]), BOOL)
                return self.conditional(a, lambda: self.const([1.0]),
                                        lambda: self.value(e.right), BOOL)
            a, b = self.value(e.left), self.value(e.right)
            return self.op("mul", a, b) if op == "&&" else self.op("max", a, b)
        a, b = self.value(e.left), self.value(e.right)
        lt, rt = e.left.type, e.right.type
        if op == "^^":
            return self.op("sne", a, b)
        if op in ("==", "!="):
            return self.equal(a, b, lt, op == "!=")
        if op == "<":
            return self.op("slt", a, b)
        if op == ">":
            return self.op("slt", b, a)
        if op == "<=":
            return self.op("sge", b, a)
        if op == ">=":
            return self.op("sge", a, b)
        return self.arith(op, a, lt, b, rt, e.type)

    def equal(self, a, b, t, negate):
        """a == b (or !=) over every component: the count of differing components is 0."""
        x, y = flatten(a, t), flatten(b, t)
        if len(x) == 1:
            return self.op("sne" if negate else "seq", x, y)
        total = None
        for i in range(0, len(x), 4):
            differ = self.op("sne", x[i:i + 4], y[i:i + 4])
            count = differ if len(differ) == 1 else \
                self.op("dot", differ, self.scalar(1.0, len(differ)))
            total = count if total is None else self.op("add", total, count)
        return self.op("sne" if negate else "seq", total, self.const([0.0]))

    def arith(self, op, a, lt, b, rt, result):
        """a op b for numbers, vectors and matrices (linear algebra for matrix products)."""
        if isinstance(lt, Matrix) or isinstance(rt, Matrix):
            return self._matrix_arith(op, a, lt, b, rt, result)
        n = result.size
        x, y = self.broadcast(a, n), self.broadcast(b, n)
        if op == "+":
            return self.op("add", x, y)
        if op == "-":
            return self.sub(x, y)
        if op == "*":
            return self.op("mul", x, y)
        if result.base == "int":
            q = self.int_divide(x, y)
            return q if op == "/" else self.sub(x, self.op("mul", y, q))
        return self.op("mul", x, self.reciprocal(y))

    def reciprocal(self, y):
        return tuple(self.op("rcp", (c,))[0] for c in y)

    def int_divide(self, x, y):
        r = self.reciprocal(y)
        bias = self.scalar(INT_DIV_BIAS, len(x))
        if all(is_const(c) for c in y):
            q = self.op("mul", x, self.op("mul", r, bias))
        else:
            q = self.op("mul", self.op("mul", x, r), bias)
        return self.trunc(q)

    def _matrix_arith(self, op, a, lt, b, rt, result):
        if op == "*" and isinstance(lt, Matrix) and isinstance(rt, Matrix):
            return tuple(self.mat_vec(a, col) for col in b)
        if op == "*" and isinstance(lt, Matrix) and isinstance(rt, Basic) and rt.size > 1:
            return self.mat_vec(a, b)
        if op == "*" and isinstance(lt, Basic) and lt.size > 1:
            return tuple(self.op("dot", a, col)[0] for col in b)
        # componentwise, a scalar broadcast to every column
        cols_a = a if isinstance(lt, Matrix) else [a] * result.cols
        cols_b = b if isinstance(rt, Matrix) else [b] * result.cols
        return tuple(self.arith(op, x, result.column if len(x) > 1 else FLOAT,
                                y, result.column if len(y) > 1 else FLOAT, result.column)
                     for x, y in zip(cols_a, cols_b))

    def mat_vec(self, m, v):
        """m * v = the columns of m weighted by v's components, summed."""
        acc = None
        for col, comp in zip(m, v):
            w = (comp,) * len(col)
            acc = self.op("mul", col, w) if acc is None else self.op("mad", col, w, acc)
        return acc

    def _Ternary(self, e):
        cond = self.value(e.cond)
        if self.has_effects(e.then) or self.has_effects(e.else_):
            return self.conditional(cond, lambda: self.value(e.then),
                                    lambda: self.value(e.else_), e.type)
        a, b = self.value(e.then), self.value(e.else_)
        return self.select(cond, a, b, e.type)

    # --- assignment --------------------------------------------------------------------------

    def _Assign(self, e):
        path = self.lvalue(e.target)
        value = self.value(e.value)
        if e.op != "=":
            old = self.load(path)
            value = self.arith(e.op[0], old, e.target.type, value, e.value.type, e.type)
        self.store(path, value)
        return value

    def lvalue(self, e):
        """(root symbol, accessors): ("index", index components, container type),
        ("member", i) or ("swizzle", components)."""
        if isinstance(e, ast.Ident):
            return e.symbol, []
        if isinstance(e, ast.Index):
            sym, acc = self.lvalue(e.base)
            return sym, acc + [("index", self.value(e.index), e.base.type)]
        sym, acc = self.lvalue(e.base)
        if e.components is not None:
            return sym, acc + [("swizzle", e.components)]
        return sym, acc + [("member", e.base.type.member(e.name)[0])]

    def load(self, path):
        sym, acc = path
        v = self.read_var(sym, None)
        for a in acc:
            if a[0] == "index":
                v = self.pick(v, a[2], a[1])
            elif a[0] == "member":
                v = v[a[1]]
            else:
                v = tuple(v[i] for i in a[1])
        return v

    def store(self, path, new):
        sym, acc = path
        self.write_var(sym, self._update(self.read_var(sym, None), acc, new))

    def _update(self, v, acc, new):
        if not acc:
            return new
        a, rest = acc[0], acc[1:]
        if a[0] == "member":
            items = list(v)
            items[a[1]] = self._update(v[a[1]], rest, new)
            return tuple(items)
        if a[0] == "swizzle":
            items = list(v)
            if rest:                        # v.xy[i] = ...
                sub = self._update(tuple(v[i] for i in a[1]), rest, new)
            else:
                sub = new
            for i, c in zip(a[1], sub):
                items[i] = c
            return tuple(items)
        index, t = a[1], a[2]
        vector = isinstance(t, Basic)
        items = [(c,) for c in v] if vector else list(v)
        if is_const(index[0]):
            k = int(const_value(index[0]))
            if 0 <= k < len(items):             # a write out of bounds does nothing
                items[k] = self._update(items[k], rest, new)
        else:
            element = t.element if isinstance(t, Array) else \
                t.column if isinstance(t, Matrix) else Basic(t.base)
            for k in range(len(items)):
                hit = self.op("seq", index, self.const([float(k)]))
                items[k] = self.select(hit, self._update(items[k], rest, new), items[k],
                                       element)
        return tuple(c[0] for c in items) if vector else tuple(items)

    # --- calls and constructors --------------------------------------------------------------

    def _Call(self, e):
        if e.target == "constructor":
            return self.construct(e)
        if e.target == "builtin":
            args = [self.value(a) for a in e.args]
            return self.builtin(e.callee, args, [a.type for a in e.args], e.type, e.pos)
        return self.call_user(e)

    def construct(self, e):
        t = e.type
        args = [self.value(a) for a in e.args]
        if isinstance(t, (Array, Struct)):
            return tuple(args)
        types = [a.type for a in e.args]
        if isinstance(t, Matrix):
            if len(args) == 1 and isinstance(types[0], Matrix):
                return self._matrix_from_matrix(args[0], types[0], t)
            if len(args) == 1 and types[0].size == 1:
                s = self.to_base(args[0], types[0].base, "float")[0]
                zero = self.const([0.0])[0]
                return tuple(tuple(s if r == c else zero for r in range(t.rows))
                             for c in range(t.cols))
        comps = []
        for a, at in zip(args, types):
            comps.extend(self.to_base(flatten(a, at), at.base, t.base))
        if isinstance(t, Matrix):
            return unflatten(comps, t)
        if len(comps) == 1:
            return tuple(comps * t.size)
        return tuple(comps[:t.size])

    def _matrix_from_matrix(self, m, src, dst):
        zero, one = self.const([0.0])[0], self.const([1.0])[0]
        return tuple(tuple(m[c][r] if c < src.cols and r < src.rows else
                           (one if r == c else zero) for r in range(dst.rows))
                     for c in range(dst.cols))


class ConstantEvaluator(ExpressionLowering):
    """Constant expressions: the checker's ``const`` initialisers, array sizes and indices."""

    def __init__(self):
        super().__init__(IRBuilder())

    def make(self, t, python_value):
        comps = python_value if isinstance(python_value, list) else [python_value]
        return unflatten(self.const([float(v) for v in comps]), t)

    @staticmethod
    def number(value):
        """The Python number of a constant scalar value."""
        return const_value(value[0])

    def evaluate(self, e):
        """The value of the checked expression e if it is constant, else None."""
        try:
            v = self.value(e)
        except NotConstant:
            return None
        if not all(is_const(c) for c in flatten(v, e.type)):
            return None
        return v

    def read_var(self, sym, pos):
        if sym.storage == "const" and sym.value is not None:
            return sym.value
        raise NotConstant

    def write_var(self, sym, value):
        raise NotConstant

    def call_user(self, e):
        raise NotConstant

    def has_effects(self, e):
        return False

    def conditional(self, cond, then_fn, else_fn, t):
        raise NotConstant

    def texture(self, *args):
        raise NotConstant

    def derivative(self, *args):
        raise NotConstant
