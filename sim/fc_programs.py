"""Flow-control programs for the tests of the model (sim/fc_model.py) and the RTL engine.

* flat programs (``FcOp`` / ``AluOp`` pseudo-instructions) and ``run_lockstep``, which runs one
  on the model and records, per lane, the ALU pseudo-instructions the lane executed while ACTIVE;
* structured programs (``If``, ``Loop``, ``Break``, ``Continue``, ``Call``, ``Alu``), their
  compiler to flat programs (``compile_program``, Mesa's mapping), ``run_lane`` (each lane alone
  as plain Python structured code: the independent expectation) and ``random_program``;
* two group-level nodes that have no per-lane meaning (``run_lane`` rejects them) and that the
  R500 random programs use: ``Jump`` (a plain conditional jump over a block, which every lane
  follows) and ``Fc`` (one FC instruction as given, e.g. a misplaced ENDLOOP).
"""

from dataclasses import dataclass, field
from typing import Callable, NamedTuple

from hdl.isa import US_INT_CONST, PredSel, JumpFunc
from sim.fc_model import (FcAddr, FlowControl, fc_if, fc_else, fc_endif,
                          fc_loop, fc_rep, fc_endloop, fc_endrep, fc_break, fc_continue,
                          fc_call, fc_ret, fc_jump, int_const, select_int_const, sext8)

__all__ = [
    "FcOp", "AluOp", "FlatProgram", "run_lockstep", "LockstepResult", "alu_lane_values",
    "Cond", "Alu", "If", "Loop", "Break", "Continue", "Call", "Jump", "Fc", "Program",
    "compile_program", "run_lane", "random_program", "lane_values",
]


# --- flat programs and the lock-step interpreter ---------------------------------------------

@dataclass(frozen=True)
class FcOp:
    """An FC instruction of a flat program (inst0's predicate fields alongside)."""
    inst: int
    addr: FcAddr
    pred_sel: int = 0
    pred_inv: int = 0
    note: str = ""


@dataclass(frozen=True)
class AluOp:
    """An ALU pseudo-instruction: ``fn(lane, k)`` -> (alu_result bit, 4-bit pred) for the k-th
    time (0-based) this lane executes it; ``fn`` None writes nothing."""
    id: int
    fn: Callable = None


@dataclass
class FlatProgram:
    code: list
    base: int = 0                   # address of code[0]
    end: int = None                 # the program ends when PC reaches this (default: past code)
    int_consts: list = field(default_factory=lambda: [0] * 32)
    bool_const: int = 0
    code_offset: int = 0            # added to jump addresses with JUMP_GLOBAL = 0

    def __post_init__(self):
        if self.end is None:
            self.end = self.base + len(self.code)

    def at(self, pc):
        if not self.base <= pc < self.base + len(self.code):
            raise IndexError(f"PC {pc:#06x} outside the program ({self.base:#06x}.."
                             f"{self.base + len(self.code) - 1:#06x})")
        return self.code[pc - self.base]


@dataclass
class LockstepResult:
    traces: list            # per lane: [(alu id, aL), ...] of the ALU ops it executed ACTIVE
    steps: int
    fc: FlowControl         # the final engine state


def run_lockstep(program, lanes, covered=None, fc=None, max_steps=100_000, on_step=None):
    """Run a flat program on the model (a fresh ``FlowControl(lanes)`` unless ``fc`` is given)
    until PC reaches ``program.end``; ``on_step(pc, insn)`` is called before each instruction.
    Raises FlowControlError as the model does."""
    fc = fc or FlowControl(lanes)
    fc.start(program.base, covered, program.code_offset)
    traces = [[] for _ in range(lanes)]
    counts = [{} for _ in range(lanes)]
    steps = 0
    while fc.pc != program.end:
        if steps >= max_steps:
            raise RuntimeError(f"program did not end within {max_steps} steps")
        insn = program.at(fc.pc)
        if on_step:
            on_step(fc.pc, insn)
        if isinstance(insn, AluOp):
            alu_bits, preds = alu_lane_values(insn, fc.active_mask(), lanes, counts, traces, fc.aL)
            if insn.fn is not None:
                fc.set_alu_result(alu_bits)
                fc.set_pred(preds)
            fc.advance()
        else:
            fc.execute(insn.inst, insn.addr, program.bool_const, program.int_consts,
                       insn.pred_sel, insn.pred_inv)
        steps += 1
    return LockstepResult(traces, steps, fc)


