"""binary32 fields and the final round-and-pack step shared by the R500 arithmetic units.

The rounding mirrors ``sim.r500.fp32.round_to_fp32``: the caller has put the result's last place
at bit 0 of ``kept`` (24 bits with the hidden bit, fewer significant bits on the 2^-149 grid);
``guard`` is the next bit down and ``sticky`` the OR of the rest.
"""

from amaranth import Cat, Const, Mux, Signal, Value
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hdl.lib.pipeline import register_stage

__all__ = ["SIGN", "MAGNITUDE", "EXPONENT", "FRACTION", "FRACTION_BITS", "HIDDEN", "BIAS", "MIN_NORMAL", "ZERO", "NEG_ZERO", "ONE", "HALF", "TWO", "POS_INF", "NEG_INF", "CANONICAL_NAN",
           "fields", "flush", "round_pack", "grid_round_pack", "PipelinedUnit", "BinaryFpUnit"]

# the binary32 format's constants, for the model (sim/r500/fp32.py) and the RTL alike
SIGN = 0x8000_0000
MAGNITUDE = 0x7FFF_FFFF
EXPONENT = 0x7F80_0000
FRACTION = 0x007F_FFFF
FRACTION_BITS = 23
HIDDEN = 1 << FRACTION_BITS
BIAS = 127
#: the smallest normal magnitude, 2^-126
MIN_NORMAL = 0x0080_0000

ZERO = 0x0000_0000
NEG_ZERO = 0x8000_0000
ONE = 0x3F80_0000
HALF = 0x3F00_0000
TWO = 0x4000_0000
POS_INF = 0x7F80_0000
NEG_INF = 0xFF80_0000
CANONICAL_NAN = 0x7FC0_0000


def fields(x):
    """(sign, biased exponent, fraction) slices of the pattern ``x``."""
    return x[31], x[23:31], x[:23]


def flush(x):
    """A subnormal pattern reads as the zero of its sign (no subnormal datapath)."""
    return Mux(x[23:31] == 0, Cat(Const(0, 31), x[31]), x)


def round_pack(sign, exp_field, kept, guard, sticky):
    """The 32-bit result ``sign | (exp_field << 23) + rounded``, rounded to nearest even.

    The hidden bit of ``kept`` lands in the exponent field, so ``exp_field`` is the biased
    exponent minus one (0 on the subnormal grid) and a rounding carry out of the significand
    bumps the exponent by itself. Then, as the model: infinity from POS_INF up, and a pattern
    below 2^-126 flushes to the zero of its sign.
    """
    assert len(kept) == FRACTION_BITS + 1
    round_up = guard & (sticky | kept[0])
    pattern = (exp_field << 23) + kept + round_up
    signed_zero = Cat(Const(0, 31), sign)
    # The range tests (POS_INF is 0xFF << 23, MIN_NORMAL 1 << 23) on the sum's bits from 23 up,
    # exp_field + k, worked out beside the sum rather than after its carry chain: k, what
    # kept + round_up carries into bit 23 and above, is the hidden bit plus the rounding's
    # carry out of the fraction (0, 1 or 2). So only the final choice waits for the sum.
    assert POS_INF == 0xFF << 23 and MIN_NORMAL == 1 << 23
    exp_field = Value.cast(exp_field)
    hidden = kept[FRACTION_BITS]
    carry = round_up & kept[:FRACTION_BITS].all()
    high = exp_field[8:] != 0 if len(exp_field) > 8 else Const(0, 1)
    low = exp_field[:8]
    overflow = (high | (low == 0xFF) | ((low == 0xFE) & (hidden | carry))
                | ((low == 0xFD) & hidden & carry))
    tiny = ~high & (low == 0) & ~hidden & ~carry
    return Mux(overflow, Cat(Const(POS_INF, 31), sign),
               Mux(tiny, signed_zero, Cat(pattern[:31], sign)))


def grid_round_pack(m, bits, grid_shift, sign, exp_field, low):
    """``round_pack`` of a normalised ``bits`` whose result is shifted ``grid_shift`` (0-2) more
    places down onto the 2^-149 grid: the 24 kept bits start at ``low + grid_shift``, the guard
    bit is the one below them, every lower bit is sticky."""
    kept, guard, sticky = Signal(24), Signal(), Signal()
    with m.Switch(grid_shift):
        for d in range(3):
            with m.Case(d):
                m.d.comb += [kept.eq(bits[low + d:]), guard.eq(bits[low + d - 1]),
                             sticky.eq(bits[:low + d - 1] != 0)]
    return round_pack(sign, exp_field, kept, guard, sticky)


class PipelinedUnit(wiring.Component):
    """A unit that takes one operation per cycle and answers ``LATENCY`` cycles later, never
    stalling (``o_valid`` is ``i_valid`` delayed)."""

    @property
    def latency(self):
        return self.LATENCY

    def answer_rounded(self, m, stage, previous, low):
        """The last stage, ``stage``: ``previous``'s special value, or its ``bits`` onto the grid,
        rounded and packed (``grid_round_pack`` with ``low``); drives the outputs."""
        rounded = grid_round_pack(m, previous["bits"], previous["grid_shift"], previous["sign"],
                                  previous["exp_field"], low)
        last = register_stage(m, stage, {
            "valid": previous["valid"],
            "result": Mux(previous["special"], previous["special_value"], rounded),
        })
        m.d.comb += [self.o_valid.eq(last["valid"]), self.o_result.eq(last["result"])]


class BinaryFpUnit(PipelinedUnit):
    """``o_result = a op b`` on binary32 patterns."""

    i_valid: In(1)
    i_a: In(32)
    i_b: In(32)
    o_valid: Out(1)
    o_result: Out(32)

    def flushed_operands(self):
        """The operands with subnormals read as zeros: (a, b, fields of a, fields of b)."""
        a, b = flush(self.i_a), flush(self.i_b)
        return a, b, fields(a), fields(b)
