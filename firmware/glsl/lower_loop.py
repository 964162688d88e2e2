"""Loops. A loop whose condition folds to a constant at every iteration is unrolled (up to
``MAX_UNROLL`` iterations and ``UNROLL_BUDGET`` IR nodes), its breaks and continues becoming
exits like any other. Any other loop runs on the flow-control engine: ``LOOP`` (at most
``REAL_LOOP_COUNT`` iterations, an integer constant) over a body whose variables are phi nodes
(copied in before the loop and at the body's end), leaving by ``BREAK``s that first copy the
variables' values into the loop's exit phis. A ``return`` inside such a loop leaves it with a
flag, and the function's exit is recorded after the loop."""

from firmware.glsl import ast
from firmware.glsl.frames import Exit, FunctionFrame, LoopFrame
from firmware.glsl.ir import Break, Loop, Node, Phi
from firmware.glsl.symbols import FunctionSymbol
from firmware.glsl.types import FLOAT
from firmware.glsl.values import flatten, leaf_types, unflatten

__all__ = ["LoopLowering", "MAX_UNROLL", "UNROLL_BUDGET", "REAL_LOOP_COUNT"]

MAX_UNROLL = 64
#: IR nodes plus statements an unrolled loop may make and lower
UNROLL_BUDGET = 400
#: the same, for all attempts to unroll that failed in one compile
UNROLL_WORK = 20000
#: the iterations a loop on the engine can run: INT_CONST[0].KR (r500-us.md §1)
REAL_LOOP_COUNT = 255


class _CannotUnroll(Exception):
    pass


def _assigned(node, out, fns):
    """Collect the Variables an AST fragment may write (and the functions it calls)."""
    if isinstance(node, list):
        for x in node:
            _assigned(x, out, fns)
        return
    if not hasattr(node, "__dataclass_fields__"):
        return
    if isinstance(node, ast.Assign):
        _root(node.target, out)
    elif isinstance(node, (ast.Postfix,)) or (isinstance(node, ast.Unary)
                                              and node.op in ("++", "--")):
        _root(node.operand, out)
    elif isinstance(node, ast.Call) and isinstance(node.target, FunctionSymbol):
        fns.add(node.target)
        for arg, (_, direction) in zip(node.args, node.target.params):
            if direction in ("out", "inout"):
                _root(arg, out)
    for name in node.__dataclass_fields__:
        if name not in ("type", "symbol", "target", "pos"):
            _assigned(getattr(node, name), out, fns)


def _root(e, out):
    while not isinstance(e, ast.Ident):
        e = e.base
    out.add(e.symbol)


def _returns(node):
    if isinstance(node, ast.Return):
        return True
    if isinstance(node, list):
        return any(_returns(x) for x in node)
    if not hasattr(node, "__dataclass_fields__") or isinstance(node, ast.Expr):
        return False
    return any(_returns(getattr(node, n)) for n in node.__dataclass_fields__
               if n not in ("type", "pos"))


