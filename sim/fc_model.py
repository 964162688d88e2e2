"""Reference model of the flow-control stack engine (r500-us.md §2, normative).

One group of L lanes runs in lock-step; ``FlowControl.execute`` performs steps 1-6 of §2 for
one FC instruction. The RTL (``hdl/fc_engine.py``) is checked against this model cycle by cycle.

Besides the engine model this module holds what the tests of model and RTL share:

* builders of FC words for the constructs of §2's Mesa table (``fc_if``, ``fc_else``, ...) and
  for THEIA's jumps (``theia_branch``, ``theia_jmp``, ``theia_call``, ``theia_ret``);
* flat programs (``FcOp`` / ``AluOp`` pseudo-instructions) and ``run_lockstep``, which runs one
  on the model and records, per lane, the ALU pseudo-instructions the lane executed while ACTIVE;
* structured programs (``If``, ``Loop``, ``Break``, ``Continue``, ``Call``, ``Alu``), their
  compiler to flat programs (``compile_program``, Mesa's mapping), ``run_lane`` (each lane alone
  as plain Python structured code: the independent expectation) and ``random_program``.

Project decisions where §2 leaves room (each marked "decision" below):

* ``pred`` is 4 bits per lane, R = bit 0, G = bit 1, B = bit 2, A = bit 3 (the order of
  RGB_OMASK's bits plus ALPHA_OMASK). RGB_PRED_INV inverts the selected predicate, also for
  PRED_SEL NONE (which then gives 1). PRED_SEL 6 and 7 act as NONE.
* A lane's wish is a function of its own alu_result/pred and the boolean, whatever its state;
  the ACTIVE mask decides who votes and who is affected (so ENDLOOP's "wishes recomputed for the
  lanes now ACTIVE" is just a new voter set).
* Step 5's "the group's decision" is whether the group jumped (after the LOOP KR = 0 rule, the
  ENDLOOP count rule and the BREAK/CONTINUE liveness rule).
* "Nobody live" for CONTINUE does not count CONTINUE(level) lanes (they wait at the ENDLOOP the
  CONTINUE jumps to); for BREAKLOOP/BREAKREP it does (the ENDLOOP they wait at is skipped).
* ENDLOOP, ENDREP, BREAKLOOP, BREAKREP and CONTINUE with an empty loop stack are a loop-stack
  underflow (they name a loop that does not exist). A_OP 3 and B_OP 3 act as NONE.
* ENDLOOP adds KB to the top entry's aL; ``aL`` reads the topmost LOOP-kind entry's aL.
* When an instruction raises, the engine state is left as it was before the instruction.
"""

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Callable, NamedTuple

from hdl.isa import (US_FC_INST, US_FC_ADDR, US_INT_CONST, FcOp as FcOpcode, AddrOp, BranchOp,
                     PredSel, JumpFunc)

__all__ = [
    "LaneState", "FcError", "FlowControlError", "FcAddr", "LoopEntry", "FlowControl",
    "fc_inst", "fc_if", "fc_else", "fc_endif", "fc_loop", "fc_rep", "fc_endloop", "fc_endrep",
    "fc_break", "fc_continue", "fc_call", "fc_ret",
    "theia_branch", "theia_jmp", "theia_call", "theia_ret", "int_const", "select_int_const",
    "FcOp", "AluOp", "FlatProgram", "run_lockstep", "LockstepResult", "alu_lane_values",
    "Cond", "Alu", "If", "Loop", "Break", "Continue", "Call", "Program",
    "compile_program", "run_lane", "random_program", "lane_values",
]


class LaneState(IntEnum):
    """A lane's flow-control state; the RTL stores it in 2 bits with these codes."""
    ACTIVE = 0
    BRANCH_INACTIVE = 1     # value = branch counter
    BREAK = 2               # value = loop-stack depth when the BREAK executed
    CONTINUE = 3            # value = loop-stack depth when the CONTINUE executed


class FcError(IntEnum):
    """Error codes (the RTL's ``error_code`` output). Several at once: the lowest step wins
    (loop stack in step 4, counters in step 5, address stack in step 6)."""
    NONE = 0
    ADDR_OVERFLOW = 1
    ADDR_UNDERFLOW = 2
    LOOP_OVERFLOW = 3
    LOOP_UNDERFLOW = 4
    COUNTER_OVERFLOW = 5


