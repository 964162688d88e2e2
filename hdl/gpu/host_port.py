"""The GPU's host port: the target of the host bus (docs/host-interface.md).

A request's decode (region, offset, the stores' range checks) is registered: a request is taken
in its second cycle at the earliest (``decoded``: it was there, not taken, last cycle; a host
holds a request until it is taken). So the memories' arbiters see flip-flops, and so does
``ready``, as far as it can.

* Rows (configuration, band table, scene) are written as words x, y, z: lanes x and y wait in
  staging registers for the z word (the band table's two rows have their own, so a host may
  interleave them).
* Configuration rows are taken only between frames into ``config_held`` and broadcast from there
  to every IO unit (``config``: each takes it when its core's register write port is free);
  the host waits on that flip-flop, not on the units.
* Band table writes, user code and the frame start are registered on their way (the decode in
  front of ~2000 LUT-RAM write enables, or of the dispatcher's and counters' enables across the
  chip, is a long path); user code then goes from core to core, a register each (the copies
  must differ: merged, their shared write-enable decode fans out to every core's LUT RAM). A
  frame start waits for the configuration row, the user code and a band table entry in flight.
* Scene and texture writes wait while a frame runs (a core may read any word then).
* Host texture reads and output writes pass skid buffers on their way to the shared texture
  port and the output arbiter; a texture read is answered when the port answers, and no other
  read is taken until then, so answers stay in order. Output reads are answered
  ``output_latency`` cycles after they are taken (the words are registered on the way out: the
  store is many block RAMs spread over the chip); no read is taken in between.
* With the memories in SDRAM (``GpuConfig.memory``), texture writes and reads and output reads
  are requests to the memory system (``memory_req``, hdl/gpu/host_memory.py), a read answered
  when its word comes (``memory_resp``; no other read is taken until then); output writes go
  to the output arbiter as before. DISPLAY holds the frame size the display shows.
* CTRL's START, RUN and STOP leave registered (``start``, ``run``, ``stop``) for the frame
  control (hdl/gpu/frame_control.py), which says when the frame begins.
"""

from amaranth import C, Cat, Module, Mux, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hdl.core.ports import IoRow, OutputWrite
from hdl.gpu.frame_status import COUNTS
from hdl.gpu.address_map import CTRL_RUN, CTRL_STOP
from hdl.gpu.host_bus import AddressDecoder, CTRL_START, HostBus, Reg, Region
from hdl.gpu.host_memory import HostMemoryRequest
from hdl.gpu.io_unit import BandEntry
from hdl.gpu.scene_layout import GRID_AXIS_BITS
from hdl.gpu.r500_port import R500Request
from hdl.isa import VectorLayout
from hdl.lib.skid_buffer import SkidBuffer

__all__ = ["HostPort", "CONFIG_ROWS", "SLOW_READ"]

#: configuration rows the host may write (0-41; 6 and 7 are overwritten by every band)
CONFIG_ROWS = 42
#: cycles from a texture or output read's address to its word (the stores are many block RAMs)
SLOW_READ = 2
#: the control registers with a value of their own (CTRL reads as 0)
_COUNTER_REGS = {"instructions": Reg.INSTRUCTIONS, "io_wait": Reg.IO_WAIT_CYCLES,
                 "stall": Reg.STALL_CYCLES, "pixels": Reg.PIXELS, "tests": Reg.TESTS}


