"""Statements to IR: straight-line code in single assignment form (each variable's current
value in ``env``), ``if``/``else`` and ``?:`` by if-conversion (both sides computed, the
variables merged with selects), user functions inlined at each call, ``return``, ``break``,
``continue`` and ``discard`` by *exits*: the lanes that take one stop counting (the
``pathcond``, the condition under which the current code runs, drops them) and their values
are merged back where the construct they leave ends. Loops are ``lower_loop``'s.

``pathcond`` is relative to the innermost loop on the flow-control engine (lanes outside it
are inactive there); None means every lane."""

from firmware.glsl import ast
from firmware.glsl.frames import Exit, FunctionFrame
from firmware.glsl.ir import Kill, Output
from firmware.glsl.lower_expr import ExpressionLowering
from firmware.glsl.lower_loop import LoopLowering
from firmware.glsl.symbols import FunctionSymbol, Variable
from firmware.glsl.types import Array
from firmware.glsl.values import zero_of

__all__ = ["StatementLowering"]


def _has_effects(e):
    """Does evaluating e write anything (an assignment, ++/--, a user function's call)?"""
    if isinstance(e, (ast.Assign, ast.Postfix)):
        return True
    if isinstance(e, ast.Unary) and e.op in ("++", "--"):
        return True
    if isinstance(e, ast.Call) and isinstance(e.target, FunctionSymbol):
        return True
    for name in ("left", "right", "operand", "cond", "then", "else_", "base", "index"):
        child = getattr(e, name, None)
        if isinstance(child, ast.Expr) and _has_effects(child):
            return True
    return any(_has_effects(a) for a in getattr(e, "args", None) or ())