def alu_lane_values(insn, active_mask, lanes, counts, traces, aL):
    """Record the ALU op in the traces of the ACTIVE lanes and compute their new values
    (inactive lanes get 0: the engine ignores them). With ``insn.fn`` None nothing is to be
    written (all values 0)."""
    alu_bits, preds = [0] * lanes, [0] * lanes
    for i in range(lanes):
        if active_mask >> i & 1:
            k = counts[i].get(insn.id, 0)
            counts[i][insn.id] = k + 1
            traces[i].append((insn.id, aL))
            if insn.fn is not None:
                alu_bits[i], preds[i] = insn.fn(i, k)
    return alu_bits, preds


# --- structured programs ---------------------------------------------------------------------

@dataclass(frozen=True)
class Cond:
    """A lane condition: ``source`` "alu" (alu_result), "pred" (with ``pred_sel``) or "bool"
    (BOOL_CONST bit ``bool_addr``); ``inv`` negates it."""
    source: str = "alu"
    inv: bool = False
    pred_sel: int = PredSel.NONE
    bool_addr: int = 0

    def jump_func(self, jump_if):
        """JUMP_FUNC that jumps when the condition is ``jump_if``."""
        positive = {"alu": JumpFunc.ALU, "pred": JumpFunc.PRED, "bool": JumpFunc.BOOL}[self.source]
        negative = {"alu": JumpFunc.NOT_ALU, "pred": JumpFunc.NOT_PRED,
                    "bool": JumpFunc.NOT_BOOL}[self.source]
        inv = self.inv and self.source != "pred"    # a pred condition inverts through INV
        return positive if jump_if != inv else negative

    def fc_fields(self):
        """(pred_sel, pred_inv) for inst0."""
        if self.source != "pred":
            return 0, 0
        return self.pred_sel, int(self.inv)


@dataclass
class Alu:
    id: int
    fn: Callable = None     # fn(lane, k) -> (alu bit, pred4)


@dataclass
class If:
    cond: Cond
    then: list
    else_: list = None


@dataclass
class Loop:
    int_addr: int
    body: list
    rep: bool = False


@dataclass
class Break:
    cond: Cond = None       # None: unconditional (Mesa puts it in an IF); else BREAK's JUMP_FUNC


@dataclass
class Continue:
    cond: Cond = None


@dataclass
class Call:
    func: str


@dataclass
class Jump:
    """JUMP past ``body`` when the voters want to (every one of them, or with ``jump_any`` one):
    the whole group goes one way (no branch counters). ``pred`` is inst0's (PRED_SEL, PRED_INV)."""
    body: list
    jump_func: int
    jump_any: bool = False
    pred: tuple = (0, 0)
    bool_addr: int = 0
    ignore_uncovered: bool = False


@dataclass
class Fc:
    """One FC instruction as given: a builder's (US_FC_INST word, FcAddr), its jump address
    taken as it is (not placed or made relative)."""
    built: tuple
    pred: tuple = (0, 0)
    note: str = ""


@dataclass
class Program:
    main: list
    functions: dict = field(default_factory=dict)
    int_consts: list = field(default_factory=lambda: [0] * 32)
    bool_const: int = 0


class _Label:
    """A code address, known once the code is laid out."""
    addr = None


class _At(NamedTuple):
    label: _Label
    offset: int = 0


class _PendingFc(NamedTuple):
    builder: Callable       # fc_if, fc_loop, ...: (args) -> (inst word, FcAddr)
    args: tuple             # may hold _At references
    pred: tuple             # (pred_sel, pred_inv)
    note: str


