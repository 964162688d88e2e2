"""Type checking of expressions (GLSL 1.20 chapter 5): operators, swizzles, indexing,
constructors, calls and their overloads, implicit int -> float conversions (1.20 only),
l-values. Sets ``type`` on every node; an implicit conversion becomes a constructor node."""

from firmware.glsl import ast
from firmware.glsl.builtins import BUILTIN_NAMES, UNSUPPORTED, VERTEX_ONLY, signatures
from firmware.glsl.errors import GlslError
from firmware.glsl.symbols import UNAVAILABLE_MESSAGE, Variable
from firmware.glsl.types import (BOOL, FLOAT, INT, Array, Basic, Matrix, Sampler, Struct,
                                 type_by_name)

__all__ = ["ExpressionChecker", "SWIZZLE_SETS"]

SWIZZLE_SETS = ("xyzw", "rgba", "stpq")
_ARITH = ("+", "-", "*", "/", "%")
_RESERVED_OPS = ("&", "|", "^", "<<", ">>", "~", "&=", "|=", "^=", "<<=", ">>=")


def _fail(msg, pos):
    raise GlslError(msg, pos)


class ExpressionChecker:
    """Mixed into the checker, which provides ``scope``, ``version``, ``const_value(expr)``,
    ``resolve_type(spec)``, ``current`` (the FunctionSymbol being checked) and
    ``array_size(expr)``."""

    # --- conversions -------------------------------------------------------------------------

    def convertible(self, src, dst):
        if src == dst:
            return True
        return (self.version >= 120 and isinstance(src, Basic) and isinstance(dst, Basic)
                and src.base == "int" and dst.base == "float" and src.size == dst.size)

    def coerce(self, e, dst, what):
        if e.type == dst:
            return e
        if not self.convertible(e.type, dst):
            hint = ""
            if self.version < 120 and isinstance(e.type, Basic) and \
                    isinstance(dst, Basic) and (e.type.base, dst.base) == ("int", "float") \
                    and e.type.size == dst.size:
                hint = " (GLSL 1.10 has no implicit int-to-float conversion)"
            _fail(f"{what}: cannot convert '{e.type}' to '{dst}'{hint}", e.pos)
        call = ast.Call(e.pos, callee=ast.TypeSpec(e.pos, name=str(dst)), args=[e])
        call.type, call.target = dst, "constructor"
        return call

    def _unify(self, a, b, what, pos):
        """Convert one of two operands so that their base types agree (int -> float)."""
        if isinstance(a.type, (Basic, Matrix)) and isinstance(b.type, (Basic, Matrix)):
            if a.type.base == "int" and b.type.base == "float" and self.version >= 120:
                a = self.coerce(a, Basic("float", a.type.size), what)
            elif b.type.base == "int" and a.type.base == "float" and self.version >= 120:
                b = self.coerce(b, Basic("float", b.type.size), what)
        return a, b

    # --- expressions -------------------------------------------------------------------------

    def expr(self, e):
        method = getattr(self, "_" + type(e).__name__)
        result = method(e)
        assert result.type is not None, e
        return result

    def rvalue(self, e):
        e = self.expr(e)
        if e.type.has_sampler and not isinstance(e.type, Sampler):
            pass
        return e

    def _Literal(self, e):
        e.type = {"bool": BOOL, "int": INT, "float": FLOAT}[e.kind]
        if e.kind == "int" and e.value >= 1 << 31:
            _fail(f"integer {e.value} is too large", e.pos)
        return e

    def _Ident(self, e):
        thing = self.scope.lookup(e.name)
        if thing is None:
            if e.name.startswith("gl_"):
                _fail(UNAVAILABLE_MESSAGE.format(name=e.name), e.pos)
            _fail(f"'{e.name}' is not declared", e.pos)
        if not isinstance(thing, Variable):
            what = "a function" if isinstance(thing, list) else "a type"
            _fail(f"'{e.name}' is {what}, not a variable", e.pos)
        if thing.storage == "varying":
            _fail(f"varying '{e.name}' has no value here: this GPU's fragment stage has no "
                  f"varyings (its inputs are gl_FragCoord, gl_FrontFacing and the theia_* "
                  f"hit data)", e.pos)
        e.symbol, e.type = thing, thing.type
        return e

    def _Comma(self, e):
        e.left = self.expr(e.left)
        e.right = self.expr(e.right)
        e.type = e.right.type
        return e

    def _Binary(self, e):
        if e.op in _RESERVED_OPS:
            _fail(f"operator '{e.op}' is reserved in GLSL 1.10 and 1.20", e.pos)
        e.left, e.right = self.expr(e.left), self.expr(e.right)
        if e.op in ("&&", "||", "^^"):
            for side in (e.left, e.right):
                if side.type != BOOL:
                    _fail(f"'{e.op}' needs bool operands, got '{side.type}'", side.pos)
            e.type = BOOL
            return e
        e.left, e.right = self._unify(e.left, e.right, f"'{e.op}'", e.pos)
        lt, rt = e.left.type, e.right.type
        if e.op in ("==", "!="):
            if lt != rt:
                _fail(f"'{e.op}' compares '{lt}' with '{rt}'", e.pos)
            if lt.has_sampler or (lt.has_array and self.version < 120):
                _fail(f"'{e.op}' cannot compare '{lt}' values", e.pos)
            e.type = BOOL
            return e
        if e.op in ("<", ">", "<=", ">="):
            if lt != rt or lt not in (INT, FLOAT):
                _fail(f"'{e.op}' needs two int or two float scalars, got '{lt}' and '{rt}'",
                      e.pos)
            e.type = BOOL
            return e
        e.type = self.arithmetic_type(e.op, lt, rt, e.pos)
        return e

    def arithmetic_type(self, op, lt, rt, pos):
        def bad():
            _fail(f"operator '{op}' cannot be applied to '{lt}' and '{rt}'", pos)
        if not (isinstance(lt, (Basic, Matrix)) and isinstance(rt, (Basic, Matrix))):
            bad()
        if lt.base != rt.base or lt.base == "bool":
            bad()
        if op == "%" and lt.base != "int":
            bad()
        if isinstance(lt, Basic) and isinstance(rt, Basic):
            if lt.size == rt.size or rt.size == 1:
                return lt
            if lt.size == 1:
                return rt
            bad()
        if isinstance(lt, Matrix) and isinstance(rt, Matrix):
            if op == "*":
                if lt.cols != rt.rows:
                    bad()
                return Matrix(rt.cols, lt.rows)
            if lt != rt:
                bad()
            return lt
        if isinstance(lt, Matrix):
            if rt.size == 1:
                return lt
            if op == "*" and rt.size == lt.cols:
                return lt.column
            bad()
        if lt.size == 1:
            return rt
        if op == "*" and lt.size == rt.rows:
            return Basic("float", rt.cols)
        bad()

    def _Unary(self, e):
        if e.op == "~":
            _fail("operator '~' is reserved in GLSL 1.10 and 1.20", e.pos)
        e.operand = self.expr(e.operand)
        t = e.operand.type
        if e.op == "!":
            if t != BOOL:
                _fail(f"'!' needs a bool, got '{t}'", e.pos)
        elif not t.is_numeric:
            _fail(f"'{e.op}' needs a number, got '{t}'", e.pos)
        if e.op in ("++", "--"):
            self.lvalue(e.operand, f"'{e.op}'")
        e.type = t
        return e

    def _Postfix(self, e):
        e.operand = self.expr(e.operand)
        if not e.operand.type.is_numeric:
            _fail(f"'{e.op}' needs a number, got '{e.operand.type}'", e.pos)
        self.lvalue(e.operand, f"'{e.op}'")
        e.type = e.operand.type
        return e

    def _Assign(self, e):
        if e.op in _RESERVED_OPS:
            _fail(f"operator '{e.op}' is reserved in GLSL 1.10 and 1.20", e.pos)
        e.target = self.expr(e.target)
        e.value = self.expr(e.value)
        self.lvalue(e.target, "assignment")
        tt = e.target.type
        if e.op == "=":
            if tt.has_sampler:
                _fail("samplers cannot be assigned", e.pos)
            e.value = self.coerce(e.value, tt, "assignment")
        else:
            op = e.op[0]
            if isinstance(e.value.type, Basic) and e.value.type.base == "int" and \
                    tt.base == "float" and self.version >= 120:
                e.value = self.coerce(e.value, Basic("float", e.value.type.size), "assignment")
            result = self.arithmetic_type(op, tt, e.value.type, e.pos)
            if result != tt:
                _fail(f"'{e.op}' would change '{tt}' into '{result}'", e.pos)
        e.type = tt
        return e

    def _Ternary(self, e):
        e.cond = self.expr(e.cond)
        if e.cond.type != BOOL:
            _fail(f"the condition of ?: must be a bool, got '{e.cond.type}'", e.cond.pos)
        e.then, e.else_ = self.expr(e.then), self.expr(e.else_)
        e.then, e.else_ = self._unify(e.then, e.else_, "?:", e.pos)
        if e.then.type != e.else_.type:
            _fail(f"the two sides of ?: differ: '{e.then.type}' and '{e.else_.type}'", e.pos)
        e.type = e.then.type
        return e

    def _Index(self, e):
        e.base = self.expr(e.base)
        e.index = self.expr(e.index)
        if e.index.type != INT:
            _fail(f"an index must be an int, got '{e.index.type}'", e.index.pos)
        t = e.base.type
        if isinstance(t, Array):
            e.type, size = t.element, t.size
        elif isinstance(t, Basic) and t.size > 1:
            e.type, size = Basic(t.base), t.size
        elif isinstance(t, Matrix):
            e.type, size = t.column, t.cols
        else:
            _fail(f"'{t}' cannot be indexed", e.pos)
        k = self.const_int(e.index)
        if k is not None and not 0 <= k < size:
            _fail(f"index {k} is out of range (0 to {size - 1})", e.index.pos)
        return e

    def _Field(self, e):
        e.base = self.expr(e.base)
        t = e.base.type
        if isinstance(t, Struct):
            _, mt = t.member(e.name)
            if mt is None:
                _fail(f"'{t}' has no member '{e.name}'", e.pos)
            e.type = mt
            return e
        if not isinstance(t, Basic):
            _fail(f"'{t}' has no fields", e.pos)
        for chars in SWIZZLE_SETS:
            if all(c in chars for c in e.name):
                comps = tuple(chars.index(c) for c in e.name)
                break
        else:
            _fail(f"'{e.name}' is not a swizzle (one of xyzw, rgba, stpq)", e.pos)
        if len(comps) > 4:
            _fail(f"swizzle '{e.name}' has more than 4 components", e.pos)
        if max(comps) >= t.size:
            _fail(f"swizzle '{e.name}' reads past the end of a '{t}'", e.pos)
        if t.size == 1 and self.version < 120:
            _fail("scalars cannot be swizzled", e.pos)
        e.components = comps
        e.type = Basic(t.base, len(comps))
        return e

    def _Length(self, e):
        e.base = self.expr(e.base)
        if not isinstance(e.base.type, Array):
            _fail(f".length() needs an array, got '{e.base.type}'", e.pos)
        if self.version < 120:
            _fail(".length() needs GLSL 1.20", e.pos)
        e.type = INT
        return e

    # --- l-values ----------------------------------------------------------------------------

    def lvalue(self, e, what):
        """Check that ``e`` can be written; returns its root Variable."""
        if isinstance(e, ast.Ident):
            v = e.symbol
            if v.read_only:
                kind = {"const": "a constant", "uniform": "a uniform",
                        "input": "a read-only input"}.get(v.storage, "read-only")
                _fail(f"{what}: '{v.name}' is {kind}", e.pos)
            return v
        if isinstance(e, ast.Index):
            return self.lvalue(e.base, what)
        if isinstance(e, ast.Field):
            if e.components is not None and len(set(e.components)) != len(e.components):
                _fail(f"{what}: swizzle '{e.name}' names a component twice", e.pos)
            return self.lvalue(e.base, what)
        _fail(f"{what} needs an l-value (a variable, or an element or field of one)", e.pos)

    # --- calls and constructors --------------------------------------------------------------

    def _Call(self, e):
        e.args = [self.expr(a) for a in e.args]
        for a in e.args:
            if a.type == type_by_name("void"):
                _fail("a void value cannot be an argument", a.pos)
        if isinstance(e.callee, ast.TypeSpec):
            return self.construct(e, self.resolve_type(e.callee, allow_unsized=True))
        thing = self.scope.lookup(e.callee)
        if isinstance(thing, Struct):
            return self.construct(e, thing)
        if isinstance(thing, Variable):
            _fail(f"'{e.callee}' is a variable, not a function", e.pos)
        return self.call(e, thing if isinstance(thing, list) else [])

    def call(self, e, user):
        name = e.callee
        if name in VERTEX_ONLY:
            _fail(f"{name}() is only available in vertex shaders", e.pos)
        if name in UNSUPPORTED:
            _fail(f"{name}() is not supported: the R500 stage here samples 2D textures only "
                  f"(sampler2D with texture2D and texture2DProj)", e.pos)
        types = tuple(a.type for a in e.args)
        if user:
            fn = self._pick([(f.param_types, f) for f in user], types, e, user_fn=True)
            if fn is not None:
                for i, (a, (pt, direction)) in enumerate(zip(e.args, fn.params)):
                    if direction in ("out", "inout"):
                        if a.type != pt:
                            _fail(f"argument {i + 1} of {name}(): an {direction} parameter "
                                  f"needs a '{pt}', got '{a.type}'", a.pos)
                        self.lvalue(a, f"argument {i + 1} of {name}() ({direction})")
                    else:
                        e.args[i] = self.coerce(a, pt, f"argument {i + 1} of {name}()")
                e.target, e.type = fn, fn.return_type
                self.current.calls.append((fn, e.pos))
                return e
        sigs = signatures(name)
        if not sigs:
            if user:
                _fail(f"no {name}() takes ({', '.join(map(str, types))})", e.pos)
            if name in BUILTIN_NAMES:
                pass
            _fail(f"no function called '{name}'", e.pos)
        sig = self._pick([(p, (p, r)) for p, r in sigs], types, e, user_fn=False)
        if sig is None:
            _fail(f"no {name}() takes ({', '.join(map(str, types))})", e.pos)
        params, ret = sig
        e.args = [self.coerce(a, p, f"argument of {name}()") for a, p in zip(e.args, params)]
        e.target, e.type = "builtin", ret
        return e

    def _pick(self, candidates, types, e, user_fn):
        exact = [c for p, c in candidates if p == types]
        if exact:
            return exact[0]
        if self.version < 120:
            return None
        loose = [c for p, c in candidates if len(p) == len(types)
                 and all(self.convertible(t, q) for t, q in zip(types, p))]
        if len(loose) > 1:
            _fail(f"the call of {e.callee}() is ambiguous", e.pos)
        return loose[0] if loose else None

    def construct(self, e, t):
        e.target = "constructor"
        if isinstance(t, Array):
            return self._construct_array(e, t)
        if isinstance(t, Struct):
            if len(e.args) != len(t.members):
                _fail(f"'{t}' has {len(t.members)} members, the constructor got "
                      f"{len(e.args)} arguments", e.pos)
            e.args = [self.coerce(a, mt, f"member '{mn}' of '{t}'")
                      for a, (mn, mt) in zip(e.args, t.members)]
            e.type = t
            return e
        if isinstance(t, Sampler) or t == type_by_name("void"):
            _fail(f"'{t}' has no constructor", e.pos)
        if not e.args:
            _fail(f"a '{t}' constructor needs arguments", e.pos)
        for a in e.args:
            if not isinstance(a.type, (Basic, Matrix)):
                _fail(f"a '{a.type}' cannot construct a '{t}'", a.pos)
        e.type = t
        if len(e.args) == 1:
            return e
        if isinstance(t, Matrix) and any(isinstance(a.type, Matrix) for a in e.args):
            _fail("a matrix argument of a matrix constructor must be its only argument", e.pos)
        need, have = t.components(), 0
        for a in e.args:
            if have >= need:
                _fail(f"too many arguments to the '{t}' constructor", a.pos)
            have += a.type.components()
        if have < need:
            _fail(f"not enough data for the '{t}' constructor ({have} of {need} components)",
                  e.pos)
        return e

    def _construct_array(self, e, t):
        if self.version < 120:
            _fail("array constructors need GLSL 1.20", e.pos)
        size = t.size if t.size is not None else len(e.args)
        if len(e.args) != size:
            _fail(f"'{t.element}[{size}]' needs {size} arguments, got {len(e.args)}", e.pos)
        e.args = [self.coerce(a, t.element, "array constructor") for a in e.args]
        e.type = Array(t.element, size)
        return e
