"""The UART host link end to end in simulation: the host tool's protocol code
(boards.host.HostLinkClient) over a simulated UART (boards.sim_uart) into the board logic
(boards.ulx3s.BoardLogic: UART rx/tx + HostLink bridge) and a HostBus target, with faults
injected on the line; the CRC-32 (boards.crc) against zlib's and the RTL's; the host tool's
``--simulated`` run on the compiled board top."""

import dataclasses
import random
import subprocess
import sys
import zlib

import pytest
from amaranth import Module, Signal, unsigned
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out
from amaranth.sim import Simulator

from boards.crc import INIT, RESIDUE, crc32, crc32_bytes
from boards.host import HostLinkClient, LinkError, render_on_board
from boards.link_timing import LinkTiming
from boards.host_link import (ACK, NAK, CMD_STATUS, CMD_WRITE, CMD_READ, CMD_READ_BYTES,
                              WRITE_WORDS, Crc32)
from hdl.config import SceneDoesNotFit, preset
from boards.sim_uart import AmaranthSerial, FaultInjector, TO_BOARD, TO_HOST
from boards.ulx3s import BoardLogic
from hdl.gpu.host_bus import HostBus, Region, host_address
from hdl.gpu.address_map import R5Area, R5Reg, r500_address
from host.scene_writes import scene_load_runs
from tests.helpers import REPO
from tests.helpers.shared_data import SCENE_NAMES

DIVISOR = 4          # clock cycles per UART bit: keeps the simulation short
LINK_TIMEOUT = 400   # cycles of silence that end a command: ten byte times
CUBE = REPO / "examples" / "cube" / "cube.toml"


CELL_BITS = 7


def _seen_as(word, written_at, read_at):
    """A word written to FakeBusMemory at one address as read back at another of its cell."""
    return word ^ (written_at >> CELL_BITS) ^ (read_at >> CELL_BITS)


class FakeBusMemory(wiring.Component):
    """A HostBus target: 128 words at addr[6:0]. Stored and read words are XORed with
    addr >> 7 (``_seen_as``), so a word read back through a different full address differs (the address's
    high bits are checked too). ``ready`` drops every other cycle and reads answer two cycles
    after they are taken, to exercise the bridge's handshakes."""
    host: In(HostBus())
    busy: Out(1)
    done: Out(1)
    error: Out(1)

    def elaborate(self, platform):
        m = Module()
        m.submodules.mem = mem = Memory(shape=unsigned(32), depth=1 << CELL_BITS, init=[])
        w = mem.write_port()
        r = mem.read_port()
        host = self.host
        stall = Signal()
        m.d.sync += stall.eq(~stall)
        m.d.comb += host.ready.eq(~stall)
        take = host.valid & host.ready
        high = host.addr[CELL_BITS:]
        m.d.comb += [w.addr.eq(host.addr[:CELL_BITS]), w.data.eq(host.wdata ^ high),
                     w.en.eq(take & host.write), r.addr.eq(host.addr[:CELL_BITS]),
                     r.en.eq(take & ~host.write)]
        read1, high1 = Signal(), Signal(32 - CELL_BITS)
        m.d.sync += [read1.eq(take & ~host.write), high1.eq(high)]
        m.d.sync += [host.rvalid.eq(read1), host.rdata.eq(r.data ^ high1)]
        return m


class Board:
    """BoardLogic around ``target`` in Amaranth's simulator, its line an AmaranthSerial
    (``serial``), and every write the target's host port takes logged in ``bus_writes``
    ((addr, word) in order): what reached the GPU."""

    def __init__(self, target, faults=None, link_timeout=LINK_TIMEOUT):
        self.logic = BoardLogic(target, DIVISOR, link_timeout=link_timeout)
        self.sim = Simulator(self.logic)
        self.sim.add_clock(1e-6)
        self.bus_writes = []
        host = target.host

        async def monitor(ctx):
            while not self.closing:
                _, _, valid, ready, write, addr, wdata = await ctx.tick().sample(
                    host.valid, host.ready, host.write, host.addr, host.wdata)
                if valid and ready and write:
                    self.bus_writes.append((addr, wdata))

        self.sim.add_testbench(monitor, background=True)
        self.closing = False
        self.serial = AmaranthSerial(self.sim, self.logic.rx, self.logic.tx, DIVISOR,
                                     link_timeout, faults=faults)

    def close(self):
        """Let the testbenches end (a simulator dropped with testbenches suspended in it
        warns when it is collected)."""
        self.closing = True
        self.serial.close()

    def exchange(self, command, answer_bytes, timeout_cycles=4000):
        """Send raw bytes, return what comes back within the time given."""
        self.serial.write(command)
        return self.serial.read(answer_bytes, timeout_cycles * 1e-6)


