"""Host tool: render a scene on a board over the UART host link (docs/host-link.md).

    python -m boards.host SCENE --port /dev/ttyUSB0 --out frame.png [--baud 3000000]
        [--shader PROG.asm [--constants FILE]]

SCENE is anything ``python -m sim.render`` takes: a theia-2010 scene directory, a .toml/.json
scene description (docs/scene-import.md) or ``demo``; ``--shader``/``--constants`` shade its
hits with an R500 program on the board's R500 stage, as for ``sim.render``. Loads the scene (refusing one the board
cannot hold exactly: ``GpuConfig.check_fits`` of the board's preset), starts the frame, polls STATUS, reads the converted
8-bit pixels back and writes a PNG (sim.image): the frame sequence every host uses
(hdl/gpu/host_protocol.py).
The serial port is a ``Transport`` (``write(bytes)``, ``read(n) -> bytes``); tests plug in a
simulated UART instead of pyserial.
"""

import argparse
import sys
import time

import numpy as np

from boards.host_link import ACK, NAK, CMD_SYNC, CMD_WRITE, CMD_READ, CMD_READ_BYTES, MAX_COUNT
from hdl.config import PRESET_NAMES, SceneDoesNotFit, preset
from sim.image import words_to_rgb
from hdl.gpu.host_protocol import (Reg, register_address, FRAME_ENDED, FrameError,
                                   render_frame_blocking)
from sim.scene import SCENE_ARGUMENT_HELP, SceneError, load_any_scene

__all__ = ["LinkError", "SerialTransport", "HostLinkClient", "render_on_board", "main"]

DEFAULT_BAUD = 3_000_000


class LinkError(Exception):
    """The board did not answer as the protocol says."""


class SerialTransport:
    """pyserial port (``pip install pyserial``, in the ``fpga`` extra)."""

    def __init__(self, port, baud, timeout=2.0):
        try:
            import serial
        except ImportError:
            raise LinkError("pyserial is not installed: pip install 'theia-gpu[fpga]' "
                            "(or pip install pyserial)") from None
        try:
            self.port = serial.Serial(port, baud, timeout=timeout)
        except (serial.SerialException, ValueError) as e:
            raise LinkError(f"cannot open {port} at {baud} baud: {e}") from None
        self.name = port

    def write(self, data):
        self.port.write(data)

    def read(self, n):
        data = self.port.read(n)
        if len(data) < n:
            raise LinkError(f"{self.name}: timed out after {len(data)} of {n} bytes")
        return data

    def flush_input(self):
        self.port.reset_input_buffer()


def _header(cmd, addr, count):
    return bytes([cmd]) + addr.to_bytes(4, "little") + count.to_bytes(2, "little")


class HostLinkClient:
    """The protocol over a transport. Addresses are GPU word addresses (hdl.gpu.host_bus)."""

    def __init__(self, transport):
        self.transport = transport

    def _expect_ack(self, what):
        answer = self.transport.read(1)[0]
        if answer == NAK:
            raise LinkError(f"{what}: the board answered NAK (command not understood)")
        if answer != ACK:
            raise LinkError(f"{what}: expected ACK 0x{ACK:02x}, got 0x{answer:02x}")

    def sync(self):
        self.transport.write(bytes([CMD_SYNC]))
        self._expect_ack("sync")

    def connect(self, attempts=3):
        """Sync, resynchronising if needed: a half-sent command left in the board is dropped
        after its link timeout (~16 ms), so wait, flush and retry."""
        for attempt in range(attempts):
            if hasattr(self.transport, "flush_input"):
                self.transport.flush_input()
            try:
                self.sync()
                return
            except LinkError:
                time.sleep(0.05)
        raise LinkError("no answer to sync: is the bitstream loaded, and are the port and "
                        "baud rate right?")

    def write(self, addr, words):
        words = list(words)
        for start in range(0, len(words), MAX_COUNT):
            chunk = words[start:start + MAX_COUNT]
            payload = b"".join((w & 0xFFFF_FFFF).to_bytes(4, "little") for w in chunk)
            self.transport.write(_header(CMD_WRITE, addr + start, len(chunk)) + payload)
            self._expect_ack(f"write of {len(chunk)} words at {addr + start:#x}")

    def read(self, addr, count):
        words = []
        for start in range(0, count, MAX_COUNT):
            n = min(MAX_COUNT, count - start)
            self.transport.write(_header(CMD_READ, addr + start, n))
            data = self.transport.read(4 * n)
            self._expect_ack(f"read of {n} words at {addr + start:#x}")
            words += [int.from_bytes(data[4 * i:4 * i + 4], "little") for i in range(n)]
        return words

    def read_bytes(self, addr, count):
        """Bits 7:0 of ``count`` words (the board's converted pixels)."""
        out = bytearray()
        for start in range(0, count, MAX_COUNT):
            n = min(MAX_COUNT, count - start)
            self.transport.write(_header(CMD_READ_BYTES, addr + start, n))
            out += self.transport.read(n)
            self._expect_ack(f"byte read of {n} words at {addr + start:#x}")
        return bytes(out)

    def read_register(self, reg):
        return self.read(register_address(reg), 1)[0]

    def write_register(self, reg, value):
        self.write(register_address(reg), [value])


