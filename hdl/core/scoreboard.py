"""The core's scoreboard: which registers have writes in flight, and whether I may issue.

Hazards are invisible to programs. Per register the scoreboard counts the writes in flight
(0-3) and keeps the latency rank of the latest (the WAW rule compares latencies only): a reader
(RAW) waits until the last write lands (the write landing in the same cycle is forwarded into
the operands), and a second writer (WAW) may issue only if it lands later than the one in
flight (a latency at least as long), so writes to a register land in program order. The state
is kept as bit planes (one bit per register in each), so lookups are bit selects and the update
a few wide operations. Only registers EXE writes are ever in flight: the planes' other bits
stay 0 and synthesis drops their flip-flops.

**DIV outlook.** For a DIV in flight the scoreboard also holds the outlook of lane x of its
result (sign and zero-ness, hdl/core/div_outlook.py), worked out in the cycle after the DIV
issues from its registered lane-x operands: a conditional jump on lane x that compares that
register with an operand whose x is 0 decides from the outlook without waiting for the divider
(``early_jump``). Any other write forgets a register's outlook.

**Views.** What the scoreboard says about the registers of the instruction in I is looked up
while it is in O and kept in flip-flops (``ScoreboardView``), brought up to date with each
cycle's events, so the issue decision starts from flip-flops instead of 132-way multiplexers:

* the planes take a cycle's issue a cycle late, from registers (the event, ``ev_*``): the issue
  decision then drives a dozen flip-flops instead of every plane bit; a view looked up
  meanwhile adds the event to what the planes say. An outlook reaches its planes a cycle after
  it is worked out (``od_*``).
* O's registers are looked up while the instruction is in A (``PlaneView``, the 86-way plane
  multiplexers end in registers) and stepped with every plane update while it is in O; the
  candidate O takes is picked a cycle late, like I's view below.
* I's next view is worked out for all three outcomes of the cycle (I keeps its instruction; O's
  moves in, with a write issued now or without), each registered as it is, and picked a cycle
  late by registered flags (``took``, ``wrote``): the issue decision meets the view logic in one
  multiplexer, not at its start.

From a view, ``decide`` works out the instruction's ``hazard``, ``early_jump`` and ``blocked``
(hazard, or its write-port cycle is taken). A conditional jump decides from a compare
registered in the cycle before (hdl/core/operands.py), so it waits in its first cycle in I and
in a cycle one of its operands lands. Without ``alu_forwarding`` the ALU and the jump compare
take I's operand registers only: their readers wait for the cycle after the landing.
"""

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from hdl.core.decode import Decoded, LATENCY_RANK_BITS
from hdl.core.div_outlook import DivOutlook
from hdl.core.regfile import in_swap_bank
from hdl.core.writeback import WritebackTag
from hdl.isa import BANKS, BANK_SWAP, Kind, NUM_REGS
from hdl.lib.synthesis import KEEP

__all__ = ["Scoreboard", "ScoreboardView", "PlaneView"]


class ScoreboardView(data.Struct):
    """What the scoreboard says about the registers of the instruction in I (kept in
    flip-flops: looked up while the instruction is in O)."""
    a_count: 2            # writes in flight to SRC1, B and DST (including one landing now)
    b_count: 2
    dst_count: 2
    a_hit: 1              # a write to SRC1 / B / DST lands now
    b_hit: 1
    dst_hit: 1
    lands_after: 1        # a write of this latency to DST lands after the latest in flight
    slot_taken: 1         # the write port is reserved for the cycle this (register) result
                          # would land
    known: 1              # SRC1's DIV outlook (lane x): known, negative, zero
    negative: 1
    zero: 1
    # what follows from the above for the instruction (hazard: it must wait; early_jump: a
    # conditional jump decided from the outlook)
    hazard: 1
    early_jump: 1
    blocked: 1            # hazard or slot_taken: the instruction cannot issue
    settling_a: 1         # SRC1 / B landed last cycle (the jump compare from I's registers
    settling_b: 1         # is a cycle behind)


class PlaneView(data.Struct):
    """What the scoreboard's planes say about the registers of the instruction in O (looked
    up while it is in A, then kept up to date with the planes' updates)."""
    a_count: 2            # writes in flight to SRC1, B and DST
    b_count: 2
    dst_count: 2
    dst_rank: LATENCY_RANK_BITS   # latency rank of the latest write to DST
    outlook: 3            # SRC1's outlook: known, negative, zero


