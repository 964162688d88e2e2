"""sim/sdram/model.py: the SDRAM chip model on hand-written command sequences. A legal
sequence stores and returns data with the CAS latency (bursts, byte masks); each rule broken
once stops the model with a message naming the rule, the bank and the cycle."""

import dataclasses

import pytest

from hdl.mem.sdram_bus import Command
from hdl.mem.sdram_chip import ULX3S_SDRAM
from hdl.mem.sdram_clock import SdramClockPlan, plan_sdram_clock
from sim.sdram.model import SdramChipModel, SdramViolation

CLOCK = 75e6
#: the ULX3S envelope with a short power-up wait; at 75 MHz: tRCD 2, tRP 2, tRAS 4, tRC 5,
#: tRRD 2, tWR 2, tRFC 5, tMRD 2, tREFI 585 cycles, power-up 75 cycles, 8 refreshes
CHIP = dataclasses.replace(ULX3S_SDRAM, power_up_ns=1000)
ALL = 1 << 10


class Pins:
    """Pin words for the model: ``word(command, ...)`` as the chip sees them."""

    def __init__(self, model):
        self.model = model
        self.layout = model.layout

    def word(self, command=Command.NOP, ba=0, a=0, dq=0, dq_oe=0, dqm=0, cke=1):
        ras, cas, we = command >> 2 & 1, command >> 1 & 1, command & 1
        return self.layout.pack([cke, 0, 1 - ras, 1 - cas, 1 - we, ba, a, dqm, dq, dq_oe])

    def send(self, cycle, command=Command.NOP, **fields):
        self.model.sample(cycle, self.word(command, **fields))


def make(chip=CHIP, clock=CLOCK, plan=None):
    model = SdramChipModel(chip, clock, plan or plan_sdram_clock(chip, clock))
    return model, Pins(model)


def initialise(model, pins, start=100, mode=0x30):
    """The legal power-up sequence from ``start``; returns the first free cycle."""
    t = model.t
    pins.send(start, Command.PRECHARGE, a=ALL)
    cycle = start + t.rp
    for _ in range(t.init_refreshes):
        pins.send(cycle, Command.AUTO_REFRESH)
        cycle += t.rfc
    pins.send(cycle, Command.LOAD_MODE, a=mode)
    return cycle + t.mrd


def violation(action):
    with pytest.raises(SdramViolation) as info:
        action()
    return info.value


def test_write_then_read_returns_the_word_cas_latency_later():
    model, pins = make()
    c = initialise(model, pins)
    pins.send(c, Command.ACTIVE, ba=2, a=77)
    pins.send(c + 2, Command.WRITE, ba=2, a=5, dq=0xBEEF, dq_oe=1)
    pins.send(c + 3, Command.WRITE, ba=2, a=6, dq=0x1234, dq_oe=1, dqm=0b10)  # low byte only
    pins.send(c + 4, Command.READ, ba=2, a=5)
    pins.send(c + 5, Command.READ, ba=2, a=6)
    delay = model.cas_latency + model.board_offset
    assert [model.dq(c + 4 + delay), model.dq(c + 5 + delay)] == [0xBEEF, 0x0034]
    assert model.read_word((((77 << 2) | 2) << 9) | 5) == 0xBEEF     # {row, bank, column}


def test_read_bursts_sequential_and_interleaved_and_read_masks():
    for mode, cols in ((0x32, [5, 6, 7, 4]), (0x3A, [5, 4, 7, 6])):   # bursts of 4
        model, pins = make()
        c = initialise(model, pins)
        pins.send(c, Command.ACTIVE, ba=1, a=3)
        for col in range(8):
            pins.send(c + 2 + col, Command.WRITE, ba=1, a=col, dq=0x100 + col, dq_oe=1)
        pins.send(c + 12, Command.PRECHARGE, ba=1)
        pins.send(c + 14, Command.LOAD_MODE, a=mode)
        pins.send(c + 16, Command.ACTIVE, ba=1, a=3)
        pins.send(c + 18, Command.READ, ba=1, a=5)
        pins.send(c + 19, Command.NOP, dqm=0b01)    # two cycles later: word 0's low byte
        delay = model.cas_latency + model.board_offset
        want = [0x100 + col for col in cols]
        want[0] &= 0xFF00
        assert [model.dq(c + 18 + delay + i) for i in range(4)] == want


