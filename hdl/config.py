"""What a GPU is built with: frozen dataclasses, and the named presets every tool takes.

``CoreConfig`` says how a shader core's units trade throughput for logic, ``GpuConfig`` how many
cores there are, how big the memories are and how the shared stores are built. Three presets:

* ``full``: every unit at full throughput (three dividers per core, the pipelined square root,
  CROSS on six multipliers, simple ops in one cycle): the fastest core in cycles, too large for
  four on the ULX3S-85F.
* ``default``: the GPU the simulators build unless told otherwise: the board's units (a divider
  per pair of cores, the serial square root, CROSS in two passes, simple ops in two cycles) with
  forwarding into the ALU, 32-bit texture and output memories and room for large scenes, and
  an R500 stage of two contexts (enough for its one core; quick to compile and to simulate).
* ``ulx3s``: the ULX3S-85F board build (``python -m hdl.build --board ulx3s-85f``): four cores,
  no forwarding into the ALU, 8-bit texture and output stores, slotted store ports, the user
  code in LUT RAM, memories sized for the board's scene class: a scene must fit them
  (``GpuConfig.check_fits``; in the 8-bit texture store, a texture word must be an 8-bit colour
  << 9, theia-system.md §1 Textures.mem).

Each switch is read in one place (the unit it configures). ``python -m sim.render --config``,
``python -m hdl.build --config`` and the benches take a preset's name.
"""

import dataclasses
import enum
from dataclasses import dataclass

from hdl.display.mode import VGA_640X480, VideoMode
from hdl.gpu.scene_layout import SLOT_ROWS
from hdl.isa import R500_TEMPS, R500_MAX_INSTRUCTIONS
from hdl.isa.r500_program import highest_temporary, program_inputs
from hdl.mem.sdram_chip import ULX3S_SDRAM, SdramChip

__all__ = ["DividerSharing", "CoreConfig", "R500Config", "MemoryConfig", "GpuConfig", "PRESETS",
           "preset", "PRESET_NAMES", "CORE_PRESET_NAMES", "SceneDoesNotFit", "TEXTURE_SHIFT",
           "TEXTURE_MAX"]

#: a texture word is an 8-bit colour << TEXTURE_SHIFT (what the 8-bit texture store keeps)
TEXTURE_SHIFT = 9
TEXTURE_MAX = 0xFF << TEXTURE_SHIFT


def r500_row_words(scene):
    """The row buffer words the R500 stage needs for ``scene``'s program (0 without one): each
    upper pixel of a row keeps a header of 4 words and the 3 words of each input temporary the
    program reads (hdl/gpu/quad_former.py)."""
    shading = getattr(scene, "shader", None)
    if shading is None:
        return 0
    return scene.width * (4 + 3 * bin(program_inputs(shading.program)).count("1"))


class SceneDoesNotFit(ValueError):
    """A scene a GPU cannot hold exactly; str() says which limit and by how much."""


class DividerSharing(enum.Enum):
    """Who a DIV's divider belongs to."""
    LANES = "lanes"     # three pipelined dividers per core: a DIV every cycle
    PAIR = "pair"       # one per pair of cores, in time slots (hdl/alu/shared_divider.py)


@dataclass(frozen=True)
class CoreConfig:
    """How one shader core is built (the vector ALU's units, the code memory)."""
    #: hdl.alu: the dividers (``DividerSharing``)
    divider: DividerSharing = DividerSharing.PAIR
    #: hdl.alu: MAG's square root one root bit per cycle (a MAG keeps the next one out for 30
    #: cycles; a sixth of the pipelined root's logic)
    serial_sqrt: bool = True
    #: hdl.alu: CROSS on six multipliers (1) or in two passes over three (2: half the DSPs)
    cross_passes: int = 2
    #: hdl.alu: simple ops in one cycle, or two with the adders' operands registered
    simple_latency: int = 2
    #: hdl.core: a result landing in a cycle is forwarded into an ALU operation issuing in it
    #: (without, the reader issues a cycle later and the forwarding leaves the ALU's inputs)
    alu_forwarding: bool = True
    #: hdl.core: the user instruction RAM, in 64-bit words (the 12-word entry table included)
    user_words: int = 1024
    #: hdl.core: the user instruction RAM in LUT RAM rather than block RAM
    lut_code_ram: bool = False
    #: hdl.core: the flow-control engine's return-address stack
    stack_depth: int = 8

    def __post_init__(self):
        if not isinstance(self.divider, DividerSharing):
            raise ValueError(f"divider must be a DividerSharing, not {self.divider!r}")
        if self.cross_passes not in (1, 2):
            raise ValueError(f"cross_passes must be 1 or 2, not {self.cross_passes!r}")
        if self.simple_latency not in (1, 2):
            raise ValueError(f"simple_latency must be 1 or 2, not {self.simple_latency!r}")
        if self.user_words < 1 or self.stack_depth < 1:
            raise ValueError("user_words and stack_depth must be at least 1")


