"""The whole GPU (hdl/gpu/gpu.py) through its host port in Amaranth's simulator: frames identical to
the model on 1 and 2 cores with triangle loading hidden, a core error reported through
STATUS/ERROR_INFO (and the next frame running cleanly), scene and texture writes held back while
a frame runs, the control registers and memories as docs/host-interface.md describes them, and a top level that exports to RTLIL (plain ports, no
combinational loops)."""

import dataclasses

import pytest
from amaranth import Signal
from amaranth.back import rtlil
from amaranth.sim import Simulator

from firmware.asm import assemble
from firmware.rom import default_rom
from hdl.core.core import CoreError
from hdl.config import preset
from hdl.gpu.gpu import Gpu
from hdl.gpu.host_bus import (Region, Reg, host_address, CTRL_START, STATUS_BUSY, STATUS_DONE,
                          STATUS_ERROR)
from hdl.gpu.io_unit import SLOT_ROWS
from hdl.isa import USER_CODE_START
from sim.demo_scene import demo_scene
from sim.image import word_to_u8
from host.frame import load_scene, start_frame
from sim.bins import frame_bins
from sim.gpu_pysim import (render_gpu_pysim, gpu_for_scene, HostDriver, PysimPort)
from sim.sequencer import render_model


@pytest.fixture(scope="module")
def rom():
    return default_rom()


def tiny_scene(size=4, bands=2, triangles=3):
    scene = demo_scene(size=size, bands=bands, texture_size=16)
    return dataclasses.replace(scene, triangles=scene.triangles[:triangles])


def control(reg):
    return host_address(Region.CONTROL, reg)


def simulate(dut, testbench):
    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(testbench)
    sim.run()


async def load_and_start(bus, scene):
    """Load ``scene`` through the host port and start a frame."""
    port = PysimPort(bus)
    await load_scene(port, scene)
    await start_frame(port)


def small_memories(name, scene, **changes):
    """The preset called ``name`` (with ``changes``) with memories the size of ``scene``."""
    return preset(name, max_triangles=len(scene.triangles), tmem_words=len(scene.texture),
                  omem_words=3 * scene.pixel_count, max_bands=len(scene.bands), **changes)


@pytest.mark.parametrize("name, cores, changes", [
    ("default", 1, {}), ("default", 2, {}), ("default", 2, {"slotted_ports": True}),
    ("ulx3s", 2, {"memory": None})], ids=["default-1", "default-2", "default-2-slotted",
                                          "ulx3s-2"])
def test_frame_matches_model(rom, name, cores, changes):
    """On the ``ulx3s`` preset's cores with 8-bit stores in block RAM (memories as small as
    the scene; its 8-bit output store holds converted pixels) the output is the model's words
    converted. (The board's memories in SDRAM run on the fast backend:
    tests/boards/test_board_display.py.)"""
    scene = tiny_scene()
    expected, results, _ = render_model(scene, rom, cores=1, jobs=1, bins=frame_bins(scene))
    config = small_memories(name, scene, cores=cores, **changes)
    omem, stats = render_gpu_pysim(scene, rom, config, max_cycles=50_000)
    if config.narrow_stores:
        expected = [word_to_u8(word) for word in expected]
    assert omem == expected
    assert stats["pixels"] == scene.pixel_count == 16
    assert stats["binning"]
    assert stats["instructions"] == sum(r.instructions for r in results)
    assert stats["tests"] == sum(r.tests for r in results)
    # Triangles stream in while the core computes: at most the first triangle of a band could
    # wait (and even that one loads during INITIAL .. RGU).
    assert stats["io_wait_cycles"] <= 4 * len(scene.bands), stats
    assert stats["stall_cycles"] > 0 and stats["cycles"] > 0


# PIXELSHADER: fine in band 0 (INITIAL_POSITION.y = 0), an illegal word in every other band
ERROR_SHADER = """
ENTRYPOINT_ADRR_PIXELSHADER:
    JEQY fine CREG_PIXEL_2D_INITIAL_POSITION CREG_ZERO
    .word 0xFFFF000000000000
fine:
    RETURN RT_TRUE
"""


