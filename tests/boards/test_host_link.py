"""The UART host link end to end in simulation: the host tool's protocol code
(boards.host.HostLinkClient) over a simulated UART (boards.sim_uart) into the board logic
(boards.ulx3s.BoardLogic: UART rx/tx + HostLink bridge) and a HostBus target."""

import subprocess
import sys
import time

import pytest
from amaranth import Module, Signal, unsigned
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out
from amaranth.sim import Simulator

from boards.host import HostLinkClient, LinkError, render_on_board
from boards.host_link import NAK
from hdl.config import SceneDoesNotFit, preset
from boards.sim_uart import SimulatedSerial
from boards.ulx3s import BoardLogic
from hdl.gpu.host_bus import HostBus, Region, host_address
from hdl.gpu.host_protocol import R5Area, R5Reg, r500_address, scene_load_runs
from tests.helpers import REPO, SCENES_DIR

DIVISOR = 4          # clock cycles per UART bit: keeps the simulation short
CUBE = REPO / "examples" / "cube" / "cube.toml"


class FakeBusMemory(wiring.Component):
    """A HostBus target: 64 words at addr[5:0]. Stored and read words are XORed with
    addr >> 6, so a word read back through a different full address differs (the address's
    high bits are checked too). ``ready`` drops every other cycle and reads answer two cycles
    after they are taken, to exercise the bridge's handshakes."""
    host: In(HostBus())
    busy: Out(1)
    done: Out(1)
    error: Out(1)

    def elaborate(self, platform):
        m = Module()
        m.submodules.mem = mem = Memory(shape=unsigned(32), depth=64, init=[])
        w = mem.write_port()
        r = mem.read_port()
        host = self.host
        stall = Signal()
        m.d.sync += stall.eq(~stall)
        m.d.comb += host.ready.eq(~stall)
        take = host.valid & host.ready
        high = host.addr[6:]
        m.d.comb += [w.addr.eq(host.addr[:6]), w.data.eq(host.wdata ^ high),
                     w.en.eq(take & host.write), r.addr.eq(host.addr[:6]),
                     r.en.eq(take & ~host.write)]
        read1, high1 = Signal(), Signal(26)
        m.d.sync += [read1.eq(take & ~host.write), high1.eq(high)]
        m.d.sync += [host.rvalid.eq(read1), host.rdata.eq(r.data ^ high1)]
        return m


def _run(target, host, timeout_cycles=2000):
    logic = BoardLogic(target, DIVISOR, link_timeout=timeout_cycles)
    sim = Simulator(logic)
    sim.add_clock(1e-6)
    serial = SimulatedSerial(logic.rx, logic.tx, DIVISOR, timeout=120)
    result = serial.run(sim, host)
    assert serial.framing_errors == 0
    return result


def test_words_round_trip_through_the_bridge():
    base = host_address(Region.OUTPUT, 0x10)         # high address bits travel too

    def host(serial):
        client = HostLinkClient(serial)
        client.sync()
        client.write(base, [0x1234_5678, 0xDEAD_BEEF, 0, 0xFFFF_FFFF])
        same = client.read(base, 4)
        other = client.read(0x10, 1)                 # same cell, different high bits
        low_bytes = client.read_bytes(base + 1, 3)
        client.write(base, [])                       # count 0: just an ACK
        return same, other, low_bytes

    same, other, low_bytes = _run(FakeBusMemory(), host)
    assert same == [0x1234_5678, 0xDEAD_BEEF, 0, 0xFFFF_FFFF]
    assert other == [0x1234_5678 ^ (base >> 6)]
    assert low_bytes == bytes([0xEF, 0x00, 0xFF])


def test_unknown_command_is_refused_and_a_stalled_command_times_out():
    def host(serial):
        serial.write(b"?")
        nak = serial.read(1)[0]
        # half a write header, then silence: the bridge must abandon it ...
        serial.write(b"W\x01\x00")
        time.sleep(0.5)                              # the simulation runs on meanwhile
        client = HostLinkClient(serial)
        client.sync()                                # ... and answer a fresh command
        client.write(5, [0xCAFE])
        return nak, client.read(5, 1)

    nak, word = _run(FakeBusMemory(), host, timeout_cycles=300)
    assert nak == NAK
    assert word == [0xCAFE]


