"""I, the R500 core's issue stage (docs/r500-core.md): one lane-op per cycle, lanes 0-3 of the
instruction D handed over.

I takes D's instruction (``i_accepts``) after its last lane, unless the write port starves
(``w_starving``: texture answers or loads have waited long for a cycle without an ALU result)
or it is a TEX instruction and the texture path still has another one's lanes (``t_free``).
Its registers load whenever it could take D's instruction: only the valid bit waits for D's
decision (its faults), not the enables of some 400 flip-flops (what they hold while I is idle
is never read).

Each lane-op reads the lane's temporaries (``i_temp_rgb``/``i_temp_alpha``: an ALU lane-op's
slots, a TEX lane's coordinates; the host's ``temp_read`` while no context runs). An ALU/OUT
lane-op (``i_alu``) also gives the ALU its control (``i_alu_control``) and says what it writes
(``i_alu_tag``: the channels after ACTIVE/WRITE_INACTIVE, kills and predication; where).
"""

from amaranth import Cat, Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from hdl.isa import US_CMN_INST, US_ALU_ADDR, US_ALU_RGB_INST, US_ALU_ALPHA_INST, \
    US_ALU_RGBA_INST, InstType
from hdl.r500.core_ports import ALPHA, CHANNELS, LANES
from hdl.r500.decode import SLOTS, Decoded
from hdl.r500.temporaries import temp_address_layout
from hdl.r500.texture import SamplerLayout
from hdl.r500.writeback import writeback_tag_layout

__all__ = ["AluControl", "Issue"]

#: what the ALU takes beside the operands: words 3-5, the slots' SRCP_OP, the clamps
AluControl = data.StructLayout({
    "rgb": US_ALU_RGB_INST.layout, "alpha": US_ALU_ALPHA_INST.layout,
    "rgba": US_ALU_RGBA_INST.layout, "rgb_srcp": 2, "alpha_srcp": 2,
    "rgb_clamp": 1, "alpha_clamp": 1,
})