@pytest.fixture
def make_board():
    """Board(...), closed after the test."""
    made = []

    def make(*args, **kwargs):
        made.append(Board(*args, **kwargs))
        return made[-1]

    yield make
    for board in made:
        board.close()


def _meant(client):
    """The (addr, word) writes the client was asked to make, in order."""
    return [(addr + i, w) for addr, words in client.writes for i, w in enumerate(words)]


def test_crc32_is_zlibs_and_the_rtl_unit_computes_it():
    rng = random.Random(5)
    frames = [bytes(rng.randrange(256) for _ in range(n)) for n in (0, 1, 5, 64)]
    for frame in frames:
        assert crc32(frame) == zlib.crc32(frame)
        assert crc32(crc32_bytes(frame)) ^ INIT == RESIDUE
    assert crc32(b"123456789") == 0xCBF43926                  # the catalogue's check value

    unit = Crc32()
    sim = Simulator(unit)
    sim.add_clock(1e-6)
    seen = []

    async def feed(ctx):
        for frame in frames[1:]:
            for i, byte in enumerate(crc32_bytes(frame)):
                ctx.set(unit.data, byte)
                ctx.set(unit.valid, 1)
                ctx.set(unit.first, i == 0)
                await ctx.tick()
                if i == len(frame) - 1:
                    seen.append(("crc", ctx.get(unit.value) ^ INIT, crc32(frame)))
            seen.append(("residue", ctx.get(unit.value), RESIDUE))
            ctx.set(unit.valid, 0)
            await ctx.tick().repeat(3)                          # holds while not valid
            seen.append(("held", ctx.get(unit.value), RESIDUE))

    sim.add_testbench(feed)
    sim.run()
    assert all(got == want for _, got, want in seen), seen


def test_words_round_trip_through_the_bridge(make_board):
    base = host_address(Region.OUTPUT, 0x10)         # high address bits travel too
    board = make_board(FakeBusMemory())
    client = HostLinkClient(board.serial, keep_writes=True)
    client.connect()
    client.write(base, [0x1234_5678, 0xDEAD_BEEF, 0, 0xFFFF_FFFF])
    assert client.read(base, 4) == [0x1234_5678, 0xDEAD_BEEF, 0, 0xFFFF_FFFF]
    assert client.read(0x10, 1) == [_seen_as(0x1234_5678, base, 0x10)]   # same cell
    assert client.read_bytes(base + 1, 3) == bytes([0xEF, 0x00, 0xFF])
    # a write longer than the bridge's buffer goes as several commands
    client.write(0x20, list(range(7, 7 + WRITE_WORDS + 3)))
    assert client.read(0x20, WRITE_WORDS + 3) == list(range(7, 7 + WRITE_WORDS + 3))
    assert board.bus_writes == _meant(client)
    assert client.stats["retries"] == 0 and board.serial.framing_errors == 0


def _answer(reply, seq, payload=b""):
    return crc32_bytes(bytes([reply, seq]) + payload)


def _write(seq, addr, words, crc_error=0):
    frame = bytearray(crc32_bytes(bytes([CMD_WRITE, seq]) + addr.to_bytes(4, "little")
                                  + len(words).to_bytes(2, "little")
                                  + b"".join(w.to_bytes(4, "little") for w in words)))
    frame[-1] ^= crc_error
    return bytes(frame)


def _read(cmd, seq, addr, count):
    return crc32_bytes(bytes([cmd, seq]) + addr.to_bytes(4, "little")
                       + count.to_bytes(2, "little"))