def test_a_precharge_truncates_a_read_burst():
    model, pins = make()
    c = initialise(model, pins, mode=0x33)                    # burst of 8
    pins.send(c, Command.ACTIVE, a=9)
    pins.send(c + 2, Command.READ, a=0)
    pins.send(c + 6, Command.PRECHARGE)                       # the last word: CL - 1 later
    assert [when for when, _ in model.schedule()] == \
        [c + 2 + model.cas_latency + model.board_offset + i for i in range(4)]


def test_a_write_burst_takes_its_data_cycles():
    model, pins = make()
    c = initialise(model, pins, mode=0x31)                    # burst of 2
    pins.send(c, Command.ACTIVE, a=9)
    pins.send(c + 2, Command.WRITE, a=4, dq=0xAAAA, dq_oe=1)
    pins.send(c + 3, Command.NOP, dq=0x5555, dq_oe=1)
    base = 9 << 11                                            # row 9, bank 0
    assert [model.read_word(base | 4), model.read_word(base | 5)] == [0xAAAA, 0x5555]
    pins.send(c + 8, Command.WRITE, a=8, dq=1, dq_oe=1)
    error = violation(lambda: pins.send(c + 10, Command.NOP, dq=2, dq_oe=1))
    assert error.rule == "write data" and "cycle 1" in str(error)


def rule(model_pins_action, expected_rule, *fragments):
    error = violation(model_pins_action)
    assert error.rule == expected_rule, str(error)
    for fragment in fragments:
        assert fragment in str(error), str(error)
    return error


def test_power_up_rules():
    model, pins = make()
    rule(lambda: pins.send(50, Command.PRECHARGE, a=ALL), "power-up", "PRECHARGE at cycle 50",
         "power-up wait of 75 cycles")
    model, pins = make()
    rule(lambda: pins.send(100, Command.AUTO_REFRESH), "power-up", "must be PRECHARGE ALL")
    model, pins = make()
    pins.send(100, Command.PRECHARGE, a=ALL)
    rule(lambda: pins.send(110, Command.ACTIVE), "power-up", "ACTIVE at cycle 110, before LOAD")
    model, pins = make()
    pins.send(100, Command.PRECHARGE, a=ALL)
    pins.send(110, Command.AUTO_REFRESH)
    rule(lambda: pins.send(120, Command.LOAD_MODE, a=0x30), "power-up",
         "after 1 AUTO REFRESH (needs 8)")
    model, pins = make()
    c = initialise(model, pins)
    rule(lambda: pins.send(c, Command.NOP, cke=0), "CKE", f"CKE low at cycle {c}")


def test_trcd():
    model, pins = make()
    c = initialise(model, pins)
    pins.send(c, Command.ACTIVE, ba=2, a=1)
    error = rule(lambda: pins.send(c + 1, Command.READ, ba=2), "tRCD")
    assert str(error) == (f"SDRAM rule tRCD: READ to bank 2 at cycle {c + 1}, 1 cycle after "
                          "its ACTIVE (needs 2)")
    assert (error.bank, error.cycle) == (2, c + 1)


def test_trp_tras_trrd_twr():
    model, pins = make()
    c = initialise(model, pins)
    pins.send(c, Command.ACTIVE, ba=1)
    rule(lambda: pins.send(c + 3, Command.PRECHARGE, ba=1), "tRAS",
         f"PRECHARGE to bank 1 at cycle {c + 3}, 3 cycles after its ACTIVE (needs 4)")
    pins.send(c + 4, Command.PRECHARGE, ba=1)
    rule(lambda: pins.send(c + 5, Command.ACTIVE, ba=1), "tRP", "after its PRECHARGE (needs 2)")
    pins.send(c + 6, Command.ACTIVE, ba=1)
    rule(lambda: pins.send(c + 7, Command.ACTIVE, ba=3), "tRRD",
         "ACTIVE to bank 3", "after the ACTIVE to bank 1 (needs 2)")
    pins.send(c + 10, Command.WRITE, ba=1, dq=1, dq_oe=1)
    rule(lambda: pins.send(c + 11, Command.PRECHARGE, ba=1), "tWR",
         "1 cycle after its last write data (needs 2)")
    pins.send(c + 12, Command.PRECHARGE, a=ALL)


def test_trc():
    chip = dataclasses.replace(CHIP, t_rc_ns=100)            # 8 cycles > tRAS + tRP
    model, pins = make(chip)
    c = initialise(model, pins)
    pins.send(c, Command.ACTIVE, ba=0)
    pins.send(c + 4, Command.PRECHARGE, ba=0)
    rule(lambda: pins.send(c + 6, Command.ACTIVE, ba=0), "tRC",
         "6 cycles after its last ACTIVE (needs 8)")


