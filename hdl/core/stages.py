"""The instruction as it moves from D through A and O into I: its word, decode and PC.

A holds the word (its register addresses go to the register file and to the scoreboard's
lookups) and decodes it (hdl/core/decode.py); O holds the decoded instruction while its
operands arrive; entering I, what the issue logic and the vector ALU need is worked out from
O's decode and registered (``IssueClass``: one-hot flags; the ALU's ``SimpleControl`` and
``OpClass``), so that no opcode compare is in front of the issue decision or the ALU.

A's register numbers are kept in several copies (``REGISTER_COPY``), each for one group of
loads: a word's address bits also reach the register file and the decoder, and their fan-out
into the scoreboard planes' 64-way bit selects is a long route. Copies: the count planes'
lookups (SRC1, B, DST); the latency and outlook planes' (SRC1, DST); the register file's
addresses (SRC1, B).

Each stage's registers load whenever the next stage takes (``a_takes``, ``o_takes``,
``i_takes``): only the valid bits (the core's) see redirects and faults.
"""

from amaranth import Cat, Module, Signal
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from hdl.alu.valu import MULTIPLIER_OPS, OpClass, SimpleControl, op_class, simple_control
from hdl.core.decode import Decoded, Decoder, b_address
from hdl.isa import InstructionLayout, Kind, Op
from hdl.lib.synthesis import REGISTER_COPY

__all__ = ["InstructionStages", "IssueClass", "issue_class"]


class IssueClass(data.Struct):
    """What kind of instruction is in I, as one-hot flags (registered when it enters I): at
    most one is set; all but ``fetch_fault`` and ``illegal`` mean a legal instruction fetched
    without a fault."""
    fetch_fault: 1
    illegal: 1
    returns: 1            # RETURN
    plain: 1              # NOP, DEBUG
    alu: 1                # ALU-kind
    div: 1                # (with alu) DIV
    mag: 1                # (with alu) MAG
    mul: 1                # (with alu) an opcode of MULTIPLIER_OPS
    flow: 1               # BRANCH, JUMP, CALL, RET
    call: 1               # (with flow)
    ret: 1                # (with flow)
    tm: 1                 # TMREAD
    om: 1                 # OMWRITE


def issue_class(dec, fetch_fault):
    """The IssueClass value of decoded instruction ``dec``."""
    fine = dec.legal & ~fetch_fault
    kind = dec.kind
    return Cat(fetch_fault, ~dec.legal & ~fetch_fault,
               fine & (kind == Kind.RETURN),
               fine & ((kind == Kind.NOP) | (kind == Kind.DEBUG)),
               fine & (kind == Kind.ALU),
               fine & (kind == Kind.ALU) & (dec.opcode == Op.DIV),
               fine & (kind == Kind.ALU) & (dec.opcode == Op.MAG),
               fine & (kind == Kind.ALU) & Cat(dec.opcode == op for op in MULTIPLIER_OPS).any(),
               fine & ((kind == Kind.BRANCH) | (kind == Kind.JUMP) | (kind == Kind.CALL)
                       | (kind == Kind.RET)),
               fine & (kind == Kind.CALL),
               fine & (kind == Kind.RET),
               fine & (kind == Kind.TMREAD),
               fine & (kind == Kind.OMWRITE))


class InstructionStages(wiring.Component):
    """Parameter: ``latency_of`` (the vector ALU's ``latency``, for the decoder).

    In: D's ``d_word``, ``d_pc``, ``d_fetch_fault``; ``a_takes``, ``o_takes``, ``i_takes``.
    Out: A's register numbers (``a_lookup_*``, ``a_lookup_more_*``, ``a_rf_*``: the copies)
    and ``a_decoded`` (A's word decoded); O's ``o_dec``; I's ``i_pc``, ``i_dec``,
    ``i_class``, ``i_simple``, ``i_op_class``."""

    def __init__(self, latency_of):
        self.decoder = Decoder(latency_of)
        super().__init__({
            "d_word": In(InstructionLayout), "d_pc": In(16), "d_fetch_fault": In(1),
            "a_takes": In(1), "o_takes": In(1), "i_takes": In(1),
            "a_lookup_src1": Out(8), "a_lookup_b": Out(8), "a_lookup_dst": Out(8),
            "a_lookup_more_src1": Out(8), "a_lookup_more_dst": Out(8),
            "a_rf_src1": Out(8), "a_rf_b": Out(8),
            "a_decoded": Out(Decoded),
            "o_dec": Out(Decoded),
            "i_pc": Out(16), "i_dec": Out(Decoded), "i_class": Out(IssueClass),
            "i_simple": Out(SimpleControl), "i_op_class": Out(OpClass),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.decoder = decoder = self.decoder
        a_pc = Signal(16, reset_less=True)
        a_word = Signal(InstructionLayout, reset_less=True)
        a_fetch_fault = Signal()
        m.d.comb += [decoder.word.eq(a_word), self.a_decoded.eq(decoder.decoded)]
        copies = {}
        for use, names in (("lookup", ("src1", "b", "dst")), ("lookup_more", ("src1", "dst")),
                           ("rf", ("src1", "b"))):
            for name in names:
                copy = Signal(8, name=f"a_{use}_{name}", reset_less=True, attrs=REGISTER_COPY)
                copies[use, name] = copy
                m.d.comb += getattr(self, f"a_{use}_{name}").eq(copy)
        with m.If(self.a_takes):
            d_word = self.d_word
            numbers = {"src1": d_word.src1[:8], "b": b_address(d_word)[:8],
                       "dst": d_word.dst[:8]}
            m.d.sync += [a_pc.eq(self.d_pc), a_word.eq(d_word),
                         a_fetch_fault.eq(self.d_fetch_fault)]
            m.d.sync += [copy.eq(numbers[name]) for (_, name), copy in copies.items()]

        o_pc = Signal(16, reset_less=True)
        o_dec = Signal(Decoded, reset_less=True)
        o_fetch_fault = Signal()
        m.d.comb += self.o_dec.eq(o_dec)
        with m.If(self.o_takes):
            m.d.sync += [o_pc.eq(a_pc), o_dec.eq(decoder.decoded),
                         o_fetch_fault.eq(a_fetch_fault)]

        i_pc = Signal(16, reset_less=True)
        i_dec = Signal(Decoded, reset_less=True)
        i_class = Signal(IssueClass)
        # the vector ALU's control, decoded while the instruction is in O: the opcode's decode
        # is then not on the ALU's forwarding loop (result -> forwarding -> operand select ->
        # adder -> result)
        i_simple = Signal(SimpleControl, reset_less=True)
        i_op_class = Signal(OpClass, reset_less=True)
        m.d.comb += [self.i_pc.eq(i_pc), self.i_dec.eq(i_dec), self.i_class.eq(i_class),
                     self.i_simple.eq(i_simple), self.i_op_class.eq(i_op_class)]
        with m.If(self.i_takes):
            m.d.sync += [i_class.eq(issue_class(o_dec, o_fetch_fault)),
                         i_simple.eq(simple_control(m, o_dec.alu_op, o_dec.imm)),
                         i_op_class.eq(op_class(o_dec.alu_op)),
                         i_pc.eq(o_pc), i_dec.eq(o_dec)]
        return m