def test_bridge_acts_only_on_whole_commands_with_a_good_crc_and_once_per_write(make_board):
    board = make_board(FakeBusMemory())
    nak = _answer(NAK, 0)
    # unknown command, a write with a bad CRC, half a write then silence, a write longer
    # than the buffer: each refused (NAK once the line is quiet), nothing reaches the bus
    assert board.exchange(b"?", 6) == nak
    assert board.exchange(_write(1, 5, [0xBAD], crc_error=0x10), 6) == nak
    assert board.exchange(_write(1, 5, [0xBAD])[:9], 6) == nak
    too_long = _write(1, 5, [0xBAD] * (WRITE_WORDS + 1))
    assert board.exchange(too_long, 6, timeout_cycles=len(too_long) * 40 + 4000) == nak
    assert board.bus_writes == []
    # status: the last write applied (none yet: 0)
    assert board.exchange(crc32_bytes(bytes([CMD_STATUS, 9])), 7) == _answer(ACK, 9, b"\0")
    # a write, then the same write again (its ACK lost, say): applied once, ACKed twice
    assert board.exchange(_write(1, 5, [0xCAFE, 0xF00D]), 6) == _answer(ACK, 1)
    assert board.exchange(_write(1, 5, [0xCAFE, 0xF00D]), 6) == _answer(ACK, 1)
    assert board.exchange(crc32_bytes(bytes([CMD_STATUS, 10])), 7) == _answer(ACK, 10, b"\1")
    assert board.exchange(_write(2, 5, []), 6) == _answer(ACK, 2)      # count 0: no words
    assert board.exchange(_read(CMD_READ, 11, 5, 2), 14) == \
        _answer(ACK, 11, (0xCAFE).to_bytes(4, "little") + (0xF00D).to_bytes(4, "little"))
    assert board.exchange(_read(CMD_READ_BYTES, 12, 5, 2), 8) == _answer(ACK, 12, b"\xfe\x0d")
    assert board.exchange(_read(CMD_READ, 13, 5, 0), 6) == _answer(ACK, 13)
    assert board.bus_writes == [(5, 0xCAFE), (6, 0xF00D)]


def test_a_noisy_line_in_both_directions_loses_nothing_and_corrupts_nothing(make_board):
    """Flipped bits, dropped and duplicated bytes and stalls, about 2 % of the bytes each
    way: every read answer is right and the bus took exactly the writes meant, once each."""
    faults = FaultInjector(0.03, seed=11)
    board = make_board(FakeBusMemory(), faults=faults, link_timeout=200)
    client = HostLinkClient(board.serial, keep_writes=True)
    rng = random.Random(3)
    client.connect()
    for round in range(3):
        words = [rng.getrandbits(32) for _ in range(24)]
        addr = 0x400 * (round + 1) + rng.randrange(100)
        client.write(addr, words)
        read_at = addr ^ 0x8000                                  # the same cells
        assert client.read(read_at, 24) == [_seen_as(w, addr, read_at) for w in words]
        assert client.read_bytes(addr, 24) == bytes(w & 0xFF for w in words)
        client.write_register(0, round)                          # one-word writes: as a start
    assert board.bus_writes == _meant(client)
    for direction in (TO_BOARD, TO_HOST):
        for kind in FaultInjector.KINDS:
            assert faults.counts[direction, kind] > 0, (direction, kind, faults.counts)
    assert client.stats["retries"] > 5


def test_client_gives_up_with_one_line():
    class Silent:
        written = 0

        def write(self, data):
            Silent.written += 1

        def read(self, n, timeout):
            return b""

    timing = LinkTiming(byte_s=1e-6, board_timeout_s=1e-4, latency_s=1e-4)
    client = HostLinkClient(Silent(), attempts=3, timing=timing)
    with pytest.raises(LinkError, match="no answer to the status command") as error:
        client.connect()
    assert "gave up on the status command after 3 attempts (last: timed out" in str(error.value)
    assert "\n" not in str(error.value) and Silent.written == 3

    class Garbage(Silent):
        """Answers of the right length, wrong; silence when the host waits for quiet."""
        def read(self, n, timeout):
            return bytes([ACK] * n) if n < 1000 else b""

    class Babbling(Silent):
        def read(self, n, timeout):
            return bytes([ACK] * n)

    for transport, problem in ((Garbage(), "gave up on a read of 1 words at 0x5 after 2 "
                                           "attempts .last: the answer's CRC is wrong"),
                               (Babbling(), "the line never goes quiet")):
        client = HostLinkClient(transport, attempts=2, timing=timing)
        client.write_seq = 0
        with pytest.raises(LinkError, match=problem):
            client.read(5, 1)


