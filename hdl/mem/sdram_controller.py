"""An SDR SDRAM controller: one request bus in, the chip's pads out.

``SdramController(chip, clock_hz)`` serves ``bus`` (hdl/mem/sdram_bus.py: requests of 1 ..
``max_words`` words, write data, read data in order) on one SDR SDRAM (``chip``: an
``SdramChip``, hdl/mem/sdram_chip.py), clocked at ``clock_hz``, and drives ``pads`` (to
hdl/mem/sdram_phy.py's I/O registers).

* Power-up: NOPs for the chip's power-up wait, PRECHARGE ALL, the chip's AUTO REFRESHes, LOAD
  MODE REGISTER (burst length 1, the chip's CAS latency); then ``initialised``.
* Bursts of one word, a column command every cycle: a request's words go out as consecutive
  READs or WRITEs, so any length and alignment streams at one word a cycle, every word has its
  own byte mask (DQM), and no burst needs stopping. (The bus is at most 32 % busy with the
  scan-out of 640x480 at 60 Hz in 32-bit words: docs/sdram.md, "Bandwidth".)
* Open rows: each bank keeps its row open until another row of it is needed or a refresh
  closes all; a request to the open row goes straight to its column commands. The next piece
  of work (the splitter's output) is looked at too: when it is in another bank, its
  PRECHARGE and ACTIVE go out in the cycles the current piece leaves the command bus idle
  (waiting for tRP, tRCD or write data), so its row is often open when its turn comes.
* Refresh: every tREFI (rounded down to whole cycles) a refresh falls due; from that cycle no
  new command of a request is issued, the open banks are closed (PRECHARGE ALL as soon as their
  tRAS/tWR allow) and AUTO REFRESH follows after tRP: at most a few cycles late, never
  postponed, so the average rate is exact. The request resumes afterwards.
* Every gap the chip needs (tRCD, tRP, tRAS, tRC, tRRD, tWR, tRFC, tMRD; the bus turnaround
  from read data to write data) is a small down-counter (``Gap``), per bank where the rule is.

Latency and pipeline: a request passes a skid buffer and the row splitter (hdl/mem/
sdram_request.py) into the "current piece" registers; each cycle one command is chosen from
flip-flops only (the current and the next piece, their row-hit flags, the gap counters, the
FIFOs' levels) and registered into ``pads``; the PHY's I/O registers add one cycle out and one
in, and the read word is registered once more before the read FIFO: ``read_latency`` cycles
from a READ's decision to its word in the FIFO (``plan.read_delay`` + 4). Write data wait in
a small FIFO, read data in a ``read_buffer``-word FIFO; a READ is issued only while the words
already asked for fit in it, so ``rdata`` may stall without losing data.
"""

from amaranth import Array, Cat, Const, Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.fifo import SyncFIFOBuffered
from amaranth.lib.wiring import In, Out

from hdl.lib.pipeline import delay
from hdl.lib.select import one_hot_select
from hdl.mem.gap import Gap
from hdl.mem.sdram_bus import Command, SdramBus, SdramPads, mode_register, write_layout
from hdl.mem.sdram_chip import ULX3S_SDRAM
from hdl.mem.sdram_clock import plan_sdram_clock
from hdl.mem.sdram_request import RowSplitter, piece_layout

__all__ = ["SdramController", "PAD_REGISTERS"]

#: registers between the decision and the chip (the pads register, the I/O cell's), and from
#: the pin back to the read FIFO (the I/O cell's, the capture register)
PAD_REGISTERS = 2