@dataclass(frozen=True)
class R500Config:
    """How the R500 shader core is built (hdl/r500/, docs/r500-core.md)."""
    #: temporaries per pixel (the R500 has 128; a program's inputs are temporaries 0-9)
    temporaries: int = R500_TEMPS
    #: quads in flight, taking turns: 10 hide the datapath's latency (a context issues an
    #: instruction every 4 cycles of the others' 36 while its own runs through)
    contexts: int = 10
    #: the instruction memory, in R500 instructions
    instructions: int = R500_MAX_INSTRUCTIONS
    #: hdl.r500.core: the instruction memory in LUT RAM rather than block RAM (a few dozen
    #: instructions: six block RAMs of 192-bit words against ~1,200 LUTs)
    lut_code_ram: bool = False

    def __post_init__(self):
        if not 1 <= self.temporaries <= R500_TEMPS:
            raise ValueError(f"temporaries must be 1-{R500_TEMPS}, got {self.temporaries}")
        if not 1 <= self.contexts <= 16:
            raise ValueError(f"contexts must be 1-16, got {self.contexts}")
        if not 1 <= self.instructions <= R500_MAX_INSTRUCTIONS:
            raise ValueError(f"instructions must be 1-{R500_MAX_INSTRUCTIONS}, got "
                             f"{self.instructions}")