_ERROR_TEXT = {
    FcError.ADDR_OVERFLOW: "address stack overflow",
    FcError.ADDR_UNDERFLOW: "address stack underflow",
    FcError.LOOP_OVERFLOW: "loop stack overflow",
    FcError.LOOP_UNDERFLOW: "loop stack underflow",
    FcError.COUNTER_OVERFLOW: "branch counter overflow",
}


class FlowControlError(Exception):
    """The group stopped with a flow-control error (§2 "Errors")."""

    def __init__(self, code, pc, detail=""):
        self.code = FcError(code)
        self.pc = pc
        text = f"flow-control error at PC {pc:#06x}: {_ERROR_TEXT[self.code]}"
        super().__init__(f"{text} ({detail})" if detail else text)


class FcAddr(NamedTuple):
    """The fields of US_FC_ADDR, with a jump address of the engine's width (16 bits for THEIA
    does not fit the 9-bit JUMP_ADDR of the 32-bit word, hence this tuple)."""
    jump_addr: int
    bool_addr: int = 0
    int_addr: int = 0
    jump_global: int = 1

    @classmethod
    def from_word(cls, word):
        f = US_FC_ADDR.unpack(word)
        return cls(f["JUMP_ADDR"], f["BOOL_ADDR"], f["INT_ADDR"], f["JUMP_GLOBAL"])

    @property
    def word(self):
        """As a US_FC_ADDR word (raises ValueError if the jump address needs more than 9 bits)."""
        return US_FC_ADDR.pack(JUMP_ADDR=self.jump_addr, BOOL_ADDR=self.bool_addr,
                               INT_ADDR=self.int_addr, JUMP_GLOBAL=self.jump_global)


@dataclass
class LoopEntry:
    count: int
    aL: int
    kind: FcOpcode          # FcOpcode.LOOP or FcOpcode.REP


@dataclass
class Lane:
    state: LaneState = LaneState.ACTIVE
    value: int = 0          # branch counter (BRANCH_INACTIVE) or loop level (BREAK/CONTINUE)

    def copy(self):
        return Lane(self.state, self.value)

    def __repr__(self):
        if self.state == LaneState.ACTIVE:
            return "ACTIVE"
        return f"{self.state.name}({self.value})"


def _sext8(v):
    return v - 256 if v & 0x80 else v


def _bits(value, lanes):
    """Per-lane bits from an int bit mask (bit i = lane i) or a sequence."""
    if isinstance(value, int):
        return [(value >> i) & 1 for i in range(lanes)]
    value = [int(bool(v)) for v in value]
    if len(value) != lanes:
        raise ValueError(f"expected {lanes} lane values, got {len(value)}")
    return value


