"""The R500 special-function unit's tables and widths (docs/r500-arithmetic.md), shared by the
RTL (``hdl/r500/sfu.py``) and the model (``sim/r500/sfu.py``): one copy of each table.

Pure Python and ``decimal`` (no Amaranth): every segment's quadratic is fitted at import,
deterministically, in 40-digit arithmetic, so every host builds the same ROM contents. A
``QuadraticTable`` holds one function's coefficients and is the interpolation's reference:

    y = C0 + ((C1 * h) >> s1) + ((C2 * (t * t >> d)) >> s2),   t = h >> (offset bits - SQUARE_BITS)

on plain integers, or element-wise on NumPy int64 arrays (NumPy is imported only then).
"""

import decimal
import functools
from dataclasses import dataclass
from decimal import Decimal

__all__ = ["INDEX_BITS", "SQUARE_BITS", "SQUARE_KEPT", "C1_BITS", "C2_BITS", "RESULT_BITS",
           "EX2_FRACTION_BITS", "TURN_BITS", "FRACTION_BITS", "QuadraticTable", "fit_table",
           "RCP_TABLE", "RSQ_TABLE", "EX2_TABLE", "LN2_TABLE", "SIN_TABLE", "TABLES"]

#: fraction bits of a binary32 significand
FRACTION_BITS = 23

#: segments of every table: 2^8 = 256 entries
INDEX_BITS = 8
#: bits of the offset that are squared (t above), and the bits of the square kept for the
#: product with C2 (the low bits dropped): a 12 x 12 squarer, an 18-bit square
SQUARE_BITS = 12
SQUARE_KEPT = 18
_SQUARE_DROP = 2 * SQUARE_BITS - SQUARE_KEPT
#: the widths of C1 and of C2, two's complement: each multiplies in one 18 x 18 multiplier
C1_BITS = 18
C2_BITS = 14
#: fraction bits of the interpolated y
RESULT_BITS = 28
#: fraction bits of EX2's argument and of SIN/COS's turn
EX2_FRACTION_BITS = 25
TURN_BITS = 26

_DIGITS = decimal.Context(prec=40, rounding=decimal.ROUND_HALF_EVEN)
#: where the series below stop: terms this small no longer change a 40-digit sum of ~1
_NEGLIGIBLE = Decimal(10) ** -45


# --- the interpolator --------------------------------------------------------------------------

@dataclass(frozen=True)
class QuadraticTable:
    """The coefficients of one function, and the interpolation that reads them."""
    name: str
    input_bits: int
    c1_shift: int
    c2_shift: int
    c0: tuple
    c1: tuple
    c2: tuple

    @functools.cached_property
    def arrays(self):
        """(c0, c1, c2) as NumPy int64 arrays, for element-wise interpolation."""
        import numpy as np
        return tuple(np.array(column, dtype=np.int64) for column in (self.c0, self.c1, self.c2))

    @property
    def offset_bits(self):
        return self.input_bits - INDEX_BITS

    def widths(self):
        """Bits of C0 (unsigned), C1 and C2 (two's complement) as the table needs them."""
        return (max(self.c0).bit_length(),
                1 + max(max(c).bit_length() for c in (self.c1, [-v - 1 for v in self.c1])),
                1 + max(max(c).bit_length() for c in (self.c2, [-v - 1 for v in self.c2])))

    def __call__(self, u):
        """y (RESULT_BITS fraction bits) for u (``input_bits`` fraction bits)."""
        index = u >> self.offset_bits
        h = u & ((1 << self.offset_bits) - 1)
        t = h >> (self.offset_bits - SQUARE_BITS)
        columns = self.arrays if hasattr(u, "shape") else (self.c0, self.c1, self.c2)
        c0, c1, c2 = (column[index] for column in columns)
        square = (t * t) >> _SQUARE_DROP
        return c0 + ((c1 * h) >> self.c1_shift) + ((c2 * square) >> self.c2_shift)


def _chebyshev_quadratic(g, start, width):
    """(a0, a1, a2) of the quadratic in t in [0, 1) through g(start + width * t) at the three
    Chebyshev nodes of [0, 1]."""
    half_root3 = Decimal(3).sqrt(_DIGITS) / 2
    nodes = [(1 - half_root3) / 2, Decimal("0.5"), (1 + half_root3) / 2]
    y0, y1, y2 = (g(start + width * t) for t in nodes)
    t0, t1, t2 = nodes
    d01, d12 = (y1 - y0) / (t1 - t0), (y2 - y1) / (t2 - t1)
    a2 = (d12 - d01) / (t2 - t0)
    a1 = d01 - a2 * (t0 + t1)
    return y0 - a1 * t0 - a2 * t0 * t0, a1, a2


