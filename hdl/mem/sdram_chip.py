"""SDR SDRAM parts as a parameter: geometry and data-sheet timings, and their cycle counts at a
clock.

``SdramChip`` holds a part's figures in nanoseconds (the data sheet's minimums unless a name
says ``max``); ``chip.cycles(clock_hz)`` turns them into the whole cycles a controller and the
chip model count at that clock (``SdramCycles``): minimums rounded up, maximums (tRAS max, the
refresh interval) rounded down, so one parameter serves any clock from 25 to 100+ MHz.

The parts ULX3S boards carry (docs/sdram.md has the table and where each figure comes from):

* ``MT48LC16M16A2`` (Micron, -6A), ``IS42S16160G`` (ISSI, -7): 32 MB, 4 banks x 8192 rows x
  512 columns x 16 bits;
* ``AS4C32M16SB`` (Alliance, -7): 64 MB, 4 banks x 8192 rows x 1024 columns.

``ULX3S_SDRAM``, the default, is their envelope: the 32 MB geometry (on the 64 MB part the
column address bit A9 is then always 0 and half of each row goes unused) and, for every timing,
the worst of the three parts. It is what a bitstream that must work on any ULX3S uses; the
64 MB part is not faster than the others in anything, and slower in several (tRCD, tRP, tRC,
tRFC 21/21/63/63 ns against 18/18/60/60 on the Micron -6A part).
"""

import dataclasses
import math
from dataclasses import dataclass

__all__ = ["SdramChip", "SdramCycles", "MT48LC16M16A2", "IS42S16160G", "AS4C32M16SB",
           "ULX3S_SDRAM", "PARTS", "envelope", "chip_by_name"]


