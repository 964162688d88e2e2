"""Stage I of the core: the issue decision, faults, and every control transfer.

The decision is one sum of products of flip-flops: the instruction's class flags
(``IssueClass``), its scoreboard view, the flow-control stack state and the memory sequencer's
state. It drives the enables of every stage behind I, so it is kept a few gates deep: each
class's own condition is a kept wire of a few flip-flops, ORed last (unkept, synthesis chains
the ~25 inputs six LUTs deep). No operand value reaches it.

Every control transfer goes through the flow-control stack engine (hdl/core/fc_engine.py, R500
US_FC semantics at one lane): BRANCH as a JUMP on the ALU result (the jump's condition,
hdl/core/operands.py), JMP as an unconditional one, CALL and RET pushing and popping the address
stack. The only FC errors THEIA code can raise are those of CALL and RET, which always jump:
known from the stack state alone, so a conditional jump's compare reaches only the redirect,
never the issue decision. A taken jump redirects fetch a cycle later (registered by the core):
four bubbles.

RETURN reads and writes nothing, so no hazard applies: it ends the routine (``routine_end``) as
soon as no write to the swap bank is in flight (a swap write must land in this copy before the
next flip). Faults: an illegal word, a fetch outside the code memories, a stack error, a memory
address out of range (``hdl.core.ports.CoreError``).
"""

from amaranth import Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hdl.core.decode import Decoded
from hdl.core.fc_engine import FlowControlEngine
from hdl.core.ports import CoreError
from hdl.core.scoreboard import ScoreboardView
from hdl.core.stages import IssueClass
from hdl.isa import AddrOp, FcOp, JumpFunc, Kind, US_FC_INST
from hdl.lib.synthesis import KEEP

__all__ = ["Issue"]


class Issue(wiring.Component):
    """Parameter: ``stack_depth`` (the return-address stack's).

    In: ``i_valid``, ``i_class``, ``i_dec``, ``i_pc``, ``i_sb`` (I's scoreboard view),
    ``error`` (the core is stopped), ``swap_idle``, the ALU's ``div_ready``/``mag_ready``/
    ``mul_ready``, the memory sequencer's ``mem_checked``/``mem_bad``/``mem_done``, the jump's
    ``condition``, ``fc_start`` (a routine starts: empty the stacks). Out: ``issue`` (I's
    instruction leaves I now), ``alu_valid`` (it enters the vector ALU with a register to
    write), ``routine_end``, ``fault``/``fault_code``, ``redirect``/``redirect_pc``,
    ``unit_busy`` (a DIV, MAG or multiplier operation waits for its unit)."""

    def __init__(self, stack_depth):
        self.fc = FlowControlEngine(lanes=1, addr_depth=stack_depth, jump_addr_bits=16)
        super().__init__({
            "i_valid": In(1), "i_class": In(IssueClass), "i_dec": In(Decoded), "i_pc": In(16),
            "i_sb": In(ScoreboardView), "error": In(1), "swap_idle": In(1),
            "div_ready": In(1), "mag_ready": In(1), "mul_ready": In(1),
            "mem_checked": In(1), "mem_bad": In(1), "mem_done": In(1),
            "condition": In(1), "fc_start": In(1),
            "issue": Out(1), "alu_valid": Out(1), "routine_end": Out(1),
            "fault": Out(1), "fault_code": Out(3), "redirect": Out(1), "redirect_pc": Out(16),
            "unit_busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.fc = fc = self.fc
        c, i_dec = self.i_class, self.i_dec
        # a shared divider still busy with the lanes of the previous DIV, the serial square
        # root with the previous MAG, or the multipliers with a CROSS's second pass
        m.d.comb += self.unit_busy.eq((c.div & ~self.div_ready) | (c.mag & ~self.mag_ready)
                                      | (c.mul & ~self.mul_ready))
        # (RETURN from flip-flops, ``c.returns``: a legal RETURN fetched without a fault, keeps
        # done -> (control unit) -> start -> fetch, the path that chains routines, short)
        m.d.comb += self.routine_end.eq(self.i_valid & ~self.error & c.returns & self.swap_idle)

        ok = self.i_valid & ~self.error
        free = ok & ~self.i_sb.blocked          # (no hazard, the write port free if needed)
        go_alu = Signal(attrs=KEEP)             # an ALU operation whose unit is free
        go_flow = c.flow
        stack_fault = (c.call & fc.addr_full) | (c.ret & fc.addr_empty)
        go_jump = Signal(attrs=KEEP)            # a flow-control instruction without a fault
        mem_fault = (c.tm | c.om) & self.mem_checked & self.mem_bad
        go_mem = Signal(attrs=KEEP)             # a memory instruction whose lanes are done
        m.d.comb += [go_alu.eq(c.alu & ~self.unit_busy), go_jump.eq(go_flow & ~stack_fault),
                     go_mem.eq(self.mem_checked & ~self.mem_bad & self.mem_done
                               & (c.om | c.tm))]
        issue = Signal(attrs=KEEP)
        redirect = Signal(attrs=KEEP)
        alu_go = Signal()
        m.d.comb += [
            issue.eq((ok & c.returns & self.swap_idle)
                     | (free & (c.plain | go_alu | go_jump | go_mem))),
            # (without a fault: the class flags are 0 for a fetch fault or an illegal word,
            # go_jump excludes a RET's stack fault and go_mem a bad address)
            alu_go.eq(free & (go_alu | (go_jump & c.ret) | (go_mem & c.tm))),
            fc.valid.eq(free & go_flow),
            self.fault.eq(ok & (c.fetch_fault | c.illegal
                                | (~self.i_sb.blocked & ((go_flow & stack_fault) | mem_fault)))),
            self.fault_code.eq(Mux(c.fetch_fault, CoreError.FETCH,
                                   Mux(c.illegal, CoreError.ILLEGAL_INSTRUCTION,
                                       Mux(c.flow, CoreError.STACK, CoreError.MEMORY)))),
            redirect.eq(free & go_jump & fc.jump),
            self.redirect_pc.eq(fc.next_pc),
            self.issue.eq(issue), self.redirect.eq(redirect),
            # (results nobody keeps stay out of the ALU)
            self.alu_valid.eq(alu_go & i_dec.writes_reg),
        ]

        kind = i_dec.kind
        fc_inst = Signal(US_FC_INST.layout)
        m.d.comb += [
            fc_inst.OP.eq(FcOp.JUMP),
            fc_inst.JUMP_FUNC.eq(Mux(kind == Kind.BRANCH, JumpFunc.ALU, JumpFunc.ALWAYS)),
            fc_inst.A_OP.eq(Mux(kind == Kind.CALL, AddrOp.PUSH,
                                Mux(kind == Kind.RET, AddrOp.POP, AddrOp.NONE))),
            fc.start.eq(self.fc_start),
            fc.pc.eq(self.i_pc),
            fc.inst.eq(fc_inst),
            fc.addr.jump_addr.eq(i_dec.dst),
            fc.addr.jump_global.eq(1),             # THEIA code addresses are absolute
            fc.alu_result_we.eq(kind == Kind.BRANCH),
            fc.alu_result.eq(self.condition),
        ]
        return m
