"""The GPU's host protocol (docs/host-interface.md), for every host that talks to the GPU.

* the address map: ``Region``, ``REGION_BASE``, ``Reg``, the CTRL and STATUS bits and
  ``host_address`` (hdl/gpu/host_bus.py decodes the same map in the RTL);
* ``scene_load_runs``: a scene as the host's writes, runs of consecutive words;
* ``error_info_message``: ERROR_INFO as one line of text;
* the frame sequence, ``render_frame``: check that the GPU is idle, load the scene, start,
  wait until STATUS says done or error, read the counters and the output.

The sequence is ``async`` and talks to a *port*:

    async write(addr, words)        ``words`` to ``addr``, ``addr + 1``, ...
    async read(addr, count)         -> the ``count`` words from ``addr`` on, a list
    async read_bytes(addr, count)   -> bits 7:0 of those words, bytes (``output="bytes"`` only)
    async wait_frame()              -> STATUS once it has DONE or ERROR set, waited for as
                                       suits the transport (which raises its own timeout)

An Amaranth testbench awaits the sequence itself (sim/gpu_pysim.py). A synchronous host (the
fast simulator's bus, the UART link) has plain methods of those names and runs the sequence
with ``render_frame_blocking``: its methods are awaited through ``BlockingPort`` and the
coroutine, which then never suspends, is run by ``run_blocking``.

Plain Python, no simulator. A scene is anything with ``name``, ``width``, ``height``,
``user_code`` (64-bit words or None), ``texture``, ``triangles`` (rows of (x, y, z)),
``config`` (rows), ``bands`` ((initial, final) rows) and ``band_output_base(band)``.
"""

import time
from dataclasses import dataclass
from enum import IntEnum

from hdl.core.core import CoreError
from hdl.gpu.io_unit import SLOT_ROWS

__all__ = [
    "Region", "REGION_BASE", "SMALL_REGION_BITS", "LARGE_REGION_BITS", "Reg", "CTRL_START",
    "STATUS_BUSY", "STATUS_DONE", "STATUS_ERROR", "FRAME_ENDED", "COUNTERS", "ROW_WORDS",
    "BAND_WORDS", "host_address", "register_address", "scene_load_runs",
    "core_error_message", "error_info_message", "FrameError", "CoreStopped", "Frame",
    "load_scene", "start_frame", "read_counters", "render_frame", "BlockingPort",
    "run_blocking", "render_frame_blocking",
]


# --- the address map -----------------------------------------------------------------------

class Region(IntEnum):
    """The regions of the address map (also the RTL decoder's output, a 3-bit shape)."""
    CONTROL = 0
    CONFIG = 1
    BANDS = 2
    SCENE = 3
    TEXTURE = 4
    USER = 5
    OUTPUT = 6
    NONE = 7          # unmapped: writes are ignored, reads give 0


REGION_BASE = {
    Region.CONTROL: 0x0000_0000,
    Region.CONFIG: 0x0010_0000,
    Region.BANDS: 0x0020_0000,
    Region.SCENE: 0x0100_0000,
    Region.TEXTURE: 0x0200_0000,
    Region.USER: 0x0300_0000,
    Region.OUTPUT: 0x0400_0000,
}
#: regions at 0x000x_xxxx span 2^20 words, the others 2^24
SMALL_REGION_BITS = 20
LARGE_REGION_BITS = 24


class Reg(IntEnum):
    """Control/status registers (word addresses in region CONTROL)."""
    CTRL = 0
    STATUS = 1
    NUM_TRIANGLES = 2
    NUM_BANDS = 3
    ERROR_INFO = 4
    CORES = 5
    CYCLES = 8
    INSTRUCTIONS = 9
    IO_WAIT_CYCLES = 10
    STALL_CYCLES = 11
    PIXELS = 12


CTRL_START = 1 << 0
STATUS_BUSY, STATUS_DONE, STATUS_ERROR = 1 << 0, 1 << 1, 1 << 2
#: STATUS bits that end the wait for a frame
FRAME_ENDED = STATUS_DONE | STATUS_ERROR
#: the frame counters by the names the renderers' stats give them, in address order
COUNTERS = {"cycles": Reg.CYCLES, "instructions": Reg.INSTRUCTIONS,
            "io_wait_cycles": Reg.IO_WAIT_CYCLES, "stall_cycles": Reg.STALL_CYCLES,
            "pixels": Reg.PIXELS}
assert list(COUNTERS.values()) == list(range(Reg.CYCLES, Reg.CYCLES + len(COUNTERS)))

#: a configuration or scene row as the host writes it: x, y, z and lane 3 (ignored)
ROW_WORDS = 4
#: a band table entry: initial x y z, output base, final x y z, one ignored word
BAND_WORDS = 8


def host_address(region, offset=0):
    """The word address of ``offset`` in ``region`` (a Region)."""
    return REGION_BASE[region] + offset


def register_address(reg):
    """The word address of control/status register ``reg`` (a Reg)."""
    return host_address(Region.CONTROL, reg)


# --- a scene as host writes ------------------------------------------------------------------

def _rows(rows):
    return [word for row in rows for word in (*row, 0)]


