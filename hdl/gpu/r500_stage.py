"""The GPU's R500 shading stage (r500-us.md §4): the THEIA cores' pixels become quads, the R500
core runs the scene's program on them, render target 0 becomes the pixels' output words.

    core k --export--> QuadFormer k --load words--+--> Q14.17 -> binary32 --> R500Core.load
                                    --launch------+--> R500Core.launch, quad table
    R500Core (DONE) --> unloader: render target 0 .rgb of every covered, unkilled lane that
                        wrote it -> bytes << 9 -> ``om_req`` (the output memory) --> release

* The stage sits across the chip from the THEIA cores (docs/fpga.md): each core's export
  stream passes a skid buffer (its ``pixel_hit`` beside each word; ``band_done`` a cycle
  late, when at most the buffer's two words of the band's last pixel are still on their
  way), and each former's loads and launches another, on their way to the arbiters.
* Contexts go to the formers as they ask, the free one with the lowest number.
* A quad is launched once every word loaded before its launch has reached the core.
* The unloader takes finished contexts in turn. A quad that stopped with a fault stops the
  stage: ``error`` goes high with the fault, its PC and the quad's first pixel
  (``fault``, ``fault_pixel``), and from then on (until the next ``start``) the stage drains:
  it takes the cores' exports and throws them away, frees every context that is not running,
  and writes nothing, so the cores finish their bands and the frame ends.
* ``busy``: a quad is on its way (a former holds pixels, a word or a quad is in flight, a
  context is not free, a colour waits to leave).
* Counters for the frame (from ``start``): ``quads`` shaded, their ``instructions``; the
  cycles each THEIA core waited on the stage (``export_wait``: its export word was not taken,
  so its OMWRITE held the core) and the cycles a context ran on the R500 core (``run_cycles``:
  the core had a quad to work on), a few cycles late (hdl/lib/cycle_counters.py).
"""

from amaranth import Cat, Module, Mux, Signal, Value
from amaranth.hdl import ResetInserter
from amaranth.lib import data, stream, wiring
from amaranth.lib.fifo import SyncFIFOBuffered
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from hdl.core.ports import OutputWrite
from hdl.gpu.quad_former import (ADDR_BITS, INPUT_TEMPS, QuadFormer, load_word_layout,
                                 quad_launch_layout)
from hdl.isa import QuadFault
from hdl.lib.arbiter import RoundRobinArbiter
from hdl.lib.cycle_counters import CycleCounters
from hdl.lib.skid_buffer import SkidBuffer
from hdl.r500.core import ContextState, R500Core
from hdl.r500.fp32 import BIAS, FRACTION_BITS
from hdl.r500.fp_from_q17 import FpFromQ17
from hdl.r500.temporaries import temp_write_layout

__all__ = ["R500Stage", "colour_byte", "BYTE_SHIFT"]

LANES = 4
#: an output word holds the colour byte << 9, so THEIA's conversion (w >> 9) reads it back
BYTE_SHIFT = 9
#: words in flight in the load path at most (the converter's pipeline, the queue behind it)
LOAD_QUEUE = 8
#: an export word and its pixel's hit flag, on their way to a former
EXPORT_WORD = data.StructLayout({"write": OutputWrite, "hit": 1})


def colour_byte(value):
    """r500-us.md §4.2: clamp(floor(v · 256), 0, 255) of a binary32 pattern, NaN -> 0
    (``sim.r500.fp32.to_byte``): read flushed; negative, zero and NaN give 0, v >= 1 (and
    infinity) 255, else the significand shifted so that v · 256's integer part remains."""
    sign, biased, fraction = value[31], value[23:31], value[:23]
    nan = (biased == 0xFF) & (fraction != 0)
    # v · 256 = significand · 2^(biased - 127 - 23 + 8): a right shift by 142 - biased,
    # 16 to 23 for 2^-8 <= v < 1
    shift = (BIAS + FRACTION_BITS - 8 - biased)[:5]
    byte = (Cat(fraction, 1) >> shift)[:8]
    return Mux(sign | nan | (biased < BIAS - 8), 0, Mux(biased >= BIAS, 255, byte))


