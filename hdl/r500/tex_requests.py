"""The R500 core's texture requests (docs/r500-core.md): TEX and TEXKILL lane-ops, at T (the
cycle after their I, when the lane's coordinates arrive from the temporaries: ``t_source``).

A TEX lane that writes becomes a request (the swizzled coordinates, the op, UNSCALED, the
sampler, and a tag saying where the answer goes: ``tex_tag_layout``) in a queue to the
``TextureUnit`` (``t_req``); a TEXKILL lane kills its lane when any coordinate's sign bit is
set (``t_kill``; flushing keeps it). The texture path takes one TEX instruction's lanes at a
time: ``t_free`` says I may take the next.
"""

from amaranth import Cat, Module, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.fifo import SyncFIFOBuffered
from amaranth.lib.wiring import In, Out

from hdl.isa import US_CMN_INST, US_TEX_INST, US_TEX_ADDR
from hdl.r500.core_ports import CHANNELS, LANES, lane_event_layout
from hdl.r500.decode import Decoded
from hdl.r500.operands import Vec4
from hdl.r500.texture import SamplerLayout, TextureRequestLayout

__all__ = ["tex_tag_layout", "TextureRequests"]


def tex_tag_layout(contexts):
    """Where a TEX lane's answer goes: the lane's temporary ``dst``, its channels ``wmask``,
    the answer's swizzle and clamps."""
    return data.StructLayout({"context": range(max(contexts, 2)), "lane": 2, "dst": 7,
                              "wmask": 4, "swizzle": 8, "rgb_clamp": 1, "alpha_clamp": 1})


class TextureRequests(wiring.Component):
    """Parameters: ``contexts``, ``tmem_addr_bits`` (the texture memory's word address
    width)."""

    def __init__(self, contexts, tmem_addr_bits):
        self.contexts = contexts
        context = range(max(contexts, 2))
        self.tag_layout = tex_tag_layout(contexts)
        super().__init__({
            # the lane-op at I
            "i_valid": In(1), "i_kind_tex": In(1), "i_kind_kill": In(1), "i_lane": In(2),
            "i_ctx": In(context), "i_decoded": In(Decoded), "i_writers": In(LANES),
            "i_enables": In(data.ArrayLayout(CHANNELS, LANES)),
            "i_sampler": In(SamplerLayout(tmem_addr_bits)),
            # T
            "t_source": In(Vec4),
            "t_free": Out(1), "t_kill": Out(lane_event_layout(contexts)),
            "t_req": Out(stream.Signature(TextureRequestLayout(tmem_addr_bits,
                                                               self.tag_layout.size))),
        })

    def elaborate(self, platform):
        m = Module()
        # I+1: the lane's coordinates arrive (read at I)
        words = self.i_decoded.words
        cmn = US_CMN_INST.layout(words[0])
        tex = US_TEX_INST.layout(words[1])
        addr = US_TEX_ADDR.layout(words[2])
        lane = self.i_lane
        writer = self.i_writers.bit_select(lane, 1)
        enables = self.i_enables.as_value().word_select(lane, CHANNELS)
        tag = Signal(self.tag_layout)
        m.d.comb += [tag.context.eq(self.i_ctx), tag.lane.eq(lane),
                     tag.dst.eq(self.i_decoded.tex_dst),
                     tag.wmask.eq(Cat(cmn.RGB_WMASK, cmn.ALPHA_WMASK) & enables),
                     tag.swizzle.eq(Cat(addr.DST_R_SWIZ, addr.DST_G_SWIZ, addr.DST_B_SWIZ,
                                        addr.DST_A_SWIZ)),
                     tag.rgb_clamp.eq(cmn.RGB_CLAMP), tag.alpha_clamp.eq(cmn.ALPHA_CLAMP)]
        ask = Signal()
        kill = Signal()
        r_tag = Signal(self.tag_layout)
        r_swizzle = Signal(8)
        r_op = Signal(3)
        r_unscaled = Signal()
        r_sampler = Signal.like(self.i_sampler)
        m.d.sync += [ask.eq(self.i_valid & self.i_kind_tex & writer),
                     kill.eq(self.i_valid & self.i_kind_kill & writer),
                     r_tag.eq(tag),
                     r_swizzle.eq(Cat(addr.SRC_S_SWIZ, addr.SRC_T_SWIZ, addr.SRC_R_SWIZ,
                                      addr.SRC_Q_SWIZ)),
                     r_op.eq(tex.INST), r_unscaled.eq(tex.UNSCALED),
                     r_sampler.eq(self.i_sampler)]
        coords = Cat(self.t_source.as_value().word_select(r_swizzle.word_select(k, 2), 32)
                     for k in range(4))
        # TEXKILL: the sign bit of any coordinate (flushing keeps it)
        kills = Cat(coords.word_select(k, 32)[31] for k in range(4)).any()
        m.d.comb += [self.t_kill.en.eq(kill & kills), self.t_kill.context.eq(r_tag.context),
                     self.t_kill.lane.eq(r_tag.lane)]

        fifo = m.submodules.queue = SyncFIFOBuffered(width=self.t_req.payload.shape().size,
                                                     depth=LANES)
        request = Signal(self.t_req.payload.shape())
        m.d.comb += [request.coords.eq(coords), request.op.eq(r_op),
                     request.unscaled.eq(r_unscaled), request.sampler.eq(r_sampler),
                     request.tag.eq(r_tag),
                     fifo.w_en.eq(ask), fifo.w_data.eq(request),
                     self.t_req.valid.eq(fifo.r_rdy), self.t_req.payload.eq(fifo.r_data),
                     fifo.r_en.eq(self.t_req.ready)]
        # a TEX instruction enters I only when no other one's lanes are on their way
        m.d.comb += self.t_free.eq((fifo.r_level == 0) & ~ask
                                   & ~(self.i_valid & self.i_kind_tex))
        return m
