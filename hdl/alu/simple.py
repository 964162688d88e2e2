"""The vector ALU's SIMPLE class: every opcode that is one adder per lane and a result select.

ADD SUB INC DEC INCX/Y/Z COPY ZERO MOD FRAC INTP NEG XCHANGEX/Y/Z UNSCALE RESCALE LEA SETX/Y/Z
SWIZZLE3D. Each lane's result is one source (``Source``) picked by a recipe of the opcode
(``SIMPLE_RECIPES``); the lane adder computes lhs +/- rhs on 33 bits (one carry chain for both
on ECP5, hdl/lib/arith.py). How each lane makes its result (``SimpleControl``) is decoded by the
issuer a stage earlier (``simple_control``), which keeps the opcode's decode off the loop ALU
result -> the issuer's forwarding -> operand select -> adder -> result select.

``SimpleUnit(latency)``: latency 1 (adder and result select, then the output register) or 2
(everything in front of the adders registered first: that loop is cut in two, at the cost of a
cycle for each SIMPLE result).
"""

from enum import Enum

from amaranth import Cat, Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from hdl.alu.classes import CLASS_OF, LatencyClass, or_all
from hdl.isa import LANES, ONE, SCALE, SWIZZLES, Op, VectorLayout
from hdl.lib.arith import add_sub

__all__ = ["SimpleUnit", "SimpleControl", "simple_control", "SIMPLE_RECIPES", "fix_of"]

# A lane result is one of these sources; the lane adder computes lhs +/- rhs (33 bits).
class Source(Enum):
    A = 0
    B = 1
    ZERO = 2
    FIX_SUM = 3       # fix(lhs +/- rhs)
    RAW_SUM = 4       # (lhs +/- rhs) mod 2**32
    MOD = 5           # a & (lhs - rhs)
    FRAC = 6
    INTP = 7
    UNSCALE = 8
    RESCALE = 9
    LEA = 10
    IMM = 11
    SWIZZLE = 12


class Operand(Enum):
    A = 0
    B = 1
    ZERO = 2
    ONE = 3


def _lanes(source, lhs=Operand.A, rhs=Operand.B, subtract=False):
    return ((source, lhs, rhs, subtract),) * 3


def _one_lane(lane, recipe, others):
    return tuple(recipe if i == lane else others for i in range(3))


_KEEP_A = (Source.A, Operand.A, Operand.B, False)
_KEEP_B = (Source.B, Operand.A, Operand.B, False)
_INC = (Source.FIX_SUM, Operand.A, Operand.ONE, False)

#: op -> (x, y, z) recipes (source, adder lhs, adder rhs, subtract)
SIMPLE_RECIPES = {
    Op.ADD: _lanes(Source.FIX_SUM),
    Op.SUB: _lanes(Source.FIX_SUM, subtract=True),
    Op.INC: _lanes(Source.FIX_SUM, rhs=Operand.ONE),
    Op.DEC: _lanes(Source.FIX_SUM, rhs=Operand.ONE, subtract=True),
    Op.INCX: _one_lane(0, _INC, _KEEP_A),
    Op.INCY: _one_lane(1, _INC, _KEEP_A),
    Op.INCZ: _one_lane(2, _INC, _KEEP_A),
    Op.NEG: _lanes(Source.RAW_SUM, lhs=Operand.ZERO, rhs=Operand.A, subtract=True),
    Op.MOD: _lanes(Source.MOD, lhs=Operand.B, rhs=Operand.ONE, subtract=True),
    Op.COPY: _lanes(Source.A),
    Op.ZERO: _lanes(Source.ZERO),
    Op.FRAC: _lanes(Source.FRAC),
    Op.INTP: _lanes(Source.INTP),
    Op.UNSCALE: _lanes(Source.UNSCALE),
    Op.RESCALE: _lanes(Source.RESCALE),
    Op.XCHANGEX: _one_lane(0, _KEEP_B, _KEEP_A),
    Op.XCHANGEY: _one_lane(1, _KEEP_B, _KEEP_A),
    Op.XCHANGEZ: _one_lane(2, _KEEP_B, _KEEP_A),
    Op.LEA: _lanes(Source.LEA),
    Op.SETX: _one_lane(0, (Source.IMM, Operand.A, Operand.B, False), _KEEP_B),
    Op.SETY: _one_lane(1, (Source.IMM, Operand.A, Operand.B, False), _KEEP_B),
    Op.SETZ: _one_lane(2, (Source.IMM, Operand.A, Operand.B, False), _KEEP_B),
    Op.SWIZZLE3D: _lanes(Source.SWIZZLE),
}
assert set(SIMPLE_RECIPES) == {op for op, c in CLASS_OF.items() if c == LatencyClass.SIMPLE}, \
    "every SIMPLE-class opcode of hdl.isa needs a recipe"