class FlowControl:
    """The engine's state for one group of ``lanes`` lanes and the FC instruction semantics."""

    def __init__(self, lanes, loop_depth=8, addr_depth=8, counter_bits=6, jump_addr_bits=16):
        if lanes < 1 or loop_depth < 0 or addr_depth < 0 or counter_bits < 1:
            raise ValueError("lanes >= 1, depths >= 0, counter_bits >= 1")
        self.lanes = lanes
        self.loop_depth = loop_depth
        self.addr_depth = addr_depth
        self.counter_bits = counter_bits
        self.jump_addr_bits = jump_addr_bits
        self.start(0)

    # --- state -------------------------------------------------------------------------------

    def start(self, pc, covered=None, code_offset=0):
        """Start of a program: all lanes ACTIVE (counter 0), alu_result = pred = 0, stacks empty."""
        self.pc = pc & self.pc_mask
        self.code_offset = code_offset & self.pc_mask
        self.covered = [1] * self.lanes if covered is None else _bits(covered, self.lanes)
        self.lane = [Lane() for _ in range(self.lanes)]
        self.alu_result = [0] * self.lanes
        self.pred = [0] * self.lanes
        self.loop_stack = []
        self.addr_stack = []

    @property
    def pc_mask(self):
        return (1 << self.jump_addr_bits) - 1

    @property
    def aL(self):
        """The topmost LOOP entry's aL (0 when there is none)."""
        for entry in reversed(self.loop_stack):
            if entry.kind == FcOpcode.LOOP:
                return entry.aL
        return 0

    def active_mask(self):
        """Bit i set when lane i is ACTIVE: the write enables of the instruction at ``pc``."""
        return sum(1 << i for i, lane in enumerate(self.lane) if lane.state == LaneState.ACTIVE)

    def set_alu_result(self, lane_bits):
        """An ALU instruction's per-lane alu_result (int mask or sequence); ACTIVE lanes only."""
        for i, bit in enumerate(_bits(lane_bits, self.lanes)):
            if self.lane[i].state == LaneState.ACTIVE:
                self.alu_result[i] = bit

    def set_pred(self, lane_preds, write_mask=0xF):
        """Per-lane 4-bit predicates (R = bit 0 ... A = bit 3); only the bits in ``write_mask``
        (an int for all lanes, or one per lane) are written, only in ACTIVE lanes."""
        if len(lane_preds) != self.lanes:
            raise ValueError(f"expected {self.lanes} lane predicates, got {len(lane_preds)}")
        masks = [write_mask] * self.lanes if isinstance(write_mask, int) else list(write_mask)
        for i, (value, mask) in enumerate(zip(lane_preds, masks)):
            if self.lane[i].state == LaneState.ACTIVE:
                self.pred[i] = (self.pred[i] & ~mask | value & mask) & 0xF

    def advance(self):
        """PC += 1 after a non-FC instruction."""
        self.pc = (self.pc + 1) & self.pc_mask

    # --- one FC instruction ------------------------------------------------------------------

    def _predicate(self, lane, pred_sel, pred_inv):
        pred = self.pred[lane]
        if pred_sel == PredSel.RGBA:
            p = int(pred == 0xF)
        elif PredSel.RRRR <= pred_sel <= PredSel.AAAA:
            p = (pred >> (pred_sel - PredSel.RRRR)) & 1
        else:                       # NONE (and the reserved 6, 7)
            p = 0
        return p ^ (pred_inv & 1)

    def wishes(self, jump_func, b, pred_sel=0, pred_inv=0):
        """Step 2 for every lane: bit (alu_result << 2 | p << 1 | b) of JUMP_FUNC."""
        return [(jump_func >> (self.alu_result[i] << 2 | self._predicate(i, pred_sel, pred_inv) << 1
                               | b)) & 1 for i in range(self.lanes)]

    def execute(self, fc_inst_word, fc_addr_word, bool_const=0, int_consts=None,
                pred_sel=0, pred_inv=0):
        """Execute the FC instruction at ``self.pc``: steps 1-6 of §2.

        ``fc_inst_word`` is a US_FC_INST word; ``fc_addr_word`` a US_FC_ADDR word or an FcAddr;
        ``int_consts`` the 32 INT_CONST words (a sequence or a dict; missing ones read 0);
        ``pred_sel``/``pred_inv`` are inst0's RGB_PRED_SEL / RGB_PRED_INV.
        Returns ``(jumped, next_pc)`` and moves ``pc`` there; raises FlowControlError.
        """
        f = US_FC_INST.unpack(fc_inst_word)
        a = fc_addr_word if isinstance(fc_addr_word, FcAddr) else FcAddr.from_word(fc_addr_word)
        pc = self.pc
        op = FcOpcode(f["OP"])
        lane = [l.copy() for l in self.lane]            # committed only if nothing raises
        loop = [LoopEntry(e.count, e.aL, e.kind) for e in self.loop_stack]
        A, BI, BRK, CNT = (LaneState.ACTIVE, LaneState.BRANCH_INACTIVE, LaneState.BREAK,
                           LaneState.CONTINUE)

        # 1. B_ELSE: ACTIVE <-> BRANCH_INACTIVE(0), simultaneously
        if f["B_ELSE"]:
            for l in lane:
                if l.state == A:
                    l.state, l.value = BI, 0
                elif l.state == BI and l.value == 0:
                    l.state = A

        # 2. wishes
        b = (bool_const >> a.bool_addr) & 1
        wish = self.wishes(f["JUMP_FUNC"], b, pred_sel, pred_inv)

        # 3. decision among the voters
        def decide():
            voters = [i for i, l in enumerate(lane)
                      if l.state == A and (self.covered[i] or not f["IGNORE_UNCOVERED"])]
            if f["JUMP_ANY"]:
                return any(wish[i] for i in voters)
            return all(wish[i] for i in voters)

        jump = decide()
        pop_cnt = f["B_POP_CNT"]

        # 4. opcode
        if op in (FcOpcode.LOOP, FcOpcode.REP):
            k = US_INT_CONST.unpack(select_int_const(int_consts, a.int_addr))
            if k["KR"] == 0:
                jump = True
            if len(loop) >= self.loop_depth:
                raise FlowControlError(FcError.LOOP_OVERFLOW, pc, f"{op.name} at depth {len(loop)}")
            # a jumping LOOP pushes a placeholder that its ENDLOOP pops
            kind = FcOpcode.LOOP if op == FcOpcode.LOOP else FcOpcode.REP
            loop.append(LoopEntry(1 if jump else k["KR"], k["KG"], kind))
        elif op != FcOpcode.JUMP:
            if not loop:
                raise FlowControlError(FcError.LOOP_UNDERFLOW, pc, f"{op.name} outside any loop")
            level = len(loop)
            if op in (FcOpcode.ENDLOOP, FcOpcode.ENDREP):
                for l in lane:
                    if l.state == CNT and l.value == level:
                        l.state, l.value = A, 0
                jump = decide()
                top = loop[-1]
                top.count = (top.count - 1) & 0xFF
                if op == FcOpcode.ENDLOOP:
                    kb = US_INT_CONST.unpack(select_int_const(int_consts, a.int_addr))["KB"]
                    top.aL = (top.aL + _sext8(kb)) & 0xFF
                if top.count == 0:
                    jump = False
                if not jump:
                    loop.pop()
                    self._release(lane, BRK, level)
            else:
                to = BRK if op in (FcOpcode.BREAKLOOP, FcOpcode.BREAKREP) else CNT
                for i, l in enumerate(lane):
                    if l.state == A and wish[i]:
                        l.state, l.value = to, level
                live = any(l.state == A or (l.state == BI and l.value < pop_cnt)
                           or (to == BRK and l.state == CNT and l.value == level) for l in lane)
                jump = jump and not live
                if jump and to == BRK:
                    loop.pop()
                    self._release(lane, BRK, level)

        # 5. branch counters
        bop = f["B_OP1"] if jump else f["B_OP0"]
        if bop == BranchOp.INCR:
            limit = (1 << self.counter_bits) - 1
            for i, l in enumerate(lane):
                if l.state == BI:
                    if l.value >= limit:
                        raise FlowControlError(FcError.COUNTER_OVERFLOW, pc,
                                               f"lane {i} counter {l.value} + 1")
                    l.value += 1
                elif l.state == A and wish[i] != jump:
                    l.state, l.value = BI, 0
        elif bop == BranchOp.DECR:
            for l in lane:
                if l.state == BI:
                    if l.value < pop_cnt:
                        l.state, l.value = A, 0
                    else:
                        l.value -= pop_cnt

        # 6. PC
        addr = list(self.addr_stack)
        if jump:
            if f["A_OP"] == AddrOp.PUSH:
                if len(addr) >= self.addr_depth:
                    raise FlowControlError(FcError.ADDR_OVERFLOW, pc, f"push at depth {len(addr)}")
                addr.append((pc + 1) & self.pc_mask)
            if f["A_OP"] == AddrOp.POP:
                if not addr:
                    raise FlowControlError(FcError.ADDR_UNDERFLOW, pc, "pop of an empty stack")
                next_pc = addr.pop()
            else:
                next_pc = a.jump_addr + (0 if a.jump_global else self.code_offset)
        else:
            next_pc = pc + 1
        next_pc &= self.pc_mask

        self.lane, self.loop_stack, self.addr_stack, self.pc = lane, loop, addr, next_pc
        return jump, next_pc

    @staticmethod
    def _release(lane, state, level):
        for l in lane:
            if l.state == state and l.value == level:
                l.state, l.value = LaneState.ACTIVE, 0