class StatementLowering(LoopLowering, ExpressionLowering):
    def __init__(self, builder):
        ExpressionLowering.__init__(self, builder)
        self.env = {}
        self.pathcond = None
        self.dead = False
        self.frames = []
        self.exit_log = []          # exits whose lanes still run on the engine
        self.inputs_read = set()        # names of the predefined inputs read
        self.output_pos = {}            # output Variable -> its first assignment
        self.not_unrollable = set()     # loop bodies (AST) that could not be unrolled
        self.unroll_work = 0            # work spent on attempts that failed
        self.work = 0                   # statements lowered (unrolled ones each time)

    # --- conditions --------------------------------------------------------------------------

    def and_(self, a, b):
        if a is None:
            return b
        if b is None:
            return a
        return self.op("mul", a, b)

    def excluding(self, pc, conds):
        """The lanes of ``pc`` but those of ``conds`` (exits taken): None is every lane,
        a constant 0 none."""
        if not conds:
            return pc
        taken = self.or_(conds)
        if taken is None:
            return self.scalar(0.0)
        return self.and_(pc, self.not_(taken))

    def or_(self, conds):
        acc = None
        for c in conds:
            if c is None:
                return None
            acc = c if acc is None else self.op("max", acc, c)
        return acc

    # --- variables ---------------------------------------------------------------------------

    def read_var(self, sym, pos):
        if sym.storage == "const":
            return sym.value
        if sym.storage == "input":
            self.inputs_read.add(sym.name)
        return self.env[sym]

    def write_var(self, sym, value):
        if sym.storage == "output":
            self.output_pos.setdefault(sym, self.b.pos)
        self.env[sym] = value

    def has_effects(self, e):
        return _has_effects(e)

    # --- statements --------------------------------------------------------------------------

    def block(self, b):
        for s in b.stmts:
            if self.dead:
                return
            self.statement(s)

    def statement(self, s):
        self.work += 1
        saved = self.b.pos
        self.b.pos = s.pos
        getattr(self, "_s_" + type(s).__name__)(s)
        self.b.pos = saved

    def _s_Compound(self, s):
        self.block(s)

    def _s_Empty(self, s):
        pass

    def _s_Precision(self, s):
        pass

    def _s_ExprStmt(self, s):
        self.value(s.expr)

    def _s_DeclStmt(self, s):
        for d in s.decls:
            if isinstance(d, ast.VarDecl):
                self.declare(d)

    def declare(self, d):
        v = d.symbol
        if v.storage == "const":
            return
        self.env[v] = self.value(d.init) if d.init is not None else zero_of(v.type, self.const)

    def _s_If(self, s):
        c = self.value(s.cond)
        if c[0][0].op == "const":
            taken = s.then if c[0][0].values[c[0][1]] != 0.0 else s.else_
            if taken is not None:
                self.statement(taken)
            return
        self.branch(c, lambda: self.statement(s.then),
                    (lambda: self.statement(s.else_)) if s.else_ is not None else None)

    def branch(self, c, then_fn, else_fn):
        """if (c) then_fn() else else_fn(), both computed, merged with selects."""
        pc0, env0, log0 = self.pathcond, self.env, len(self.exit_log)
        sides = []
        for cond, fn in ((c, then_fn), (self.not_(c), else_fn)):
            self.env, self.pathcond, self.dead = dict(env0), self.and_(pc0, cond), False
            if fn is not None:
                fn()
            sides.append((self.env, self.dead))
        (env_t, dead_t), (env_e, dead_e) = sides
        exits = self.exit_log[log0:]
        self.dead = dead_t and dead_e
        if dead_t:
            self.env = env_e
        elif dead_e:
            self.env = env_t
        else:
            self.env = dict(env_t)
            for var, old in env0.items():
                a, b = env_t.get(var), env_e.get(var)
                if a != b:
                    self.env[var] = self.select(c, a, b, var.type)
        self.pathcond = self.excluding(pc0, [e.cond for e in exits])

    def conditional(self, cond, then_fn, else_fn, t):
        """The value of ``cond ? then_fn() : else_fn()`` where a side has effects."""
        tmp = Variable("<conditional>", t, "local")
        self.env[tmp] = zero_of(t, self.const)

        def side(fn):
            return lambda: self.write_var(tmp, fn())
        self.branch(cond, side(then_fn), side(else_fn))
        return self.env.pop(tmp)

    def _s_Discard(self, s):
        cond = self.pathcond
        if cond is None:
            value = self.scalar(-1.0)
        else:
            # -1 (its sign bit set: killed) where the path runs, +0 elsewhere: a select that
            # selection makes one CMP on the path's comparison
            value = self.op("select", cond, self.scalar(-1.0), self.scalar(0.0))
        self.b.emit(Kill(self.b.ref(value), s.pos))
        self.dead = True

    def _s_Return(self, s):
        frame = next(f for f in reversed(self.frames) if isinstance(f, FunctionFrame))
        if s.value is not None:
            self.env[frame.ret_var] = self.value(s.value)
        self.leave("return", frame)

    def _s_Break(self, s):
        self.leave("break", self.innermost_loop())

    def _s_Continue(self, s):
        self.leave("continue", self.innermost_loop())

    def leave(self, kind, frame):
        """Lanes under ``pathcond`` leave: record the exit (through any loop on the engine
        between here and ``frame``), and the rest of the block is dead."""
        exit_ = Exit(kind, frame, self.pathcond, dict(self.env))
        self.record_exit(exit_)
        self.dead = True

    def record_exit(self, exit_):
        real = self.real_loop_between(exit_.frame, exit_.kind)
        if real is not None:
            self.break_real(real, exit_)
            return
        if exit_.kind == "continue":
            exit_.frame.continues.append(exit_)
        elif exit_.kind == "break":
            exit_.frame.breaks.append(exit_)
        else:
            exit_.frame.exits.append(exit_)
        self.exit_log.append(exit_)

    def merge_exits(self, exits, env):
        """The values after a construct: ``env`` (None if no lane reaches its end) with each
        exit's values where its lanes are; None if no lane gets there at all."""
        exits = list(exits)
        if env is None:
            if not exits:
                return None
            env = exits.pop().env
        result = dict(env)
        for e in exits:
            for var, value in result.items():
                other = e.env.get(var)
                if other is not None and other != value:
                    result[var] = self.select(e.cond, other, value, var.type)
        return result

    def forget_exits(self, frame):
        self.exit_log = [e for e in self.exit_log if e.frame is not frame]

    # --- user functions (inlined) ------------------------------------------------------------

    def call_user(self, e):
        fn = e.target
        bound, outs = [], []
        for arg, (ptype, direction), psym in zip(e.args, fn.params, fn.param_symbols):
            if direction in ("in", "const"):
                bound.append((psym, self.value(arg)))
                continue
            path = self.lvalue(arg)
            outs.append((psym, path))
            bound.append((psym, self.load(path) if direction == "inout"
                          else zero_of(ptype, self.const)))
        ret_var = Variable(f"<{fn.name} result>", fn.return_type, "local")
        frame = FunctionFrame(fn, ret_var)
        pc_entry, saved_env = self.pathcond, self.env
        self.env = dict(saved_env)
        for psym, value in bound:
            self.env[psym] = value
        if fn.return_type.components():
            self.env[ret_var] = zero_of(fn.return_type, self.const)
        self.frames.append(frame)
        self.dead = False
        self.block(fn.definition.body)
        self.frames.pop()
        self.forget_exits(frame)
        final = self.merge_exits(frame.exits, None if self.dead else self.env)
        self.pathcond = pc_entry
        if final is None:                   # every lane discarded
            self.dead = True
            self.env = saved_env
            return zero_of(fn.return_type, self.const) if fn.return_type.components() else ()
        self.dead = False
        self.env = final
        for psym, path in outs:
            self.store(path, self.env[psym])
        for psym, _ in bound:
            self.env.pop(psym, None)
        return self.env.pop(ret_var, ())

    # --- main ----------------------------------------------------------------------------------

    def lower_main(self, main):
        """Lower main() (the environment set up by the caller); returns the final values."""
        frame = FunctionFrame(main, Variable("<main result>", main.return_type, "local"))
        self.frames.append(frame)
        self.block(main.definition.body)
        self.frames.pop()
        return self.merge_exits(frame.exits, None if self.dead else self.env)

    def emit_outputs(self, final, outputs):
        """Output items for the render targets' components some path wrote."""
        if final is None:
            return
        for var in outputs:
            value = final[var]
            targets = value if isinstance(var.type, Array) else (value,)
            for target, vec in enumerate(targets):
                comps = {ch: c for ch, c in enumerate(vec) if c[0].op != "undef"}
                if comps:
                    self.b.emit(Output(target, comps, self.output_pos.get(var)))
