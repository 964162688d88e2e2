"""The R500 shader core (docs/r500-core.md): quads of four pixels run R500 programs in contexts
that take turns, one lane-op per cycle, bit for bit as the model (``sim.r500.quad``).

Glue over the units of ``hdl/r500/``:

* contexts (``ContextState``): FREE -> ``claim`` (its temporaries and outputs read zero) ->
  LOADING (``load`` writes temporaries) -> ``launch`` (coverage; flow control at its start
  state; PC = ``start_pc``) -> RUNNING -> DONE (the program ended, or ``fault``/``fault_pc``
  say why it stopped) -> ``release`` -> FREE;
* F: a ready context is picked (``RoundRobinPick``) and its instruction read;
* D: the instruction is decoded (``InstructionDecoder``) with the context's aL, and executed
  as far as the context's state goes: the end of the program (END_ADDR, LAST), the instruction
  limit, faults, FC instructions on the context's ``FlowControlEngine``; ALU/OUT and TEX pass
  to I, with each lane's write enables (ACTIVE or WRITE_INACTIVE, not killed, predication);
* I: one lane-op per cycle, lanes 0-3: the lane's temporaries are read, ``OperandFetch``
  assembles the slots, ``LaneAlu`` computes, ``Writeback`` writes (``LaneAlu.LATENCY`` +
  ``OperandFetch.LATENCY`` cycles after I). A TEX lane reads its coordinates and asks the
  ``TextureUnit``; its answer is written in a cycle no ALU result is written. TEXKILL kills.

A context issues its next instruction only once the last one has written everything (``wait``
counts the cycles, ``tex_pending`` the texture answers): no forwarding, no hazards; other
contexts fill the cycles meanwhile. Host state (instructions, constants, booleans, integer
constants, samplers, start, end, instruction limit) is written while no context runs.
"""

from enum import IntEnum

from amaranth import Cat, Module, Mux, Signal, Value, unsigned
from amaranth.lib import data, stream, wiring
from amaranth.lib.fifo import SyncFIFOBuffered
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out
from amaranth.utils import bits_for

from hdl.config import R500Config
from hdl.core.fc_engine import FlowControlEngine
from hdl.isa import (US_CMN_INST, US_ALU_ADDR, US_ALU_RGB_INST, US_ALU_ALPHA_INST,
                     US_ALU_RGBA_INST, US_TEX_INST, US_TEX_ADDR, US_FC_ADDR, US_INT_CONST,
                     InstType, PredSel, QuadFault, TexOp, R500_BOOLS, R500_INT_CONSTS,
                     R500_SAMPLERS, R500_WORDS_PER_INSTRUCTION)
from hdl.lib.pipeline import delay
from hdl.r500.alu import LaneAlu
from hdl.r500.constants import ConstantWrite
from hdl.r500.decode import SLOTS, Decoded, InstructionDecoder, InstructionWords
from hdl.r500.fp_post import clamp_value
from hdl.r500.operands import OperandFetch, Vec4
from hdl.r500.render_targets import RenderTargets, target_read_layout
from hdl.r500.scheduler import RoundRobinPick
from hdl.r500.temporaries import Temporaries, temp_address_layout, temp_write_layout
from hdl.r500.texture import SamplerLayout, TextureUnit
from hdl.r500.writeback import Writeback, writeback_tag_layout

__all__ = ["ContextState", "R500Core", "sampler_entry_layout", "PC_BITS"]

LANES = 4
CHANNELS = 4
ALPHA = 3
PC_BITS = 9
#: a context's wait after a TEXKILL (lane 3's kill lands at D + 6: the next D comes then)
KILL_WAIT = 4


class ContextState(IntEnum):
    FREE = 0
    LOADING = 1
    RUNNING = 2
    DONE = 3


def sampler_entry_layout(addr_bits):
    """A sampler as the host writes it: the texture unit's fields and whether it is set up
    (r500-us.md §3.5: the host decides, knowing the texture memory)."""
    return data.StructLayout({"set_up": 1, "sampler": SamplerLayout(addr_bits)})