class SdramController(wiring.Component):
    """Ports: ``bus`` (In(SdramBus)), ``pads`` (Out(SdramPads)), ``initialised``.

    ``plan``: the ``SdramClockPlan`` of the board (default ``plan_sdram_clock(chip,
    clock_hz)``); its ``read_delay`` sets when read data are caught. ``max_words``: the longest
    request; ``read_buffer``/``write_buffer``: FIFO depths in words."""

    def __init__(self, chip=ULX3S_SDRAM, clock_hz=75e6, *, plan=None, max_words=16,
                 read_buffer=16, write_buffer=4):
        self.chip = chip
        self.clock_hz = clock_hz
        self.timing = chip.cycles(clock_hz)
        self.plan = plan or plan_sdram_clock(chip, clock_hz)
        if self.plan.cas_latency != chip.cas_latency:
            raise ValueError(f"the clock plan is for CAS latency {self.plan.cas_latency}, "
                             f"the chip's is {chip.cas_latency}")
        self.max_words = max_words
        self.read_buffer = read_buffer
        self.write_buffer = write_buffer
        super().__init__({
            "bus": In(SdramBus(chip, max_words)),
            "pads": Out(SdramPads(chip)),
            "initialised": Out(1),
        })

    @property
    def read_latency(self):
        """Cycles from a READ's decision to its word entering the read FIFO."""
        return PAD_REGISTERS + self.plan.read_delay + PAD_REGISTERS

    def elaborate(self, platform):
        m = Module()
        chip, t = self.chip, self.timing

        # the bus: requests in pieces, write and read FIFOs
        m.submodules.splitter = splitter = RowSplitter(chip, self.max_words)
        wiring.connect(m, wiring.flipped(self.bus.cmd), splitter.i)
        wlayout = write_layout(chip)
        m.submodules.write_fifo = wfifo = SyncFIFOBuffered(width=wlayout.size,
                                                           depth=self.write_buffer)
        m.d.comb += [wfifo.w_en.eq(self.bus.wdata.valid),
                     wfifo.w_data.eq(self.bus.wdata.payload),
                     self.bus.wdata.ready.eq(wfifo.w_rdy)]
        m.submodules.read_fifo = rfifo = SyncFIFOBuffered(width=chip.data_width,
                                                          depth=self.read_buffer)
        popped = Signal()
        m.d.comb += [self.bus.rdata.valid.eq(rfifo.r_rdy),
                     self.bus.rdata.payload.eq(rfifo.r_data),
                     rfifo.r_en.eq(self.bus.rdata.ready), popped.eq(rfifo.r_rdy & rfifo.r_en)]

        st = _State(chip, t, self.max_words, self.read_buffer)
        st.head, st.head_valid = splitter.o.payload, splitter.o.valid
        st.head_sel = Signal(chip.banks)
        m.d.comb += st.head_sel.eq(Const(1, chip.banks) << st.head.bank)
        issue = _Issue()
        run = Signal()          # pieces may issue (the RUN state, no refresh due, no tRFC/tMRD)
        self._choose(m, st, issue, run, wfifo)
        self._sequence(m, run, issue, st)
        self._drive_pads(m, st, issue, data.View(wlayout, wfifo.r_data))
        m.d.comb += wfifo.r_en.eq(issue.write)

        captured = Signal(chip.data_width, reset_less=True)
        m.d.sync += captured.eq(self.pads.dq_i)
        arrived = delay(m, "read", {"valid": issue.read}, self.read_latency)["valid"]
        m.d.comb += [rfifo.w_en.eq(arrived), rfifo.w_data.eq(captured)]
        m.d.sync += st.outstanding.eq(st.outstanding + issue.read - popped)

        free = ~st.cur_valid | (issue.column & (st.cur.words_minus_one == 0))
        m.d.comb += splitter.o.ready.eq(free)
        self._track_pieces(m, st, issue, free)
        self._track_banks(m, st, issue)
        return m

    def _choose(self, m, st, issue, run, wfifo):
        """This cycle's command of the current piece, or else one opening the next piece's
        row in another bank (its PRECHARGE or ACTIVE in a slot the current piece leaves
        idle: waiting for tRCD, tRP or write data, or streaming into the next bank)."""
        def ready(gaps, sel):
            return (Cat(g.ready for g in gaps) & sel).any()

        go = run & st.cur_valid
        col_ok = go & st.cur_hit & ready(st.rw_gap, st.cur_sel)
        m.d.comb += [
            issue.act_cur.eq(go & ~st.cur_hit & ~st.cur_conflict
                             & ready(st.act_gap, st.cur_sel) & st.rrd_gap.ready),
            issue.pre_cur.eq(go & st.cur_conflict & ready(st.pre_gap, st.cur_sel)),
            issue.read.eq(col_ok & ~st.cur.write & (st.outstanding < self.read_buffer)),
            issue.write.eq(col_ok & st.cur.write & wfifo.r_rdy & st.turn_gap.ready),
        ]
        cur_idle = ~(issue.act_cur | issue.pre_cur | issue.read | issue.write)
        ahead = go & cur_idle & st.head_valid & st.head_fresh & ~(st.head_sel & st.cur_sel).any()
        m.d.comb += [
            issue.act_next.eq(ahead & ~st.head_hit & ~st.head_conflict
                              & ready(st.act_gap, st.head_sel) & st.rrd_gap.ready),
            issue.pre_next.eq(ahead & st.head_conflict & ready(st.pre_gap, st.head_sel)),
        ]

    def _drive_pads(self, m, st, issue, write_word):
        """The command of this cycle into the pads' registers."""
        pads, chip = self.pads, self.chip
        command = one_hot_select(m, [
            (issue.act, Command.ACTIVE), (issue.read, Command.READ),
            (issue.write, Command.WRITE), (issue.pre | issue.prea, Command.PRECHARGE),
            (issue.ref, Command.AUTO_REFRESH), (issue.mrs, Command.LOAD_MODE)], 3)
        address = one_hot_select(m, [
            (issue.act_cur, st.cur.row), (issue.act_next, st.head.row),
            (issue.column, st.cur.col), (issue.prea, 1 << 10),
            (issue.mrs, mode_register(chip))], chip.row_bits)
        bank = one_hot_select(m, [(issue.act_next | issue.pre_next, st.head.bank),
                                  (issue.act_cur | issue.pre_cur | issue.column, st.cur.bank)],
                              len(pads.ba))
        m.d.sync += [
            pads.clk_en.eq(1), pads.cs.eq(1),
            Cat(pads.we, pads.cas, pads.ras).eq(command),
            pads.a.eq(address), pads.ba.eq(bank),
            pads.dq_o.eq(write_word.data), pads.dq_oe.eq(issue.write),
            pads.dqm.eq(Mux(issue.write, ~write_word.byte_enable, 0)),
        ]

    def _track_pieces(self, m, st, issue, free):
        """The current piece (loaded from the head when ``free``) and the head's row status,
        each as this cycle's command leaves the banks."""
        head, banks = st.head, self.chip.banks
        same_bank = head.bank == st.cur.bank
        act_here = issue.act_cur & same_bank
        closed_here = (issue.pre_cur & same_bank) | issue.prea
        table_open = st.bank_open.bit_select(head.bank, 1) & ~closed_here
        table_match = st.rows[head.bank] == head.row
        cur_match = st.cur.row == head.row
        head_hit = Mux(act_here, cur_match, table_open & table_match)
        head_conflict = Mux(act_here, ~cur_match, table_open & ~table_match)
        with m.If(free):
            m.d.sync += [st.cur_valid.eq(st.head_valid), st.cur.eq(head),
                         st.cur_sel.eq(Const(1, banks) << head.bank),
                         st.cur_hit.eq(head_hit), st.cur_conflict.eq(head_conflict),
                         st.head_fresh.eq(0)]   # a new head (if any) next cycle
        with m.Else():
            with m.If(issue.column):
                m.d.sync += [st.cur.col.eq(st.cur.col + 1),
                             st.cur.words_minus_one.eq(st.cur.words_minus_one - 1)]
            with m.If(issue.act_cur):
                m.d.sync += st.cur_hit.eq(1)
            with m.If(issue.pre_cur | issue.prea):
                m.d.sync += [st.cur_hit.eq(0), st.cur_conflict.eq(0)]
            # the head stays: its status (from these flip-flops the next cycle)
            m.d.sync += [st.head_fresh.eq(st.head_valid),
                         st.head_hit.eq(issue.act_next | ~issue.pre_next & head_hit),
                         st.head_conflict.eq(~issue.act_next & ~issue.pre_next & head_conflict)]

    def _track_banks(self, m, st, issue):
        """Open rows and the gaps, per bank, after this cycle's command."""
        t = self.timing
        for b in range(self.chip.banks):
            act = (issue.act_cur & st.cur_sel[b]) | (issue.act_next & st.head_sel[b])
            pre = (issue.pre_cur & st.cur_sel[b]) | (issue.pre_next & st.head_sel[b]) | issue.prea
            with m.If(act):     # (an ACTIVE to the current piece's bank is the piece's own)
                m.d.sync += [st.bank_open[b].eq(1),
                             st.rows[b].eq(Mux(st.cur_sel[b], st.cur.row, st.head.row))]
            with m.If(pre):
                m.d.sync += st.bank_open[b].eq(0)
            st.act_gap[b].after(act, t.rc)
            st.act_gap[b].after(pre, t.rp)
            st.rw_gap[b].after(act, t.rcd)
            st.pre_gap[b].after(act, t.ras)
            st.pre_gap[b].after(issue.write & st.cur_sel[b], t.wr)
        st.rrd_gap.after(issue.act, t.rrd)
        st.busy_gap.after(issue.ref, t.rfc)
        st.busy_gap.after(issue.mrs, t.mrd)
        st.turn_gap.after(issue.read, t.cas_latency + 2)
        for gap in st.gaps():
            gap.update(m)

    def _sequence(self, m, run, issue, st):
        """Power-up, refresh and the state in which requests run."""
        t = self.timing
        issue_prea, issue_ref, issue_mrs = issue.prea, issue.ref, issue.mrs
        bank_open, busy_gap = st.bank_open, st.busy_gap
        all_act_ready = Cat(g.ready for g in st.act_gap).all()
        open_pre_ready = (Cat(g.ready for g in st.pre_gap) | ~bank_open).all()
        power_up = Signal(range(t.power_up + 1), init=t.power_up)
        refreshes_left = Signal(range(t.init_refreshes + 1))
        refresh_timer = Signal(range(t.refi), init=t.refi - 1)
        refresh_due = Signal()
        idle = all_act_ready & busy_gap.ready       # banks precharged long enough, no tRFC/tMRD

        with m.If(self.initialised):
            with m.If(issue_ref):
                m.d.sync += refresh_due.eq(0)
            with m.If(refresh_timer == 0):
                m.d.sync += [refresh_timer.eq(t.refi - 1), refresh_due.eq(1)]
            with m.Else():
                m.d.sync += refresh_timer.eq(refresh_timer - 1)

        with m.FSM():
            with m.State("POWER_UP"):
                m.d.sync += power_up.eq(power_up - 1)
                with m.If(power_up == 0):
                    m.next = "INIT_PRECHARGE"
            with m.State("INIT_PRECHARGE"):
                m.d.comb += issue_prea.eq(1)
                m.d.sync += refreshes_left.eq(t.init_refreshes)
                m.next = "INIT_REFRESH"
            with m.State("INIT_REFRESH"):
                with m.If(idle):
                    m.d.comb += issue_ref.eq(1)
                    m.d.sync += refreshes_left.eq(refreshes_left - 1)
                    with m.If(refreshes_left == 1):
                        m.next = "INIT_MODE"
            with m.State("INIT_MODE"):
                with m.If(idle):
                    m.d.comb += issue_mrs.eq(1)
                    m.d.sync += self.initialised.eq(1)
                    m.next = "RUN"
            with m.State("RUN"):
                m.d.comb += run.eq(~refresh_due & busy_gap.ready)
                with m.If(refresh_due):
                    m.next = "CLOSE"
            with m.State("CLOSE"):
                with m.If(~bank_open.any()):
                    m.next = "REFRESH"
                with m.Elif(open_pre_ready):
                    m.d.comb += issue_prea.eq(1)
                    m.next = "REFRESH"
            with m.State("REFRESH"):
                with m.If(idle):
                    m.d.comb += issue_ref.eq(1)
                    m.next = "RUN"


