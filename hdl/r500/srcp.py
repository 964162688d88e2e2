"""The pre-subtract slot of the R500 core (r500-us.md §3.2): ``sim.r500.operands.srcp`` bit for
bit, four channels at once, .rgb by inst1's SRCP_OP and .a by inst2's.

Every SRCP_OP is one rounded binary32 addition, so each channel is one ``FpAdd`` on operands
chosen from slots 0 and 1 (a − b being a + (−b), as the model writes it):

| SRCP_OP | adder's operands |
|---|---|
| NEG2: 1 − 2·src0 | 1.0, −(2·src0) |
| SUB: src1 − src0 | src1, −src0 |
| ADD: src1 + src0 | src1, src0 |
| NEG: 1 − src0 | 1.0, −src0 |

2·src0 is the model's ``mul(TWO, src0)``, which is exact: the exponent field plus one, +∞ or −∞
past the largest binade, an infinity or a NaN unchanged (the adder turns every NaN it reads into
0x7FC00000, whatever its payload). A zero or a subnormal src0 gets its exponent field plus one
too: a normal number below 2^-125, which 1.0 absorbs in the rounding just as it absorbs the zero
``mul`` gives, so 1 − 2·src0 is 1.0 either way.

Pipeline, LATENCY = 1 + FpAdd.LATENCY = 5 cycles, one lane-op per cycle, never stalls:

1. the adders' operands, registered;
2-5. four ``FpAdd``.
"""

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib.wiring import In, Out

from hdl.isa import SrcpOp
from hdl.lib.pipeline import register_stage
from hdl.r500.fp32 import HIDDEN, ONE, POS_INF, PipelinedUnit
from hdl.r500.fp_add import FpAdd
from hdl.r500.operand_values import VEC4, neg

__all__ = ["PreSubtract", "doubled", "srcp_operands"]


def doubled(x):
    """2·x of the pattern ``x``, as 1.0 − 2·x needs it (see the module's note): the exponent
    field plus one; an infinity of x's sign from the largest binade; infinities and NaNs
    unchanged."""
    exp = x[23:31]
    return Mux(exp == 0xFF, x, Mux(exp == 0xFE, Cat(Const(POS_INF, 31), x[31]), x + HIDDEN))


def srcp_operands(m, op, src0, src1):
    """The adder's operands (x, y) for SRCP_OP ``op`` (2 bits) of one channel."""
    x, y = Signal(32), Signal(32)
    with m.Switch(op):
        with m.Case(SrcpOp.NEG2):
            m.d.comb += [x.eq(ONE), y.eq(neg(doubled(src0)))]
        with m.Case(SrcpOp.SUB):
            m.d.comb += [x.eq(src1), y.eq(neg(src0))]
        with m.Case(SrcpOp.ADD):
            m.d.comb += [x.eq(src1), y.eq(src0)]
        with m.Case(SrcpOp.NEG):
            m.d.comb += [x.eq(ONE), y.eq(neg(src0))]
    return x, y


class PreSubtract(PipelinedUnit):
    """``o_result`` = srcp of ``i_slot0`` and ``i_slot1`` (stored words, unflushed), LATENCY
    cycles after ``i_valid``: channels r, g, b by ``i_rgb_op``, a by ``i_alpha_op``."""

    LATENCY = 1 + FpAdd.LATENCY

    i_valid: In(1)
    i_rgb_op: In(2)
    i_alpha_op: In(2)
    i_slot0: In(VEC4)
    i_slot1: In(VEC4)
    o_valid: Out(1)
    o_result: Out(VEC4)

    def elaborate(self, platform):
        m = Module()

        # stage 1: each channel's operands
        operands = {}
        for channel in range(4):
            op = self.i_rgb_op if channel < 3 else self.i_alpha_op
            x, y = srcp_operands(m, op, self.i_slot0[channel], self.i_slot1[channel])
            operands[f"x{channel}"], operands[f"y{channel}"] = x, y
        s1 = register_stage(m, 1, {"valid": self.i_valid, **operands})

        # stages 2-5: the sums
        for channel in range(4):
            adder = FpAdd()
            m.submodules[f"add{channel}"] = adder
            m.d.comb += [adder.i_valid.eq(s1["valid"]), adder.i_a.eq(s1[f"x{channel}"]),
                         adder.i_b.eq(s1[f"y{channel}"]),
                         self.o_result[channel].eq(adder.o_result)]
            if channel == 0:
                m.d.comb += self.o_valid.eq(adder.o_valid)
        return m
