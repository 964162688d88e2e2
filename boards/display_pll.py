"""The ECP5 PLL for a board top with a display: the GPU's clock and the display's two from
one EHXPLLL, so that the pixel and tmds clocks are exactly 1:5 (hdl/display/serialiser.py).

    pll = display_pll(75.0)          # sync 75 MHz (CLKOP, fed back), tmds 125 (CLKOS),
                                     # pixel 25 (CLKOS2), all from a 750 MHz VCO
    m.submodules.pll = Instance("EHXPLLL", **ehxplll_parameters(pll),
                                i_CLKI=clk25, i_CLKFB=sync_clk, o_CLKOP=sync_clk,
                                o_CLKOS=tmds_clk, o_CLKOS2=pixel_clk, o_LOCK=locked, ...)

The three outputs divide one VCO (400-800 MHz), so the VCO must be a multiple of the tmds
clock (and so of the pixel clock): 500, 625 or 750 MHz for 125 MHz. The GPU's clock is then
the one nearest the request among VCO / CLKOP_DIV that the input (25 MHz x CLKFB_DIV /
CLKI_DIV, the phase detector at >= 3.125 MHz) can make: 75 MHz exactly (750 / 10), 42 MHz
becomes 41.67 (500 / 12). All outputs at phase 0 (CPHASE = divider - 1, as the ECP5's PLL
counts it); the display does not depend on their phase relation.

A board top with SDRAM takes the fourth output for the SDRAM chip's clock: the GPU's clock
(CLKOP's divider) shifted by the phase hdl/mem/sdram_clock.py plans, in steps of an eighth of
a VCO period (``sdram_phase_step``: 4.5 degrees at 75 MHz, 3.75 at 41.67). One VCO makes all
four: at 75 MHz CLKOP 750 / 10 (fed back), CLKOS 750 / 10 at 297 degrees, CLKOS2 750 / 6 =
125 MHz, CLKOS3 750 / 30 = 25 MHz.
"""

from dataclasses import dataclass

from hdl.mem.sdram_clock import ECP5_PHASE_STEPS, ecp5_phase_settings

__all__ = ["DisplayPll", "display_pll", "ehxplll_parameters", "sdram_phase_step"]

OSC_MHZ = 25.0


@dataclass(frozen=True)
class DisplayPll:
    clki_div: int
    clkfb_div: int
    clkop_div: int           # the GPU's clock ("sync"), the feedback
    clkos_div: int           # tmds: five times the pixel clock
    clkos2_div: int          # pixel
    sync_mhz: float
    tmds_mhz: float
    pixel_mhz: float
    vco_mhz: float
    fin_mhz: float = OSC_MHZ

    @property
    def freq_mhz(self):
        """The GPU's clock, as ``ecp5_pll``'s ``PllConfig`` names it."""
        return self.sync_mhz


def _feedback(fout_mhz, fin_mhz):
    """(CLKI_DIV, CLKFB_DIV) that make exactly ``fout_mhz`` from ``fin_mhz`` with the phase
    detector at >= 3.125 MHz, else None."""
    for clki in range(1, int(fin_mhz / 3.125) + 1):
        fb = fout_mhz * clki / fin_mhz
        if abs(fb - round(fb)) < 1e-9 and 1 <= round(fb) <= 80:
            return clki, round(fb)
    return None


