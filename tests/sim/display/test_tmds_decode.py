"""sim/display/tmds_decode.py, the TMDS receiver model: what the reference transmitter
(sim/display/raster.py) sends comes back as the same picture and the mode's timing (640x480
from an arbitrary point of the stream, a small raster with positive syncs); streams broken one
rule at a time are refused with the rule and the place (frame line and column from the vsync
and hsync leading edges); serial bits are regrouped at the right word boundary."""

import re
from dataclasses import replace

import numpy as np
import pytest

from hdl.display.mode import VGA_640X480
from sim.display.harness import TINY_MODE
from sim.display.raster import transmit
from sim.display.tmds import CONTROL, data_codes
from sim.display.tmds_decode import TmdsStreamError, read_frame, symbols_from_bits
from tests.helpers.display import POSITIVE_MODE

def picture(mode, seed=1):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 256, (mode.v_active, mode.h_active, 3), dtype=np.uint8)


def at(mode, line, column):
    """The index, in ``transmit``'s stream, of the first whole frame's (line, column)."""
    vsync_edge = (mode.v_active + mode.v_front - 1) * mode.h_total + mode.h_active + mode.h_front
    return vsync_edge + line * mode.h_total + column


def raster(mode, y, x, frame=1):
    """The index of raster position (y, x) (0, 0 = first active pixel) of ``frame``."""
    return (frame * mode.v_total + y) * mode.h_total + x


def place(mode, index):
    line, column = divmod(index - at(mode, 0, 0), mode.h_total)
    return f"frame line {line}, column {column} (symbol {index})"


def test_vga_round_trip():
    mode = VGA_640X480
    image = picture(mode)
    lanes = np.roll(transmit(image, mode, frames=2), -123457, axis=1)
    screen = read_frame(lanes, mode)
    assert (screen.picture == image).all()
    assert screen.timing.differences(mode) == []
    assert (screen.timing.h_total, screen.timing.v_total) == (800, 525)


def test_positive_syncs():
    image = picture(POSITIVE_MODE)
    screen = read_frame(transmit(image, POSITIVE_MODE, frames=2), POSITIVE_MODE)
    assert (screen.picture == image).all()
    assert not screen.timing.h_sync_negative and not screen.timing.v_sync_negative


def broken(rule, change, mode=TINY_MODE, expect_mode=None, strict=True):
    lanes = transmit(picture(mode), mode, frames=2)
    index = change(lanes)
    with pytest.raises(TmdsStreamError) as error:
        read_frame(lanes, expect_mode or mode, strict=strict)
    message = str(error.value)
    assert message.startswith(f"TMDS stream, {rule}:"), message
    if index is not None:
        assert message.endswith(place(mode, index)), message
    return message


def test_wrong_polarity():
    flipped = replace(TINY_MODE, name="flipped", h_sync_negative=False)
    message = broken("timing", lambda lanes: None, mode=flipped, expect_mode=TINY_MODE)
    assert "h_sync_negative is False, 16x12 test has True" in message


def test_control_symbol_in_active_area():
    def change(lanes):
        index = raster(TINY_MODE, 5, 7)
        lanes[:, index] = [CONTROL[3], CONTROL[0], CONTROL[0]]
        return index
    broken("control symbol inside the active area", change)


def test_data_symbol_in_blanking():
    def change(lanes):
        index = raster(TINY_MODE, 5, TINY_MODE.h_active + 1)       # the front porch
        lanes[:, index] = lanes[:, raster(TINY_MODE, 5, 0)]
        return index
    broken("data symbol outside the active area", change)


def test_bad_symbol():
    def change(lanes):
        index = raster(TINY_MODE, 3, 2)
        lanes[1, index] = next(s for s in range(1024) if s not in data_codes()
                               and s not in CONTROL)
        return index
    message = broken("not a TMDS code", change)
    assert "lane 1 (green)" in message


def test_lanes_disagree_and_ctl_bits():
    def disagree(lanes):
        index = raster(TINY_MODE, 2, 4)
        lanes[2, index] = CONTROL[0]
        return index
    broken("lanes disagree on data enable", disagree)

    def ctl(lanes):
        index = at(TINY_MODE, 2, 5)
        lanes[2, index] = CONTROL[1]
        return index
    broken("CTL bits set in blanking", ctl)


def test_running_disparity_bound():
    def change(lanes):                  # two all-zero words in a row: -8, then -16
        index = raster(TINY_MODE, 4, 0)
        lanes[0, index:index + 2] = 0b0100000000
        return index + 1
    message = broken("running disparity", change, strict=False)
    assert "-16 on lane 0 (blue)" in message


def test_symbol_choice():
    """A valid code for the right byte, but not the one the running disparity calls for."""
    def change(lanes):
        for y in range(TINY_MODE.v_active):
            index = raster(TINY_MODE, y, 0)             # a line's first pixel: cnt is 0
            other = lanes[2, index] ^ 0b1011111111      # the byte inverted the other way
            if other in data_codes():
                lanes[2, index] = other
                return index
        raise AssertionError("no line start to change")
    broken("symbol choice", change)


def test_raster_faults():
    mode = TINY_MODE

    def hsync_width(lanes):
        index = at(mode, mode.v_sync + 1, mode.h_sync)  # a back porch line's back porch
        lanes[0, index] = CONTROL[2]                # the pulse one symbol longer (vsync idle)
        return index
    broken("hsync width", hsync_width)

    def vsync_off_edge(lanes):
        start = raster(mode, mode.v_active + mode.v_front - 1, mode.h_active + mode.h_front,
                       frame=0)
        lanes[0, start] = CONTROL[2]                # vsync (still) idle for one symbol more
        return None
    message = broken("vsync position", vsync_off_edge)
    start = at(mode, 0, 0)
    assert message.endswith(f"not at an hsync leading edge at frame line 0, column 0 "
                            f"(symbol {start + 1})"), message

    with pytest.raises(TmdsStreamError, match="line length varies"):
        lanes = transmit(picture(mode), mode, frames=2)
        read_frame(np.delete(lanes, raster(mode, 3, 20), axis=1), mode)
    with pytest.raises(TmdsStreamError, match="no whole frame"):
        read_frame(transmit(picture(mode), mode, frames=1), mode)


def test_symbols_from_bits():
    mode = TINY_MODE
    lanes = transmit(picture(mode), mode, frames=2)
    bits = (lanes[:, :, None] >> np.arange(10) & 1).reshape(3, -1)
    shifted = np.concatenate([np.ones((3, 7), dtype=bits.dtype), bits], axis=1)
    symbols, offset = symbols_from_bits(shifted)
    assert offset == 7
    assert (symbols == lanes[:, :symbols.shape[1]]).all()
    assert re.search("no word boundary", str(pytest.raises(
        TmdsStreamError, symbols_from_bits, np.zeros((3, 100), dtype=int)).value))
