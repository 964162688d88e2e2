"""The R500 shader core (docs/r500-core.md): quads of four pixels run R500 programs in contexts
that take turns, one lane-op per cycle, bit for bit as the model (``sim.r500.quad``).

Stages (ports and signals are prefixed by the stage they belong to), and the unit of each::

    F  fetch      a ready context is picked and its instruction read (hdl/r500/fetch.py)
    D  decode     the instruction is decoded with the context's aL and executed as far as the
                  context's state goes: the end of the program (END_ADDR, LAST), the
                  instruction limit, faults, FC instructions on the context's flow-control
                  engine; ALU/OUT and TEX pass to I with each lane's write enables
                  (hdl/r500/decode_stage.py, lane_enables.py)
    I  issue      one lane-op per cycle, lanes 0-3: the lane's temporaries are read; an ALU
                  lane-op's control and writeback tag are worked out (hdl/r500/issue.py)
    X             ALU/OUT: ``OperandFetch`` assembles the slots, ``LaneAlu`` computes
                  (``OperandFetch.LATENCY`` + ``LaneAlu.LATENCY`` cycles)
    T  texture    TEX: a request to the ``TextureUnit``; TEXKILL kills (hdl/r500/tex_requests.py)
    W  write      ``Writeback`` works out the ALU result's writes; the temporaries' one write
                  port takes it, else a texture answer, else a load (hdl/r500/write_port.py)

and beside them the contexts (hdl/r500/contexts.py): each context's state and its flow-control
engine, FREE -> ``claim`` (its temporaries and outputs read zero) -> LOADING (``load`` writes
temporaries) -> ``launch`` (coverage; flow control at its start state; PC = ``start_pc``) ->
RUNNING -> DONE (the program ended, or ``fault``/``fault_pc`` say why it stopped) ->
``release`` -> FREE.

This module is the glue: it connects the units. A context issues its next instruction only
once the last one has written everything (the context's ``wait`` and ``tex_pending``): no
forwarding, no hazards; other contexts fill the cycles meanwhile. Host state (instructions,
constants, booleans, integer constants, samplers, start, end, instruction limit) is written
while no context runs.
"""

from amaranth import Cat, Module
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hdl.config import R500Config
from hdl.isa import US_INT_CONST, QuadFault, R500_BOOLS
from hdl.lib.pipeline import delay
from hdl.r500.alu import LaneAlu
from hdl.r500.constants import ConstantWrite
from hdl.r500.contexts import Contexts
from hdl.r500.core_ports import (CHANNELS, LANES, PC_BITS, ContextState, sampler_entry_layout,
                                 write_port)
from hdl.r500.decode import SLOTS
from hdl.r500.decode_stage import DecodeStage
from hdl.r500.fetch import InstructionFetch
from hdl.r500.issue import Issue
from hdl.r500.operands import OperandFetch, Vec4
from hdl.r500.render_targets import RenderTargets, target_read_layout
from hdl.r500.temporaries import Temporaries, temp_address_layout, temp_write_layout
from hdl.r500.tex_requests import TextureRequests
from hdl.r500.texture import TextureUnit
from hdl.r500.write_port import WritePort
from hdl.r500.writeback import Writeback

__all__ = ["ContextState", "R500Core", "sampler_entry_layout", "PC_BITS"]


