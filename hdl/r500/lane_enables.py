"""Which lanes and channels an R500 instruction writes, at D (r500-us.md §3.4): a lane writes
if it is not killed and ACTIVE, or with WRITE_INACTIVE whatever its state (``d_writers``); each
of its channels if the channel's predication lets it (``d_enables``), from the lane's predicate
bits as they are before the instruction (``d_pred``).
"""

from amaranth import Cat, Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from hdl.isa import US_CMN_INST, PredSel
from hdl.r500.core_ports import ALPHA, CHANNELS, LANES

__all__ = ["LaneEnables"]


class LaneEnables(wiring.Component):
    d_inst: In(US_CMN_INST.layout)                  # the instruction's word 0
    d_pred: In(data.ArrayLayout(4, LANES))
    d_active: In(LANES)                             # ACTIVE and not killed
    d_killed: In(LANES)
    d_writers: Out(LANES)
    d_enables: Out(data.ArrayLayout(CHANNELS, LANES))

    def elaborate(self, platform):
        m = Module()
        cmn = self.d_inst
        m.d.comb += self.d_writers.eq(~self.d_killed
                                      & (self.d_active | cmn.WRITE_INACTIVE.replicate(LANES)))
        for lane in range(LANES):
            lane_pred = self.d_pred[lane]
            m.d.comb += self.d_enables[lane].eq(Cat(
                [_predicated(m, cmn.RGB_PRED_SEL, cmn.RGB_PRED_INV, lane_pred, c)
                 for c in range(3)]
                + [_predicated(m, cmn.ALPHA_PRED_SEL, cmn.ALPHA_PRED_INV, lane_pred, ALPHA)]))
        return m


def _predicated(m, sel, inv, pred, channel):
    """Predication of one channel: NONE writes; RGBA reads the channel's own predicate bit,
    RRRR...AAAA one bit; PRED_INV inverts (not for NONE)."""
    bit = Signal()
    with m.Switch(sel):
        with m.Case(PredSel.RGBA):
            m.d.comb += bit.eq(pred[channel])
        for s in (PredSel.RRRR, PredSel.GGGG, PredSel.BBBB, PredSel.AAAA):
            with m.Case(s):
                m.d.comb += bit.eq(pred[s - PredSel.RRRR])
    return Mux(sel == PredSel.NONE, 1, bit ^ inv)
