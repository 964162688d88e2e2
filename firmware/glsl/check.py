"""Semantic analysis: scopes, declarations, functions (overloads, prototypes, recursion),
statements; ``check_expr`` types the expressions. Constant expressions (``const``
initialisers, array sizes, constant indices) are evaluated by the IR lowering in constant mode
(``lower_expr.constant_value``), which folds every operator and built-in function."""

from firmware.glsl import ast
from firmware.glsl.check_expr import ExpressionChecker
from firmware.glsl.errors import GlslError
from firmware.glsl.symbols import FunctionSymbol, Scope, Variable, builtin_scope
from firmware.glsl.types import (BOOL, INT, VOID, Array, Matrix, Struct,
                                 type_by_name)

__all__ = ["check", "CheckedProgram"]


def _fail(msg, pos):
    raise GlslError(msg, pos)


class CheckedProgram:
    def __init__(self, unit, main, globals_, functions, builtins):
        self.unit = unit
        self.main = main                # FunctionSymbol of main()
        self.globals = globals_         # Variables declared at global scope, in order
        self.functions = functions      # every FunctionSymbol
        self.builtins = builtins        # name -> Variable of the built-in variables


class Checker(ExpressionChecker):
    def __init__(self, version, limits, constants):
        # without #version the language is 1.10's with 1.20's additions accepted (piglit's
        # 1.20 tests rely on it); #version 110 holds a shader to 1.10
        self.version = version or 120
        self.constants = constants      # lower_expr's constant evaluation
        self.scope = Scope(builtin_scope(limits, constants.make))
        self.globals_scope = self.scope
        self.current = None
        self.loop_depth = 0
        self.globals = []
        self.functions = []
        self.outputs_written = {}       # output name -> first assignment

    # --- constants ---------------------------------------------------------------------------

    def const_value(self, e):
        """The constant value of a checked expression, or None."""
        return self.constants.evaluate(e)

    def const_int(self, e):
        value = self.const_value(e)
        if value is None:
            return None
        return int(self.constants.number(value))

    def array_size(self, e):
        e = self.expr(e)
        if e.type != INT:
            _fail(f"an array size must be an int, got '{e.type}'", e.pos)
        size = self.const_int(e)
        if size is None:
            _fail("an array size must be a constant expression", e.pos)
        if size <= 0:
            _fail(f"an array size must be positive, got {size}", e.pos)
        return size

    # --- types -------------------------------------------------------------------------------

    def resolve_type(self, spec, allow_unsized=False):
        if spec.struct is not None:
            t = self.struct(spec.struct)
        else:
            t = type_by_name(spec.name)
            if t is None:
                t = self.scope.lookup(spec.name)
                if not isinstance(t, Struct):
                    _fail(f"'{spec.name}' is not a type", spec.pos)
            if isinstance(t, Matrix) and t.cols != t.rows and self.version < 120:
                _fail(f"'{t}' needs GLSL 1.20", spec.pos)
        if spec.array is not None:
            t = self._array_of(t, spec.array, spec.pos, allow_unsized)
        return t

    def _array_of(self, t, size_expr, pos, allow_unsized):
        if isinstance(t, Array):
            _fail("arrays of arrays are not allowed", pos)
        if t == VOID:
            _fail("an array of void", pos)
        if size_expr is ...:
            if not allow_unsized:
                _fail("an array needs a size", pos)
            return Array(t, None)
        return Array(t, self.array_size(size_expr))

    def _declared_type(self, spec, array, pos, what):
        """The type of a member or parameter: its type with its declarator's array."""
        t = self.resolve_type(spec)
        if array is not None:
            t = self._array_of(t, array, pos, False)
        if t == VOID:
            _fail(f"{what} cannot be void", pos)
        return t

    def struct(self, sd):
        if sd.resolved is not None:         # ``struct S {...} a, b;``: one definition
            return sd.resolved
        members, names = [], set()
        for m in sd.members:
            mt = self._declared_type(m.type, m.array, m.pos, "a struct member")
            if m.name in names:
                _fail(f"member '{m.name}' is declared twice", m.pos)
            names.add(m.name)
            members.append((m.name, mt))
        t = Struct(sd.name, members)
        sd.resolved = t
        if sd.name is not None:
            self._check_name(sd.name, sd.pos)
            self.scope.declare(sd.name, t, sd.pos)
        return t

    def _check_name(self, name, pos):
        if name.startswith("gl_"):
            _fail(f"'{name}': names starting with gl_ are reserved", pos)

    # --- declarations ------------------------------------------------------------------------

    def var_decl(self, d, is_global):
        t = self.resolve_type(d.type, allow_unsized=d.init is not None)
        if d.array is not None:
            t = self._array_of(t, d.array, d.pos, allow_unsized=d.init is not None)
        self._check_name(d.name, d.pos)
        q = d.qualifier
        if t == VOID:
            _fail(f"'{d.name}' cannot be void", d.pos)
        if q == "attribute":
            _fail("attribute variables are for vertex shaders", d.pos)
        if q == "uniform" and not is_global:
            _fail("uniforms must be declared at global scope", d.pos)
        if q == "varying" and not is_global:
            _fail("varyings must be declared at global scope", d.pos)
        if t.has_sampler and q != "uniform":
            _fail(f"'{d.name}': a sampler must be a uniform", d.pos)
        init = None
        if d.init is not None:
            if q == "varying":
                _fail("a varying cannot have an initialiser", d.pos)
            if q == "uniform" and self.version < 120:
                _fail("uniform initialisers need GLSL 1.20", d.pos)
            init = self.expr(d.init)
            if isinstance(t, Array) and t.size is None:
                if not isinstance(init.type, Array) or init.type.element != t.element:
                    _fail(f"cannot initialise '{t.element}[]' with '{init.type}'", init.pos)
                t = init.type
            d.init = init = self.coerce(init, t, f"initialiser of '{d.name}'")
        elif q == "const":
            _fail(f"const '{d.name}' needs an initialiser", d.pos)
        if isinstance(t, Array) and t.size is None:
            _fail(f"array '{d.name}' needs a size", d.pos)
        storage = q or ("global" if is_global else "local")
        v = Variable(d.name, t, storage, d.pos)
        v.init = init
        if q in ("const", "uniform") and init is not None:
            value = self.const_value(init)
            if value is None:
                _fail(f"the initialiser of {q} '{d.name}' is not a constant expression",
                      init.pos)
            if q == "const":
                v.value = value
            else:
                v.default = value
        d.symbol = v
        self.scope.declare(d.name, v, d.pos)
        if is_global:
            self.globals.append(v)
        return v

    # --- functions ---------------------------------------------------------------------------

    def function(self, f):
        self._check_name(f.name, f.pos)
        ret = self.resolve_type(f.return_type)
        if isinstance(ret, Array):
            _fail("a function cannot return an array", f.return_type.pos)
        if ret.has_sampler:
            _fail("a function cannot return a sampler", f.return_type.pos)
        params = []
        for p in f.params:
            pt = self._declared_type(p.type, p.array, p.pos, "a parameter")
            if pt.has_sampler and p.direction != "in":
                _fail("a sampler parameter must be 'in'", p.pos)
            params.append((pt, "const" if p.const else p.direction))
        existing = self.globals_scope.names.get(f.name)
        if existing is not None and not isinstance(existing, list):
            _fail(f"'{f.name}' is already declared as a variable", f.pos)
        overloads = existing or []
        sym = None
        for o in overloads:
            if o.param_types == tuple(t for t, _ in params):
                if o.return_type != ret:
                    _fail(f"{f.name}() is redeclared with another return type", f.pos)
                if [d for _, d in o.params] != [d for _, d in params]:
                    _fail(f"{f.name}() is redeclared with other parameter qualifiers", f.pos)
                sym = o
        if sym is None:
            sym = FunctionSymbol(f.name, params, ret, f.pos)
            overloads.append(sym)
            self.functions.append(sym)
            if existing is None:
                self.globals_scope.names[f.name] = overloads
        f.signature = sym
        if f.body is None:
            return
        if sym.definition is not None:
            _fail(f"{f.name}() is defined twice", f.pos)
        sym.definition = f
        self.scope = Scope(self.globals_scope)
        self.current = sym
        sym.param_symbols = []
        for p, (pt, direction) in zip(f.params, params):
            v = Variable(p.name, pt, "param", p.pos, direction=direction)
            sym.param_symbols.append(v)
            if p.name is not None:
                self._check_name(p.name, p.pos)
                self.scope.declare(p.name, v, p.pos)
        self.block(f.body)
        self.scope = self.globals_scope
        self.current = None

    # --- statements --------------------------------------------------------------------------

    def block(self, b):
        if b.scope:
            self.scope = Scope(self.scope)
        for s in b.stmts:
            self.statement(s)
        if b.scope:
            self.scope = self.scope.parent

    def statement(self, s):
        getattr(self, "_s_" + type(s).__name__)(s)

    def _s_Compound(self, s):
        self.block(s)

    def _s_ExprStmt(self, s):
        s.expr = self.expr(s.expr)

    def _s_DeclStmt(self, s):
        for d in s.decls:
            if isinstance(d, ast.StructDef):
                self.struct(d)
            else:
                self.var_decl(d, is_global=False)

    def _s_Precision(self, s):
        pass

    def _s_Empty(self, s):
        pass

    def _bool_condition(self, e, what):
        e = self.expr(e)
        if e.type != BOOL:
            _fail(f"the condition of {what} must be a bool, got '{e.type}'", e.pos)
        return e

    def _s_If(self, s):
        s.cond = self._bool_condition(s.cond, "if")
        self._scoped(s.then)
        if s.else_ is not None:
            self._scoped(s.else_)

    def _scoped(self, s):
        self.scope = Scope(self.scope)
        self.statement(s)
        self.scope = self.scope.parent

    def _loop_condition(self, c, what):
        if isinstance(c, ast.VarDecl):
            v = self.var_decl(c, is_global=False)
            if v.type != BOOL:
                _fail(f"the condition of {what} must be a bool, got '{v.type}'", c.pos)
            return c
        return self._bool_condition(c, what)

    def _s_For(self, s):
        self.scope = Scope(self.scope)
        if s.init is not None:
            self.statement(s.init)
        if s.cond is not None:
            s.cond = self._loop_condition(s.cond, "for")
        if s.step is not None:
            s.step = self.expr(s.step)
        self.loop_depth += 1
        self._scoped(s.body)
        self.loop_depth -= 1
        self.scope = self.scope.parent

    def _s_While(self, s):
        self.scope = Scope(self.scope)
        s.cond = self._loop_condition(s.cond, "while")
        self.loop_depth += 1
        self._scoped(s.body)
        self.loop_depth -= 1
        self.scope = self.scope.parent

    def _s_DoWhile(self, s):
        self.loop_depth += 1
        self._scoped(s.body)
        self.loop_depth -= 1
        s.cond = self._bool_condition(s.cond, "do-while")

    def _s_Break(self, s):
        if not self.loop_depth:
            _fail("break outside a loop", s.pos)

    def _s_Continue(self, s):
        if not self.loop_depth:
            _fail("continue outside a loop", s.pos)

    def _s_Discard(self, s):
        pass

    def _s_Return(self, s):
        ret = self.current.return_type
        if s.value is None:
            if ret != VOID:
                _fail(f"{self.current.name}() must return a '{ret}'", s.pos)
            return
        s.value = self.expr(s.value)
        if ret == VOID:
            _fail(f"{self.current.name}() returns void, not a value", s.value.pos)
        s.value = self.coerce(s.value, ret, "return")

    # --- l-values: what a function writes ----------------------------------------------------

    def lvalue(self, e, what):
        v = super().lvalue(e, what)
        if v.storage in ("global", "output") and self.current is not None:
            self.current.modifies.add(v)
        if v.storage == "output":
            self.outputs_written.setdefault(v.name, e.pos)
            if len(self.outputs_written) > 1:
                _fail("a shader may write gl_FragColor or gl_FragData, not both", e.pos)
        return v