def select_int_const(int_consts, index):
    """INT_CONST[index] of a sequence or dict of words (missing ones read 0)."""
    if int_consts is None:
        return 0
    if isinstance(int_consts, dict):
        return int_consts.get(index, 0)
    return int_consts[index] if index < len(int_consts) else 0


# --- FC word builders (§2's Mesa table, THEIA's jumps) ------------------------------------------

def fc_inst(op=FcOpcode.JUMP, jump_func=JumpFunc.NEVER, *, jump_any=0, b_else=0,
            a_op=AddrOp.NONE, pop_cnt=0, b_op0=BranchOp.NONE, b_op1=BranchOp.NONE,
            ignore_uncovered=0):
    return US_FC_INST.pack(OP=int(op), JUMP_FUNC=int(jump_func), JUMP_ANY=jump_any,
                           B_ELSE=b_else, A_OP=int(a_op), B_POP_CNT=pop_cnt, B_OP0=int(b_op0),
                           B_OP1=int(b_op1), IGNORE_UNCOVERED=ignore_uncovered)


def fc_if(target, has_else=True, jump_func=JumpFunc.NOT_ALU, bool_addr=0):
    """IF: jump (to ELSE+1, or ENDIF+1 without ELSE) when every voter wants to skip the body."""
    return (fc_inst(FcOpcode.JUMP, jump_func, b_op0=BranchOp.INCR,
                    b_op1=BranchOp.INCR if has_else else BranchOp.NONE, ignore_uncovered=1),
            FcAddr(target, bool_addr=bool_addr))