# --- scene loading and refusal (no simulation) -------------------------------------------------

def _tiny_scene():
    """2x2 pixels, one band, the demo's two floor triangles (every pixel hits one), a 2x2
    texture (the firmware wraps texture coordinates by TEXTURE_SIZE, so the demo's UVs still
    address it)."""
    from sim.demo_scene import demo_scene
    scene = demo_scene(size=2, bands=1, texture_size=16)
    config = list(scene.config)
    config[5] = (2 << 17, 2 << 17, 0)
    return dataclasses.replace(scene, triangles=scene.triangles[2:4], texture_size=2,
                               config=config,
                               texture=[(37 * i + 11) % 256 << 9 for i in range(12)])


def _documented_writes(scene):
    """(address, word) pairs that load ``scene``, word by word as docs/host-interface.md's
    address map describes it (only the words it gives a meaning)."""
    writes = []
    for i, word in enumerate(scene.user_code or []):
        writes += [(host_address(Region.USER, 2 * i), word >> 32),
                   (host_address(Region.USER, 2 * i + 1), word & 0xFFFF_FFFF)]
    writes += [(host_address(Region.TEXTURE, i), word) for i, word in enumerate(scene.texture)]
    writes += [(host_address(Region.SCENE, (t * 8 + row) * 4 + lane), value[lane])
               for t, triangle in enumerate(scene.triangles)
               for row, value in enumerate(triangle) for lane in range(3)]
    writes += [(host_address(Region.CONFIG, row * 4 + lane), value[lane])
               for row, value in enumerate(scene.config) for lane in range(3)]
    for band, (initial, final) in enumerate(scene.bands):
        writes += [(host_address(Region.BANDS, band * 8 + lane), initial[lane])
                   for lane in range(3)]
        writes += [(host_address(Region.BANDS, band * 8 + 4 + lane), final[lane])
                   for lane in range(3)]
        writes.append((host_address(Region.BANDS, band * 8 + 3), scene.band_output_base(band)))
    writes += [(host_address(Region.CONTROL, 2), len(scene.triangles)),
               (host_address(Region.CONTROL, 3), len(scene.bands))]
    # no bins: BIN_GRID, BIN_TABLE and BIN_LIST 0
    writes += [(host_address(Region.CONTROL, reg), 0) for reg in (16, 17, 18)]
    # no R500 program: the R500 stage's SHADE register off
    writes.append((r500_address(R5Area.REGS, R5Reg.SHADE), 0))
    return writes


def test_load_runs_hold_exactly_the_documented_writes():
    scene = _tiny_scene()
    flat = {}
    for addr, words in scene_load_runs(scene):
        for i, w in enumerate(words):
            flat[addr + i] = w
    documented = dict(_documented_writes(scene))
    assert {a: flat.get(a) for a in documented} == documented
    extra = {a: w for a, w in flat.items() if a not in documented}
    # only zeros into the ignored lane 3 of configuration / scene rows, the unused band word 7
    # and the unused 8th row of each triangle slot
    scene_base = host_address(Region.SCENE, 0)
    assert all(w == 0 for w in extra.values())
    assert all(a & 3 == 3 or (a >= scene_base and (a - scene_base) >> 2 & 7 == 7)
               for a in extra)


