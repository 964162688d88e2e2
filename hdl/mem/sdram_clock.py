"""The SDRAM's clock: which phase of the GPU's clock it needs, and when read data come back.

The controller's commands, addresses, write data and DQM leave the FPGA from the output
registers of the I/O cells (``io.FFBuffer``, hdl/mem/sdram_phy.py) at the GPU clock's rising
edge; the read data are caught by the input registers of the same cells at a later rising edge.
The chip's clock is the GPU clock shifted by ``s`` (a second PLL output), leaving through a DDR
output register (ODDRX1F: high, then low), so that it takes the same kind of path out of the
FPGA as the signals it clocks. Times below are measured from the FPGA edge that launches a
command (all in ns, T the clock period):

* the chip samples the command at its clock edge ``s`` (plus the clock's output delay) later.
  Command and clock leave through like output registers, so their output delays cancel up to
  ``clock_skew``; with the traces' spread ``trace``:
  setup = s - clock_skew - trace - tIS >= 0 and hold = T - s - clock_skew - trace - tIH >= 0;
* the data of that READ are driven from tAC after the chip's edge CL - 1 edges later until tOH
  after the next one; they make a round trip (clock out, data back) the FPGA's output delay
  ``tco`` (between ``tco_min`` and ``tco_max``) and two trace flights long, and are caught at
  the FPGA edge ``D + 1`` cycles after the launch (``D = CL + j``, j = -1 or 0):
  setup = (2 + j) T - s - tco_max - 2 trace_max - tAC - input_setup >= 0,
  hold = s + tco_min + 2 trace_min + tOH - (1 + j) T - input_hold >= 0.

``plan_sdram_clock`` tries every phase the PLL can make (``phase_step_deg``) and both capture
edges and keeps the one with the largest worst margin: at 75 MHz with the ULX3S figures that is
about 300 degrees (the chip's clock a quarter period *ahead* of the FPGA's: the read data's
round trip then ends just before the FPGA's next-but-one edge), j = 0; at 50 MHz and below the
earlier capture edge (j = -1) with a phase near 90 degrees is wider. 180 degrees, often used,
centres the commands but leaves the read data's hold a negative margin at 75 MHz with these
figures (docs/sdram.md, "The chip's clock").
"""

from dataclasses import dataclass, field

from hdl.mem.sdram_chip import SdramChip

__all__ = ["BoardTiming", "ULX3S_BOARD", "SdramClockPlan", "plan_sdram_clock",
           "ecp5_phase_settings", "ECP5_PHASE_STEPS"]

#: the EHXPLLL shifts an output in eighths of a VCO period (CPHASE whole, FPHASE eighths)
ECP5_PHASE_STEPS = 8


@dataclass(frozen=True)
class BoardTiming:
    """The FPGA's and the board's delays around the SDRAM (ns)."""
    tco_min: float      # GPU clock at the I/O cell to an output pad, fastest ...
    tco_max: float      # ... and slowest
    clock_skew: float   # the chip's clock pad against a command pad, beyond the phase
    input_setup: float  # an input register's setup and hold at the pad
    input_hold: float
    trace_min: float    # one trace flight, FPGA to chip or back
    trace_max: float


#: The LFE5U-85F-6 on the ULX3S (docs/sdram.md, "The chip's clock", says where each comes
#: from): the data sheet's PIO register figures for the -6 grade with the clock from a PLL,
#: rounded outwards; the fastest output is an assumption (the data sheet gives no minimum).
ULX3S_BOARD = BoardTiming(tco_min=1.0, tco_max=4.5, clock_skew=0.5, input_setup=0.9,
                          input_hold=1.0, trace_min=0.2, trace_max=0.6)


@dataclass(frozen=True)
class SdramClockPlan:
    """The chip clock's phase and what follows from it.

    ``phase_deg``: how far the chip's clock lags the GPU clock (0-360); ``read_delay`` (D):
    the data of a READ the chip takes at the edge after cycle c are on DQ when the FPGA's input
    registers sample at the end of cycle c + D (D = CL or CL - 1); ``margins``: setup and hold
    slack of the command and read-data windows (ns)."""
    clock_hz: float
    phase_deg: float
    cas_latency: int
    read_delay: int
    margins: dict = field(compare=False)

    @property
    def worst_margin(self):
        return min(self.margins.values())


def _margins(chip, period, s, j, board):
    cl = chip.cas_latency
    spread = board.trace_max - board.trace_min
    return {
        "command setup": s - board.clock_skew - spread - chip.t_is_ns,
        "command hold": period - s - board.clock_skew - spread - chip.t_ih_ns,
        "read setup": (2 + j) * period - s - board.tco_max - 2 * board.trace_max
                      - chip.t_ac_ns(cl) - board.input_setup,
        "read hold": s + board.tco_min + 2 * board.trace_min + chip.t_oh_ns
                     - (1 + j) * period - board.input_hold,
    }


def plan_sdram_clock(chip: SdramChip, clock_hz, board=ULX3S_BOARD, phase_step_deg=360 / 64):
    """The phase (a multiple of ``phase_step_deg``) and capture edge with the widest worst
    margin at ``clock_hz``; ValueError if none has all four margins >= 0."""
    period = 1e9 / clock_hz
    steps = max(1, round(360 / phase_step_deg))
    best = None
    for k in range(steps):
        phase = 360 * k / steps
        s = period * phase / 360
        for j in (-1, 0):
            if chip.cas_latency + j < 1:
                continue
            margins = _margins(chip, period, s, j, board)
            key = min(margins.values())
            if best is None or key > best[0] + 1e-9:
                best = (key, phase, j, margins)
    worst, phase, j, margins = best
    if worst < 0:
        name = min(margins, key=margins.get)
        raise ValueError(
            f"{chip.name} at {clock_hz / 1e6:g} MHz: no SDRAM clock phase meets the chip's "
            f"and the FPGA's timing (best: {phase:g} degrees, {name} {worst:+.2f} ns)")
    return SdramClockPlan(clock_hz, phase, chip.cas_latency, chip.cas_latency + j,
                          {k: round(v, 3) for k, v in margins.items()})


def ecp5_phase_settings(phase_deg, output_div):
    """EHXPLLL parameters for a secondary output at the primary's frequency (divider
    ``output_div``) lagging it by ``phase_deg``: {"DIV", "CPHASE", "FPHASE"} (as the PLL's
    CLKOS_DIV, CLKOS_CPHASE, CLKOS_FPHASE). CPHASE = DIV - 1 is no shift, as for CLKOP."""
    eighths = round(phase_deg / 360 * output_div * ECP5_PHASE_STEPS) \
        % (output_div * ECP5_PHASE_STEPS)
    return {"DIV": output_div, "CPHASE": output_div - 1 + eighths // ECP5_PHASE_STEPS,
            "FPHASE": eighths % ECP5_PHASE_STEPS}