class _Issue:
    """The commands this cycle may issue (at most one is set)."""

    def __init__(self):
        self.act_cur, self.pre_cur = Signal(), Signal()      # for the current piece ...
        self.act_next, self.pre_next = Signal(), Signal()    # ... for the next one
        self.read, self.write = Signal(), Signal()
        self.prea, self.ref, self.mrs = Signal(), Signal(), Signal()
        self.act = self.act_cur | self.act_next
        self.pre = self.pre_cur | self.pre_next
        self.column = self.read | self.write


class _State:
    """The controller's registers: the current piece and the head's status, the banks' open
    rows and their gaps (``Gap``: cycles until a command may follow), the reads in flight."""

    def __init__(self, chip, t, max_words, read_buffer):
        banks = chip.banks
        self.cur = Signal(piece_layout(chip, max_words))
        self.cur_valid = Signal()
        self.cur_sel = Signal(banks)        # one-hot of cur.bank
        self.cur_hit = Signal()             # its bank has its row open
        self.cur_conflict = Signal()        # its bank has another row open
        self.head_fresh = Signal()          # the next piece's status below is up to date
        self.head_hit = Signal()
        self.head_conflict = Signal()
        self.bank_open = Signal(banks)
        self.rows = Array(Signal(chip.row_bits, name=f"row{b}") for b in range(banks))
        self.act_gap = [Gap(max(t.rc, t.rp), f"act_gap{b}") for b in range(banks)]
        self.rw_gap = [Gap(t.rcd, f"rw_gap{b}") for b in range(banks)]
        self.pre_gap = [Gap(max(t.ras, t.wr), f"pre_gap{b}") for b in range(banks)]
        self.rrd_gap = Gap(t.rrd, "rrd_gap")
        self.busy_gap = Gap(max(t.rfc, t.mrd), "busy_gap")   # after AUTO REFRESH, LOAD MODE
        self.turn_gap = Gap(t.cas_latency + 2, "turn_gap")   # read data off DQ before a WRITE
        self.outstanding = Signal(range(read_buffer + 1))    # READs not yet taken
        self.head = self.head_valid = self.head_sel = None   # the splitter's output

    def gaps(self):
        return self.act_gap + self.rw_gap + self.pre_gap + [self.rrd_gap, self.busy_gap,
                                                            self.turn_gap]
