"""The operands of the core: read in A, arriving in O, held in I, forwarded from W.

A sends the instruction's register numbers (from its copies) to the register file's two read
ports; in O their data arrive (``RegisterRead``: the block RAM's word, late in the cycle, and
what replaces it) and are registered, so that a block RAM's clock-to-out (5.6 ns on ECP5) is
never on the issue path. The result landing in a cycle (W) is forwarded lane by lane into
whatever reads its register: O's operands, I's operands, the ALU's inputs.

**O.** O's operand is, in its first cycle, the register file's (``o_first``), later what it
holds, with the landing result forwarded. Every register loading it has the block RAM's word
last (its late input), picked by a select of its own from forwarding compares of its own: the
landing write's register against O's, compared a cycle early for the four candidates (I's tag
issued now with latency 1, or the ring's next tag; A's instruction or O's own) into flip-flops
(``REGISTER_COPY``) and picked by registered flags.

**I.** I's operands come from flip-flops, two register pairs used in turn (``i_pair``: the one
holding I's operands): the other pair loads O's operands every cycle, and I taking O's
instruction flips ``i_pair``. So the issue decision reaches one flip-flop, not the enables of
192; ``i_pair`` is kept in several copies, one for each group of its loads.

**Consumers in I.** The vector ALU's inputs (A: the register, the type II immediate or a
TMREAD's loaded vector, the forwarding multiplexer last), the DIV outlook's operand magnitudes
(registered), ``bx_zero`` for the early jump, and a conditional jump's condition: compared from
a flip-flop loaded in the cycle before (every lane's "less" and "equal", the jump's lane and
relation picked last), so the compare's carry chains are off the path to the redirect. With
``alu_forwarding`` off these take I's registers only (no forwarding, both pairs compared and
the pair picked last): the forwarding then leaves the paths into the ALU.
"""

from amaranth import Cat, Const, Module, Mux, Signal, signed
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hdl.core.decode import Decoded
from hdl.core.div_outlook import magnitude
from hdl.core.regfile import RegisterRead, register_row
from hdl.core.scoreboard import ScoreboardView
from hdl.core.writeback import WritebackTag
from hdl.isa import Kind, LANE_WMASK_BITS, VectorLayout
from hdl.lib.synthesis import KEEP, REGISTER_COPY

__all__ = ["Operands", "jump_relation"]


def jump_relation(m, opcode, less, equal, name):
    """A conditional jump's relation (opcode bits 2:0: >, <, ==, !=, >=, <=) from A < B and
    A == B, as a new signal ``name``."""
    value = Signal(name=name)
    with m.Switch(opcode[:3]):
        for rel, holds in ((0, ~less & ~equal), (1, less), (2, equal), (3, ~equal),
                           (4, ~less), (5, less | equal)):
            with m.Case(rel):
                m.d.comb += value.eq(holds)
    return value


