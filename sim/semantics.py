"""What each ALU-kind instruction computes (theia-isa.md §3), lane by lane, as pure functions.

``alu_result(op, a, b, imm, pc)`` is the one reference for the model and for the RTL unit tests.
A and B are 3-tuples of 32-bit words as §2 defines them (type II: A = (IMM, 0, 0), B = DST's
value). The result is the full 3-tuple; which lanes land in DST is ``OPS[op].wmask``.
"""

from hdl.isa import Op, OPS, Kind, SWIZZLES, MASK32
from sim import fixed as fx


def _lanes(f, *vectors):
    return tuple(f(*lane) for lane in zip(*vectors))


def _inc_lane(a, lane):
    return tuple(fx.inc(v) if i == lane else v for i, v in enumerate(a))


def _swizzle(b, imm):
    _, sources = SWIZZLES[imm]
    return tuple(b[s] for s in sources)


_ALU = {
    Op.ADD: lambda a, b, imm, pc: _lanes(fx.add, a, b),
    Op.SUB: lambda a, b, imm, pc: _lanes(fx.sub, a, b),
    Op.DIV: lambda a, b, imm, pc: _lanes(fx.div, a, b),
    Op.MUL: lambda a, b, imm, pc: _lanes(fx.mul, a, b),
    Op.MAG: lambda a, b, imm, pc: (fx.mag(a),) * 3,
    Op.COPY: lambda a, b, imm, pc: a,
    Op.INC: lambda a, b, imm, pc: _lanes(fx.inc, a),
    Op.ZERO: lambda a, b, imm, pc: (0, 0, 0),
    Op.CROSS: lambda a, b, imm, pc: fx.cross(a, b),
    Op.DOT: lambda a, b, imm, pc: (fx.dot(a, b),) * 3,
    Op.MULP: lambda a, b, imm, pc: (0, 0, fx.mul(a[0], a[1])),
    Op.MOD: lambda a, b, imm, pc: _lanes(fx.mod, a, b),
    Op.FRAC: lambda a, b, imm, pc: _lanes(fx.frac, a),
    Op.INTP: lambda a, b, imm, pc: _lanes(fx.intp, a),
    Op.NEG: lambda a, b, imm, pc: _lanes(fx.neg, a),
    Op.DEC: lambda a, b, imm, pc: _lanes(fx.dec, a),
    Op.XCHANGEX: lambda a, b, imm, pc: (b[0], a[1], a[2]),
    Op.XCHANGEY: lambda a, b, imm, pc: (a[0], b[1], a[2]),
    Op.XCHANGEZ: lambda a, b, imm, pc: (a[0], a[1], b[2]),
    Op.IMUL: lambda a, b, imm, pc: _lanes(fx.imul, a, b),
    Op.UNSCALE: lambda a, b, imm, pc: _lanes(fx.unscale, a),
    Op.RESCALE: lambda a, b, imm, pc: _lanes(fx.rescale, a),
    Op.INCX: lambda a, b, imm, pc: _inc_lane(a, 0),
    Op.INCY: lambda a, b, imm, pc: _inc_lane(a, 1),
    Op.INCZ: lambda a, b, imm, pc: _inc_lane(a, 2),
    Op.LEA: lambda a, b, imm, pc: ((pc + 1) & MASK32,) * 3,
    # type II: only the lanes in the write mask land; the others are shown as B (DST's value)
    Op.SETX: lambda a, b, imm, pc: (imm, b[1], b[2]),
    Op.SETY: lambda a, b, imm, pc: (b[0], imm, b[2]),
    Op.SETZ: lambda a, b, imm, pc: (b[0], b[1], imm),
    Op.SWIZZLE3D: lambda a, b, imm, pc: _swizzle(b, imm),
}
assert set(_ALU) == {op for op, info in OPS.items() if info.kind == Kind.ALU}, \
    "every ALU-kind opcode of hdl.isa needs a semantic function"


def alu_result(op, a, b, imm=0, pc=0):
    """The 3-tuple an ALU-kind instruction computes (before the lane write mask)."""
    return _ALU[Op(op)](a, b, imm, pc)


def merge_lanes(old, new, wmask):
    """DST after a write of ``new`` with lane mask ``wmask`` (bit 2 = x ... bit 0 = z)."""
    return tuple(n if wmask & (4 >> i) else o for i, (o, n) in enumerate(zip(old, new)))
