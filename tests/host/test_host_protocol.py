"""The host side (host/): a scene's host writes at the addresses docs/host-interface.md
gives, ERROR_INFO as text, and the frame sequence over a blocking host that stands in for an
idle GPU (the simulated GPU runs it in tests/hdl/gpu/test_gpu.py,
tests/sim/test_fast_backend.py and tests/boards/test_host_link.py)."""

import asyncio

import pytest

from hdl.gpu.address_map import (R5Area, R5Reg, Reg, r500_address, register_address,
                                 display_word, STATUS_BUSY, STATUS_DONE, STATUS_ERROR)
from hdl.isa import CoreError
from host.errors import CoreStopped, FrameError, error_info_message, core_error_message
from host.frame import render_frame_blocking
from host.port import run_blocking
from host.scene_writes import scene_load_runs


def _shown(scene):
    """The DISPLAY write after a scene's load (the frame size a GPU with a display shows)."""
    return [(register_address(Reg.DISPLAY), [display_word(scene.width, scene.height)])]


class TinyScene:
    """2x1 pixels, two triangles, two bands; every word tells where it came from."""
    name = "tiny"
    width, height = 2, 1
    user_code = [0x1111_2222_3333_4444, 0x5555_6666_7777_8888]
    texture = [0x200, 0x400, 0x600]
    # triangle t, row r (V0 UV0 V1 UV1 V2 UV2 DIFFUSE), lane l: 0xT0R0 + l
    triangles = [[tuple(0x1000 * t + 0x10 * r + lane for lane in range(3)) for r in range(7)]
                 for t in (1, 2)]
    config = [(0x100 + r, 0x200 + r, 0x300 + r) for r in range(6)]
    bands = [((0xA0, 0xA1, 0xA2), (0xA4, 0xA5, 0xA6)), ((0xB0, 0xB1, 0xB2), (0xB4, 0xB5, 0xB6))]

    def band_output_base(self, band):
        return 3 * band


def test_scene_runs_are_the_documented_writes():
    runs = scene_load_runs(TinyScene())
    by_region = {addr: words for addr, words in runs}
    # user code: word*2 = bits 63:32, word*2 + 1 = bits 31:0
    assert runs[0] == (0x0300_0000, [0x1111_2222, 0x3333_4444, 0x5555_6666, 0x7777_8888])
    assert runs[1] == (0x0200_0000, [0x200, 0x400, 0x600])
    # scene memory: (triangle*8 + row)*4 + lane; lane 3 and row 7 are zeros
    scene = by_region[0x0100_0000]
    assert len(scene) == 2 * 8 * 4
    assert scene[0:4] == [0x1000, 0x1001, 0x1002, 0]                       # t0 V0
    assert scene[(0 * 8 + 6) * 4:(0 * 8 + 7) * 4] == [0x1060, 0x1061, 0x1062, 0]  # t0 DIFFUSE
    assert scene[(0 * 8 + 7) * 4:(1 * 8 + 0) * 4] == [0, 0, 0, 0]           # t0 row 7
    assert scene[(1 * 8 + 1) * 4:(1 * 8 + 2) * 4] == [0x2010, 0x2011, 0x2012, 0]  # t1 UV0
    # configuration rows: row*4 + lane
    assert by_region[0x0010_0000] == [w for r in range(6) for w in (0x100 + r, 0x200 + r,
                                                                     0x300 + r, 0)]
    # band table: band*8 + lane initial, + 3 output base, + 4 + lane final, + 7 unused
    assert runs[4] == (0x0020_0000, [0xA0, 0xA1, 0xA2, 0, 0xA4, 0xA5, 0xA6, 0,
                                     0xB0, 0xB1, 0xB2, 3, 0xB4, 0xB5, 0xB6, 0])
    # NUM_TRIANGLES (2) and NUM_BANDS (3)
    assert runs[5] == (2, [2, 2])
    # BIN_GRID (16), BIN_TABLE, BIN_LIST: no bins
    assert runs[6] == (16, [0, 0, 0])
    # a scene without an R500 program turns the stage's shading off (it keeps the last frame's)
    assert runs[7] == (r500_address(R5Area.REGS, R5Reg.SHADE), [0])
    assert [addr for addr, _ in runs] == [0x0300_0000, 0x0200_0000, 0x0100_0000, 0x0010_0000,
                                          0x0020_0000, 2, 16, 0x0500_0006]


class TinyBins:
    """A 2 x 1 tile grid: tile 0 tests triangle 1, tile 1 both."""
    tile, columns, rows = 8, 2, 1
    lists = ((1,), (0, 1))


def test_bins_follow_the_triangle_slots():
    runs = dict(scene_load_runs(TinyScene(), bins=TinyBins()))
    scene = runs[0x0100_0000]
    # one table row (tiles 0 and 1: start 0 count 1, start 1 count 2), one list row (1, 0, 1);
    # fields of 24 bits from the row's lowest bit: z is the lowest word, x the highest
    table, entries = scene[16 * 4:17 * 4], scene[17 * 4:18 * 4]
    assert len(scene) == 18 * 4

    def fields(row):
        x, y, z, _ = row
        value = z | y << 32 | x << 64
        return [(value >> (24 * f)) & 0xFF_FFFF for f in range(4)]

    assert fields(table) == [0, 1, 1, 2] and fields(entries) == [1, 0, 1, 0]
    # BIN_GRID = columns | rows << 16, BIN_TABLE row 16, BIN_LIST row 17
    assert runs[16] == [2 | 1 << 16, 16, 17]


