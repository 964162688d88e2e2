"""The whole THEIA GPU: N shader cores, their IO units, the shared memories and the host port.

Host side (docs/host-interface.md): one 32-bit word-addressed port (``host``, hdl/gpu/host_bus.py)
loads the configuration rows, band table, scene (triangle) memory, texture memory and user code,
starts a frame (CTRL), polls STATUS and reads the output memory and the counters. ``busy``,
``done`` and ``error`` mirror STATUS for LEDs.

Inside::

    host port --+-- config rows ------------> every IO unit (broadcast, only between frames)
                +-- user code --------------> every core's instruction RAM
                +-- band table -> dispatcher -> IO unit k (the next band to an idle unit)
                +-- scene memory <== IO units (two read ports, each round-robin over
                |                   half of the units; one 96-bit triangle row per read)
                +-- texture memory <== cores' TMREAD + host reads (round-robin)
                +-- output memory <== cores' OMWRITE + host writes (round-robin); host reads

    IO unit k -> shader core k: rows 6/7, omem_base, band_start; triangle rows into the swap
                 bank's IO copy while MAIN runs (hdl/gpu/io_unit.py)

Every memory is a synchronous ``lib.memory.Memory`` with one write and one read port, so each
maps onto FPGA block RAM. A host request is taken in its second cycle at the earliest (its
address decode is registered); host reads are answered as docs/host-interface.md says.

The scene memory holds one triangle row (96 bits) per word, 8 words per triangle slot. A core
needs 7 reads per triangle and MAIN takes ~25-30 cycles, so one read port would serve about
four cores; the memory has two (a block RAM's two ports: port A also takes the host's writes,
which wait while a frame runs), each shared by half of the IO units (unit k on port k % 2).
At 128 triangles (the ULX3S) it is 6 block RAMs of 1024 x 18. (It used to be a triangle wide,
one read per triangle into a 672-bit buffer per unit: those wires were the 4-core ULX3S top's
routing congestion, hdl/gpu/io_unit.py.)
"""

from amaranth import Module, Signal, Mux, Cat, Const, unsigned
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from hdl.lib.arbiter import RoundRobinArbiter, SlotArbiter, SharedReadPort
from hdl.lib.skid_buffer import SkidBuffer
from hdl.core.core import OutputWrite, IoRow
from hdl.gpu.dispatcher import Dispatcher
from hdl.gpu.host_bus import HostBus, Region, Reg, AddressDecoder, CTRL_START
from hdl.gpu.io_unit import IoUnit, BandEntry, SLOT_ROWS
from hdl.isa import VectorLayout
from hdl.gpu.narrow_store import TextureStore, PixelStore
from hdl.core.shader_core import ShaderCore
from hdl.alu.shared_divider import SharedDivider, DIVIDER_SLOTS

__all__ = ["Gpu", "CONFIG_ROWS"]

#: configuration rows the host may write (0-41; 6 and 7 are overwritten by every band)
CONFIG_ROWS = 42
#: cycles from a texture or output read's address to its word (the stores are many block RAMs)
SLOW_READ = 2
#: read ports of the scene memory (a block RAM has two)
SCENE_PORTS = 2


def _sum(values):
    total = values[0]
    for v in values[1:]:
        total = total + v
    return total[:32]