@dataclass(frozen=True)
class SdramChip:
    """One SDR SDRAM part (or a family's envelope): geometry, timings in ns, and the mode the
    controller programs (CAS latency, burst length)."""
    name: str
    banks: int = 4
    row_bits: int = 13
    col_bits: int = 9
    data_width: int = 16
    t_rcd_ns: float = 21.0      # ACTIVE to READ/WRITE, same bank
    t_rp_ns: float = 21.0       # PRECHARGE to ACTIVE/AUTO REFRESH, same bank
    t_ras_ns: float = 42.0      # ACTIVE to PRECHARGE, same bank
    t_ras_max_ns: float = 100_000.0
    t_rc_ns: float = 63.0       # ACTIVE to ACTIVE, same bank
    t_rrd_ns: float = 14.0      # ACTIVE to ACTIVE, different banks
    t_wr_ns: float = 14.0       # last write data to PRECHARGE ...
    t_wr_min_cycles: int = 2    # ... and at least this many clocks
    t_rfc_ns: float = 63.0      # AUTO REFRESH to any command
    t_mrd_ns: float = 14.0      # LOAD MODE REGISTER to any command ...
    t_mrd_min_cycles: int = 2   # ... and at least this many clocks
    t_refi_ns: float = 7800.0   # average AUTO REFRESH interval (64 ms / 8192 rows, rounded down)
    power_up_ns: float = 200_000.0   # NOP/INHIBIT only, from stable clock and power
    init_refreshes: int = 8     # AUTO REFRESH commands of the power-up sequence
    # the interface (used by the clock phase plan: hdl/mem/sdram_clock.py)
    t_ac_cl2_ns: float = 7.5    # access time from CLK, CAS latency 2
    t_ac_cl3_ns: float = 5.4    # ... CAS latency 3
    t_oh_ns: float = 2.5        # data-out hold after the next CLK
    t_hz_ns: float = 7.5        # data-out to high impedance after the last data's CLK
    t_is_ns: float = 1.5        # input (command, address, data, DQM) setup ...
    t_ih_ns: float = 0.8        # ... and hold
    t_ck_cl2_min_ns: float = 10.0   # shortest clock period with CAS latency 2 ...
    t_ck_cl3_min_ns: float = 7.0    # ... and 3
    # the mode register
    cas_latency: int = 3
    burst_length: int = 1

    def __post_init__(self):
        if self.banks & (self.banks - 1) or self.banks < 1:
            raise ValueError(f"{self.name}: {self.banks} banks is not a power of two")
        if self.cas_latency not in (2, 3):
            raise ValueError(f"{self.name}: CAS latency {self.cas_latency}: 2 or 3")
        if self.burst_length not in (1, 2, 4, 8):
            raise ValueError(f"{self.name}: burst length {self.burst_length}: 1, 2, 4 or 8")
        if self.data_width % 8:
            raise ValueError(f"{self.name}: data width {self.data_width} is not whole bytes")

    @property
    def bank_bits(self):
        return (self.banks - 1).bit_length()

    @property
    def address_bits(self):
        """Bits of a word address: {row, bank, column} from the top (hdl/mem/sdram_bus.py)."""
        return self.row_bits + self.bank_bits + self.col_bits

    @property
    def words(self):
        return 1 << self.address_bits

    @property
    def size_bytes(self):
        return self.words * self.data_width // 8

    def t_ac_ns(self, cas_latency=None):
        return self.t_ac_cl2_ns if (cas_latency or self.cas_latency) == 2 else self.t_ac_cl3_ns

    def t_ck_min_ns(self, cas_latency=None):
        cl = cas_latency or self.cas_latency
        return self.t_ck_cl2_min_ns if cl == 2 else self.t_ck_cl3_min_ns

    def with_geometry(self, other):
        """This part's timings with ``other``'s geometry."""
        return dataclasses.replace(self, banks=other.banks, row_bits=other.row_bits,
                                   col_bits=other.col_bits, data_width=other.data_width)

    def cycles(self, clock_hz):
        """The timings as whole cycles at ``clock_hz`` (``SdramCycles``)."""
        period = 1e9 / clock_hz
        if period < self.t_ck_min_ns() - 1e-9:
            raise ValueError(
                f"{self.name}: {clock_hz / 1e6:g} MHz is faster than CAS latency "
                f"{self.cas_latency} allows (a clock period of at least "
                f"{self.t_ck_min_ns():g} ns)")

        def at_least(ns):
            return max(1, math.ceil(ns / period - 1e-9))

        def at_most(ns):
            return max(1, math.floor(ns / period + 1e-9))

        return SdramCycles(
            clock_hz=clock_hz, rcd=at_least(self.t_rcd_ns), rp=at_least(self.t_rp_ns),
            ras=at_least(self.t_ras_ns), ras_max=at_most(self.t_ras_max_ns),
            rc=at_least(self.t_rc_ns), rrd=at_least(self.t_rrd_ns),
            wr=max(self.t_wr_min_cycles, at_least(self.t_wr_ns)),
            rfc=at_least(self.t_rfc_ns),
            mrd=max(self.t_mrd_min_cycles, at_least(self.t_mrd_ns)),
            refi=at_most(self.t_refi_ns), power_up=at_least(self.power_up_ns),
            init_refreshes=self.init_refreshes, cas_latency=self.cas_latency,
            burst_length=self.burst_length)


@dataclass(frozen=True)
class SdramCycles:
    """An ``SdramChip``'s timings in cycles of one clock (each "a command at cycle t allows
    the next at t + n"); ``refi`` and ``ras_max`` are maximums, the rest minimums."""
    clock_hz: float
    rcd: int
    rp: int
    ras: int
    ras_max: int
    rc: int
    rrd: int
    wr: int
    rfc: int
    mrd: int
    refi: int
    power_up: int
    init_refreshes: int
    cas_latency: int
    burst_length: int