def test_core_error_is_reported_and_the_next_frame_runs(rom):
    program = assemble(ERROR_SHADER)
    bad_pc = USER_CODE_START + 1
    assert program.words[USER_CODE_START - 0x8000 + 1] == 0xFFFF_0000_0000_0000
    scene = dataclasses.replace(tiny_scene(size=2, bands=2, triangles=1),
                                user_code=program.words)
    dut = gpu_for_scene(scene, rom, preset("default", cores=2))
    seen = {}

    async def host(ctx):
        bus = HostDriver(ctx, dut.host)
        await load_and_start(bus, scene)
        for _ in range(200):
            status = await bus.read(control(Reg.STATUS))
            if not status & STATUS_BUSY:
                break
            await ctx.tick().repeat(50)
        seen["status"] = status
        seen["error_info"] = await bus.read(control(Reg.ERROR_INFO))
        seen["led"] = (ctx.get(dut.busy), ctx.get(dut.done), ctx.get(dut.error))
        # back to the firmware's PIXELSHADER: the same cores render the next frame cleanly
        entry = 10
        await bus.write(host_address(Region.USER, 2 * entry), 0)
        await bus.write(host_address(Region.USER, 2 * entry + 1), 0x116)
        await bus.write(control(Reg.CTRL), CTRL_START)
        for _ in range(400):
            status = await bus.read(control(Reg.STATUS))
            if not status & STATUS_BUSY:
                break
            await ctx.tick().repeat(50)
        seen["status2"] = status
        seen["error_info2"] = await bus.read(control(Reg.ERROR_INFO))
        seen["pixels2"] = await bus.read(control(Reg.PIXELS))

    simulate(dut, host)
    assert seen["status"] == STATUS_ERROR, seen            # not busy, not done, error
    assert seen["led"] == (0, 0, 1)
    assert seen["error_info"] == (1 << 24) | (CoreError.ILLEGAL_INSTRUCTION << 16) | bad_pc, \
        hex(seen["error_info"])
    assert seen["status2"] == STATUS_DONE, seen
    assert seen["error_info2"] == 0
    assert seen["pixels2"] == scene.pixel_count


def _write_during_a_frame(rom, write, read_back):
    """Renders a 2-core frame while ``write(ctx, bus)`` writes the host's words into it: the
    frame must come out as the scene was and stay busy until then; returns
    ``read_back(ctx, bus)`` after the frame."""
    scene = tiny_scene(size=2, bands=2, triangles=2)
    expected, _, _ = render_model(scene, rom, cores=1, jobs=1)
    dut = gpu_for_scene(scene, rom, preset("default", cores=2))
    seen = {}

    async def host(ctx):
        bus = HostDriver(ctx, dut.host)
        await load_and_start(bus, scene)
        await ctx.tick().repeat(20)
        seen["busy_before"] = (await bus.read(control(Reg.STATUS))) & STATUS_BUSY
        await write(ctx, bus)
        seen["status_after"] = await bus.read(control(Reg.STATUS))
        seen["omem"] = await bus.read_many(host_address(Region.OUTPUT), len(expected))
        seen["back"] = await read_back(ctx, bus, dut)

    simulate(dut, host)
    assert seen["busy_before"]
    assert seen["status_after"] == STATUS_DONE
    assert seen["omem"] == expected
    return seen["back"]


def test_scene_write_during_a_frame_waits_for_its_end(rom):
    """A scene row written while a frame runs is stored only once the frame has ended (the
    write shares a block-RAM port with the cores' scene reads): the frame renders the scene as
    it was, and the row is there afterwards."""
    new_row = (0x1234, 0x5678, 0x9ABC)          # V0 of triangle 1

    async def write(ctx, bus):
        for lane, word in enumerate(new_row):
            await bus.write(host_address(Region.SCENE, (1 * SLOT_ROWS + 0) * 4 + lane), word)

    async def read_back(ctx, bus, dut):
        row = ctx.get(dut.scene_mem.data[1 * SLOT_ROWS + 0])
        return (row.x, row.y, row.z)

    assert _write_during_a_frame(rom, write, read_back) == new_row


def test_texture_write_during_a_frame_waits_for_its_end(rom):
    """Likewise a texture word (a core may read any texture word while a frame runs: on the
    FPGA a read in the cycle its word is written is undefined, hdl/lib/synthesis.py)."""
    async def write(ctx, bus):
        await bus.write(host_address(Region.TEXTURE, 0), 0x7F << 9)

    async def read_back(ctx, bus, dut):
        return await bus.read(host_address(Region.TEXTURE, 0))

    assert _write_during_a_frame(rom, write, read_back) == 0x7F << 9


