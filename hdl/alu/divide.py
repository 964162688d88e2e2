"""The vector ALU's DIVIDE class: whichever divider the configuration gives the core.

* ``DividerSharing.LANES``: three pipelined lane dividers (hdl/alu/divider.py): a DIV every
  cycle, latency ``divider_latency`` (26 with two quotient bits per stage).
* ``DividerSharing.PAIR``: no divider here: DIVs go out over the ``div`` port to one shared by
  two ALUs in time slots (hdl/alu/shared_divider.py; the GPU connects it). Latency
  ``shared_divider_latency`` + 1: the quotient is registered on its way back in.

The issuer must not send a DIV while ``div_ready`` is low.
"""

from amaranth import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hdl.alu.divider import Divider, divider_latency
from hdl.alu.shared_divider import divider_link, shared_divider_latency
from hdl.config import DividerSharing
from hdl.isa import LANES, VectorLayout

__all__ = ["DivideUnit"]


class DivideUnit(wiring.Component):
    """Ports: ``i_valid`` (a DIV issues), ``i_a``, ``i_b``, ``i_tag``; ``o_valid``, ``o_q``,
    ``o_tag`` ``latency`` cycles later; ``div_ready``; with ``DividerSharing.PAIR`` the
    ``div`` link to the shared divider (and no tag)."""

    def __init__(self, sharing, tag_width=0, bits_per_stage=2):
        self.sharing = sharing
        self.tag_width = tag_width
        self.bits_per_stage = bits_per_stage
        self.latency = {
            DividerSharing.LANES: divider_latency(bits_per_stage),
            DividerSharing.PAIR: shared_divider_latency(bits_per_stage) + 1,
        }[sharing]
        members = {"i_valid": In(1), "i_a": In(VectorLayout), "i_b": In(VectorLayout),
                   "i_tag": In(tag_width), "o_valid": Out(1), "o_q": Out(VectorLayout),
                   "o_tag": Out(tag_width), "div_ready": Out(1)}
        if sharing == DividerSharing.PAIR:
            if tag_width:
                raise ValueError("a DIV sent to a shared divider takes no tag")
            members["div"] = Out(divider_link())
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        if self.sharing == DividerSharing.PAIR:
            # The quotient is registered as it arrives, a cycle more: the divider sits
            # between two cores, and its route would be in front of this ALU's result
            # multiplexer, the forwarding and every operand register of the ALU.
            link = self.div
            m.d.comb += [link.valid.eq(self.i_valid), link.a.eq(self.i_a), link.b.eq(self.i_b),
                         self.div_ready.eq(link.ready)]
            # (loaded only with this ALU's quotients: the clients of a divider get the same
            # result wires, and synthesis would merge their identical registers into one
            # between the cores)
            quotient_valid = Signal()
            quotient = Signal(VectorLayout, reset_less=True)
            m.d.sync += quotient_valid.eq(link.result_valid)
            with m.If(link.result_valid):
                m.d.sync += quotient.eq(link.result)
            m.d.comb += [self.o_valid.eq(quotient_valid), self.o_q.eq(quotient)]
        else:
            for lane, name in enumerate(LANES):
                div = Divider(tag_width=self.tag_width if lane == 0 else 0,
                              bits_per_stage=self.bits_per_stage)
                m.submodules[f"divider_{name}"] = div
                m.d.comb += [div.i_valid.eq(self.i_valid),
                             div.i_a.eq(getattr(self.i_a, name)),
                             div.i_b.eq(getattr(self.i_b, name)),
                             getattr(self.o_q, name).eq(div.o_q)]
                if lane == 0:
                    m.d.comb += [div.i_tag.eq(self.i_tag), self.o_valid.eq(div.o_valid),
                                 self.o_tag.eq(div.o_tag)]
            m.d.comb += self.div_ready.eq(1)
        return m