def test_scenes_the_board_cannot_hold_are_refused():
    scene = _tiny_scene()
    board = preset("ulx3s")
    board.check_fits(scene)
    scene.texture[4] |= 0x100                        # not an 8-bit colour << 9
    with pytest.raises(SceneDoesNotFit, match="word 4 .*multiple of 0x200"):
        board.check_fits(scene)
    scene = _tiny_scene()
    with pytest.raises(SceneDoesNotFit, match="triangles"):
        board.replace(max_triangles=len(scene.triangles) - 1).check_fits(scene)
    with pytest.raises(SceneDoesNotFit, match="output words"):
        board.replace(omem_words=3 * scene.pixel_count - 1).check_fits(scene)
    # the board's scene class: textures up to 1024 x 1024, frames up to the display's 640 x 480
    big = dataclasses.replace(scene, texture_size=2048, texture=[0] * (3 * 1024 * 1024 + 3))
    with pytest.raises(SceneDoesNotFit, match=r"texture of 3145731 words \(2048x2048\), the "
                                              r"GPU holds 3145728"):
        board.check_fits(big)

    class Untouchable:
        def write(self, data):
            raise AssertionError("the board must not be touched")

        read = write

    with pytest.raises(SceneDoesNotFit):
        render_on_board(HostLinkClient(Untouchable()), scene,
                        board.replace(omem_words=3 * scene.pixel_count - 1))


def test_reference_scenes_fit_the_ulx3s_build(scenes_dir):
    from sim.scene import load_scene
    for name in SCENE_NAMES:
        preset("ulx3s").check_fits(load_scene(scenes_dir / name))


def test_the_r500_board_holds_full_rows_through_lit():
    """ulx3s-r500's row buffer holds a 200-pixel row (the widest its output store holds) of a
    program reading four input temporaries (`lit`); a buffer a word shorter refuses it by name."""
    from hdl.config import r500_row_words
    from sim.demo_scene import demo_scene
    from sim.r500.shader_config import load_shading
    board = preset("ulx3s-r500")
    wide = dataclasses.replace(demo_scene(size=200, bands=2), shader=load_shading("lit"))
    assert r500_row_words(wide) == 200 * (4 + 3 * 4)
    board.check_fits(wide)
    with pytest.raises(SceneDoesNotFit, match="row"):
        board.replace(r500_row_words=r500_row_words(wide) - 1).check_fits(wide)


# --- the host tool's command line: scene loading and the board's limits (no board) ----------

