"""The R500 shader core alone behind the host bus: the top that runs R500 jobs (one quad, or
one per context for the throughput bench), r500-us.md §4.3.

Region R500 (``hdl.gpu.address_map``: ``R5Area``, ``R5Reg``) loads the program, constants,
booleans, integer constants and samplers (``R500Port``), and reaches the contexts: CTRL CLEAR
claims context CONTEXT (its temporaries read 0), writes to area TEMPS load its temporaries,
CTRL RUN launches it with COVERED. Region TEXTURE is the texture memory. The CONTROL region's
STATUS tells the hosts' frame wait (``wait_frame``) about context CONTEXT, in the bits of the
GPU's STATUS: busy, done (the program ended), error (it stopped: R5Reg.FAULT says why). Afterwards areas TEMPS, TARGETS and
LANES read back its temporaries, render targets, W, written channels and kills.

Every request is taken at once (a temporary write waits for the core's load port) and every
read answered the cycle after.
"""

from amaranth import Cat, Module, Mux, Signal, Value, unsigned
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In
from amaranth.utils import ceil_log2

from hdl.config import R500Config
from hdl.gpu.host_bus import AddressDecoder, HostBus
from hdl.gpu.address_map import R5Area, Region, Reg
from hdl.gpu.r500_port import R500Port
from hdl.isa import QuadFault
from hdl.r500.core import ContextState, R500Core

__all__ = ["R500Top"]

_AREA_SHIFT = 16


