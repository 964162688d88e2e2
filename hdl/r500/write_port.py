"""W, the R500 core's write port to its temporaries (docs/r500-core.md): an ALU lane-op's result
(``w_valid``, ``w_alu_write``: fixed latency, it never waits), else a texture answer
(``w_answer``: swizzled and clamped into the lane's destination; ``w_tex_done`` tells its
context), else a load from the host (``load``).

Side writes that have waited long (15 cycles in a row with an ALU result) let no
instruction into I until one is written (``w_starving``).
"""

from amaranth import Cat, Module, Mux, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hdl.r500.core_ports import ALPHA, CHANNELS, context_event_layout
from hdl.r500.fp_post import clamp_value
from hdl.r500.temporaries import temp_write_layout
from hdl.r500.texture import TextureResponseLayout
from hdl.r500.tex_requests import tex_tag_layout

__all__ = ["WritePort"]


class WritePort(wiring.Component):
    """Parameters: ``contexts``."""

    def __init__(self, contexts):
        self.contexts = contexts
        self.tag_layout = tex_tag_layout(contexts)
        super().__init__({
            "w_valid": In(1), "w_alu_write": In(temp_write_layout(contexts)),
            "w_answer": In(stream.Signature(TextureResponseLayout(self.tag_layout.size))),
            "load": In(stream.Signature(temp_write_layout(contexts))),
            "w_write": Out(temp_write_layout(contexts)),
            "w_tex_done": Out(context_event_layout(contexts)),
            "w_starving": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        answer_port, load = self.w_answer, self.load
        # a cycle without an ALU result takes a texture answer, else a load
        answer = self.tag_layout(answer_port.payload.tag)
        texel = answer_port.payload.texel
        tex_write = Signal(temp_write_layout(self.contexts))
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

        free = ~self.w_valid
        m.d.comb += [answer_port.ready.eq(free), load.ready.eq(free & ~answer_port.valid)]
        with m.If(self.w_valid):
            m.d.comb += self.w_write.eq(self.w_alu_write)
        with m.Elif(answer_port.valid):
            m.d.comb += [self.w_write.eq(tex_write), self.w_tex_done.en.eq(1),
                         self.w_tex_done.context.eq(answer.context)]
        with m.Elif(load.valid):
            m.d.comb += self.w_write.eq(load.payload)

        # side writes waiting long: D lets no instruction into I until one is written
        waited = Signal(4)
        with m.If((answer_port.valid | load.valid) & self.w_valid):
            with m.If(~waited.all()):
                m.d.sync += waited.eq(waited + 1)
        with m.Else():
            m.d.sync += waited.eq(0)
        m.d.comb += self.w_starving.eq(waited.all())
        return m