def test_client_reports_a_wrong_answer():
    class Garbage:
        def write(self, data):
            pass

        def read(self, n):
            return bytes([0x00] * n)

    with pytest.raises(LinkError, match="expected ACK"):
        HostLinkClient(Garbage()).sync()

    class Silent:
        flushes = 0

        def write(self, data):
            pass

        def read(self, n):
            raise LinkError("timed out")

        def flush_input(self):
            Silent.flushes += 1

    with pytest.raises(LinkError, match="no answer to sync"):
        HostLinkClient(Silent()).connect(attempts=2)
    assert Silent.flushes == 2


# --- scene loading and refusal (no simulation) -------------------------------------------------

def _tiny_scene():
    """2x2 pixels, one band, the demo's two floor triangles (every pixel hits one), a 2x2
    texture (the firmware wraps texture coordinates by TEXTURE_SIZE, so the demo's UVs still
    address it)."""
    from sim.demo_scene import demo_scene
    scene = demo_scene(size=2, bands=1, texture_size=16)
    scene.triangles = scene.triangles[2:4]
    scene.texture_size = 2
    scene.config[5] = (2 << 17, 2 << 17, 0)
    scene.texture = [(37 * i + 11) % 256 << 9 for i in range(12)]
    return scene


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

    class Untouchable:
        def write(self, data):
            raise AssertionError("the board must not be touched")

        read = write

    with pytest.raises(SceneDoesNotFit):
        render_on_board(HostLinkClient(Untouchable()), scene,
                        board.replace(omem_words=3 * scene.pixel_count - 1))


def test_reference_scenes_fit_the_ulx3s_build():
    from sim.scene import load_scene
    if not SCENES_DIR.is_dir():
        pytest.skip(f"scene directory {SCENES_DIR} is not present")
    for name in ("example1", "example3", "shaders"):
        preset("ulx3s").check_fits(load_scene(SCENES_DIR / name))


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
    # more pixels than the board's output store holds: refused before the port is opened
    big = tmp_path / "big.toml"
    big.write_text(CUBE.read_text().replace("resolution = [128, 128]", "resolution = [256, 256]")
                   .replace('"cube.obj"', repr(str(CUBE.parent / "cube.obj")))
                   .replace('"crate.png"', repr(str(CUBE.parent / "crate.png"))))
    line = _tool("boards.host", big, "--port", port, "--out", out)
    assert line.startswith("error: big: ") and "output words" in line
    # a description that cannot be used: the same one-line problem as sim.render gives
    bad = tmp_path / "bad.toml"
    bad.write_text('mesh = "cube.obj"\n')
    line = _tool("boards.host", bad, "--port", port, "--out", out)
    assert line.removeprefix("error: ") == \
        _tool("sim.render", bad, "--out", out).removeprefix("sim.render: ")
    assert "bad.toml" in line
    assert not out.exists()


# --- the real GPU behind the link ----------------------------------------------------------

def _on_board_and_model(scene):
    """``scene`` rendered by the host tool over the simulated UART into the board top's GPU
    (the ulx3s preset, memories of the scene's size, one core): (its RGB, its info, the
    model's RGB)."""
    from firmware.rom import default_rom
    from sim.image import words_to_rgb
    from sim.sequencer import render_model
    from hdl.gpu.gpu import Gpu

    config = preset("ulx3s", cores=1, max_triangles=max(1, len(scene.triangles)),
                    tmem_words=len(scene.texture), omem_words=3 * scene.pixel_count,
                    max_bands=len(scene.bands), user_words=max(16, len(scene.user_code or [])))
    rgb, info = _run(Gpu(default_rom(), config), lambda serial: render_on_board(
        HostLinkClient(serial), scene, config, poll_interval=0.2, timeout=1800),
        timeout_cycles=1 << 16)
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
    """``python -m boards.host SCENE --shader PROG`` end to end: the program and its state
    over the simulated UART into the board top's GPU, whose R500 stage shades the frame."""
    from firmware.r500asm import assemble
    from sim.r500.shading import R500Shading

    from firmware.rom import default_rom
    from sim.image import words_to_rgb
    from sim.sequencer import render_model

    scene = _tiny_scene()
    plain = words_to_rgb(render_model(scene, default_rom(), cores=1, jobs=1)[0], scene.width,
                         scene.height)
    scene.shader = R500Shading(list(assemble(HALF_AND_QUARTER).words), source="half.asm")
    rgb, _, expected = _on_board_and_model(scene)
    assert (rgb == expected).all()
    assert not (rgb == plain).all()               # the program did something