FRACTION_MASK = ONE - 1


class OtherSource(data.Struct):
    """Which value a SIMPLE lane's ``other`` (every result but the adder's) is, one-hot (so that
    the multiplexer is an AND-OR of flags decoded a stage ahead); none for ZERO and the sums."""
    a: 1                   # (also MOD: a, and'ed with the sum)
    b: 1
    frac: 1
    intp: 1
    unscale: 1
    rescale: 1
    lea: 1
    imm: 1
    swizzle: 1


#: the OtherSource flag of each source that has one
_OTHER_FLAG = {Source.A: "a", Source.MOD: "a", Source.B: "b", Source.FRAC: "frac",
               Source.INTP: "intp", Source.UNSCALE: "unscale", Source.RESCALE: "rescale",
               Source.LEA: "lea", Source.IMM: "imm", Source.SWIZZLE: "swizzle"}


class SimpleLane(data.Struct):
    """How one lane of the SIMPLE class makes its result (a recipe of SIMPLE_RECIPES)."""
    source: Source
    other: OtherSource     # (``source`` again, one-hot for the ``other`` multiplexer)
    lhs: Operand           # the lane adder's operands
    rhs: Operand
    subtract: 1
    swizzle_from: 3        # SWIZZLE3D: the lane of B that this lane takes (one-hot: x, y, z)


#: the SIMPLE class's control: lanes x, y, z
SimpleControl = data.ArrayLayout(SimpleLane, 3)


def simple_control(m, op, imm):
    """The SimpleControl of opcode ``op`` with immediate ``imm`` (SWIZZLE3D's selector), as
    combinational logic in ``m``. A non-SIMPLE opcode gives source ZERO in every lane."""
    control = Signal(SimpleControl)
    with m.Switch(op):
        for recipe_op, recipes in SIMPLE_RECIPES.items():
            with m.Case(recipe_op):
                for lane, (src, lhs, rhs, sub) in enumerate(recipes):
                    m.d.comb += [control[lane].source.eq(src), control[lane].lhs.eq(lhs),
                                 control[lane].rhs.eq(rhs), control[lane].subtract.eq(sub)]
                    if src in _OTHER_FLAG:
                        m.d.comb += getattr(control[lane].other, _OTHER_FLAG[src]).eq(1)
        with m.Default():
            m.d.comb += [control[lane].source.eq(Source.ZERO) for lane in range(3)]
    # (selectors >= 22 are illegal; the core stops on them, any value will do)
    with m.Switch(imm[:5]):
        for selector, (_, sources) in SWIZZLES.items():
            with m.Case(selector):
                m.d.comb += [control[lane].swizzle_from.eq(1 << s)
                             for lane, s in enumerate(sources)]
    return control


def fix_of(value, sign_bit):
    """theia-isa.md §4 fix: the true sign (bit ``sign_bit`` of a wide enough two's complement
    result) and the low 31 bits."""
    return Cat(value[:31], value[sign_bit])


