"""A model of an SDR SDRAM chip: its contents, its commands and every rule it imposes.

``SdramChipModel(chip, clock_hz)`` is driven one sample at a time:
``model.sample(cycle, pins)`` with the packed pin levels (sim/sdram/pins.py) the chip takes at
its clock edge after cycle ``cycle``; ``model.dq(cycle)`` is what it drives on DQ during cycle
``cycle`` (read data, as the FPGA's input registers catch them: ``read_delay`` cycles after the
READ, ``read_delay`` = the CAS latency + the board's offset, ``SdramClockPlan.read_delay``).
Samples in which nothing happens may be left out (``PinLayout.idle_patterns``); every rule is
checked from the cycle numbers, so the model needs only the samples that carry a command, write
data or a DQM mask. The same code serves both simulator paths: a testbench of Amaranth's
simulator (sim/sdram/pysim.py) and the fast backend's C++ loop (sim/sdram/fast.py).

Rules (``SdramViolation`` names the rule, the bank and the cycle, e.g. ``SDRAM rule tRCD: READ
to bank 2 at cycle 1234, 1 cycle after its ACTIVE (needs 2)``):

* power-up: only NOP/INHIBIT during the power-up wait; then PRECHARGE ALL, the chip's AUTO
  REFRESHes, LOAD MODE REGISTER, before any ACTIVE; CKE stays high after it (power-down and
  self refresh are not modelled);
* tRCD, tRP, tRAS (and tRAS max), tRC, tRRD, tWR, tRFC, tMRD between the commands they relate;
* refresh: from LOAD MODE REGISTER on, one AUTO REFRESH per tREFI on average, at most
  ``refresh_slack`` (8, as JEDEC allows) postponed at any time — which keeps every row within
  its 64 ms; refreshes pulled in count for at most 8 intervals ahead;
* bank state: READ and WRITE need an active bank, ACTIVE an idle one, AUTO REFRESH and LOAD
  MODE REGISTER all banks idle;
* mode register: CAS latency 2 or 3 and a clock no faster than the chip allows with it, burst
  length 1/2/4/8;
* data: a WRITE's data driven on DQ in its cycles (or masked by DQM); DQ not driven by the
  controller while the chip still drives read data (the last read word's cycle + 2).

Contents: ``memory`` (numpy, one word per address, indexed by the controller's word address:
{row, bank, column}, hdl/mem/sdram_bus.py; 0 until written, and a simulation may preload
it). Read bursts of 2-8 words, sequential or interleaved, are interrupted by READ, WRITE,
PRECHARGE and BURST TERMINATE as the data sheets say; DQM masks write bytes in their cycle and
read bytes two cycles later. Auto precharge (A10 with READ/WRITE) is not modelled and is
reported as such.
"""

import numpy as np

from hdl.mem.sdram_bus import Command
from hdl.mem.sdram_clock import plan_sdram_clock
from sim.sdram.pins import PinLayout

__all__ = ["SdramChipModel", "SdramViolation"]

_NAMES = {Command.NOP: "NOP", Command.BURST_TERMINATE: "BURST TERMINATE", Command.READ: "READ",
          Command.WRITE: "WRITE", Command.ACTIVE: "ACTIVE", Command.PRECHARGE: "PRECHARGE",
          Command.AUTO_REFRESH: "AUTO REFRESH", Command.LOAD_MODE: "LOAD MODE REGISTER"}
_NEVER = -(1 << 60)
_ENDS_BURSTS = (Command.READ, Command.WRITE, Command.PRECHARGE, Command.BURST_TERMINATE)
#: the command of (RAS#, CAS#, WE#) as the pin word's bits 2-4 hold them (RAS# lowest)
_DECODE = [Command(((~levels & 1) << 2) | ((~levels >> 1 & 1) << 1) | (~levels >> 2 & 1))
           for levels in range(8)]


class SdramViolation(Exception):
    """A command broke one of the chip's rules; ``rule``, ``cycle``, ``bank`` (or None)."""

    def __init__(self, rule, cycle, message, bank=None):
        self.rule = rule
        self.cycle = cycle
        self.bank = bank
        super().__init__(f"SDRAM rule {rule}: {message}")