def test_a_scene_without_user_code_or_texture_has_no_runs_for_them():
    scene = TinyScene()
    scene.user_code, scene.texture = None, []
    assert [addr for addr, _ in scene_load_runs(scene)] == [0x0100_0000, 0x0010_0000,
                                                            0x0020_0000, 2, 16, 0x0500_0006]


def test_error_info_reads_as_one_line():
    info = (1 << 24) | (CoreError.ILLEGAL_INSTRUCTION << 16) | 0x8001
    assert error_info_message(info) == "core 1: illegal instruction at 0x8001"
    assert error_info_message((7 << 24) | (CoreError.MEMORY << 16) | 0x12) == \
        "core 7: texture/output memory address out of range at 0x0012"
    assert error_info_message((3 << 24) | (6 << 16) | 0x123) == "core 3: error 6 at 0x0123"
    assert core_error_message(CoreError.FETCH, 0x4000) == \
        "fetch outside the code memories at 0x4000"


# --- the frame sequence -------------------------------------------------------------------------

class FakeGpu:
    """A blocking host standing in for an idle GPU: a word store with the control registers
    preset; the frame ends with ``end`` (STATUS) once CTRL start was written."""

    def __init__(self, end=STATUS_DONE, status=0, cores=2, error_info=0, scene_rows=64):
        self.words = {1: status, 4: error_info, 5: cores, 6: scene_rows, 8: 1000, 9: 400,
                      10: 30, 11: 200, 12: 2, 13: 4}
        self.words.update({0x0400_0000 + i: 0x200 * i + 0x1FF for i in range(6)})
        self.end = end
        self.writes = []

    def write(self, addr, words):
        self.writes.append((addr, list(words)))

    def read(self, addr, count):
        return [self.words.get(addr + i, 0) for i in range(count)]

    def read_bytes(self, addr, count):
        return bytes(w & 0xFF for w in self.read(addr, count))

    def wait_frame(self):
        assert self.writes[-1] == (0, [1]), "wait_frame before CTRL start"
        return self.end


def test_frame_sequence_loads_starts_and_reads_back():
    gpu = FakeGpu()
    lines = []
    frame = render_frame_blocking(gpu, TinyScene(), cores=2, log=lines.append)
    assert gpu.writes == scene_load_runs(TinyScene()) + _shown(TinyScene()) + [(0, [1])]
    assert frame.cores == 2
    assert frame.counters == {"cycles": 1000, "instructions": 400, "io_wait_cycles": 30,
                              "stall_cycles": 200, "pixels": 2, "tests": 4}
    assert not frame.binned
    assert frame.output == [0x200 * i + 0x1FF for i in range(6)]
    assert lines[0] == "the GPU is idle, 2 cores" and lines[-1] == "frame done: 1000 GPU cycles"
    as_bytes = render_frame_blocking(FakeGpu(), TinyScene(), output="bytes").output
    assert as_bytes == bytes([0xFF] * 6)


def test_bins_are_loaded_if_they_fit_the_scene_memory():
    gpu = FakeGpu(scene_rows=18)
    assert render_frame_blocking(gpu, TinyScene(), bins=TinyBins()).binned
    assert gpu.writes == scene_load_runs(TinyScene(), bins=TinyBins()) + _shown(TinyScene()) + [(0, [1])]
    gpu, lines = FakeGpu(scene_rows=17), []
    assert not render_frame_blocking(gpu, TinyScene(), bins=TinyBins(), log=lines.append).binned
    assert gpu.writes == scene_load_runs(TinyScene()) + _shown(TinyScene()) + [(0, [1])]
    assert "the bins need 2 scene memory rows beside the triangles' 16, the GPU has 17: " \
           "every pixel tests every triangle" in lines


def test_frame_sequence_reports_what_stopped_it():
    info = (1 << 24) | (CoreError.STACK << 16) | 0x8004
    with pytest.raises(CoreStopped, match=r"^core 1: return stack error .* at 0x8004$") as e:
        render_frame_blocking(FakeGpu(end=STATUS_ERROR, error_info=info), TinyScene())
    assert e.value.info == info
    busy = FakeGpu(status=STATUS_BUSY)
    with pytest.raises(FrameError, match="busy"):
        render_frame_blocking(busy, TinyScene())
    assert busy.writes == []                                  # nothing loaded into a busy GPU
    with pytest.raises(FrameError, match="has 2 cores, not 4"):
        render_frame_blocking(FakeGpu(), TinyScene(), cores=4)


def test_run_blocking_refuses_a_coroutine_that_suspends():
    async def suspends():
        await asyncio.sleep(0)

    with pytest.raises(RuntimeError, match="suspended"):
        run_blocking(suspends())
