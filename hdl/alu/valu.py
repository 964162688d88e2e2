"""The THEIA vector ALU: every ALU-kind opcode of hdl.isa, bit exact to ``sim.semantics.alu_result``.

One operation may enter every cycle; nothing ever stalls. Each opcode belongs to a latency class,
a fixed-latency pipeline; the output is the merge of the classes' last stages. The issuer (the
core) must not start an operation whose result would leave in the same cycle as an earlier one's:
it reserves writeback slots using ``VectorALU.latency(op)``. Should two results meet anyway, the
sticky ``collision`` output goes high (the tests check it stays low).

Latency classes (cycles from ``i_valid`` to ``o_valid``; defaults in brackets):

* SIMPLE [simple_latency = 1]: ADD SUB INC DEC INCX/Y/Z COPY ZERO MOD FRAC INTP NEG XCHANGEX/Y/Z
  UNSCALE RESCALE LEA SETX/Y/Z SWIZZLE3D - one adder per lane plus a result select, then the
  output register. With ``simple_latency=2`` the adders' operands (and the other sources'
  value) are registered first. How each lane makes its result (``SimpleControl``) is decoded
  from the opcode by the ALU, or (``predecoded=True``) by the issuer a stage earlier with
  ``simple_control`` and given on ``i_simple``. Both shorten the loop ALU result -> the
  issuer's forwarding -> operand select -> adder -> result select (the 1-core board top's
  critical path; with four cores the worst path group, docs/fpga.md).
* MULTIPLY [Multiplier.LATENCY = 3]: MUL IMUL MULP - the lane multipliers' low 32 bits.
* PRODUCT_SUM [Multiplier.LATENCY + 1 = 4]: DOT - one more stage adds the three 64-bit products
  (a carry-save sum) and takes ``fix``.
* CROSS [Multiplier.LATENCY + cross_passes = 4]: CROSS - the same stage subtracts the two
  products of each lane. With ``cross_passes=1`` six multipliers make all six products at once;
  with ``cross_passes=2`` three multipliers make them in two cycles (the minuends, then the
  subtrahends: latency 5), and ``mul_ready`` is low in the cycle after a CROSS (the issuer must
  not send MUL, IMUL, MULP, DOT, CROSS or MAG then: ``MULTIPLIER_OPS``). Half the DSP blocks:
  on the ECP5 a core's 24 MULT18X18D spread it along half a DSP row (docs/fpga.md).
* DIVIDE [Divider latency = 26 with 2 quotient bits per stage]: DIV - three lane dividers; or,
  with ``dividers=1``, one divider shared by the lanes (hdl/alu/serial_divider.py, latency 28): a
  DIV of uniform operands still takes one cycle, any other holds ``div_ready`` low for the two
  cycles after it (the issuer must not send a DIV while ``div_ready`` is low). With
  ``dividers=0`` the ALU has no divider: DIVs go out over the ``div`` port to one shared by
  several ALUs in time slots (hdl/alu/shared_divider.py; latency 32: the request is registered
  where it arrives, lanes y and z follow lane x in the ALU's next two slots, the quotient is
  registered on its way back in; ``div_ready`` is low outside the ALU's slots and in those
  slots lanes y and z take).
* MAGNITUDE [Multiplier.LATENCY + 1 + SquareRoot latency = 3 + 1 + 31 = 35]: MAG - the squares
  come from the lane multipliers, their sum from the PRODUCT_SUM stage, then the square root.
  With ``serial_sqrt=True`` the square root computes one root bit per cycle
  (hdl/alu/serial_sqrt.py, same latency, a sixth of the logic): a MAG holds ``mag_ready`` low for the
  30 cycles after it (the issuer must not send a MAG while it is low).

Lanes x, y, z use multipliers 0, 1, 2 for MUL/IMUL/DOT/MAG (MULP uses 2 only); CROSS needs two
products per lane: multipliers 3, 4, 5 supply the subtrahends, or (``cross_passes=2``)
multipliers 0, 1, 2 in the cycle after the minuends. The products
are at most 2**45 in magnitude (scaled), so the sum stage works on 48 bits: exact for ``fix``
(the sign is bit 47 of the 48-bit sum) and for the MAG radicand (below 3 * 2**45).

Ports: in ``i_valid``, ``i_op[7]`` (an ``hdl.isa.Op`` value), ``i_a``, ``i_b`` (VectorLayout),
``i_imm[32]`` (SETx value, SWIZZLE3D selector), ``i_pc[16]`` (LEA), ``i_tag[tag_width]``,
with ``predecoded=True`` ``i_simple`` (SimpleControl: ``simple_control(i_op, i_imm)``) and
``i_class`` (OpClass: ``op_class(i_op)``);
out ``o_valid``, ``o_result`` (VectorLayout, the full vector: the lane write mask
``OPS[op].wmask`` is the core's business), ``o_tag``, ``collision`` (sticky; also set by a MAG
sent while ``mag_ready`` is low, or a multiplier operation while ``mul_ready`` is low),
``div_ready`` (always 1 with three dividers), ``mag_ready`` (always 1 with the pipelined square
root), ``mul_ready`` (always 1 with ``cross_passes=1``).
A non-ALU opcode sent with ``i_valid`` goes down the SIMPLE class and yields (0, 0, 0).

Measured with tag_width = 8 and the defaults, before the multiplier worked on signed
operands (Yosys synth_ecp5 + nextpnr-ecp5 out of context, LFE5U-85F speed 6): 24 MULT18X18D,
7.9k LUT4 + 2.7k CCU2C (14.2k TRELLIS_COMB), 9.3k FF, ~100 MHz (critical path: two chained
divider steps). The three dividers are ~60% of the logic. The core's configuration
(``dividers=1, serial_sqrt=True``), Yosys synth_ecp5: 4.6k LUT4 + 1.0k CCU2C, 3.9k FF.
"""