# The parts, as their data sheets give the figures (docs/sdram.md, "Parts"; the ISSI part's
# are those of its family's -7 grade); the geometry fields left at their defaults are the
# 32 MB parts'.
MT48LC16M16A2 = SdramChip(
    "MT48LC16M16A2", t_rcd_ns=18, t_rp_ns=18, t_ras_ns=42, t_ras_max_ns=120_000, t_rc_ns=60,
    t_rrd_ns=12, t_wr_ns=12, t_wr_min_cycles=1, t_rfc_ns=60, t_mrd_ns=0, t_mrd_min_cycles=2,
    t_refi_ns=7812.5, power_up_ns=100_000, init_refreshes=2, t_ac_cl2_ns=7.5, t_ac_cl3_ns=5.4,
    t_oh_ns=3.0, t_hz_ns=7.5, t_is_ns=1.5, t_ih_ns=0.8, t_ck_cl2_min_ns=10, t_ck_cl3_min_ns=6)

IS42S16160G = SdramChip(
    "IS42S16160G", t_rcd_ns=15, t_rp_ns=15, t_ras_ns=37, t_ras_max_ns=120_000, t_rc_ns=63,
    t_rrd_ns=14, t_wr_ns=0, t_wr_min_cycles=2, t_rfc_ns=63, t_mrd_ns=14, t_mrd_min_cycles=2,
    t_refi_ns=7812.5, power_up_ns=200_000, init_refreshes=8, t_ac_cl2_ns=6.5, t_ac_cl3_ns=5.4,
    t_oh_ns=2.5, t_hz_ns=6.5, t_is_ns=1.5, t_ih_ns=0.8, t_ck_cl2_min_ns=10, t_ck_cl3_min_ns=7)

AS4C32M16SB = SdramChip(
    "AS4C32M16SB", col_bits=10, t_rcd_ns=21, t_rp_ns=21, t_ras_ns=42, t_ras_max_ns=120_000,
    t_rc_ns=63, t_rrd_ns=14, t_wr_ns=14, t_wr_min_cycles=1, t_rfc_ns=63, t_mrd_ns=14,
    t_mrd_min_cycles=2, t_refi_ns=7800, power_up_ns=200_000, init_refreshes=8, t_ac_cl2_ns=6,
    t_ac_cl3_ns=5.4, t_oh_ns=2.5, t_hz_ns=6, t_is_ns=1.5, t_ih_ns=0.8, t_ck_cl2_min_ns=10,
    t_ck_cl3_min_ns=7)

#: maximums and the output hold: the smallest is the worst (for the rest, the largest)
_WORST_IS_SMALLEST = {"t_ras_max_ns", "t_refi_ns", "t_oh_ns"}
_NOT_TIMINGS = {"name", "banks", "row_bits", "col_bits", "data_width", "cas_latency",
                "burst_length"}


def envelope(name, geometry, *parts):
    """A part whose every timing is the worst of ``parts`` (the largest minimum, the smallest
    maximum and output hold), with ``geometry``'s banks, rows, columns and width."""
    values = {}
    for f in dataclasses.fields(SdramChip):
        if f.name in _NOT_TIMINGS:
            continue
        figures = [getattr(p, f.name) for p in parts]
        values[f.name] = min(figures) if f.name in _WORST_IS_SMALLEST else max(figures)
    return dataclasses.replace(geometry, name=name, **values)


#: the default: works with whichever part the board carries (module docstring)
ULX3S_SDRAM = envelope("ULX3S", MT48LC16M16A2, MT48LC16M16A2, IS42S16160G, AS4C32M16SB)

PARTS = {chip.name: chip for chip in (ULX3S_SDRAM, MT48LC16M16A2, IS42S16160G, AS4C32M16SB)}


def chip_by_name(name):
    """A part of ``PARTS`` by name (case-insensitive); ValueError naming the choices."""
    for key, chip in PARTS.items():
        if key.lower() == name.lower():
            return chip
    raise ValueError(f"unknown SDRAM part {name!r}; choose from {', '.join(PARTS)}")
