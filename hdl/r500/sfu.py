"""The R500 core's special-function unit: ``sim.r500.sfu`` bit for bit (r500-us.md §3.3).

EX2, LN2, RCP, RSQ, SIN and COS of a binary32 pattern, one per cycle, on one datapath: a range
reduction onto a fixed-point u, the 256-segment quadratic interpolator of
``hdl/r500/sfu_tables.py`` (the model's tables, the one copy), the exact-case selects and one
round to binary32 (docs/r500-arithmetic.md, docs/r500-rtl.md).

The interpolator's offset h is 15 to 17 bits by function; the RTL left-aligns it to 17 bits
(``OFFSET_BITS``), which makes t its top 12 bits for every table and C1's shift 13 for every
table: floor(C1 * h * 2^k / 2^(s1 + k)) = floor(C1 * h / 2^s1), so nothing changes.

Pipeline, LATENCY = 11 cycles, one new operation every cycle, never stalls (short stages:
every step that made a path of 14-17 ns inside the lane datapath on the ECP5 has its own):

1. flush; the operand's class (NaN, zero, infinity; EX2 of |A| >= 256); the signed
   significand and the distance of the argument shift;
2. the special results by class and function; A * 2^26 (SIN, COS) or A * 2^25 (EX2) with one
   more bit, as one arithmetic right shift of the signed significand placed at bit 27;
3. the rounding of that shift (+1, >> 1), COS's quarter turn in the same add;
4. EX2's whole part (its range: +inf, +0) and fraction, the turn's quadrant and mirror; u, the
   exact-case detects, the table address (the table's registered read is this stage's
   register for C0, C1, C2);
5. the 12 x 12 square; C0, C1, C2 registered;
6. C1 * h (18 x 17) and C2 * square (14 x 18), one DSP each, registered;
7. y = C0 + (C1 h >> 13) + (C2 t^2 >> s2), the exact-case select;
8. LN2's e + y, the magnitude and sign;
9. the leading-zero count;
10. the normalising shift, the biased exponent, the shift onto the 2^-149 grid (RCP of
    A >= 2^126 only);
11. round to nearest even, pack, infinity, flush, the special results.

``o_valid`` is ``i_valid`` delayed by LATENCY cycles; only the valid bits have a reset.
"""

from enum import IntEnum

from amaranth import Cat, Const, Module, Mux, Signal, signed, unsigned
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from hdl.isa import AlphaOp
from hdl.lib.pipeline import register_stage
from hdl.r500.fp32 import CANONICAL_NAN, NEG_INF, ONE, POS_INF, PipelinedUnit, fields, flush
from hdl.r500.fp_add import leading_zero_count
from hdl.r500.sfu_tables import (C1_BITS, C2_BITS, EX2_FRACTION_BITS, EX2_TABLE, INDEX_BITS,
                                 LN2_TABLE, RCP_TABLE, RESULT_BITS, RSQ_TABLE, SIN_TABLE,
                                 SQUARE_BITS, SQUARE_KEPT, TURN_BITS)

__all__ = ["SfuOp", "SpecialFunctionUnit"]

#: ``i_op``: the ALPHA_OP code minus 8, derived from the one table (``hdl.isa.AlphaOp.EX2`` ...
#: ``COS``). Codes 6 and 7 are no operation of the ISA; they compute SIN and COS.
SfuOp = IntEnum("SfuOp", {op.name: op - AlphaOp.EX2 for op in AlphaOp
                          if AlphaOp.EX2 <= op <= AlphaOp.COS})


#: the tables in ROM order: the address is table * 256 + segment
TABLE_ORDER = (RCP_TABLE, RSQ_TABLE, EX2_TABLE, LN2_TABLE, SIN_TABLE)
TABLE_RCP, TABLE_RSQ, TABLE_EX2, TABLE_LN2, TABLE_SIN = range(5)
#: the offset h as the RTL holds it, left-aligned (EX2's, the longest)
OFFSET_BITS = max(table.offset_bits for table in TABLE_ORDER)
C0_BITS = max(table.widths()[0] for table in TABLE_ORDER)
ENTRY_BITS = C0_BITS + C1_BITS + C2_BITS
#: C1's shift once h is left-aligned: the same for every table
C1_SHIFT = {table.c1_shift + OFFSET_BITS - table.offset_bits for table in TABLE_ORDER}.pop()
assert all(table.c1_shift + OFFSET_BITS - table.offset_bits == C1_SHIFT
           for table in TABLE_ORDER)