class HostPort(wiring.Component):
    """Parameters: ``config`` (the ``GpuConfig``: memory sizes, cores), ``store_latency``
    (cycles of the texture and output stores' reads).

    Ports: ``host`` (the bus); the frame's state (``frame_busy``, ``frame_done``,
    ``frame_error``) and status (``cycles``, ``frame_<count>``, ``error_info``); ``start``,
    ``num_triangles``, ``num_bands``, the bins' ``grid_columns``, ``grid_rows``, ``bin_table``,
    ``bin_list``; ``config_row`` (the row broadcast to the IO units); the band table's, scene
    memory's and texture store's write ports (``band_w_*``, ``scene_w*``, ``tmem_w_*``); each
    core's ``imem_*``; ``tm_req``/``tm_resp`` (host texture reads), ``om_req`` (host output
    writes), ``omem_r_*`` (host output reads); with ``r500``, the requests to region R500
    (``r500``, an ``R500Request``: the R500 stage's host state and registers,
    hdl/gpu/r500_port.py). ``run``, ``stop`` (CTRL), ``running`` and ``frames`` (the frame
    control's). With ``config.memory``, in place of the texture store's and output store's
    ports: ``memory_req``/``memory_resp`` and ``display_width``, ``display_height``."""

    def __init__(self, config, store_latency, r500=False):
        self.gpu_config = config
        self.store_latency = store_latency
        self.has_r500 = r500
        cores = config.cores
        user_words = config.core.user_words
        super().__init__({
            "host": In(HostBus()),
            "frame_busy": In(1), "frame_done": In(1), "frame_error": In(1),
            "cycles": In(32), "error_info": In(32),
            **{f"frame_{name}": In(32) for name in COUNTS},
            "start": Out(1), "num_triangles": Out(16), "num_bands": Out(16),
            "grid_columns": Out(GRID_AXIS_BITS), "grid_rows": Out(GRID_AXIS_BITS),
            "bin_table": Out(range(config.scene_rows)), "bin_list": Out(range(config.scene_rows)),
            "config_row": Out(stream.Signature(IoRow)),
            "band_w_addr": Out(range(config.max_bands)), "band_w_data": Out(BandEntry),
            "band_w_en": Out(7),
            "scene_write": Out(1), "scene_w_en": Out(1),
            "scene_w_addr": Out(range(config.scene_rows)),
            "scene_w_data": Out(VectorLayout),
            "imem_we": Out(1).array(cores), "imem_addr": Out(range(user_words)).array(cores),
            "imem_data": Out(64).array(cores),
            "om_req": Out(stream.Signature(OutputWrite)),
            "run": Out(1), "stop": Out(1), "running": In(1), "frames": In(32),
            **({"r500": Out(R500Request())} if r500 else {}),
            **({"memory_req": Out(stream.Signature(HostMemoryRequest)),
                "memory_resp": In(stream.Signature(32, always_ready=True)),
                "display_width": Out(16), "display_height": Out(16)}
               if config.memory is not None else
               {"tmem_w_addr": Out(24), "tmem_w_data": Out(32), "tmem_w_en": Out(1),
                "tm_req": Out(stream.Signature(32)),
                "tm_resp": In(stream.Signature(32, always_ready=True)),
                "omem_r_addr": Out(24), "omem_r_en": Out(1), "omem_r_data": In(32)}),
        })

    def elaborate(self, platform):
        m = Module()
        self._decode(m)
        self._staging(m)
        self._config_rows(m)
        band_in_flight = self._band_table(m)
        self._scene(m)
        code_in_flight = self._user_code(m)
        if self.gpu_config.memory is not None:
            self._memory(m)
        else:
            self._texture(m)
        self._output(m)
        self._control(m, code_in_flight, band_in_flight)
        self._r500(m)
        self._answers(m)
        return m

    def _r500(self, m):
        if not self.has_r500:
            return
        here = self.region == Region.R500
        m.d.comb += [self.r500.write.eq(self.is_write & here),
                     self.r500.read.eq(self.is_read & here),
                     self.r500.offset.eq(self.offset), self.r500.wdata.eq(self.host.wdata)]

    def _decode(self, m):
        host, config = self.host, self.gpu_config
        m.submodules.decoder = decoder = AddressDecoder()
        m.d.comb += decoder.addr.eq(host.addr)
        self.region = region = Signal(Region)
        self.offset = offset = Signal.like(decoder.offset)
        self.decoded = decoded = Signal()
        self.texture_hit = Signal()
        self.output_hit = Signal()
        self.config_hit = Signal()              # the z word of a writable configuration row
        self.scene_hit = Signal()               # the z word of a scene row
        m.d.sync += [region.eq(decoder.region), offset.eq(decoder.offset),
                     decoded.eq(host.valid & ~host.ready),
                     self.texture_hit.eq((decoder.region == Region.TEXTURE)
                                         & (decoder.offset < config.tmem_words)),
                     self.output_hit.eq((decoder.region == Region.OUTPUT)
                                        & (decoder.offset < config.omem_words)),
                     self.config_hit.eq((decoder.region == Region.CONFIG)
                                        & (decoder.offset[:2] == 2)
                                        & (decoder.offset[2:] < CONFIG_ROWS)),
                     self.scene_hit.eq((decoder.region == Region.SCENE)
                                       & (decoder.offset[:2] == 2)
                                       & (decoder.offset[2:] < config.scene_rows))]
        self.row = offset[2:]
        self.is_write = host.valid & host.write & decoded
        self.is_read = host.valid & ~host.write & decoded
        m.d.comb += host.ready.eq(decoded)      # most requests are taken once decoded

    def _staging(self, m):
        """Lanes x, y of a row wait for its z word."""
        host, region, offset = self.host, self.region, self.offset
        lane = offset[:2]
        stage_x = Signal(32)
        stage_y = Signal(32)
        stage_final_x = Signal(32)
        stage_final_y = Signal(32)
        staging = self.is_write & ((region == Region.CONFIG) | (region == Region.BANDS)
                                   | (region == Region.SCENE))
        final_lanes = (region == Region.BANDS) & offset[2]
        for n, (stage, stage_final) in enumerate(((stage_x, stage_final_x),
                                                  (stage_y, stage_final_y))):
            with m.If(staging & (lane == n)):
                with m.If(final_lanes):
                    m.d.sync += stage_final.eq(host.wdata)
                with m.Else():
                    m.d.sync += stage.eq(host.wdata)
        self.staged_row = Signal(VectorLayout)
        m.d.comb += [self.staged_row.x.eq(stage_x), self.staged_row.y.eq(stage_y),
                     self.staged_row.z.eq(host.wdata)]
        self.staged_final = Signal(VectorLayout)
        m.d.comb += [self.staged_final.x.eq(stage_final_x),
                     self.staged_final.y.eq(stage_final_y),
                     self.staged_final.z.eq(host.wdata)]

    def _config_rows(self, m):
        self.config_held = config_held = self.config_row.valid
        config_free = ~self.frame_busy & ~config_held
        with m.If(self.is_write & self.config_hit):
            m.d.comb += self.host.ready.eq(config_free)
            with m.If(config_free):
                m.d.sync += [config_held.eq(1), self.config_row.payload.addr.eq(self.row),
                             self.config_row.payload.data.eq(self.staged_row)]
        with m.If(config_held & self.config_row.ready):
            m.d.sync += config_held.eq(0)

    def _band_table(self, m):
        """Initial row at lane 2, output base at lane 3, final row at lane 6; returns
        "a write is in flight"."""
        offset = self.offset
        band = offset[3:]
        band_lane = offset[:3]
        band_write = Signal()
        m.d.comb += band_write.eq(self.is_write & (self.region == Region.BANDS)
                                  & (band < self.gpu_config.max_bands))
        entry = Signal(BandEntry, reset_less=True)
        table_addr = Signal.like(self.band_w_addr, reset_less=True)
        table_en = Signal.like(self.band_w_en)
        m.d.sync += [entry.initial.eq(self.staged_row), entry.final.eq(self.staged_final),
                     entry.base.eq(self.host.wdata), table_addr.eq(band), table_en.eq(0)]
        m.d.comb += [self.band_w_addr.eq(table_addr), self.band_w_data.eq(entry),
                     self.band_w_en.eq(table_en)]
        with m.If(band_write):
            with m.Switch(band_lane):
                for lane_index, enables in ((2, 0b0000111), (6, 0b0111000), (3, 0b1000000)):
                    with m.Case(lane_index):
                        m.d.sync += table_en.eq(enables)
        return table_en.any()

    def _scene(self, m):
        """A triangle row is stored with its z word, between frames."""
        m.d.comb += [self.scene_write.eq(self.is_write & self.scene_hit),
                     self.scene_w_addr.eq(self.row), self.scene_w_data.eq(self.staged_row),
                     self.scene_w_en.eq(self.scene_write & ~self.frame_busy)]
        with m.If(self.scene_write):
            m.d.comb += self.host.ready.eq(~self.frame_busy)

    def _user_code(self, m):
        """An instruction when its low half arrives, registered, then from core to core;
        returns "a copy is in flight"."""
        host, offset = self.host, self.offset
        user_word = offset[1:]
        is_user = self.is_write & (self.region == Region.USER)
        stage_hi = Signal(32)                   # an instruction's high half waits for the low
        with m.If(is_user & ~offset[0]):
            m.d.sync += stage_hi.eq(host.wdata)
        user_write = Signal()
        user_addr = Signal.like(self.imem_addr[0], reset_less=True)
        user_data = Signal.like(self.imem_data[0], reset_less=True)
        m.d.sync += [user_write.eq(is_user & offset[0]
                                   & (user_word < self.gpu_config.core.user_words)),
                     user_addr.eq(user_word), user_data.eq(Cat(host.wdata, stage_hi))]
        # core k's copy lands k + 1 cycles after the first
        code_writes = []
        write = (user_write, user_addr, user_data)
        for k in range(self.gpu_config.cores):
            copy = tuple(Signal.like(s, name=f"{s.name}_{k}") for s in write)
            m.d.sync += [c.eq(s) for c, s in zip(copy, write)]
            m.d.comb += [self.imem_we[k].eq(copy[0]), self.imem_addr[k].eq(copy[1]),
                         self.imem_data[k].eq(copy[2])]
            code_writes.append(copy[0])
            write = copy
        return Cat(user_write, *code_writes).any()

    def _texture(self, m):
        host, offset = self.host, self.offset
        texture_write = self.is_write & self.texture_hit
        m.d.comb += [self.tmem_w_addr.eq(offset), self.tmem_w_data.eq(host.wdata),
                     self.tmem_w_en.eq(texture_write & ~self.frame_busy)]
        with m.If(texture_write):
            m.d.comb += host.ready.eq(~self.frame_busy)
        m.submodules.host_tm_req = host_tm_req = SkidBuffer(32)
        wiring.connect(m, host_tm_req.o, wiring.flipped(self.tm_req))
        self.read_pending = texture_pending = Signal()
        texture_read = self.is_read & self.texture_hit
        m.d.comb += [host_tm_req.i.valid.eq(texture_read & ~texture_pending),
                     host_tm_req.i.payload.eq(offset)]
        with m.If(texture_read):
            m.d.comb += host.ready.eq(host_tm_req.i.ready & ~texture_pending)
        with m.If(host_tm_req.i.valid & host_tm_req.i.ready):
            m.d.sync += texture_pending.eq(1)
        with m.Elif(self.tm_resp.valid):
            m.d.sync += texture_pending.eq(0)

    def _memory(self, m):
        """Texture writes and reads, output reads: requests to the memory system in SDRAM
        (texture writes only between frames); a read is answered when its word comes."""
        host, offset = self.host, self.offset
        m.submodules.host_memory = request = SkidBuffer(HostMemoryRequest)
        wiring.connect(m, request.o, wiring.flipped(self.memory_req))
        self.read_pending = pending = Signal()       # a read waits for its word
        texture_write = self.is_write & self.texture_hit
        read = self.is_read & (self.texture_hit | self.output_hit)
        wanted = (texture_write & ~self.frame_busy) | (read & ~pending)
        m.d.comb += [request.i.valid.eq(wanted),
                     request.i.payload.write.eq(self.is_write),
                     request.i.payload.output.eq(self.output_hit),
                     request.i.payload.offset.eq(offset),
                     request.i.payload.data.eq(host.wdata)]
        with m.If(texture_write | read):
            m.d.comb += host.ready.eq(wanted & request.i.ready)
        with m.If(request.i.valid & request.i.ready & ~self.is_write):
            m.d.sync += pending.eq(1)
        with m.Elif(self.memory_resp.valid):
            m.d.sync += pending.eq(0)

    def _output(self, m):
        host, offset = self.host, self.offset
        m.submodules.host_om_req = host_om_req = SkidBuffer(OutputWrite)
        wiring.connect(m, host_om_req.o, wiring.flipped(self.om_req))
        m.d.comb += [host_om_req.i.valid.eq(self.is_write & self.output_hit),
                     host_om_req.i.payload.addr.eq(offset),
                     host_om_req.i.payload.data.eq(host.wdata)]
        with m.If(self.is_write & self.output_hit):
            m.d.comb += host.ready.eq(host_om_req.i.ready)
        if self.gpu_config.memory is None:
            m.d.comb += [self.omem_r_addr.eq(offset),
                         self.omem_r_en.eq(self.is_read & self.output_hit)]

    def _control(self, m, code_in_flight, band_in_flight):
        host, offset, config = self.host, self.offset, self.gpu_config
        control_write = self.is_write & (self.region == Region.CONTROL)
        with m.If(control_write & (self.config_held | code_in_flight | band_in_flight)):
            m.d.comb += host.ready.eq(0)        # (a start waits for the configuration row,
                                                # the user code and the band table entry)
        start = Signal()
        ctrl = control_write & (offset == Reg.CTRL) & ~self.config_held & ~code_in_flight \
            & ~band_in_flight
        m.d.comb += start.eq(ctrl & ((host.wdata & CTRL_START) != 0) & ~self.frame_busy)
        m.d.sync += [self.start.eq(start), self.run.eq(ctrl & ((host.wdata & CTRL_RUN) != 0)),
                     self.stop.eq(ctrl & ((host.wdata & CTRL_STOP) != 0))]
        if config.memory is not None:
            with m.If(control_write & (offset == Reg.DISPLAY)):
                m.d.sync += [self.display_width.eq(host.wdata[:16]),
                             self.display_height.eq(host.wdata[16:])]
        for reg, register, limit in ((Reg.NUM_TRIANGLES, self.num_triangles,
                                      config.max_triangles),
                                     (Reg.NUM_BANDS, self.num_bands, config.max_bands)):
            with m.If(control_write & (offset == reg)):
                m.d.sync += register.eq(Mux(host.wdata > limit, limit, host.wdata))
        # (the bins' rows are the host's to place: an address past the memory wraps)
        for reg, register in ((Reg.BIN_GRID, Cat(self.grid_columns, self.grid_rows)),
                              (Reg.BIN_TABLE, self.bin_table), (Reg.BIN_LIST, self.bin_list)):
            with m.If(control_write & (offset == reg)):
                m.d.sync += register.eq(host.wdata)

    def _answers(self, m):
        """Read answers: a cycle after the read is taken (output, texture: later)."""
        host, region = self.host, self.region
        output_latency = max(self.store_latency, SLOW_READ)
        output_due = Signal(output_latency)     # an output read on its way, a bit per cycle
        status = Cat(self.frame_busy, self.frame_done, self.frame_error, self.running)
        display = (Cat(self.display_width, self.display_height)
                   if self.gpu_config.memory is not None else 0)
        register_value = Signal(32)
        with m.Switch(self.offset):
            for reg_index, value in ((Reg.STATUS, status), (Reg.NUM_TRIANGLES, self.num_triangles),
                                     (Reg.NUM_BANDS, self.num_bands),
                                     (Reg.ERROR_INFO, self.error_info),
                                     (Reg.CORES, self.gpu_config.cores),
                                     (Reg.SCENE_ROWS, self.gpu_config.scene_rows),
                                     (Reg.BIN_GRID, Cat(self.grid_columns, self.grid_rows)),
                                     (Reg.BIN_TABLE, self.bin_table),
                                     (Reg.BIN_LIST, self.bin_list),
                                     (Reg.CYCLES, self.cycles),
                                     (Reg.DISPLAY, display), (Reg.FRAMES, self.frames),
                                     *((reg, getattr(self, f"frame_{name}"))
                                       for name, reg in _COUNTER_REGS.items())):
                with m.Case(reg_index):
                    m.d.comb += register_value.eq(value)
        answer = Signal()
        answer_from = Signal(Region)
        answer_register = Signal(32)
        with m.If(self.is_read & (output_due[:-1].any() | self.read_pending)):
            m.d.comb += host.ready.eq(0)
        memory = self.gpu_config.memory is not None
        read_taken = self.is_read & host.ready
        answer_late = output_due[-1]            # an output read taken output_latency ago
        omem_data = Signal(32)
        # (a Python bool: output reads of the memory system are answered by ``memory_resp``)
        store_read = C(0, 1) if memory else read_taken & self.output_hit
        m.d.sync += [answer.eq(read_taken), output_due.eq(Cat(store_read, output_due[:-1]))]
        if memory:
            pass                                # (words from ``memory_resp``)
        elif self.store_latency < SLOW_READ:
            m.d.sync += omem_data.eq(self.omem_r_data)
        else:
            m.d.comb += omem_data.eq(self.omem_r_data)
        stored = self.memory_resp if memory else self.tm_resp   # texture words (and output)
        with m.If(read_taken):
            with m.If(self.texture_hit | self.output_hit | (region == Region.CONTROL)
                      | ((region == Region.R500) & self.has_r500)):
                m.d.sync += answer_from.eq(region)
            with m.Else():
                m.d.sync += answer_from.eq(Region.NONE)
        m.d.sync += answer_register.eq(register_value)
        # (texture words come from the shared port when it answers; output words from
        # ``omem_data``)
        with m.Switch(answer_from):
            with m.Case(Region.TEXTURE):
                m.d.comb += host.rvalid.eq(stored.valid)
            with m.Case(Region.OUTPUT):
                m.d.comb += host.rvalid.eq(stored.valid if memory else answer_late)
            with m.Default():
                m.d.comb += host.rvalid.eq(answer)
        with m.Switch(answer_from):
            with m.Case(Region.CONTROL):
                m.d.comb += host.rdata.eq(answer_register)
            with m.Case(Region.TEXTURE):
                m.d.comb += host.rdata.eq(stored.payload)
            with m.Case(Region.OUTPUT):
                m.d.comb += host.rdata.eq(stored.payload if memory else omem_data)
            if self.has_r500:
                with m.Case(Region.R500):
                    m.d.comb += host.rdata.eq(self.r500.rdata)
        return m
