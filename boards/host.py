"""Host tool: render a scene on a board over the UART host link (docs/host-link.md).

    python -m boards.host SCENE --port /dev/ttyUSB0 --out frame.png [--baud 3000000]
        [--shader PROG.frag|PROG.asm [--uniforms FILE | --constants FILE]]
    python -m boards.host SCENE --simulated [--fault-rate P] [--seed S] --out frame.ppm

SCENE is anything ``python -m sim.render`` takes: a theia-2010 scene directory, a .toml/.json
scene description (docs/scene-import.md) or ``demo``; ``--shader``/``--constants``/``--uniforms``
shade its hits with an R500 program on the board's R500 stage, as for ``sim.render`` (a .frag
that does not compile: its ``file:line:column: problem``, exit status 2). Loads the scene
(refusing one the board cannot hold exactly: ``GpuConfig.check_fits`` of the board's preset),
starts the frame, polls STATUS, reads the converted 8-bit pixels back and writes a PNG
(sim.image): the frame sequence every host uses (host/frame.py).
The serial port is a ``Transport`` (``write(bytes)``, ``read(n, timeout) -> bytes``); tests and
``--simulated`` plug in a simulated UART instead of pyserial (boards/sim_uart.py): with
``--simulated`` the board top is compiled (sim/fast) and runs behind a line that damages bytes
with probability P each way; the tool prints one line (faults injected, commands retried,
writes the GPU took that the host did not mean, the link's payload rate) and exits 0 only with
the reference model's frame and no stray write.
"""

import argparse
import sys
import time
from collections import Counter

import numpy as np

from boards.crc import crc32, crc32_bytes
from boards.host_link import (ACK, NAK, CMD_STATUS, CMD_WRITE, CMD_READ, CMD_READ_BYTES,
                              MAX_COUNT, WRITE_WORDS)
from boards.link_timing import LinkTiming
from hdl.config import PRESET_NAMES, SceneDoesNotFit, preset
from sim.image import words_to_rgb
from hdl.gpu.address_map import (COUNTERS, CTRL_STOP, FRAME_ENDED, STATUS_BUSY, STATUS_ERROR,
                                 Reg, Region, host_address, register_address)
from host.errors import FrameError
from host.frame import render_frame_blocking, show_scene_blocking
from sim.errors import source_errors
from sim.scene import SceneError
from sim.scene_loader import SCENE_ARGUMENT_HELP, add_shader_arguments, scene_from_arguments

__all__ = ["LinkError", "LinkTiming", "SerialTransport", "HostLinkClient", "render_on_board",
           "main", "ATTEMPTS", "READ_BYTES"]

DEFAULT_BAUD = 3_000_000
#: consecutive failures of one command before the host gives up (each one halves the command's
#: length, down to one word, so a noisy line still gets short commands through)
ATTEMPTS = 16
#: the longest read answer's payload: long enough that the 12-byte command and 6 bytes of
#: answer framing cost under 2 %, short enough that a retry re-reads little
READ_BYTES = 1024


class LinkError(Exception):
    """The board did not answer as the protocol says, even after retries."""


class _Failure(Exception):
    """One exchange went wrong (timeout, bad answer, NAK): it is retried."""


class SerialTransport:
    """pyserial port (``pip install pyserial``, in the ``fpga`` extra)."""

    def __init__(self, port, baud):
        try:
            import serial
        except ImportError:
            raise LinkError("pyserial is not installed: pip install 'theia-gpu[fpga]' "
                            "(or pip install pyserial)") from None
        try:
            self.port = serial.Serial(port, baud, timeout=1.0)
        except (serial.SerialException, ValueError) as e:
            raise LinkError(f"cannot open {port} at {baud} baud: {e}") from None
        self.name = port
        self.timing = LinkTiming.for_baud(baud)

    def write(self, data):
        self.port.write(data)

    def read(self, n, timeout):
        """Up to ``n`` bytes, fewer if ``timeout`` seconds pass first."""
        self.port.timeout = timeout
        return self.port.read(n)

    def flush(self):
        """Wait until every byte written has left."""
        self.port.flush()