#: the significand's bit 0 sits at 2^SHIFT_BASE before the argument shift (the turn's one
#: extra rounding bit above TURN_BITS)
SHIFT_BASE = TURN_BITS + 1
#: V, the magnitude rounded in the end: LN2's |e + y| < 2^(8 + RESULT_BITS)
V_BITS = RESULT_BITS + 8
#: bits 0..STICKY_BITS-1 of the normalised V (64 bits) only matter as a sticky bit
STICKY_BITS = 64 - 24 - 3


#: the table each operation reads
OP_TABLE = {SfuOp.RCP: TABLE_RCP, SfuOp.RSQ: TABLE_RSQ, SfuOp.EX2: TABLE_EX2,
            SfuOp.LN2: TABLE_LN2, SfuOp.SIN: TABLE_SIN, SfuOp.COS: TABLE_SIN}


def table_rom(tables=range(len(TABLE_ORDER))):
    """The ROM words of ``tables`` (numbers in ``TABLE_ORDER``), one after the other: C0 | C1 <<
    C0_BITS | C2 << (C0_BITS + C1_BITS), two's complement."""
    words = []
    for number in tables:
        table = TABLE_ORDER[number]
        for c0, c1, c2 in zip(table.c0, table.c1, table.c2):
            words.append(c0 | (c1 & ((1 << C1_BITS) - 1)) << C0_BITS
                         | (c2 & ((1 << C2_BITS) - 1)) << (C0_BITS + C1_BITS))
    return words


