"""The whole board in simulation (docs/memory-system.md): the host tool over the simulated UART
into the compiled board top (the GPU with its memories in SDRAM, the SDRAM chip model on its
pins, the display's TMDS lanes decoded as a monitor does), rendering continuously."""

import pytest

from hdl.gpu.address_map import Reg

pytestmark = pytest.mark.slow


def _small_scene():
    """20x16 pixels of the demo, two bands, a 16x16 texture."""
    from sim.demo_scene import demo_scene
    return demo_scene(size=20, height=16, bands=2, texture_size=16)


def test_a_frame_rendered_continuously_is_shown_as_the_model_draws_it():
    from boards.host import _simulated_report, render_simulated
    from sim.display.raster import scaled_screen
    from sim.fast import check_tools
    problem = check_tools("verilator")
    if problem:
        pytest.skip(f"no compiled simulator: {problem}")
    scene = _small_scene()
    rgb, info = render_simulated(scene, screen=True, show=True)
    line, ok = _simulated_report(scene, rgb, info)
    assert ok, line
    screen, mode = info["screen"], info["mode"]
    assert (screen.timing.h_total, screen.timing.v_total) == (800, 525)
    # 20 x 16 at scale 30, centred: columns 20-619, lines 0-479, black beside
    expected = scaled_screen(rgb[::-1], mode)
    assert (screen.picture == expected).all()
    assert not screen.picture[:, :20].any() and not screen.picture[:, 620:].any()
    assert not info["underrun"]
    # the frame read back while frames kept coming; STOP ends them
    assert info["frames"] >= 2 and info["stopped_at"] >= info["frames"]
    client = info["client"]
    client.sleep(0.05)                                  # (three display frames)
    assert client.read_register(Reg.FRAMES) == info["stopped_at"]
    assert client.read_register(Reg.STATUS) & 0b1001 == 0      # not busy, not running
