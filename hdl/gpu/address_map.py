"""The GPU's address map and register layouts (docs/host-interface.md): the regions, the
control and status registers and their bits, the R500 stage's areas and registers, a sampler's
field word and ERROR_INFO's fields. The RTL decodes them (hdl/gpu/host_bus.py,
hdl/gpu/host_port.py, hdl/gpu/r500_port.py, hdl/gpu/r500_top.py) and the hosts write and read
them (host/): one table for both. Plain Python, no simulator."""

from enum import IntEnum

__all__ = [
    "Region", "REGION_BASE", "SMALL_REGION_BITS", "LARGE_REGION_BITS", "Reg", "CTRL_START",
    "CTRL_RUN", "CTRL_STOP", "STATUS_BUSY", "STATUS_DONE", "STATUS_ERROR", "STATUS_RUNNING",
    "FRAME_ENDED", "COUNTERS", "ROW_WORDS", "display_word",
    "BAND_WORDS", "R500_STAGE", "host_address", "register_address",
    "R5Area", "R5Reg", "R5_CTRL_RUN", "R5_CTRL_CLEAR", "R5_STATUS_BUSY", "R5_STATUS_DONE",
    "R5_STATUS_FAULT", "R5_PROGRAM_STRIDE", "R5_TEMP_STRIDE", "r500_address", "sampler_fields",
]


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
    # a GPU with a display (memory in SDRAM): the frame it shows, bits 15:0 the width and
    # 31:16 the height (0: the plain screen; it reads 0 without a display), and the frames
    # finished since reset (read only)
    DISPLAY = 19
    FRAMES = 20


#: CTRL: render one frame; render frames one after another (continuous rendering); stop
#: after the frame under way
CTRL_START, CTRL_RUN, CTRL_STOP = 1 << 0, 1 << 1, 1 << 2
#: STATUS: a frame is under way (or asked for); the last frame finished; it stopped with an
#: error; frames are rendered one after another
STATUS_BUSY, STATUS_DONE, STATUS_ERROR, STATUS_RUNNING = 1 << 0, 1 << 1, 1 << 2, 1 << 3
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
#: ERROR_INFO (the frame's first error): bits 15:0 the PC, 18:16 the code (``hdl.isa.CoreError``),
#: 31:24 the core, or R500_STAGE for an error of the R500 stage (its registers say the rest)
R500_STAGE = 0xFF


def host_address(region, offset=0):
    """The word address of ``offset`` in ``region`` (a Region)."""
    return REGION_BASE[region] + offset


def display_word(width, height):
    """DISPLAY's value for a ``width`` x ``height`` frame."""
    return width | height << 16


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
    CYCLES = 12             # R: cycles while a context ran: job top: from a RUN while none
                            # did; GPU: in the frame (the stage's busy cycles)
    QUADS = 13              # GPU, R: quads shaded in the frame
    LANE_OPS = 14           # R: ALU lane-ops issued (since reset)
    CONTEXTS = 15           # R: the build's contexts
    TEMPORARIES = 16        # R: the build's temporaries per pixel
    RUNNING = 17            # R: job top: a bit per running context
    INPUTS = 18             # GPU: the temporaries 0-8 the program reads (its program_inputs)
    WIDTH = 19              # GPU: the image's width in pixels (lanes beyond it are uncovered)
    EXPORT_WAIT = 32        # GPU, R: 32 + k: the cycles THEIA core k waited on the stage in
                            # the frame (its export word was not taken)


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
