"""Instruction decoder: a 64-bit THEIA word -> the control fields the pipeline needs.

Purely combinational. Every per-opcode fact comes from ``hdl.isa.OPS`` (the one table); this
file only turns it into a ``Switch``. The latency of ALU-kind opcodes comes from the vector ALU.
"""

from amaranth import Module, Signal, Const, Mux
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from hdl.isa import (OPS, Kind, Op, InstructionLayout, NUM_REGS, SWIZZLES, BANK_CONFIG,
                     BANK_OUTPUT)

__all__ = ["Decoded", "Decoder", "KIND_BITS", "LATENCY_RANK_BITS"]

assert all(bool(op & 0x40) == info.type2 for op, info in OPS.items()), \
    "type II opcodes are those with bit 6 set"

KIND_BITS = max(Kind).bit_length()
#: the scoreboard's WAW rule needs the order of latencies only: up to 8 distinct ones
LATENCY_RANK_BITS = 3


def b_address(word):
    """Operand B's register: DST for type II, else SRC2. Straight from the opcode bit, not
    through the opcode table: the pipeline sends it to the register file before decoding."""
    return Mux(word.opcode[6], word.dst, word.src2)


class Decoded(data.Struct):
    """The decoded form of one instruction, carried down the pipeline."""
    opcode: 7
    kind: KIND_BITS           # hdl.isa.Kind
    legal: 1
    type2: 1
    dst: 16                   # register address, or code address for jumps/CALL
    src1: 16
    src2: 16
    imm: 32
    reads_a: 1                # SRC1 is read as a register
    reads_b: 1                # SRC2 (type I) or DST (type II) is read as a register
    b_addr: 16                # which register B is: SRC2, or DST for type II
    writes: 1                 # DST is written (before the bank's access rules)
    writes_reg: 1             # ... and is a register EXE writes (not configuration/output)
    wmask: 3                  # lanes written: bit 2 = x, bit 1 = y, bit 0 = z
    latency: 6                # ALU-kind: cycles until the result leaves the vector ALU
    latency_rank: LATENCY_RANK_BITS   # ... its rank among the ALU's distinct latencies (same order)
    alu_op: 7                 # the opcode the vector ALU executes (TMREAD: COPY, RET: SETX)


class Decoder(wiring.Component):
    """``word`` in, ``decoded`` out (combinational).

    ``latency_of`` maps an ALU-kind opcode to its vector-ALU latency (``VectorALU.latency``);
    TMREAD's result enters the ALU as a COPY and RET's write as a SETX.
    """
    word: In(InstructionLayout)
    decoded: Out(Decoded)

    def __init__(self, latency_of):
        self._latency_of = latency_of
        # the scoreboard keeps the order of latencies, not their values: a rank is 3 bits
        latencies = sorted({latency_of(op) for op, info in OPS.items() if info.kind == Kind.ALU})
        if len(latencies) > 1 << LATENCY_RANK_BITS:
            raise ValueError(f"{len(latencies)} distinct ALU latencies do not fit latency_rank")
        self._rank = {latency: rank for rank, latency in enumerate(latencies)}
        super().__init__()

    def _latency(self, d, op):
        latency = self._latency_of(op)
        return [d.latency.eq(latency), d.latency_rank.eq(self._rank[latency])]

    def elaborate(self, platform):
        m = Module()
        w, d = self.word, self.decoded
        m.d.comb += [
            d.opcode.eq(w.opcode[:7]),
            d.type2.eq(w.opcode[6]),
            d.dst.eq(w.dst),
            d.src1.eq(w.src1),
            d.src2.eq(w.src2),
            d.imm.eq(w.as_value()[:32]),
            d.b_addr.eq(b_address(w)),
            d.alu_op.eq(w.opcode[:7]),
        ]
        legal = Signal()
        with m.If(w.opcode[7:] == 0):
            with m.Switch(w.opcode[:7]):
                for op, info in OPS.items():
                    with m.Case(op):
                        m.d.comb += [
                            d.kind.eq(info.kind),
                            d.reads_a.eq(info.a_reg and not info.type2),
                            d.reads_b.eq(info.b_reg),
                            d.writes.eq(info.writes),
                            d.wmask.eq(info.wmask),
                        ]
                        if info.kind == Kind.ALU:
                            m.d.comb += self._latency(d, op)
                        elif info.kind == Kind.TMREAD:     # the loaded vector enters as COPY
                            m.d.comb += [*self._latency(d, Op.COPY), d.alu_op.eq(Op.COPY)]
                        elif info.kind == Kind.RET:        # DST.x = IMM enters as SETX
                            m.d.comb += [*self._latency(d, Op.SETX), d.alu_op.eq(Op.SETX)]
                        checks = []
                        if info.dst_reg:
                            checks.append(w.dst < NUM_REGS)
                        if info.a_reg and not info.type2:
                            checks.append(w.src1 < NUM_REGS)
                        if info.b_reg and not info.type2:
                            checks.append(w.src2 < NUM_REGS)
                        if op == Op.SWIZZLE3D:
                            checks.append(w.as_value()[:32] < len(SWIZZLES))
                        ok = Const(1)
                        for c in checks:
                            ok = ok & c
                        m.d.comb += legal.eq(ok)
        m.d.comb += [d.legal.eq(legal),
                     d.writes_reg.eq(d.writes & (w.dst > BANK_CONFIG.last)
                                     & (w.dst < BANK_OUTPUT.first))]
        return m
