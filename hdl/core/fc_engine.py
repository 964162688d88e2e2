"""The flow-control stack engine (r500-us.md §2): one FC decision per cycle for a group of lanes.

Used with ``lanes = 1`` by the THEIA core for every control transfer (conditional jumps, JMP,
CALL, RET) and with ``lanes = 4`` (a 2x2 quad) by the R500 shader core. ``sim/fc_model.py`` is
the reference; the project decisions listed there hold here too.

The core owns the PC and the program; the engine owns the lane states and both stacks.

Inputs (sampled in the cycle they are given):

* ``start``: strobe; the state becomes the start state (all lanes ACTIVE with counter 0,
  alu_result = pred = 0, both stacks empty). An instruction or ALU write given in the same
  cycle already sees the start state, so a routine's first instruction needs no extra cycle.
* ``valid``: an FC instruction executes this cycle, at address ``pc``, with ``inst``
  (US_FC_INST), ``addr`` (``fc_addr_layout``: US_FC_ADDR's fields with a jump address of
  ``jump_addr_bits``), ``bool_const`` (all 32 static booleans), ``int_const`` (the INT_CONST word
  that ``addr.int_addr`` selects: the core does the lookup), ``pred_sel``/``pred_inv`` (inst0's
  RGB_PRED_SEL / RGB_PRED_INV) and ``code_offset`` (added to the jump address unless
  ``addr.jump_global``).
* ``covered`` (per lane; default all 1).
* ``killed`` (per lane; default 0): lanes a TEXKILL removed (§3.5). A killed lane neither votes
  nor counts as live, keeps its lane state through every step and takes no ``alu_result`` or
  predicate update. Lanes = 1 users leave it at 0, where it is a constant and costs nothing.
* ``alu_result_we``/``alu_result`` and ``pred_we``/``pred`` (per lane; pred 4 bits, R = bit 0,
  with a per-bit write enable): an ALU instruction's results. They land only in ACTIVE, unkilled
  lanes; given in the same cycle as an FC instruction, the FC decision already sees them.

Outputs (combinational from the inputs and the state, so the core can redirect fetch in the same
cycle):

* ``jump`` (valid and the group jumps), ``next_pc`` (the target if ``jump``, else pc + 1);
* ``error``/``error_code`` (``hdl.isa.FcError``): the instruction would overflow or
  underflow a stack or a branch counter. The state is then left unchanged (the core stops).
* ``active`` (per lane: ACTIVE and not killed now, i.e. the write enables of an ALU
  instruction this cycle; ``active | killed`` all ones is LAST's test) and ``aL`` (the topmost
  LOOP entry's loop register, 0 when none).
* ``lane_pred``/``lane_alu_result`` (per lane): the predicate bits and ``alu_result`` as they
  are now, before this cycle's updates (predication of this cycle's writes reads them).
* ``addr_full``/``addr_empty``: the address stack is full / empty (from the state alone, not
  the ALU result: an issuer of unconditional CALL/RET knows their ADDR_OVERFLOW/UNDERFLOW
  before the jump decision settles, which keeps that decision off its issue path).

State changes on the clock edge: the FC instruction's effects when ``valid`` and not ``error``;
ALU writes whenever given.

``same_cycle=False`` (the R500 core) takes ``start`` and the ALU writes from the next cycle on
and gives ``aL`` from a flip-flop, so that the decision and ``aL`` start from flip-flops, off
the paths of what drives ``start`` and the writes (in the R500 core the same-cycle views made
its slowest paths: ``start`` -> the quad engine's decision, and -> ``aL`` -> the decoder's
fault -> D's enables). It suits a user that never gives an FC instruction in the cycle of
``start`` or of an ALU write, nor in the cycle right after an FC instruction (``aL`` is then the
value the state had the cycle before, 0 the cycle after ``start``).

``two_cycle=True`` (with ``same_cycle=False``; the R500 core) takes an FC instruction over two
cycles: the user gives ``valid`` and the instruction's inputs for two cycles in a row, unchanged;
``jump``, ``next_pc`` and the errors are those of the second, and the state changes at its
end. The vote and ``taken`` are registered after the first (in one cycle the quad engine's
decision and its updates were a path of ~23 ns estimated on the ECP5).
"""