def _write_port(fields):
    return data.StructLayout({"en": 1, **fields})


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
            "imem_write": In(_write_port({"addr": range(config.instructions), "word": 3,
                                          "data": 32})),
            "const_write": In(ConstantWrite),
            "int_const_write": In(_write_port({"index": 5, "data": US_INT_CONST.layout})),
            "sampler_write": In(_write_port({"index": 4,
                                             "data": sampler_entry_layout(tmem_addr_bits)})),
            "bools": In(R500_BOOLS), "start_pc": In(PC_BITS), "end_pc": In(PC_BITS),
            "max_instructions": In(32),
            "claim": In(_write_port({"context": context})),
            "launch": In(_write_port({"context": context, "covered": LANES})),
            "release": In(_write_port({"context": context})),
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

    # The stages share a lot of state; each method below builds one concern of the glue.

    def elaborate(self, platform):
        m = Module()
        self._units(m)
        self._host_state(m)
        self._contexts(m)
        self._fetch_decode(m)
        self._issue(m)
        self._alu_path(m)
        self._texture_path(m)
        self._writes(m)
        return m

    # --- units and host state ------------------------------------------------------------

    def _units(self, m):
        config = self.config
        q = config.contexts
        self.temps = m.submodules.temps = Temporaries(q, config.temporaries)
        self.targets = m.submodules.targets = RenderTargets(q)
        self.decoder = m.submodules.decoder = InstructionDecoder(config.temporaries)
        self.operands = m.submodules.operands = OperandFetch()
        self.alu = m.submodules.alu = LaneAlu()
        self.writeback = m.submodules.writeback = Writeback(q)
        self.picker = m.submodules.picker = RoundRobinPick(q)
        self.engines = []
        for k in range(q):
            # (start, ALU writes and aL a cycle late: the engine's decision and aL from its
            # flip-flops. A context's FC instruction never meets its start, its ALU writes
            # (``alu_wait``) or, at D, another FC instruction of its own in the cycle before)
            engine = FlowControlEngine(lanes=LANES, jump_addr_bits=PC_BITS, same_cycle=False,
                                       two_cycle=True)
            m.submodules[f"fc{k}"] = engine
            self.engines.append(engine)
        self.imem = m.submodules.imem = Memory(
            shape=unsigned(InstructionWords.size), depth=config.instructions, init=[],
            attrs={"ram_style": "distributed"} if config.lut_code_ram else None)
        m.d.comb += [self.targets.read.eq(self.target_read),
                     self.target_data.eq(self.targets.data),
                     self.target_written.eq(self.targets.written), self.w.eq(self.targets.w),
                     self.operands.const_write.eq(self.const_write)]

    def _host_state(self, m):
        write = self.imem_write
        port = self.imem.write_port(granularity=32)
        m.d.comb += [port.addr.eq(write.addr),
                     port.data.eq(write.data.replicate(R500_WORDS_PER_INSTRUCTION)),
                     port.en.eq(Mux(write.en, 1 << write.word, 0))]
        self.int_consts = [Signal(US_INT_CONST.layout, name=f"int_const{k}")
                           for k in range(R500_INT_CONSTS)]
        self.samplers = [Signal(sampler_entry_layout(self.tmem_addr_bits), name=f"sampler{k}")
                         for k in range(R500_SAMPLERS)]
        for table, write in ((self.int_consts, self.int_const_write),
                             (self.samplers, self.sampler_write)):
            for k, entry in enumerate(table):
                with m.If(write.en & (write.index == k)):
                    m.d.sync += entry.eq(write.data)

    # --- context state -------------------------------------------------------------------

    def _contexts(self, m):
        q = self.config.contexts
        wait_bits = bits_for(LaneAlu.LATENCY + OperandFetch.LATENCY + 16)
        ctx = self.ctx = []
        for k in range(q):
            ctx.append({
                "state": Signal(ContextState, name=f"ctx{k}_state"),
                "pc": Signal(PC_BITS, name=f"ctx{k}_pc"),
                "count": Signal(32, name=f"ctx{k}_count"),
                # count >= max_instructions, a cycle late: the count changes only when D is
                # done with the context's instruction, and its next D comes two cycles on at
                # the earliest (the 32-bit compare began D's slowest path)
                "at_limit": Signal(name=f"ctx{k}_at_limit"),
                "wait": Signal(wait_bits, name=f"ctx{k}_wait"),
                "tex_pending": Signal(3, name=f"ctx{k}_tex_pending"),
                "covered": Signal(LANES, name=f"ctx{k}_covered"),
                "killed": Signal(LANES, name=f"ctx{k}_killed"),
                "ending": Signal(name=f"ctx{k}_ending"),
                "last_pending": Signal(name=f"ctx{k}_last_pending"),
                "fault": Signal(QuadFault, name=f"ctx{k}_fault"),
                "fault_pc": Signal(PC_BITS, name=f"ctx{k}_fault_pc"),
            })
        self.tex_done = Signal(range(max(q, 2)))      # a texture answer of this context ...
        self.tex_done_en = Signal()                    # ... was written
        for k, c in enumerate(ctx):
            engine = self.engines[k]
            m.d.comb += [
                self.state[k].eq(c["state"]), self.fault[k].eq(c["fault"]),
                self.fault_pc[k].eq(c["fault_pc"]), self.killed[k].eq(c["killed"]),
                self.instructions[k].eq(c["count"]),
                engine.covered.eq(c["covered"]), engine.killed.eq(c["killed"]),
                engine.bool_const.eq(self.bools), engine.code_offset.eq(self.start_pc),
            ]
            m.d.sync += c["at_limit"].eq(c["count"] >= self.max_instructions)
            with m.If(c["wait"] != 0):
                m.d.sync += c["wait"].eq(c["wait"] - 1)
            with m.If(self.tex_done_en & (self.tex_done == k)):
                m.d.sync += c["tex_pending"].eq(c["tex_pending"] - 1)
            # a context that reached its end finishes once its writes have landed
            with m.If(c["ending"] & (c["wait"] == 0) & (c["tex_pending"] == 0)):
                m.d.sync += [c["ending"].eq(0), c["state"].eq(ContextState.DONE)]
            with m.If(self.claim.en & (self.claim.context == k)):
                m.d.sync += [c["state"].eq(ContextState.LOADING), c["count"].eq(0),
                             c["killed"].eq(0), c["fault"].eq(QuadFault.NONE),
                             c["ending"].eq(0), c["last_pending"].eq(0)]
            # (the engine starts a cycle after the launch, before the context's first D: its
            # start state then comes from its registers, and the launch stays off D's paths)
            with m.If(self.launch.en & (self.launch.context == k)):
                m.d.sync += [c["state"].eq(ContextState.RUNNING), c["pc"].eq(self.start_pc),
                             c["covered"].eq(self.launch.covered)]
            m.d.sync += engine.start.eq(self.launch.en & (self.launch.context == k))
            with m.If(self.release.en & (self.release.context == k)):
                m.d.sync += c["state"].eq(ContextState.FREE)
        m.d.comb += [self.temps.clear.eq(self.claim.en),
                     self.temps.clear_context.eq(self.claim.context),
                     self.targets.clear.eq(self.claim.en),
                     self.targets.clear_context.eq(self.claim.context),
                     self.idle.eq(~Cat(c["state"] == ContextState.RUNNING for c in ctx).any())]

    def _select(self, m, name, field, index):
        """Context ``index``'s ``field`` (a context-state name or a function of the context
        number), as a signal."""
        values = [field(k) if callable(field) else self.ctx[k][field]
                  for k in range(self.config.contexts)]
        result = Signal(len(Value.cast(values[0])), name=name)
        with m.Switch(index):
            for k, value in enumerate(values):
                with m.Case(k):
                    m.d.comb += result.eq(value)
        return result

    # --- F and D -------------------------------------------------------------------------

    def _fetch_decode(self, m):
        q = self.config.contexts
        ctx, picker = self.ctx, self.picker
        d_valid = self.d_valid = Signal()
        d_ctx = self.d_ctx = Signal(range(max(q, 2)))
        d_pc = Signal(PC_BITS)
        d_done = self.d_done = Signal()           # D has finished with its instruction
        take = Signal()
        m.d.comb += take.eq((~d_valid | d_done) & picker.valid)
        ready = []
        for k, c in enumerate(ctx):
            ready.append((c["state"] == ContextState.RUNNING) & (c["wait"] == 0)
                         & (c["tex_pending"] == 0) & ~c["ending"] & ~(d_valid & (d_ctx == k)))
        m.d.comb += [picker.ready.eq(Cat(ready)), picker.take.eq(take)]
        read = self.imem.read_port()
        m.d.comb += [read.addr.eq(self._select(m, "pick_pc", "pc", picker.index)),
                     read.en.eq(take)]
        with m.If(take):
            m.d.sync += [d_valid.eq(1), d_ctx.eq(picker.index), d_pc.eq(read.addr)]
        with m.Elif(d_done):
            m.d.sync += d_valid.eq(0)

        # D: the instruction and the context's flow-control state
        words = InstructionWords(read.data)
        decoder = self.decoder
        engines = self.engines
        aL = self._select(m, "d_aL", lambda k: engines[k].aL, d_ctx)
        m.d.comb += [decoder.words.eq(words), decoder.aL.eq(aL),
                     decoder.samplers_set_up.eq(Cat(s.set_up for s in self.samplers))]
        cmn = US_CMN_INST.layout(words[0])
        kind = cmn.TYPE
        is_fc = kind == InstType.FC
        is_tex = kind == InstType.TEX
        tex_op = US_TEX_INST.layout(words[1]).INST
        issues = ((kind == InstType.ALU) | (kind == InstType.OUT)
                  | (is_tex & (tex_op != TexOp.NOP)))
        active = self._select(m, "d_active", lambda k: engines[k].active, d_ctx)
        killed = self._select(m, "d_killed", "killed", d_ctx)
        all_active = (active | killed).all()
        count = self._select(m, "d_count", "count", d_ctx)
        last_pending = self._select(m, "d_last_pending", "last_pending", d_ctx)
        fc_addr = US_FC_ADDR.layout(words[3])
        int_const = Signal(US_INT_CONST.layout)
        with m.Switch(fc_addr.INT_ADDR):
            for k, entry in enumerate(self.int_consts):
                with m.Case(k):
                    m.d.comb += int_const.eq(entry)

        # the order of the model's step(): LAST's end, the limit, decode faults, FC faults
        ends_here = d_valid & last_pending & all_active
        early_fault = Signal(QuadFault)
        at_limit = self._select(m, "d_at_limit", "at_limit", d_ctx)
        with m.If(at_limit):
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
        engine_valid = Mux(fc_second, fc_go_r, fc_first)
        jump = self._select(m, "d_jump", lambda k: engines[k].jump, d_ctx)
        next_pc = self._select(m, "d_next_pc", lambda k: engines[k].next_pc, d_ctx)
        fc_error = self._select(m, "d_fc_error", lambda k: engines[k].error_code, d_ctx)
        for k, engine in enumerate(engines):
            m.d.comb += [
                engine.valid.eq(engine_valid & (d_ctx == k)), engine.pc.eq(d_pc),
                engine.inst.eq(words[2]),
                engine.addr.bool_addr.eq(fc_addr.BOOL_ADDR),
                engine.addr.int_addr.eq(fc_addr.INT_ADDR),
                engine.addr.jump_global.eq(fc_addr.JUMP_GLOBAL),
                engine.addr.jump_addr.eq(fc_addr.JUMP_ADDR),
                engine.int_const.eq(int_const),
                engine.pred_sel.eq(cmn.RGB_PRED_SEL), engine.pred_inv.eq(cmn.RGB_PRED_INV),
            ]
        outside = jump & ((next_pc < self.start_pc) | (next_pc > self.end_pc))
        fault = Signal(QuadFault)
        m.d.comb += fault.eq(early_fault)
        with m.If(fc_go_r & (fc_error != 0)):
            m.d.comb += fault.eq(QuadFault.ADDR_OVERFLOW + fc_error - 1)
        with m.Elif(fc_go_r & outside):
            m.d.comb += fault.eq(QuadFault.PC_OUTSIDE)

        # D hands ALU/OUT/TEX to I when I takes it (the context's writes: docs/r500-core.md).
        # An instruction of an issuing kind waits for I even if it ends the quad or faults, and
        # an FC instruction stays in D for two cycles (its engine's decision, then its effects;
        # ``fc_second``: the second) whatever its faults: the decoder's faults, LAST's test and
        # the engines' results stay off the path to ``d_done``, the pick and the instruction
        # register's enables. (An instruction that issues is no FC instruction, so its fault
        # is ``early_fault``.)
        self.i_accepts = Signal()
        stall = (d_valid & issues & ~self.i_accepts) | fc_first
        m.d.comb += d_done.eq(d_valid & ~stall)
        executes = d_done & ~ends_here & (early_fault == QuadFault.NONE)
        jumped = is_fc & jump
        for k, c in enumerate(ctx):
            with m.If(d_done & (d_ctx == k)):
                m.d.sync += c["last_pending"].eq(0)
                with m.If(ends_here):
                    m.d.sync += c["state"].eq(ContextState.DONE)
                with m.Elif(fault != QuadFault.NONE):
                    m.d.sync += [c["state"].eq(ContextState.DONE), c["fault"].eq(fault),
                                 c["fault_pc"].eq(d_pc)]
                with m.Else():
                    m.d.sync += [c["count"].eq(count + 1),
                                 c["pc"].eq(Mux(jumped, next_pc, d_pc + 1))]
                    with m.If(~jumped & (d_pc == self.end_pc)):
                        m.d.sync += c["ending"].eq(1)
                    with m.Elif(~jumped & cmn.LAST):
                        m.d.sync += c["last_pending"].eq(1)

        # what I needs: the decoded instruction and each lane's enables
        self.d_issue = executes & issues
        self.d_decoded = decoder.decoded
        self.d_words = words
        self.d_cmn = cmn
        pred = self._select(m, "d_pred", lambda k: engines[k].lane_pred, d_ctx)
        covered = self._select(m, "d_covered", "covered", d_ctx)
        writers = Signal(LANES)
        m.d.comb += writers.eq(~killed & (active | cmn.WRITE_INACTIVE.replicate(LANES)))
        self.d_writers, self.d_covered = writers, covered
        self.d_enables = []
        for lane in range(LANES):
            lane_pred = pred.word_select(lane, 4)
            self.d_enables.append(Cat(
                [self._predicated(m, cmn.RGB_PRED_SEL, cmn.RGB_PRED_INV, lane_pred, c)
                 for c in range(3)]
                + [self._predicated(m, cmn.ALPHA_PRED_SEL, cmn.ALPHA_PRED_INV, lane_pred, ALPHA)]))
        self.d_is_kill = is_tex & (tex_op == TexOp.TEXKILL)
        self.d_is_tex = is_tex
        tex_id = US_TEX_INST.layout(words[1]).TEX_ID
        sampler = Signal(SamplerLayout(self.tmem_addr_bits))
        with m.Switch(tex_id):
            for k, entry in enumerate(self.samplers):
                with m.Case(k):
                    m.d.comb += sampler.eq(entry.sampler)
        self.d_sampler = sampler
        # the context's wait for its writes, counted from D handing its lane-ops to I
        # (lane 3 writes back OperandFetch.LATENCY + LaneAlu.LATENCY cycles after its I, three
        # cycles after lane 0's, which is D + 1; the context's next D comes wait + 1 cycles
        # after this one and must see those writes, and its predicates)
        self.alu_wait = OperandFetch.LATENCY + LaneAlu.LATENCY + LANES - 1
        for k, c in enumerate(ctx):
            with m.If(self.d_issue & (d_ctx == k)):
                with m.If(is_tex & ~self.d_is_kill):
                    m.d.sync += c["tex_pending"].eq(sum(writers[i] for i in range(LANES)))
                with m.Elif(self.d_is_kill):
                    m.d.sync += c["wait"].eq(KILL_WAIT)
                with m.Else():
                    m.d.sync += c["wait"].eq(self.alu_wait)

    @staticmethod
    def _predicated(m, sel, inv, pred, channel):
        """Predication of one channel (r500-us.md §3.4): NONE writes; RGBA reads the channel's
        own predicate bit, RRRR...AAAA one bit; PRED_INV inverts (not for NONE)."""
        bit = Signal()
        with m.Switch(sel):
            with m.Case(PredSel.RGBA):
                m.d.comb += bit.eq(pred[channel])
            for s in (PredSel.RRRR, PredSel.GGGG, PredSel.BBBB, PredSel.AAAA):
                with m.Case(s):
                    m.d.comb += bit.eq(pred[s - PredSel.RRRR])
        return Mux(sel == PredSel.NONE, 1, bit ^ inv)

    # --- I: lane-ops ---------------------------------------------------------------------

    def _issue(self, m):
        q = self.config.contexts
        i_valid = self.i_valid = Signal()
        i_lane = self.i_lane = Signal(2)
        i_ctx = self.i_ctx = Signal(range(max(q, 2)))
        i_decoded = self.i_decoded = Signal(Decoded)
        i_writers = Signal(LANES)
        i_covered = Signal(LANES)
        i_enables = Signal(data.ArrayLayout(CHANNELS, LANES))
        i_kind_tex = self.i_kind_tex = Signal()
        i_kind_kill = self.i_kind_kill = Signal()
        i_parity = self.i_parity = Signal()
        i_sampler = self.i_sampler = Signal(SamplerLayout(self.tmem_addr_bits))
        self.i_writers, self.i_covered, self.i_enables = i_writers, i_covered, i_enables

        # the texture path takes one TEX instruction's lanes at a time
        tex_free = self.tex_free = Signal()
        side_starving = self.side_starving = Signal()
        last_lane = i_lane == LANES - 1
        m.d.comb += self.i_accepts.eq((~i_valid | last_lane) & ~side_starving
                                      & (~self.d_is_tex | tex_free))
        # I's registers load whenever I could take D's instruction: only the valid bit waits
        # for D's decision (its faults), not the enables of some 400 flip-flops (what they
        # hold while I is idle is never read)
        with m.If(self.i_accepts):
            m.d.sync += [i_ctx.eq(self.d_ctx),
                         i_decoded.eq(self.d_decoded), i_writers.eq(self.d_writers),
                         i_covered.eq(self.d_covered), i_enables.eq(Cat(self.d_enables)),
                         i_kind_tex.eq(self.d_is_tex & ~self.d_is_kill),
                         i_kind_kill.eq(self.d_is_kill), i_sampler.eq(self.d_sampler)]
        with m.If(self.d_issue):
            m.d.sync += [i_valid.eq(1), i_lane.eq(0)]
            with m.If(~self.d_is_tex):
                m.d.sync += i_parity.eq(~i_parity)
        with m.Elif(i_valid):
            m.d.sync += i_lane.eq(i_lane + 1)
            with m.If(last_lane):
                m.d.sync += i_valid.eq(0)

        lane_ops = Signal(32)
        self.i_alu = i_valid & ~i_kind_tex & ~i_kind_kill
        with m.If(self.i_alu):
            m.d.sync += lane_ops.eq(lane_ops + 1)
        m.d.comb += self.lane_ops.eq(lane_ops)

        # the temporaries' read addresses: an ALU lane-op's slots, a TEX lane's coordinates,
        # the host's read-back while no context runs
        temps = self.temps
        for n in range(SLOTS):
            for port, sources in ((temps.rgb_addr[n], i_decoded.rgb_src),
                                  (temps.alpha_addr[n], i_decoded.alpha_src)):
                m.d.comb += [port.context.eq(i_ctx), port.lane.eq(i_lane),
                             port.temp.eq(sources[n].index)]
                if n == 0:
                    with m.If(i_kind_tex | i_kind_kill):
                        m.d.comb += port.temp.eq(i_decoded.tex_src)
                    with m.If(~i_valid & self.idle):
                        m.d.comb += port.eq(self.temp_read)
        m.d.comb += self.temp_data.eq(Cat(temps.rgb[0], temps.alpha[0]))

    # --- ALU/OUT lane-ops ----------------------------------------------------------------

    def _alu_path(self, m):
        i_decoded, lane = self.i_decoded, self.i_lane
        operands, alu = self.operands, self.alu
        m.d.comb += [operands.i_valid.eq(self.i_alu), operands.i_lane.eq(lane),
                     operands.i_parity.eq(self.i_parity),
                     operands.i_rgb_src.eq(i_decoded.rgb_src),
                     operands.i_alpha_src.eq(i_decoded.alpha_src)]
        for n in range(SLOTS):
            m.d.comb += [operands.temp_rgb[n].eq(self.temps.rgb[n]),
                         operands.temp_alpha[n].eq(self.temps.alpha[n])]

        words = i_decoded.words
        cmn = US_CMN_INST.layout(words[0])
        control = Cat(words[3], words[4], words[5], US_ALU_ADDR.layout(words[1]).SRCP_OP,
                      US_ALU_ADDR.layout(words[2]).SRCP_OP, cmn.RGB_CLAMP, cmn.ALPHA_CLAMP)
        control = delay(m, "alu_control", {"c": control}, OperandFetch.LATENCY)["c"]
        m.d.comb += [
            alu.i_valid.eq(operands.o_valid), alu.i_slots.eq(operands.o_slots),
            alu.i_quad_slot0.eq(operands.o_quad_slot0),
            Cat(alu.i_rgb.as_value(), alu.i_alpha.as_value(), alu.i_rgba.as_value(),
                alu.i_rgb_srcp, alu.i_alpha_srcp, alu.i_rgb_clamp, alu.i_alpha_clamp)
            .eq(control),
        ]

        # what this lane writes, worked out now and carried beside the datapath
        tag = Signal(writeback_tag_layout(self.config.contexts))
        rgb = US_ALU_RGB_INST.layout(words[3])
        alpha = US_ALU_ALPHA_INST.layout(words[4])
        writer = self.i_writers.bit_select(lane, 1)
        covered = self.i_covered.bit_select(lane, 1)
        enables = self.i_enables.as_value().word_select(lane, CHANNELS)
        out = cmn.TYPE == InstType.OUT
        omask = Cat(cmn.RGB_OMASK, cmn.ALPHA_OMASK)
        m.d.comb += [
            tag.context.eq(self.i_ctx), tag.lane.eq(lane), tag.out.eq(out),
            tag.rgb_dest.eq(i_decoded.rgb_dest), tag.alpha_dest.eq(i_decoded.alpha_dest),
            tag.wmask.eq(Mux(writer, Cat(cmn.RGB_WMASK, cmn.ALPHA_WMASK) & enables, 0)),
            # OUT: render-target channels; ALU: the predicate bits to update
            tag.omask.eq(Mux(out, Mux(writer & covered, omask & enables, 0), omask)),
            tag.w_en.eq(alpha.W_OMASK & enables[ALPHA] & writer & covered),
            tag.rgb_target.eq(rgb.TARGET), tag.alpha_target.eq(alpha.TARGET),
            tag.alu_result_en.eq(rgb.ALU_WMASK), tag.alu_result_sel.eq(cmn.ALU_RESULT_SEL),
            tag.alu_result_op.eq(cmn.ALU_RESULT_OP),
        ]
        latency = OperandFetch.LATENCY + LaneAlu.LATENCY
        delayed = delay(m, "wb", {"valid": self.i_alu, "tag": tag.as_value()}, latency)
        self.wb_valid, self.wb_tag = delayed["valid"], delayed["tag"]

    # --- TEX and TEXKILL lane-ops --------------------------------------------------------

    def _texture_path(self, m):
        q = self.config.contexts
        context = range(max(q, 2))
        tag_layout = data.StructLayout({"context": context, "lane": 2, "dst": 7, "wmask": 4,
                                        "swizzle": 8, "rgb_clamp": 1, "alpha_clamp": 1})
        unit = self.tex_unit = m.submodules.texture = TextureUnit(
            addr_bits=self.tmem_addr_bits, tag_bits=tag_layout.size)
        wiring.connect(m, unit.mem_req, wiring.flipped(self.tm_req))
        wiring.connect(m, wiring.flipped(self.tm_resp), unit.mem_resp)

        # I+1: the lane's coordinates arrive (read at I)
        words = self.i_decoded.words
        cmn = US_CMN_INST.layout(words[0])
        tex = US_TEX_INST.layout(words[1])
        addr = US_TEX_ADDR.layout(words[2])
        lane = self.i_lane
        writer = self.i_writers.bit_select(lane, 1)
        enables = self.i_enables.as_value().word_select(lane, CHANNELS)
        tag = Signal(tag_layout)
        m.d.comb += [tag.context.eq(self.i_ctx), tag.lane.eq(lane),
                     tag.dst.eq(self.i_decoded.tex_dst),
                     tag.wmask.eq(Cat(cmn.RGB_WMASK, cmn.ALPHA_WMASK) & enables),
                     tag.swizzle.eq(Cat(addr.DST_R_SWIZ, addr.DST_G_SWIZ, addr.DST_B_SWIZ,
                                        addr.DST_A_SWIZ)),
                     tag.rgb_clamp.eq(cmn.RGB_CLAMP), tag.alpha_clamp.eq(cmn.ALPHA_CLAMP)]
        ask = Signal()
        kill = Signal()
        r_tag = Signal(tag_layout)
        r_swizzle = Signal(8)
        r_op = Signal(3)
        r_unscaled = Signal()
        r_sampler = Signal(SamplerLayout(self.tmem_addr_bits))
        m.d.sync += [ask.eq(self.i_valid & self.i_kind_tex & writer),
                     kill.eq(self.i_valid & self.i_kind_kill & writer),
                     r_tag.eq(tag),
                     r_swizzle.eq(Cat(addr.SRC_S_SWIZ, addr.SRC_T_SWIZ, addr.SRC_R_SWIZ,
                                      addr.SRC_Q_SWIZ)),
                     r_op.eq(tex.INST), r_unscaled.eq(tex.UNSCALED),
                     r_sampler.eq(self.i_sampler)]
        source = Signal(Vec4)
        m.d.comb += source.eq(Cat(self.temps.rgb[0], self.temps.alpha[0]))
        coords = Cat(source.as_value().word_select(r_swizzle.word_select(k, 2), 32)
                     for k in range(4))
        # TEXKILL: the sign bit of any coordinate (flushing keeps it)
        kills = Cat(coords.word_select(k, 32)[31] for k in range(4)).any()
        for k, c in enumerate(self.ctx):
            with m.If(kill & kills & (r_tag.context == k)):
                m.d.sync += c["killed"].eq(c["killed"] | (1 << r_tag.lane))

        fifo = m.submodules.tex_requests = SyncFIFOBuffered(width=unit.i.payload.shape().size,
                                                            depth=LANES)
        request = Signal(unit.i.payload.shape())
        m.d.comb += [request.coords.eq(coords), request.op.eq(r_op),
                     request.unscaled.eq(r_unscaled), request.sampler.eq(r_sampler),
                     request.tag.eq(r_tag),
                     fifo.w_en.eq(ask), fifo.w_data.eq(request),
                     unit.i.valid.eq(fifo.r_rdy), unit.i.payload.eq(fifo.r_data),
                     fifo.r_en.eq(unit.i.ready)]
        # a TEX instruction enters I only when no other one's lanes are on their way
        m.d.comb += self.tex_free.eq((fifo.r_level == 0) & ~ask
                                     & ~(self.i_valid & self.i_kind_tex))
        self.tex_tag_layout = tag_layout

    # --- the temporaries' write port ----------------------------------------------------

    def _writes(self, m):
        q = self.config.contexts
        wb, temps, unit = self.writeback, self.temps, self.tex_unit
        m.d.comb += [wb.valid.eq(self.wb_valid), wb.tag.eq(self.wb_tag),
                     wb.result.eq(self.alu.o_result),
                     self.targets.write.eq(wb.target_write)]
        for k, engine in enumerate(self.engines):
            mine = self.wb_valid & (wb.tag.context == k)
            lane = 1 << wb.tag.lane
            m.d.comb += [engine.alu_result_we.eq(Mux(mine & wb.alu_result_we, lane, 0)),
                         engine.alu_result.eq(Mux(wb.alu_result, lane, 0))]
            for i in range(LANES):
                m.d.comb += [engine.pred_we[i].eq(Mux(mine & (wb.tag.lane == i), wb.pred_we, 0)),
                             engine.pred[i].eq(wb.pred)]

        # a cycle without an ALU result takes a texture answer, else a load
        answer = self.tex_tag_layout(unit.o.payload.tag)
        texel = unit.o.payload.texel
        tex_write = Signal(temp_write_layout(q))
        values = []
        for c in range(CHANNELS):
            value = texel.as_value().word_select(answer.swizzle.word_select(c, 2), 32)
            clamp = answer.alpha_clamp if c == ALPHA else answer.rgb_clamp
            values.append(Mux(clamp, clamp_value(value), value))
        for part in ("rgb_addr", "alpha_addr"):
            m.d.comb += [tex_write[part].context.eq(answer.context),
                         tex_write[part].lane.eq(answer.lane), tex_write[part].temp.eq(answer.dst)]
        m.d.comb += [tex_write.rgb_en.eq(answer.wmask[:3]), tex_write.alpha_en.eq(answer.wmask[3]),
                     tex_write.rgb.eq(Cat(values[:3])), tex_write.alpha.eq(values[ALPHA])]

        free = ~self.wb_valid
        m.d.comb += [unit.o.ready.eq(free), self.load.ready.eq(free & ~unit.o.valid)]
        with m.If(self.wb_valid):
            m.d.comb += temps.write.eq(wb.temp_write)
        with m.Elif(unit.o.valid):
            m.d.comb += [temps.write.eq(tex_write), self.tex_done_en.eq(1),
                         self.tex_done.eq(answer.context)]
        with m.Elif(self.load.valid):
            m.d.comb += temps.write.eq(self.load.payload)

        # side writes waiting long: D lets no instruction into I until one is written
        waited = Signal(4)
        pending = unit.o.valid | self.load.valid
        with m.If(pending & self.wb_valid):
            with m.If(~waited.all()):
                m.d.sync += waited.eq(waited + 1)
        with m.Else():
            m.d.sync += waited.eq(0)
        m.d.comb += self.side_starving.eq(waited.all())