def _tool(module, *args):
    proc = subprocess.run([sys.executable, "-m", module, *map(str, args)], cwd=REPO,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


def test_host_tool_takes_scene_descriptions_like_sim_render(tmp_path):
    port, out = tmp_path / "no-such-tty", tmp_path / "frame.png"
    # loaded and within the board's limits: what stops it is the missing serial port
    line = _tool("boards.host", CUBE, "--port", port, "--out", out)
    assert line.startswith("error: host link: ") and str(port) in line
    # more pixels than the board's display shows: refused before the port is opened
    big = tmp_path / "big.toml"
    big.write_text(CUBE.read_text().replace("resolution = [128, 128]", "resolution = [642, 64]")
                   .replace('"cube.obj"', repr(str(CUBE.parent / "cube.obj")))
                   .replace('"crate.png"', repr(str(CUBE.parent / "crate.png"))))
    line = _tool("boards.host", big, "--port", port, "--out", out)
    assert line == "error: big: a 642x64 frame, the GPU's display shows up to 640x480"
    # a description that cannot be used: the same one-line problem as sim.render gives
    bad = tmp_path / "bad.toml"
    bad.write_text('mesh = "cube.obj"\n')
    line = _tool("boards.host", bad, "--port", port, "--out", out)
    assert line.removeprefix("error: ") == \
        _tool("sim.render", bad, "--out", out).removeprefix("sim.render: ")
    assert "bad.toml" in line
    assert not out.exists()


def test_host_tool_refuses_bad_simulated_runs_with_one_line(tmp_path):
    out = tmp_path / "frame.ppm"
    for rate in ("1.5", "-0.1", "often"):
        line = _tool("boards.host", "demo", "--simulated", "--fault-rate", rate, "--out", out)
        assert line == f"error: --fault-rate {rate}: a probability per byte, 0 <= P < 1"
    line = _tool("boards.host", tmp_path / "missing.toml", "--simulated", "--out", out)
    assert line.startswith("error: ") and "missing.toml" in line
    line = _tool("boards.host", "demo", "--out", out)
    assert line == "error: give --port (a board) or --simulated"
    assert not out.exists()


@pytest.mark.slow
def test_host_tool_simulated_with_faults_renders_the_models_frame():
    """What ``python -m boards.host SCENE --simulated --fault-rate 0.01`` runs: the compiled
    board top (the bridge that ships) behind a line damaging 1 % of the bytes each way gives
    the model's frame, every GPU write one the host meant, once."""
    from boards.host import _simulated_report, render_simulated
    from sim.fast import check_tools
    problem = check_tools("verilator")
    if problem:
        pytest.skip(f"no compiled simulator: {problem}")
    scene = _tiny_scene()
    rgb, info = render_simulated(scene, fault_rate=0.01, seed=2)
    line, ok = _simulated_report(scene, rgb, info)
    assert ok and "frame identical to the model's" in line and " 0 not as meant" in line, line
    assert info["faults"].total > 0 and info["client"].stats["retries"] > 0, line
    assert info["gpu_writes"] == info["meant_writes"]


# --- the real GPU behind the link ----------------------------------------------------------

def _on_board_and_model(scene):
    """``scene`` rendered by the host tool over the simulated UART into the board top's GPU
    in Amaranth's simulator (the ulx3s preset; memories of the scene's size, one core): (its
    RGB, its info, the model's RGB)."""
    from firmware.rom import default_rom
    from sim.image import words_to_rgb
    from sim.sequencer import render_model
    from hdl.gpu.gpu import Gpu

    # (the stores in block RAM: Amaranth's simulator runs the link and the GPU here; the
    # board's memories in SDRAM run on the fast backend, tests/boards/test_board_display.py)
    config = preset("ulx3s", cores=1, memory=None,
                    max_triangles=max(1, len(scene.triangles)),
                    tmem_words=len(scene.texture), omem_words=3 * scene.pixel_count,
                    max_bands=len(scene.bands), user_words=max(16, len(scene.user_code or [])))
    board = Board(Gpu(default_rom(), config), link_timeout=1 << 12)
    client = HostLinkClient(board.serial, keep_writes=True)
    rgb, info = render_on_board(client, scene, config, poll_interval=2e-3, timeout=60)
    board.close()
    assert board.bus_writes == _meant(client)
    omem, _, _ = render_model(scene, default_rom(), cores=1, jobs=1)
    return rgb, info, words_to_rgb(omem, scene.width, scene.height)


@pytest.mark.slow
def test_host_tool_renders_a_tiny_scene_on_the_gpu_like_the_model():
    rgb, info, expected = _on_board_and_model(_tiny_scene())
    assert info["cores"] == 1 and info["cycles"] > 0
    assert (rgb == expected).all()


#: an R500 program that computes: colour = TEXTURE_COLOR * 0.5 + 0.25
HALF_AND_QUARTER = """
OUT src0.rgb = temp[0], src1.rgb = float(48), src2.rgb = float(40) :
  out[0].rgb = MAD src0.rgb src1.rgb src2.rgb ;
"""


@pytest.mark.slow
def test_host_tool_renders_a_tiny_scene_with_an_r500_program_like_the_model():
    """``python -m boards.host SCENE --shader PROG --simulated`` end to end: the program and its
    state over the simulated UART into the compiled ``ulx3s-r500`` board top (the bridge, the
    GPU with its R500 stage, the memory system with the SDRAM chip model on its pins), whose
    R500 stage shades the frame as the model does, every GPU write one the host meant."""
    from boards.host import _simulated_report, render_simulated
    from firmware.r500asm import assemble
    from firmware.rom import default_rom
    from sim.fast import check_tools
    from sim.image import words_to_rgb
    from sim.r500.shading import R500Shading
    from sim.sequencer import render_model
    problem = check_tools("verilator")
    if problem:
        pytest.skip(f"no compiled simulator: {problem}")
    scene = _tiny_scene()
    plain = words_to_rgb(render_model(scene, default_rom(), cores=1, jobs=1)[0], scene.width,
                         scene.height)
    scene = dataclasses.replace(scene, shader=R500Shading(list(assemble(HALF_AND_QUARTER).words),
                                                          source="half.asm"))
    rgb, info = render_simulated(scene)
    line, ok = _simulated_report(scene, rgb, info)
    assert ok and "frame identical to the model's" in line and " 0 not as meant" in line, line
    assert info["gpu_writes"] == info["meant_writes"]
    assert not (rgb == plain).all()               # the program did something