def scene_load_runs(scene):
    """(address, words) runs that load ``scene`` into an idle GPU, as few and long as possible:
    user code, texture, triangle slots, configuration rows, band table, then NUM_TRIANGLES and
    NUM_BANDS. Rows are written as four words (lane 3 is ignored) and triangle slots as
    SLOT_ROWS rows (the last is ignored), so that each region is one run."""
    empty_rows = [(0, 0, 0)] * SLOT_ROWS
    slots = [row for triangle in scene.triangles
             for row in (list(triangle) + empty_rows)[:SLOT_ROWS]]
    bands = [word for band, (initial, final) in enumerate(scene.bands)
             for word in (*initial, scene.band_output_base(band), *final, 0)]
    runs = [
        (host_address(Region.USER),
         [half for word in scene.user_code or () for half in (word >> 32, word & 0xFFFF_FFFF)]),
        (host_address(Region.TEXTURE), list(scene.texture)),
        (host_address(Region.SCENE), _rows(slots)),
        (host_address(Region.CONFIG), _rows(scene.config)),
        (host_address(Region.BANDS), bands),
        (register_address(Reg.NUM_TRIANGLES), [len(scene.triangles), len(scene.bands)]),
    ]
    return [(address, words) for address, words in runs if words]


# --- errors as text --------------------------------------------------------------------------

_CORE_ERRORS = {
    CoreError.ILLEGAL_INSTRUCTION: "illegal instruction",
    CoreError.STACK: "return stack error (CALL on a full stack or RET on an empty one)",
    CoreError.MEMORY: "texture/output memory address out of range",
    CoreError.FETCH: "fetch outside the code memories",
}


def core_error_message(code, pc):
    """A core's error (``CoreError`` code, PC) as text: '<what> at 0xPPPP'."""
    return f"{_CORE_ERRORS.get(code, f'error {code}')} at {pc:#06x}"


def error_info_message(info):
    """ERROR_INFO as text: 'core K: <what> at 0xPPPP'."""
    return f"core {info >> 24}: " + core_error_message((info >> 16) & 7, info & 0xFFFF)


class FrameError(RuntimeError):
    """The GPU did not render the frame; str() says why in one line."""


class CoreStopped(FrameError):
    """A core stopped with an error; ``info`` is ERROR_INFO."""

    def __init__(self, info):
        super().__init__(error_info_message(info))
        self.info = info


# --- the frame sequence ----------------------------------------------------------------------

@dataclass
class Frame:
    """What ``render_frame`` read back."""
    cores: int
    counters: dict          # COUNTERS' names -> values
    output: list | bytes    # 3 x width x height output words (or their bits 7:0)
    load_s: float           # wall time loading the scene
    run_s: float            # wall time from the start until STATUS said the frame ended


async def load_scene(port, scene):
    for address, words in scene_load_runs(scene):
        await port.write(address, words)


async def start_frame(port):
    await port.write(register_address(Reg.CTRL), [CTRL_START])


async def read_counters(port):
    """The counters of the last frame, by COUNTERS' names."""
    words = await port.read(register_address(Reg.CYCLES), len(COUNTERS))
    return dict(zip(COUNTERS, words))


async def render_frame(port, scene, *, output="words", cores=None, log=None):
    """Render ``scene`` through ``port``; return a Frame. ``output``: "words" reads the output
    words with ``port.read``, "bytes" their bits 7:0 with ``port.read_bytes`` (a board's
    narrow output store holds converted pixels). ``cores``: the core count the GPU must have.
    ``log(text)`` hears of each step. A busy GPU, a core count other than ``cores`` or a core
    error raise FrameError (CoreStopped for the error)."""
    if output not in ("words", "bytes"):
        raise ValueError(f"output is 'words' or 'bytes', not {output!r}")
    log = log or (lambda text: None)
    first = Reg.STATUS
    status_to_cores = await port.read(register_address(first), Reg.CORES - first + 1)
    status, built = status_to_cores[0], status_to_cores[Reg.CORES - first]
    if status & STATUS_BUSY:
        raise FrameError("the GPU is busy with a frame started earlier")
    if cores is not None and built != cores:
        raise FrameError(f"the GPU has {built} cores, not {cores}")
    log(f"the GPU is idle, {built} cores")

    started = time.monotonic()
    await load_scene(port, scene)
    load_s = time.monotonic() - started
    log(f"scene loaded in {load_s:.1f} s")

    started = time.monotonic()
    await start_frame(port)
    status = await port.wait_frame()
    run_s = time.monotonic() - started
    if status & STATUS_ERROR:
        info, = await port.read(register_address(Reg.ERROR_INFO), 1)
        raise CoreStopped(info)
    if not status & STATUS_DONE:
        raise FrameError(f"the wait for the frame ended with STATUS {status:#x}")
    counters = await read_counters(port)
    log(f"frame done: {counters['cycles']} GPU cycles")

    count = 3 * scene.width * scene.height
    read = port.read_bytes if output == "bytes" else port.read
    data = await read(host_address(Region.OUTPUT), count)
    return Frame(built, counters, data, load_s, run_s)


class BlockingPort:
    """The port of a synchronous ``host``: its plain ``write``, ``read``, ``read_bytes`` and
    ``wait_frame``, awaitable (an await of them never suspends)."""

    def __init__(self, host):
        self.host = host

    async def write(self, addr, words):
        self.host.write(addr, words)

    async def read(self, addr, count):
        return self.host.read(addr, count)

    async def read_bytes(self, addr, count):
        return self.host.read_bytes(addr, count)

    async def wait_frame(self):
        return self.host.wait_frame()


def run_blocking(coroutine):
    """Run ``coroutine``, which must never suspend (it awaits only a BlockingPort), to its end;
    return its result."""
    try:
        coroutine.send(None)
    except StopIteration as end:
        return end.value
    coroutine.close()
    raise RuntimeError("the frame sequence suspended: its port is not a blocking one")


def render_frame_blocking(host, scene, **options):
    """``render_frame`` for a synchronous ``host`` (see BlockingPort)."""
    return run_blocking(render_frame(BlockingPort(host), scene, **options))
