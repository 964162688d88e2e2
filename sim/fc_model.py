"""Reference model of the flow-control stack engine (r500-us.md §2, normative).

One group of L lanes runs in lock-step; ``FlowControl.execute`` performs steps 1-6 of §2 for
one FC instruction. The RTL (``hdl/core/fc_engine.py``) is checked against this model cycle by cycle.

Besides the engine model this module holds builders of FC words for the constructs of §2's
Mesa table (``fc_if``, ``fc_else``, ...) and for THEIA's jumps (``theia_branch``, ``theia_jmp``,
``theia_call``, ``theia_ret``). Programs to run on model and RTL (flat and structured, the
lock-step interpreter, random programs) are in ``sim/fc_programs.py``. The lane states and
error codes (``LaneState``, ``FcError``) are part of the ISA tables, ``hdl/isa/r500.py``.

Project decisions where §2 leaves room (each marked "decision" below):

* ``pred`` is 4 bits per lane, R = bit 0, G = bit 1, B = bit 2, A = bit 3 (the order of
  RGB_OMASK's bits plus ALPHA_OMASK). RGB_PRED_INV inverts the selected predicate, also for
  PRED_SEL NONE (which then gives 1).
* A lane's wish is a function of its own alu_result/pred and the boolean, whatever its state;
  the ACTIVE mask decides who votes and who is affected (so ENDLOOP's "wishes recomputed for the
  lanes now ACTIVE" is just a new voter set).
* Step 5's "the group's decision" is whether the group jumped (after the LOOP KR = 0 rule, the
  ENDLOOP count rule and the BREAK/CONTINUE liveness rule).
* "Nobody live" for CONTINUE does not count CONTINUE(level) lanes (they wait at the ENDLOOP the
  CONTINUE jumps to); for BREAKLOOP/BREAKREP it does (the ENDLOOP they wait at is skipped).
* ENDLOOP, ENDREP, BREAKLOOP, BREAKREP and CONTINUE with an empty loop stack are a loop-stack
  underflow (they name a loop that does not exist).
* The engine executes only legal FC words: A_OP 3, B_OP0/B_OP1 3 (and inst0's RGB_PRED_SEL 6/7)
  make an illegal instruction (§3.6), which the instruction decoder in front of the engine
  rejects before executing anything (``illegal_fc_fields`` names the field; the R500 model calls
  it; THEIA never emits such words). Given one anyway, the engine treats the field as NONE and
  PRED_SEL 6/7 as NONE, as the RTL does.
* A killed lane (§3.5 TEXKILL, ``kill``) is neither live nor a voter and never changes state:
  steps 1-5 skip it, and it updates no alu_result or predicate. The instruction limit (§3.6) is
  the sequencer's: the engine only executes the instructions it is given.
* ENDLOOP adds KB to the top entry's aL; ``aL`` reads the topmost LOOP-kind entry's aL.
* When an instruction raises, the engine state is left as it was before the instruction.
"""

from dataclasses import dataclass
from typing import NamedTuple

from hdl.isa import (LaneState, FcError, QuadFault, QUAD_FAULT_TEXT, US_FC_INST, US_FC_ADDR,
                     US_INT_CONST, FcOp as FcOpcode, AddrOp, BranchOp, PredSel, JumpFunc)

__all__ = [
    "LaneState", "FcError", "ERROR_TEXT", "FlowControlError", "FcAddr", "LoopEntry", "FlowControl",
    "fc_inst", "fc_if", "fc_else", "fc_endif", "fc_loop", "fc_rep", "fc_endloop", "fc_endrep",
    "fc_break", "fc_continue", "fc_call", "fc_ret", "fc_jump",
    "theia_branch", "theia_jmp", "theia_call", "theia_ret", "int_const", "select_int_const",
    "illegal_fc_fields",
]

ERROR_TEXT = {error: QUAD_FAULT_TEXT[QuadFault.from_fc(error)]
              for error in FcError if error != FcError.NONE}


class FlowControlError(Exception):
    """The group stopped with a flow-control error (§2 "Errors")."""

    def __init__(self, code, pc, detail=""):
        self.code = FcError(code)
        self.pc = pc
        text = f"flow-control error at PC {pc:#06x}: {ERROR_TEXT[self.code]}"
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