class LoopLowering:
    """Mixed into StatementLowering."""

    def innermost_loop(self):
        return next(f for f in reversed(self.frames) if isinstance(f, LoopFrame))

    def real_loop_between(self, target, kind):
        """The innermost engine loop an exit of ``kind`` to ``target`` must break out of."""
        for f in reversed(self.frames):
            real = getattr(f, "real", None)
            if f is target:
                return f if kind == "break" and real is not None else None
            if real is not None:
                return f
        return None

    def _s_For(self, s):
        if s.init is not None:
            self.statement(s.init)
        self.loop(s.cond, s.step, s.body, True, s.pos)

    def _s_While(self, s):
        self.loop(s.cond, None, s.body, True, s.pos)

    def _s_DoWhile(self, s):
        self.loop(s.cond, None, s.body, False, s.pos)

    def loop_condition(self, cond):
        if isinstance(cond, ast.VarDecl):
            self.declare(cond)
            return self.env[cond.symbol]
        return self.value(cond)

    def loop(self, cond, step, body, test_first, pos):
        """Unroll the loop if its condition folds at every iteration (and it is small), else
        run it on the engine. A loop that could not be unrolled once is not tried again."""
        if body not in self.not_unrollable and self.unroll_work < UNROLL_WORK:
            checkpoint = self.b.checkpoint()
            saved = self._save()
            start = self.b.count + self.work
            try:
                self._unrolled(cond, step, body, test_first)
                return
            except _CannotUnroll:
                self.unroll_work += self.b.count + self.work - start
                self.b.rollback(checkpoint)
                self._restore(saved)
                self.not_unrollable.add(body)
        self._real(cond, step, body, test_first, pos)

    def _save(self):
        lists = [(f, {k: len(v) for k, v in vars(f).items() if isinstance(v, list)})
                 for f in self.frames]
        return dict(self.env), self.pathcond, self.dead, list(self.exit_log), lists

    def _restore(self, saved):
        env, self.pathcond, self.dead, self.exit_log, lists = saved
        self.env = env
        for f, lengths in lists:
            for k, n in lengths.items():
                del getattr(f, k)[n:]

    # --- unrolled ----------------------------------------------------------------------------

    def _unrolled(self, cond, step, body, test_first):
        frame = LoopFrame()
        self.frames.append(frame)
        start, iterations, pc_entry = self.b.count + self.work, 0, self.pathcond
        log_entry = len(self.exit_log)
        try:
            while True:
                if (test_first or iterations) and cond is not None:
                    c = self.loop_condition(cond)
                    if c[0][0].op != "const":
                        raise _CannotUnroll
                    if c[0][0].values[c[0][1]] == 0.0:
                        break
                if iterations >= MAX_UNROLL or \
                        self.b.count + self.work - start > UNROLL_BUDGET:
                    raise _CannotUnroll
                iterations += 1
                pc_start, log0 = self.pathcond, len(self.exit_log)
                self.dead = False
                self.statement(body)
                continues, frame.continues = frame.continues, []
                env = self.merge_exits(continues, None if self.dead else self.env)
                left = [e for e in self.exit_log[log0:] if e.kind != "continue"]
                self.exit_log = self.exit_log[:log0] + left
                if env is None:
                    self.dead = True
                    break
                # the next iteration runs where this one did, but for the lanes that broke
                # or returned (those that continued are back)
                self.env, self.dead = env, False
                self.pathcond = self.excluding(pc_start, [e.cond for e in left])
                if step is not None:
                    self.value(step)
                if not test_first and cond is not None and iterations:
                    test_first = True       # a do-while tests after its first pass
        finally:
            self.frames.pop()
        self.forget_exits(frame)
        final = self.merge_exits(frame.breaks, None if self.dead else self.env)
        returned = [e.cond for e in self.exit_log[log_entry:]]
        self.dead = final is None
        if final is not None:
            self.env = final
        self.pathcond = self.excluding(pc_entry, returned)

    # --- on the flow-control engine ----------------------------------------------------------

    def _phis(self, t, kind, loop):
        """A value of type t made of new phi nodes, one per vector leaf (header phis vary
        inside the loop, exit phis are defined after it)."""
        comps = []
        for leaf in _leaves(t):
            node = Node("phi", (), Phi(kind, loop), leaf, self.b.pos)
            self.b.place_phi(node, inside=kind == "header")
            comps.extend((node, i) for i in range(leaf))
        return unflatten(comps, t)

    def _real(self, cond, step, body, test_first, pos):
        loop = Loop(REAL_LOOP_COUNT, pos)
        frame = LoopFrame(real=loop)
        modified, fns = set(), set()
        _assigned([cond, step, body], modified, fns)
        for fn in fns:
            modified |= fn.modifies
        function = next(f for f in reversed(self.frames) if isinstance(f, FunctionFrame))
        returns = _returns(body)
        if returns and function.ret_var in self.env:
            modified.add(function.ret_var)
        modified = [v for v in self.env if v in modified]
        pc_outer, env_outer = self.pathcond, self.env
        header = {v: self._phis(v.type, "header", loop) for v in modified}
        inits = {v: [self.b.ref(leaf) for leaf in _leaf_values(env_outer[v], v.type)]
                 for v in modified}
        frame.exit_values = {v: self._phis(v.type, "exit", loop) for v in modified}
        if returns:
            frame.flag = self._phis(FLOAT, "exit", loop)[0]
        self.b.push_scope(loop.body)
        self.frames.append(frame)
        self.env = dict(env_outer)
        self.env.update(header)
        self.pathcond, self.dead = None, False
        # lanes the enclosing code does not run (an if-converted branch) leave at once
        leave = None if pc_outer is None else self.not_(pc_outer)
        if test_first and cond is not None:
            stop = self.not_(self.loop_condition(cond))
            leave = stop if leave is None else self.or_([leave, stop])
        top = self._break(frame, leave, None) if leave is not None else None
        self.statement(body)
        continues, frame.continues = frame.continues, []
        env = self.merge_exits(continues, None if self.dead else self.env)
        self.forget_exits(frame)
        if env is not None:
            # lanes that continued run the step and the condition too (those that broke
            # are inactive on the engine)
            self.env, self.dead, self.pathcond = env, False, None
            if step is not None:
                self.value(step)
            if not test_first and cond is not None:
                self._break(frame, self.not_(self.loop_condition(cond)), None)
        self.frames.pop()
        for v in modified:
            nodes = _leaf_nodes(header[v], v.type)
            ends = _leaf_values(self.env[v], v.type) if env is not None and not self.dead \
                else [None] * len(nodes)
            for node, init, end in zip(nodes, inits[v], ends):
                node.args = (init, self.b.ref(end) if end is not None else None)
                loop.header.append(node)
        self.b.pop_scope()
        self.b.emit(loop)
        self._after_real(frame, loop, modified, header, top, env_outer, pc_outer, function)

    def _after_real(self, frame, loop, modified, header, top, env_outer, pc_outer, function):
        natural = frame.break_items == [top] and frame.flag is None and top is not None
        self.env = dict(env_outer)
        for v in modified:
            if natural:
                self.env[v] = header[v]
            else:
                self.env[v] = frame.exit_values[v]
                loop.exits.extend(_leaf_nodes(frame.exit_values[v], v.type))
        if natural:
            top.copies = []
        if frame.flag is not None:
            loop.exits.append(frame.flag[0])
        self.pathcond, self.dead = pc_outer, False
        if frame.flag is not None:
            flag = (frame.flag,)
            self.record_exit(Exit("return", function, self.and_(pc_outer, flag),
                                  dict(self.env)))
            self.pathcond = self.and_(pc_outer, self.not_(flag))

    def _break(self, frame, cond, kind, on_path=True):
        """A BREAK of ``frame``'s loop where ``cond`` (and, ``on_path``, the path) holds."""
        if on_path:
            cond = self.and_(self.pathcond, cond)
        copies = []
        for v, phis in frame.exit_values.items():
            for node, leaf in zip(_leaf_nodes(phis, v.type), _leaf_values(self.env[v], v.type)):
                copies.append((node, self.b.ref(leaf)))
        if frame.flag is not None:
            copies.append((frame.flag[0], self.b.ref(self.const([1.0 if kind else 0.0]))))
        item = Break(self.b.ref(cond) if cond is not None else None, copies, self.b.pos)
        self.b.emit(item)
        frame.break_items.append(item)
        return item

    def break_real(self, frame, exit_):
        """An exit that leaves the engine loop of ``frame`` (its own break, or a return),
        where its lanes are (``exit_.cond``: the path where it was taken)."""
        self._break(frame, exit_.cond, exit_.kind if exit_.kind == "return" else None,
                    on_path=False)


def _leaves(t):
    return [lt.size for _, lt in leaf_types(t)]


def _leaf_values(value, t):
    comps = flatten(value, t)
    out, i = [], 0
    for n in _leaves(t):
        out.append(tuple(comps[i:i + n]))
        i += n
    return out


def _leaf_nodes(value, t):
    return [leaf[0][0] for leaf in _leaf_values(value, t)]
