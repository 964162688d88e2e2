"""What one lane's ALU/OUT results write (r500-us.md §3.4): temporaries, render targets and W,
predicates and ``alu_result``.

``WritebackTag`` is worked out when the lane-op issues (which channels this lane writes, after
ACTIVE/WRITE_INACTIVE, kills and predication; where) and travels beside the datapath;
``Writeback`` (combinational) meets it with the lane's results:

* temporaries: the ``wmask`` channels, .rgb to ``rgb_dest`` and .a to ``alpha_dest``;
* OUT-type: the ``omask`` channels to render targets ``rgb_target`` (.rgb) and
  ``alpha_target`` (.a), and W with ``w_en``;
* ALU-type: ``omask`` names predicate bits, each set to ``result ⟂ 0`` with ⟂ the unit's
  TARGET field (``rgb_target``/``alpha_target`` hold it), and with ``alu_result_en`` the
  ``alu_result`` from the red or alpha result; the flow-control engine takes them only in
  ACTIVE, unkilled lanes.
"""

from amaranth import Module, Mux
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from hdl.isa import AluResultSel, Compare
from hdl.r500.fp_compare import ZERO, fp_eq, fp_ge, fp_lt, fp_ne
from hdl.r500.operands import Vec4
from hdl.r500.render_targets import target_write_layout
from hdl.r500.temporaries import temp_write_layout

__all__ = ["writeback_tag_layout", "Writeback", "compare_with_zero"]

ALPHA = 3


def writeback_tag_layout(contexts):
    return data.StructLayout({
        "context": range(max(contexts, 2)), "lane": 2, "out": 1,
        "rgb_dest": 7, "alpha_dest": 7,
        "wmask": 4, "omask": 4, "w_en": 1,
        "rgb_target": 2, "alpha_target": 2,
        "alu_result_en": 1, "alu_result_sel": 1, "alu_result_op": 2,
    })


def compare_with_zero(m, compare, value):
    """``value ⟂ 0`` for a 2-bit ``Compare`` code (combinational)."""
    relations = {Compare.EQ: fp_eq, Compare.LT: fp_lt, Compare.GE: fp_ge, Compare.NE: fp_ne}
    result = 0
    for code, relation in relations.items():
        result = Mux(compare == code, relation(value, ZERO), result)
    return result


class Writeback(wiring.Component):
    def __init__(self, contexts):
        self.contexts = contexts
        super().__init__({
            "valid": In(1), "tag": In(writeback_tag_layout(contexts)), "result": In(Vec4),
            "temp_write": Out(temp_write_layout(contexts)),
            "target_write": Out(target_write_layout(contexts)),
            "pred_we": Out(4), "pred": Out(4),
            "alu_result_we": Out(1), "alu_result": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        tag, result, valid = self.tag, self.result, self.valid
        temp, target = self.temp_write, self.target_write
        enables = Mux(valid, tag.wmask, 0)
        m.d.comb += [
            temp.rgb_addr.context.eq(tag.context), temp.rgb_addr.lane.eq(tag.lane),
            temp.rgb_addr.temp.eq(tag.rgb_dest), temp.rgb_en.eq(enables[:3]),
            temp.alpha_addr.context.eq(tag.context), temp.alpha_addr.lane.eq(tag.lane),
            temp.alpha_addr.temp.eq(tag.alpha_dest), temp.alpha_en.eq(enables[ALPHA]),
            temp.rgb.eq(result.as_value()[:96]), temp.alpha.eq(result[ALPHA]),
        ]
        out = valid & tag.out
        m.d.comb += [
            target.context.eq(tag.context), target.lane.eq(tag.lane),
            target.rgb_target.eq(tag.rgb_target), target.alpha_target.eq(tag.alpha_target),
            target.en.eq(Mux(out, tag.omask, 0)), target.w_en.eq(out & tag.w_en),
            target.value.eq(result),
        ]
        for c in range(4):
            code = tag.alpha_target if c == ALPHA else tag.rgb_target
            m.d.comb += self.pred[c].eq(compare_with_zero(m, code, result[c]))
        selected = Mux(tag.alu_result_sel == AluResultSel.ALPHA, result[ALPHA], result[0])
        m.d.comb += [
            self.pred_we.eq(Mux(valid & ~tag.out, tag.omask, 0)),
            self.alu_result_we.eq(valid & tag.alu_result_en),
            self.alu_result.eq(compare_with_zero(m, tag.alu_result_op, selected)),
        ]
        return m
