"""Which unit of the vector ALU executes each ALU-kind opcode, and how long it takes.

Each opcode belongs to a latency class, a fixed-latency pipeline (hdl/alu/valu.py has the
latencies). ``OpClass`` is what the ALU's units look at: decoded from the opcode by the issuer
a stage before the ALU (``op_class``), so that the opcode's compares are not in front of the
multipliers' operand multiplexers.
"""

from enum import Enum

from amaranth import Cat
from amaranth.lib import data

from hdl.isa import OPS, Kind, Op

__all__ = ["LatencyClass", "ALU_OPS", "CLASS_OF", "MULTIPLIER_OPS", "OpClass", "op_class",
           "or_all"]


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


class OpClass(data.Struct):
    """Which unit an ALU opcode uses and how (one-hot where it can be)."""
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


def or_all(values):
    """The OR of Amaranth ``values`` (the ALU's one-hot AND-OR multiplexers)."""
    values = list(values)
    result = values[0]
    for v in values[1:]:
        result = result | v
    return result
