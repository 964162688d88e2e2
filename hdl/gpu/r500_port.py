"""The host's side of the R500 stage: region R500's registers, program, constants, integer
constants and samplers (``hdl.gpu.address_map``: ``R5Area``, ``R5Reg``), for the GPU's host
port and the R500 job top alike.

A request comes on ``bus`` (an ``R500Request``) in the cycle it is taken (``write`` or
``read`` with ``offset`` and ``wdata``). Writes reach the core a cycle later (registered: the
core's memories are far from the host's decode); a read's answer is on ``rdata`` the cycle
after. A sampler's base (word 0) waits for its fields (word 1).
"""

from amaranth import Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hdl.gpu.address_map import R5Area, R5Reg, R5_CTRL_CLEAR, R5_CTRL_RUN
from hdl.isa import R500_WORDS_PER_INSTRUCTION
from hdl.r500.core import PC_BITS, R500Core

__all__ = ["R500Port", "R500Request"]

AREA_BITS = 8           # offset bits 23:16 name the area
_AREA_SHIFT = 16


class R500Request(wiring.Signature):
    """A request to region R500 from the side that decodes the host bus: ``write`` or ``read``
    of word ``offset`` (``wdata``) in the cycle it is taken; the answer on ``rdata``."""

    def __init__(self):
        super().__init__({"write": Out(1), "read": Out(1), "offset": Out(24), "wdata": Out(32),
                          "rdata": In(32)})


class R500Port(wiring.Component):
    """Parameters: ``core`` (the ``R500Core`` whose host-state ports this drives: their
    layouts), ``cores`` (the THEIA cores feeding the stage, whose ``export_wait`` counts are
    read at EXPORT_WAIT + k; 0 for the job top)."""

    def __init__(self, core: R500Core, cores=0):
        self.cores = cores
        self.core_config = core.config
        members = core.signature.members
        contexts = core.config.contexts
        super().__init__({
            "bus": In(R500Request()),
            "imem_write": Out(members["imem_write"].shape),
            "const_write": Out(members["const_write"].shape),
            "int_const_write": Out(members["int_const_write"].shape),
            "sampler_write": Out(members["sampler_write"].shape),
            "bools": Out(32), "start_pc": Out(PC_BITS), "end_pc": Out(PC_BITS),
            "max_instructions": Out(32, init=100_000),
            "shade": Out(1), "covered": Out(4, init=0xF), "inputs": Out(9), "width": Out(16),
            "context": Out(range(max(contexts, 2))),
            "run": Out(1), "clear": Out(1),
            "status": In(3), "fault": In(32), "fault_pixel": In(32), "instructions": In(32),
            "cycles": In(32), "quads": In(32), "lane_ops": In(32), "running": In(16),
            **({"export_wait": In(32).array(cores)} if cores else {}),
        })

    def elaborate(self, platform):
        m = Module()
        offset, wdata = self.bus.offset, self.bus.wdata
        area = offset[_AREA_SHIFT:]
        index = offset[:_AREA_SHIFT]
        write = self.bus.write

        def area_is(base):
            return area == (base >> _AREA_SHIFT)

        # the program: instruction index * 8 + word
        word = index[:3]
        m.d.sync += [
            self.imem_write.en.eq(write & area_is(R5Area.PROGRAM)
                                  & (word < R500_WORDS_PER_INSTRUCTION)
                                  & (index[3:] < self.core_config.instructions)),
            self.imem_write.addr.eq(index[3:]), self.imem_write.word.eq(word),
            self.imem_write.data.eq(wdata),
            self.const_write.en.eq(write & area_is(R5Area.CONSTANTS) & (index < 4 * 256)),
            self.const_write.index.eq(index[2:]), self.const_write.channel.eq(index[:2]),
            self.const_write.data.eq(wdata),
        ]
        # integer constants and samplers share an area: bit 12 tells them apart
        samplers = index[12]
        m.d.sync += [
            self.int_const_write.en.eq(write & area_is(R5Area.INT_CONSTS) & ~samplers
                                       & (index[:12] < 32)),
            self.int_const_write.index.eq(index[:5]), self.int_const_write.data.eq(wdata),
        ]
        sampler_base = Signal(32)
        sampler_hit = write & area_is(R5Area.SAMPLERS) & samplers & (index[:12] < 32)
        with m.If(sampler_hit & ~index[0]):
            m.d.sync += sampler_base.eq(wdata)
        entry = self.sampler_write.data
        m.d.sync += [
            self.sampler_write.en.eq(sampler_hit & index[0]),
            self.sampler_write.index.eq(index[1:5]),
            entry.sampler.base.eq(sampler_base),
            entry.sampler.log2_width.eq(wdata[0:5]), entry.sampler.log2_height.eq(wdata[5:10]),
            entry.sampler.bilinear.eq(wdata[10]), entry.sampler.clamp.eq(wdata[11]),
            entry.set_up.eq(wdata[15]),
        ]

        # registers
        registers = write & area_is(R5Area.REGS)
        m.d.sync += [self.run.eq(0), self.clear.eq(0)]
        with m.If(registers):
            with m.Switch(index):
                with m.Case(R5Reg.CTRL):
                    m.d.sync += [self.run.eq((wdata & R5_CTRL_RUN) != 0),
                                 self.clear.eq((wdata & R5_CTRL_CLEAR) != 0)]
                for reg, target in ((R5Reg.START_PC, self.start_pc),
                                    (R5Reg.END_PC, self.end_pc),
                                    (R5Reg.MAX_INSTRUCTIONS, self.max_instructions),
                                    (R5Reg.BOOLS, self.bools), (R5Reg.SHADE, self.shade),
                                    (R5Reg.COVERED, self.covered),
                                    (R5Reg.CONTEXT, self.context), (R5Reg.INPUTS, self.inputs),
                                    (R5Reg.WIDTH, self.width)):
                    with m.Case(reg):
                        m.d.sync += target.eq(wdata)

        value = Signal(32)
        with m.Switch(index):
            for reg, source in ((R5Reg.STATUS, self.status), (R5Reg.START_PC, self.start_pc),
                                (R5Reg.END_PC, self.end_pc),
                                (R5Reg.MAX_INSTRUCTIONS, self.max_instructions),
                                (R5Reg.BOOLS, self.bools), (R5Reg.SHADE, self.shade),
                                (R5Reg.COVERED, self.covered), (R5Reg.CONTEXT, self.context),
                                (R5Reg.FAULT, self.fault), (R5Reg.FAULT_PIXEL, self.fault_pixel),
                                (R5Reg.INSTRUCTIONS, self.instructions),
                                (R5Reg.CYCLES, self.cycles), (R5Reg.QUADS, self.quads),
                                (R5Reg.LANE_OPS, self.lane_ops),
                                (R5Reg.CONTEXTS, self.core_config.contexts),
                                (R5Reg.TEMPORARIES, self.core_config.temporaries),
                                (R5Reg.RUNNING, self.running), (R5Reg.INPUTS, self.inputs),
                                (R5Reg.WIDTH, self.width),
                                *((R5Reg.EXPORT_WAIT + k, wait) for k, wait
                                  in enumerate(self.export_wait if self.cores else ()))):
                with m.Case(reg):
                    m.d.comb += value.eq(source)
        m.d.sync += self.bus.rdata.eq(Mux(self.bus.read & area_is(R5Area.REGS), value, 0))
        return m