def _check_calls(functions):
    """Recursion (an error), undefined functions, and each function's modified globals."""
    state = {}

    def visit(fn, stack):
        state[fn] = "open"
        for callee, pos in fn.calls:
            if callee.definition is None:
                _fail(f"{callee.name}() is declared but never defined", pos)
            if state.get(callee) == "open":
                chain = " -> ".join(f.name for f in stack[stack.index(callee):] + [callee])
                _fail(f"recursion is not supported ({chain})", pos)
            if callee not in state:
                visit(callee, stack + [callee])
            fn.modifies |= callee.modifies
        state[fn] = "done"

    for fn in functions:
        if fn.definition is not None and fn not in state:
            visit(fn, [fn])


def check(unit, limits, constants):
    """Check a TranslationUnit; ``constants`` evaluates constant expressions. Returns a
    CheckedProgram."""
    c = Checker(unit.version, limits, constants)
    for item in unit.items:
        if isinstance(item, ast.Function):
            c.function(item)
        elif isinstance(item, ast.VarDecl):
            c.var_decl(item, is_global=True)
        elif isinstance(item, ast.StructDef):
            c.struct(item)
    mains = c.globals_scope.names.get("main")
    main = None
    if isinstance(mains, list):
        main = next((f for f in mains if not f.params), None)
    if main is None or main.definition is None:
        raise GlslError("the shader has no main() function", None)
    if main.return_type != VOID:
        _fail("main() must return void", main.pos)
    _check_calls(c.functions)
    builtins = c.globals_scope.parent.names
    return CheckedProgram(unit, main, c.globals, c.functions, builtins)