def display_pll(sync_mhz, pixel_mhz=25.0, fin_mhz=OSC_MHZ):
    """EHXPLLL dividers for the GPU clock nearest ``sync_mhz`` beside exact pixel and tmds
    (5 x pixel) clocks: every VCO that is a multiple of the tmds clock, every CLKOP divider."""
    tmds_mhz = 5 * pixel_mhz
    best = None
    for multiple in range(1, int(800 // tmds_mhz) + 1):
        vco = multiple * tmds_mhz
        if vco < 400 or vco / pixel_mhz > 128:
            continue
        for op in range(1, 129):
            feedback = _feedback(vco / op, fin_mhz)
            if feedback is None:
                continue
            # nearest clock; then the highest VCO (least jitter)
            key = (abs(vco / op - sync_mhz), -vco)
            if best is None or key < best[0]:
                best = (key, DisplayPll(*feedback, op, multiple, round(vco / pixel_mhz),
                                        vco / op, tmds_mhz, pixel_mhz, vco, fin_mhz))
    if best is None:
        raise ValueError(f"no EHXPLLL setting makes {pixel_mhz:g} and {tmds_mhz:g} MHz from "
                         f"{fin_mhz:g} MHz")
    return best[1]


def sdram_phase_step(pll):
    """The steps (degrees) in which ``pll`` shifts an output at the GPU's clock: an eighth of a
    VCO period (hdl/mem/sdram_clock.py)."""
    return 360 / (ECP5_PHASE_STEPS * pll.clkop_div)


def ehxplll_parameters(pll, sdram_phase_deg=None):
    """The EHXPLLL's parameters and attributes for ``pll`` (``Instance`` keyword arguments;
    the clock, feedback and lock connections are the caller's): CLKOP the GPU's clock, CLKOS
    tmds, CLKOS2 pixel; with ``sdram_phase_deg`` four outputs: CLKOS the SDRAM chip's clock
    (the GPU's, that many degrees later: ``ecp5_phase_settings``), CLKOS2 tmds, CLKOS3
    pixel."""
    outputs = {"CLKOP": (pll.clkop_div, pll.sync_mhz, pll.clkop_div - 1, 0),
               "CLKOS": (pll.clkos_div, pll.tmds_mhz, pll.clkos_div - 1, 0),
               "CLKOS2": (pll.clkos2_div, pll.pixel_mhz, pll.clkos2_div - 1, 0)}
    if sdram_phase_deg is not None:
        shift = ecp5_phase_settings(sdram_phase_deg, pll.clkop_div)
        outputs = {"CLKOP": outputs["CLKOP"],
                   "CLKOS": (pll.clkop_div, pll.sync_mhz, shift["CPHASE"], shift["FPHASE"]),
                   "CLKOS2": outputs["CLKOS"], "CLKOS3": outputs["CLKOS2"]}
    params = {
        "a_FREQUENCY_PIN_CLKI": f"{pll.fin_mhz:g}", "a_ICP_CURRENT": "12",
        "a_LPF_RESISTOR": "8", "a_MFG_ENABLE_FILTEROPAMP": "1", "a_MFG_GMCREF_SEL": "2",
        "p_PLLRST_ENA": "DISABLED", "p_INTFB_WAKE": "DISABLED", "p_STDBY_ENABLE": "DISABLED",
        "p_DPHASE_SOURCE": "DISABLED", "p_OUTDIVIDER_MUXA": "DIVA",
        "p_OUTDIVIDER_MUXB": "DIVB", "p_OUTDIVIDER_MUXC": "DIVC", "p_OUTDIVIDER_MUXD": "DIVD",
        "p_CLKI_DIV": pll.clki_div, "p_CLKFB_DIV": pll.clkfb_div, "p_FEEDBK_PATH": "CLKOP",
        "i_RST": 0, "i_STDBY": 0, "i_PHASESEL0": 0, "i_PHASESEL1": 0, "i_PHASEDIR": 1,
        "i_PHASESTEP": 1, "i_PHASELOADREG": 1, "i_PLLWAKESYNC": 0, "i_ENCLKOP": 0,
    }
    for name, (div, mhz, cphase, fphase) in outputs.items():
        params.update({f"a_FREQUENCY_PIN_{name}": f"{mhz:g}", f"p_{name}_ENABLE": "ENABLED",
                       f"p_{name}_DIV": div, f"p_{name}_CPHASE": cphase,
                       f"p_{name}_FPHASE": fphase})
    return params
