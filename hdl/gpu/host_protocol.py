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
from hdl.gpu.frame_status import R500_STAGE
from hdl.gpu.scene_layout import SLOT_ROWS, TILE, bin_rows_needed, grid_word, pack_bins
from hdl.isa import QUAD_FAULT_TEXT, QuadFault, SCALE

__all__ = [
    "Region", "REGION_BASE", "SMALL_REGION_BITS", "LARGE_REGION_BITS", "Reg", "CTRL_START",
    "STATUS_BUSY", "STATUS_DONE", "STATUS_ERROR", "FRAME_ENDED", "COUNTERS", "ROW_WORDS",
    "BAND_WORDS", "host_address", "register_address", "scene_load_runs", "bins_fit",
    "core_error_message", "error_info_message", "FrameError", "CoreStopped", "R500Stopped",
    "Frame",
    "load_scene", "start_frame", "read_counters", "render_frame", "BlockingPort",
    "run_blocking", "render_frame_blocking",
    "R5Area", "R5Reg", "R5_CTRL_RUN", "R5_CTRL_CLEAR", "R5_STATUS_BUSY", "R5_STATUS_DONE",
    "R5_STATUS_FAULT", "R5_PROGRAM_STRIDE", "R5_TEMP_STRIDE", "r500_address", "sampler_fields",
    "R500State", "program_inputs", "shading_state", "r500_load_runs", "QuadReadback",
    "load_quad", "launch_quad", "read_quad", "run_quad_job", "r500_scene_runs",
    "r500_band_problem",
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
    R500 = 7          # the R500 stage (program, constants, registers; R5Reg, R5Area)
    NONE = 8          # unmapped: writes are ignored, reads give 0


REGION_BASE = {
    Region.CONTROL: 0x0000_0000,
    Region.CONFIG: 0x0010_0000,
    Region.BANDS: 0x0020_0000,
    Region.SCENE: 0x0100_0000,
    Region.TEXTURE: 0x0200_0000,
    Region.USER: 0x0300_0000,
    Region.OUTPUT: 0x0400_0000,
    Region.R500: 0x0500_0000,
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
    SCENE_ROWS = 6          # read only: the scene memory's rows (triangle slots and bins)
    CYCLES = 8
    INSTRUCTIONS = 9
    IO_WAIT_CYCLES = 10
    STALL_CYCLES = 11
    PIXELS = 12
    TESTS = 13              # ray/triangle tests (MAINs run)
    # the frame's bins (hdl/gpu/scene_layout.py): the grid (0: none), the scene memory rows
    # of their table and of their list
    BIN_GRID = 16
    BIN_TABLE = 17
    BIN_LIST = 18


CTRL_START = 1 << 0
STATUS_BUSY, STATUS_DONE, STATUS_ERROR = 1 << 0, 1 << 1, 1 << 2
#: STATUS bits that end the wait for a frame
FRAME_ENDED = STATUS_DONE | STATUS_ERROR
#: the frame counters by the names the renderers' stats give them, in address order
COUNTERS = {"cycles": Reg.CYCLES, "instructions": Reg.INSTRUCTIONS,
            "io_wait_cycles": Reg.IO_WAIT_CYCLES, "stall_cycles": Reg.STALL_CYCLES,
            "pixels": Reg.PIXELS, "tests": Reg.TESTS}
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


# --- the R500 stage's part of the map --------------------------------------------------------

class R5Area(IntEnum):
    """Areas of region R500 (word offsets): the stage's registers (``R5Reg``); instruction i's
    six words at ``PROGRAM + 8i + w``; constant c's channel k at ``CONSTANTS + 4c + k``; integer
    constant n at ``INT_CONSTS + n``; sampler s at ``SAMPLERS + 2s`` (base) and ``+ 1`` (its
    fields, ``sampler_fields``). The R500 job top (``hdl/gpu/r500_top.py``) also has lane l's
    temporary t, channel k at ``TEMPS + 4(128l + t) + k``, render target r's channel k at
    ``TARGETS + 4(4l + r) + k`` and per lane ``LANES + 4l``: W, the render-target channels
    written (bit 4r + k), killed."""
    REGS = 0x00_0000
    PROGRAM = 0x01_0000
    CONSTANTS = 0x02_0000
    INT_CONSTS = 0x03_0000
    SAMPLERS = 0x03_1000
    TEMPS = 0x10_0000
    TARGETS = 0x20_0000
    LANES = 0x30_0000


class R5Reg(IntEnum):
    """The R500 stage's registers (area REGS)."""
    CTRL = 0                # W: R5_CTRL_RUN / R5_CTRL_CLEAR (the job top's context CONTEXT)
    STATUS = 1              # R: R5_STATUS_* of context CONTEXT (job top)
    START_PC = 2            # the program's start and END_ADDR, instruction numbers
    END_PC = 3
    MAX_INSTRUCTIONS = 4    # per quad
    BOOLS = 5               # the 32 static booleans
    SHADE = 6               # GPU: 1 = the hits are shaded by the R500 program
    COVERED = 7             # job top: the quad's covered lanes (bit l)
    CONTEXT = 8             # job top: the context CTRL, STATUS, TEMPS... address
    FAULT = 9               # R: why the quad stopped (QuadFault) | its PC << 16
    FAULT_PIXEL = 10        # GPU, R: the stopped quad's first covered pixel, x | y << 16
    INSTRUCTIONS = 11       # R: instructions the quad (job top) / the frame's quads executed
    CYCLES = 12             # R: job top: cycles while a context ran, from a RUN while none did
    QUADS = 13              # GPU, R: quads shaded in the frame
    LANE_OPS = 14           # R: ALU lane-ops issued (since reset)
    CONTEXTS = 15           # R: the build's contexts
    TEMPORARIES = 16        # R: the build's temporaries per pixel
    RUNNING = 17            # R: job top: a bit per running context
    INPUTS = 18             # GPU: the temporaries 0-8 the program reads (program_inputs)
    WIDTH = 19              # GPU: the image's width in pixels (lanes beyond it are uncovered)


R5_CTRL_RUN = 1 << 0        # launch context CONTEXT with COVERED
R5_CTRL_CLEAR = 1 << 1      # release context CONTEXT and claim it: its temporaries read 0
R5_STATUS_BUSY, R5_STATUS_DONE, R5_STATUS_FAULT = 1 << 0, 1 << 1, 1 << 2
#: words per instruction in area PROGRAM
R5_PROGRAM_STRIDE = 8
R5_TEMP_STRIDE = 128        # temporaries per lane in area TEMPS


def r500_address(area, offset=0):
    """The word address of ``offset`` in area ``area`` of region R500."""
    return host_address(Region.R500, area + offset)


def sampler_fields(width, height, bilinear, clamp, set_up):
    """Word 1 of a sampler (area SAMPLERS): log2 width 4:0, log2 height 9:5, bilinear 10,
    clamp 11, set up 15. A sampler that is not set up needs no valid sizes."""
    if not set_up:
        return 0
    return ((width.bit_length() - 1) | (height.bit_length() - 1) << 5 | int(bilinear) << 10
            | int(clamp) << 11 | 1 << 15)


@dataclass
class R500State:
    """What the host loads into the R500 stage: ``program`` (words, six per instruction),
    ``start``/``end`` (instruction numbers), ``max_instructions``, ``constants`` {index:
    [r, g, b, a] words}, ``bools``, ``int_consts`` {index: word}, ``samplers`` {index: (base,
    ``sampler_fields`` word)}. Constants the program can read, integer constants and samplers
    not given are loaded as zeros (not set up): what a previous program left is gone."""
    program: list
    start: int
    end: int
    max_instructions: int
    constants: dict
    bools: int
    int_consts: dict
    samplers: dict


def program_inputs(words):
    """Which of temporaries 0-8, the pixel's inputs (r500-us.md §4.2), a program can read: bit t
    for temporary t (``hdl.isa.r500_program.temporaries_read``)."""
    from hdl.isa.r500_program import temporaries_read
    return temporaries_read(words) & ((1 << 9) - 1)


def shading_state(shading, texture_words):
    """The R500State of an R500 program and its host state (``sim.r500.shading.R500Shading``,
    or a job: ``program``, ``start``, ``end``, ``max_instructions``, ``constants``, ``bools``,
    ``int_consts``, ``samplers``); each sampler set up or not for a texture memory of
    ``texture_words`` words (its ``is_set_up``)."""
    encoded = {}
    for index, sampler in shading.samplers.items():
        set_up = sampler.is_set_up(texture_words)
        fields = sampler_fields(sampler.width, sampler.height, sampler.filter == "bilinear",
                                sampler.wrap == "clamp", set_up)
        encoded[index] = (sampler.base if set_up else 0, fields)
    int_consts = shading.int_consts
    if not isinstance(int_consts, dict):
        int_consts = dict(enumerate(int_consts or ()))
    end = len(shading.program) // 6 - 1 if shading.end is None else shading.end
    return R500State(list(shading.program), shading.start, end, shading.max_instructions,
                     dict(shading.constants), shading.bools, int_consts, encoded)


def _merged(runs):
    """Consecutive (address, words) runs joined into one."""
    merged = []
    for address, words in runs:
        if merged and merged[-1][0] + len(merged[-1][1]) == address:
            merged[-1] = (merged[-1][0], merged[-1][1] + words)
        else:
            merged.append((address, list(words)))
    return merged


def r500_load_runs(state):
    """(address, words) runs that load an R500State: the program, then what it can read (the
    constants, integer constants and samplers it names: nothing else can matter), each one not
    given as zeros (a sampler not set up), and the registers."""
    from hdl.isa.r500_program import constants_read, int_consts_read, samplers_read
    words = list(state.program)
    padding = [0] * (R5_PROGRAM_STRIDE - 6)
    program = [w for i in range(0, len(words), 6) for w in words[i:i + 6] + padding]
    runs = [(r500_address(R5Area.PROGRAM), program)]
    runs += [(r500_address(R5Area.CONSTANTS, 4 * index),
              list(state.constants.get(index, (0, 0, 0, 0)))) for index in constants_read(words)]
    runs += [(r500_address(R5Area.INT_CONSTS, index), [state.int_consts.get(index, 0)])
             for index in int_consts_read(words)]
    runs += [(r500_address(R5Area.SAMPLERS, 2 * index), list(state.samplers.get(index, (0, 0))))
             for index in samplers_read(words)]
    runs.append((r500_address(R5Area.REGS, R5Reg.START_PC),
                 [state.start, state.end, state.max_instructions, state.bools]))
    return _merged(runs)


@dataclass
class QuadReadback:
    """What ``run_quad_job`` reads back of a context: per lane its temporaries (``temps[l][t]``,
    four words), render targets (``targets[l][r]``, four words, 0 where not written) and the
    channels written (``written[l][r]``, a 4-bit mask), W, whether it was killed; the
    instructions executed, the fault (``hdl.isa.QuadFault``) and its PC, the quad's cycles."""
    temps: list
    targets: list
    written: list
    w: list
    killed: list
    instructions: int
    fault: int
    fault_pc: int
    cycles: int


async def load_quad(port, lanes, context=0):
    """Claim ``context`` and load ``lanes`` (four (temps {index: 4 words}, covered) pairs)."""
    await port.write(r500_address(R5Area.REGS, R5Reg.CONTEXT), [context])
    await port.write(r500_address(R5Area.REGS, R5Reg.CTRL), [R5_CTRL_CLEAR])
    for lane, (temps, _) in enumerate(lanes):
        for index, value in sorted(temps.items()):
            await port.write(r500_address(R5Area.TEMPS, 4 * (R5_TEMP_STRIDE * lane + index)),
                             list(value))


async def launch_quad(port, lanes, context=0):
    covered = sum(1 << lane for lane, (_, is_covered) in enumerate(lanes) if is_covered)
    await port.write(r500_address(R5Area.REGS, R5Reg.CONTEXT), [context])
    await port.write(r500_address(R5Area.REGS, R5Reg.COVERED), [covered])
    await port.write(r500_address(R5Area.REGS, R5Reg.CTRL), [R5_CTRL_RUN])


async def read_quad(port, temporaries, context=0):
    """The QuadReadback of ``context`` (its first ``temporaries`` temporaries per lane)."""
    await port.write(r500_address(R5Area.REGS, R5Reg.CONTEXT), [context])
    fault, _, instructions, cycles = await port.read(r500_address(R5Area.REGS, R5Reg.FAULT), 4)
    temps, targets, written, w, killed = [], [], [], [], []
    for lane in range(4):
        words = await port.read(r500_address(R5Area.TEMPS, 4 * R5_TEMP_STRIDE * lane),
                                4 * temporaries)
        temps.append([words[i:i + 4] for i in range(0, len(words), 4)])
        words = await port.read(r500_address(R5Area.TARGETS, 16 * lane), 16)
        targets.append([words[i:i + 4] for i in range(0, 16, 4)])
        info = await port.read(r500_address(R5Area.LANES, 8 * lane), 8)
        w.append(info[0])
        killed.append(bool(info[1]))
        written.append(info[4:8])
    return QuadReadback(temps, targets, written, w, killed, instructions, fault & 0xFFFF,
                        fault >> 16, cycles)


async def run_quad_job(port, state, texture, lanes, temporaries, context=0):
    """One quad on the R500 job top: load ``state`` (an R500State) and the ``texture`` words,
    claim and load ``context`` with ``lanes``, run it, wait for its end; the QuadReadback."""
    for address, words in r500_load_runs(state):
        await port.write(address, words)
    if texture:
        await port.write(host_address(Region.TEXTURE), list(texture))
    await load_quad(port, lanes, context)
    await launch_quad(port, lanes, context)
    await port.wait_frame()
    return await read_quad(port, temporaries, context)

# --- a scene as host writes ------------------------------------------------------------------

def r500_scene_runs(scene, texture_words=None):
    """The R500 stage's part of a scene's load: with an R500 program (``scene.shader``) the
    program and its state (samplers set up for a texture memory of ``texture_words``, default
    the scene's texture), SHADE, the inputs it reads and the image's width; without one, SHADE
    off (a stage keeps what the last frame left)."""
    shading = getattr(scene, "shader", None)
    if shading is None:
        return [(r500_address(R5Area.REGS, R5Reg.SHADE), [0])]
    state = shading_state(shading, texture_words or len(scene.texture))
    return r500_load_runs(state) + [
        (r500_address(R5Area.REGS, R5Reg.SHADE), [1]),
        (r500_address(R5Area.REGS, R5Reg.INPUTS), [program_inputs(shading.program),
                                                   scene.width]),
    ]


def r500_band_problem(scene):
    """Why the R500 stage cannot shade ``scene``'s bands, or None: it pairs rows within a
    band, so each band must cover whole rows from an even one (its last row pair may be cut
    by the image's bottom)."""
    for band, (initial, final) in enumerate(scene.bands):
        x0, y0, x1, y1 = (v >> SCALE for v in (initial[0], initial[1], final[0], final[1]))
        if x0 != 0 or x1 != scene.width or y0 % 2 or (y1 % 2 and y1 != scene.height):
            return (f"band {band} (rows {y0} to {y1 - 1}, columns {x0} to {x1 - 1}): the R500 "
                    f"stage shades bands of whole rows that start at an even row and end at an "
                    f"even row or the image's bottom")
    return None


def _rows(rows):
    return [word for row in rows for word in (*row, 0)]


def scene_load_runs(scene, texture_words=None, bins=None):
    """(address, words) runs that load ``scene`` into an idle GPU, as few and long as possible:
    user code, texture, triangle slots and the bins after them, configuration rows, band
    table, then NUM_TRIANGLES and NUM_BANDS, the bins' registers (BIN_GRID 0 without
    ``bins``), and the R500 stage's state (``r500_scene_runs``). Rows are written as four
    words (lane 3 is ignored) and triangle slots as SLOT_ROWS rows (the last is ignored), so
    that each region is one run. ``bins``: the scene's bins (``columns``, ``rows`` and
    ``lists`` of triangle indices per tile, as ``sim.bins.Bins``), which must fit the GPU's
    scene memory (``bins_fit``)."""
    empty_rows = [(0, 0, 0)] * SLOT_ROWS
    slots = [row for triangle in scene.triangles
             for row in (list(triangle) + empty_rows)[:SLOT_ROWS]]
    bin_registers = [0, 0, 0]
    if bins is not None:
        if bins.tile != TILE:
            raise ValueError(f"the GPU's bins are tiles of {TILE} pixels, not {bins.tile}")
        table, entries = pack_bins(bins.lists)
        bin_registers = [grid_word(bins.columns, bins.rows), len(slots),
                         len(slots) + len(table)]
        slots += table + entries
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
        (register_address(Reg.BIN_GRID), bin_registers),
    ] + r500_scene_runs(scene, texture_words)
    return [(address, words) for address, words in runs if words]


def bins_fit(scene, bins, scene_rows):
    """Whether ``scene``'s triangles and ``bins`` fit a scene memory of ``scene_rows`` rows."""
    return len(scene.triangles) * SLOT_ROWS + bin_rows_needed(bins.lists) <= scene_rows


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
    binned: bool = False    # each pixel tested its bin's triangles


async def load_scene(port, scene, texture_words=None, bins=None):
    for address, words in scene_load_runs(scene, texture_words, bins):
        await port.write(address, words)


async def start_frame(port):
    await port.write(register_address(Reg.CTRL), [CTRL_START])


async def read_counters(port):
    """The counters of the last frame, by COUNTERS' names."""
    words = await port.read(register_address(Reg.CYCLES), len(COUNTERS))
    return dict(zip(COUNTERS, words))


class R500Stopped(FrameError):
    """A quad of the R500 stage stopped with a fault; str() names the pixel and the PC."""

    def __init__(self, source, fault, fault_pixel):
        code, pc = QuadFault(fault & 0xFFFF), fault >> 16
        x, y = fault_pixel & 0xFFFF, fault_pixel >> 16
        super().__init__(f"{source}: the quad of pixel ({x}, {y}) stopped: "
                         f"{QUAD_FAULT_TEXT[code]} at PC {pc}")
        self.fault, self.pc, self.pixel = code, pc, (x, y)


async def _r500_check(port, scene):
    """A scene with an R500 program needs a GPU with an R500 stage and bands it can shade."""
    contexts, = await port.read(r500_address(R5Area.REGS, R5Reg.CONTEXTS), 1)
    if contexts == 0:
        raise FrameError(f"this GPU has no R500 stage to run the scene's R500 "
                         f"program (build it with one, or render on the model)")
    problem = r500_band_problem(scene)
    if problem:
        raise FrameError(problem)


async def render_frame(port, scene, *, output="words", cores=None, log=None,
                       texture_words=None, bins=None):
    """Render ``scene`` through ``port``; return a Frame. ``output``: "words" reads the output
    words with ``port.read``, "bytes" their bits 7:0 with ``port.read_bytes`` (a board's
    narrow output store holds converted pixels). ``cores``: the core count the GPU must have.
    ``texture_words``: the GPU's texture memory (where the R500 program's samplers must lie;
    default the scene's texture). ``bins``: the scene's bins (``scene_load_runs``), loaded if
    they fit the GPU's scene memory (else every pixel tests every triangle, and the log says
    so). ``log(text)`` hears of each step. A busy GPU, a core count
    other than ``cores``, a scene with an R500 program the GPU cannot shade, a core error or an
    R500 fault raise FrameError (CoreStopped, R500Stopped for the errors)."""
    if output not in ("words", "bytes"):
        raise ValueError(f"output is 'words' or 'bytes', not {output!r}")
    log = log or (lambda text: None)
    first = Reg.STATUS
    registers = await port.read(register_address(first), Reg.SCENE_ROWS - first + 1)
    status, built, scene_rows = (registers[reg - first]
                                 for reg in (Reg.STATUS, Reg.CORES, Reg.SCENE_ROWS))
    if status & STATUS_BUSY:
        raise FrameError("the GPU is busy with a frame started earlier")
    if cores is not None and built != cores:
        raise FrameError(f"the GPU has {built} cores, not {cores}")
    shading = getattr(scene, "shader", None)
    if shading is not None:
        await _r500_check(port, scene)
    log(f"the GPU is idle, {built} cores")
    if bins is not None and not bins_fit(scene, bins, scene_rows):
        log(f"the bins need {bin_rows_needed(bins.lists)} scene memory rows beside the "
            f"triangles' {len(scene.triangles) * SLOT_ROWS}, the GPU has {scene_rows}: every "
            f"pixel tests every triangle")
        bins = None

    started = time.monotonic()
    await load_scene(port, scene, texture_words, bins)
    load_s = time.monotonic() - started
    log(f"scene loaded in {load_s:.1f} s")

    started = time.monotonic()
    await start_frame(port)
    status = await port.wait_frame()
    run_s = time.monotonic() - started
    if status & STATUS_ERROR:
        info, = await port.read(register_address(Reg.ERROR_INFO), 1)
        if info >> 24 == R500_STAGE:
            fault, fault_pixel = await port.read(r500_address(R5Area.REGS, R5Reg.FAULT), 2)
            raise R500Stopped(getattr(shading, "source", "R500 program"), fault, fault_pixel)
        raise CoreStopped(info)
    if not status & STATUS_DONE:
        raise FrameError(f"the wait for the frame ended with STATUS {status:#x}")
    counters = await read_counters(port)
    if shading is not None:
        instructions, _, quads = await port.read(
            r500_address(R5Area.REGS, R5Reg.INSTRUCTIONS), 3)
        counters.update(r500_quads=quads, r500_instructions=instructions)
    log(f"frame done: {counters['cycles']} GPU cycles")

    count = 3 * scene.width * scene.height
    read = port.read_bytes if output == "bytes" else port.read
    data = await read(host_address(Region.OUTPUT), count)
    return Frame(built, counters, data, load_s, run_s, bins is not None)


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