from enum import Enum

from amaranth import Cat, Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from hdl.lib.arith import add_sub
from hdl.alu.divider import Divider, divider_latency
from hdl.alu.serial_divider import SerialDivider, serial_divider_latency, divider_passes
from hdl.isa import LANES, ONE, OPS, SCALE, SWIZZLES, Kind, Op, VectorLayout
from hdl.alu.multiplier import Multiplier, carry_save_add
from hdl.alu.sqrt import S_WIDTH, SquareRoot, sqrt_latency
from hdl.alu.serial_sqrt import SerialSquareRoot
from hdl.alu.shared_divider import divider_link, shared_divider_latency

__all__ = ["VectorALU", "LatencyClass", "LATENCY_CLASSES", "CLASS_OF", "ALU_OPS",
           "MULTIPLIER_OPS", "SimpleControl", "simple_control", "OpClass", "op_class"]


class LatencyClass(Enum):
    SIMPLE = "simple"
    MULTIPLY = "multiply"
    PRODUCT_SUM = "product_sum"
    CROSS = "cross"
    DIVIDE = "divide"
    MAGNITUDE = "magnitude"


ALU_OPS = tuple(op for op, info in OPS.items() if info.kind == Kind.ALU)

_NOT_SIMPLE = {
    Op.MUL: LatencyClass.MULTIPLY, Op.IMUL: LatencyClass.MULTIPLY, Op.MULP: LatencyClass.MULTIPLY,
    Op.DOT: LatencyClass.PRODUCT_SUM, Op.CROSS: LatencyClass.CROSS,
    Op.DIV: LatencyClass.DIVIDE,
    Op.MAG: LatencyClass.MAGNITUDE,
}
#: the latency class of every ALU-kind opcode
CLASS_OF = {op: _NOT_SIMPLE.get(op, LatencyClass.SIMPLE) for op in ALU_OPS}
#: the opcodes that use the lane multipliers
MULTIPLIER_OPS = frozenset(op for op, c in CLASS_OF.items()
                           if c in (LatencyClass.MULTIPLY, LatencyClass.PRODUCT_SUM,
                                    LatencyClass.CROSS, LatencyClass.MAGNITUDE))

