"""The whole THEIA GPU: N shader cores, their IO units, the shared memories and the host port.

Host side (docs/host-interface.md): one 32-bit word-addressed port (``host``,
hdl/gpu/host_port.py) loads the configuration rows, band table, scene (triangle) memory, texture
memory and user code, starts a frame (CTRL), polls STATUS and reads the output memory and the
counters. ``busy``, ``done`` and ``error`` mirror STATUS for LEDs.

Inside::

    host port --+-- config rows ------------> every IO unit (broadcast, only between frames)
                +-- user code --------------> every core's instruction RAM
                +-- band table -> dispatcher -> IO unit k (the next band to an idle unit)
                +-- scene memory <== IO units (two read ports, each shared by half of the
                |                   units; one 96-bit triangle row per read)
                +-- texture memory <== cores' TMREAD + host reads (one shared read port)
                +-- output memory <== cores' OMWRITE + host writes (one arbiter); host reads

    IO unit k -> shader core k: rows 6/7, omem_base, band_start; triangle rows into the swap
                 bank's IO copy while MAIN runs (hdl/gpu/io_unit.py)

Every memory is a synchronous ``lib.memory.Memory`` with one write and one read port (or the
8-bit stores of hdl/gpu/narrow_store.py with the same interface), so each maps onto FPGA block
RAM. The scene memory holds one triangle row (96 bits) per word, 8 words per triangle slot. A
core needs 7 reads per triangle and MAIN takes ~25-30 cycles, so one read port would serve
about four cores; the memory has two (a block RAM's two ports: port A also takes the host's
writes, which wait while a frame runs), each shared by half of the IO units (unit k on port
k % 2): a row per read keeps the wires from the memory to each unit at 96.

Streams that cross the chip pass skid buffers (hdl/lib/skid_buffer.py): each IO unit's scene
reads, each core's texture reads and output writes (two for those: one by the core, one by the
arbiter), so that requests and the ready a requester sees end in flip-flops. Texture and output
words reach their readers two cycles or more after the address (the 32-bit memories' words are
registered after their read port, the narrow stores register address and bank words).

Configuration (``hdl.config.GpuConfig``): the cores (``CoreConfig``; with
``DividerSharing.PAIR`` each pair of cores shares a divider, hdl/alu/shared_divider.py), the
memory sizes, the 8-bit stores (``narrow_stores``) and fixed turns for the texture readers and
output writers instead of round robin (``slotted_ports``: no requester's valid reaches another's
ready; a request waits up to ``cores`` cycles more).
"""

from amaranth import Cat, Module, Mux, Signal, unsigned
from amaranth.utils import ceil_log2
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from hdl.alu.shared_divider import DIVIDER_SLOTS, SharedDivider
from hdl.config import DividerSharing
from hdl.core.ports import OutputWrite
from hdl.core.shader_core import ShaderCore
from hdl.gpu.dispatcher import Dispatcher
from hdl.gpu.frame_control import FrameControl
from hdl.gpu.frame_status import COUNTS, FrameStatus
from hdl.gpu.host_bus import HostBus
from hdl.gpu.host_port import CONFIG_ROWS, SLOW_READ, HostPort
from hdl.gpu.io_unit import BandEntry, IoUnit
from hdl.gpu.memory_system import MAX_WORDS, MemorySystem, display_link
from hdl.gpu.narrow_store import PixelStore, TextureStore
from hdl.gpu.r500_port import R500Port
from hdl.gpu.r500_stage import R500Stage
from hdl.isa import VectorLayout
from hdl.lib.arbiter import RoundRobinArbiter, SharedReadPort, SlotArbiter
from hdl.lib.skid_buffer import SkidBuffer
from hdl.mem.sdram_arbiter import PORT_ORDER
from hdl.mem.sdram_bus import SdramBus

__all__ = ["Gpu", "CONFIG_ROWS"]

#: read ports of the scene memory (a block RAM has two)
SCENE_PORTS = 2