def test_trfc_and_tmrd():
    model, pins = make()
    c = initialise(model, pins)
    pins.send(c, Command.AUTO_REFRESH)
    rule(lambda: pins.send(c + 4, Command.ACTIVE), "tRFC", "4 cycles after AUTO REFRESH")
    model, pins = make()
    c = initialise(model, pins)
    pins.send(c + 10, Command.LOAD_MODE, a=0x30)
    rule(lambda: pins.send(c + 11, Command.ACTIVE), "tMRD", "after LOAD MODE REGISTER (needs 2)")


def test_refresh_interval():
    model, pins = make()
    c = initialise(model, pins)
    start = c - model.t.mrd                                   # LOAD MODE REGISTER
    for k in range(1, 9):                                     # 8 postponed: still allowed
        pins.send(start + k * model.t.refi, Command.ACTIVE)
        pins.send(start + k * model.t.refi + 4, Command.PRECHARGE)
    late = start + 9 * model.t.refi
    rule(lambda: pins.send(late, Command.ACTIVE), "tREFI",
         f"9 AUTO REFRESHes overdue at cycle {late}", "every 585 cycles")
    model, pins = make()
    c = initialise(model, pins)
    rule(lambda: model.finish(c + 20 * model.t.refi), "tREFI", "overdue")


def test_refreshes_on_time_and_pulled_in_ones_only_count_eight_ahead():
    model, pins = make()
    c = initialise(model, pins)
    start = c - model.t.mrd
    cycle = c
    for _ in range(20):                                       # 20 pulled in
        pins.send(cycle, Command.AUTO_REFRESH)
        cycle += model.t.rfc
    model.finish(start + 17 * model.t.refi - 1)               # 8 ahead + 8 postponed
    rule(lambda: model.finish(start + 17 * model.t.refi), "tREFI")


def test_bank_state_rules():
    model, pins = make()
    c = initialise(model, pins)
    rule(lambda: pins.send(c, Command.READ, ba=3), "bank state",
         f"READ to bank 3 at cycle {c}, which is idle")
    pins.send(c, Command.ACTIVE, ba=3, a=12)
    rule(lambda: pins.send(c + 5, Command.ACTIVE, ba=3), "bank state",
         "already active (row 12)")
    rule(lambda: pins.send(c + 6, Command.AUTO_REFRESH), "bank state", "with bank 3 active")


def test_tras_max():
    chip = dataclasses.replace(CHIP, t_ras_max_ns=5000)       # 375 cycles
    model, pins = make(chip)
    c = initialise(model, pins)
    pins.send(c, Command.ACTIVE, ba=1)
    late = c + model.t.ras_max + 1
    rule(lambda: pins.send(late, Command.PRECHARGE, ba=1), "tRAS max",
         f"bank 1 active from cycle {c} to cycle {late}, 376 cycles (at most 375)")


def test_cas_latency_and_mode_register():
    plan = SdramClockPlan(125e6, 0, 3, 3, {})               # (no phase meets 125 MHz)
    model, pins = make(clock=125e6, plan=plan)                # 8 ns: CL2 needs 10 ns
    c = initialise(model, pins, start=200)
    pins.send(c, Command.LOAD_MODE, a=0x30)
    rule(lambda: pins.send(c + 4, Command.LOAD_MODE, a=0x20), "CAS latency",
         "CAS latency 2 needs a clock period of at least 10 ns; the clock's is 8.00 ns")
    model, pins = make()
    c = initialise(model, pins)
    rule(lambda: pins.send(c, Command.LOAD_MODE, a=0x40), "mode register", "CAS latency 4")


def test_dq_turnaround_and_write_data():
    model, pins = make()
    c = initialise(model, pins)
    pins.send(c, Command.ACTIVE)
    pins.send(c + 2, Command.READ, a=1)
    cl = model.cas_latency
    rule(lambda: pins.send(c + 2 + cl + 1, Command.WRITE, a=1, dq=5, dq_oe=1), "DQ turnaround",
         f"while the chip drives read data until cycle {c + 2 + cl}")
    pins.send(c + 2 + cl + 2, Command.WRITE, a=1, dq=5, dq_oe=1)
    rule(lambda: pins.send(c + 2 + cl + 3, Command.WRITE, a=2), "write data",
         "not driven on DQ")