class R500Stage(wiring.Component):
    """Parameters: ``r500`` (the core's ``R500Config``), ``cores`` (THEIA cores feeding it),
    ``row_words`` (each former's row buffer), ``tmem_addr_bits``."""

    def __init__(self, r500, cores, row_words, tmem_addr_bits=24):
        self.r500 = r500
        self.cores = cores
        self.core = R500Core(r500, tmem_addr_bits)
        self.formers = [QuadFormer(r500.contexts, row_words) for _ in range(cores)]
        members = self.core.signature.members
        super().__init__({
            "export": In(stream.Signature(OutputWrite)).array(cores),
            "pixel_hit": In(1).array(cores), "band_done": In(1).array(cores),
            **{name: In(members[name].shape) for name in (
                "imem_write", "const_write", "int_const_write", "sampler_write")},
            "bools": In(32), "start_pc": In(9), "end_pc": In(9), "max_instructions": In(32),
            "inputs": In(INPUT_TEMPS), "width": In(16),
            "start": In(1),
            "om_req": Out(stream.Signature(OutputWrite)),
            "tm_req": Out(stream.Signature(tmem_addr_bits)),
            "tm_resp": In(stream.Signature(32, always_ready=True)),
            "busy": Out(1), "error": Out(1), "fault": Out(32), "fault_pixel": Out(32),
            "quads": Out(32), "instructions": Out(32), "lane_ops": Out(32),
            "export_wait": Out(32).array(cores), "run_cycles": Out(32),
        })

    def elaborate(self, platform):
        m = Module()
        q = self.r500.contexts
        core = m.submodules.core = self.core
        for name in ("imem_write", "const_write", "int_const_write", "sampler_write", "bools",
                     "start_pc", "end_pc", "max_instructions"):
            m.d.comb += getattr(core, name).eq(getattr(self, name))
        wiring.connect(m, core.tm_req, wiring.flipped(self.tm_req))
        wiring.connect(m, wiring.flipped(self.tm_resp), core.tm_resp)
        m.d.comb += self.lane_ops.eq(core.lane_ops)

        # the quads launched: their coverage, position and outputs, by context
        table = m.submodules.quad_table = Memory(shape=quad_launch_layout(q), depth=max(q, 2),
                                                 init=[])
        unloading, draining = self._unloader(m, table)
        formers, exports, loads, launches = [], [], [], []
        for k, former in enumerate(self.formers):
            # a drain resets the formers and what they send (what they hold is dropped)
            reset = ResetInserter(draining | self.start)
            m.submodules[f"former{k}"] = reset(former)
            formers.append(former)
            export = m.submodules[f"export{k}"] = SkidBuffer(EXPORT_WORD)
            load = m.submodules[f"load{k}"] = reset(SkidBuffer(former.load.payload.shape()))
            launch = m.submodules[f"launch{k}"] = reset(
                SkidBuffer(former.launch.payload.shape()))
            exports.append(export)
            loads.append(load)
            launches.append(launch)
            band_done = Signal(name=f"band_done{k}")
            m.d.sync += band_done.eq(self.band_done[k])
            m.d.comb += [export.i.valid.eq(self.export[k].valid),
                         export.i.payload.write.eq(self.export[k].payload),
                         export.i.payload.hit.eq(self.pixel_hit[k]),
                         self.export[k].ready.eq(export.i.ready),
                         former.pixel_hit.eq(export.o.payload.hit),
                         former.band_done.eq(band_done),
                         former.inputs.eq(self.inputs), former.width.eq(self.width),
                         former.export.payload.eq(export.o.payload.write),
                         former.export.valid.eq(export.o.valid & ~draining),
                         export.o.ready.eq(former.export.ready | draining)]
            wiring.connect(m, former.load, load.i)
            wiring.connect(m, former.launch, launch.i)

        self._contexts(m, formers, draining)
        load_empty = self._loads(m, loads, draining)
        self._launches(m, launches, load_empty, table)
        m.submodules.waits = waits = CycleCounters(self.cores + 1)
        m.d.comb += [waits.clear.eq(self.start),
                     waits.events.eq(Cat(*(e.valid & ~e.ready for e in self.export),
                                         ~core.idle)),
                     *(wait.eq(count) for wait, count in zip(self.export_wait, waits.counts)),
                     self.run_cycles.eq(waits.counts[self.cores])]
        m.d.comb += self.busy.eq(~Cat(f.idle for f in formers).all() | ~load_empty
                                 | ~Cat(b.empty for b in exports + launches).all()
                                 | unloading
                                 | ~Cat(s == ContextState.FREE for s in core.state).all())
        return m

    def _contexts(self, m, formers, draining):
        """A free context for a former that asks (round robin), claimed at once."""
        q, core = self.r500.contexts, self.core
        free = Cat(s == ContextState.FREE for s in core.state)
        chosen = Signal(range(max(q, 2)))
        for k in reversed(range(q)):
            with m.If(free[k]):
                m.d.comb += chosen.eq(k)
        m.submodules.claims = claims = RoundRobinArbiter(len(formers), 1)
        for k, former in enumerate(formers):
            m.d.comb += [claims.i[k].valid.eq(former.context_req),
                         former.context.eq(chosen),
                         former.context_grant.eq(claims.i[k].ready & former.context_req)]
        m.d.comb += [claims.o.ready.eq(free.any() & ~draining),
                     core.claim.en.eq(claims.o.valid & claims.o.ready),
                     core.claim.context.eq(chosen)]

    def _loads(self, m, buffers, draining):
        """The formers' words (through their skid buffers), converted where they are THEIA's,
        into the core's temporaries. Returns "nothing is in the load path"."""
        q, core = self.r500.contexts, self.core
        layout = load_word_layout(q)
        m.submodules.loads = loads = RoundRobinArbiter(len(buffers), layout)
        for k, buffer in enumerate(buffers):
            wiring.connect(m, buffer.o, loads.i[k])
        m.submodules.convert = convert = FpFromQ17()
        m.submodules.queue = queue = SyncFIFOBuffered(width=temp_write_layout(q).size,
                                                      depth=LOAD_QUEUE)
        in_flight = Signal(range(FpFromQ17.LATENCY + 1))
        room = queue.level + in_flight < LOAD_QUEUE
        take = loads.o.valid & room
        m.d.comb += [loads.o.ready.eq(room), convert.i_valid.eq(take),
                     convert.i_word.eq(loads.o.payload.word)]
        m.d.sync += in_flight.eq(in_flight + take - convert.o_valid)
        # the word's place travels beside the converter
        place = data.StructLayout({"context": range(max(q, 2)), "lane": 2, "temp": 4,
                                   "channel": 2, "convert": 1, "word": 32})
        word = loads.o.payload
        late = Cat(word.context, word.lane, word.temp, word.channel, word.convert, word.word)
        for _ in range(FpFromQ17.LATENCY):
            registered = Signal(len(late))
            m.d.sync += registered.eq(late)
            late = registered
        late = place(late)
        value = Mux(late.convert, convert.o_result, late.word)
        write = Signal(temp_write_layout(q))
        for part in ("rgb_addr", "alpha_addr"):
            m.d.comb += [write[part].context.eq(late.context), write[part].lane.eq(late.lane),
                         write[part].temp.eq(late.temp)]
        m.d.comb += [write.rgb_en.eq(Mux(late.channel == 3, 0, 1 << late.channel)),
                     write.alpha_en.eq(late.channel == 3),
                     write.rgb.eq(value.replicate(3)), write.alpha.eq(value),
                     queue.w_en.eq(convert.o_valid), queue.w_data.eq(write),
                     core.load.valid.eq(queue.r_rdy), core.load.payload.eq(queue.r_data),
                     queue.r_en.eq(core.load.ready)]
        empty = Signal()
        m.d.comb += empty.eq((in_flight == 0) & ~queue.r_rdy & ~loads.o.valid
                             & Cat(b.empty for b in buffers).all())
        return empty

    def _launches(self, m, buffers, load_empty, table):
        """A loaded quad (through its former's skid buffer) starts once its words are in; its
        lanes' outputs go to the table."""
        q, core = self.r500.contexts, self.core
        m.submodules.launches = launches = RoundRobinArbiter(len(buffers), quad_launch_layout(q))
        for k, buffer in enumerate(buffers):
            wiring.connect(m, buffer.o, launches.i[k])
        table_w = table.write_port()
        go = launches.o.valid & load_empty
        quad = launches.o.payload
        m.d.comb += [launches.o.ready.eq(load_empty),
                     core.launch.en.eq(go), core.launch.context.eq(quad.context),
                     core.launch.covered.eq(quad.covered),
                     table_w.en.eq(go), table_w.addr.eq(quad.context), table_w.data.eq(quad)]

    def _unloader(self, m, table):
        """Finished contexts in turn: render target 0 of each lane to the output memory, then
        free; a fault stops the stage. Returns "a context is being unloaded" and ``draining``
        (a quad faulted: drop everything until ``start``)."""
        q, core = self.r500.contexts, self.core
        draining = Signal()
        with m.If(self.start):
            m.d.sync += draining.eq(0)
        done = Cat(s == ContextState.DONE for s in core.state)
        loading = Cat(s == ContextState.LOADING for s in core.state)
        context = Signal(range(max(q, 2)))
        lane = Signal(2)
        channel = Signal(2)
        table_r = table.read_port()
        quad = table_r.data
        m.d.comb += [table_r.addr.eq(context),
                     core.target_read.context.eq(context), core.target_read.lane.eq(lane),
                     core.target_read.target.eq(0)]
        next_done = Signal(range(max(q, 2)))
        for k in reversed(range(q)):
            with m.If(done[k]):
                m.d.comb += next_done.eq(k)
        killed = Signal(LANES)
        m.d.comb += killed.eq(core.killed[context])
        instructions = Signal(32)
        m.d.comb += instructions.eq(core.instructions[context])
        fault = Signal(QuadFault)
        m.d.comb += fault.eq(core.fault[context])

        with m.If(self.start):
            m.d.sync += [self.quads.eq(0), self.instructions.eq(0), self.error.eq(0)]
        with m.FSM() as fsm:
            with m.State("IDLE"):
                with m.If(draining):
                    # free every context that is not running
                    for k in range(q):
                        with m.If(done[k] | loading[k]):
                            m.d.comb += [core.release.en.eq(1), core.release.context.eq(k)]
                with m.Elif(done.any()):
                    m.d.sync += [context.eq(next_done), lane.eq(0)]
                    m.next = "TABLE"
            with m.State("TABLE"):
                # the quad table is read for the context
                m.next = "CHECK"
            with m.State("CHECK"):
                with m.If(fault != QuadFault.NONE):
                    m.d.sync += [self.error.eq(1), draining.eq(1),
                                 self.fault.eq(Value.cast(fault)
                                               | (core.fault_pc[context] << 16)),
                                 self.fault_pixel.eq(Cat(quad.x, quad.y))]
                    m.next = "IDLE"
                with m.Else():
                    m.next = "LANE"
            with m.State("LANE"):
                # the lane's render target 0 is read: it arrives next cycle
                m.d.sync += channel.eq(0)
                m.next = "WRITE"
            with m.State("WRITE"):
                # a covered, unkilled lane that wrote any channel of target 0: its .rgb as bytes
                writes = (core.target_written.any() & quad.covered.bit_select(lane, 1)
                          & ~killed.bit_select(lane, 1))
                byte = colour_byte(core.target_data.as_value().word_select(channel, 32))
                address = quad.outputs[lane].as_value().word_select(channel, ADDR_BITS)
                m.d.comb += [self.om_req.valid.eq(writes),
                             self.om_req.payload.addr.eq(address),
                             self.om_req.payload.data.eq(byte << BYTE_SHIFT)]
                with m.If(~writes | self.om_req.ready):
                    m.d.sync += channel.eq(channel + 1)
                    with m.If(~writes | (channel == 2)):
                        m.d.sync += lane.eq(lane + 1)
                        with m.If(lane == LANES - 1):
                            m.next = "RELEASE"
                        with m.Else():
                            m.next = "LANE"
            with m.State("RELEASE"):
                m.d.comb += [core.release.en.eq(1), core.release.context.eq(context)]
                m.d.sync += [self.quads.eq(self.quads + 1),
                             self.instructions.eq(self.instructions + instructions)]
                m.next = "IDLE"
        return ~fsm.ongoing("IDLE"), draining
