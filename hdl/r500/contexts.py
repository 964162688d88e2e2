"""The R500 core's contexts (docs/r500-core.md): each context's state (``context_layout``, one
array of them) and its flow-control engine, and every change to them.

A context: FREE -> ``claim`` (its temporaries and outputs read zero: the core clears them) ->
LOADING -> ``launch`` (coverage; the engine at its start state; PC = ``start_pc``) -> RUNNING ->
DONE (D saw the program end, or a fault: ``fault``/``fault_pc`` say why) -> ``release`` ->
FREE. While it runs:

* F reads ``f_ready`` (the contexts that may issue: running, their writes landed) and the PC
  of the one it picks (``f_index`` -> ``f_pc``);
* D reads the context at D (``d_ctx`` -> ``d_context``: its state and its engine's outputs),
  gives its engine an FC instruction (``d_fc``) and says what the instruction did
  (``d_update``: the next PC, the end, a fault, the writes to wait for);
* the texture path's TEXKILL kills lanes (``t_kill``); the write port's ALU results reach the
  engine (``w_fc``) and its texture answers count down ``tex_pending`` (``w_tex_done``).

The engines sit here, beside the state they extend, so that a context's flow-control state and
the rest of it are one unit's.
"""

from amaranth import Cat, Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from hdl.core.fc_engine import FlowControlEngine
from hdl.isa import R500_BOOLS, QuadFault
from hdl.r500.core_ports import (ALU_WAIT, KILL_WAIT, LANES, PC_BITS, ContextState,
                                 ContextUpdate, ContextView, FcInstruction, context_event_layout,
                                 context_layout, fc_write_layout, lane_event_layout, select,
                                 write_port)

__all__ = ["Contexts"]


