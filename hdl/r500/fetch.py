"""F, the R500 core's fetch (docs/r500-core.md): a ready context is picked (``RoundRobinPick``)
and its instruction read from the instruction memory; D holds it (``d_valid``, ``d_ctx``,
``d_pc``, ``d_words``) until it is done with it (``d_done``).

``f_ready`` says which contexts may issue (the contexts unit's view); the context at D is not
picked again. The contexts unit answers ``f_index`` with the picked context's PC (``f_pc``).
The host writes the instruction memory (``imem_write``: word ``word`` of instruction
``addr``) while no context runs.
"""

from amaranth import Cat, Module, Mux, Signal, unsigned
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from hdl.isa import R500_WORDS_PER_INSTRUCTION
from hdl.r500.core_ports import PC_BITS, write_port
from hdl.r500.decode import InstructionWords
from hdl.r500.scheduler import RoundRobinPick

__all__ = ["InstructionFetch"]


class InstructionFetch(wiring.Component):
    """Parameters: ``contexts``, ``instructions`` (the memory's depth), ``lut_code_ram`` (the
    memory in LUT RAM rather than block RAM)."""

    def __init__(self, contexts, instructions, lut_code_ram=False):
        self.contexts = contexts
        self.instructions = instructions
        self.lut_code_ram = lut_code_ram
        context = range(max(contexts, 2))
        super().__init__({
            "imem_write": In(write_port({"addr": range(instructions), "word": 3, "data": 32})),
            "f_ready": In(contexts), "f_index": Out(context), "f_pc": In(PC_BITS),
            "d_valid": Out(1), "d_ctx": Out(context), "d_pc": Out(PC_BITS),
            "d_words": Out(InstructionWords),
            "d_done": In(1),                 # D has finished with its instruction
        })

    def elaborate(self, platform):
        m = Module()
        q = self.contexts
        imem = m.submodules.imem = Memory(
            shape=unsigned(InstructionWords.size), depth=self.instructions, init=[],
            attrs={"ram_style": "distributed"} if self.lut_code_ram else None)
        write = self.imem_write
        port = imem.write_port(granularity=32)
        m.d.comb += [port.addr.eq(write.addr),
                     port.data.eq(write.data.replicate(R500_WORDS_PER_INSTRUCTION)),
                     port.en.eq(Mux(write.en, 1 << write.word, 0))]

        picker = m.submodules.picker = RoundRobinPick(q)
        d_valid, d_ctx = self.d_valid, self.d_ctx
        take = Signal()
        m.d.comb += take.eq((~d_valid | self.d_done) & picker.valid)
        ready = [self.f_ready[k] & ~(d_valid & (d_ctx == k)) for k in range(q)]
        m.d.comb += [picker.ready.eq(Cat(ready)), picker.take.eq(take),
                     self.f_index.eq(picker.index)]
        read = imem.read_port()
        m.d.comb += [read.addr.eq(self.f_pc), read.en.eq(take), self.d_words.eq(read.data)]
        with m.If(take):
            m.d.sync += [d_valid.eq(1), d_ctx.eq(picker.index), self.d_pc.eq(read.addr)]
        with m.Elif(self.d_done):
            m.d.sync += d_valid.eq(0)
        return m
