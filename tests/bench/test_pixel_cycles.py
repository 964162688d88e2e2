"""bench/pixel_cycles.py: core 0's routines per pixel and one pixel's issued instructions, on a
one-core GPU in Amaranth's simulator (a 3x3 demo)."""

import json

import pytest

from bench.pixel_cycles import main


@pytest.mark.slow(weight=2)
def test_routines_and_a_pixels_trace(capsys):
    assert main(["--config", "ulx3s", "--size", "3", "--trace", "1"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["pixels"] == 9
    states = result["state_cycles"]
    for routine in ("RGU", "MAIN", "PSU2", "PIXELSHADER", "NPG"):
        assert states[routine] > 0
    # every cycle of the frame is in some state (the frame counter runs from the start)
    assert sum(states.values()) >= result["cycles"]
    trace = result["trace"]
    assert "ENTRYPOINT_ADRR_RGU+0: MUL" in trace[0]
    assert any("ENTRYPOINT_ADRR_MAIN+0: SUB" in line for line in trace)
    assert "ENTRYPOINT_ADRR_NPG" in trace[-1]
    cycles = [int(line.split()[0]) for line in trace]
    assert cycles == sorted(cycles)


def test_a_pixel_out_of_the_frame_is_an_error(capsys):
    from bench.pixel_cycles import CoreWatch
    watch = CoreWatch()
    watch.names = {0: "IDLE", 1: "RGU"}
    watch.states = [0, 1, 1, 0]
    with pytest.raises(ValueError, match="--trace 1: the frame has 1 pixels on core 0"):
        watch.trace(1)


def test_a_preset_with_sdram_is_refused_in_one_line():
    """Amaranth's simulator runs the bare Gpu: a preset whose memories are in SDRAM would wait
    for them forever, so it is refused (bench.pixel_cycles itself runs them in block RAM)."""
    from firmware.rom import default_rom
    from hdl.config import preset
    from sim.demo_scene import demo_scene
    from sim.gpu_pysim import GpuRenderError, render_gpu_pysim
    with pytest.raises(GpuRenderError, match="in SDRAM.*use the fast backend"):
        render_gpu_pysim(demo_scene(size=2, bands=1), default_rom(), preset("ulx3s", cores=1))