class Issue(wiring.Component):
    """Parameters: ``contexts``, ``tmem_addr_bits`` (the samplers' address width)."""

    def __init__(self, contexts, tmem_addr_bits):
        self.contexts = contexts
        context = range(max(contexts, 2))
        address = temp_address_layout(contexts)
        super().__init__({
            # D's instruction
            "d_issue": In(1), "d_ctx": In(context), "d_decoded": In(Decoded),
            "d_is_tex": In(1), "d_is_kill": In(1), "d_writers": In(LANES),
            "d_covered": In(LANES), "d_enables": In(data.ArrayLayout(CHANNELS, LANES)),
            "d_sampler": In(SamplerLayout(tmem_addr_bits)),
            "t_free": In(1), "w_starving": In(1),
            "idle": In(1), "temp_read": In(address),
            # I
            "i_accepts": Out(1),
            "i_valid": Out(1), "i_lane": Out(2), "i_ctx": Out(context),
            "i_decoded": Out(Decoded), "i_writers": Out(LANES), "i_covered": Out(LANES),
            "i_enables": Out(data.ArrayLayout(CHANNELS, LANES)),
            "i_kind_tex": Out(1), "i_kind_kill": Out(1), "i_parity": Out(1),
            "i_sampler": Out(SamplerLayout(tmem_addr_bits)),
            "i_temp_rgb": Out(address).array(SLOTS), "i_temp_alpha": Out(address).array(SLOTS),
            "i_alu": Out(1), "i_alu_control": Out(AluControl),
            "i_alu_tag": Out(writeback_tag_layout(contexts)),
            "lane_ops": Out(32),
        })

    def elaborate(self, platform):
        m = Module()
        i_valid, i_lane, i_kind_tex, i_kind_kill = (self.i_valid, self.i_lane, self.i_kind_tex,
                                                    self.i_kind_kill)
        last_lane = i_lane == LANES - 1
        m.d.comb += self.i_accepts.eq((~i_valid | last_lane) & ~self.w_starving
                                      & (~self.d_is_tex | self.t_free))
        with m.If(self.i_accepts):
            m.d.sync += [self.i_ctx.eq(self.d_ctx),
                         self.i_decoded.eq(self.d_decoded), self.i_writers.eq(self.d_writers),
                         self.i_covered.eq(self.d_covered), self.i_enables.eq(self.d_enables),
                         i_kind_tex.eq(self.d_is_tex & ~self.d_is_kill),
                         i_kind_kill.eq(self.d_is_kill), self.i_sampler.eq(self.d_sampler)]
        with m.If(self.d_issue):
            m.d.sync += [i_valid.eq(1), i_lane.eq(0)]
            with m.If(~self.d_is_tex):
                m.d.sync += self.i_parity.eq(~self.i_parity)
        with m.Elif(i_valid):
            m.d.sync += i_lane.eq(i_lane + 1)
            with m.If(last_lane):
                m.d.sync += i_valid.eq(0)

        m.d.comb += self.i_alu.eq(i_valid & ~i_kind_tex & ~i_kind_kill)
        with m.If(self.i_alu):
            m.d.sync += self.lane_ops.eq(self.lane_ops + 1)

        # the temporaries' read addresses: an ALU lane-op's slots, a TEX lane's coordinates,
        # the host's read-back while no context runs
        decoded = self.i_decoded
        for n in range(SLOTS):
            for port, sources in ((self.i_temp_rgb[n], decoded.rgb_src),
                                  (self.i_temp_alpha[n], decoded.alpha_src)):
                m.d.comb += [port.context.eq(self.i_ctx), port.lane.eq(i_lane),
                             port.temp.eq(sources[n].index)]
                if n == 0:
                    with m.If(i_kind_tex | i_kind_kill):
                        m.d.comb += port.temp.eq(decoded.tex_src)
                    with m.If(~i_valid & self.idle):
                        m.d.comb += port.eq(self.temp_read)
        self._alu_lane_op(m)
        return m

    def _alu_lane_op(self, m):
        """An ALU/OUT lane-op's control and what it writes, worked out now and carried beside
        the datapath."""
        words, lane = self.i_decoded.words, self.i_lane
        cmn = US_CMN_INST.layout(words[0])
        control = self.i_alu_control
        m.d.comb += [control.rgb.eq(words[3]), control.alpha.eq(words[4]),
                     control.rgba.eq(words[5]),
                     control.rgb_srcp.eq(US_ALU_ADDR.layout(words[1]).SRCP_OP),
                     control.alpha_srcp.eq(US_ALU_ADDR.layout(words[2]).SRCP_OP),
                     control.rgb_clamp.eq(cmn.RGB_CLAMP), control.alpha_clamp.eq(cmn.ALPHA_CLAMP)]

        tag = self.i_alu_tag
        rgb = US_ALU_RGB_INST.layout(words[3])
        alpha = US_ALU_ALPHA_INST.layout(words[4])
        writer = self.i_writers.bit_select(lane, 1)
        covered = self.i_covered.bit_select(lane, 1)
        enables = self.i_enables.as_value().word_select(lane, CHANNELS)
        out = cmn.TYPE == InstType.OUT
        omask = Cat(cmn.RGB_OMASK, cmn.ALPHA_OMASK)
        m.d.comb += [
            tag.context.eq(self.i_ctx), tag.lane.eq(lane), tag.out.eq(out),
            tag.rgb_dest.eq(self.i_decoded.rgb_dest), tag.alpha_dest.eq(self.i_decoded.alpha_dest),
            tag.wmask.eq(Mux(writer, Cat(cmn.RGB_WMASK, cmn.ALPHA_WMASK) & enables, 0)),
            # OUT: render-target channels; ALU: the predicate bits to update
            tag.omask.eq(Mux(out, Mux(writer & covered, omask & enables, 0), omask)),
            tag.w_en.eq(alpha.W_OMASK & enables[ALPHA] & writer & covered),
            tag.rgb_target.eq(rgb.TARGET), tag.alpha_target.eq(alpha.TARGET),
            tag.alu_result_en.eq(rgb.ALU_WMASK), tag.alu_result_sel.eq(cmn.ALU_RESULT_SEL),
            tag.alu_result_op.eq(cmn.ALU_RESULT_OP),
        ]
