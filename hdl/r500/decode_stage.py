"""D, the R500 core's decode stage (docs/r500-core.md): the instruction F read is decoded
(``InstructionDecoder``, with the context's aL) and executed as far as the context's state
goes.

In the order of the model's step(): LAST's end (the context's ``last_pending`` and all its
lanes ACTIVE or killed), the instruction limit, the decoder's faults, then the FC instruction's
faults from the context's flow-control engine (a stack or counter error, a jump outside
``start_pc``...``end_pc``). What the instruction does to its context goes to the contexts unit
(``d_update``); an FC instruction goes to the context's engine (``d_fc``); ALU, OUT and TEX hand
their lane-ops to I when I takes them (``i_accepts``), with each lane's write enables
(``LaneEnables``) and, for TEX, the sampler.

An instruction of an issuing kind waits for I even if it ends the quad or faults, and an FC
instruction stays in D for two cycles (its engine's decision, then its effects) whatever its
faults: the decoder's faults, LAST's test and the engines' results stay off the path to
``d_done``, the pick and the instruction register's enables. (An instruction that issues is no
FC instruction, so its fault is the decoder's or the limit's.)

The host writes the integer constants and the samplers (``int_const_write``,
``sampler_write``) while no context runs.
"""

from amaranth import Cat, Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from hdl.isa import (US_CMN_INST, US_TEX_INST, US_FC_ADDR, US_INT_CONST, InstType, QuadFault,
                     TexOp, R500_INT_CONSTS, R500_SAMPLERS)
from hdl.r500.core_ports import (CHANNELS, LANES, PC_BITS, ContextUpdate, ContextView,
                                 FcInstruction, sampler_entry_layout, write_port)
from hdl.r500.decode import Decoded, InstructionDecoder, InstructionWords
from hdl.r500.lane_enables import LaneEnables
from hdl.r500.texture import SamplerLayout

__all__ = ["DecodeStage"]