class SimpleUnit(wiring.Component):
    """Ports: ``i_valid``, ``i_control`` (SimpleControl), ``i_a``, ``i_b``, ``i_imm`` (SETx,
    SWIZZLE3D), ``i_pc`` (LEA), ``i_tag``; ``o_valid``, ``o_result``, ``o_tag`` ``latency``
    cycles later. A non-SIMPLE control (source ZERO) yields (0, 0, 0)."""

    def __init__(self, latency, tag_width=0):
        if latency not in (1, 2):
            raise ValueError(f"a SIMPLE latency is 1 or 2, not {latency!r}")
        self.latency = latency
        self.tag_width = tag_width
        super().__init__({
            "i_valid": In(1), "i_control": In(SimpleControl), "i_a": In(VectorLayout),
            "i_b": In(VectorLayout), "i_imm": In(32), "i_pc": In(16), "i_tag": In(tag_width),
            "o_valid": Out(1), "o_result": Out(VectorLayout), "o_tag": Out(tag_width),
        })

    def elaborate(self, platform):
        m = Module()
        a, b = self.i_a, self.i_b

        def before_adder(value, name, reset_less=True):
            """``value`` as the adders see it: registered with latency 2."""
            if self.latency == 1:
                return value
            staged = Signal.like(value, name=f"simple_early_{name}", reset_less=reset_less)
            m.d.sync += staged.eq(value)
            return staged

        valid = Signal()
        tag = Signal(self.tag_width, reset_less=True)
        m.d.sync += [valid.eq(before_adder(self.i_valid, "valid", reset_less=False)),
                     tag.eq(before_adder(self.i_tag, "tag"))]
        m.d.comb += [self.o_valid.eq(valid), self.o_tag.eq(tag)]
        lea = (self.i_pc + 1)[:17]
        for lane, name in enumerate(LANES):
            a_l, b_l = getattr(a, name), getattr(b, name)
            ctl = self.i_control[lane]

            def operand(sel):
                value = Signal(32, name=f"operand_{name}")
                with m.Switch(sel):
                    with m.Case(Operand.A):
                        m.d.comb += value.eq(a_l)
                    with m.Case(Operand.B):
                        m.d.comb += value.eq(b_l)
                    with m.Case(Operand.ONE):
                        m.d.comb += value.eq(ONE)
                return value

            lhs = before_adder(operand(ctl.lhs), f"lhs_{name}")
            rhs = before_adder(operand(ctl.rhs), f"rhs_{name}")
            # ``other``: every other source's value (0 for ZERO; MOD's mask a, and'ed with the
            # sum), an AND-OR over one-hot flags. The adder's results join in the last
            # multiplexer: the sum is the late signal (a 33-bit carry chain)
            swizzled = or_all(Mux(ctl.swizzle_from[n], lane_b, 0)
                              for n, lane_b in enumerate((b.x, b.y, b.z)))
            other = Signal(32, name=f"simple_other_{name}")
            other_values = {
                "a": a_l, "b": b_l,
                "frac": a_l & FRACTION_MASK, "intp": a_l & ~FRACTION_MASK,
                "unscale": (a_l.as_signed() >> SCALE)[:32], "rescale": (a_l << SCALE)[:32],
                "lea": lea, "imm": self.i_imm, "swizzle": swizzled,
            }
            m.d.comb += other.eq(or_all(Mux(getattr(ctl.other, flag), value, 0)
                                        for flag, value in other_values.items()))
            other = before_adder(other, f"other_{name}")
            ctl = before_adder(ctl, f"control_{name}")
            # sign-extended 33-bit lhs +/- rhs: bit 32 is the true sign that fix keeps
            total = add_sub(m, Cat(lhs, lhs[31]), Cat(rhs, rhs[31]), ctl.subtract,
                            platform=platform, name=f"sum_{name}")
            is_sum = Signal(name=f"is_sum_{name}")
            is_mod = Signal(name=f"is_mod_{name}")
            m.d.comb += [is_sum.eq((ctl.source == Source.FIX_SUM)
                                   | (ctl.source == Source.RAW_SUM)),
                         is_mod.eq(ctl.source == Source.MOD)]
            sum_word = Mux(ctl.source == Source.FIX_SUM, fix_of(total, 32), total[:32])
            result = Mux(is_sum, sum_word, Mux(is_mod, other & total[:32], other))
            lane_result = Signal(32, name=f"simple_{name}", reset_less=True)
            m.d.sync += lane_result.eq(result)
            m.d.comb += getattr(self.o_result, name).eq(lane_result)
        return m