def test_done_comes_after_the_frames_last_output_write_landed(rom):
    """``done`` (and STATUS_DONE) rise only when every output write has reached the output
    store: the writes pass skid buffers and a register on their way from the cores, and four
    cores ending their bands together queue their last writes at the output arbiter."""
    scene = tiny_scene(size=4, bands=4, triangles=1)
    expected, _, _ = render_model(scene, rom, cores=1, jobs=1)
    dut = gpu_for_scene(scene, rom, preset("default", cores=4))
    seen = {}

    async def host(ctx):
        bus = HostDriver(ctx, dut.host)
        await load_and_start(bus, scene)
        for _ in range(20_000):
            if ctx.get(dut.done):
                break
            await ctx.tick()
        seen["omem"] = [ctx.get(dut.omem.data[i]) for i in range(len(expected))]

    simulate(dut, host)
    assert seen["omem"] == expected


def test_host_registers_and_memories(rom):
    dut = Gpu(rom, preset("default", cores=2, max_triangles=2, tmem_words=16, omem_words=12,
                          max_bands=3))
    seen = {}

    async def host(ctx):
        bus = HostDriver(ctx, dut.host)
        seen["cores"] = await bus.read(control(Reg.CORES))
        seen["status"] = await bus.read(control(Reg.STATUS))
        await bus.write(control(Reg.NUM_TRIANGLES), 1)
        seen["triangles"] = await bus.read(control(Reg.NUM_TRIANGLES))
        await bus.write(control(Reg.NUM_TRIANGLES), 1000)          # clamped to the build
        await bus.write(control(Reg.NUM_BANDS), 7)
        seen["clamped"] = (await bus.read(control(Reg.NUM_TRIANGLES)),
                           await bus.read(control(Reg.NUM_BANDS)))
        for i in range(16):
            await bus.write(host_address(Region.TEXTURE, i), 0xA000_0000 + i)
        await bus.write(host_address(Region.TEXTURE, 16), 0xDEAD)   # outside: ignored
        for i in range(12):
            await bus.write(host_address(Region.OUTPUT, i), 0xB000_0000 + 3 * i)
        seen["texture"] = await bus.read_many(host_address(Region.TEXTURE), 17)
        seen["output"] = await bus.read_many(host_address(Region.OUTPUT), 12)
        # texture and output reads (answered a cycle later than the others) mixed with others
        seen["mixed"] = await bus.read_each([
            host_address(Region.TEXTURE, 3), control(Reg.CORES), host_address(Region.OUTPUT, 1),
            host_address(Region.TEXTURE, 4), host_address(Region.TEXTURE, 5),
            control(Reg.NUM_TRIANGLES)])
        seen["unmapped"] = await bus.read(0x0500_0000)
        # a configuration row reaches every core when its z word is written
        for lane, word in enumerate((0x11, 0x22, 0x33)):
            await bus.write(host_address(Region.CONFIG, 9 * 4 + lane), word)
        await ctx.tick()
        await ctx.tick()                # (a core takes the row, it lands a cycle later)
        rows = []
        for core in dut.shader_cores:
            memory = core.core.regfile.copies[0]
            rows.append(ctx.get(memory.data[9]))
        seen["config_rows"] = rows

    simulate(dut, host)
    assert seen["cores"] == 2
    assert seen["status"] == 0
    assert seen["triangles"] == 1
    assert seen["clamped"] == (2, 3)
    assert seen["texture"] == [0xA000_0000 + i for i in range(16)] + [0]
    assert seen["output"] == [0xB000_0000 + 3 * i for i in range(12)]
    assert seen["mixed"] == [0xA000_0003, 2, 0xB000_0003, 0xA000_0004, 0xA000_0005, 2]
    assert seen["unmapped"] == 0
    assert seen["config_rows"] == [(0x11 << 64) | (0x22 << 32) | 0x33] * 2


def test_top_level_exports(rom):
    """Plain signal ports only (no constant stream readies) and no combinational loop, so
    verilog.convert / the fast-simulation backends can build the top."""
    gpu = Gpu(rom, preset("default", cores=1, max_triangles=2, tmem_words=16, omem_words=12,
                          max_bands=2))
    for path, _, value in gpu.signature.flatten(gpu):
        assert isinstance(value, Signal), f"port {'.'.join(map(str, path))} is {value!r}"
    text = rtlil.convert(gpu, name="theia_gpu")
    assert "module \\theia_gpu" in text
