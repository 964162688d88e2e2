"""The display at the real 640x480 timing on the fast backend: hdl/display/pipeline.py in one
clock domain (sim/display/harness.py), the pixel side clocked every third cycle as the board's
25 MHz beside the GPU's 75 MHz, each pixel clock's three symbols taken as the serialiser would
load them, read back by the TMDS receiver model with VESA 640x480@60 as the
mode the stream must have (800 x 525 total, syncs negative and where VESA puts them, control
symbols only in blanking, the running disparity bounded, every symbol the encoder's): the
plain screen before a frame is configured, then frames of several sizes at the largest integer
scale that fits, centred on black, pixel for pixel. One model, built once (cached)."""

import pytest

from hdl.display.mode import VGA_640X480
from sim.display.frame_server import pattern_words, served_frame
from sim.display.raster import scaled_screen
from sim.display.tmds_decode import read_frame
from sim.fast import check_tools
from tests.helpers.display import plain_screen

SIZES = [(200, 200), (320, 240), (128, 128), (640, 480), (641, 10)]


@pytest.mark.slow(weight=2)
def test_vga_frames():
    problem = check_tools("verilator")
    if problem:
        pytest.skip(f"verilator backend unavailable: {problem}")
    from sim.display.harness import FastDisplay
    mode = VGA_640X480
    frame_symbols = mode.h_total * mode.v_total
    display = FastDisplay(mode, pixel_every=3)
    screen = read_frame(display.run(2.1), mode)
    assert (screen.picture == plain_screen(mode)).all()
    words = pattern_words(mode.h_active * mode.v_active)
    for width, height in SIZES:
        display.configure(width, height)
        lanes = display.run(3)
        screen = read_frame(lanes[:, frame_symbols:], mode)
        shown = (scaled_screen(served_frame(words, width, height), mode)
                 if width <= mode.h_active else plain_screen(mode))
        assert (screen.picture == shown).all(), f"{width}x{height}"
        assert screen.timing.differences(mode) == []
    assert not display.underrun()