class R500Top(wiring.Component):
    """Parameters: ``config`` (``R500Config``), ``tmem_words`` (the texture memory's size)."""

    host: In(HostBus())

    def __init__(self, config=R500Config(), tmem_words=1 << 16):
        self.config = config
        self.tmem_words = tmem_words
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        config = self.config
        addr_bits = max(ceil_log2(self.tmem_words), 1)
        m.submodules.core = core = R500Core(config, tmem_addr_bits=addr_bits)
        m.submodules.port = port = R500Port(core)
        m.submodules.decoder = decoder = AddressDecoder()
        host = self.host
        m.d.comb += decoder.addr.eq(host.addr)
        region, offset = decoder.region, decoder.offset
        taken = host.valid & host.ready
        is_r500 = region == Region.R500
        area = offset[_AREA_SHIFT:]

        def area_is(base):
            return is_r500 & (area == (base >> _AREA_SHIFT))

        # the host state and commands
        m.d.comb += [port.bus.write.eq(taken & host.write & is_r500),
                     port.bus.read.eq(taken & ~host.write & is_r500),
                     port.bus.offset.eq(offset), port.bus.wdata.eq(host.wdata)]
        m.d.comb += [core.imem_write.eq(port.imem_write), core.const_write.eq(port.const_write),
                     core.int_const_write.eq(port.int_const_write),
                     core.sampler_write.eq(port.sampler_write), core.bools.eq(port.bools),
                     core.start_pc.eq(port.start_pc), core.end_pc.eq(port.end_pc),
                     core.max_instructions.eq(port.max_instructions)]
        context = port.context
        m.d.comb += [core.claim.en.eq(port.clear), core.claim.context.eq(context),
                     core.launch.en.eq(port.run), core.launch.context.eq(context),
                     core.launch.covered.eq(port.covered)]

        # the selected context's state; the cycles while any context runs, from a RUN while
        # none did (one quad: its cycles; several launched together: all of theirs)
        state = core.state[context]
        fault = core.fault[context]
        running = state == ContextState.RUNNING
        any_running = ~core.idle
        cycles = Signal(32)
        with m.If(port.run & ~any_running):
            m.d.sync += cycles.eq(0)
        with m.Elif(any_running):
            m.d.sync += cycles.eq(cycles + 1)
        ended = state == ContextState.DONE
        status = Signal(3)
        m.d.comb += status.eq(Cat(running, ended & (fault == QuadFault.NONE),
                                  ended & (fault != QuadFault.NONE)))
        m.d.comb += [port.status.eq(status),
                     port.fault.eq(Value.cast(fault) | (core.fault_pc[context] << 16)),
                     port.instructions.eq(core.instructions[context]),
                     port.cycles.eq(cycles), port.lane_ops.eq(core.lane_ops),
                     port.running.eq(Cat(s == ContextState.RUNNING for s in core.state))]

        # temporaries: written through the core's load port, read while nothing runs
        temp_hit = area_is(R5Area.TEMPS)
        channel, temp, lane = offset[:2], offset[2:9], offset[9:11]
        load = core.load.payload
        m.d.comb += [core.load.valid.eq(host.valid & host.write & temp_hit),
                     load.rgb_addr.context.eq(context), load.rgb_addr.lane.eq(lane),
                     load.rgb_addr.temp.eq(temp),
                     load.alpha_addr.context.eq(context), load.alpha_addr.lane.eq(lane),
                     load.alpha_addr.temp.eq(temp),
                     load.rgb_en.eq(Mux(channel == 3, 0, 1 << channel)),
                     load.alpha_en.eq(channel == 3),
                     load.rgb.eq(host.wdata.replicate(3)), load.alpha.eq(host.wdata),
                     core.temp_read.context.eq(context), core.temp_read.lane.eq(lane),
                     core.temp_read.temp.eq(temp)]
        # render targets and lanes: (lane, target) from TARGETS' 4(4l + r) + k or LANES' 8l + j
        targets_hit = area_is(R5Area.TARGETS)
        lanes_hit = area_is(R5Area.LANES)
        m.d.comb += [core.target_read.context.eq(context),
                     core.target_read.lane.eq(Mux(targets_hit, offset[4:6], offset[3:5])),
                     core.target_read.target.eq(Mux(targets_hit, offset[2:4], offset[:2]))]

        # the texture memory: the host's writes and reads, the core's reads
        tmem = m.submodules.tmem = Memory(shape=unsigned(32), depth=self.tmem_words, init=[])
        tmem_w = tmem.write_port()
        host_r, core_r = tmem.read_port(), tmem.read_port()
        texture_hit = (region == Region.TEXTURE) & (offset < self.tmem_words)
        m.d.comb += [tmem_w.addr.eq(offset), tmem_w.data.eq(host.wdata),
                     tmem_w.en.eq(taken & host.write & texture_hit),
                     host_r.addr.eq(offset),
                     core_r.addr.eq(core.tm_req.payload), core.tm_req.ready.eq(1),
                     core.tm_resp.payload.eq(core_r.data)]
        m.d.sync += core.tm_resp.valid.eq(core.tm_req.valid)

        # requests: taken at once, but a temporary write waits for the load port
        m.d.comb += host.ready.eq(Mux(host.write & temp_hit, core.load.ready, 1))
        read = taken & ~host.write
        answer = Signal()
        source = Signal(range(6))
        channel_r = Signal(2)
        lane_word = Signal(3)
        m.d.sync += [answer.eq(read), channel_r.eq(channel), lane_word.eq(offset[:3])]
        with m.If(read):
            with m.If(texture_hit):
                m.d.sync += source.eq(1)
            with m.Elif(temp_hit):
                m.d.sync += source.eq(2)
            with m.Elif(targets_hit):
                m.d.sync += source.eq(3)
            with m.Elif(lanes_hit):
                m.d.sync += source.eq(4)
            with m.Elif((region == Region.CONTROL) & (offset == Reg.STATUS)):
                m.d.sync += source.eq(5)
            with m.Else():
                m.d.sync += source.eq(0)           # R500 registers (0 elsewhere)
        # (LANES: W, killed, then the written channels of targets 0-3)
        lane_r = Signal(2)
        status_r = Signal(3)
        killed = Signal(4)
        m.d.sync += [lane_r.eq(offset[3:5]), status_r.eq(status),
                     killed.eq(core.killed[context])]
        lane_value = Mux(lane_word == 0, core.w,
                         Mux(lane_word == 1, killed.bit_select(lane_r, 1), core.target_written))
        with m.Switch(source):
            with m.Case(1):
                m.d.comb += host.rdata.eq(host_r.data)
            with m.Case(2):
                m.d.comb += host.rdata.eq(core.temp_data[channel_r])
            with m.Case(3):
                m.d.comb += host.rdata.eq(core.target_data[channel_r])
            with m.Case(4):
                m.d.comb += host.rdata.eq(lane_value)
            with m.Case(5):
                m.d.comb += host.rdata.eq(status_r)
            with m.Default():
                m.d.comb += host.rdata.eq(port.bus.rdata)
        m.d.comb += host.rvalid.eq(answer)
        return m