class Contexts(wiring.Component):
    """Parameters: ``contexts`` (how many)."""

    def __init__(self, contexts):
        self.contexts = contexts
        context = range(max(contexts, 2))
        per_context = lambda shape: data.ArrayLayout(shape, contexts)
        super().__init__({
            # the host's commands and state
            "claim": In(write_port({"context": context})),
            "launch": In(write_port({"context": context, "covered": LANES})),
            "release": In(write_port({"context": context})),
            "start_pc": In(PC_BITS), "bools": In(R500_BOOLS), "max_instructions": In(32),
            "state": Out(per_context(ContextState)),
            "fault": Out(per_context(QuadFault)),
            "fault_pc": Out(per_context(PC_BITS)),
            "killed": Out(per_context(LANES)),
            "instructions": Out(per_context(32)),
            "idle": Out(1),                  # no context runs
            # F
            "f_ready": Out(contexts), "f_index": In(context), "f_pc": Out(PC_BITS),
            # D
            "d_ctx": In(context), "d_context": Out(ContextView), "d_fc": In(FcInstruction),
            "d_update": In(ContextUpdate),
            # the texture path and the write port
            "t_kill": In(lane_event_layout(contexts)),
            "w_fc": In(fc_write_layout(contexts)),
            "w_tex_done": In(context_event_layout(contexts)),
        })

    def elaborate(self, platform):
        m = Module()
        q = self.contexts
        ctx = Signal(data.ArrayLayout(context_layout, q), name="ctx")
        engines = []
        for k in range(q):
            # (start, ALU writes and aL a cycle late: the engine's decision and aL from its
            # flip-flops. A context's FC instruction never meets its start, its ALU writes
            # (``ALU_WAIT``) or, at D, another FC instruction of its own in the cycle before)
            engine = FlowControlEngine(lanes=LANES, jump_addr_bits=PC_BITS, same_cycle=False,
                                       two_cycle=True)
            m.submodules[f"fc{k}"] = engine
            engines.append(engine)
        self._views(m, ctx, engines)
        self._engine_inputs(m, ctx, engines)

        # the host's commands, the wait counters, the end of a context that reached its end
        for k in range(q):
            c = ctx[k]
            m.d.sync += c.at_limit.eq(c.count >= self.max_instructions)
            with m.If(c.wait != 0):
                m.d.sync += c.wait.eq(c.wait - 1)
            with m.If(self.w_tex_done.en & (self.w_tex_done.context == k)):
                m.d.sync += c.tex_pending.eq(c.tex_pending - 1)
            # a context that reached its end finishes once its writes have landed
            with m.If(c.ending & (c.wait == 0) & (c.tex_pending == 0)):
                m.d.sync += [c.ending.eq(0), c.state.eq(ContextState.DONE)]
            with m.If(self.claim.en & (self.claim.context == k)):
                m.d.sync += [c.state.eq(ContextState.LOADING), c.count.eq(0),
                             c.killed.eq(0), c.fault.eq(QuadFault.NONE),
                             c.ending.eq(0), c.last_pending.eq(0)]
            with m.If(self.launch.en & (self.launch.context == k)):
                m.d.sync += [c.state.eq(ContextState.RUNNING), c.pc.eq(self.start_pc),
                             c.covered.eq(self.launch.covered)]
            with m.If(self.release.en & (self.release.context == k)):
                m.d.sync += c.state.eq(ContextState.FREE)

        # what D does to the context at D (after the above: it wins)
        update, d_ctx = self.d_update, self.d_ctx
        count = select(m, d_ctx, [ctx[k].count for k in range(q)], "d_count")
        for k in range(q):
            c = ctx[k]
            with m.If(update.done & (d_ctx == k)):
                m.d.sync += c.last_pending.eq(0)
                with m.If(update.ends):
                    m.d.sync += c.state.eq(ContextState.DONE)
                with m.Elif(update.fault != QuadFault.NONE):
                    m.d.sync += [c.state.eq(ContextState.DONE), c.fault.eq(update.fault),
                                 c.fault_pc.eq(update.fault_pc)]
                with m.Else():
                    m.d.sync += [c.count.eq(count + 1), c.pc.eq(update.next_pc)]
                    with m.If(update.ending):
                        m.d.sync += c.ending.eq(1)
                    with m.Elif(update.last):
                        m.d.sync += c.last_pending.eq(1)
        # the context's wait for the writes of the lane-ops it hands to I
        for k in range(q):
            c = ctx[k]
            with m.If(update.issue & (d_ctx == k)):
                with m.If(update.tex):
                    m.d.sync += c.tex_pending.eq(update.tex_lanes)
                with m.Elif(update.kill):
                    m.d.sync += c.wait.eq(KILL_WAIT)
                with m.Else():
                    m.d.sync += c.wait.eq(ALU_WAIT)
        for k in range(q):
            with m.If(self.t_kill.en & (self.t_kill.context == k)):
                m.d.sync += ctx[k].killed.eq(ctx[k].killed | (1 << self.t_kill.lane))
        return m

    def _views(self, m, ctx, engines):
        """The host's, F's and D's views of the contexts: their states, whether each may
        issue, the PC of F's pick, the context at D."""
        q, d_ctx, view = self.contexts, self.d_ctx, self.d_context
        for k in range(q):
            c = ctx[k]
            m.d.comb += [self.state[k].eq(c.state), self.fault[k].eq(c.fault),
                         self.fault_pc[k].eq(c.fault_pc), self.killed[k].eq(c.killed),
                         self.instructions[k].eq(c.count)]
            m.d.comb += self.f_ready[k].eq((c.state == ContextState.RUNNING) & (c.wait == 0)
                                           & (c.tex_pending == 0) & ~c.ending)
        m.d.comb += self.f_pc.eq(select(m, self.f_index, [ctx[k].pc for k in range(q)],
                                        "pick_pc"))
        of_context = lambda field: [ctx[k][field] for k in range(q)]
        of_engine = lambda port: [getattr(engine, port) for engine in engines]
        m.d.comb += [
            view.aL.eq(select(m, d_ctx, of_engine("aL"), "d_aL")),
            view.active.eq(select(m, d_ctx, of_engine("active"), "d_active")),
            view.killed.eq(select(m, d_ctx, of_context("killed"), "d_killed")),
            view.last_pending.eq(select(m, d_ctx, of_context("last_pending"), "d_last_pending")),
            view.at_limit.eq(select(m, d_ctx, of_context("at_limit"), "d_at_limit")),
            view.jump.eq(select(m, d_ctx, of_engine("jump"), "d_jump")),
            view.next_pc.eq(select(m, d_ctx, of_engine("next_pc"), "d_next_pc")),
            view.fc_error.eq(select(m, d_ctx, of_engine("error_code"), "d_fc_error")),
            view.pred.eq(select(m, d_ctx, of_engine("lane_pred"), "d_pred")),
            view.covered.eq(select(m, d_ctx, of_context("covered"), "d_covered")),
        ]
        m.d.comb += self.idle.eq(~Cat(ctx[k].state == ContextState.RUNNING
                                      for k in range(q)).any())

    def _engine_inputs(self, m, ctx, engines):
        """Each engine's context, its start, D's FC instruction for the context at D, the ALU
        results of the context's lanes."""
        fc, w, launch = self.d_fc, self.w_fc, self.launch
        for k, engine in enumerate(engines):
            # (the engine starts a cycle after the launch, before the context's first D: its
            # start state then comes from its registers, and the launch stays off D's paths)
            m.d.sync += engine.start.eq(launch.en & (launch.context == k))
            m.d.comb += [
                engine.covered.eq(ctx[k].covered), engine.killed.eq(ctx[k].killed),
                engine.bool_const.eq(self.bools), engine.code_offset.eq(self.start_pc),
                engine.valid.eq(fc.valid & (self.d_ctx == k)), engine.pc.eq(fc.pc),
                engine.inst.eq(fc.inst), engine.addr.eq(fc.addr),
                engine.int_const.eq(fc.int_const),
                engine.pred_sel.eq(fc.pred_sel), engine.pred_inv.eq(fc.pred_inv),
            ]
            mine = w.valid & (w.context == k)
            lane = 1 << w.lane
            m.d.comb += [engine.alu_result_we.eq(Mux(mine & w.alu_result_we, lane, 0)),
                         engine.alu_result.eq(Mux(w.alu_result, lane, 0))]
            for i in range(LANES):
                m.d.comb += [engine.pred_we[i].eq(Mux(mine & (w.lane == i), w.pred_we, 0)),
                             engine.pred[i].eq(w.pred)]