class Gpu(wiring.Component):
    """Parameters: ``rom`` (firmware words), ``config`` (a ``hdl.config.GpuConfig``)."""

    def __init__(self, rom, config):
        self.config = config
        cores = config.cores
        memory = config.memory
        super().__init__({
            "host": In(HostBus()),
            "busy": Out(1), "done": Out(1), "error": Out(1),
            # with the memories in SDRAM: the SDRAM arbiter's ports (hdl/mem/sdram_arbiter.py
            # PORT_ORDER), the display's GPU side, the memory system's statistics
            **({"sdram": Out(SdramBus(memory.chip, MAX_WORDS)).array(len(PORT_ORDER)),
                "display": display_link(memory.mode),
                "cache_fills": Out(32), "line_writes": Out(32)} if memory else {}),
        })
        self.shared_dividers = [SharedDivider(min(DIVIDER_SLOTS, cores - k))
                                for k in range(0, cores, DIVIDER_SLOTS)
                                ] if config.core.divider == DividerSharing.PAIR else []
        self.shader_cores = [ShaderCore(rom, config.core, tmem_words=config.tmem_words,
                                        omem_words=config.omem_words)
                             for _ in range(cores)]
        self.io_units = [IoUnit(config.scene_rows) for _ in range(cores)]
        self.scene_mem = Memory(shape=VectorLayout, depth=config.scene_rows, init=[])
        tmem_addr_bits = max(ceil_log2(config.tmem_words), 1)
        self.memory_system = None
        if memory is not None:
            # (texture readers: the cores, then the R500 stage)
            self.memory_system = MemorySystem(config, cores + (config.r500 is not None),
                                              tmem_addr_bits)
            self.store_latency = 1              # (no store: the host's reads are answered
                                                # when the memory system has the word)
        elif config.narrow_stores:
            self.tmem = TextureStore(config.tmem_words)
            self.omem = PixelStore(config.omem_words)
            self.store_latency = TextureStore.READ_LATENCY     # (PixelStore's too)
        else:
            self.tmem = Memory(shape=unsigned(32), depth=config.tmem_words, init=[])
            self.omem = Memory(shape=unsigned(32), depth=config.omem_words, init=[])
            self.store_latency = 1
        self.band_table = Memory(shape=unsigned(BandEntry.as_shape().size),
                                 depth=config.max_bands, init=[])
        self.r500_stage = (R500Stage(config.r500, cores, config.r500_row_words,
                                     tmem_addr_bits=tmem_addr_bits)
                           if config.r500 is not None else None)
        self.host_port = HostPort(config, self.store_latency, r500=self.r500_stage is not None)
        # region R500: the stage's host state and registers, behind the host port
        self.r500_port = R500Port(self.r500_stage.core, cores) if self.r500_stage else None

    def elaborate(self, platform):
        m = Module()
        n = self.config.cores
        for k, (core, unit) in enumerate(zip(self.shader_cores, self.io_units)):
            m.submodules[f"core{k}"] = core
            m.submodules[f"io{k}"] = unit
        for k, shared in enumerate(self.shared_dividers):
            m.submodules[f"divider{k}"] = shared
            first = DIVIDER_SLOTS * k
            for client, core in zip(shared.client,
                                    self.shader_cores[first:first + DIVIDER_SLOTS]):
                wiring.connect(m, core.div, client)
        for name in ("scene_mem", "band_table", "host_port"):
            m.submodules[name] = getattr(self, name)
        m.submodules.dispatcher = dispatcher = Dispatcher(n, self.config.max_bands)
        m.submodules.status = status = FrameStatus(n)
        port = self.host_port
        wiring.connect(m, wiring.flipped(self.host), port.host)

        # A frame starts when the frame control says (``start``: a host's START or RUN,
        # registered by the host port, once the frame buffers allow); ``frame_busy`` covers
        # that cycle. A frame's output writes pass skid buffers and a register after their
        # core has finished: the frame lasts until the dispatcher is done and they have all
        # landed (``writes_landed``, registered: the buffers sit all over the chip; a write is
        # in one of them from its core's OMWRITE until it lands).
        start = Signal()
        writes_landed = Signal(init=1)
        frame_open = Signal()
        frame_busy = Signal()
        frame_done = Signal()
        frame_error = Signal()
        shading, shading_error = self._r500(m, start)
        m.d.sync += frame_open.eq(start | (frame_open & (dispatcher.busy | ~writes_landed
                                                          | shading)))
        m.d.comb += [frame_busy.eq(start | frame_open),
                     frame_error.eq(dispatcher.error | shading_error),
                     frame_done.eq(dispatcher.done & ~frame_open & ~shading_error),
                     dispatcher.num_bands.eq(port.num_bands),
                     dispatcher.halt.eq(shading_error), status.r500_error.eq(shading_error),
                     dispatcher.start.eq(start), port.frame_error.eq(frame_error),
                     status.start.eq(start), status.busy.eq(frame_busy),
                     port.cycles.eq(status.cycles), port.error_info.eq(status.error_info)]
        m.d.comb += [getattr(port, f"frame_{name}").eq(getattr(status, f"frame_{name}"))
                     for name in COUNTS]
        control = self._frame_control(m, start, frame_open, frame_done, frame_error)

        readers, omem_arbiter, writes_idle = self._stores(m, control)
        scene_ports = self._scene_memory(m)
        table_r = self.band_table.read_port()
        table_w = self.band_table.write_port(granularity=32)
        m.d.comb += [table_r.addr.eq(dispatcher.table_addr),
                     dispatcher.table_data.eq(table_r.data),
                     table_w.addr.eq(port.band_w_addr), table_w.data.eq(port.band_w_data),
                     table_w.en.eq(port.band_w_en)]
        m.d.comb += port.config_row.ready.eq(Cat(u.config.ready for u in self.io_units).all())

        write_buffers = []                  # every skid buffer an output write passes
        for k, (core, unit) in enumerate(zip(self.shader_cores, self.io_units)):
            # (a core's stall cycles, summed beside it: the sum over the cores is from registers)
            stall = Signal(32, name=f"stall_cycles{k}")
            m.d.sync += stall.eq(core.counters.stall_operand + core.counters.stall_writeback
                                 + core.counters.stall_memory)
            m.d.comb += [
                core.io_valid.eq(unit.io_valid), core.io_addr.eq(unit.io_addr),
                core.io_data.eq(unit.io_data), unit.io_ready.eq(core.io_ready),
                unit.io_idle.eq(core.io_idle),
                core.omem_base.eq(unit.omem_base), core.band_start.eq(unit.band_start),
                unit.band_done.eq(core.band_done), unit.core_error.eq(core.error),
                core.tri_ready.eq(unit.tri_ready), unit.tri_flip.eq(core.tri_flip),
                unit.num_triangles.eq(port.num_triangles),
                unit.grid_columns.eq(port.grid_columns), unit.grid_rows.eq(port.grid_rows),
                unit.table_base.eq(port.bin_table), unit.list_base.eq(port.bin_list),
                dispatcher.unit_error[k].eq(unit.error),
                unit.config.valid.eq(port.config_row.valid),
                unit.config.payload.eq(port.config_row.payload),
                core.imem_we.eq(port.imem_we[k]), core.imem_addr.eq(port.imem_addr[k]),
                core.imem_data.eq(port.imem_data[k]),
                status.instructions[k].eq(core.counters.retired),
                status.io_wait[k].eq(core.io_wait_cycles),
                status.stall[k].eq(stall),
                status.pixels[k].eq(core.pixels), status.tests[k].eq(core.tests),
                status.error[k].eq(unit.error), status.error_code[k].eq(core.error_code),
                status.error_pc[k].eq(core.error_pc),
            ]
            wiring.connect(m, dispatcher.units[k], unit.band)
            wiring.connect(m, unit.pixel_triangles, core.pixel_triangles)
            # requests pass a skid buffer on their way to the arbiters
            m.submodules[f"scene_req{k}"] = scene_req = SkidBuffer(
                unit.scene_req.payload.shape())
            scene_port = scene_ports[k % SCENE_PORTS]
            wiring.connect(m, unit.scene_req, scene_req.i)
            wiring.connect(m, scene_req.o, scene_port.req[k // SCENE_PORTS])
            wiring.connect(m, scene_port.resp[k // SCENE_PORTS], unit.scene_resp)
            m.submodules[f"tm_req{k}"] = tm_req = SkidBuffer(32)
            wiring.connect(m, core.tm_req, tm_req.i)
            _request(m, tm_req.o, readers[k][0])
            wiring.connect(m, readers[k][1], core.tm_resp)
            # output writes pass two: one by the core, one by the arbiter (a core's quadrant
            # is far from the arbiter). A write costs nothing for its latency: OMWRITE is done
            # once its requests are taken.
            m.submodules[f"om_req{k}"] = om_req = SkidBuffer(OutputWrite)
            m.submodules[f"om_arb{k}"] = om_arb = SkidBuffer(OutputWrite)
            wiring.connect(m, core.om_req, om_req.i)
            wiring.connect(m, om_req.o, om_arb.i)
            wiring.connect(m, om_arb.o, omem_arbiter.i[k])
            write_buffers += [om_req, om_arb]
        if self.r500_stage is not None:
            # the stage's colours pass two skid buffers too, and take the arbiter's last input
            stage = self.r500_stage
            m.submodules.r500_om_req = stage_req = SkidBuffer(OutputWrite)
            m.submodules.r500_om_arb = stage_arb = SkidBuffer(OutputWrite)
            wiring.connect(m, stage.om_req, stage_req.i)
            wiring.connect(m, stage_req.o, stage_arb.i)
            wiring.connect(m, stage_arb.o, omem_arbiter.i[n + 1])
            write_buffers += [stage_req, stage_arb]
            m.submodules.r500_tm_req = stage_tm = SkidBuffer(stage.tm_req.payload.shape())
            wiring.connect(m, stage.tm_req, stage_tm.i)
            _request(m, stage_tm.o, readers[n][0])
            wiring.connect(m, readers[n][1], stage.tm_resp)
            for k, core in enumerate(self.shader_cores):
                m.d.comb += [core.r500.eq(self.r500_port.shade),
                             stage.pixel_hit[k].eq(core.pixel_hit),
                             stage.band_done[k].eq(core.band_done)]
                wiring.connect(m, core.export, stage.export[k])
        buffers_empty = Cat(b.empty for b in write_buffers).all()
        m.d.sync += writes_landed.eq(buffers_empty & writes_idle)
        if self.memory_system is not None:
            # the frame writer's last lines leave once no core will write more
            m.d.sync += self.memory_system.flush.eq(buffers_empty & ~dispatcher.busy
                                                     & ~shading)
        return m

    def _frame_control(self, m, start, frame_open, frame_done, frame_error):
        """The frame control (hdl/gpu/frame_control.py) between the host port and ``start``;
        what the host port and the LEDs see of the frame."""
        port = self.host_port
        m.submodules.frame_control = control = FrameControl()
        memory = self.memory_system
        m.d.comb += [control.start_request.eq(port.start), control.run_request.eq(port.run),
                     control.stop_request.eq(port.stop),
                     control.may_start.eq(memory.may_start if memory is not None else 1),
                     control.frame_busy.eq(frame_open), control.frame_done.eq(frame_done),
                     control.frame_error.eq(frame_error), start.eq(control.start),
                     port.frame_busy.eq(control.busy), port.frame_done.eq(control.done),
                     port.running.eq(control.running), port.frames.eq(control.frames),
                     self.busy.eq(control.busy), self.done.eq(control.done),
                     self.error.eq(frame_error)]
        return control

    def _r500(self, m, start):
        """The R500 stage and its host state; returns (it is shading, it stopped with an
        error)."""
        stage, state = self.r500_stage, self.r500_port
        if stage is None:
            return 0, 0
        m.submodules.r500 = stage
        m.submodules.r500_port = state
        wiring.connect(m, self.host_port.r500, state.bus)
        m.d.comb += [stage.imem_write.eq(state.imem_write), stage.const_write.eq(state.const_write),
                     stage.int_const_write.eq(state.int_const_write),
                     stage.sampler_write.eq(state.sampler_write), stage.bools.eq(state.bools),
                     stage.start_pc.eq(state.start_pc), stage.end_pc.eq(state.end_pc),
                     stage.max_instructions.eq(state.max_instructions),
                     stage.inputs.eq(state.inputs), stage.width.eq(state.width),
                     stage.start.eq(start),
                     state.status.eq(Cat(stage.busy, 0, stage.error)),
                     state.fault.eq(stage.fault), state.fault_pixel.eq(stage.fault_pixel),
                     state.instructions.eq(stage.instructions), state.quads.eq(stage.quads),
                     state.lane_ops.eq(stage.lane_ops), state.cycles.eq(stage.run_cycles),
                     *(wait.eq(count) for wait, count in zip(state.export_wait,
                                                             stage.export_wait))]
        return stage.busy, stage.error

    def _stores(self, m, control):
        """The texture store's shared read port, the output store's arbiter; the host's
        requests as the last client of each (or the memories in SDRAM:
        ``_memory_stores``). Returns (the texture readers' (request, answer) ports: the
        cores', then the R500 stage's; the output arbiter; "no output write is on its way to
        the store")."""
        if self.memory_system is not None:
            return self._memory_stores(m, control)
        n, port = self.config.cores, self.host_port
        m.submodules.tmem = self.tmem
        m.submodules.omem = self.omem
        # (the host's requests after the cores', then the R500 stage's)
        clients = n + 1 + (self.r500_stage is not None)
        m.submodules.tmem_port = tmem_port = SharedReadPort(
            clients, 32, 32, memory_latency=self.store_latency,
            registered=self.store_latency < SLOW_READ, slotted=self.config.slotted_ports)
        m.submodules.omem_arbiter = omem_arbiter = (
            SlotArbiter if self.config.slotted_ports else RoundRobinArbiter)(clients, OutputWrite)
        tmem_r = self.tmem.read_port()
        tmem_w = self.tmem.write_port()
        m.d.comb += [tmem_r.addr.eq(tmem_port.mem_addr), tmem_r.en.eq(tmem_port.mem_en),
                     tmem_port.mem_data.eq(tmem_r.data),
                     tmem_w.addr.eq(port.tmem_w_addr), tmem_w.data.eq(port.tmem_w_data),
                     tmem_w.en.eq(port.tmem_w_en)]
        wiring.connect(m, port.tm_req, tmem_port.req[n])
        wiring.connect(m, tmem_port.resp[n], port.tm_resp)
        wiring.connect(m, port.om_req, omem_arbiter.i[n])
        # the arbiter's choice is registered before the store: its requesters' skid buffers
        # sit by the cores, the store's banks all over the chip
        omem_w = self.omem.write_port()
        chosen_write = Signal(OutputWrite)
        chosen_valid = Signal()
        m.d.sync += [chosen_valid.eq(omem_arbiter.o.valid),
                     chosen_write.eq(omem_arbiter.o.payload)]
        m.d.comb += [omem_arbiter.o.ready.eq(1), omem_w.en.eq(chosen_valid),
                     omem_w.addr.eq(chosen_write.addr), omem_w.data.eq(chosen_write.data)]
        omem_r = self.omem.read_port()
        m.d.comb += [omem_r.addr.eq(port.omem_r_addr), omem_r.en.eq(port.omem_r_en),
                     port.omem_r_data.eq(omem_r.data)]
        readers = [(tmem_port.req[k], tmem_port.resp[k])
                   for k in (*range(n), *((n + 1,) if self.r500_stage else ()))]
        return readers, omem_arbiter, ~chosen_valid

    def _memory_stores(self, m, control):
        """The memories in SDRAM (hdl/gpu/memory_system.py): the texture readers' cache, the
        output arbiter (the host's writes after the cores', then the R500 stage's) in front of
        the frame writer, the host's texture and output accesses, the display's side."""
        n, port, memory = self.config.cores, self.host_port, self.memory_system
        m.submodules.memory = memory
        clients = n + 1 + (self.r500_stage is not None)
        m.submodules.omem_arbiter = omem_arbiter = (
            SlotArbiter if self.config.slotted_ports else RoundRobinArbiter)(clients, OutputWrite)
        wiring.connect(m, port.om_req, omem_arbiter.i[n])
        # the arbiter's choice passes a skid buffer (its requesters sit by the cores)
        m.submodules.omem_chosen = chosen = SkidBuffer(OutputWrite)
        wiring.connect(m, omem_arbiter.o, chosen.i)
        wiring.connect(m, chosen.o, memory.output)
        wiring.connect(m, port.memory_req, memory.host_req)
        wiring.connect(m, memory.host_resp, port.memory_resp)
        for k in range(len(PORT_ORDER)):
            wiring.connect(m, memory.sdram[k], wiring.flipped(self.sdram[k]))
        wiring.connect(m, wiring.flipped(self.display), memory.display)
        m.d.comb += [memory.width.eq(port.display_width), memory.height.eq(port.display_height),
                     memory.finished.eq(control.finished),
                     self.cache_fills.eq(memory.fills), self.line_writes.eq(memory.line_writes)]
        readers = [(memory.tex_req[k], memory.tex_resp[k]) for k in range(len(memory.tex_req))]
        return readers, omem_arbiter, chosen.empty & memory.landed

    def _scene_memory(self, m):
        """Scene port p serves IO units p, p + SCENE_PORTS, ...; the words are registered on
        their way out (block RAM -> a unit's row queue crosses half of the chip). The host's
        row writes share port A's address with scene port 0's reads (one block-RAM port: the
        IO units read only while a frame runs); port B reads "transparently" (as if a write
        came first): a block RAM does not promise the old word on its other port, and for a
        read-first port B Yosys makes a second copy of the memory (no write ever meets a read
        here). Returns the read ports."""
        n, port = self.config.cores, self.host_port
        scene_ports = []
        for p in range(min(n, SCENE_PORTS)):
            m.submodules[f"scene_port{p}"] = scene_port = SharedReadPort(
                len(range(p, n, SCENE_PORTS)), range(self.config.scene_rows),
                VectorLayout, registered=True)
            scene_ports.append(scene_port)
        scene_w = self.scene_mem.write_port()
        scene_reads = [self.scene_mem.read_port(transparent_for=(scene_w,) if p else ())
                       for p in range(len(scene_ports))]
        m.d.comb += [scene_w.data.eq(port.scene_w_data), scene_w.en.eq(port.scene_w_en),
                     scene_w.addr.eq(Mux(port.scene_write, port.scene_w_addr,
                                         scene_ports[0].mem_addr))]
        # (the read ports are always enabled: a block-RAM port has one clock enable for its
        # read and its write; the port's answer is taken at a fixed latency anyway)
        read_addresses = [scene_w.addr] + [p.mem_addr for p in scene_ports[1:]]
        for scene_port, read, address in zip(scene_ports, scene_reads, read_addresses):
            m.d.comb += [read.addr.eq(address), scene_port.mem_data.eq(read.data)]
        return scene_ports


def _request(m, source, sink):
    """Stream ``source`` into ``sink`` (a texture reader's word address: the width of its
    store's)."""
    m.d.comb += [sink.valid.eq(source.valid), sink.payload.eq(source.payload),
                 source.ready.eq(sink.ready)]
