"""hdl/display/unit.py, the whole display in Amaranth's simulator with its three clocks, down
to the bits the pins' DDR registers send: the small test raster, a 6 x 4 frame (scale 2,
centred) from a frame server in the GPU's clock domain. The bit streams are regrouped into
symbols where the control symbols say the word boundary is, and read by the TMDS receiver
model (sim/display/tmds_decode.py), which checks the stream; the pictures must be the plain
screen before the frame is configured and the frame scaled and centred after, pixel for pixel.
Once with the board's clocks (75 MHz, 25 MHz and 125 MHz from one PLL), once with unrelated
GPU and pixel clocks and a phase offset between the pixel and tmds clocks."""

import numpy as np
import pytest

from hdl.display.serialiser import CLOCK_PATTERN
from sim.display.harness import TINY_MODE, run_pysim
from sim.display.raster import scaled_screen
from sim.display.tmds_decode import read_frame, symbols_from_bits
from tests.helpers.display import plain_screen

FRAME = np.random.default_rng(6).integers(0, 256, (4, 6, 3), dtype=np.uint8)


def symbols(bits):
    lanes, offset = symbols_from_bits(bits[:3])
    usable = (bits.shape[1] - offset) // 10 * 10
    clock = bits[3, offset:offset + usable].reshape(-1, 10) @ (1 << np.arange(10))
    assert (clock == CLOCK_PATTERN).all(), "the clock lane is not at the symbols' boundary"
    return lanes


@pytest.mark.slow
def test_board_clocks():
    mode = TINY_MODE
    bits, seen = run_pysim(mode, FRAME, frames=3.3, config_at_frame=1.0)
    assert not seen["underrun"] and not seen["underflow"]
    assert seen["vblank"] == 3
    lanes = symbols(bits)
    first = read_frame(lanes, mode)
    assert (first.picture == plain_screen(mode)).all()
    second = read_frame(lanes[:, first.start + 1:], mode)
    assert first.start + 1 + second.start == first.start + mode.h_total * mode.v_total
    assert (second.picture == scaled_screen(FRAME, mode)).all()


@pytest.mark.slow
def test_unrelated_gpu_clock():
    mode = TINY_MODE
    bits, seen = run_pysim(mode, FRAME, frames=2.2, sync_mhz=31.7, pixel_mhz=25.1,
                           tmds_mhz=125.5, tmds_phase_ns=2.9)
    assert not seen["underrun"] and not seen["underflow"]
    screen = read_frame(symbols(bits), mode)
    assert (screen.picture == scaled_screen(FRAME, mode)).all()