def compile_program(program, base=0, relative=False):
    """Mesa's mapping (§2 table) of a structured program to a flat program: main, then the
    program end, then the functions (each ending in RET). With ``relative`` the jump addresses
    are relative to ``base`` (JUMP_GLOBAL = 0, code offset = base), as R500 programs have them."""
    code = []
    functions = {name: _Label() for name in program.functions}

    def fc(builder, *args, pred=(0, 0), note=""):
        code.append(_PendingFc(builder, args, pred, note))

    def place(label):
        label.addr = base + len(code)

    def block(nodes, loop, depth):
        # loop: (rep, ENDLOOP label) of the innermost loop; depth: IFs open inside that loop
        for node in nodes:
            if isinstance(node, Alu):
                code.append(AluOp(node.id, node.fn))
            elif isinstance(node, If):
                c, has_else = node.cond, node.else_ is not None
                else_, endif = _Label(), _Label()
                fc(fc_if, _At(else_ if has_else else endif, 1), has_else, c.jump_func(False),
                   c.bool_addr, pred=c.fc_fields(), note="IF")
                block(node.then, loop, depth + 1)
                if has_else:
                    place(else_)
                    fc(fc_else, _At(endif, 1), note="ELSE")
                    block(node.else_, loop, depth + 1)
                place(endif)
                fc(fc_endif, _At(endif, 1), note="ENDIF")
            elif isinstance(node, Loop):
                start, end = _Label(), _Label()
                place(start)
                fc(fc_rep if node.rep else fc_loop, _At(end), node.int_addr,
                   note="REP" if node.rep else "LOOP")
                block(node.body, (node.rep, end), 0)
                place(end)
                fc(fc_endrep if node.rep else fc_endloop, _At(start, 1), node.int_addr,
                   note="ENDREP" if node.rep else "ENDLOOP")
            elif isinstance(node, (Break, Continue)):
                if loop is None:
                    raise ValueError(f"{type(node).__name__} outside a loop")
                rep, end = loop
                c = node.cond
                jf = JumpFunc.ALWAYS if c is None else c.jump_func(True)
                pred = (0, 0) if c is None else c.fc_fields()
                bool_addr = 0 if c is None else c.bool_addr
                if isinstance(node, Break):
                    fc(fc_break, _At(end, 1), depth, rep, jf, bool_addr, pred=pred, note="BREAK")
                else:
                    fc(fc_continue, _At(end), depth, jf, bool_addr, pred=pred, note="CONTINUE")
            elif isinstance(node, Call):
                if node.func not in functions:
                    raise ValueError(f"CALL of an undefined function {node.func!r}")
                fc(fc_call, _At(functions[node.func]), note=f"CALL {node.func}")
            elif isinstance(node, Jump):
                past = _Label()
                fc(fc_jump, _At(past), node.jump_func, int(node.jump_any), node.bool_addr,
                   int(node.ignore_uncovered), pred=node.pred, note="JUMP")
                block(node.body, loop, depth)
                place(past)
            elif isinstance(node, Fc):
                code.append(FcOp(*node.built, *node.pred, node.note))
            else:
                raise TypeError(f"not a structured-program node: {node!r}")

    block(program.main, None, 0)
    end = base + len(code)
    code.append(AluOp(-1))      # never executed: the program ends when PC reaches it
    for name, body in program.functions.items():
        place(functions[name])
        block(body, None, 0)
        fc(fc_ret, note=f"RET {name}")

    def resolve(arg):
        if not isinstance(arg, _At):
            return arg
        addr = arg.label.addr + arg.offset
        return addr - base if relative else addr

    flat = []
    for item in code:
        if isinstance(item, _PendingFc):
            inst, addr = item.builder(*map(resolve, item.args))
            if relative and item.builder is not fc_ret:
                addr = addr._replace(jump_global=0)
            item = FcOp(inst, addr, *item.pred, item.note)
        flat.append(item)
    return FlatProgram(flat, base, end, list(program.int_consts), program.bool_const,
                       base if relative else 0)


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


def run_lane(program, lane):
    """The independent expectation: lane ``lane`` alone, as plain Python structured code.
    Returns [(alu id, aL), ...] of the ALU instructions it executes, in order."""
    trace, counts = [], {}
    regs = {"alu": 0, "pred": 0}
    al_stack = []           # aL of each open loop (None for REP)

    def cond(c):
        if c.source == "alu":
            v = regs["alu"]
        elif c.source == "pred":
            pred = regs["pred"]
            if c.pred_sel == PredSel.RGBA:
                v = int(pred == 0xF)
            elif PredSel.RRRR <= c.pred_sel <= PredSel.AAAA:
                v = (pred >> (c.pred_sel - PredSel.RRRR)) & 1
            else:
                v = 0
        else:
            v = (program.bool_const >> c.bool_addr) & 1
        return bool(v) != c.inv

    def aL():
        for v in reversed(al_stack):
            if v is not None:
                return v
        return 0

    def run(nodes):
        for node in nodes:
            if isinstance(node, Alu):
                k = counts.get(node.id, 0)
                counts[node.id] = k + 1
                trace.append((node.id, aL()))
                if node.fn is not None:
                    regs["alu"], regs["pred"] = node.fn(lane, k)
            elif isinstance(node, If):
                if cond(node.cond):
                    run(node.then)
                elif node.else_ is not None:
                    run(node.else_)
            elif isinstance(node, Loop):
                kw = US_INT_CONST.unpack(select_int_const(program.int_consts, node.int_addr))
                al_stack.append(None if node.rep else kw["KG"])
                for _ in range(kw["KR"]):
                    try:
                        run(node.body)
                    except _Continue:
                        pass
                    except _Break:
                        break
                    if not node.rep:
                        al_stack[-1] = (al_stack[-1] + sext8(kw["KB"])) & 0xFF
                al_stack.pop()
            elif isinstance(node, Break):
                if node.cond is None or cond(node.cond):
                    raise _Break()
            elif isinstance(node, Continue):
                if node.cond is None or cond(node.cond):
                    raise _Continue()
            elif isinstance(node, Call):
                run(program.functions[node.func])
            else:
                raise TypeError(f"no per-lane meaning: {node!r}")

    run(program.main)
    return trace


