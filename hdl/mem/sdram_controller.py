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
  closes all; a request to the open row goes straight to its column commands.
* Refresh: every tREFI (rounded down to whole cycles) a refresh falls due; from that cycle no
  new command of a request is issued, the open banks are closed (PRECHARGE ALL as soon as their
  tRAS/tWR allow) and AUTO REFRESH follows after tRP: at most a few cycles late, never
  postponed, so the average rate is exact. The request resumes afterwards.
* Every gap the chip needs (tRCD, tRP, tRAS, tRC, tRRD, tWR, tRFC, tMRD; the bus turnaround
  from read data to write data) is a small down-counter (``Gap``), per bank where the rule is.

Latency and pipeline: a request passes a skid buffer and the row splitter (hdl/mem/
sdram_request.py) into the "current piece" registers; each cycle one command is chosen from
flip-flops only (the piece, its row-hit flags, the gap counters, the FIFOs' levels) and
registered into ``pads``; the PHY's I/O registers add one cycle out and one in, and the read
word is registered once more before the read FIFO: ``read_latency`` cycles from a READ's
decision to its word in the FIFO (``plan.read_delay`` + 4). Write data wait in a small FIFO,
read data in a ``read_buffer``-word FIFO; a READ is issued only while the words already asked
for fit in it, so ``rdata`` may stall without losing data.
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
        banks = chip.banks

        # --- the bus: requests in pieces, write and read FIFOs -------------------------------
        m.submodules.splitter = splitter = RowSplitter(chip, self.max_words)
        wiring.connect(m, wiring.flipped(self.bus.cmd), splitter.i)
        wlayout = write_layout(chip)
        m.submodules.write_fifo = wfifo = SyncFIFOBuffered(width=wlayout.size,
                                                           depth=self.write_buffer)
        m.d.comb += [wfifo.w_en.eq(self.bus.wdata.valid),
                     wfifo.w_data.eq(self.bus.wdata.payload),
                     self.bus.wdata.ready.eq(wfifo.w_rdy)]
        write_word = data.View(wlayout, wfifo.r_data)
        m.submodules.read_fifo = rfifo = SyncFIFOBuffered(width=chip.data_width,
                                                          depth=self.read_buffer)
        popped = Signal()
        m.d.comb += [self.bus.rdata.valid.eq(rfifo.r_rdy),
                     self.bus.rdata.payload.eq(rfifo.r_data),
                     rfifo.r_en.eq(self.bus.rdata.ready), popped.eq(rfifo.r_rdy & rfifo.r_en)]

        # --- state: the current piece, the banks, the gaps -----------------------------------
        cur = Signal(piece_layout(chip, self.max_words))
        cur_valid = Signal()
        cur_sel = Signal(banks)             # one-hot of cur.bank
        cur_hit = Signal()                  # its bank has its row open
        cur_conflict = Signal()             # its bank has another row open
        bank_open = Signal(banks)
        rows = Array(Signal(chip.row_bits, name=f"row{b}") for b in range(banks))
        act_gap = [Gap(max(t.rc, t.rp), f"act_gap{b}") for b in range(banks)]
        rw_gap = [Gap(t.rcd, f"rw_gap{b}") for b in range(banks)]
        pre_gap = [Gap(max(t.ras, t.wr), f"pre_gap{b}") for b in range(banks)]
        rrd_gap = Gap(t.rrd, "rrd_gap")
        busy_gap = Gap(max(t.rfc, t.mrd), "busy_gap")      # after AUTO REFRESH, LOAD MODE
        turn_gap = Gap(t.cas_latency + 2, "turn_gap")      # READ data off DQ before a WRITE
        outstanding = Signal(range(self.read_buffer + 1))  # READs not yet taken from the FIFO

        def ready_for_cur(gaps):
            return (Cat(g.ready for g in gaps) & cur_sel).any()

        all_act_ready = Cat(g.ready for g in act_gap).all()
        open_pre_ready = (Cat(g.ready for g in pre_gap) | ~bank_open).all()

        # --- choosing this cycle's command ---------------------------------------------------
        run = Signal()          # the current piece may issue (set in the RUN state)
        issue_prea, issue_ref, issue_mrs = Signal(), Signal(), Signal()
        issue_act, issue_pre, issue_read, issue_write = Signal(), Signal(), Signal(), Signal()
        issue_col = issue_read | issue_write
        go = run & cur_valid
        col_ok = go & cur_hit & ready_for_cur(rw_gap)
        m.d.comb += [
            issue_act.eq(go & ~cur_hit & ~cur_conflict & ready_for_cur(act_gap) & rrd_gap.ready),
            issue_pre.eq(go & cur_conflict & ready_for_cur(pre_gap)),
            issue_read.eq(col_ok & ~cur.write & (outstanding < self.read_buffer)),
            issue_write.eq(col_ok & cur.write & wfifo.r_rdy & turn_gap.ready),
            wfifo.r_en.eq(issue_write),
        ]
        self._sequence(m, run, issue_prea, issue_ref, issue_mrs, all_act_ready,
                       open_pre_ready, bank_open, busy_gap)

        # --- the pads: every output a register -----------------------------------------------
        pads = self.pads
        command = one_hot_select(m, [
            (issue_act, Command.ACTIVE), (issue_read, Command.READ),
            (issue_write, Command.WRITE), (issue_pre | issue_prea, Command.PRECHARGE),
            (issue_ref, Command.AUTO_REFRESH), (issue_mrs, Command.LOAD_MODE)], 3)
        address = one_hot_select(m, [
            (issue_act, cur.row), (issue_col, cur.col), (issue_prea, 1 << 10),
            (issue_mrs, mode_register(chip))], chip.row_bits)
        m.d.sync += [
            pads.clk_en.eq(1), pads.cs.eq(1),
            Cat(pads.we, pads.cas, pads.ras).eq(command),
            pads.a.eq(address), pads.ba.eq(Mux(issue_mrs, 0, cur.bank)),
            pads.dq_o.eq(write_word.data), pads.dq_oe.eq(issue_write),
            pads.dqm.eq(Mux(issue_write, ~write_word.byte_enable, 0)),
        ]
        captured = Signal(chip.data_width, reset_less=True)
        m.d.sync += captured.eq(pads.dq_i)
        arrived = delay(m, "read", {"valid": issue_read}, self.read_latency)["valid"]
        m.d.comb += [rfifo.w_en.eq(arrived), rfifo.w_data.eq(captured)]
        m.d.sync += outstanding.eq(outstanding + issue_read - popped)

        # --- the current piece and the bank table --------------------------------------------
        head = splitter.o.payload
        free = ~cur_valid | (issue_col & (cur.words_minus_one == 0))
        m.d.comb += splitter.o.ready.eq(free)
        # the head's row against the banks as this cycle's command leaves them
        same_bank = head.bank == cur.bank
        act_here = issue_act & same_bank
        closed_here = (issue_pre & same_bank) | issue_prea
        table_open = bank_open.bit_select(head.bank, 1) & ~closed_here
        table_match = rows[head.bank] == head.row
        cur_match = cur.row == head.row
        with m.If(free):
            m.d.sync += [cur_valid.eq(splitter.o.valid), cur.eq(head),
                         cur_sel.eq(Const(1, banks) << head.bank),
                         cur_hit.eq(Mux(act_here, cur_match, table_open & table_match)),
                         cur_conflict.eq(Mux(act_here, ~cur_match, table_open & ~table_match))]
        with m.Else():
            with m.If(issue_col):
                m.d.sync += [cur.col.eq(cur.col + 1),
                             cur.words_minus_one.eq(cur.words_minus_one - 1)]
            with m.If(issue_act):
                m.d.sync += cur_hit.eq(1)
            with m.If(issue_pre | issue_prea):
                m.d.sync += [cur_hit.eq(0), cur_conflict.eq(0)]
        for b in range(banks):
            mine = cur_sel[b]
            with m.If(issue_act & mine):
                m.d.sync += [bank_open[b].eq(1), rows[b].eq(cur.row)]
            with m.If((issue_pre & mine) | issue_prea):
                m.d.sync += bank_open[b].eq(0)
            act_gap[b].after(issue_act & mine, t.rc)
            act_gap[b].after((issue_pre & mine) | issue_prea, t.rp)
            rw_gap[b].after(issue_act & mine, t.rcd)
            pre_gap[b].after(issue_act & mine, t.ras)
            pre_gap[b].after(issue_write & mine, t.wr)
        rrd_gap.after(issue_act, t.rrd)
        busy_gap.after(issue_ref, t.rfc)
        busy_gap.after(issue_mrs, t.mrd)
        turn_gap.after(issue_read, t.cas_latency + 2)
        for gap in act_gap + rw_gap + pre_gap + [rrd_gap, busy_gap, turn_gap]:
            gap.update(m)
        return m

    def _sequence(self, m, run, issue_prea, issue_ref, issue_mrs, all_act_ready,
                  open_pre_ready, bank_open, busy_gap):
        """Power-up, refresh and the state in which requests run."""
        t = self.timing
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
