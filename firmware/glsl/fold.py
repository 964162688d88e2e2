"""Constant folding: the IR's operations on Python floats, every result rounded to binary32
and flushed below 2^-126 as the R500 does (r500-us.md §3.1), so that a folded value is the one
the core would have computed wherever the operation is exact or correctly rounded. Special
functions fold with the host's double-precision library (more accurate than the core's)."""

import math
import struct

__all__ = ["f32", "bits", "from_bits", "OPS", "fold"]

_MIN_NORMAL = 2.0 ** -126


def f32(x):
    """x rounded to the nearest binary32, flushed below 2^-126 (sign kept); NaN stays NaN."""
    if math.isnan(x) or math.isinf(x):
        return x
    try:
        y = struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)
    if y != 0.0 and abs(y) < _MIN_NORMAL:
        return math.copysign(0.0, y)
    return y


def bits(x):
    """The binary32 pattern of x (NaN: the canonical 0x7FC00000)."""
    if math.isnan(x):
        return 0x7FC00000
    return struct.unpack("<I", struct.pack("<f", x))[0]


def from_bits(b):
    return struct.unpack("<f", struct.pack("<I", b & 0xFFFFFFFF))[0]


def _mul(a, b):
    if a == 0.0 or b == 0.0:        # zero times anything is zero, sign the XOR
        neg = (math.copysign(1.0, a) < 0) != (math.copysign(1.0, b) < 0)
        return -0.0 if neg else 0.0
    return f32(a * b)


def _add(a, b):
    if a == 0.0 and b == 0.0:
        return a                    # the sum of two zeros is its left operand
    return f32(a + b)


def _frc(a):
    if math.isinf(a) or math.isnan(a):
        return math.nan
    return f32(a - math.floor(a))


def _rcp(a):
    if a == 0.0:
        return math.copysign(math.inf, a)
    return f32(1.0 / a)


def _rsq(a):
    a = abs(a)
    if a == 0.0:
        return math.inf
    if math.isinf(a):
        return 0.0
    return f32(1.0 / math.sqrt(a))


def _ex2(a):
    if a >= 128:
        return math.inf
    if a < -126:
        return 0.0
    return f32(2.0 ** a)


def _lg2(a):
    a = abs(a)
    if a == 0.0:
        return -math.inf
    if math.isinf(a):
        return math.inf
    return f32(math.log2(a))


def _turn(fn, a):
    if math.isinf(a) or math.isnan(a):
        return math.nan
    frac = a - math.floor(a)
    quarter = frac * 4
    if quarter == int(quarter):
        q = int(quarter) % 4
        return float(fn(q))
    return f32(math.sin(2 * math.pi * frac) if fn is _sin_exact else
               math.cos(2 * math.pi * frac))


def _sin_exact(q):
    return (0.0, 1.0, 0.0, -1.0)[q]


def _cos_exact(q):
    return (1.0, 0.0, -1.0, 0.0)[q]


def _compare(rel):
    def f(a, b):
        if math.isnan(a) or math.isnan(b):
            return 1.0 if rel == "ne" else 0.0
        return 1.0 if {"lt": a < b, "ge": a >= b, "eq": a == b, "ne": a != b}[rel] else 0.0
    return f


def _min(a, b):
    return a if a < b else b


def _max(a, b):
    return a if a >= b else b


def _sat(a):
    if math.isnan(a) or a <= 0.0:
        return 0.0
    return 1.0 if a >= 1.0 else a


#: per-component operations: name -> function of floats
OPS = {
    "add": _add,
    "mul": _mul,
    "mad": lambda a, b, c: _add(_mul(a, b), c),
    "min": _min,
    "max": _max,
    "neg": lambda a: -a,
    "abs": abs,
    "frc": _frc,
    "sat": _sat,
    "cmp": lambda c, a, b: a if (c >= 0.0 or (c == 0.0)) and not math.isnan(c) else b,
    "select": lambda c, a, b: a if c != 0.0 else b,
    "slt": _compare("lt"),
    "sge": _compare("ge"),
    "seq": _compare("eq"),
    "sne": _compare("ne"),
    "rcp": _rcp,
    "rsq": _rsq,
    "ex2": _ex2,
    "lg2": _lg2,
    "sin": lambda a: _turn(_sin_exact, a),
    "cos": lambda a: _turn(_cos_exact, a),
    "ddx": lambda a: 0.0,
    "ddy": lambda a: 0.0,
}


def fold(op, operands):
    """Fold a per-component op or ``dot`` over lists of floats (one list per operand)."""
    if op == "dot":
        a, b = operands
        acc = _mul(a[0], b[0])
        for x, y in zip(a[1:], b[1:]):
            acc = _add(acc, _mul(x, y))
        return [acc]
    fn = OPS[op]
    return [fn(*xs) for xs in zip(*operands)]