# --- random structured programs --------------------------------------------------------------

def _mix(*values):
    h = 0x2545F491
    for v in values:
        h = (h ^ (v & 0xFFFFFFFF)) * 0x9E3779B1 & 0xFFFFFFFF
        h ^= h >> 15
        h = h * 0x85EBCA77 & 0xFFFFFFFF
        h ^= h >> 13
    return h


def lane_values(seed, alu_id, uniform):
    """fn(lane, k) for an ALU op: pseudo-random alu bit and pred bits per (lane, k); with
    ``uniform`` every lane gets the same values (uniform control flow)."""
    def fn(lane, k):
        h = _mix(seed, alu_id, 0 if uniform else lane + 1, k)
        return h & 1, (h >> 1) & 0xF
    return fn


def random_program(rng, max_loop_nest=3, max_if_nest=4, max_stmts=40, max_calls=2,
                   max_count=3):
    """A random structured program: nested IF/ELSE, LOOP/REP, BREAK/CONTINUE (unconditional in
    an IF, or conditional through JUMP_FUNC), CALLs of functions (no recursion), with per-lane
    or uniform conditions. Loop nesting across calls stays within ``max_loop_nest``."""
    seed = rng.getrandbits(32)
    next_id = [0]
    budget = [max_stmts]

    def alu(uniform=None):
        i = next_id[0]
        next_id[0] += 1
        if uniform is None:
            uniform = rng.random() < 0.3
        return Alu(i, lane_values(seed, i, uniform))

    def cond():
        r = rng.random()
        inv = rng.random() < 0.3
        if r < 0.65:
            return Cond("alu", inv)
        if r < 0.9:
            return Cond("pred", inv, rng.randint(PredSel.NONE, PredSel.AAAA))
        return Cond("bool", inv, bool_addr=rng.randrange(32))

    # functions: f0 .. fn-1, fi may call fj only for j > i; each has a loop-nesting budget
    n_funcs = rng.randint(0, max_calls)
    names = [f"f{i}" for i in range(n_funcs)]
    func_nest = {}          # loops a call of the function can add (incl. its callees)

    def body(loop_avail, if_nest, in_loop, callable_funcs, size):
        nodes = []
        for _ in range(size):
            if budget[0] <= 0:
                break
            budget[0] -= 1
            r = rng.random()
            if r < 0.35 or if_nest >= max_if_nest and loop_avail <= 0:
                nodes.append(alu())
            elif r < 0.6 and if_nest < max_if_nest:
                c = cond()
                pre = [alu()] if c.source != "bool" else []
                then = body(loop_avail, if_nest + 1, in_loop, callable_funcs,
                            rng.randint(1, 3))
                else_ = (body(loop_avail, if_nest + 1, in_loop, callable_funcs,
                              rng.randint(1, 3)) if rng.random() < 0.5 else None)
                nodes += pre + [If(c, then, else_)]
            elif r < 0.78 and loop_avail > 0:
                loop_body = body(loop_avail - 1, if_nest, True, callable_funcs, rng.randint(1, 4))
                nodes.append(Loop(rng.randrange(8), loop_body, rep=rng.random() < 0.35))
            elif r < 0.9 and in_loop:
                kind = Break if rng.random() < 0.5 else Continue
                if rng.random() < 0.5:
                    c = cond()
                    nodes += ([alu()] if c.source != "bool" else []) + [kind(c)]
                elif if_nest < max_if_nest:
                    c = cond()
                    nodes += ([alu()] if c.source != "bool" else []) + [If(c, [kind()])]
                else:
                    nodes.append(kind())
            elif callable_funcs:
                f = rng.choice(callable_funcs)
                if func_nest[f] <= loop_avail:
                    nodes.append(Call(f))
                else:
                    nodes.append(alu())
            else:
                nodes.append(alu())
        return nodes or [alu()]

    functions = {}
    for i in reversed(range(n_funcs)):      # callees first, so their loop needs are known
        nest = rng.randint(0, 1)
        budget[0] = max_stmts // 3
        callees = names[i + 1:]
        functions[names[i]] = body(nest, 0, False, [c for c in callees if func_nest[c] <= nest],
                                   rng.randint(1, 4))
        # calls inside check the callee's need against the loops still available, so a call
        # of this function never opens more than ``nest`` loops
        func_nest[names[i]] = nest
    budget[0] = max_stmts
    main = body(max_loop_nest, 0, False, names, rng.randint(3, 8))

    int_consts = [0] * 32
    for i in range(8):
        count = rng.choice([0] + [rng.randint(1, max_count)] * 6)
        int_consts[i] = int_const(count, rng.randrange(256), rng.randint(-8, 8))
    return Program(main, functions, int_consts, rng.getrandbits(32))