class R500Core(wiring.Component):
    """Parameters: ``config`` (``hdl.config.R500Config``), ``tmem_addr_bits`` (the texture
    memory's word address width)."""

    def __init__(self, config=R500Config(), tmem_addr_bits=24):
        self.config = config
        self.tmem_addr_bits = tmem_addr_bits
        contexts = config.contexts
        context = range(max(contexts, 2))
        per_context = lambda shape: data.ArrayLayout(shape, contexts)
        super().__init__({
            "imem_write": In(write_port({"addr": range(config.instructions), "word": 3,
                                          "data": 32})),
            "const_write": In(ConstantWrite),
            "int_const_write": In(write_port({"index": 5, "data": US_INT_CONST.layout})),
            "sampler_write": In(write_port({"index": 4,
                                             "data": sampler_entry_layout(tmem_addr_bits)})),
            "bools": In(R500_BOOLS), "start_pc": In(PC_BITS), "end_pc": In(PC_BITS),
            "max_instructions": In(32),
            "claim": In(write_port({"context": context})),
            "launch": In(write_port({"context": context, "covered": LANES})),
            "release": In(write_port({"context": context})),
            "load": In(stream.Signature(temp_write_layout(contexts))),
            "state": Out(per_context(ContextState)),
            "fault": Out(per_context(QuadFault)),
            "fault_pc": Out(per_context(PC_BITS)),
            "killed": Out(per_context(LANES)),
            "instructions": Out(per_context(32)),
            "target_read": In(target_read_layout(contexts)),
            "target_data": Out(Vec4), "target_written": Out(CHANNELS), "w": Out(32),
            "temp_read": In(temp_address_layout(contexts)),
            "temp_data": Out(Vec4),
            "idle": Out(1),
            "lane_ops": Out(32),
            "tm_req": Out(stream.Signature(tmem_addr_bits)),
            "tm_resp": In(stream.Signature(32, always_ready=True)),
        })
        q = config.contexts
        self.contexts = Contexts(q)
        self.fetch = InstructionFetch(q, config.instructions, config.lut_code_ram)
        self.decode = DecodeStage(config.temporaries, tmem_addr_bits)
        self.issue = Issue(q, tmem_addr_bits)
        self.temps = Temporaries(q, config.temporaries)
        self.operands = OperandFetch()
        self.alu = LaneAlu()
        self.writeback = Writeback(q)
        self.targets = RenderTargets(q)
        self.tex_requests = TextureRequests(q, tmem_addr_bits)
        self.texture = TextureUnit(addr_bits=tmem_addr_bits,
                                   tag_bits=self.tex_requests.tag_layout.size)
        self.write_port = WritePort(q)

    def elaborate(self, platform):
        m = Module()
        for name in ("contexts", "fetch", "decode", "issue", "temps", "operands", "alu",
                     "writeback", "targets", "tex_requests", "texture", "write_port"):
            m.submodules[name] = getattr(self, name)
        contexts, fetch, decode, issue = self.contexts, self.fetch, self.decode, self.issue
        temps, targets, requests = self.temps, self.targets, self.tex_requests
        self._host(m)
        m.d.comb += [
            # F
            fetch.f_ready.eq(contexts.f_ready), contexts.f_index.eq(fetch.f_index),
            fetch.f_pc.eq(contexts.f_pc), fetch.d_done.eq(decode.d_done),
            # D
            decode.d_valid.eq(fetch.d_valid), decode.d_pc.eq(fetch.d_pc),
            decode.d_words.eq(fetch.d_words), decode.d_context.eq(contexts.d_context),
            decode.i_accepts.eq(issue.i_accepts),
            contexts.d_ctx.eq(fetch.d_ctx), contexts.d_fc.eq(decode.d_fc),
            contexts.d_update.eq(decode.d_update),
            # I
            issue.d_issue.eq(decode.d_issue), issue.d_ctx.eq(fetch.d_ctx),
            issue.d_decoded.eq(decode.d_decoded), issue.d_is_tex.eq(decode.d_is_tex),
            issue.d_is_kill.eq(decode.d_is_kill), issue.d_writers.eq(decode.d_writers),
            issue.d_covered.eq(contexts.d_context.covered),
            issue.d_enables.eq(decode.d_enables), issue.d_sampler.eq(decode.d_sampler),
            issue.t_free.eq(requests.t_free), issue.w_starving.eq(self.write_port.w_starving),
            issue.idle.eq(contexts.idle), issue.temp_read.eq(self.temp_read),
            [temps.rgb_addr[n].eq(issue.i_temp_rgb[n]) for n in range(SLOTS)],
            [temps.alpha_addr[n].eq(issue.i_temp_alpha[n]) for n in range(SLOTS)],
            self.temp_data.eq(Cat(temps.rgb[0], temps.alpha[0])),
            self.lane_ops.eq(issue.lane_ops),
            # T
            requests.i_valid.eq(issue.i_valid), requests.i_kind_tex.eq(issue.i_kind_tex),
            requests.i_kind_kill.eq(issue.i_kind_kill), requests.i_lane.eq(issue.i_lane),
            requests.i_ctx.eq(issue.i_ctx), requests.i_decoded.eq(issue.i_decoded),
            requests.i_writers.eq(issue.i_writers), requests.i_enables.eq(issue.i_enables),
            requests.i_sampler.eq(issue.i_sampler),
            requests.t_source.eq(Cat(temps.rgb[0], temps.alpha[0])),
            contexts.t_kill.eq(requests.t_kill),
        ]
        wiring.connect(m, requests.t_req, self.texture.i)
        wiring.connect(m, self.texture.mem_req, wiring.flipped(self.tm_req))
        wiring.connect(m, wiring.flipped(self.tm_resp), self.texture.mem_resp)
        self._alu_path(m)
        return m

    def _host(self, m):
        """The host's state and commands, and what it reads back."""
        contexts, targets = self.contexts, self.targets
        m.d.comb += [
            self.fetch.imem_write.eq(self.imem_write),
            self.decode.int_const_write.eq(self.int_const_write),
            self.decode.sampler_write.eq(self.sampler_write),
            self.decode.start_pc.eq(self.start_pc), self.decode.end_pc.eq(self.end_pc),
            self.operands.const_write.eq(self.const_write),
            contexts.claim.eq(self.claim), contexts.launch.eq(self.launch),
            contexts.release.eq(self.release), contexts.start_pc.eq(self.start_pc),
            contexts.bools.eq(self.bools), contexts.max_instructions.eq(self.max_instructions),
            self.state.eq(contexts.state), self.fault.eq(contexts.fault),
            self.fault_pc.eq(contexts.fault_pc), self.killed.eq(contexts.killed),
            self.instructions.eq(contexts.instructions), self.idle.eq(contexts.idle),
            # a claimed context's temporaries and outputs read zero
            self.temps.clear.eq(self.claim.en), self.temps.clear_context.eq(self.claim.context),
            targets.clear.eq(self.claim.en), targets.clear_context.eq(self.claim.context),
            targets.read.eq(self.target_read), self.target_data.eq(targets.data),
            self.target_written.eq(targets.written), self.w.eq(targets.w),
        ]

    def _alu_path(self, m):
        """X and W: ALU lane-ops from I through the operands and the ALU, their control and
        writeback tag delayed beside them, to the write port (which also takes the texture
        answers and the loads) and the flow-control engines."""
        issue, operands, alu, wb = self.issue, self.operands, self.alu, self.writeback
        temps, port = self.temps, self.write_port
        m.d.comb += [operands.i_valid.eq(issue.i_alu), operands.i_lane.eq(issue.i_lane),
                     operands.i_parity.eq(issue.i_parity),
                     operands.i_rgb_src.eq(issue.i_decoded.rgb_src),
                     operands.i_alpha_src.eq(issue.i_decoded.alpha_src),
                     [operands.temp_rgb[n].eq(temps.rgb[n]) for n in range(SLOTS)],
                     [operands.temp_alpha[n].eq(temps.alpha[n]) for n in range(SLOTS)]]
        control = delay(m, "alu_control", {"c": issue.i_alu_control}, OperandFetch.LATENCY)["c"]
        m.d.comb += [alu.i_valid.eq(operands.o_valid), alu.i_slots.eq(operands.o_slots),
                     alu.i_quad_slot0.eq(operands.o_quad_slot0),
                     alu.i_rgb.eq(control.rgb), alu.i_alpha.eq(control.alpha),
                     alu.i_rgba.eq(control.rgba), alu.i_rgb_srcp.eq(control.rgb_srcp),
                     alu.i_alpha_srcp.eq(control.alpha_srcp),
                     alu.i_rgb_clamp.eq(control.rgb_clamp),
                     alu.i_alpha_clamp.eq(control.alpha_clamp)]
        latency = OperandFetch.LATENCY + LaneAlu.LATENCY
        w = delay(m, "wb", {"valid": issue.i_alu, "tag": issue.i_alu_tag}, latency)
        fc = self.contexts.w_fc
        m.d.comb += [wb.valid.eq(w["valid"]), wb.tag.eq(w["tag"]), wb.result.eq(alu.o_result),
                     self.targets.write.eq(wb.target_write),
                     fc.valid.eq(w["valid"]), fc.context.eq(wb.tag.context),
                     fc.lane.eq(wb.tag.lane), fc.alu_result_we.eq(wb.alu_result_we),
                     fc.alu_result.eq(wb.alu_result), fc.pred_we.eq(wb.pred_we),
                     fc.pred.eq(wb.pred),
                     port.w_valid.eq(w["valid"]), port.w_alu_write.eq(wb.temp_write),
                     temps.write.eq(port.w_write),
                     self.contexts.w_tex_done.eq(port.w_tex_done)]
        wiring.connect(m, self.texture.o, port.w_answer)
        wiring.connect(m, wiring.flipped(self.load), port.load)
