"""What a DIV's result will look like, known when it issues: its sign and whether it is zero.

The divider needs 26 cycles, but a conditional jump that compares a quotient with 0 (the
firmware's ``JLX MISS u ZERO``, which decides most ray/triangle misses) only needs the sign
and the zero-ness of ``div(a, b)`` (theia-isa.md §4), and those follow from two comparisons of
the operands' magnitudes in all but extreme cases. With N = |a| << 17 and d = |b|:

* d = 0:            q = 0x0FFFFFFF, not zero; the sign is sign(a) (b counts as positive)
* N < d:            q = 0, the result is 0
* d <= N < 2^31 d:  1 <= q < 2^31, so q survives "mod 2^32, bit 31 cleared" unchanged: the
                    result is non-zero with the sign sign(a) xor sign(b)
* N >= 2^31 d:      the kept bits of q depend on the whole division: ``known`` = 0

Combinational, from the operands' magnitudes and signs (``magnitude``): the core takes the
magnitudes of a DIV's lane-x operands as it issues (registered: the negations' carry chains are
then not in front of the compares'), works the outlook out in the next cycle, records it for
the DIV's destination (lane x) and lets a conditional jump on lane x against a zero operand
use it instead of waiting for the divider.
"""

from amaranth import Module, Mux
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hdl.isa import SCALE

__all__ = ["DivOutlook", "div_outlook", "magnitude"]


def div_outlook(a, b):
    """Python reference: (known, negative, zero) of div(a, b) from the rules above."""
    mag_a = (-a) & 0xFFFF_FFFF if a >> 31 else a
    mag_b = (-b) & 0xFFFF_FFFF if b >> 31 else b
    if mag_b == 0:
        return True, bool(a >> 31), False
    if mag_a << SCALE < mag_b:
        return True, False, True
    if mag_a < mag_b << (31 - SCALE):
        return True, bool((a ^ b) >> 31), False
    return False, False, False


def magnitude(value):
    """|value| of a 32-bit two's complement value (|0x80000000| = 0x80000000)."""
    return Mux(value[31], -value, value)[:32]


class DivOutlook(wiring.Component):
    """Ports: ``mag_a``, ``mag_b`` (``magnitude`` of the operands), ``negative_a``,
    ``negative_b`` (their sign bits) in; ``known``, ``negative``, ``zero`` out."""
    mag_a: In(32)
    mag_b: In(32)
    negative_a: In(1)
    negative_b: In(1)
    known: Out(1)
    negative: Out(1)
    zero: Out(1)

    def elaborate(self, platform):
        m = Module()
        mag_a, mag_b = self.mag_a, self.mag_b
        divisor_zero = mag_b == 0
        quotient_zero = (mag_a << SCALE) < mag_b
        quotient_fits = mag_a < (mag_b << (31 - SCALE))
        with m.If(divisor_zero):
            m.d.comb += [self.known.eq(1), self.negative.eq(self.negative_a)]
        with m.Elif(quotient_zero):
            m.d.comb += [self.known.eq(1), self.zero.eq(1)]
        with m.Elif(quotient_fits):
            m.d.comb += [self.known.eq(1), self.negative.eq(self.negative_a ^ self.negative_b)]
        return m
