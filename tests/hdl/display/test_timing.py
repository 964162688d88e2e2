"""hdl/display/timing.py: two frames of small rasters (negative and positive syncs) against
the raster sim/display/raster.py computes: every pixel's data enable, hsync and vsync level,
x and y, and the events; the totals and pulse widths counted from the outputs."""

import numpy as np
import pytest
from amaranth.sim import Simulator

from hdl.display.mode import VideoMode, VGA_640X480
from hdl.display.timing import VideoTiming
from sim.display.harness import TINY_MODE
from sim.display.raster import raster_levels
from tests.helpers.display import POSITIVE_MODE

OUTPUTS = ("x", "y", "active", "hsync", "vsync", "line_end", "vblank", "frame_start")


def run_timing(mode, frames):
    dut = VideoTiming(mode)
    seen = {name: [] for name in OUTPUTS}

    async def testbench(ctx):
        for _ in range(frames * mode.h_total * mode.v_total):
            for name in OUTPUTS:
                seen[name].append(ctx.get(getattr(dut, name)))
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(testbench)
    sim.run()
    return {name: np.array(v).reshape(frames, mode.v_total, mode.h_total)
            for name, v in seen.items()}


@pytest.mark.parametrize("mode", [TINY_MODE, POSITIVE_MODE], ids=lambda m: m.name)
def test_raster(mode):
    seen = run_timing(mode, frames=2)
    active, hsync, vsync = raster_levels(mode)
    y, x = np.mgrid[0:mode.v_total, 0:mode.h_total]
    for frame in range(2):
        assert (seen["x"][frame] == x).all() and (seen["y"][frame] == y).all()
        assert (seen["active"][frame] == active).all()
        assert (seen["hsync"][frame] == hsync).all()
        assert (seen["vsync"][frame] == vsync).all()
        assert (seen["line_end"][frame] == (x == mode.h_active)).all()
        assert (seen["vblank"][frame] == ((x == mode.h_active) & (y == mode.v_active - 1))).all()
        assert (seen["frame_start"][frame] == ((x == 0) & (y == 0))).all()
    # counted from the outputs alone
    pulse_h = seen["hsync"][0] ^ mode.h_sync_negative
    pulse_v = seen["vsync"][0] ^ mode.v_sync_negative
    assert pulse_h[0].sum() == mode.h_sync
    assert pulse_v.sum() == mode.v_sync * mode.h_total
    assert seen["active"][0].sum() == mode.h_active * mode.v_active
    start = np.flatnonzero(pulse_v.ravel())[0]
    assert start % mode.h_total == mode.h_active + mode.h_front      # at an hsync leading edge
    assert start // mode.h_total == mode.v_active + mode.v_front - 1


def test_vga_mode():
    mode = VGA_640X480
    assert (mode.h_total, mode.v_total) == (800, 525)
    assert (mode.h_front, mode.h_sync, mode.h_back) == (16, 96, 48)
    assert (mode.v_front, mode.v_sync, mode.v_back) == (10, 2, 33)
    assert mode.h_sync_negative and mode.v_sync_negative
    assert mode.refresh_hz(25e6) == pytest.approx(59.52, abs=0.01)


def test_mode_rejects_too_little_blanking():
    with pytest.raises(ValueError, match="4 blank lines"):
        VideoMode(h_active=8, h_front=1, h_sync=1, h_back=1, v_active=8, v_front=1, v_sync=1,
                  v_back=1, name="short")
