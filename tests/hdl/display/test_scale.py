"""hdl/display/scale.py: ``ScaleFit`` for frame sizes on 640x480 (scale, centring, sizes it
refuses), and the whole scan-out in one clock domain (sim/display/harness.py) showing a run of
frame sizes on the small test raster, each frame read back by the TMDS receiver model and
compared pixel for pixel with the frame scaled and centred on black (or the plain screen)."""

import numpy as np
import pytest
from amaranth.sim import Simulator

from hdl.display.mode import VGA_640X480
from hdl.display.scale import ScaleFit
from sim.display.frame_server import frame_words, served_frame
from sim.display.harness import TINY_MODE, run_one_clock
from sim.display.raster import scaled_screen
from sim.display.tmds_decode import read_frame
from tests.helpers.display import plain_screen

VGA_SIZES = [(200, 200), (320, 240), (128, 128), (640, 480), (1, 1), (100, 50), (639, 1),
             (0, 10), (10, 0), (641, 100), (100, 481)]


def fit(mode, width, height):
    """What ScaleFit must find (None: a size it refuses)."""
    if not (1 <= width <= mode.h_active and 1 <= height <= mode.v_active):
        return None
    scale = min(mode.h_active // width, mode.v_active // height)
    return scale, (mode.h_active - scale * width) // 2, (mode.v_active - scale * height) // 2


def test_scale_fit():
    mode = VGA_640X480
    dut = ScaleFit(mode)
    found = {}

    async def testbench(ctx):
        for width, height in VGA_SIZES:
            ctx.set(dut.width, width)
            ctx.set(dut.height, height)
            ctx.set(dut.start, 1)
            await ctx.tick()
            ctx.set(dut.start, 0)
            cycles = 0
            while ctx.get(dut.busy):
                await ctx.tick()
                cycles += 1
            assert cycles <= min(mode.h_active, mode.v_active) + 1
            found[width, height] = (ctx.get(dut.scale), ctx.get(dut.x0), ctx.get(dut.y0)) \
                if ctx.get(dut.valid) else None

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(testbench)
    sim.run()
    assert found == {size: fit(mode, *size) for size in VGA_SIZES}
    assert [found[s][0] for s in VGA_SIZES[:4]] == [2, 2, 3, 1]


# (width, height, show) on 16 x 12: scale 2 centred both ways, 1, 2 centred, 12, 1 centred
# across, hidden, refused (too wide), a single row
TINY_CONFIGS = [(6, 4, 1), (16, 12, 1), (5, 5, 1), (1, 1, 1), (3, 12, 1), (6, 4, 0),
                (17, 4, 1), (16, 1, 1)]


@pytest.mark.slow
def test_frame_sizes_on_screen():
    mode = TINY_MODE
    rng = np.random.default_rng(35)
    words = frame_words(rng.integers(0, 256, (mode.v_active, mode.h_active, 3), dtype=np.uint8))
    schedule = [(2 + 3 * k, config) for k, config in enumerate(TINY_CONFIGS)]
    lanes, underrun = run_one_clock(mode, words, schedule, frames=3 * len(TINY_CONFIGS) + 3)
    assert not underrun
    frame_symbols = mode.h_total * mode.v_total
    screens = [("nothing configured", 0, plain_screen(mode))]
    for when, (width, height, show) in schedule:
        shown = (scaled_screen(served_frame(words, width, height), mode)
                 if show and fit(mode, width, height) else plain_screen(mode))
        screens.append((f"{width}x{height} show={show}", when + 1, shown))
    for name, when, expected in screens:
        screen = read_frame(lanes[:, when * frame_symbols:], mode)
        assert (screen.picture == expected).all(), name