from typing import NamedTuple

from amaranth.hdl import Cat, Module, Mux, Signal, Value
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out
from amaranth.utils import bits_for

from hdl.isa import US_FC_INST, US_INT_CONST, FcOp, AddrOp, BranchOp, PredSel, FcError, LaneState

__all__ = ["FlowControlEngine", "fc_addr_layout"]


def fc_addr_layout(jump_addr_bits):
    """US_FC_ADDR's fields with a jump address of ``jump_addr_bits`` bits."""
    return data.StructLayout({
        "bool_addr": 5, "int_addr": 5, "jump_global": 1, "jump_addr": jump_addr_bits,
    })


_ACTIVE, _INACTIVE, _BREAK, _CONTINUE = (int(s) for s in LaneState)


class FlowControlEngine(wiring.Component):
    def __init__(self, lanes, loop_depth=8, addr_depth=8, counter_bits=6, jump_addr_bits=16,
                 same_cycle=True, two_cycle=False):
        if two_cycle and same_cycle:
            raise ValueError("two_cycle needs same_cycle=False")
        if lanes < 1 or loop_depth < 0 or addr_depth < 0 or counter_bits < 1 or jump_addr_bits < 1:
            raise ValueError("need lanes >= 1, depths >= 0, counter_bits >= 1, jump_addr_bits >= 1")
        self.lanes = lanes
        self.loop_depth = loop_depth
        self.addr_depth = addr_depth
        self.counter_bits = counter_bits
        self.jump_addr_bits = jump_addr_bits
        self.same_cycle = same_cycle
        self.two_cycle = two_cycle
        super().__init__({
            "start": In(1),
            "valid": In(1),
            "pc": In(jump_addr_bits),
            "code_offset": In(jump_addr_bits),
            "inst": In(US_FC_INST.layout),
            "addr": In(fc_addr_layout(jump_addr_bits)),
            "bool_const": In(32),
            "int_const": In(US_INT_CONST.layout),
            "pred_sel": In(3),
            "pred_inv": In(1),
            "covered": In(lanes, init=(1 << lanes) - 1),
            "killed": In(lanes),
            "alu_result_we": In(lanes),
            "alu_result": In(lanes),
            "pred_we": In(data.ArrayLayout(4, lanes)),
            "pred": In(data.ArrayLayout(4, lanes)),
            "jump": Out(1),
            "next_pc": Out(jump_addr_bits),
            "error": Out(1),
            "error_code": Out(3),
            "active": Out(lanes),
            "lane_pred": Out(data.ArrayLayout(4, lanes)),
            "lane_alu_result": Out(lanes),
            "aL": Out(8),
            "addr_full": Out(1),
            "addr_empty": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        L = self.lanes
        value_bits = self._value_bits

        # --- state (kept as attributes so testbenches can look inside) -----------------------
        self.lane_state = [Signal(2, name=f"lane{i}_state") for i in range(L)]
        self.lane_value = [Signal(value_bits, name=f"lane{i}_value") for i in range(L)]
        alu_r = Signal(L, name="alu_result_r")
        pred_r = [Signal(4, name=f"lane{i}_pred") for i in range(L)]
        self.loop_sp = loop_sp_r = Signal(range(self.loop_depth + 1), name="loop_sp")
        # stack entries above the stack pointer are never read: no reset needed
        loop_count = [Signal(8, name=f"loop{i}_count", reset_less=True)
                      for i in range(self.loop_depth)]
        loop_al = [Signal(8, name=f"loop{i}_aL", reset_less=True) for i in range(self.loop_depth)]
        loop_is_loop = [Signal(name=f"loop{i}_is_loop", reset_less=True)
                        for i in range(self.loop_depth)]
        self.addr_sp = addr_sp_r = Signal(range(self.addr_depth + 1), name="addr_sp")
        addr_full_r = Signal(name="addr_full_r")               # addr_sp_r == addr_depth
        addr_empty_r = Signal(name="addr_empty_r", init=1)     # addr_sp_r == 0
        addr_stack = [Signal(self.jump_addr_bits, name=f"addr{i}", reset_less=True)
                      for i in range(self.addr_depth)]
        self.alu_result_r, self.pred_r = alu_r, pred_r

        inst, addr = self.inst, self.addr
        # (``same_cycle=False``: the state as the flip-flops hold it; ``start`` resets them)
        start = self.start if self.same_cycle else 0
        now = self._now(m, start, alu_r, pred_r, loop_sp_r, addr_sp_r)
        op = inst.OP
        is_loop_op = _wire(m, "is_loop_op", 1, (op == FcOp.LOOP) | (op == FcOp.REP))
        is_end = _wire(m, "is_end", 1, (op == FcOp.ENDLOOP) | (op == FcOp.ENDREP))
        is_break = _wire(m, "is_break", 1, (op == FcOp.BREAKLOOP) | (op == FcOp.BREAKREP))
        is_continue = _wire(m, "is_continue", 1, op == FcOp.CONTINUE)
        kinds = _Kinds(is_loop_op, is_end, is_break, is_continue)
        loop_sp, addr_sp = now.loop_sp, now.addr_sp
        top_count, top_al = self._loop_top(m, loop_sp, loop_count, loop_al, loop_is_loop)
        count_dec = _wire(m, "count_dec", 8, top_count - 1)
        state3, value3, wish, taken = self._vote(m, now, kinds, count_dec)

        # ``two_cycle``: what the decision leaves for the rest (the lanes after the vote, the
        # wishes, ``taken``) is registered in the instruction's first cycle; the rest (the loop's
        # release, branch counters, errors, the stacks, the outputs) is worked out in its second
        # from those registers and the state and inputs, which the user holds unchanged
        valid = self.valid
        if self.two_cycle:
            valid, taken, wish, state3, value3 = self._first_cycle(m, taken, wish, state3,
                                                                   value3)
        state5, value5, counter_overflow = self._branch_counters(m, now, kinds, state3, value3,
                                                                 wish, taken)

        # --- 6. PC and the address stack -----------------------------------------------------
        push = _wire(m, "push", 1, taken & (inst.A_OP == AddrOp.PUSH))
        pop = _wire(m, "pop", 1, taken & (inst.A_OP == AddrOp.POP))
        addr_top = Signal(self.jump_addr_bits, name="addr_top")
        for i in range(self.addr_depth):
            with m.If(addr_sp == i + 1):
                m.d.comb += addr_top.eq(addr_stack[i])
        pc_plus_1 = _wire(m, "pc_plus_1", self.jump_addr_bits, self.pc + 1)
        target = Mux(pop, addr_top,
                     addr.jump_addr + Mux(addr.jump_global, 0, self.code_offset))

        error_code = self._error_code(m, kinds, loop_sp, addr_sp, counter_overflow, push, pop)
        commit = _wire(m, "commit", 1, valid & (error_code == FcError.NONE))
        m.d.comb += [
            self.jump.eq(valid & taken),
            self.next_pc.eq(Mux(self.jump, target, pc_plus_1)),
            self.error.eq(valid & (error_code != FcError.NONE)),
            self.error_code.eq(Mux(valid, error_code, FcError.NONE)),
            self.active.eq(now.active0),
            self.lane_alu_result.eq(now.alu0),
            [self.lane_pred[i].eq(now.pred0[i]) for i in range(L)],
            # from flags kept with the stack pointer: one gate from flip-flops (the core's issue
            # decision reads them)
            self.addr_full.eq(~start & addr_full_r),
            self.addr_empty.eq(start | addr_empty_r),
        ]

        # --- state update --------------------------------------------------------------------
        m.d.sync += alu_r.eq(now.alu)
        for i in range(L):
            m.d.sync += [
                self.lane_state[i].eq(Mux(commit & now.moves[i], state5[i], now.state0[i])),
                self.lane_value[i].eq(Mux(commit & now.moves[i], value5[i], now.value0[i])),
                pred_r[i].eq(now.pred[i]),
            ]

        m.d.sync += loop_sp_r.eq(loop_sp)
        k = self.int_const
        with m.If(commit & is_loop_op):
            m.d.sync += loop_sp_r.eq(loop_sp + 1)
            for i in range(self.loop_depth):
                with m.If(loop_sp == i):
                    # a jumping LOOP pushes a placeholder (count 1) that its ENDLOOP pops
                    m.d.sync += [loop_count[i].eq(Mux(taken, 1, k.KR)), loop_al[i].eq(k.KG),
                                 loop_is_loop[i].eq(op == FcOp.LOOP)]
        with m.If(commit & is_end & taken):
            for i in range(self.loop_depth):
                with m.If(loop_sp == i + 1):
                    m.d.sync += loop_count[i].eq(count_dec)
                    with m.If(op == FcOp.ENDLOOP):
                        m.d.sync += loop_al[i].eq(top_al + k.KB.as_signed())
        with m.If(commit & ((is_end & ~taken) | (is_break & taken))):
            m.d.sync += loop_sp_r.eq(loop_sp - 1)

        addr_sp_next = Signal.like(addr_sp_r, name="addr_sp_next")
        m.d.comb += addr_sp_next.eq(addr_sp)
        with m.If(commit & push):
            m.d.comb += addr_sp_next.eq(addr_sp + 1)
            for i in range(self.addr_depth):
                with m.If(addr_sp == i):
                    m.d.sync += addr_stack[i].eq(pc_plus_1)
        with m.If(commit & pop):
            m.d.comb += addr_sp_next.eq(addr_sp - 1)
        m.d.sync += [addr_sp_r.eq(addr_sp_next), addr_full_r.eq(addr_sp_next == self.addr_depth),
                     addr_empty_r.eq(addr_sp_next == 0)]

        if not self.same_cycle:
            # the start state, from the next cycle on (last: it wins over the updates above)
            with m.If(self.start):
                m.d.sync += [alu_r.eq(0), loop_sp_r.eq(0), addr_sp_r.eq(0),
                             addr_full_r.eq(self.addr_depth == 0), addr_empty_r.eq(1)]
                for i in range(L):
                    m.d.sync += [self.lane_state[i].eq(_ACTIVE), self.lane_value[i].eq(0),
                                 pred_r[i].eq(0)]
        return m

    @property
    def _value_bits(self):
        return max(self.counter_bits, bits_for(self.loop_depth))

    def _now(self, m, start, alu_r, pred_r, loop_sp_r, addr_sp_r):
        """The state this cycle works on (the start state while ``start``), and with this
        cycle's ALU writes."""
        L, value_bits = self.lanes, self._value_bits
        state0 = [_wire(m, f"lane{i}_state0", 2, Mux(start, _ACTIVE, self.lane_state[i]))
                  for i in range(L)]
        value0 = [_wire(m, f"lane{i}_value0", value_bits, Mux(start, 0, self.lane_value[i]))
                  for i in range(L)]
        # a killed lane takes part in nothing: it is never ACTIVE for writes, votes or liveness,
        # and its state is kept at the end whatever the steps below compute for it
        moves = _wire(m, "moves", L, ~self.killed)
        active0 = _wire(m, "active0", L, Cat(s == _ACTIVE for s in state0) & moves)
        loop_sp = _wire(m, "loop_sp0", loop_sp_r.shape(), Mux(start, 0, loop_sp_r))
        addr_sp = _wire(m, "addr_sp0", addr_sp_r.shape(), Mux(start, 0, addr_sp_r))

        # ALU writes land in ACTIVE lanes first: the FC decision of this cycle sees them
        alu0 = _wire(m, "alu0", L, Mux(start, 0, alu_r))
        pred0 = [_wire(m, f"lane{i}_pred0", 4, Mux(start, 0, pred_r[i])) for i in range(L)]
        alu = _wire(m, "alu_eff", L, (alu0 & ~(self.alu_result_we & active0))
                    | (self.alu_result & self.alu_result_we & active0))
        pred = []
        for i in range(L):
            we = Mux(active0[i], self.pred_we[i], 0)
            pred.append(_wire(m, f"lane{i}_pred_eff", 4, (pred0[i] & ~we) | (self.pred[i] & we)))
        return _Now(state0, value0, moves, active0, loop_sp, addr_sp, alu0, pred0, alu, pred)

    def _loop_top(self, m, loop_sp, loop_count, loop_al, loop_is_loop):
        """The top loop entry's count and aL, and the ``aL`` output (the topmost LOOP-kind
        entry's)."""
        top_count = Signal(8, name="top_count")
        top_al = Signal(8, name="top_aL")
        a_l = Signal(8, name="aL0")
        for i in range(self.loop_depth):
            with m.If(loop_sp == i + 1):
                m.d.comb += [top_count.eq(loop_count[i]), top_al.eq(loop_al[i])]
            with m.If((loop_sp > i) & loop_is_loop[i]):
                m.d.comb += a_l.eq(loop_al[i])
        if self.same_cycle:
            m.d.comb += self.aL.eq(a_l)
        else:
            a_l_late = Signal(8, name="aL_late")
            m.d.sync += a_l_late.eq(Mux(self.start, 0, a_l))
            m.d.comb += self.aL.eq(a_l_late)
        return top_count, top_al

    def _wishes(self, m, now):
        """Step 2: each lane's wish, bit (alu << 2 | p << 1 | b) of JUMP_FUNC."""
        inst = self.inst
        # what the FC decision reads: with this cycle's writes, or the flip-flops alone
        wish_alu, wish_pred = (now.alu, now.pred) if self.same_cycle else (now.alu0, now.pred0)
        b = self.bool_const.bit_select(self.addr.bool_addr, 1)
        wish_bits = []
        for i in range(self.lanes):
            p = Signal(name=f"lane{i}_p")
            with m.Switch(self.pred_sel):
                with m.Case(PredSel.RGBA):
                    m.d.comb += p.eq(wish_pred[i] == 0xF)
                for sel in (PredSel.RRRR, PredSel.GGGG, PredSel.BBBB, PredSel.AAAA):
                    with m.Case(sel):
                        m.d.comb += p.eq(wish_pred[i][sel - PredSel.RRRR])
            wish_bits.append(inst.JUMP_FUNC.bit_select(Cat(b, p ^ self.pred_inv, wish_alu[i]),
                                                       1))
        return _wire(m, "wish", self.lanes, Cat(wish_bits))

    def _vote(self, m, now, kinds, count_dec):
        """Steps 1-4b: B_ELSE, the wishes, ENDLOOP/ENDREP's wake-up, the vote, BREAK/CONTINUE;
        returns the lanes' states and values after them, the wishes and ``taken`` (the group
        jumps)."""
        L, value_bits, inst = self.lanes, self._value_bits, self.inst
        state0, value0 = now.state0, now.value0
        level = now.loop_sp                 # the loop-stack depth, as BREAK/CONTINUE record it
        # --- 1. B_ELSE -----------------------------------------------------------------------
        state1, value1 = [], []
        for i in range(L):
            to_inactive = inst.B_ELSE & (state0[i] == _ACTIVE)
            to_active = inst.B_ELSE & (state0[i] == _INACTIVE) & (value0[i] == 0)
            state1.append(Mux(to_inactive, _INACTIVE, Mux(to_active, _ACTIVE, state0[i])))
            value1.append(Mux(to_inactive, 0, value0[i]))

        wish = self._wishes(m, now)

        # --- 4a. ENDLOOP/ENDREP wake their CONTINUE lanes before the vote --------------------
        state2, value2 = [], []
        for i in range(L):
            wake = kinds.end & (state1[i] == _CONTINUE) & (value1[i] == level)
            state2.append(_wire(m, f"lane{i}_state2", 2, Mux(wake, _ACTIVE, state1[i])))
            value2.append(_wire(m, f"lane{i}_value2", value_bits, Mux(wake, 0, value1[i])))

        # --- 3. decision among the voters ----------------------------------------------------
        voters = _wire(m, "voters", L, Cat((s == _ACTIVE) for s in state2) & now.moves
                       & (self.covered | Mux(inst.IGNORE_UNCOVERED, 0, (1 << L) - 1)))
        decision = _wire(m, "decision", 1, Mux(inst.JUMP_ANY, (voters & wish).any(),
                                               (voters & ~wish) == 0))

        # --- 4b. BREAK/CONTINUE: wanting ACTIVE lanes leave the iteration --------------------
        is_break, pop_cnt = kinds.brk, inst.B_POP_CNT
        state3, value3, live_bits = [], [], []
        for i in range(L):
            leave = (is_break | kinds.cont) & (state2[i] == _ACTIVE) & wish[i]
            state3.append(_wire(m, f"lane{i}_state3", 2,
                                Mux(leave, Mux(is_break, _BREAK, _CONTINUE), state2[i])))
            value3.append(_wire(m, f"lane{i}_value3", value_bits, Mux(leave, level, value2[i])))
            live_bits.append((state3[i] == _ACTIVE)
                             | ((state3[i] == _INACTIVE) & (value3[i] < pop_cnt))
                             | (is_break & (state3[i] == _CONTINUE) & (value3[i] == level)))
        live = _wire(m, "live", 1, (Cat(live_bits) & now.moves).any())

        taken = Signal(name="taken")        # the group jumps
        with m.If(kinds.loop):
            m.d.comb += taken.eq(decision | (self.int_const.KR == 0))
        with m.Elif(kinds.end):
            m.d.comb += taken.eq(decision & (count_dec != 0))
        with m.Elif(is_break | kinds.cont):
            m.d.comb += taken.eq(decision & ~live)
        with m.Else():
            m.d.comb += taken.eq(decision)
        return state3, value3, wish, taken

    def _first_cycle(self, m, taken, wish, state3, value3):
        """``two_cycle``: the instruction's second cycle (``valid`` in it) and, registered from
        its first, ``taken``, the wishes and the lanes after the vote."""
        second = Signal(name="second")
        m.d.sync += second.eq(self.valid & ~second)
        valid = _wire(m, "valid_second", 1, self.valid & second)

        def registered(name, value, shape):
            r = Signal(shape, name=f"{name}_r", reset_less=True)
            m.d.sync += r.eq(value)
            return r
        return (valid, registered("taken", taken, 1), registered("wish", wish, self.lanes),
                [registered(f"lane{i}_state3", v, 2) for i, v in enumerate(state3)],
                [registered(f"lane{i}_value3", v, self._value_bits) for i, v in enumerate(value3)])

    def _branch_counters(self, m, now, kinds, state3, value3, wish, taken):
        """Leaving the loop wakes its BREAK lanes; step 5, the branch counters. Returns the
        lanes' final states and values, and whether a counter overflows."""
        L, value_bits, inst = self.lanes, self._value_bits, self.inst
        level, pop_cnt = now.loop_sp, inst.B_POP_CNT
        counter_max = (1 << self.counter_bits) - 1
        release = _wire(m, "release", 1, (kinds.end & ~taken) | (kinds.brk & taken))
        state4, value4 = [], []
        for i in range(L):
            wake = release & (state3[i] == _BREAK) & (value3[i] == level)
            state4.append(_wire(m, f"lane{i}_state4", 2, Mux(wake, _ACTIVE, state3[i])))
            value4.append(_wire(m, f"lane{i}_value4", value_bits, Mux(wake, 0, value3[i])))

        # --- 5. branch counters --------------------------------------------------------------
        b_op = _wire(m, "b_op", 2, Mux(taken, inst.B_OP1, inst.B_OP0))
        state5 = [Signal(2, name=f"lane{i}_state5") for i in range(L)]
        value5 = [Signal(value_bits, name=f"lane{i}_value5") for i in range(L)]
        overflow_bits = []
        for i in range(L):
            inactive = state4[i] == _INACTIVE
            m.d.comb += [state5[i].eq(state4[i]), value5[i].eq(value4[i])]
            with m.If(b_op == BranchOp.INCR):
                with m.If(inactive):
                    m.d.comb += value5[i].eq(value4[i] + 1)
                with m.Elif((state4[i] == _ACTIVE) & (wish[i] != taken)):
                    m.d.comb += [state5[i].eq(_INACTIVE), value5[i].eq(0)]
            with m.If((b_op == BranchOp.DECR) & inactive):
                with m.If(value4[i] < pop_cnt):
                    m.d.comb += [state5[i].eq(_ACTIVE), value5[i].eq(0)]
                with m.Else():
                    m.d.comb += value5[i].eq(value4[i] - pop_cnt)
            overflow_bits.append(now.moves[i] & inactive & (value4[i] >= counter_max))
        counter_overflow = _wire(m, "counter_overflow", 1,
                                 (b_op == BranchOp.INCR) & Cat(overflow_bits).any())
        return state5, value5, counter_overflow

    def _error_code(self, m, kinds, loop_sp, addr_sp, counter_overflow, push, pop):
        """The instruction's error: the lowest step wins."""
        error_code = Signal(3, name="error_code0")
        with m.If(kinds.loop & (loop_sp == self.loop_depth)):
            m.d.comb += error_code.eq(FcError.LOOP_OVERFLOW)
        with m.Elif((kinds.end | kinds.brk | kinds.cont) & (loop_sp == 0)):
            m.d.comb += error_code.eq(FcError.LOOP_UNDERFLOW)
        with m.Elif(counter_overflow):
            m.d.comb += error_code.eq(FcError.COUNTER_OVERFLOW)
        with m.Elif(push & (addr_sp == self.addr_depth)):
            m.d.comb += error_code.eq(FcError.ADDR_OVERFLOW)
        with m.Elif(pop & (addr_sp == 0)):
            m.d.comb += error_code.eq(FcError.ADDR_UNDERFLOW)
        return error_code


def _wire(m, name, shape, value):
    """``value`` as a signal called ``name``."""
    s = Signal(shape, name=name)
    m.d.comb += s.eq(value)
    return s


class _Now(NamedTuple):
    """The state an instruction works on, per lane: ``state0``, ``value0``, ``moves`` (not
    killed), ``active0``, ``alu0``/``pred0`` (before this cycle's ALU writes), ``alu``/``pred``
    (after them); and the stack pointers."""
    state0: list
    value0: list
    moves: Value
    active0: Value
    loop_sp: Value
    addr_sp: Value
    alu0: Value
    pred0: list
    alu: Value
    pred: list


class _Kinds(NamedTuple):
    """Which of the loop instructions the FC instruction is."""
    loop: Value         # LOOP, REP
    end: Value          # ENDLOOP, ENDREP
    brk: Value          # BREAKLOOP, BREAKREP
    cont: Value         # CONTINUE