class SpecialFunctionUnit(PipelinedUnit):
    """``o_result = op(a)`` (binary32 patterns, R500 rules), LATENCY cycles after ``i_valid``.

    ``ops``: the operations built, all by default. The ROM then holds only the tables they read
    (RCP alone: 256 words rather than 1280); an operation left out gives a meaningless result.
    """

    LATENCY = 11

    i_valid: In(1)
    i_op: In(3)
    i_a: In(32)
    o_valid: Out(1)
    o_result: Out(32)

    def __init__(self, ops=tuple(SfuOp)):
        self.ops = tuple(ops)
        #: the table numbers in the ROM, in ROM order
        self.tables = sorted({OP_TABLE[op] for op in self.ops})
        super().__init__()

    def elaborate(self, platform):
        m = Module()

        # The coefficients are a block RAM with a registered read (1280 x 62 bits for all the
        # tables: five DP16KD on the ECP5); a case ROM of 1280 words would cost thousands of
        # LUTs. The read register doubles as stage 2's pipeline register for C0, C1 and C2.
        m.submodules.table = table = Memory(shape=unsigned(ENTRY_BITS), depth=len(self.tables)
                                            << INDEX_BITS, init=table_rom(self.tables))
        rom = table.read_port()

        # stage 1: specials, the argument shift of EX2, SIN and COS
        op = self.i_op
        a = flush(self.i_a)
        sign, biased, fraction = fields(a)
        is_zero = biased == 0
        is_inf = (biased == 0xFF) & (fraction == 0)
        is_nan = (biased == 0xFF) & (fraction != 0)

        # (the special results are chosen in stage 2 from these flags: in one cycle after the
        # flush and the compare they made a ~13 ns path inside the lane datapath)
        ex2_big = (op == SfuOp.EX2) & (a[:31] >= 0x4380_0000)          # |A| >= 256

        # the model's _signed_fixed, rounded to nearest (ties up): W = floor(A * 2^(bits + 1))
        # here, (W + 1) >> 1 in stage 3. A = m * 2^(biased - 150), so with m placed at bit
        # SHIFT_BASE, W = P >> (150 - biased) for SIN/COS and one more for EX2. Beyond 63 the
        # shift gives 0 or -1 as well; SIN/COS from biased 150 on (A * 2^27 a multiple of
        # 2^27) keep only zeros in W's low 27 bits, the turn's. The shift has a stage of its
        # own (after the negation and the distance it was the unit's longest path); it reads
        # the unflushed fraction: a subnormal's distance is past 63 either way
        is_ex2 = op == SfuOp.EX2
        significand = Cat(self.i_a[:23], 1)
        distance = Signal(signed(10))
        m.d.comb += distance.eq(150 - biased + is_ex2)
        s1 = register_stage(m, 1, {
            "valid": self.i_valid,
            "is_nan": is_nan, "is_zero": is_zero, "is_inf": is_inf, "ex2_big": ex2_big,
            "op": op, "sign": sign, "biased": biased, "fraction": fraction,
            "placed": Mux(sign, -significand, significand),
            "amount": Mux(distance > 63, 63, distance[:6]), "none": distance <= 0,
        })

        # stage 2: the argument shift; the special results
        special, special_value = self._special_results(m, s1)
        placed = Signal(signed(25 + SHIFT_BASE))
        m.d.comb += placed.eq(s1["placed"].as_signed() << SHIFT_BASE)
        shifted = Signal(signed(36))
        m.d.comb += shifted.eq(Mux(s1["none"], 0, placed >> s1["amount"]))
        s2 = register_stage(m, 2, {
            "valid": s1["valid"], "special": special, "special_value": special_value,
            "op": s1["op"], "sign": s1["sign"], "biased": s1["biased"],
            "fraction": s1["fraction"], "shifted": shifted,
        })

        # stage 3: the rounding of the shift (+1, >> 1), with COS's quarter turn (its bit
        # quarter_bits + 1 before the >> 1) in the same add: one carry chain, not two. Only
        # EX2 reads the bits above the turn, and its op's bit 0 is 0 (COS's is 1, SIN's 0; the
        # other operations read nothing of this)
        quarter_bits = TURN_BITS - 2
        cos_quarter = Cat(1, Const(0, quarter_bits), s2["op"][0])
        fixed = Signal(signed(36))
        m.d.comb += fixed.eq((s2["shifted"].as_signed() + cos_quarter) >> 1)
        s3 = register_stage(m, 3, {
            "valid": s2["valid"], "special": s2["special"], "special_value": s2["special_value"],
            "op": s2["op"], "sign": s2["sign"], "biased": s2["biased"],
            "fraction": s2["fraction"], "fixed": fixed,
        })

        # stage 4: the reduced argument u, the exact cases, the table's address (the ROM's
        # registered read is this stage's register for C0, C1, C2)
        s4, address = self._reduce(m, s3)
        m.d.comb += rom.addr.eq(address)

        # what waits for the result from here on
        def carried(stage):
            return {"valid": stage["valid"], "special": stage["special"],
                    "special_value": stage["special_value"], "op": stage["op"],
                    "sign": stage["sign"], "negative": stage["negative"], "e": stage["e"],
                    "exponent": stage["exponent"], "exact": stage["exact"],
                    "exact_value": stage["exact_value"], "table_id": stage["table_id"]}

        # stage 5: the square t^2 (one DSP, from a register), and C0, C1, C2 out of the ROM's
        # read register into registers beside the multipliers (a block RAM's output straight
        # into a DSP made a ~15 ns path)
        t = s4["h"][OFFSET_BITS - SQUARE_BITS:]
        s5 = register_stage(m, 5, {
            **carried(s4), "h": s4["h"], "word": rom.data,
            "square": (t * t)[2 * SQUARE_BITS - SQUARE_KEPT:],
        })

        # stage 6: the two products, C1 * h (18 x 17) and C2 * square (14 x 18), one DSP each
        word = s5["word"]
        c0 = word[:C0_BITS]
        c1 = word[C0_BITS:C0_BITS + C1_BITS].as_signed()
        c2 = word[C0_BITS + C1_BITS:].as_signed()
        s6 = register_stage(m, 6, {
            **carried(s5), "c0": c0, "linear": c1 * s5["h"], "quadratic": c2 * s5["square"],
        })

        # stage 7: y = C0 + (C1 h >> 13) + (C2 t^2 >> s2), or the exact case
        linear = s6["linear"].as_signed() >> C1_SHIFT
        quadratic = Signal(signed(len(s6["quadratic"])))
        with m.Switch(s6["table_id"]):
            for number, tbl in enumerate(TABLE_ORDER):
                with m.Case(number):
                    m.d.comb += quadratic.eq(s6["quadratic"].as_signed() >> tbl.c2_shift)
        y = Signal(signed(RESULT_BITS + 4))
        m.d.comb += y.eq(Mux(s6["exact"], s6["exact_value"], s6["c0"] + linear + quadratic))
        s7 = register_stage(m, 7, {**carried(s6), "y": y})

        # stage 8: LN2's e + y, the magnitude and the sign
        y = s7["y"].as_signed()
        total = Signal(signed(V_BITS + 2))
        m.d.comb += total.eq(Mux(s7["op"] == SfuOp.LN2, s7["e"].as_signed() << RESULT_BITS, 0) + y)
        magnitude = Signal(V_BITS)
        m.d.comb += magnitude.eq(Mux(total < 0, -total, total))
        result_sign = Signal()
        with m.Switch(s7["op"]):
            with m.Case(SfuOp.RCP):
                m.d.comb += result_sign.eq(s7["sign"])
            with m.Case(SfuOp.LN2):
                m.d.comb += result_sign.eq(total < 0)
            with m.Case(SfuOp.RSQ, SfuOp.EX2):
                m.d.comb += result_sign.eq(0)
            with m.Default():
                m.d.comb += result_sign.eq(s7["negative"] & (magnitude != 0))
        s8 = register_stage(m, 8, {
            "valid": s7["valid"], "special": s7["special"], "special_value": s7["special_value"],
            "sign": result_sign, "exponent": s7["exponent"], "magnitude": magnitude,
        })

        # stage 9: V's leading zeros (the count and the shift in one cycle made a ~15 ns
        # path); V = 0 is the zero of the result's sign (round_to_fp32's first case)
        padded = Cat(Const(0, 64 - V_BITS), s8["magnitude"])
        is_empty, lead = leading_zero_count(padded)
        s9 = register_stage(m, 9, {
            "valid": s8["valid"], "special": s8["special"] | is_empty,
            "special_value": Mux(s8["special"], s8["special_value"],
                                 Cat(Const(0, 31), s8["sign"])),
            "sign": s8["sign"], "exponent": s8["exponent"], "magnitude": s8["magnitude"],
            "lead": lead,
        })

        # stage 10: normalise V to a leading one at bit 63, the result's biased exponent;
        # below 2^-126 the last place stays at 2^-149 (a shift of d = 1); two binades down
        # even a rounded-up result flushes, so d = 2 stands for all of them (as in FpMul)
        lead = s9["lead"]
        norm = (Cat(Const(0, 64 - V_BITS), s9["magnitude"]) << lead)[:64]
        result_biased = Signal(signed(12))
        m.d.comb += result_biased.eq(127 + V_BITS - 1 - lead + s9["exponent"].as_signed())
        s10 = register_stage(m, 10, {
            "valid": s9["valid"], "special": s9["special"],
            "special_value": s9["special_value"], "sign": s9["sign"],
            "grid_shift": Mux(result_biased >= 1, 0, Mux(result_biased == 0, 1, 2)),
            "exp_field": Mux(result_biased >= 1, result_biased - 1, 0)[:9],
            "bits": Cat(norm[:STICKY_BITS] != 0, norm[STICKY_BITS:]),
        })

        # stage 11: onto the grid, round, pack
        low = 64 - 24 - STICKY_BITS + 1              # kept's lowest index in bits (d = 0)
        self.answer_rounded(m, 11, s10, low)
        return m

    @staticmethod
    def _special_results(m, s1):
        """Stage 2's special results by class and function: (special, its value)."""
        special = Signal()
        special_value = Signal(32)
        m.d.comb += special.eq(1)
        with m.If(s1["is_nan"]):
            m.d.comb += special_value.eq(CANONICAL_NAN)
        with m.Elif(s1["is_zero"]):
            with m.Switch(s1["op"]):
                with m.Case(SfuOp.EX2):
                    m.d.comb += special_value.eq(ONE)
                with m.Case(SfuOp.LN2):
                    m.d.comb += special_value.eq(NEG_INF)
                with m.Case(SfuOp.RCP):
                    m.d.comb += special_value.eq(Cat(Const(POS_INF, 31), s1["sign"]))
                with m.Case(SfuOp.RSQ):
                    m.d.comb += special_value.eq(POS_INF)
                with m.Case(SfuOp.SIN, 6):
                    m.d.comb += special_value.eq(0)
                with m.Default():
                    m.d.comb += special_value.eq(ONE)
        with m.Elif(s1["is_inf"]):
            with m.Switch(s1["op"]):
                with m.Case(SfuOp.EX2):
                    m.d.comb += special_value.eq(Mux(s1["sign"], 0, POS_INF))
                with m.Case(SfuOp.LN2):
                    m.d.comb += special_value.eq(POS_INF)
                with m.Case(SfuOp.RCP):
                    m.d.comb += special_value.eq(Cat(Const(0, 31), s1["sign"]))
                with m.Case(SfuOp.RSQ):
                    m.d.comb += special_value.eq(0)
                with m.Default():
                    m.d.comb += special_value.eq(CANONICAL_NAN)
        with m.Elif(s1["ex2_big"]):
            m.d.comb += special_value.eq(Mux(s1["sign"], 0, POS_INF))
        with m.Else():
            m.d.comb += special.eq(0)
        return special, special_value

    def _reduce(self, m, s3):
        """Stage 4: the reduced argument u, the exact cases, the table's address; returns the
        stage's registers and the address."""
        quarter_bits = TURN_BITS - 2
        op1 = s3["op"]
        fixed = s3["fixed"].as_signed()
        fraction1 = s3["fraction"]

        # EX2: 2^whole * 2^(u / 2^25)
        whole = fixed >> EX2_FRACTION_BITS
        ex2_u = fixed[:EX2_FRACTION_BITS]
        # SIN, COS: the turn modulo 1 (a quarter more for COS, added above); odd quadrants
        # mirror
        turn = fixed[:TURN_BITS]
        quadrant = turn[quarter_bits:]
        offset = turn[:quarter_bits]
        mirror = Signal(quarter_bits + 1)
        m.d.comb += mirror.eq(Mux(quadrant[0], (1 << quarter_bits) - offset, offset))
        # RSQ: the exponent's parity above the fraction; (biased - 127) is odd for even biased
        parity = ~s3["biased"][0]
        e = Signal(signed(9))
        m.d.comb += e.eq(s3["biased"] - 127)

        table_id = Signal(3)
        h = Signal(OFFSET_BITS)                      # the offset, left-aligned
        index = Signal(INDEX_BITS)
        exact = Signal()
        exact_value = Signal(RESULT_BITS + 2)
        exponent = Signal(signed(10))                # the weight of V's bit 0
        special4 = Signal()
        special_value4 = Signal(32)
        negative = Signal()                          # SIN, COS: the lower half turn
        m.d.comb += [special4.eq(s3["special"]), special_value4.eq(s3["special_value"]),
                     exponent.eq(-RESULT_BITS)]

        def split(u, bits):
            offset_bits = bits - INDEX_BITS
            return [index.eq(u[offset_bits:bits]),
                    h.eq(u[:offset_bits] << (OFFSET_BITS - offset_bits))]

        with m.Switch(op1):
            with m.Case(SfuOp.RCP):
                m.d.comb += [table_id.eq(TABLE_RCP), *split(fraction1, 23),
                             exact.eq(fraction1 == 0), exact_value.eq(2 << RESULT_BITS),
                             exponent.eq(-e - 1 - RESULT_BITS)]
            with m.Case(SfuOp.RSQ):
                u = Cat(fraction1, parity)
                m.d.comb += [table_id.eq(TABLE_RSQ), *split(u, 24),
                             exact.eq(u == 0), exact_value.eq(2 << RESULT_BITS),
                             exponent.eq(-((e - parity) >> 1) - 1 - RESULT_BITS)]
            with m.Case(SfuOp.EX2):
                m.d.comb += [table_id.eq(TABLE_EX2), *split(ex2_u, EX2_FRACTION_BITS),
                             exact.eq(ex2_u == 0), exact_value.eq(1 << RESULT_BITS),
                             exponent.eq(whole - RESULT_BITS)]
                with m.If(~s3["special"] & (whole >= 128)):
                    m.d.comb += [special4.eq(1), special_value4.eq(POS_INF)]
                with m.Elif(~s3["special"] & (whole < -126)):
                    m.d.comb += [special4.eq(1), special_value4.eq(0)]
            with m.Case(SfuOp.LN2):
                m.d.comb += [table_id.eq(TABLE_LN2), *split(fraction1, 23),
                             exact.eq(fraction1 == 0), exact_value.eq(0)]
            with m.Default():                        # SIN, COS
                m.d.comb += [table_id.eq(TABLE_SIN), *split(mirror[:quarter_bits], 24),
                             exact.eq((mirror == 0) | mirror[quarter_bits]),
                             exact_value.eq(Mux(mirror[quarter_bits], 1 << RESULT_BITS, 0)),
                             negative.eq(quadrant[1])]
        # the table's place in the ROM (its number when every table is built)
        slot = Signal(range(max(len(self.tables), 2)))
        with m.Switch(table_id):
            for place, number in enumerate(self.tables):
                with m.Case(number):
                    m.d.comb += slot.eq(place)
        address = Signal(len(index) + len(slot))
        m.d.comb += address.eq(Cat(index, slot))
        s4 = register_stage(m, 4, {
            "valid": s3["valid"], "special": special4, "special_value": special_value4,
            "op": op1, "sign": s3["sign"], "negative": negative, "e": e,
            "exponent": exponent, "exact": exact, "exact_value": exact_value,
            "table_id": table_id, "h": h,
        })
        return s4, address