def _address_count(addr, count):
    return addr.to_bytes(4, "little") + count.to_bytes(2, "little")


class HostLinkClient:
    """The protocol over a transport (``write(bytes)``, ``read(n, timeout) -> bytes``, and if it
    has them ``flush()``, ``sleep(s)``, ``now_s()`` and ``timing``). Addresses are GPU word
    addresses (hdl.gpu.host_bus).

    Every command is retried until it succeeds, up to ``attempts`` failures in a row: after a
    failure the host resynchronises (waits until the line has been silent for longer than the
    board's timeout, dropping what comes) and, for a write, asks the board whether it was
    applied (the status command returns the last write's sequence number) before sending it
    again, so each write takes effect exactly once. ``stats`` counts commands, retries, the
    kinds of failure and the payload and line bytes. ``keep_writes``: remember every
    (addr, words) written in ``writes`` (what the host meant, for a check against the GPU)."""

    def __init__(self, transport, timing=None, attempts=ATTEMPTS, keep_writes=False):
        self.transport = transport
        self.timing = timing or getattr(transport, "timing", None) or \
            LinkTiming.for_baud(DEFAULT_BAUD)
        self.attempts = attempts
        self.write_chunk = WRITE_WORDS
        self.read_chunk = READ_BYTES
        self.write_seq = None            # the last write the board applied (after connect)
        self.tag = 0                     # echoed by the answers of reads and status commands
        self.stats = Counter()
        self.writes = [] if keep_writes else None

    # --- time: the transport's (a simulated line runs on simulated time) ---------------------
    def now(self):
        clock = getattr(self.transport, "now_s", None)
        return clock() if clock else time.monotonic()

    def sleep(self, seconds):
        sleep = getattr(self.transport, "sleep", None)
        (sleep or time.sleep)(seconds)

    # --- one exchange ------------------------------------------------------------------------
    def _exchange(self, command, payload_bytes):
        """Send ``command`` (its CRC appended) and return the payload of its ACK, checked;
        _Failure if the answer is late, corrupt, for another command, or a NAK."""
        frame = crc32_bytes(command)
        self.stats["commands"] += 1
        self.stats["line_out"] += len(frame)
        self.transport.write(frame)
        expected = payload_bytes + 6
        answer = self.transport.read(6, self.timing.answer_timeout(len(frame), 6))
        if len(answer) == 6 and answer[0] == NAK and crc32(answer[:2]) == \
                int.from_bytes(answer[2:], "little"):
            raise _Failure("NAK", "the board refused the command (NAK)")
        if len(answer) == 6 and payload_bytes:
            answer += self.transport.read(payload_bytes,
                                          self.timing.answer_timeout(0, payload_bytes))
        self.stats["line_in"] += len(answer)
        if len(answer) < expected:
            raise _Failure("timeout", f"timed out after {len(answer)} of {expected} bytes")
        if crc32(answer[:-4]) != int.from_bytes(answer[-4:], "little"):
            raise _Failure("bad CRC", "the answer's CRC is wrong")
        if answer[0] != ACK or answer[1] != command[1]:
            raise _Failure("bad answer", f"answer {answer[:2].hex()} to command "
                                         f"{command[:2].hex()}")
        return answer[2:-4]

    def _resync(self):
        """Wait until the board is idle: our bytes gone, then silence longer than its timeout
        (after which it has dropped any half command and sent its NAK)."""
        self.stats["resyncs"] += 1
        flush = getattr(self.transport, "flush", None)
        if flush:
            flush()
        for _ in range(1000):
            dropped = self.transport.read(1 << 16, self.timing.quiet_s)
            self.stats["line_in"] += len(dropped)
            if not dropped:
                return
        raise LinkError("the board keeps sending: the line never goes quiet")

    def _failed(self, failure, what, failures):
        kind, problem = failure.args
        self.stats[kind] += 1
        if failures >= self.attempts:
            raise LinkError(f"gave up on {what} after {failures} attempts (last: {problem})")
        self._resync()

    def _next_tag(self):
        self.tag = (self.tag + 1) & 0xFF
        return self.tag

    # --- commands ----------------------------------------------------------------------------
    def status(self):
        """The sequence number of the last write the board applied."""
        failures = 0
        while True:
            try:
                return self._exchange(bytes([CMD_STATUS, self._next_tag()]), 1)[0]
            except _Failure as failure:
                failures += 1
                self._failed(failure, "the status command", failures)
                self.stats["retries"] += 1

    def connect(self):
        """Resynchronise and learn the board's last write sequence number (the next write
        uses the one after it)."""
        self._resync()
        try:
            self.write_seq = self.status()
        except LinkError as e:
            raise LinkError(f"no answer to the status command ({e}): is the bitstream loaded, "
                            f"and are the port and baud rate right?") from None

    def write(self, addr, words):
        words = [w & 0xFFFF_FFFF for w in words]
        if self.writes is not None:
            self.writes.append((addr, list(words)))
        if self.write_seq is None:
            self.connect()
        started = self.now()
        done = 0
        while done < len(words):
            seq = (self.write_seq + 1) & 0xFF
            failures = 0
            while True:
                n = min(self.write_chunk, len(words) - done)
                payload = b"".join(w.to_bytes(4, "little") for w in words[done:done + n])
                command = bytes([CMD_WRITE, seq]) + _address_count(addr + done, n) + payload
                try:
                    self._exchange(command, 0)
                    self.write_chunk = min(WRITE_WORDS, 2 * self.write_chunk)
                    break
                except _Failure as failure:
                    failures += 1
                    self._failed(failure, f"a write of {n} words at {addr + done:#x}", failures)
                    if self.status() == seq:         # applied, only the answer was lost
                        break
                    # not applied: the same sequence number, but a shorter command
                    self.write_chunk = max(1, n // 2)
                    self.stats["retries"] += 1
            self.write_seq = seq
            self.stats["payload_out"] += 4 * n
            done += n
        self.stats["write_s"] += self.now() - started

    def _read(self, cmd, addr, count, width):
        out = bytearray()
        started = self.now()
        failures = 0
        while len(out) < count * width:
            done = len(out) // width
            n = max(1, min(self.read_chunk // width, count - done, MAX_COUNT))
            tag = self._next_tag()
            try:
                out += self._exchange(bytes([cmd, tag]) + _address_count(addr + done, n),
                                      n * width)
                failures = 0
                self.read_chunk = min(READ_BYTES, 2 * self.read_chunk)
            except _Failure as failure:
                failures += 1
                self._failed(failure, f"a read of {n} words at {addr + done:#x}", failures)
                self.read_chunk = max(width, n * width // 2)
                self.stats["retries"] += 1
        # (words and bytes apart: the image is read as bytes, status polls as words)
        kind = "read_words" if width == 4 else "read_bytes"
        self.stats[f"{kind}_payload"] += len(out)
        self.stats[f"{kind}_s"] += self.now() - started
        return bytes(out)

    def read(self, addr, count):
        data = self._read(CMD_READ, addr, count, 4)
        return [int.from_bytes(data[4 * i:4 * i + 4], "little") for i in range(count)]

    def read_bytes(self, addr, count):
        """Bits 7:0 of ``count`` words (the board's converted pixels)."""
        return self._read(CMD_READ_BYTES, addr, count, 1)

    def read_register(self, reg):
        return self.read(register_address(reg), 1)[0]

    def write_register(self, reg, value):
        self.write(register_address(reg), [value])

    def summary(self):
        """One phrase: commands, retries and what failed."""
        s = self.stats
        kinds = [f"{s[k]} {k}" for k in ("timeout", "bad CRC", "bad answer", "NAK") if s[k]]
        return (f"{s['commands']} commands, {s['retries']} retried"
                + (f" ({', '.join(kinds)})" if kinds else ""))


class _BoardHost:
    """The link as the blocking host of the frame sequence (host/frame.py):
    ``wait_frame`` reads STATUS every ``poll_interval`` seconds for up to ``timeout``."""

    def __init__(self, client, poll_interval, timeout):
        self.write, self.read, self.read_bytes = client.write, client.read, client.read_bytes
        self.client = client
        self.poll_interval = poll_interval
        self.timeout = timeout

    def wait_frames(self, count):
        """Wait until FRAMES (the frames finished since reset) reaches ``count``; returns it."""
        started = self.client.now()
        while True:
            frames = self.client.read_register(Reg.FRAMES)
            if frames >= count:
                return frames
            status = self.client.read_register(Reg.STATUS)
            if status & STATUS_ERROR:
                raise RuntimeError(f"the GPU stopped with an error (STATUS {status:#x})")
            if self.client.now() - started > self.timeout:
                raise LinkError(f"{count - frames} more frames did not finish in "
                                f"{self.timeout:g} s")
            self.client.sleep(self.poll_interval)

    def wait_frame(self):
        started = self.client.now()
        while True:
            status = self.client.read_register(Reg.STATUS)
            if status & FRAME_ENDED:
                return status
            if self.client.now() - started > self.timeout:
                raise LinkError(f"the frame did not finish in {self.timeout:g} s "
                                f"(STATUS {status:#x})")
            self.client.sleep(self.poll_interval)


def render_on_board(client, scene, config=None, poll_interval=0.05, timeout=600.0, log=None,
                    binning=True):
    """Load, start, wait, read back, on a board built with ``config`` (a GpuConfig, default the
    ``ulx3s`` preset); with ``binning``, each pixel tests only its bin's triangles
    (docs/binning.md). Returns ((height, width, 3) uint8 RGB in file order, info). Raises
    SceneDoesNotFit before touching the board, LinkError on protocol trouble, RuntimeError if
    the GPU is busy or reports an error."""
    from sim.bins import frame_bins
    config = config or preset("ulx3s")
    config.check_fits(scene)
    bins = frame_bins(scene, binning)
    client.connect()
    host = _BoardHost(client, poll_interval, timeout)
    # (an 8-bit output store holds the pixels: a byte per word is all there is to read)
    narrow = config.narrow_stores
    try:
        frame = render_frame_blocking(host, scene, output="bytes" if narrow else "words", log=log,
                                      texture_words=config.tmem_words, bins=bins)
    except FrameError as e:
        raise RuntimeError(f"the GPU did not render the frame: {e}") from None
    if narrow:
        rgb = np.frombuffer(frame.output, dtype=np.uint8).reshape(scene.height, scene.width, 3)
    else:
        rgb = words_to_rgb(frame.output, scene.width, scene.height)
    # (with an R500 program: the cycles the cores waited on the stage, the stage's busy cycles)
    stage = {name: frame.counters[name] for name in ("r500_wait_cycles", "r500_busy_cycles")
             if name in frame.counters}
    return rgb, {"cores": frame.cores, "cycles": frame.counters["cycles"],
                 "tests": frame.counters["tests"], "binning": frame.binned, **stage}


def show_on_board(client, scene, config=None, read_back=True, poll_interval=0.05,
                  timeout=600.0, log=None, binning=True):
    """Load ``scene`` on a board with a display (``config.memory``), have the display show its
    frames and start continuous rendering (host/frame.py ``show_scene``): the board goes on
    rendering and showing the scene after the tool exits (a later render stops it first).
    ``read_back``: wait for the second frame to finish and read back the last finished one.
    Returns (RGB in file order or None, info: cores, and with ``read_back`` the counters'
    cycles and tests, binning, frames)."""
    from sim.bins import frame_bins
    config = config or preset("ulx3s")
    if config.memory is None:
        raise ValueError("--show needs a board with a display (a preset with its memories "
                         "in SDRAM, e.g. ulx3s)")
    config.check_fits(scene)
    bins = frame_bins(scene, binning)
    client.connect()
    host = _BoardHost(client, poll_interval, timeout)
    first = client.read_register(Reg.FRAMES)
    try:
        cores = show_scene_blocking(host, scene, log=log, texture_words=config.tmem_words,
                                    bins=bins)
    except FrameError as e:
        raise RuntimeError(f"the GPU did not start: {e}") from None
    info = {"cores": cores, "binning": bins is not None}
    if not read_back:
        return None, info
    frames = host.wait_frames(first + 2)
    counters = dict(zip(COUNTERS, client.read(register_address(Reg.CYCLES), len(COUNTERS))))
    data = client.read_bytes(host_address(Region.OUTPUT), 3 * scene.width * scene.height)
    rgb = np.frombuffer(bytes(data), dtype=np.uint8).reshape(scene.height, scene.width, 3)
    info.update(cycles=counters["cycles"], tests=counters["tests"], frames=frames - first)
    return rgb, info


def stop_on_board(client, poll_interval=0.05, timeout=600.0):
    """End continuous rendering after the frame under way; returns the frames rendered since
    reset."""
    client.write_register(Reg.CTRL, CTRL_STOP)
    host = _BoardHost(client, poll_interval, timeout)
    status = host.wait_frame()
    if status & STATUS_BUSY:
        raise LinkError(f"the GPU still renders after STOP (STATUS {status:#x})")
    return client.read_register(Reg.FRAMES)


#: the simulated board: cycles per UART bit (the real one has 25 at 75 MHz and 3 Mbaud; fewer
#: cycles per byte make the simulation faster, the protocol does not change: 4, the UART's
#: least, halves the simulated time of a scene's load, most of a run) and its silence
#: timeout, 32 byte times (the real board's 1/64 s is 4,700 byte times: long for a PC's USB
#: gaps, which the simulation does not have)
SIM_DIVISOR = 4
SIM_LINK_TIMEOUT_BYTES = 32


def render_simulated(scene, fault_rate=0.0, seed=0, divisor=SIM_DIVISOR, log=None,
                     preset_name=None, screen=False, show=False):
    """``render_on_board`` against the board top (boards/sim_board.py: UART, the host-link
    bridge, the GPU) compiled by sim/fast, over its simulated line with faults injected
    (boards/sim_uart.py) at ``fault_rate`` per byte each way. Returns (RGB, info) where info
    adds: ``client`` (its stats), ``faults`` (the FaultInjector), ``gpu_writes`` (the writes
    the GPU's host port took) and ``meant_writes`` (those the host tool asked for). The board
    is ``preset_name``'s (default: ``ulx3s``, or ``ulx3s-r500`` for a scene with a program).
    A board with a display (``GpuConfig.memory``) runs at its clocks with the SDRAM chip model
    on its pins; ``screen``: then info's ``screen`` is the displayed frame as a monitor
    decodes it from the TMDS lanes (``boards.sim_board.ScreenCapture``) and ``underrun``
    whether the display ever lacked a pixel. ``show``: ``show_on_board`` (continuous
    rendering; the screen is taken while it runs), then ``stop_on_board`` (info's
    ``stopped_at``: the frames rendered in all).
    """
    from boards.sim_board import simulated_board_config, simulated_board_design
    from boards.sim_uart import CompiledSerial, FaultInjector
    from firmware.rom import default_rom
    from sim.fast import FastSim

    faults = FaultInjector(fault_rate, seed)
    config = simulated_board_config(scene, name=preset_name)
    link_timeout = SIM_LINK_TIMEOUT_BYTES * 10 * divisor
    fast = FastSim(simulated_board_design(default_rom(), config, divisor, link_timeout), log=log)
    monitor = fast.add_write_monitor("gpu_write_valid", "gpu_write_addr", "gpu_write_data")
    memory = config.memory
    capture = None
    if memory is not None:
        # the board's clocks, the SDRAM chip model on its pins, the SDRAM initialised
        from sim.display.capture import ScreenCapture
        from sim.fast.gpu import start_memory_system
        start_memory_system(fast, memory)
        capture = (ScreenCapture(fast, memory.mode, memory.clock_hz, memory.pixel_hz)
                   if screen else None)
    clock_hz = memory.clock_hz if memory is not None else divisor * DEFAULT_BAUD
    serial = CompiledSerial(fast, divisor, clock_hz, link_timeout, faults)
    client = HostLinkClient(serial, keep_writes=True)
    if show:
        rgb, info = show_on_board(client, scene, config, poll_interval=1e-3, timeout=600.0)
    else:
        rgb, info = render_on_board(client, scene, config, poll_interval=1e-3, timeout=600.0)
    addrs, words = fast.take_writes(monitor)
    info.update(client=client, faults=faults, framing_errors=serial.framing_errors,
                gpu_writes=list(zip(addrs.tolist(), words.tolist())),
                meant_writes=[(addr + i, w) for addr, run in client.writes
                              for i, w in enumerate(run)])
    if capture is not None:
        info["screen"] = capture.take()
        info["mode"] = memory.mode
        info["underrun"] = bool(fast.get("underrun"))
    if show:
        info["stopped_at"] = stop_on_board(client, poll_interval=1e-3)
    return rgb, info


def _fault_rate(text):
    try:
        rate = float(text)
    except ValueError:
        rate = -1
    if not 0 <= rate < 1:
        raise ValueError(f"--fault-rate {text}: a probability per byte, 0 <= P < 1")
    return rate


def _simulated_report(scene, rgb, info):
    """(the one line that reports a simulated run, whether it is a success)."""
    from firmware.rom import default_rom
    from sim.sequencer import render_model
    omem, _, _ = render_model(scene, default_rom(), cores=1, jobs=1)
    identical = bool((rgb == words_to_rgb(omem, scene.width, scene.height)).all())
    gpu, meant = info["gpu_writes"], info["meant_writes"]
    stray = sum(a != b for a, b in zip(gpu, meant)) + abs(len(gpu) - len(meant))
    client = info["client"]
    s, byte_s = client.stats, client.timing.byte_s
    load = s["payload_out"] * byte_s / s["write_s"] if s["write_s"] else 0
    readback = (s["read_bytes_payload"] * byte_s / s["read_bytes_s"]) if s["read_bytes_s"] else 0
    line = (f"frame {'identical to' if identical else 'DIFFERS from'} the model's "
            f"({info['cycles']} cycles, {info['tests']} ray/triangle tests"
            f"{', binned' if info['binning'] else ''}); "
            f"{info['faults'].summary()}; {client.summary()}; "
            f"{len(gpu)} GPU writes, {stray} not as meant; "
            f"payload {load:.0%} of the line rate loading, {readback:.0%} reading the image back")
    return line, identical and stray == 0


def _screen_report(path, rgb, info):
    """Write the monitor's picture to ``path``; (the line that reports it, whether it is the
    frame read back (``rgb``, the model's if the frame report says so) scaled and centred)."""
    from sim.display.capture import stream_checks
    from sim.display.raster import scaled_screen
    from sim.image import write_png
    screen = info.get("screen")
    if screen is None:
        return "the board has no display (a preset without memories in SDRAM)", False
    write_png(path, screen.picture[::-1])       # (the monitor's rows from the top)
    mode = info["mode"]
    expected = scaled_screen(rgb[::-1], mode)
    differ = int((screen.picture != expected).any(axis=-1).sum())
    scale = min(mode.h_active // rgb.shape[1], mode.v_active // rgb.shape[0])
    same = differ == 0
    line = (f"{mode.h_active}x{mode.v_active} picture "
            + (f"identical to the frame scaled x{scale} and centred" if same else
               f"DIFFERS from the frame scaled x{scale} and centred in {differ} pixels")
            + f"; stream: {stream_checks(screen.timing)}"
            + ("; the display UNDERRAN" if info["underrun"] else "; no underrun"))
    return line, same and not info["underrun"]


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m boards.host", description=__doc__.split("\n")[0])
    parser.add_argument("scene", help=SCENE_ARGUMENT_HELP)
    parser.add_argument("--port", help="serial port, e.g. /dev/ttyUSB0")
    parser.add_argument("--simulated", action="store_true",
                        help="no board: the board top compiled (sim/fast) behind a simulated "
                             "UART; the frame must equal the reference model's")
    parser.add_argument("--fault-rate", default="0", metavar="P",
                        help="with --simulated: the probability per byte, each way, of a fault "
                             "(flipped bit, dropped or duplicated byte, stalled line)")
    parser.add_argument("--seed", type=int, default=0, help="with --simulated: the faults' seed")
    parser.add_argument("--baud", type=int, default=DEFAULT_BAUD,
                        help=f"baud rate of the board's host link (default {DEFAULT_BAUD})")
    parser.add_argument("--out", help="image file to write (.png or .ppm): the frame read "
                                      "back over the link")
    parser.add_argument("--screen", help="with --simulated, a board with a display: the "
                                         "monitor's picture (640x480 .png) decoded from the "
                                         "TMDS lanes; must be the model's frame scaled and "
                                         "centred")
    parser.add_argument("--show", action="store_true",
                        help="load the scene and leave the board rendering it frame after frame "
                             "on its display (continuous rendering; with --out, the second "
                             "frame is read back; with --simulated, stopped after it)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds to wait for the frame")
    parser.add_argument("--config", default=None, choices=PRESET_NAMES,
                        help="the preset the board's bitstream was built with (default "
                             "'ulx3s', with --shader 'ulx3s-r500')")
    add_shader_arguments(parser)
    args = parser.parse_args(argv)

    from sim.image import write_image
    try:
        if not args.simulated and not args.port:
            raise ValueError("give --port (a board) or --simulated")
        if args.screen and not args.simulated:
            raise ValueError("--screen is for --simulated (a board's screen is its monitor)")
        if not (args.out or args.screen or (args.show and not args.simulated)):
            raise ValueError("give --out (the frame read back), --screen or --show")
        rate = _fault_rate(args.fault_rate)
        scene = scene_from_arguments(args)
        name = args.config or ("ulx3s-r500" if scene.shader else "ulx3s")
        config = preset(name)
        config.check_fits(scene)
        if args.simulated:
            from sim.fast import BuildError, FastSimError
            try:
                rgb, info = render_simulated(scene, rate, args.seed, log=lambda text: None,
                                             preset_name=name, screen=bool(args.screen),
                                             show=args.show)
            except (BuildError, FastSimError) as e:
                raise RuntimeError(f"simulated board: {e}") from None
            if args.out:
                write_image(args.out, rgb)
            line, ok = _simulated_report(scene, rgb, info)
            print(f"{args.out or 'frame'}: {line}")
            if args.show:
                print(f"continuous rendering: frame {info['frames']} read back while it ran; "
                      f"stopped after frame {info['stopped_at']}")
            if args.screen:
                screen_line, screen_ok = _screen_report(args.screen, rgb, info)
                print(f"{args.screen}: {screen_line}")
                ok = ok and screen_ok
            sys.exit(0 if ok else 1)
        client = HostLinkClient(SerialTransport(args.port, args.baud))
        if args.show:
            rgb, info = show_on_board(client, scene, config, read_back=bool(args.out),
                                      timeout=args.timeout,
                                      log=lambda text: print(text, file=sys.stderr))
            if args.out:
                write_image(args.out, rgb)
            print(f"the board shows {scene.name} ({scene.width}x{scene.height}, rendered frame "
                  f"after frame on {info['cores']} cores"
                  + (f"; wrote {args.out}: {info['cycles']} cycles a frame" if args.out else "")
                  + f"; link: {client.summary()})")
            return
        rgb, info = render_on_board(client, scene, config, timeout=args.timeout,
                                    log=lambda text: print(text, file=sys.stderr))
        write_image(args.out, rgb)
    except source_errors() as e:
        print(e, file=sys.stderr)
        sys.exit(2)
    except (SceneError, SceneDoesNotFit, ValueError) as e:
        sys.exit(f"error: {e}")
    except LinkError as e:
        sys.exit(f"error: host link: {e}")
    except (RuntimeError, OSError) as e:
        sys.exit(f"error: {e}")
    stage = (f", waited on the R500 stage {sum(info['r500_wait_cycles'])} cycles, the stage "
             f"busy {info['r500_busy_cycles']}" if "r500_wait_cycles" in info else "")
    print(f"wrote {args.out} ({scene.width}x{scene.height}, {info['cycles']} cycles on "
          f"{info['cores']} cores, {info['tests']} ray/triangle tests"
          f"{'' if info['binning'] else ' (no bins)'}{stage}; link: {client.summary()})")


if __name__ == "__main__":
    main()