def sext8(v):
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
        self.killed = [0] * self.lanes
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

    def _moves(self, i):
        """Lane i takes part in the group's decisions and updates: ACTIVE and not killed."""
        return self.lane[i].state == LaneState.ACTIVE and not self.killed[i]

    def active_mask(self):
        """Bit i set when lane i is ACTIVE and not killed: the write enables of the instruction
        at ``pc``."""
        return sum(1 << i for i in range(self.lanes) if self._moves(i))

    def killed_mask(self):
        return sum(1 << i for i in range(self.lanes) if self.killed[i])

    def kill(self, lane_bits):
        """TEXKILL: the lanes set in ``lane_bits`` (int mask or sequence) are killed for the rest
        of the program; their flow-control state stays as it is."""
        for i, bit in enumerate(_bits(lane_bits, self.lanes)):
            self.killed[i] |= bit

    def all_active(self):
        """Every lane that is not killed is ACTIVE (the condition under which LAST ends)."""
        return all(self.killed[i] or self.lane[i].state == LaneState.ACTIVE
                   for i in range(self.lanes))

    def set_alu_result(self, lane_bits):
        """An ALU instruction's per-lane alu_result (int mask or sequence); ACTIVE, unkilled
        lanes only."""
        for i, bit in enumerate(_bits(lane_bits, self.lanes)):
            if self._moves(i):
                self.alu_result[i] = bit

    def set_pred(self, lane_preds, write_mask=0xF):
        """Per-lane 4-bit predicates (R = bit 0 ... A = bit 3); only the bits in ``write_mask``
        (an int for all lanes, or one per lane) are written, only in ACTIVE, unkilled lanes."""
        if len(lane_preds) != self.lanes:
            raise ValueError(f"expected {self.lanes} lane predicates, got {len(lane_preds)}")
        masks = [write_mask] * self.lanes if isinstance(write_mask, int) else list(write_mask)
        for i, (value, mask) in enumerate(zip(lane_preds, masks)):
            if self._moves(i):
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
        # the lanes that take part (killed lanes keep their state); committed only if nothing
        # raises
        lane = {i: l.copy() for i, l in enumerate(self.lane) if not self.killed[i]}
        loop = [LoopEntry(e.count, e.aL, e.kind) for e in self.loop_stack]
        A, BI, BRK, CNT = (LaneState.ACTIVE, LaneState.BRANCH_INACTIVE, LaneState.BREAK,
                           LaneState.CONTINUE)

        # 1. B_ELSE: ACTIVE <-> BRANCH_INACTIVE(0), simultaneously
        if f["B_ELSE"]:
            for l in lane.values():
                if l.state == A:
                    l.state, l.value = BI, 0
                elif l.state == BI and l.value == 0:
                    l.state = A

        # 2. wishes
        b = (bool_const >> a.bool_addr) & 1
        wish = self.wishes(f["JUMP_FUNC"], b, pred_sel, pred_inv)

        # 3. decision among the voters
        def decide():
            voters = [i for i, l in lane.items()
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
                for l in lane.values():
                    if l.state == CNT and l.value == level:
                        l.state, l.value = A, 0
                jump = decide()
                top = loop[-1]
                top.count = (top.count - 1) & 0xFF
                if op == FcOpcode.ENDLOOP:
                    kb = US_INT_CONST.unpack(select_int_const(int_consts, a.int_addr))["KB"]
                    top.aL = (top.aL + sext8(kb)) & 0xFF
                if top.count == 0:
                    jump = False
                if not jump:
                    loop.pop()
                    self._release(lane.values(), BRK, level)
            else:
                to = BRK if op in (FcOpcode.BREAKLOOP, FcOpcode.BREAKREP) else CNT
                for i, l in lane.items():
                    if l.state == A and wish[i]:
                        l.state, l.value = to, level
                live = any(l.state == A or (l.state == BI and l.value < pop_cnt)
                           or (to == BRK and l.state == CNT and l.value == level)
                           for l in lane.values())
                jump = jump and not live
                if jump and to == BRK:
                    loop.pop()
                    self._release(lane.values(), BRK, level)

        # 5. branch counters
        bop = f["B_OP1"] if jump else f["B_OP0"]
        if bop == BranchOp.INCR:
            limit = (1 << self.counter_bits) - 1
            for i, l in lane.items():
                if l.state == BI:
                    if l.value >= limit:
                        raise FlowControlError(FcError.COUNTER_OVERFLOW, pc,
                                               f"lane {i} counter {l.value} + 1")
                    l.value += 1
                elif l.state == A and wish[i] != jump:
                    l.state, l.value = BI, 0
        elif bop == BranchOp.DECR:
            for l in lane.values():
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

        self.lane = [lane.get(i, l) for i, l in enumerate(self.lane)]
        self.loop_stack, self.addr_stack, self.pc = loop, addr, next_pc
        return jump, next_pc

    @staticmethod
    def _release(lanes, state, level):
        for l in lanes:
            if l.state == state and l.value == level:
                l.state, l.value = LaneState.ACTIVE, 0


def illegal_fc_fields(fc_inst_word):
    """Which field makes a US_FC_INST word illegal (§3.6: A_OP 3, B_OP0/B_OP1 3), or None."""
    f = US_FC_INST.unpack(fc_inst_word)
    for name in ("A_OP", "B_OP0", "B_OP1"):
        if f[name] == 3:
            return f"{name} 3"
    return None


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


def fc_jump(target, jump_func, jump_any=0, bool_addr=0, ignore_uncovered=0):
    """A plain JUMP (no branch counters): the whole group goes where its voters decide."""
    return (fc_inst(FcOpcode.JUMP, jump_func, jump_any=jump_any,
                    ignore_uncovered=ignore_uncovered),
            FcAddr(target, bool_addr=bool_addr))


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