#: what each class is, and how its latency follows from the units'
LATENCY_CLASSES = {
    LatencyClass.SIMPLE: "simple_latency: lane adder + result select, registered (2: the "
                         "adders' operands registered first)",
    LatencyClass.MULTIPLY: "Multiplier.LATENCY: low 32 bits of the lane products",
    LatencyClass.PRODUCT_SUM: "Multiplier.LATENCY + 1: sum of 64-bit products, fix",
    LatencyClass.CROSS: "Multiplier.LATENCY + cross_passes: difference of 64-bit products, fix",
    LatencyClass.DIVIDE: "Divider(bits_per_stage).latency: three lane dividers "
                         "(+ 2 for one divider shared by the lanes)",
    LatencyClass.MAGNITUDE: "Multiplier.LATENCY + 1 + SquareRoot(bits_per_stage).latency",
}


# --- SIMPLE class: per-lane recipe of every simple opcode -----------------------------------------
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


class OpClass(data.Struct):
    """Which unit an ALU opcode uses and how (one-hot where it can be): what the ALU's issue
    logic and the multipliers' operand selects look at, decoded from the opcode by the ALU or
    (``predecoded=True``) a stage earlier by the issuer, ``op_class``."""
    simple: 1             # a SIMPLE-class opcode (or a non-ALU one: it goes down SIMPLE too)
    multiply: 1           # MUL, IMUL, MULP
    unscaled: 1           # IMUL
    mulp: 1
    cross: 1
    dot: 1
    mag: 1
    div: 1


def op_class(op):
    """The OpClass value of opcode ``op`` (an Amaranth value)."""
    def one_of(*ops):
        return Cat(op == o for o in ops).any()
    return Cat(~one_of(*_NOT_SIMPLE), one_of(Op.MUL, Op.IMUL, Op.MULP), op == Op.IMUL,
               op == Op.MULP, op == Op.CROSS, op == Op.DOT, op == Op.MAG, op == Op.DIV)


def fix_of(value, sign_bit):
    """theia-isa.md §4 fix: the true sign (bit ``sign_bit`` of a wide enough two's complement
    result) and the low 31 bits."""
    return Cat(value[:31], value[sign_bit])