class _Bank:
    __slots__ = ("active", "row", "activated", "precharged", "written")

    def __init__(self):
        self.active = False
        self.row = 0
        self.activated = _NEVER     # cycle of the last ACTIVE
        self.precharged = _NEVER    # ... PRECHARGE (or PRECHARGE ALL)
        self.written = _NEVER       # ... cycle of write data


class SdramChipModel:
    def __init__(self, chip, clock_hz, plan=None, refresh_slack=8):
        self.chip = chip
        self.clock_hz = clock_hz
        self.t = chip.cycles(clock_hz)
        plan = plan or plan_sdram_clock(chip, clock_hz)
        self.board_offset = plan.read_delay - plan.cas_latency
        self.refresh_slack = refresh_slack
        self.layout = PinLayout.of(chip)
        self._idle = self.layout.idle_patterns()
        fields = [self.layout.field(name) for name in ("ba", "a", "dqm", "dq", "dq_oe")]
        assert self.layout.offsets[:5] == (0, 1, 2, 3, 4), "CKE, CS#, RAS#, CAS#, WE# first"
        self._at = tuple(offset for offset, _ in fields)
        self._masks = tuple(mask for _, mask in fields[:4])
        self.memory = np.zeros(chip.words, dtype=np.uint32 if chip.data_width > 16 else np.uint16)
        self._bank_bits, self._col_bits = chip.bank_bits, chip.col_bits
        self._row_mask, self._col_mask = (1 << chip.row_bits) - 1, (1 << chip.col_bits) - 1
        self.banks = [_Bank() for _ in range(chip.banks)]
        self.state = "power-up"     # -> "precharged" -> "ready" (after LOAD MODE REGISTER)
        self.init_refreshes = 0
        self.cas_latency = None
        self.burst_length = 1
        self.interleaved = False
        self.single_writes = False
        self.last_active = _NEVER   # any bank's last ACTIVE, and which bank
        self.last_active_bank = None
        self.last_refresh = _NEVER
        self.last_mode = _NEVER
        self.refresh_start = None   # cycle of LOAD MODE REGISTER: the refresh count starts
        self.refreshes = 0          # since then (pulled-in ones capped)
        self.chip_drives_until = _NEVER     # the last read word's cycle (chip's view)
        self.outputs = []           # [cycle, value]: read words the FPGA will catch, in order
        self.drive_value = 0
        self.write_burst = None     # [bank, row, first column, next index, its cycle]
        self.commands = 0
        self.last_cycle = 0

    # --- the interface ---------------------------------------------------------------------

    def sample(self, cycle, word):
        """The pins of ``cycle`` (a packed word); raises SdramViolation."""
        for mask, value in self._idle:
            if word & mask == value:
                if self.write_burst is not None:
                    self._write_data(cycle, None)
                return
        ba_at, a_at, dqm_at, dq_at, oe_at = self._at
        ba_mask, a_mask, dqm_mask, dq_mask = self._masks
        ba, a = word >> ba_at & ba_mask, word >> a_at & a_mask
        dqm, dq, dq_oe = word >> dqm_at & dqm_mask, word >> dq_at & dq_mask, word >> oe_at & 1
        self.last_cycle = cycle
        if not word & 1:                        # CKE
            if self.state == "ready":
                raise SdramViolation("CKE", cycle, f"CKE low at cycle {cycle} after the "
                                     "initialisation (power-down and self refresh are not "
                                     "modelled)")
            return
        command = Command.NOP if word & 2 else _DECODE[word >> 2 & 7]     # CS#; RAS#, CAS#, WE#
        if self.write_burst is not None and command not in _ENDS_BURSTS:
            self._write_data(cycle, (dq, dq_oe, dqm))
        if dqm:
            self._mask_output(cycle, dqm)
        if dq_oe and cycle < self.chip_drives_until + 2:
            raise SdramViolation(
                "DQ turnaround", cycle, f"DQ driven at cycle {cycle} while the chip drives read "
                f"data until cycle {self.chip_drives_until} (needs cycle "
                f"{self.chip_drives_until + 2} or later)")
        if command == Command.NOP:
            return
        self.commands += 1
        self._check_refresh_rate(cycle)
        self._check_start(cycle, command, a)
        self._handlers[command](self, cycle, ba, a, dq, dq_oe, dqm)

    def dq(self, cycle):
        """The word on DQ during ``cycle`` (the last one driven, if none is due now)."""
        outputs = self.outputs
        while outputs and outputs[0][0] <= cycle:
            self.drive_value = outputs.pop(0)[1]
        return self.drive_value

    def schedule(self):
        """[[cycle, value]] of the read words still to come, in order (the model's own list:
        read it, do not keep it)."""
        return self.outputs

    def finish(self, cycle):
        """The checks that need no command: the refresh rate and tRAS max up to ``cycle``."""
        self._check_refresh_rate(cycle)
        for b, bank in enumerate(self.banks):
            if bank.active:
                self._check_ras_max(cycle, b, bank)

    def read_word(self, addr):
        return int(self.memory[addr])

    def fill_random(self, seed):
        """Preload every word with seeded random bits; returns the image (a copy)."""
        rng = np.random.default_rng(seed)
        self.memory[:] = rng.integers(0, 1 << self.chip.data_width, len(self.memory),
                                      dtype=self.memory.dtype)
        return self.memory.copy()

    # --- checks ------------------------------------------------------------------------------

    def _check_start(self, cycle, command, a):
        """Power-up and initialisation order; tRFC and tMRD before any command."""
        if self.state == "ready" and cycle - self.last_refresh >= self.t.rfc \
                and cycle - self.last_mode >= self.t.mrd:
            return
        name = _NAMES[command]
        if cycle <= self.t.power_up:
            raise SdramViolation("power-up", cycle, f"{name} at cycle {cycle}, before the "
                                 f"power-up wait of {self.t.power_up} cycles ended")
        if self.state == "power-up" and not (command == Command.PRECHARGE and a >> 10 & 1):
            raise SdramViolation("power-up", cycle, f"{name} at cycle {cycle}: the first "
                                 "command after the power-up wait must be PRECHARGE ALL")
        if self.state != "ready" and command in (Command.ACTIVE, Command.READ, Command.WRITE):
            raise SdramViolation("power-up", cycle, f"{name} at cycle {cycle}, before LOAD "
                                 "MODE REGISTER")
        self._after(cycle, self.last_refresh, self.t.rfc, "tRFC", name, "AUTO REFRESH")
        self._after(cycle, self.last_mode, self.t.mrd, "tMRD", name, "LOAD MODE REGISTER")

    def _after(self, cycle, then, needed, rule, what, since, bank=None):
        gap = cycle - then
        if gap < needed:
            where = "" if bank is None else f" to bank {bank}"
            raise SdramViolation(rule, cycle, f"{what}{where} at cycle {cycle}, {gap} "
                                 f"cycle{'s' if gap != 1 else ''} after {since} "
                                 f"(needs {needed})", bank)

    def _check_refresh_rate(self, cycle):
        if self.refresh_start is None:
            return
        due = (cycle - self.refresh_start) // self.t.refi
        if due - self.refreshes > self.refresh_slack:
            raise SdramViolation(
                "tREFI", cycle, f"{due - self.refreshes} AUTO REFRESHes overdue at cycle "
                f"{cycle}: one is needed every {self.t.refi} cycles "
                f"({self.chip.t_refi_ns / 1000:g} us) and at most {self.refresh_slack} may "
                "be postponed")

    def _check_ras_max(self, cycle, b, bank):
        if cycle - bank.activated > self.t.ras_max:
            raise SdramViolation(
                "tRAS max", cycle, f"bank {b} active from cycle {bank.activated} to cycle "
                f"{cycle}, {cycle - bank.activated} cycles (at most {self.t.ras_max})", b)

    def _bank_active(self, cycle, name, b):
        bank = self.banks[b]
        if not bank.active:
            raise SdramViolation("bank state", cycle, f"{name} to bank {b} at cycle {cycle}, "
                                 "which is idle", b)
        return bank

    def _all_idle(self, cycle, name):
        for b, bank in enumerate(self.banks):
            if bank.active:
                raise SdramViolation("bank state", cycle, f"{name} at cycle {cycle} with bank "
                                     f"{b} active", b)
            self._after(cycle, bank.precharged, self.t.rp, "tRP", name,
                        "its PRECHARGE", bank=b)

    # --- commands ----------------------------------------------------------------------------

    def _active(self, cycle, b, a, *_):
        bank = self.banks[b]
        if bank.active:
            raise SdramViolation("bank state", cycle, f"ACTIVE to bank {b} at cycle {cycle}, "
                                 f"which is already active (row {bank.row})", b)
        self._after(cycle, bank.precharged, self.t.rp, "tRP", "ACTIVE", "its PRECHARGE", b)
        self._after(cycle, bank.activated, self.t.rc, "tRC", "ACTIVE", "its last ACTIVE", b)
        if self.last_active_bank != b:
            self._after(cycle, self.last_active, self.t.rrd, "tRRD", "ACTIVE",
                        f"the ACTIVE to bank {self.last_active_bank}", b)
        bank.active = True
        bank.row = a & self._row_mask
        bank.activated = cycle
        self.last_active = cycle
        self.last_active_bank = b

    def _column(self, cycle, name, b, a):
        bank = self._bank_active(cycle, name, b)
        self._after(cycle, bank.activated, self.t.rcd, "tRCD", name, "its ACTIVE", b)
        if a >> 10 & 1:
            raise SdramViolation("model", cycle, f"{name} with auto precharge (A10) at cycle "
                                 f"{cycle}: not modelled", b)
        self._end_bursts(cycle)
        row_base = ((bank.row << self._bank_bits) | b) << self._col_bits
        return bank, row_base, a & self._col_mask

    def _burst_column(self, first, i):
        """The column of word ``i`` of a burst from ``first`` (the low bits wrap)."""
        n = self.burst_length
        low = (first ^ i) if self.interleaved else (first + i)
        return (first & ~(n - 1)) | (low & (n - 1))

    def _read(self, cycle, b, a, *_):
        bank, row_base, first = self._column(cycle, "READ", b, a)
        delay = self.cas_latency + self.board_offset
        for i in range(self.burst_length):
            col = self._burst_column(first, i)
            self.outputs.append([cycle + delay + i, int(self.memory[row_base | col])])
        self.chip_drives_until = cycle + self.cas_latency + self.burst_length - 1

    def _write(self, cycle, b, a, dq, dq_oe, dqm):
        bank, row_base, first = self._column(cycle, "WRITE", b, a)
        length = 1 if self.single_writes else self.burst_length
        self.write_burst = [b, row_base, first, 0, cycle, length]
        self._store(cycle, dq, dq_oe, dqm)

    def _write_data(self, cycle, pins):
        """A cycle of the current write burst after its WRITE: ``pins`` (dq, dq_oe, dqm), or
        None for a cycle without any (the fast backend leaves those out: a gap in the cycles
        is one too)."""
        b, _, _, i, start, _ = self.write_burst
        if pins is None or cycle != start + i:
            missing = start + i
            raise SdramViolation("write data", missing, f"word {i} of the write burst to bank "
                                 f"{b} from cycle {start} not driven on DQ at cycle {missing}",
                                 b)
        self._store(cycle, *pins)

    def _store(self, cycle, dq, dq_oe, dqm):
        b, row_base, first, i, start, length = self.write_burst
        full = (1 << (self.chip.data_width // 8)) - 1
        if dqm != full:
            if not dq_oe:
                raise SdramViolation("write data", cycle, f"word {i} of the WRITE to bank {b} "
                                     f"at cycle {start} not driven on DQ (cycle {cycle})", b)
            addr = row_base | self._burst_column(first, i)
            if dqm:
                keep = 0
                for byte in range(self.chip.data_width // 8):
                    if dqm >> byte & 1:
                        keep |= 0xFF << (8 * byte)
                dq = (int(self.memory[addr]) & keep) | (dq & ~keep)
            self.memory[addr] = dq
            self.banks[b].written = cycle
        self.write_burst[3] = i + 1
        if i + 1 == length:
            self.write_burst = None

    def _end_bursts(self, cycle):
        """A READ, WRITE, PRECHARGE or BURST TERMINATE ends the bursts in progress: write data
        from this cycle on, read data after the word CL - 1 cycles after it."""
        self.write_burst = None
        if self.cas_latency is None:
            return
        last = cycle + self.cas_latency - 1         # the chip's last word, its own count
        if self.outputs and self.outputs[-1][0] > last + self.board_offset:
            self.outputs = [o for o in self.outputs if o[0] <= last + self.board_offset]
            self.chip_drives_until = min(self.chip_drives_until, last)

    def _mask_output(self, cycle, dqm):
        """DQM at ``cycle`` masks the read word two cycles later (high impedance: 0 here)."""
        at = cycle + 2 + self.board_offset
        keep = 0
        for byte in range(self.chip.data_width // 8):
            if not dqm >> byte & 1:
                keep |= 0xFF << (8 * byte)
        for output in self.outputs:
            if output[0] == at:
                output[1] &= keep

    def _precharge(self, cycle, b, a, *_):
        banks = range(self.chip.banks) if a >> 10 & 1 else [b]
        for k in banks:
            bank = self.banks[k]
            if bank.active:
                self._after(cycle, bank.activated, self.t.ras, "tRAS", "PRECHARGE",
                            "its ACTIVE", k)
                self._after(cycle, bank.written, self.t.wr, "tWR", "PRECHARGE",
                            "its last write data", k)
                self._check_ras_max(cycle, k, bank)
                bank.active = False
            bank.precharged = cycle
        self._end_bursts(cycle)
        if self.state == "power-up":
            self.state = "precharged"

    def _burst_terminate(self, cycle, *_):
        self._end_bursts(cycle)

    def _auto_refresh(self, cycle, *_):
        self._all_idle(cycle, "AUTO REFRESH")
        self.last_refresh = cycle
        if self.state == "precharged":
            self.init_refreshes += 1
        elif self.refresh_start is not None:
            due = (cycle - self.refresh_start) // self.t.refi
            self.refreshes = min(self.refreshes + 1, due + self.refresh_slack)

    def _load_mode(self, cycle, ba, a, *_):
        self._all_idle(cycle, "LOAD MODE REGISTER")
        if self.state == "precharged" and self.init_refreshes < self.t.init_refreshes:
            raise SdramViolation("power-up", cycle, f"LOAD MODE REGISTER at cycle {cycle} "
                                 f"after {self.init_refreshes} AUTO REFRESH (needs "
                                 f"{self.t.init_refreshes})")
        cl, code = a >> 4 & 7, a & 7
        if cl not in (2, 3):
            raise SdramViolation("mode register", cycle, f"CAS latency {cl} at cycle {cycle} "
                                 "(2 or 3)")
        period = 1e9 / self.clock_hz
        if period < self.chip.t_ck_min_ns(cl) - 1e-9:
            raise SdramViolation("CAS latency", cycle, f"CAS latency {cl} needs a clock period "
                                 f"of at least {self.chip.t_ck_min_ns(cl):g} ns; the clock's is "
                                 f"{period:.2f} ns")
        if code not in (0, 1, 2, 3) or ba:
            raise SdramViolation("mode register", cycle, f"LOAD MODE REGISTER {a:#x} (bank "
                                 f"{ba}) at cycle {cycle}: burst length code {code} or a "
                                 "non-zero bank address is not modelled")
        self.cas_latency = cl
        self.burst_length = 1 << code
        self.interleaved = bool(a >> 3 & 1)
        self.single_writes = bool(a >> 9 & 1)
        self.last_mode = cycle
        if self.state != "ready":
            self.state = "ready"
            self.refresh_start = cycle

    _handlers = {Command.ACTIVE: _active, Command.READ: _read, Command.WRITE: _write,
                 Command.PRECHARGE: _precharge, Command.BURST_TERMINATE: _burst_terminate,
                 Command.AUTO_REFRESH: _auto_refresh, Command.LOAD_MODE: _load_mode}