#: the registers EXE writes (the only ones ever in flight)
_EXE_WRITTEN = sum(((1 << bank.size) - 1) << bank.first for bank in BANKS if bank.exe_write)


def _is_pending(count, hit):
    """A reader waits unless the landing write is the last one in flight."""
    return (count > 1) | ((count == 1) & ~hit)


class Scoreboard(wiring.Component):
    """Parameters: ``max_latency`` (the write-port reservations' length), ``alu_forwarding``.

    In: A's register numbers (``a_lookup_*``, ``a_lookup_more_*``), ``o_dec``, ``o_takes``,
    ``i_dec``, ``i_div`` (a DIV is in I), ``i_takes``, ``issued_write`` (I issues a register
    write now), W's ``w_lands``/``w_tag``/``w_slots``/``next_tag``/``i_tag``, the DIV outlook's
    operands (``outlook_*``), ``bx_zero``. Out: ``i_sb`` (I's view), ``swap_idle`` (no write to
    the swap bank in flight, registered), ``pending`` (some write in flight), ``event``
    (a write issued last cycle is not in the planes yet)."""

    def __init__(self, max_latency, alu_forwarding):
        self.alu_forwarding = alu_forwarding
        super().__init__({
            "a_lookup_src1": In(8), "a_lookup_b": In(8), "a_lookup_dst": In(8),
            "a_lookup_more_src1": In(8), "a_lookup_more_dst": In(8),
            "o_dec": In(Decoded), "o_takes": In(1),
            "i_dec": In(Decoded), "i_div": In(1), "i_takes": In(1), "issued_write": In(1),
            "w_lands": In(1), "w_tag": In(WritebackTag), "w_slots": In(max_latency + 1),
            "next_tag": In(WritebackTag), "i_tag": In(WritebackTag),
            "outlook_mag_a": In(32), "outlook_mag_b": In(32),
            "outlook_negative_a": In(1), "outlook_negative_b": In(1), "bx_zero": In(1),
            "i_sb": Out(ScoreboardView), "swap_idle": Out(1, init=1), "pending": Out(1),
            "event": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.div_outlook = outlook = DivOutlook()
        m.d.comb += [outlook.mag_a.eq(self.outlook_mag_a), outlook.mag_b.eq(self.outlook_mag_b),
                     outlook.negative_a.eq(self.outlook_negative_a),
                     outlook.negative_b.eq(self.outlook_negative_b)]
        self._outlook_now = Cat(outlook.known, outlook.negative, outlook.zero)
        self._outlook = outlook
        self._state(m)
        self._events(m)
        self._o_planes(m)
        self._i_view(m)
        self._plane_updates(m)
        return m

    # --- state and the events not in the planes yet -------------------------------------------

    def _state(self, m):
        self.count_lo = Signal(NUM_REGS)
        self.count_hi = Signal(NUM_REGS)
        self.latency_planes = [Signal(NUM_REGS, name=f"last_latency_rank_bit{k}",
                                      reset_less=True) for k in range(LATENCY_RANK_BITS)]
        m.d.comb += self.pending.eq((self.count_lo | self.count_hi) != 0)
        self.outlook_known = Signal(NUM_REGS)
        self.outlook_negative = Signal(NUM_REGS, reset_less=True)
        self.outlook_zero = Signal(NUM_REGS, reset_less=True)
        self.ev_valid = Signal()            # a write issued last cycle ...
        self.ev_dst = Signal(8)             # ... to this register
        self.ev_rank = Signal(LATENCY_RANK_BITS)
        self.ev_div_x = Signal()            # ... by a DIV writing lane x: its outlook is due now
        self.od_valid = Signal()            # an outlook worked out last cycle ...
        self.od_dst = Signal(8)             # ... of this register
        self.od_outlook = Signal(3)         # known, negative, zero
        m.d.comb += self.event.eq(self.ev_valid)

    def _events(self, m):
        """The helpers that add the cycle's events to what the planes say."""
        w_tag, next_tag, i_dec = self.w_tag, self.next_tag, self.i_dec
        dst = i_dec.dst[:8]

        def lands_now(addr):
            """The write landing this cycle is to register ``addr``."""
            return self.w_lands & (w_tag.addr == addr[:8])

        def lands_next(addr, issues):
            """A write lands next cycle in ``addr`` (``issues``: one issues now, a Python
            bool: a result of latency 1 then lands next cycle)."""
            from_ring = self.w_slots[1] & (next_tag.wmask != 0) & (next_tag.addr == addr)
            if not issues:
                return from_ring
            bypass = i_dec.latency == 1
            return Mux(bypass, (dst == addr) & (i_dec.wmask != 0), from_ring)

        def event_to(addr):
            """Last cycle's write issued to register ``addr`` (not in the planes yet)."""
            return self.ev_valid & (self.ev_dst == addr)

        def count_step(count, addr):
            """``count`` (what the planes say of ``addr``) after this cycle's plane update:
            the event in, the landing write out."""
            return (count + event_to(addr) - lands_now(addr))[:2]

        def outlook_known_of(addr, from_planes):
            """(known, negative, zero) of ``addr``'s outlook from what the planes say
            (``from_planes``) and the events not in them yet: last cycle's issue (forgets it,
            unless a DIV whose outlook is worked out now) and last cycle's outlook."""
            from_od = Mux(self.od_valid & (self.od_dst == addr), self.od_outlook, from_planes)
            return Mux(event_to(addr), Mux(self.ev_div_x, self._outlook_now, 0), from_od)

        self.lands_next, self.event_to, self.count_step = lands_next, event_to, count_step
        self.outlook_known_of = outlook_known_of

    # --- O: the planes' view, stepped ----------------------------------------------------------

    def _planes_of(self, src1, b_addr, dst_addr, more_src1, more_dst):
        """The planes' PlaneView of the registers of an instruction (``more_``: copies of
        SRC1's and DST's numbers for the latency and outlook planes)."""
        def count(addr):
            return Cat(self.count_lo.bit_select(addr, 1), self.count_hi.bit_select(addr, 1))
        return Cat(count(src1), count(b_addr), count(dst_addr),
                   Cat(plane.bit_select(more_dst, 1) for plane in self.latency_planes),
                   Cat(plane.bit_select(more_src1, 1)
                       for plane in (self.outlook_known, self.outlook_negative,
                                     self.outlook_zero)))

    def _planes_step(self, m, view, src1, b_addr, dst_addr):
        """``view`` (a PlaneView) after this cycle's plane update (the event, the write
        landing, the outlook due: the same rules as the planes')."""
        view = PlaneView(view)
        stepped = Signal(PlaneView)
        od_to = self.od_valid & (self.od_dst == src1)
        m.d.comb += [
            stepped.a_count.eq(self.count_step(view.a_count, src1)),
            stepped.b_count.eq(self.count_step(view.b_count, b_addr)),
            stepped.dst_count.eq(self.count_step(view.dst_count, dst_addr)),
            stepped.dst_rank.eq(Mux(self.event_to(dst_addr), self.ev_rank, view.dst_rank)),
            stepped.outlook.eq(Mux(od_to, self.od_outlook, view.outlook)),
        ]
        with m.If(self.event_to(src1)):
            m.d.comb += stepped.outlook[0].eq(0)
        return stepped

    def _o_planes(self, m):
        """O's PlaneView: both of next cycle's candidates (O takes A's instruction, looked up
        now; or keeps its own) registered as they are, picked by ``took`` (o_takes, registered):
        the issue decision, behind o_takes, then reaches one flip-flop, not the view's."""
        self.o_planes = o_planes = Signal(PlaneView)
        new = Signal(PlaneView, name="o_planes_new")
        kept = Signal(PlaneView, name="o_planes_kept")
        took = Signal(name="o_planes_took")
        a_lookup = (self.a_lookup_src1, self.a_lookup_b, self.a_lookup_dst)
        o_addrs = [self.o_dec.src1[:8], self.o_dec.b_addr[:8], self.o_dec.dst[:8]]
        m.d.comb += o_planes.eq(Mux(took, new, kept))
        m.d.sync += [new.eq(self._planes_step(m, self._planes_of(*a_lookup,
                                                                 self.a_lookup_more_src1,
                                                                 self.a_lookup_more_dst),
                                              *a_lookup)),
                     kept.eq(self._planes_step(m, o_planes, *o_addrs)),
                     took.eq(self.o_takes)]

    # --- I's view ------------------------------------------------------------------------------

    def _decide(self, m, view, dec, bx_zero, entering):
        """The view's ``hazard``, ``early_jump`` and ``blocked`` for instruction ``dec``
        (``bx_zero``: its B operand's x is 0; ``entering``: its first cycle in I)."""
        a_waits = dec.reads_a & _is_pending(view.a_count, view.a_hit)
        b_waits = dec.reads_b & _is_pending(view.b_count, view.b_hit)
        if not self.alu_forwarding:
            # the ALU and the jump compare take I's operand registers only: they wait for
            # the cycle after the landing
            from_registers = (dec.kind == Kind.ALU) | (dec.kind == Kind.BRANCH)
            a_waits = dec.reads_a & Mux(from_registers, view.a_count != 0,
                                        _is_pending(view.a_count, view.a_hit))
            b_waits = dec.reads_b & Mux(from_registers, view.b_count != 0,
                                        _is_pending(view.b_count, view.b_hit))
        is_branch = dec.kind == Kind.BRANCH
        # DIV outlook: a lane-x jump against B.x = 0 decided from the outlook of SRC1's DIV
        # (a B landing that cycle makes the jump wait the usual way)
        early_jump = (is_branch & (dec.opcode[3:5] == 0b01) & a_waits & view.known
                      & ~b_waits & ~view.b_hit & bx_zero)
        # WAW: a second write to a register may be in flight as long as it lands later (it
        # issues later with a latency at least as long), so results land in program order
        waw = (dec.writes_reg & _is_pending(view.dst_count, view.dst_hit)
               & ~(view.lands_after & (view.dst_count != 3)))
        if self.alu_forwarding:
            branch_waits = is_branch & ((Const(entering) & ~early_jump)
                                        | (dec.reads_a & view.a_hit & ~early_jump)
                                        | (dec.reads_b & view.b_hit))
        else:
            branch_waits = is_branch & (((Const(entering) | view.settling_a) & ~early_jump)
                                        | view.settling_b)
        hazard = (a_waits & ~early_jump) | b_waits | waw | branch_waits
        m.d.comb += [view.hazard.eq(hazard), view.early_jump.eq(early_jump),
                     view.blocked.eq(hazard | view.slot_taken)]

    def _view_of_o(self, m, issues):
        """I's view of O's instruction for next cycle (O moves into I), if a write issues now
        (``issues``) or not."""
        view = Signal(ScoreboardView, name=f"o_sb_{'issue' if issues else 'none'}", attrs=KEEP)
        o_dec, i_dec, o_planes = self.o_dec, self.i_dec, self.o_planes
        dst = i_dec.dst[:8]
        src1, b_addr, o_dst = o_dec.src1[:8], o_dec.b_addr[:8], o_dec.dst[:8]
        to_src1, to_b, to_dst = ((dst == r) if issues else Const(0)
                                 for r in (src1, b_addr, o_dst))
        o_last = Mux(self.event_to(o_dst), self.ev_rank, o_planes.dst_rank)
        src1_outlook = self.outlook_known_of(src1, o_planes.outlook)

        def count_next(count, addr, issues_to):
            return (self.count_step(count, addr) + issues_to)[:2]
        m.d.comb += [
            view.a_count.eq(count_next(o_planes.a_count, src1, to_src1)),
            view.b_count.eq(count_next(o_planes.b_count, b_addr, to_b)),
            view.dst_count.eq(count_next(o_planes.dst_count, o_dst, to_dst)),
            view.a_hit.eq(self.lands_next(src1, issues)),
            view.b_hit.eq(self.lands_next(b_addr, issues)),
            view.dst_hit.eq(self.lands_next(o_dst, issues)),
            view.lands_after.eq(Mux(to_dst, o_dec.latency_rank >= i_dec.latency_rank,
                                    o_dec.latency_rank >= o_last)),
            view.slot_taken.eq(o_dec.writes_reg
                               & (self.w_slots.bit_select(o_dec.latency + 1, 1)
                                  | (Const(issues) & (i_dec.latency == o_dec.latency + 1)))),
            view.known.eq(~to_src1 & src1_outlook[0]),
            view.negative.eq(src1_outlook[1]),
            view.zero.eq(src1_outlook[2]),
        ]
        # (B.x = 0 is not looked at here: O's operands come from the register file's block
        # RAM late in the cycle; a jump right behind its DIV waits a cycle for the outlook
        # anyway, and decides early from I's view next cycle)
        self._decide(m, view, o_dec, 0, entering=True)
        return view

    def _view_of_i(self, m):
        """I's view of its own instruction for next cycle (it stays: nothing issues, so no
        write does)."""
        view = Signal(ScoreboardView, name="i_sb_next", attrs=KEEP)
        i_sb, i_dec = self.i_sb, self.i_dec
        m.d.comb += [
            view.eq(i_sb),
            view.a_count.eq(i_sb.a_count - i_sb.a_hit),
            view.b_count.eq(i_sb.b_count - i_sb.b_hit),
            view.dst_count.eq(i_sb.dst_count - i_sb.dst_hit),
            view.a_hit.eq(self.lands_next(i_dec.src1[:8], False)),
            view.b_hit.eq(self.lands_next(i_dec.b_addr[:8], False)),
            view.dst_hit.eq(self.lands_next(i_dec.dst[:8], False)),
            view.slot_taken.eq(i_dec.writes_reg & self.w_slots.bit_select(i_dec.latency + 1, 1)),
            view.settling_a.eq(i_dec.reads_a & i_sb.a_hit),
            view.settling_b.eq(i_dec.reads_b & i_sb.b_hit),
        ]
        outlook = self._outlook
        with m.If(self.ev_valid & self.ev_div_x & (self.ev_dst == i_dec.src1[:8])):
            m.d.comb += [view.known.eq(outlook.known), view.negative.eq(outlook.negative),
                         view.zero.eq(outlook.zero)]
        self._decide(m, view, i_dec, self.bx_zero, entering=False)
        return view

    def _i_view(self, m):
        """I's view, chosen a cycle late among its three registered candidates."""
        stay = Signal(ScoreboardView)
        issue = Signal(ScoreboardView)
        none = Signal(ScoreboardView)
        took = Signal()
        wrote = Signal()
        m.d.comb += self.i_sb.eq(Mux(took, Mux(wrote, issue, none), stay))
        m.d.sync += [stay.eq(self._view_of_i(m)), issue.eq(self._view_of_o(m, True)),
                     none.eq(self._view_of_o(m, False)), wrote.eq(self.issued_write),
                     took.eq(self.i_takes)]

    # --- the planes' update --------------------------------------------------------------------

    def _plane_updates(self, m):
        count_lo, count_hi = self.count_lo, self.count_hi
        i_dec = self.i_dec
        dst = i_dec.dst[:8]
        exe_written = Const(_EXE_WRITTEN, NUM_REGS)
        issued = Signal(NUM_REGS)           # one-hot: the register last cycle's write issued to
        landed = Signal(NUM_REGS)           # one-hot: the register a write lands in
        is_div_x = Signal()
        m.d.comb += is_div_x.eq(self.i_div & i_dec.wmask[2])
        m.d.sync += [self.ev_valid.eq(self.issued_write), self.ev_dst.eq(dst),
                     self.ev_rank.eq(i_dec.latency_rank), self.ev_div_x.eq(is_div_x)]
        m.d.comb += [issued.eq(Mux(self.ev_valid, Const(1, NUM_REGS) << self.ev_dst, 0)
                               & exe_written),
                     landed.eq(Mux(self.w_lands, Const(1, NUM_REGS) << self.w_tag.addr, 0)
                               & exe_written)]
        toggle = issued ^ landed                  # counts that change (+1 or -1)
        next_lo = count_lo ^ toggle
        next_hi = count_hi ^ (toggle & ((issued & count_lo) | (landed & ~count_lo)))
        m.d.sync += [count_lo.eq(next_lo), count_hi.eq(next_hi)]
        # swap_idle from this cycle's counts, event and issue (not the next counts, which wait
        # for the issue decision and the count update): a write landing now keeps it low a
        # cycle longer, never too short
        swap_written = (count_lo | count_hi)[BANK_SWAP.first:BANK_SWAP.last + 1] != 0
        m.d.sync += self.swap_idle.eq(~swap_written & ~(self.ev_valid & in_swap_bank(self.ev_dst))
                                      & ~(self.issued_write & self.i_tag.swap.hit))
        for bit, plane in enumerate(self.latency_planes):
            m.d.sync += plane.eq(Mux(self.ev_rank[bit], plane | issued, plane & ~issued))
        outlook_due = self.ev_valid & self.ev_div_x
        m.d.sync += [self.od_valid.eq(outlook_due), self.od_dst.eq(self.ev_dst),
                     self.od_outlook.eq(self._outlook_now)]
        due = Signal(NUM_REGS)                    # one-hot: the register last cycle's outlook
        m.d.comb += due.eq(Mux(self.od_valid, Const(1, NUM_REGS) << self.od_dst, 0)
                           & exe_written)
        # a write issued after the DIV makes its register's outlook unknown (the event of
        # the DIV itself comes a cycle before its outlook; a later write's wins over it)
        for k, (plane, forget) in enumerate(((self.outlook_known, issued),
                                             (self.outlook_negative, 0),
                                             (self.outlook_zero, 0))):
            m.d.sync += plane.eq(((plane & ~due) | Mux(self.od_outlook[k], due, 0)) & ~forget)