class DecodeStage(wiring.Component):
    """Parameters: ``temporaries`` (the build's count), ``tmem_addr_bits`` (the texture
    memory's word address width)."""

    def __init__(self, temporaries, tmem_addr_bits):
        self.temporaries = temporaries
        self.tmem_addr_bits = tmem_addr_bits
        super().__init__({
            "int_const_write": In(write_port({"index": 5, "data": US_INT_CONST.layout})),
            "sampler_write": In(write_port({"index": 4,
                                            "data": sampler_entry_layout(tmem_addr_bits)})),
            "start_pc": In(PC_BITS), "end_pc": In(PC_BITS),
            "d_valid": In(1), "d_pc": In(PC_BITS), "d_words": In(InstructionWords),
            "d_context": In(ContextView),
            "d_done": Out(1), "d_fc": Out(FcInstruction), "d_update": Out(ContextUpdate),
            # what I takes
            "i_accepts": In(1),
            "d_issue": Out(1), "d_decoded": Out(Decoded), "d_is_tex": Out(1), "d_is_kill": Out(1),
            "d_writers": Out(LANES), "d_enables": Out(data.ArrayLayout(CHANNELS, LANES)),
            "d_sampler": Out(SamplerLayout(tmem_addr_bits)),
        })

    def elaborate(self, platform):
        m = Module()
        words, view, d_valid, d_pc = self.d_words, self.d_context, self.d_valid, self.d_pc
        int_const, sampler, samplers_set_up = self._tables(m, words)
        decoder = m.submodules.decoder = InstructionDecoder(self.temporaries)
        m.d.comb += [decoder.words.eq(words), decoder.aL.eq(view.aL),
                     decoder.samplers_set_up.eq(samplers_set_up)]
        cmn = US_CMN_INST.layout(words[0])
        kind = cmn.TYPE
        is_fc = kind == InstType.FC
        is_tex = kind == InstType.TEX
        tex_op = US_TEX_INST.layout(words[1]).INST
        issues = ((kind == InstType.ALU) | (kind == InstType.OUT)
                  | (is_tex & (tex_op != TexOp.NOP)))
        is_kill = is_tex & (tex_op == TexOp.TEXKILL)
        all_active = (view.active | view.killed).all()

        # the order of the model's step(): LAST's end, the limit, decode faults, FC faults
        ends_here = d_valid & view.last_pending & all_active
        early_fault = Signal(QuadFault)
        with m.If(view.at_limit):
            m.d.comb += early_fault.eq(QuadFault.INSTRUCTION_LIMIT)
        with m.Else():
            m.d.comb += early_fault.eq(decoder.fault)
        fc_go = d_valid & ~ends_here & (early_fault == QuadFault.NONE) & is_fc
        # an FC instruction's first cycle gives its engine the instruction; the second its
        # verdict, registered from the first (the decoder's faults and LAST's test then stay
        # off the path through the engine to the context's state)
        fc_second = Signal()
        fc_first = d_valid & is_fc & ~fc_second
        fc_go_r = Signal()
        m.d.sync += [fc_second.eq(fc_first), fc_go_r.eq(fc_go)]
        fc, fc_addr = self.d_fc, US_FC_ADDR.layout(words[3])
        m.d.comb += [
            fc.valid.eq(Mux(fc_second, fc_go_r, fc_first)), fc.pc.eq(d_pc), fc.inst.eq(words[2]),
            fc.addr.bool_addr.eq(fc_addr.BOOL_ADDR), fc.addr.int_addr.eq(fc_addr.INT_ADDR),
            fc.addr.jump_global.eq(fc_addr.JUMP_GLOBAL), fc.addr.jump_addr.eq(fc_addr.JUMP_ADDR),
            fc.int_const.eq(int_const),
            fc.pred_sel.eq(cmn.RGB_PRED_SEL), fc.pred_inv.eq(cmn.RGB_PRED_INV),
        ]
        outside = view.jump & ((view.next_pc < self.start_pc) | (view.next_pc > self.end_pc))
        fault = Signal(QuadFault)
        m.d.comb += fault.eq(early_fault)
        with m.If(fc_go_r & (view.fc_error != 0)):
            m.d.comb += fault.eq(QuadFault.ADDR_OVERFLOW + view.fc_error - 1)
        with m.Elif(fc_go_r & outside):
            m.d.comb += fault.eq(QuadFault.PC_OUTSIDE)

        # I takes an instruction of an issuing kind when it can (docs/r500-core.md)
        stall = (d_valid & issues & ~self.i_accepts) | fc_first
        m.d.comb += self.d_done.eq(d_valid & ~stall)
        executes = self.d_done & ~ends_here & (early_fault == QuadFault.NONE)
        jumped = is_fc & view.jump

        enables = m.submodules.enables = LaneEnables()
        m.d.comb += [enables.d_inst.eq(words[0]), enables.d_pred.eq(view.pred),
                     enables.d_active.eq(view.active), enables.d_killed.eq(view.killed),
                     self.d_writers.eq(enables.d_writers), self.d_enables.eq(enables.d_enables)]
        update = self.d_update
        m.d.comb += [
            update.done.eq(self.d_done), update.ends.eq(ends_here),
            update.fault.eq(fault), update.fault_pc.eq(d_pc),
            update.next_pc.eq(Mux(jumped, view.next_pc, d_pc + 1)),
            update.ending.eq(~jumped & (d_pc == self.end_pc)),
            update.last.eq(~jumped & cmn.LAST),
            update.issue.eq(self.d_issue), update.tex.eq(is_tex & ~is_kill),
            update.kill.eq(is_kill),
            update.tex_lanes.eq(sum(self.d_writers[i] for i in range(LANES))),
            self.d_issue.eq(executes & issues), self.d_decoded.eq(decoder.decoded),
            self.d_is_tex.eq(is_tex), self.d_is_kill.eq(is_kill), self.d_sampler.eq(sampler),
        ]
        return m

    def _tables(self, m, words):
        """The host's integer constants and samplers: the FC instruction's integer constant,
        the TEX instruction's sampler, which samplers are set up."""
        int_consts = [Signal(US_INT_CONST.layout, name=f"int_const{k}")
                      for k in range(R500_INT_CONSTS)]
        samplers = [Signal(sampler_entry_layout(self.tmem_addr_bits), name=f"sampler{k}")
                    for k in range(R500_SAMPLERS)]
        for table, write in ((int_consts, self.int_const_write),
                             (samplers, self.sampler_write)):
            for k, entry in enumerate(table):
                with m.If(write.en & (write.index == k)):
                    m.d.sync += entry.eq(write.data)
        int_const = Signal(US_INT_CONST.layout)
        with m.Switch(US_FC_ADDR.layout(words[3]).INT_ADDR):
            for k, entry in enumerate(int_consts):
                with m.Case(k):
                    m.d.comb += int_const.eq(entry)
        sampler = Signal(SamplerLayout(self.tmem_addr_bits))
        with m.Switch(US_TEX_INST.layout(words[1]).TEX_ID):
            for k, entry in enumerate(samplers):
                with m.Case(k):
                    m.d.comb += sampler.eq(entry.sampler)
        return int_const, sampler, Cat(s.set_up for s in samplers)
