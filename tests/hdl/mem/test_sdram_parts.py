"""hdl/mem/sdram_chip.py, sdram_clock.py, sdram_memory.py: the parts' cycle counts at a clock,
the default as the envelope of the parts, the chip clock's phase plan and the PLL parameters
for it, and the memory elaborated for the ULX3S with its I/O-cell registers."""

import dataclasses

import pytest

from hdl.mem.sdram_chip import (AS4C32M16SB, IS42S16160G, MT48LC16M16A2, PARTS, ULX3S_SDRAM,
                                chip_by_name)
from hdl.mem.sdram_clock import ecp5_phase_settings, plan_sdram_clock


def test_cycles_round_minimums_up_and_maximums_down():
    t = ULX3S_SDRAM.cycles(75e6)                 # 13.33 ns
    assert (t.rcd, t.rp, t.ras, t.rc, t.rrd, t.wr, t.rfc, t.mrd) == (2, 2, 4, 5, 2, 2, 5, 2)
    assert (t.refi, t.power_up, t.init_refreshes) == (585, 15000, 8)
    assert ULX3S_SDRAM.cycles(100e6).rcd == 3     # 21 ns at 10 ns
    assert ULX3S_SDRAM.cycles(25e6).rc == 2
    with pytest.raises(ValueError, match="faster than CAS latency 2 allows"):
        dataclasses.replace(ULX3S_SDRAM, cas_latency=2).cycles(125e6)


def test_the_default_is_the_worst_of_the_parts_with_the_32_mb_geometry():
    parts = (MT48LC16M16A2, IS42S16160G, AS4C32M16SB)
    assert (ULX3S_SDRAM.banks, ULX3S_SDRAM.row_bits, ULX3S_SDRAM.col_bits) == (4, 13, 9)
    assert ULX3S_SDRAM.size_bytes == 32 << 20 and AS4C32M16SB.size_bytes == 64 << 20
    for name in ("t_rcd_ns", "t_rp_ns", "t_ras_ns", "t_rc_ns", "t_rrd_ns", "t_wr_ns",
                 "t_rfc_ns", "power_up_ns", "init_refreshes", "t_ac_cl2_ns", "t_ac_cl3_ns"):
        assert getattr(ULX3S_SDRAM, name) == max(getattr(p, name) for p in parts), name
    for name in ("t_refi_ns", "t_oh_ns", "t_ras_max_ns"):
        assert getattr(ULX3S_SDRAM, name) == min(getattr(p, name) for p in parts), name
    assert chip_by_name("as4c32m16sb") is AS4C32M16SB and set(PARTS) >= {"ULX3S"}
    with pytest.raises(ValueError, match="choose from ULX3S, MT48LC16M16A2"):
        chip_by_name("W9825G6KH")


def test_the_clock_plan_centres_the_tightest_window():
    plan = plan_sdram_clock(ULX3S_SDRAM, 75e6)
    assert 270 < plan.phase_deg < 330 and plan.read_delay == 3
    assert plan.worst_margin > 0.4
    # the two tightest margins (command hold, read hold) are balanced within a phase step
    assert abs(plan.margins["command hold"] - plan.margins["read hold"]) < 13.33 / 64 + 0.01
    slow = plan_sdram_clock(ULX3S_SDRAM, 50e6)
    assert slow.read_delay == 2 and slow.worst_margin > 2
    with pytest.raises(ValueError, match="at 125 MHz: no SDRAM clock phase"):
        plan_sdram_clock(ULX3S_SDRAM, 125e6)


def test_pll_phase_parameters():
    assert ecp5_phase_settings(0, 8) == {"DIV": 8, "CPHASE": 7, "FPHASE": 0}
    assert ecp5_phase_settings(298.125, 8) == {"DIV": 8, "CPHASE": 13, "FPHASE": 5}
    assert ecp5_phase_settings(90, 6) == {"DIV": 6, "CPHASE": 6, "FPHASE": 4}


def test_the_memory_elaborates_for_the_ulx3s():
    """The I/O registers and the chip clock's DDR output on the board's pins (amaranth-boards'
    ``sdram`` resource), in a top with a shifted clock domain for the chip."""
    ulx3s = pytest.importorskip("amaranth_boards.ulx3s")
    from amaranth import ClockDomain, Elaboratable, Module
    from hdl.mem.sdram_memory import SdramMemory

    class Top(Elaboratable):
        def elaborate(self, platform):
            m = Module()
            m.domains.sync = ClockDomain()
            m.domains.sdram = ClockDomain()
            m.submodules.memory = SdramMemory(ULX3S_SDRAM, 75e6,
                                              platform.request("sdram", dir="-"),
                                              clock_domain="sdram")
            return m

    plan = ulx3s.ULX3S_85F_Platform().prepare(Top(), name="top")
    text = plan.files["top.il"]
    assert "OFS1P3DX" in text and "IFS1P3DX" in text and "ODDRX1F" in text
