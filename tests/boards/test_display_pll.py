"""boards/display_pll.py: the GPU's clock with exact 25 and 125 MHz display clocks from one
VCO, for the board's clocks and others; the EHXPLLL parameters name all three outputs."""

import pytest

from boards.display_pll import display_pll, ehxplll_parameters


def test_board_clock():
    pll = display_pll(75.0)
    assert (pll.clki_div, pll.clkfb_div, pll.clkop_div, pll.clkos_div, pll.clkos2_div) == \
        (1, 3, 10, 6, 30)
    assert (pll.sync_mhz, pll.tmds_mhz, pll.pixel_mhz, pll.vco_mhz) == (75, 125, 25, 750)
    params = ehxplll_parameters(pll)
    assert (params["p_CLKOS_DIV"], params["p_CLKOS2_DIV"], params["p_CLKOP_DIV"]) == (6, 30, 10)
    assert params["a_FREQUENCY_PIN_CLKOS"] == "125" and params["p_CLKOS2_CPHASE"] == 29


@pytest.mark.parametrize("sync_mhz", [42, 50, 60, 62.5, 66, 75, 80, 100])
def test_display_clocks_exact(sync_mhz):
    pll = display_pll(sync_mhz)
    assert 400 <= pll.vco_mhz <= 800 and 25 / pll.clki_div >= 3.125
    assert pll.vco_mhz / pll.clkos_div == pytest.approx(125, abs=1e-9)
    assert pll.vco_mhz / pll.clkos2_div == pytest.approx(25, abs=1e-9)
    assert pll.sync_mhz == pytest.approx(25 * pll.clkfb_div / pll.clki_div)
    assert pll.sync_mhz == pytest.approx(pll.vco_mhz / pll.clkop_div)
    assert abs(pll.sync_mhz - sync_mhz) < 4      # (60 and 66 MHz become 62.5)
    assert display_pll(42).sync_mhz == pytest.approx(41.667, abs=1e-3)