def fc_else(target):
    """ELSE, target ENDIF+1: swap ACTIVE and BRANCH_INACTIVE(0); jump (doing ENDIF's DECR)
    when no lane is left ACTIVE."""
    return (fc_inst(FcOpcode.JUMP, JumpFunc.NEVER, b_else=1, b_op1=BranchOp.DECR, pop_cnt=1),
            FcAddr(target))


def fc_endif(target):
    """ENDIF (target = its own address + 1): DECR by 1, never jumps."""
    return (fc_inst(FcOpcode.JUMP, JumpFunc.NEVER, jump_any=1, b_op0=BranchOp.DECR, pop_cnt=1),
            FcAddr(target))


def fc_loop(endloop_addr, int_addr):
    return (fc_inst(FcOpcode.LOOP, JumpFunc.NEVER, ignore_uncovered=1),
            FcAddr(endloop_addr, int_addr=int_addr))


def fc_rep(endrep_addr, int_addr):
    return (fc_inst(FcOpcode.REP, JumpFunc.NEVER, ignore_uncovered=1),
            FcAddr(endrep_addr, int_addr=int_addr))


def fc_endloop(loop_addr_plus_1, int_addr):
    return (fc_inst(FcOpcode.ENDLOOP, JumpFunc.ALWAYS, jump_any=1, ignore_uncovered=1),
            FcAddr(loop_addr_plus_1, int_addr=int_addr))


def fc_endrep(rep_addr_plus_1, int_addr):
    return (fc_inst(FcOpcode.ENDREP, JumpFunc.ALWAYS, jump_any=1, ignore_uncovered=1),
            FcAddr(rep_addr_plus_1, int_addr=int_addr))


def fc_break(endloop_addr_plus_1, depth, rep=False, jump_func=JumpFunc.ALWAYS, bool_addr=0):
    """BREAK with ``depth`` IFs open between the loop and it (B_POP_CNT = d)."""
    return (fc_inst(FcOpcode.BREAKREP if rep else FcOpcode.BREAKLOOP, jump_func,
                    b_op1=BranchOp.DECR, pop_cnt=depth, ignore_uncovered=1),
            FcAddr(endloop_addr_plus_1, bool_addr=bool_addr))


def fc_continue(endloop_addr, depth, jump_func=JumpFunc.ALWAYS, bool_addr=0):
    return (fc_inst(FcOpcode.CONTINUE, jump_func, b_op1=BranchOp.DECR, pop_cnt=depth,
                    ignore_uncovered=1),
            FcAddr(endloop_addr, bool_addr=bool_addr))


def fc_call(target):
    return fc_inst(FcOpcode.JUMP, JumpFunc.ALWAYS, a_op=AddrOp.PUSH), FcAddr(target)


def fc_ret():
    return fc_inst(FcOpcode.JUMP, JumpFunc.ALWAYS, a_op=AddrOp.POP), FcAddr(0)


def theia_branch(target):
    """A THEIA conditional jump: alu_result = the comparison, jump to DST when it holds."""
    return fc_inst(FcOpcode.JUMP, JumpFunc.ALU), FcAddr(target)


def theia_jmp(target):
    return fc_inst(FcOpcode.JUMP, JumpFunc.ALWAYS), FcAddr(target)


theia_call = fc_call
theia_ret = fc_ret


def int_const(count, initial=0, increment=0):
    """An INT_CONST word: KR = iteration count, KG = initial aL, KB = signed aL increment."""
    return US_INT_CONST.pack(KR=count, KG=initial, KB=increment & 0xFF)


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
                        al_stack[-1] = (al_stack[-1] + _sext8(kw["KB"])) & 0xFF
                al_stack.pop()
            elif isinstance(node, Break):
                if node.cond is None or cond(node.cond):
                    raise _Break()
            elif isinstance(node, Continue):
                if node.cond is None or cond(node.cond):
                    raise _Continue()
            elif isinstance(node, Call):
                run(program.functions[node.func])

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