class VectorALU(wiring.Component):
    """See the module docstring. ``latency(op)`` gives the cycles from ``i_valid`` to
    ``o_valid`` for an ALU-kind opcode; ``latencies`` maps each LatencyClass to its latency."""

    def __init__(self, tag_width=8, div_bits_per_stage=2, sqrt_bits_per_stage=1,
                 isolate_idle_units=False, dividers=3, serial_sqrt=False, cross_passes=1,
                 predecoded=False, simple_latency=1):
        if dividers not in (0, 1, 3):
            raise ValueError(f"dividers must be 0, 1 or 3, not {dividers!r}")
        if cross_passes not in (1, 2):
            raise ValueError(f"cross_passes must be 1 or 2, not {cross_passes!r}")
        if simple_latency not in (1, 2):
            raise ValueError(f"simple_latency must be 1 or 2, not {simple_latency!r}")
        self.cross_passes = cross_passes
        self.predecoded = predecoded
        self.tag_width = tag_width
        self.dividers = dividers
        self.serial_sqrt = serial_sqrt
        self.isolate_idle_units = isolate_idle_units
        self.div_bits_per_stage = div_bits_per_stage
        self.sqrt_bits_per_stage = sqrt_bits_per_stage
        if dividers == 3:
            div_latency = divider_latency(div_bits_per_stage)
        elif dividers == 1:
            div_latency = serial_divider_latency(div_bits_per_stage)
        else:       # a shared one, whose quotient is registered here as it arrives: +1
            div_latency = shared_divider_latency(div_bits_per_stage) + 1
        root_latency = (SerialSquareRoot.LATENCY if serial_sqrt
                        else sqrt_latency(sqrt_bits_per_stage))
        self.latencies = {
            LatencyClass.SIMPLE: simple_latency,
            LatencyClass.MULTIPLY: Multiplier.LATENCY,
            LatencyClass.PRODUCT_SUM: Multiplier.LATENCY + 1,
            LatencyClass.CROSS: Multiplier.LATENCY + cross_passes,
            LatencyClass.DIVIDE: div_latency,
            LatencyClass.MAGNITUDE: Multiplier.LATENCY + 1 + root_latency,
        }
        self.max_latency = max(self.latencies.values())
        members = {
            "i_valid": In(1), "i_op": In(7), "i_a": In(VectorLayout), "i_b": In(VectorLayout),
            "i_imm": In(32), "i_pc": In(16), "i_tag": In(tag_width),
            "o_valid": Out(1), "o_result": Out(VectorLayout), "o_tag": Out(tag_width),
            "collision": Out(1), "div_ready": Out(1), "mag_ready": Out(1), "mul_ready": Out(1),
        }
        if dividers == 0:
            if tag_width:
                raise ValueError("a vector ALU without a divider of its own (dividers=0) "
                                 "takes no tag")
            members["div"] = Out(divider_link())
        if predecoded:
            members["i_simple"] = In(SimpleControl)
            members["i_class"] = In(OpClass)
        super().__init__(members)

    def latency(self, op):
        """Cycles from issue to result of an ALU-kind opcode (ValueError for any other)."""
        try:
            return self.latencies[CLASS_OF[Op(op)]]
        except (KeyError, ValueError):
            raise ValueError(f"opcode {op!r} is not an ALU-kind opcode of hdl.isa") from None

    def divider_cycles(self, a, b):
        """Cycles a DIV of operand vectors ``a``, ``b`` keeps the next DIV out (reference of
        ``div_ready`` with a divider of the ALU's own; a shared one's ``ready`` follows its
        slots, hdl/alu/shared_divider.py)."""
        return 1 if self.dividers == 3 else divider_passes(a, b)

    def mag_cycles(self):
        """Cycles a MAG keeps the next MAG out (reference of ``mag_ready``)."""
        return SerialSquareRoot.BUSY_CYCLES + 1 if self.serial_sqrt else 1

    def multiplier_cycles(self, op):
        """Cycles an operation keeps the next one of MULTIPLIER_OPS out (reference of
        ``mul_ready``)."""
        return self.cross_passes if op == Op.CROSS else 1

    def elaborate(self, platform):
        m = Module()
        op, a, b = self.i_op, self.i_a, self.i_b
        a_lanes = [a.x, a.y, a.z]
        b_lanes = [b.x, b.y, b.z]

        # which unit, and how (from the issuer's flip-flops when predecoded: the opcode's
        # compares are then not in front of the multipliers' operand multiplexers)
        if self.predecoded:
            cls = self.i_class
        else:
            cls = Signal(OpClass)
            m.d.comb += cls.eq(op_class(op))

        def isolate(enable, value):
            """Operand isolation (option): a unit's inputs held at 0 unless it is issued an
            operation, so idle pipelines do not toggle. Halves the Python simulation time of
            single-opcode streams, but costs ~0.9k LUT4 on ECP5 (Yosys can then no longer
            share the |a| / |b| negations of the dividers and multipliers), so it is off by
            default."""
            return Mux(enable, value, 0) if self.isolate_idle_units else value

        # one (valid, result lanes, tag) per class output, merged at the end
        outputs = []

        # --- SIMPLE ---------------------------------------------------------------------------
        # With simple_latency=2 everything in front of the lane adders is registered (the
        # operands chosen, the other sources' value, the lanes' control): the loop ALU result
        # -> the issuer's forwarding -> operand select -> adder -> result select -> ALU result
        # is cut in two, at the cost of a cycle for each SIMPLE result.
        simple_stages = self.latencies[LatencyClass.SIMPLE]

        def before_adder(value, name, reset_less=True):
            """``value`` as the SIMPLE class's adders see it: registered with latency 2."""
            if simple_stages == 1:
                return value
            staged = Signal.like(value, name=f"simple_early_{name}", reset_less=reset_less)
            m.d.sync += staged.eq(value)
            return staged

        simple_valid = Signal()
        simple_tag = Signal(self.tag_width, reset_less=True)
        simple_result = [Signal(32, name=f"simple_{n}", reset_less=True) for n in LANES]
        # a non-ALU opcode also takes the SIMPLE path (result 0) so that o_valid answers it
        entering = Signal()
        m.d.comb += entering.eq(self.i_valid & cls.simple)
        m.d.sync += [simple_valid.eq(before_adder(entering, "valid", reset_less=False)),
                     simple_tag.eq(before_adder(self.i_tag, "tag"))]
        control = self.i_simple if self.predecoded else simple_control(m, op, self.i_imm)

        lea = (self.i_pc + 1)[:17]
        for lane, name in enumerate(LANES):
            a_l, b_l = a_lanes[lane], b_lanes[lane]
            ctl = control[lane]

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
            swizzled = _or_all(Mux(ctl.swizzle_from[n], lane_b, 0)
                               for n, lane_b in enumerate((b.x, b.y, b.z)))
            other = Signal(32, name=f"simple_other_{name}")
            other_values = {
                "a": a_l, "b": b_l,
                "frac": a_l & FRACTION_MASK, "intp": a_l & ~FRACTION_MASK,
                "unscale": (a_l.as_signed() >> SCALE)[:32], "rescale": (a_l << SCALE)[:32],
                "lea": lea, "imm": self.i_imm, "swizzle": swizzled,
            }
            m.d.comb += other.eq(_or_all(Mux(getattr(ctl.other, flag), value, 0)
                                         for flag, value in other_values.items()))
            other = before_adder(other, f"other_{name}")
            ctl = before_adder(ctl, f"control_{name}")
            # sign-extended 33-bit lhs +/- rhs: bit 32 is the true sign that fix keeps
            # (one carry chain for both on ECP5, hdl/lib/arith.py)
            total = add_sub(m, Cat(lhs, lhs[31]), Cat(rhs, rhs[31]), ctl.subtract,
                            platform=platform, name=f"sum_{name}")
            is_sum = Signal(name=f"is_sum_{name}")
            is_mod = Signal(name=f"is_mod_{name}")
            m.d.comb += [is_sum.eq((ctl.source == Source.FIX_SUM)
                                   | (ctl.source == Source.RAW_SUM)),
                         is_mod.eq(ctl.source == Source.MOD)]
            sum_word = Mux(ctl.source == Source.FIX_SUM, fix_of(total, 32), total[:32])
            result = Mux(is_sum, sum_word, Mux(is_mod, other & total[:32], other))
            m.d.sync += simple_result[lane].eq(result)
        outputs.append((LatencyClass.SIMPLE, simple_valid, simple_result, simple_tag))

        # --- multipliers (MULTIPLY, PRODUCT_SUM, MAGNITUDE) -------------------------------------
        is_mulp, is_cross, is_dot, is_mag = cls.mulp, cls.cross, cls.dot, cls.mag
        is_multiply = cls.multiply
        two_pass = self.cross_passes == 2
        # (``second``: the subtrahends' pass of a two-pass CROSS)
        second = Signal()

        def tag_flags(multiply=0, mulp=0, cross=0, dot=0, mag=0, second=0):
            """What multiplier 0 carries beside the tag: which operation its products are."""
            return Cat(multiply, mulp, cross, dot, mag, second)
        flags = tag_flags(is_multiply, is_mulp, is_cross, is_dot, is_mag, second)
        multipliers = []
        for n in range(3 if two_pass else 6):
            mul = Multiplier(tag_width=self.tag_width + len(flags) if n == 0 else 0)
            m.submodules[f"multiplier{n}"] = mul
            multipliers.append(mul)
        multiply_issue = self.i_valid & (is_multiply | is_cross | is_dot | is_mag)
        cross_issue = self.i_valid & is_cross
        ax, ay, az = a_lanes
        bx, by, bz = b_lanes
        subtrahends = [(az, by), (ax, bz), (ay, bx)]
        lane_inputs = []
        # (default operands, CROSS operands); MAG squares a; MULP is ax * ay on lane z
        for lane, (cross_a, cross_b) in enumerate([(ay, bz), (az, bx), (ax, by)]):
            a_in = Mux(is_cross, cross_a, a_lanes[lane])
            b_in = Mux(is_cross, cross_b, Mux(is_mag, a_lanes[lane], b_lanes[lane]))
            if lane == 2:                       # MULP: ax * ay, lane z only
                a_in = Mux(is_mulp, ax, a_in)
                b_in = Mux(is_mulp, ay, b_in)
            lane_inputs.append((isolate(multiply_issue, a_in), isolate(multiply_issue, b_in),
                                ~cls.unscaled))
        if two_pass:
            # the subtrahends wait a cycle in registers; meanwhile nothing else may use the
            # multipliers (``mul_ready``, a flip-flop: it feeds the core's issue decision)
            held = [(Signal(32, name=f"cross_{LANES[n]}_a", reset_less=True),
                     Signal(32, name=f"cross_{LANES[n]}_b", reset_less=True)) for n in range(3)]
            held_tag = Signal(self.tag_width, reset_less=True)
            # loaded in every cycle a CROSS is offered, issued or not (the enable then comes
            # from the opcode's register, not from the issue decision: ~200 flip-flops), and
            # so last in the cycle it issues
            with m.If(is_cross):
                m.d.sync += [h.eq(v) for pair, sub in zip(held, subtrahends)
                             for h, v in zip(pair, sub)]
                m.d.sync += held_tag.eq(self.i_tag)
            m.d.sync += second.eq(cross_issue)
            # mul_ready = ~second, a flip-flop of its own: ``second`` also picks the ~200
            # multiplier operands, and that fan-out's route was in front of the core's issue
            # decision (stored inverted, so that synthesis does not merge the two)
            mul_ready = Signal(init=1)
            m.d.sync += mul_ready.eq(~cross_issue)
            m.d.comb += self.mul_ready.eq(mul_ready)
            with m.If(second & multiply_issue):
                m.d.sync += self.collision.eq(1)
            for mul, (a_in, b_in, scaled), (held_a, held_b) in zip(multipliers, lane_inputs,
                                                                   held):
                m.d.comb += [mul.i_a.eq(Mux(second, held_a, a_in)),
                             mul.i_b.eq(Mux(second, held_b, b_in)),
                             mul.i_scaled.eq(second | scaled)]
            m.d.comb += [
                multipliers[0].i_tag.eq(Mux(second, Cat(held_tag, tag_flags(cross=1, second=1)),
                                            Cat(self.i_tag, flags))),
                multipliers[0].i_valid.eq(multiply_issue | second),
            ]
        else:
            m.d.comb += self.mul_ready.eq(1)
            for mul, (a_in, b_in, scaled) in zip(multipliers, lane_inputs):
                m.d.comb += [mul.i_a.eq(a_in), mul.i_b.eq(b_in), mul.i_scaled.eq(scaled)]
            for mul, (sub_a, sub_b) in zip(multipliers[3:], subtrahends):
                m.d.comb += [mul.i_valid.eq(cross_issue),
                             mul.i_a.eq(isolate(cross_issue, sub_a)),
                             mul.i_b.eq(isolate(cross_issue, sub_b)), mul.i_scaled.eq(1)]
            m.d.comb += [multipliers[0].i_tag.eq(Cat(self.i_tag, flags)),
                         multipliers[0].i_valid.eq(multiply_issue)]

        mul_tag = multipliers[0].o_tag[:self.tag_width]
        (out_multiply, out_mulp, out_cross, out_dot, out_mag, out_second) = \
            multipliers[0].o_tag[self.tag_width:]
        products = [mul.o_p for mul in multipliers]
        low_words = [Mux(out_mulp, 0, products[0][:32]), Mux(out_mulp, 0, products[1][:32]),
                     products[2][:32]]
        outputs.append((LatencyClass.MULTIPLY, multipliers[0].o_valid & out_multiply,
                        low_words, mul_tag))

        # --- PRODUCT_SUM and CROSS: DOT and CROSS results, and the MAG radicand -----------------
        SUM_WIDTH = 48
        wide = [p[:SUM_WIDTH] for p in products]
        dot_sum = Signal(SUM_WIDTH, name="dot_sum")
        m.d.comb += dot_sum.eq(carry_save_add(m, wide[0], wide[1], wide[2], SUM_WIDTH))
        if two_pass:
            # the minuends come out a cycle before the subtrahends: kept for that cycle
            minuends = [Signal(SUM_WIDTH, name=f"minuend_{n}", reset_less=True) for n in LANES]
            m.d.sync += [kept.eq(w) for kept, w in zip(minuends, wide)]
            cross_pairs = list(zip(minuends, wide))
            cross_done = out_cross & out_second
        else:
            cross_pairs = list(zip(wide, wide[3:]))
            cross_done = out_cross
        sum_valid = Signal()
        sum_is_mag = Signal(reset_less=True)
        sum_tag = Signal(self.tag_width, reset_less=True)
        sum_result = [Signal(32, name=f"sum_{n}", reset_less=True) for n in LANES]
        radicand = Signal(S_WIDTH, reset_less=True)
        m.d.sync += [
            sum_valid.eq(multipliers[0].o_valid & (cross_done | out_dot | out_mag)),
            sum_is_mag.eq(out_mag), sum_tag.eq(mul_tag),
            radicand.eq(isolate(out_mag, dot_sum[:S_WIDTH])),
        ]
        for lane, (minuend, subtrahend) in enumerate(cross_pairs):
            difference = (minuend - subtrahend)[:SUM_WIDTH]
            m.d.sync += sum_result[lane].eq(Mux(out_cross, fix_of(difference, SUM_WIDTH - 1),
                                                fix_of(dot_sum, SUM_WIDTH - 1)))
        # (DOT and CROSS leave through the same register: their latencies differ, so the
        # issuer's write-port reservation keeps them apart)
        outputs.append((LatencyClass.PRODUCT_SUM, sum_valid & ~sum_is_mag, sum_result, sum_tag))

        # --- MAGNITUDE ---------------------------------------------------------------------------
        if self.serial_sqrt:
            root = SerialSquareRoot(tag_width=self.tag_width)
            # a MAG's radicand reaches the square root Multiplier.LATENCY + 1 cycles after the
            # MAG issues, so the next MAG may issue mag_cycles() after it: counted at issue
            # (``mag_ready`` is a flip-flop: it feeds the core's issue decision)
            mag_wait = Signal(range(SerialSquareRoot.BUSY_CYCLES + 1))
            mag_ready = Signal(init=1)
            with m.If(self.i_valid & cls.mag):
                m.d.sync += [mag_wait.eq(SerialSquareRoot.BUSY_CYCLES), mag_ready.eq(0)]
            with m.Elif(mag_wait != 0):
                m.d.sync += [mag_wait.eq(mag_wait - 1), mag_ready.eq(mag_wait == 1)]
            m.d.comb += self.mag_ready.eq(mag_ready)
            with m.If(root.overrun):
                m.d.sync += self.collision.eq(1)
        else:
            root = SquareRoot(tag_width=self.tag_width, bits_per_stage=self.sqrt_bits_per_stage)
            m.d.comb += self.mag_ready.eq(1)
        m.submodules.sqrt = root
        m.d.comb += [root.i_valid.eq(sum_valid & sum_is_mag), root.i_s.eq(radicand),
                     root.i_tag.eq(sum_tag)]
        outputs.append((LatencyClass.MAGNITUDE, root.o_valid, [root.o_root] * 3, root.o_tag))

        # --- DIVIDE ------------------------------------------------------------------------------
        divide_issue = self.i_valid & cls.div
        if self.dividers == 0:
            # a shared divider outside (hdl/alu/shared_divider.py), no tag (the quotient comes back
            # to this ALU only). The quotient is registered as it arrives, a cycle more: the
            # divider sits between two cores, and its route was in front of this ALU's result
            # multiplexer, the forwarding and every operand register of the ALU
            link = self.div
            m.d.comb += [link.valid.eq(divide_issue), link.a.eq(isolate(divide_issue, a)),
                         link.b.eq(isolate(divide_issue, b)), self.div_ready.eq(link.ready)]
            # (loaded only with this ALU's quotients: the clients of a divider get the same
            # result wires, and synthesis merged their identical registers into one between
            # the cores)
            quotient_valid = Signal()
            quotient = Signal(VectorLayout, reset_less=True)
            m.d.sync += quotient_valid.eq(link.result_valid)
            with m.If(link.result_valid):
                m.d.sync += quotient.eq(link.result)
            outputs.append((LatencyClass.DIVIDE, quotient_valid,
                            [quotient.x, quotient.y, quotient.z], Signal(0)))
        elif self.dividers == 1:
            m.submodules.divider = div = SerialDivider(self.tag_width, self.div_bits_per_stage)
            m.d.comb += [div.i_valid.eq(divide_issue), div.i_tag.eq(self.i_tag),
                         div.i_a.eq(isolate(divide_issue, a)),
                         div.i_b.eq(isolate(divide_issue, b)),
                         self.div_ready.eq(div.o_ready)]
            outputs.append((LatencyClass.DIVIDE, div.o_valid, [div.o_q.x, div.o_q.y, div.o_q.z],
                            div.o_tag))
        else:
            dividers = []
            for lane in range(3):
                div = Divider(tag_width=self.tag_width if lane == 0 else 0,
                              bits_per_stage=self.div_bits_per_stage)
                m.submodules[f"divider_{LANES[lane]}"] = div
                m.d.comb += [div.i_valid.eq(divide_issue),
                             div.i_a.eq(isolate(divide_issue, a_lanes[lane])),
                             div.i_b.eq(isolate(divide_issue, b_lanes[lane]))]
                dividers.append(div)
            m.d.comb += [dividers[0].i_tag.eq(self.i_tag), self.div_ready.eq(1)]
            outputs.append((LatencyClass.DIVIDE, dividers[0].o_valid,
                            [div.o_q for div in dividers], dividers[0].o_tag))

        # --- merge: at most one class completes per cycle (the issuer's promise) ----------------
        for cls, _, _, _ in outputs:
            assert cls in self.latencies
        valids = Cat(v for _, v, _, _ in outputs)
        m.d.comb += self.o_valid.eq(valids.any())
        for lane, name in enumerate(LANES):
            m.d.comb += getattr(self.o_result, name).eq(
                _or_all(Mux(v, lanes[lane], 0) for _, v, lanes, _ in outputs))
        m.d.comb += self.o_tag.eq(_or_all(Mux(v, t, 0) for _, v, _, t in outputs))
        several = Signal()
        m.d.comb += several.eq((valids & (valids - 1)).any())
        with m.If(several):
            m.d.sync += self.collision.eq(1)
        return m




def _or_all(values):
    values = list(values)
    result = values[0]
    for v in values[1:]:
        result = result | v
    return result