def _fixed_scale(largest, bits):
    """The most fraction bits a coefficient of magnitude up to ``largest`` can have in ``bits``
    bits of two's complement."""
    scale = 0
    while abs(largest) * 2 ** (scale + 1) < 2 ** (bits - 1) - 1:
        scale += 1
    while abs(largest) * 2 ** scale >= 2 ** (bits - 1) - 1:
        scale -= 1
    return scale


def _round(value):
    return int(value.to_integral_value(rounding=decimal.ROUND_HALF_EVEN, context=_DIGITS))


def fit_table(name, g, input_bits):
    """The QuadraticTable of g (a function of a Decimal u in [0, 1]) for ``input_bits``-bit u."""
    with decimal.localcontext(_DIGITS):
        segments = 1 << INDEX_BITS
        width = Decimal(1) / segments
        fits = [_chebyshev_quadratic(g, i * width, width) for i in range(segments)]
        offset_bits = input_bits - INDEX_BITS
        c1_scale = _fixed_scale(max(abs(a1) for _, a1, _ in fits), C1_BITS)
        c2_scale = _fixed_scale(max(abs(a2) for _, _, a2 in fits), C2_BITS)
        one = Decimal(2) ** RESULT_BITS
        dropped_bits = offset_bits - SQUARE_BITS
        mean_dropped = Decimal(2 ** dropped_bits - 1) / 2 ** (offset_bits + 1)
        c0, c1, c2 = [], [], []
        for a0, a1, a2 in fits:
            k2 = _round(a2 * 2 ** c2_scale)
            rounded_a2 = Decimal(k2) / 2 ** c2_scale
            # t^2 is nearest (in the max-norm) to t - 1/8: the rounding error of a2 moves there;
            # truncating the offset to SQUARE_BITS before squaring loses 2 t a2 times the mean
            # of the dropped bits
            a1 += (a2 - rounded_a2) + 2 * rounded_a2 * mean_dropped
            a0 -= (a2 - rounded_a2) / 8
            k1 = _round(a1 * 2 ** c1_scale)
            a0 += (a1 - Decimal(k1) / 2 ** c1_scale) / 2
            # each of the two truncated products loses half a unit of y on average
            c0.append(_round(a0 * one + 1))
            c1.append(k1)
            c2.append(k2)
    c1_shift = c1_scale - RESULT_BITS + offset_bits
    c2_shift = c2_scale - RESULT_BITS + 2 * SQUARE_BITS - _SQUARE_DROP
    return QuadraticTable(name, input_bits, c1_shift, c2_shift, tuple(c0), tuple(c1),
                          tuple(c2))


# --- the functions the tables hold -------------------------------------------------------------

def _pi():
    """pi by Machin's formula, 16 atan(1/5) - 4 atan(1/239), in the current context."""
    def atan_inverse(n):
        total, power, k = Decimal(0), Decimal(1) / n, 0
        while power > _NEGLIGIBLE:
            total += (-1) ** k * power / (2 * k + 1)
            power /= n * n
            k += 1
        return total
    return 16 * atan_inverse(5) - 4 * atan_inverse(239)


def _sin(x):
    """sin x by its Taylor series (|x| <= 2), in the current context."""
    total, term, k = Decimal(0), x, 1
    while abs(term) > _NEGLIGIBLE:
        total += term
        term = -term * x * x / ((k + 1) * (k + 2))
        k += 2
    return total


def _half_pi():
    with decimal.localcontext(_DIGITS):
        return _pi() / 2


_HALF_PI = _half_pi()

RCP_TABLE = fit_table("RCP", lambda u: 2 / (1 + u), FRACTION_BITS)
#: the top bit of u is the exponent's parity: 1 + 2u in [1, 2) for even, 2 + 4(u - 1/2) in
#: [2, 4) for odd exponents
RSQ_TABLE = fit_table("RSQ", lambda u: 2 / (1 + 2 * u if u < Decimal("0.5") else
                                            4 * u).sqrt(), FRACTION_BITS + 1)
EX2_TABLE = fit_table("EX2", lambda u: (u * Decimal(2).ln()).exp(), EX2_FRACTION_BITS)
LN2_TABLE = fit_table("LN2", lambda u: (1 + u).ln() / Decimal(2).ln(), FRACTION_BITS)
SIN_TABLE = fit_table("SIN", lambda u: _sin(_HALF_PI * u), TURN_BITS - 2)
TABLES = (RCP_TABLE, RSQ_TABLE, EX2_TABLE, LN2_TABLE, SIN_TABLE)