class Operands(wiring.Component):
    """Parameter: ``alu_forwarding`` (``CoreConfig``'s).

    In: A's register numbers (``a_rf_src1``, ``a_rf_b``) and decoded addresses (``a_src1``,
    ``a_b_addr``), O's (``o_src1``, ``o_b_addr``), ``o_takes``, ``i_takes``, the register
    file's ``swap_sel`` and read data, W (``result``, ``w_tag``, ``w_slot1``/``next_tag``: the
    next cycle's landing, ``i_tag``/``w_from_i``), I's ``i_dec``, its scoreboard view
    ``i_sb``, TMREAD's vector ``tm_data``. Out: the register file's read addresses, I's
    operand registers ``i_a_held``/``i_b_held``, the ALU's ``alu_a``/``alu_b``, the DIV
    outlook's operands ``outlook_*``, ``bx_zero``, the jump's ``condition``."""

    def __init__(self, alu_forwarding):
        self.alu_forwarding = alu_forwarding
        super().__init__({
            "a_rf_src1": In(8), "a_rf_b": In(8), "a_src1": In(16), "a_b_addr": In(16),
            "o_src1": In(16), "o_b_addr": In(16), "o_takes": In(1), "i_takes": In(1),
            "swap_sel": In(1), "ra_data": In(RegisterRead), "rb_data": In(RegisterRead),
            "result": In(VectorLayout), "w_tag": In(WritebackTag), "w_slot1": In(1),
            "next_tag": In(WritebackTag), "i_tag": In(WritebackTag), "w_from_i": In(1),
            "i_dec": In(Decoded), "i_sb": In(ScoreboardView), "tm_data": In(VectorLayout),
            "ra_addr": Out(8), "ra_row": Out(8), "rb_addr": Out(8), "rb_row": Out(8),
            "i_a_held": Out(VectorLayout), "i_b_held": Out(VectorLayout),
            "alu_a": Out(VectorLayout), "alu_b": Out(VectorLayout),
            "outlook_mag_a": Out(32), "outlook_mag_b": Out(32),
            "outlook_negative_a": Out(1), "outlook_negative_b": Out(1),
            "bx_zero": Out(1), "condition": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        # A: the register file's addresses and rows from A's copies (the rows through the two
        # gates of ``register_row``, no decode in front)
        m.d.comb += [self.ra_addr.eq(self.a_rf_src1), self.rb_addr.eq(self.a_rf_b),
                     self.ra_row.eq(register_row(self.a_rf_src1, self.swap_sel)),
                     self.rb_row.eq(register_row(self.a_rf_b, self.swap_sel))]
        o_first = Signal()                      # first cycle in O: operands from the RF
        m.d.sync += o_first.eq(self.o_takes)
        o_a_hold = Signal(VectorLayout, reset_less=True)
        o_b_hold = Signal(VectorLayout, reset_less=True)
        o_a = _OperandInO(m, self, o_first, self.ra_data, o_a_hold,
                          self._forwarding_in_o(m, o_first, self.a_src1, self.o_src1), "o_a")
        o_b = _OperandInO(m, self, o_first, self.rb_data, o_b_hold,
                          self._forwarding_in_o(m, o_first, self.a_b_addr, self.o_b_addr), "o_b")
        o_a.load(o_a_hold)
        o_b.load(o_b_hold)
        pairs, late_pair = self._operand_pairs(m, o_a, o_b)
        i_a = self._forwarded(m, self.i_a_held, self.i_sb.a_hit, "i_a")
        i_b = self._forwarded(m, self.i_b_held, self.i_sb.b_hit, "i_b")
        self._consumers(m, i_a, i_b, pairs, late_pair)
        return m

    def _forwarded(self, m, raw, hit, name):
        """Operand value with this cycle's landing write forwarded lane by lane, when ``hit``
        (the write is to the operand's register)."""
        value = Signal(VectorLayout, name=name)
        raw_vector = Signal(VectorLayout, name=f"{name}_raw")
        m.d.comb += raw_vector.eq(raw)
        for lane, bit in LANE_WMASK_BITS:
            m.d.comb += getattr(value, lane).eq(
                Mux(hit & self.w_tag.wmask[bit], getattr(self.result, lane),
                    getattr(raw_vector, lane)))
        return value

    def _forwarding_in_o(self, m, o_first, from_a, held):
        """A function of a name making the lanes (3 bits) the write landing now writes to O's
        register, where O's register number is ``from_a`` when it came from A last cycle
        (``o_first``), else ``held``: each call's own flip-flops (``REGISTER_COPY``) hold the
        four candidates, picked by registered flags."""
        ring_mask = Mux(self.w_slot1, self.next_tag.wmask, 0)

        def forward_for(name):
            lanes = {}
            for o_side, o_addr in (("a", from_a), ("o", held)):
                for w_side, w_addr, w_mask in (("i", self.i_tag.addr, self.i_tag.wmask),
                                               ("ring", self.next_tag.addr, ring_mask)):
                    lanes[o_side, w_side] = candidate = Signal(
                        3, name=f"{name}_fwd_{o_side}_{w_side}", attrs=REGISTER_COPY)
                    m.d.sync += candidate.eq(Mux(w_addr == o_addr[:8], w_mask, 0))
            forward = Signal(3, name=f"{name}_fwd")
            w_from_i = self.w_from_i
            m.d.comb += forward.eq(Mux(
                o_first, Mux(w_from_i, lanes["a", "i"], lanes["a", "ring"]),
                Mux(w_from_i, lanes["o", "i"], lanes["o", "ring"])))
            return forward
        return forward_for

    def _operand_pairs(self, m, o_a, o_b):
        """I's two operand register pairs, used in turn; returns the pairs and the copy of
        ``i_pair`` for selects made after a computation on both pairs."""
        pair_copies = {use: Signal(name=f"i_pair_{use}", attrs=REGISTER_COPY)
                       for use in ("load_a", "load_b", "a", "b", "late")}
        pairs = [(Signal(VectorLayout, name=f"i_a_pair{k}", reset_less=True),
                  Signal(VectorLayout, name=f"i_b_pair{k}", reset_less=True))
                 for k in range(2)]
        (a0, b0), (a1, b1) = pairs
        m.d.comb += [self.i_a_held.eq(Mux(pair_copies["a"], a1, a0)),
                     self.i_b_held.eq(Mux(pair_copies["b"], b1, b0))]
        # the pair in use takes the landing write, the other one O's operands
        m.d.sync += [copy.eq(copy ^ self.i_takes) for copy in pair_copies.values()]
        for k, pair in enumerate(pairs):
            for held, from_o, hit, in_use in zip(pair, (o_a, o_b),
                                                 (self.i_sb.a_hit, self.i_sb.b_hit),
                                                 (pair_copies["load_a"], pair_copies["load_b"])):
                kept = Signal(VectorLayout, name=f"{held.as_value().name}_kept")
                for lane, bit in LANE_WMASK_BITS:
                    m.d.comb += getattr(kept, lane).eq(
                        Mux(hit & self.w_tag.wmask[bit], getattr(self.result, lane),
                            getattr(held, lane)))
                from_o.load(held, takes=in_use != k, other=kept)
        return pairs, pair_copies["late"]

    def _consumers(self, m, i_a, i_b, pairs, late_pair):
        """What the instruction in I does with its operands: the ALU's inputs, the DIV
        outlook's, ``bx_zero`` and the jump's condition."""
        i_dec, i_sb = self.i_dec, self.i_sb
        (a0, b0), (a1, b1) = pairs
        if self.alu_forwarding:
            m.d.comb += self.bx_zero.eq(i_b.x == 0)
            div_a, div_b = i_a.x, i_b.x     # (a DIV issues with forwarded operands)
        else:                               # (per pair, as the compare)
            m.d.comb += self.bx_zero.eq(Mux(late_pair, b1.x == 0, b0.x == 0))
            div_a, div_b = self.i_a_held.x, self.i_b_held.x
        # the outlook's operands: the magnitudes and signs of I's lane-x operands, registered
        # every cycle (the DIV's when it issues): the negations' carry chains are then not in
        # front of the outlook's compares
        outlook = (self.outlook_mag_a, self.outlook_mag_b, self.outlook_negative_a,
                   self.outlook_negative_b)
        for port, value, name in zip(outlook, (magnitude(div_a), magnitude(div_b), div_a[31],
                                               div_b[31]),
                                     ("mag_a", "mag_b", "negative_a", "negative_b")):
            reg = Signal(len(port), name=f"outlook_{name}", reset_less=True)
            m.d.sync += reg.eq(value)
            m.d.comb += port.eq(reg)

        compare_reg = Signal()
        if self.alu_forwarding:
            m.d.sync += compare_reg.eq(self._compare(m, i_a, i_b, "compare"))
        else:
            # both operand pairs compared, the pair in use picked last (by a copy of
            # ``i_pair`` of its own): the pair multiplexers and i_pair's fan-out are not in
            # front of the compare's carry chains
            m.d.sync += compare_reg.eq(Mux(late_pair, self._compare(m, a1, b1, "compare_pair1"),
                                           self._compare(m, a0, b0, "compare_pair0")))
        # A vs 0 from the DIV outlook: A < 0 is "negative", A == 0 is "zero"
        early = jump_relation(m, i_dec.opcode, i_sb.negative, i_sb.zero, "early_compare")
        m.d.comb += self.condition.eq(Mux(i_sb.early_jump, early, compare_reg))

        # A as the ALU sees it: the forwarding multiplexer comes last (after the choice of
        # TMREAD's loaded vector / type II's immediate, made from registers), one level less
        # on the path ALU result -> forwarding -> SIMPLE adder -> ALU result
        type2_a = Signal(VectorLayout)
        m.d.comb += type2_a.x.eq(i_dec.imm)
        a_is_register = (i_dec.kind != Kind.TMREAD) & ~i_dec.type2
        alu_a = Mux(a_is_register, self.i_a_held.as_value(),
                    Mux(i_dec.type2, type2_a.as_value(), self.tm_data.as_value()))
        alu_b = self.i_b_held
        if self.alu_forwarding:
            alu_a = self._forwarded(m, alu_a, a_is_register & i_sb.a_hit, "alu_a")
            alu_b = i_b
        m.d.comb += [self.alu_a.eq(alu_a), self.alu_b.eq(alu_b)]

    def _compare(self, m, a, b, name):
        """The jump's relation of operand vectors ``a``, ``b`` (its lane, signed)."""
        opcode = self.i_dec.opcode
        lane_less = Signal(3, name=f"{name}_less")      # bit 2 = x ... bit 0 = z
        lane_equal = Signal(3, name=f"{name}_equal")
        for lane, bit in LANE_WMASK_BITS:
            difference = Signal(signed(33), name=f"{name}_{lane}")
            a_lane, b_lane = getattr(a, lane).as_signed(), getattr(b, lane).as_signed()
            m.d.comb += [difference.eq(a_lane - b_lane), lane_less[bit].eq(difference[32]),
                         lane_equal[bit].eq(a_lane == b_lane)]
        less = Signal(name=f"{name}_lane_less")
        equal = Signal(name=f"{name}_lane_equal")
        with m.Switch(opcode[3:5]):                # 01 x, 10 y, 11 z
            for sel, bit in ((1, 2), (2, 1), (3, 0)):
                with m.Case(sel):
                    m.d.comb += [less.eq(lane_less[bit]), equal.eq(lane_equal[bit])]
        return jump_relation(m, opcode, less, equal, name)


class _OperandInO:
    """O's operand: in its first cycle the register file's (``read``), later what it holds
    (``hold``), with the write landing now forwarded (``forward_for(name)``: a new 3-bit
    signal, the lanes to forward, from flip-flops of its own). A lane is the block RAM's word
    (``ram``) in O's first cycle where the register file says so and nothing is forwarded,
    else ``rest``'s. Every register that loads it has the block RAM's word (the late input) in
    its last multiplexer: ``load`` keeps what else it loads (``other``) apart, so synthesis
    does not fold the word into that logic, and picks it by a select of its own (one select
    driving all 96 bits of I's operand registers is a long route)."""

    def __init__(self, m, operands, o_first, read, hold, forward_for, name):
        self.m = m
        self.result = operands.result
        self.o_first = o_first
        self.name = name
        self.read = read
        self.forward_for = forward_for
        self.rest = Signal(VectorLayout, name=f"{name}_rest")
        forward = forward_for(f"{name}_rest")
        for lane, bit in LANE_WMASK_BITS:
            m.d.comb += getattr(self.rest, lane).eq(Mux(
                forward[bit], getattr(self.result, lane),
                Mux(o_first, getattr(read.early, lane), getattr(hold, lane))))

    def load(self, register, takes=Const(1), other=None):
        """``register`` loads the operand when ``takes``, else ``other`` (a VectorLayout
        value; by default it keeps its value)."""
        m = self.m
        name = f"{register.as_value().name}_from_{self.name}"
        kept = Signal(VectorLayout, name=f"{name}_other", attrs=KEEP)
        m.d.comb += kept.eq(Mux(takes, self.rest, register if other is None else other))
        forward = self.forward_for(name)
        for lane, bit in LANE_WMASK_BITS:
            take_ram = Signal(name=f"{name}_ram_{lane}")
            m.d.comb += take_ram.eq(takes & self.o_first & self.read.use_ram[bit]
                                    & ~forward[bit])
            m.d.sync += getattr(register, lane).eq(
                Mux(take_ram, getattr(self.read.ram, lane), getattr(kept, lane)))