@dataclass(frozen=True)
class MemoryConfig:
    """The GPU's memories in SDRAM (docs/memory-system.md): textures behind a block-RAM cache,
    two frame buffers (one rendered into, one shown on the display), all on the board's SDR
    SDRAM (hdl/mem/). The SDRAM's words, two bytes each: frame buffer k at ``frame_base(k)``,
    the texture (a byte a texture word) at ``texture_base``."""
    #: the SDRAM part (hdl/mem/sdram_chip.py; the envelope of the ULX3S's parts by default)
    chip: SdramChip = ULX3S_SDRAM
    #: the GPU's clock, which the SDRAM controller counts its timings in (the board's), and
    #: the steps in which the board's PLL shifts the SDRAM chip's clock (360 / (8 x its
    #: output divider): hdl/mem/sdram_clock.py picks the phase among them)
    clock_hz: float = 75e6
    phase_step_deg: float = 4.5
    #: the display's mode: frames up to its active size are shown scaled and centred; its
    #: pixel clock (the board's PLL makes it, and five times it for the TMDS bits)
    mode: VideoMode = VGA_640X480
    pixel_hz: float = 25e6
    #: the texture cache (hdl/gpu/texture_cache.py): lines of all ways, a line's texture
    #: words (bytes), ways
    cache_lines: int = 512
    cache_line_bytes: int = 16
    cache_ways: int = 1
    #: the frame writer's write-combining lines (hdl/gpu/frame_writer.py) and their bytes
    write_lines: int = 4
    write_line_bytes: int = 16
    #: SDRAM words between the two frame buffers' starts; the texture after the second
    frame_span: int = 1 << 19

    def __post_init__(self):
        frame_words = -(-3 * self.mode.h_active * self.mode.v_active // 2)
        if frame_words > self.frame_span:
            raise ValueError(f"a {self.mode.h_active}x{self.mode.v_active} frame takes "
                             f"{frame_words} SDRAM words, more than frame_span")

    def frame_base(self, k):
        """Frame buffer ``k``'s first SDRAM word (k = 0, 1)."""
        return k * self.frame_span

    @property
    def texture_base(self):
        return 2 * self.frame_span

    def texture_fits(self, tmem_words):
        """Whether ``tmem_words`` texture words (a byte each) fit the SDRAM."""
        return self.texture_base + -(-tmem_words // 2) <= self.chip.words


@dataclass(frozen=True)
class GpuConfig:
    """How a GPU is built: its cores, the sizes of its memories and how its stores are built."""
    core: CoreConfig = CoreConfig()
    cores: int = 1
    #: scene memory, in triangle slots
    max_triangles: int = 256
    #: scene memory rows for the screen-space bins beside the triangles' slots
    #: (hdl/gpu/scene_layout.py; a scene's bins go after its triangles): a scene whose bins
    #: do not fit renders without them
    bin_rows: int = 2048
    #: texture memory, in words (three per texel)
    tmem_words: int = 3 * 128 * 128
    #: output memory, in words (three per pixel)
    omem_words: int = 3 * 256 * 256
    #: band table entries
    max_bands: int = 256
    #: 8-bit texture and output stores (hdl/gpu/narrow_store.py): exact for 8-bit textures,
    #: the output read back as converted pixels
    narrow_stores: bool = False
    #: the texture store's readers and the output store's writers take fixed turns instead of
    #: round robin (hdl/lib/arbiter.py ``SlotArbiter``)
    slotted_ports: bool = False
    #: the memory sizes are the build's (a board's): a scene that does not fit is refused;
    #: otherwise the simulators grow them to fit the scene (``fitted``)
    fixed_memories: bool = False
    #: the R500 shading stage (hdl/gpu/r500_stage.py), or None for a GPU without one
    r500: R500Config | None = R500Config()
    #: each core's row buffer of upper pixels for the R500 stage, in words: a row's pixels
    #: times (4 + 3 x the inputs the program reads) (hdl/gpu/quad_former.py)
    r500_row_words: int = 256 * 31
    #: the textures and frames in SDRAM, shown on a display (``MemoryConfig``), or None for
    #: texture and output memories in block RAM. With it the stores are 8-bit
    #: (``narrow_stores``): textures of 8-bit colours, frames of converted pixels.
    memory: MemoryConfig | None = None

    def __post_init__(self):
        if not 1 <= self.cores <= 255:
            raise ValueError(f"cores must be 1-255, got {self.cores}")
        for name in ("max_triangles", "tmem_words", "omem_words", "max_bands", "r500_row_words"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.max_triangles > 0xFFFF or self.max_bands > 0xFFFF:
            raise ValueError("max_triangles and max_bands must fit in 16 bits")
        if self.bin_rows < 0:
            raise ValueError(f"bin_rows must not be negative, got {self.bin_rows}")
        if self.memory is not None:
            if not self.narrow_stores:
                raise ValueError("textures and frames in SDRAM are 8-bit: narrow_stores")
            if not self.memory.texture_fits(self.tmem_words):
                raise ValueError(f"{self.tmem_words} texture words do not fit the SDRAM")
            mode = self.memory.mode
            if self.omem_words > 3 * mode.h_active * mode.v_active:
                raise ValueError(f"{self.omem_words} output words do not fit a frame buffer "
                                 f"of {mode.h_active}x{mode.v_active}")

    @property
    def scene_rows(self):
        """The scene memory's rows: the triangles' slots and the bins'."""
        return self.max_triangles * SLOT_ROWS + self.bin_rows

    def replace(self, **changes):
        """A copy with ``changes``; ``cores``, memory sizes and the core's fields by name."""
        core_fields = {f.name for f in dataclasses.fields(CoreConfig)}
        core_changes = {k: changes.pop(k) for k in list(changes) if k in core_fields}
        config = dataclasses.replace(self, **changes)
        if core_changes:
            config = dataclasses.replace(config, core=dataclasses.replace(config.core,
                                                                          **core_changes))
        return config

    def fitted(self, scene, bin_rows=0):
        """This configuration for ``scene`` (and ``bin_rows`` rows of its bins): with
        ``fixed_memories`` unchanged, once ``check_fits`` passes; otherwise with memories grown
        where the scene needs more."""
        if self.fixed_memories:
            self.check_fits(scene)
            return self
        self._check_texture(scene)
        # (the bins go after the scene's triangles: at most max_triangles' slots before them)
        needs = {"max_triangles": len(scene.triangles), "tmem_words": len(scene.texture),
                 "bin_rows": bin_rows,
                 "omem_words": 3 * scene.width * scene.height, "max_bands": len(scene.bands),
                 "user_words": len(scene.user_code or ()),
                 "r500_row_words": r500_row_words(scene)}
        grown = {name: need for name, need in needs.items()
                 if need > getattr(self.core if name == "user_words" else self, name)}
        return self.replace(**grown) if grown else self

    def check_fits(self, scene):
        """Raise SceneDoesNotFit unless this GPU's memories hold ``scene`` exactly."""
        def fail(problem):
            raise SceneDoesNotFit(f"{scene.name}: {problem}")

        if len(scene.triangles) > self.max_triangles:
            fail(f"{len(scene.triangles)} triangles, the GPU holds {self.max_triangles}")
        if len(scene.bands) > self.max_bands:
            fail(f"{len(scene.bands)} bands, the GPU's band table holds {self.max_bands}")
        if len(scene.texture) > self.tmem_words:
            fail(f"texture of {len(scene.texture)} words ({scene.texture_size}x"
                 f"{scene.texture_size}), the GPU holds {self.tmem_words}")
        self._check_texture(scene)
        need = 3 * scene.width * scene.height
        mode = self.memory.mode if self.memory is not None else None
        if mode is not None and (scene.width > mode.h_active or scene.height > mode.v_active):
            fail(f"a {scene.width}x{scene.height} frame, the GPU's display shows up to "
                 f"{mode.h_active}x{mode.v_active}")
        if need > self.omem_words:
            fail(f"{scene.width * scene.height} pixels ({scene.width}x{scene.height}) need "
                 f"{need} output words, the GPU holds {self.omem_words}")
        if scene.user_code is not None and len(scene.user_code) > self.core.user_words:
            fail(f"{len(scene.user_code)} instruction words (the entry table and code), the "
                 f"GPU holds {self.core.user_words}")
        shading = getattr(scene, "shader", None)
        if shading is not None and self.r500 is None:
            fail("an R500 program, and the GPU has no R500 stage to run it")
        if shading is not None and self.r500 is not None:
            instructions = len(shading.program) // 6
            if instructions > self.r500.instructions:
                fail(f"an R500 program of {instructions} instructions, the GPU holds "
                     f"{self.r500.instructions}")
            highest = highest_temporary(shading.program)
            if highest is not None and highest >= self.r500.temporaries:
                fail(f"the R500 program names temporary {highest}, the GPU's R500 stage holds "
                     f"{self.r500.temporaries}")
            if r500_row_words(scene) > self.r500_row_words:
                fail(f"the R500 stage keeps a row of {scene.width} pixels in "
                     f"{r500_row_words(scene)} words for this program, the GPU holds "
                     f"{self.r500_row_words}")

    def _check_texture(self, scene):
        if not self.narrow_stores:
            return
        for i, word in enumerate(scene.texture):
            if word & ((1 << TEXTURE_SHIFT) - 1) or word > TEXTURE_MAX:
                raise SceneDoesNotFit(
                    f"{scene.name}: Textures.mem word {i} (texel {i // 3}) is {word:#x}: this "
                    f"GPU stores 8-bit colours, so a texture word must be a multiple of 0x200 "
                    f"up to {TEXTURE_MAX:#x}")


_BOARD_CORE = CoreConfig(divider=DividerSharing.PAIR, serial_sqrt=True, cross_passes=2,
                         simple_latency=2, alu_forwarding=False, user_words=64,
                         lut_code_ram=True)

#: the board's scene class: textures up to 1024 x 1024 and frames up to 640 x 480 in SDRAM
#: (the display's mode), 8-bit colours
_BOARD = dict(core=_BOARD_CORE, max_triangles=128, bin_rows=1024, tmem_words=3 * 1024 * 1024,
              omem_words=3 * 640 * 480, max_bands=32, narrow_stores=True, slotted_ports=True,
              fixed_memories=True)

PRESETS = {
    "full": GpuConfig(core=CoreConfig(divider=DividerSharing.LANES, serial_sqrt=False,
                                      cross_passes=1, simple_latency=1, alu_forwarding=True),
                      cores=8),
    # the R500 stage of two contexts: one core delivers a quad every thousand cycles and more,
    # and two contexts keep up with it (docs/r500-core.md, "Configuration"); `full` has ten
    "default": GpuConfig(r500=R500Config(contexts=2)),
    # the board's scene class: example3's 118 triangles, 32 bands, 64 words of user code (the
    # entry table included), textures and frames in SDRAM (docs/memory-system.md)
    "ulx3s": GpuConfig(cores=4, r500=None, memory=MemoryConfig(clock_hz=75e6,
                                                              phase_step_deg=360 / 80),
                       **_BOARD),
    # the board with the R500 stage: one THEIA core with the bins (docs/fpga.md, "The R500
    # stage on the board"); built for 41.67 MHz, which the PLL makes for --freq 42
    # (boards.ulx3s.PRESET_FREQ_MHZ); a row buffer for 640 pixels of programs reading up to
    # four input temporaries
    "ulx3s-r500": GpuConfig(cores=1, r500=R500Config(temporaries=32, contexts=1, instructions=64,
                                                     lut_code_ram=True),
                            r500_row_words=640 * 16,
                            memory=MemoryConfig(clock_hz=125e6 / 3, phase_step_deg=360 / 96),
                            **_BOARD),
}
PRESET_NAMES = tuple(PRESETS)
#: the presets with a shader core of their own (the first preset of each core configuration):
#: what core-level tests run on
CORE_PRESET_NAMES = tuple(name for k, name in enumerate(PRESET_NAMES)
                          if all(PRESETS[name].core != PRESETS[other].core
                                 for other in PRESET_NAMES[:k]))


def preset(name, **changes):
    """The preset called ``name`` (ValueError naming the presets if there is none), with
    ``changes`` (``GpuConfig.replace``)."""
    try:
        config = PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown configuration '{name}' (one of {', '.join(PRESETS)})") \
            from None
    return config.replace(**changes) if changes else config