class Gpu(wiring.Component):
    """Parameters: ``rom`` (firmware words), ``cores``, ``max_triangles`` (scene memory
    slots), ``tmem_words``, ``omem_words``, ``max_bands`` (band table entries), ``user_words``
    (each core's instruction RAM), ``dividers`` (per core: 3 lane dividers, or 1 shared by the
    lanes, see hdl/alu/serial_divider.py), ``shared_dividers`` (with ``dividers=1``: each pair of
    cores shares one, in time slots, hdl/alu/shared_divider.py), ``serial_sqrt`` (per core: the MAG
    square root one root bit per cycle, hdl/alu/serial_sqrt.py, or pipelined), ``cross_passes``
    (per core: CROSS in two passes over three multipliers, or on six), ``simple_latency``
    (per core: the vector ALU's SIMPLE class in 2 cycles, its adders' operands registered, or
    in 1), ``alu_forwarding`` (per core, Core's), ``narrow_stores``
    (8-bit texture and output stores, hdl/gpu/narrow_store.py: exact for 8-bit textures, the
    output read back as converted pixels), ``lut_memories`` (each core's user RAM and swap
    memories in LUT RAM: saves block RAMs), ``slotted_ports`` (the texture store's readers
    and the output store's writers take fixed turns, ``hdl.arbiter.SlotArbiter``, instead of
    round robin: no requester's valid reaches another's ready; a request waits up to
    ``cores`` cycles more)."""

    def __init__(self, rom, *, cores=1, max_triangles=256, tmem_words=3 * 128 * 128,
                 omem_words=3 * 256 * 256, max_bands=256, user_words=1024,
                 dividers=1, shared_dividers=True, serial_sqrt=True, cross_passes=2,
                 simple_latency=2, alu_forwarding=True,
                 narrow_stores=False, lut_memories=False, slotted_ports=False):
        if cores < 1 or cores > 255:
            raise ValueError(f"cores must be 1-255, got {cores}")
        for name, value in (("max_triangles", max_triangles), ("tmem_words", tmem_words),
                            ("omem_words", omem_words), ("max_bands", max_bands),
                            ("user_words", user_words)):
            if value < 1:
                raise ValueError(f"{name} must be at least 1, got {value}")
        if max_triangles > 0xFFFF or max_bands > 0xFFFF:
            raise ValueError("max_triangles and max_bands must fit in 16 bits")
        self.cores = cores
        self.max_triangles = max_triangles
        self.tmem_words = tmem_words
        self.omem_words = omem_words
        self.max_bands = max_bands
        self.user_words = user_words
        self.dividers = dividers
        self.slotted_ports = slotted_ports
        if shared_dividers and dividers != 1:
            raise ValueError("shared_dividers shares single dividers (dividers=1)")
        # shared_dividers: each pair of cores shares one divider (hdl/alu/shared_divider.py)
        self.shared_dividers = [SharedDivider(min(DIVIDER_SLOTS, cores - k))
                                for k in range(0, cores, DIVIDER_SLOTS)
                                ] if shared_dividers else []
        super().__init__({
            "host": In(HostBus()),
            "busy": Out(1), "done": Out(1), "error": Out(1),
        })
        self.shader_cores = [ShaderCore(rom, user_words=user_words, tmem_words=tmem_words,
                                        omem_words=omem_words,
                                        dividers=0 if shared_dividers else dividers,
                                        serial_sqrt=serial_sqrt, cross_passes=cross_passes,
                                        simple_latency=simple_latency,
                                        alu_forwarding=alu_forwarding,
                                        lut_memories=lut_memories)
                             for _ in range(cores)]
        self.io_units = [IoUnit(max_triangles) for _ in range(cores)]
        self.scene_mem = Memory(shape=VectorLayout, depth=max_triangles * SLOT_ROWS, init=[])
        if narrow_stores:
            self.tmem = TextureStore(tmem_words)
            self.omem = PixelStore(omem_words)
            self.store_latency = TextureStore.READ_LATENCY     # (PixelStore's too)
        else:
            self.tmem = Memory(shape=unsigned(32), depth=tmem_words, init=[])
            self.omem = Memory(shape=unsigned(32), depth=omem_words, init=[])
            self.store_latency = 1
        self.band_table = Memory(shape=unsigned(BandEntry.as_shape().size), depth=max_bands,
                                 init=[])

    def elaborate(self, platform):
        m = Module()
        n = self.cores
        host = self.host
        for k, (core, unit) in enumerate(zip(self.shader_cores, self.io_units)):
            m.submodules[f"core{k}"] = core
            m.submodules[f"io{k}"] = unit
        for k, shared in enumerate(self.shared_dividers):
            m.submodules[f"divider{k}"] = shared
            first = DIVIDER_SLOTS * k
            for client, core in zip(shared.client,
                                    self.shader_cores[first:first + DIVIDER_SLOTS]):
                wiring.connect(m, core.div, client)
        m.submodules.scene_mem = self.scene_mem
        m.submodules.tmem = self.tmem
        m.submodules.omem = self.omem
        m.submodules.band_table = self.band_table
        m.submodules.decoder = decoder = AddressDecoder()
        m.submodules.dispatcher = dispatcher = Dispatcher(n, self.max_bands)
        # scene port p serves IO units p, p + SCENE_PORTS, ...; the words are registered on
        # their way out (block RAM -> a unit's row queue crosses half of the chip)
        scene_ports = []
        for p in range(min(n, SCENE_PORTS)):
            m.submodules[f"scene_port{p}"] = port = SharedReadPort(
                len(range(p, n, SCENE_PORTS)), range(self.max_triangles * SLOT_ROWS),
                VectorLayout, registered=True)
            scene_ports.append(port)
        # Texture and output words reach their readers two cycles or more after the address:
        # the narrow stores register the address and each bank's word (hdl/gpu/narrow_store.py:
        # three cycles), a 32-bit memory's words are registered after its read port (up to 96
        # block RAMs all over the chip on the ULX3S: their read multiplexer was a critical
        # path). TMREAD waits for them.
        m.submodules.tmem_port = tmem_port = SharedReadPort(
            n + 1, 32, 32, memory_latency=self.store_latency,
            registered=self.store_latency < SLOW_READ, slotted=self.slotted_ports)
        m.submodules.omem_arbiter = omem_arbiter = (
            SlotArbiter if self.slotted_ports else RoundRobinArbiter)(n + 1, OutputWrite)

        num_triangles = Signal(16)
        num_bands = Signal(16)
        # A frame start is registered on its way to the dispatcher (host link -> start ->
        # the dispatcher's and the counters' enables crossed the chip); ``frame_busy`` covers
        # that cycle.
        start_taken = Signal()
        frame_busy = Signal()
        # A frame's output writes pass skid buffers and a register after their core has
        # finished: the frame lasts until the dispatcher is done and they have all landed
        # (``writes_landed``, registered: the buffers sit all over the chip; a write is in one
        # of them from its core's OMWRITE until it lands).
        writes_landed = Signal(init=1)
        frame_open = Signal()
        frame_done = Signal()
        m.d.sync += frame_open.eq(start_taken | (frame_open & (dispatcher.busy | ~writes_landed)))
        m.d.comb += [frame_busy.eq(start_taken | frame_open),
                     frame_done.eq(dispatcher.done & ~frame_open)]
        m.d.comb += [self.busy.eq(frame_busy), self.done.eq(frame_done),
                     self.error.eq(dispatcher.error), dispatcher.num_bands.eq(num_bands)]

        # --- memories and their sharing ------------------------------------------------------
        tmem_r = self.tmem.read_port()
        m.d.comb += [tmem_r.addr.eq(tmem_port.mem_addr), tmem_r.en.eq(tmem_port.mem_en),
                     tmem_port.mem_data.eq(tmem_r.data)]
        # the arbiter's choice is registered before the store: its requesters' skid buffers
        # sit by the cores, the store's banks all over the chip, and both crossings in one
        # cycle were the routed 4-core top's critical path (21.6 ns, 19.7 of it routing)
        omem_w = self.omem.write_port()
        chosen_write = Signal(OutputWrite)
        chosen_valid = Signal()
        m.d.sync += [chosen_valid.eq(omem_arbiter.o.valid),
                     chosen_write.eq(omem_arbiter.o.payload)]
        write_buffers = []                  # every skid buffer an output write passes
        m.d.comb += [omem_arbiter.o.ready.eq(1), omem_w.en.eq(chosen_valid),
                     omem_w.addr.eq(chosen_write.addr), omem_w.data.eq(chosen_write.data)]
        table_r = self.band_table.read_port()
        m.d.comb += [table_r.addr.eq(dispatcher.table_addr),
                     dispatcher.table_data.eq(table_r.data)]

        # --- cores and IO units ------------------------------------------------------------
        for k, (core, unit) in enumerate(zip(self.shader_cores, self.io_units)):
            m.d.comb += [
                core.io_valid.eq(unit.io_valid), core.io_addr.eq(unit.io_addr),
                core.io_data.eq(unit.io_data), unit.io_ready.eq(core.io_ready),
                unit.io_idle.eq(core.io_idle),
                core.omem_base.eq(unit.omem_base), core.band_start.eq(unit.band_start),
                unit.band_done.eq(core.band_done), unit.core_error.eq(core.error),
                core.tri_ready.eq(unit.tri_ready), unit.tri_flip.eq(core.tri_flip),
                core.num_triangles.eq(num_triangles), unit.num_triangles.eq(num_triangles),
                dispatcher.unit_error[k].eq(unit.error),
            ]
            wiring.connect(m, dispatcher.units[k], unit.band)
            # requests pass a skid buffer on their way to the arbiters: requests and the ready
            # a requester sees end in flip-flops (timing: operand -> address; IO unit state ->
            # scene port arbiter -> the scene memory's address; arbiter -> ready -> a core's
            # memory sequencer)
            m.submodules[f"scene_req{k}"] = scene_req = SkidBuffer(
                unit.scene_req.payload.shape())
            scene_port = scene_ports[k % SCENE_PORTS]
            wiring.connect(m, unit.scene_req, scene_req.i)
            wiring.connect(m, scene_req.o, scene_port.req[k // SCENE_PORTS])
            wiring.connect(m, scene_port.resp[k // SCENE_PORTS], unit.scene_resp)
            m.submodules[f"tm_req{k}"] = tm_req = SkidBuffer(32)
            wiring.connect(m, core.tm_req, tm_req.i)
            wiring.connect(m, tm_req.o, tmem_port.req[k])
            wiring.connect(m, tmem_port.resp[k], core.tm_resp)
            # output writes pass two: one by the core, one by the arbiter (the route across
            # the chip from a core's quadrant to the arbiter, and the arbiter's choice and
            # ready, were in one cycle the routed 4-core top's output path, 19.4 ns). A write
            # costs nothing for its latency: OMWRITE is done once its requests are taken.
            m.submodules[f"om_req{k}"] = om_req = SkidBuffer(OutputWrite)
            m.submodules[f"om_arb{k}"] = om_arb = SkidBuffer(OutputWrite)
            wiring.connect(m, core.om_req, om_req.i)
            wiring.connect(m, om_req.o, om_arb.i)
            wiring.connect(m, om_arb.o, omem_arbiter.i[k])
            write_buffers += [om_req, om_arb]

        # --- host port: decode -------------------------------------------------------------
        # The decode of a request (region, offset, the stores' range checks) is registered: a
        # request is taken in its second cycle at the earliest (``decoded``: it was there,
        # not taken, last cycle; a host holds a request until it is taken). So the memories'
        # arbiters see flip-flops (host link address -> decode -> range check -> texture port
        # arbiter was the 1-core top's critical path), and so does ``ready`` (the configuration
        # row's range check -> ready -> host link was a failing group of the 4-core placement).
        m.d.comb += decoder.addr.eq(host.addr)
        region = Signal(Region)
        offset = Signal.like(decoder.offset)
        decoded = Signal()
        texture_hit = Signal()
        output_hit = Signal()
        config_hit = Signal()                   # the z word of a writable configuration row
        scene_hit = Signal()                    # the z word of a scene row
        m.d.sync += [region.eq(decoder.region), offset.eq(decoder.offset),
                     decoded.eq(host.valid & ~host.ready),
                     texture_hit.eq((decoder.region == Region.TEXTURE)
                                    & (decoder.offset < self.tmem_words)),
                     output_hit.eq((decoder.region == Region.OUTPUT)
                                   & (decoder.offset < self.omem_words)),
                     config_hit.eq((decoder.region == Region.CONFIG) & (decoder.offset[:2] == 2)
                                   & (decoder.offset[2:] < CONFIG_ROWS)),
                     scene_hit.eq((decoder.region == Region.SCENE) & (decoder.offset[:2] == 2)
                                  & (decoder.offset[2:] < self.max_triangles * SLOT_ROWS))]
        lane = offset[:2]
        row = offset[2:]
        is_write = host.valid & host.write & decoded
        is_read = host.valid & ~host.write & decoded
        m.d.comb += host.ready.eq(decoded)      # most requests are taken once decoded

        # Lanes x, y wait for the z word. The band table's two rows have their own staging, so
        # a host may interleave them (initial x, final x, initial y, ...).
        stage_x = Signal(32)
        stage_y = Signal(32)
        stage_final_x = Signal(32)
        stage_final_y = Signal(32)
        stage_hi = Signal(32)                   # an instruction's high half waits for the low
        staging = is_write & ((region == Region.CONFIG) | (region == Region.BANDS)
                              | (region == Region.SCENE))
        final_lanes = (region == Region.BANDS) & offset[2]
        with m.If(staging & (lane == 0)):
            with m.If(final_lanes):
                m.d.sync += stage_final_x.eq(host.wdata)
            with m.Else():
                m.d.sync += stage_x.eq(host.wdata)
        with m.If(staging & (lane == 1)):
            with m.If(final_lanes):
                m.d.sync += stage_final_y.eq(host.wdata)
            with m.Else():
                m.d.sync += stage_y.eq(host.wdata)
        staged_row = Signal(VectorLayout)
        m.d.comb += [staged_row.x.eq(stage_x), staged_row.y.eq(stage_y),
                     staged_row.z.eq(host.wdata)]
        staged_final = Signal(VectorLayout)
        m.d.comb += [staged_final.x.eq(stage_final_x), staged_final.y.eq(stage_final_y),
                     staged_final.z.eq(host.wdata)]

        # configuration rows: taken only between frames into ``config_held``, and broadcast
        # from there to every IO unit (each takes it when its core's register write port is
        # free). The host waits on that flip-flop, not on the units: IO unit state -> register
        # file port check -> units ready -> host link was the 1-core top's critical path. A
        # frame start waits until the row is in.
        config_write = Signal()
        m.d.comb += config_write.eq(is_write & config_hit)
        config_held = Signal()
        config_row = Signal(IoRow)
        units_ready = Cat(u.config.ready for u in self.io_units).all()
        for unit in self.io_units:
            m.d.comb += [unit.config.valid.eq(config_held), unit.config.payload.eq(config_row)]
        config_free = ~frame_busy & ~config_held
        with m.If(config_write):
            m.d.comb += host.ready.eq(config_free)
            with m.If(config_free):
                m.d.sync += [config_held.eq(1), config_row.addr.eq(row),
                             config_row.data.eq(staged_row)]
        with m.If(config_held & units_ready):
            m.d.sync += config_held.eq(0)

        # band table: initial row at lane 2, output base at lane 3, final row at lane 6
        table_w = self.band_table.write_port(granularity=32)
        band = offset[3:]
        band_lane = offset[:3]
        band_write = Signal()
        m.d.comb += band_write.eq(is_write & (region == Region.BANDS) & (band < self.max_bands))
        # (registered on its way to the table: the host request's decode in front of the
        # write enables of its ~2000 LUT RAM cells was a failing path of the routed 4-core
        # top; a start waits while the write is in flight, ``band_in_flight``)
        entry = Signal(BandEntry, reset_less=True)
        table_addr = Signal.like(table_w.addr, reset_less=True)
        table_en = Signal.like(table_w.en)
        m.d.sync += [entry.initial.eq(staged_row), entry.final.eq(staged_final),
                     entry.base.eq(host.wdata), table_addr.eq(band), table_en.eq(0)]
        m.d.comb += [table_w.addr.eq(table_addr), table_w.data.eq(entry),
                     table_w.en.eq(table_en)]
        band_in_flight = table_en.any()
        with m.If(band_write):
            with m.Switch(band_lane):
                with m.Case(2):
                    m.d.sync += table_en.eq(0b0000111)
                with m.Case(6):
                    m.d.sync += table_en.eq(0b0111000)
                with m.Case(3):
                    m.d.sync += table_en.eq(0b1000000)

        # scene memory: a triangle row is stored with its z word, between frames (a row 7 is
        # stored too and never read). The write shares port A's address with scene port 0's
        # reads (one block-RAM port: the IO units read only while a frame runs); port B reads
        # "transparently" (as if a write came first): a block RAM does not promise the old word
        # on its other port, and for a read-first port B Yosys made a second copy of the memory
        # (no write ever meets a read here)
        scene_w = self.scene_mem.write_port()
        scene_reads = [self.scene_mem.read_port(transparent_for=(scene_w,) if p else ())
                       for p in range(len(scene_ports))]
        scene_write = Signal()
        m.d.comb += [scene_write.eq(is_write & scene_hit), scene_w.data.eq(staged_row)]
        with m.If(scene_write):
            m.d.comb += host.ready.eq(~frame_busy)
        m.d.comb += scene_w.en.eq(scene_write & ~frame_busy)
        # (the read ports are always enabled: a block-RAM port has one clock enable for its
        # read and its write; the port's answer is taken at a fixed latency anyway)
        m.d.comb += scene_w.addr.eq(Mux(scene_write, row, scene_ports[0].mem_addr))
        read_addresses = [scene_w.addr] + [port.mem_addr for port in scene_ports[1:]]
        for port, read, address in zip(scene_ports, scene_reads, read_addresses):
            m.d.comb += [read.addr.eq(address), port.mem_data.eq(read.data)]

        # user code: to every core's instruction RAM when the low half arrives, through a
        # register (host link -> decode -> the cores' LUT-RAM write enables crossed the chip)
        user_word = offset[1:]
        with m.If(is_write & (region == Region.USER) & ~offset[0]):
            m.d.sync += stage_hi.eq(host.wdata)
        user_write = Signal()
        user_addr = Signal.like(self.shader_cores[0].imem_addr, reset_less=True)
        user_data = Signal.like(self.shader_cores[0].imem_data, reset_less=True)
        m.d.sync += [user_write.eq(is_write & (region == Region.USER) & offset[0]
                                   & (user_word < self.user_words)),
                     user_addr.eq(user_word), user_data.eq(Cat(host.wdata, stage_hi))]
        # ... and from there from core to core, a register each: the cores' copies must differ
        # (synthesis merges identical registers, and then their shared write-enable decode
        # fanned out to every core's LUT RAM: the routed 4-core top's critical path, 16 ns of
        # routing). Core k's copy lands k + 1 cycles after the first; a frame start waits
        # until every copy has (``code_in_flight``).
        code_writes = []
        write = (user_write, user_addr, user_data)
        for k, core in enumerate(self.shader_cores):
            copy = tuple(Signal.like(s, name=f"{s.name}_{k}") for s in write)
            m.d.sync += [c.eq(s) for c, s in zip(copy, write)]
            m.d.comb += [core.imem_we.eq(copy[0]), core.imem_addr.eq(copy[1]),
                         core.imem_data.eq(copy[2])]
            code_writes.append(copy[0])
            write = copy
        code_in_flight = Cat(user_write, *code_writes).any()

        # texture memory: host writes directly, host reads share the cores' read port
        tmem_w = self.tmem.write_port()
        # (a texture write waits while a frame runs: a core may read any word then)
        texture_write = is_write & texture_hit
        m.d.comb += [tmem_w.addr.eq(offset), tmem_w.data.eq(host.wdata),
                     tmem_w.en.eq(texture_write & ~frame_busy)]
        with m.If(texture_write):
            m.d.comb += host.ready.eq(~frame_busy)
        # A host texture read is registered on its way to the texture port's arbiter (host
        # link state -> request -> arbiter -> the store's banks was a failing path group of
        # the 4-core top) and answered when the port answers; no other read is taken until
        # then (``texture_pending``), so answers stay in order.
        m.submodules.host_tm_req = host_tm_req = SkidBuffer(32)
        wiring.connect(m, host_tm_req.o, tmem_port.req[n])
        texture_pending = Signal()
        texture_read = is_read & texture_hit
        m.d.comb += [host_tm_req.i.valid.eq(texture_read & ~texture_pending),
                     host_tm_req.i.payload.eq(offset)]
        with m.If(texture_read):
            m.d.comb += host.ready.eq(host_tm_req.i.ready & ~texture_pending)
        with m.If(host_tm_req.i.valid & host_tm_req.i.ready):
            m.d.sync += texture_pending.eq(1)
        with m.Elif(tmem_port.resp[n].valid):
            m.d.sync += texture_pending.eq(0)
        # output reads are answered ``output_latency`` cycles after they are taken (at least
        # two: the words are registered on the way out, the store is many block RAMs spread
        # over the chip); no read is taken in the cycles between (``output_due``: the read on
        # its way, one bit per cycle)
        output_latency = max(self.store_latency, SLOW_READ)
        output_due = Signal(output_latency)

        # output memory: host writes share the cores' write port, host reads have their own
        # (through a skid buffer, like the cores' writes: host link state -> the arbiter ->
        # the cores' request registers was a failing path group)
        m.submodules.host_om_req = host_om_req = SkidBuffer(OutputWrite)
        wiring.connect(m, host_om_req.o, omem_arbiter.i[n])
        m.d.comb += [host_om_req.i.valid.eq(is_write & output_hit),
                     host_om_req.i.payload.addr.eq(offset),
                     host_om_req.i.payload.data.eq(host.wdata)]
        with m.If(is_write & output_hit):
            m.d.comb += host.ready.eq(host_om_req.i.ready)
        omem_r = self.omem.read_port()
        m.d.comb += [omem_r.addr.eq(offset), omem_r.en.eq(is_read & output_hit)]

        # --- control/status registers ------------------------------------------------------
        control_write = is_write & (region == Region.CONTROL)
        with m.If(control_write & (config_held | code_in_flight | band_in_flight)):
            m.d.comb += host.ready.eq(0)        # (a start waits for the configuration row,
                                                # the user code and the band table entry)
        start = Signal()
        m.d.comb += start.eq(control_write & (offset == Reg.CTRL) & ((host.wdata & CTRL_START) != 0)
                             & ~frame_busy & ~config_held & ~code_in_flight & ~band_in_flight)
        m.d.sync += start_taken.eq(start)
        m.d.comb += dispatcher.start.eq(start_taken)
        with m.If(control_write & (offset == Reg.NUM_TRIANGLES)):
            m.d.sync += num_triangles.eq(Mux(host.wdata > self.max_triangles,
                                             self.max_triangles, host.wdata))
        with m.If(control_write & (offset == Reg.NUM_BANDS)):
            m.d.sync += num_bands.eq(Mux(host.wdata > self.max_bands,
                                         self.max_bands, host.wdata))

        # counters: the cores' running totals, summed (registered) and taken relative to start
        totals = {
            "instructions": [c.counters.retired for c in self.shader_cores],
            "io_wait": [c.io_wait_cycles for c in self.shader_cores],
            "stall": [c.counters.stall_operand + c.counters.stall_writeback
                      + c.counters.stall_memory for c in self.shader_cores],
            "pixels": [c.pixels for c in self.shader_cores],
        }
        frame_counts = {}
        for name, values in totals.items():
            total = Signal(32, name=f"{name}_total")
            at_start = Signal(32, name=f"{name}_at_start")
            m.d.sync += total.eq(_sum(values))
            with m.If(start_taken):
                m.d.sync += at_start.eq(total)
            # (registered: the subtraction's carry chain then is not in front of the host's
            # answer register; the counts lag a cycle)
            frame_count = Signal(32, name=f"{name}_in_frame")
            m.d.sync += frame_count.eq(total - at_start)
            frame_counts[name] = frame_count
        cycles = Signal(32)
        with m.If(start_taken):
            m.d.sync += cycles.eq(0)
        with m.Elif(frame_busy):
            m.d.sync += cycles.eq(cycles + 1)

        # the first core error of a frame: which core, its code and PC
        error_info = Signal(32)
        error_seen = Signal()
        with m.If(start_taken):
            m.d.sync += [error_info.eq(0), error_seen.eq(0)]
        with m.Else():
            for k in reversed(range(n)):      # the lowest index wins a tie
                core, unit = self.shader_cores[k], self.io_units[k]
                with m.If(unit.error & ~error_seen):
                    # 15:0 PC, 18:16 code, 31:24 core index
                    m.d.sync += [error_info.eq(Cat(core.error_pc, core.error_code,
                                                   Const(0, 5), Const(k, 8))),
                                 error_seen.eq(1)]

        m.d.sync += writes_landed.eq(Cat(b.empty for b in write_buffers).all() & ~chosen_valid)
        status = Cat(frame_busy, frame_done, dispatcher.error)
        register_value = Signal(32)
        with m.Switch(offset):
            for reg_index, value in ((Reg.STATUS, status), (Reg.NUM_TRIANGLES, num_triangles),
                                     (Reg.NUM_BANDS, num_bands), (Reg.ERROR_INFO, error_info),
                                     (Reg.CORES, n), (Reg.CYCLES, cycles),
                                     (Reg.INSTRUCTIONS, frame_counts["instructions"]),
                                     (Reg.IO_WAIT_CYCLES, frame_counts["io_wait"]),
                                     (Reg.STALL_CYCLES, frame_counts["stall"]),
                                     (Reg.PIXELS, frame_counts["pixels"])):
                with m.Case(reg_index):
                    m.d.comb += register_value.eq(value)

        # --- read answers: a cycle after the read is taken (output, texture: later) ---------
        answer = Signal()
        answer_from = Signal(Region)
        answer_register = Signal(32)
        with m.If(is_read & (output_due[:-1].any() | texture_pending)):
            m.d.comb += host.ready.eq(0)
        read_taken = is_read & host.ready
        answer_late = output_due[-1]            # an output read taken output_latency ago
        omem_data = Signal(32)
        m.d.sync += [answer.eq(read_taken),
                     output_due.eq(Cat(read_taken & output_hit, output_due[:-1]))]
        if self.store_latency < SLOW_READ:
            m.d.sync += omem_data.eq(omem_r.data)
        else:
            m.d.comb += omem_data.eq(omem_r.data)
        with m.If(read_taken):
            with m.If(texture_hit | output_hit | (region == Region.CONTROL)):
                m.d.sync += answer_from.eq(region)
            with m.Else():
                m.d.sync += answer_from.eq(Region.NONE)
        m.d.sync += [
                     answer_register.eq(register_value)]
        # (texture words come from the shared port when it answers; output words from
        # ``omem_data``)
        with m.Switch(answer_from):
            with m.Case(Region.TEXTURE):
                m.d.comb += host.rvalid.eq(tmem_port.resp[n].valid)
            with m.Case(Region.OUTPUT):
                m.d.comb += host.rvalid.eq(answer_late)
            with m.Default():
                m.d.comb += host.rvalid.eq(answer)
        with m.Switch(answer_from):
            with m.Case(Region.CONTROL):
                m.d.comb += host.rdata.eq(answer_register)
            with m.Case(Region.TEXTURE):
                m.d.comb += host.rdata.eq(tmem_port.resp[n].payload)
            with m.Case(Region.OUTPUT):
                m.d.comb += host.rdata.eq(omem_data)
        return m