class _BoardHost:
    """The link as the blocking host of the frame sequence (hdl/gpu/host_protocol.py):
    ``wait_frame`` reads STATUS every ``poll_interval`` seconds for up to ``timeout``."""

    def __init__(self, client, poll_interval, timeout):
        self.write, self.read, self.read_bytes = client.write, client.read, client.read_bytes
        self.client = client
        self.poll_interval = poll_interval
        self.timeout = timeout

    def wait_frame(self):
        started = time.monotonic()
        while True:
            status = self.client.read_register(Reg.STATUS)
            if status & FRAME_ENDED:
                return status
            if time.monotonic() - started > self.timeout:
                raise LinkError(f"the frame did not finish in {self.timeout:g} s "
                                f"(STATUS {status:#x})")
            time.sleep(self.poll_interval)


def render_on_board(client, scene, config=None, poll_interval=0.05, timeout=600.0, log=None):
    """Load, start, wait, read back, on a board built with ``config`` (a GpuConfig, default the
    ``ulx3s`` preset). Returns ((height, width, 3) uint8 RGB in file order, info). Raises
    SceneDoesNotFit before touching the board, LinkError on protocol trouble, RuntimeError if
    the GPU is busy or reports an error."""
    config = config or preset("ulx3s")
    config.check_fits(scene)
    client.connect()
    host = _BoardHost(client, poll_interval, timeout)
    # (an 8-bit output store holds the pixels: a byte per word is all there is to read)
    narrow = config.narrow_stores
    try:
        frame = render_frame_blocking(host, scene, output="bytes" if narrow else "words", log=log,
                                      texture_words=config.tmem_words)
    except FrameError as e:
        raise RuntimeError(f"the GPU did not render the frame: {e}") from None
    if narrow:
        rgb = np.frombuffer(frame.output, dtype=np.uint8).reshape(scene.height, scene.width, 3)
    else:
        rgb = words_to_rgb(frame.output, scene.width, scene.height)
    return rgb, {"cores": frame.cores, "cycles": frame.counters["cycles"]}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m boards.host", description=__doc__.split("\n")[0])
    parser.add_argument("scene", help=SCENE_ARGUMENT_HELP)
    parser.add_argument("--port", required=True, help="serial port, e.g. /dev/ttyUSB0")
    parser.add_argument("--baud", type=int, default=DEFAULT_BAUD,
                        help=f"baud rate of the board's host link (default {DEFAULT_BAUD})")
    parser.add_argument("--out", required=True, help="PNG file to write")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds to wait for the frame")
    parser.add_argument("--config", default="ulx3s", choices=PRESET_NAMES,
                        help="the preset the board's bitstream was built with (default 'ulx3s')")
    parser.add_argument("--shader", help="shade the hits with this R500 program, as for "
                                         "python -m sim.render")
    parser.add_argument("--constants", help="the R500 program's constants, as for sim.render")
    args = parser.parse_args(argv)

    from sim.image import write_png
    try:
        scene = load_any_scene(args.scene)
        if args.shader or args.constants:
            from sim.render import shading_for
            scene.shader = shading_for(scene, args.shader, args.constants)
        config = preset(args.config)
        config.check_fits(scene)
        client = HostLinkClient(SerialTransport(args.port, args.baud))
        rgb, info = render_on_board(client, scene, config, timeout=args.timeout,
                                    log=lambda text: print(text, file=sys.stderr))
        write_png(args.out, rgb)
    except (SceneError, SceneDoesNotFit, ValueError) as e:
        sys.exit(f"error: {e}")
    except LinkError as e:
        sys.exit(f"error: host link: {e}")
    except (RuntimeError, OSError) as e:
        sys.exit(f"error: {e}")
    print(f"wrote {args.out} ({scene.width}x{scene.height}, {info['cycles']} cycles on "
          f"{info['cores']} cores)")


if __name__ == "__main__":
    main()
