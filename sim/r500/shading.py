"""Shading THEIA's hits with an R500 fragment program (r500-us.md §4.2) on the model.

A scene may carry an ``R500Shading``: the program's words and the host state it runs with. The
per-band sequence then records every pixel after PSU2 instead of running PIXELSHADER
(``sim.r500.theia_inputs``), and ``shade`` runs the program over the image in 2×2 quads
(§4.1) and stores render target 0's colour in the output memory.
"""

from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from hdl.isa import R500_WORDS_PER_INSTRUCTION
from sim.r500 import fp32
from sim.r500.quad import LaneInput, Quad
from sim.r500.theia_inputs import lane_temps, uncovered_temps

__all__ = ["DEFAULT_MAX_INSTRUCTIONS", "R500Shading", "ShadingError", "ShadingStats",
           "quad_pixels", "shade"]

DEFAULT_MAX_INSTRUCTIONS = 100_000
#: lane n of the quad (i, j) is pixel (2i + dx, 2j + dy) (§4.1)
LANE_OFFSETS = ((0, 0), (1, 0), (0, 1), (1, 1))
COLOUR_TARGET = 0
#: where a byte sits in an output word, so THEIA's conversion (w >> 9) reads it back
BYTE_SHIFT = 9


class ShadingError(Exception):
    """A quad stopped with an error; one line naming the program, the pixel and the PC."""


@dataclass
class R500Shading:
    """An R500 fragment program and the host state it runs with: ``constants`` {index 0-255:
    [r, g, b, a] binary32 words}, ``bools`` the 32 static booleans, ``int_consts`` {index 0-31:
    KR | KG << 8 | KB << 16}, ``samplers`` {TEX_ID: sim.r500.tex.Sampler} over the scene's
    texture memory, and the instruction limit per quad. ``source`` names the program in
    messages; ``interface`` is a GLSL program's (``firmware.glsl``: which constants its
    uniforms take), None for assembly."""
    program: list
    end: int = None
    start: int = 0
    constants: dict = field(default_factory=dict)
    bools: int = 0
    int_consts: dict = field(default_factory=dict)
    samplers: dict = field(default_factory=dict)
    max_instructions: int = DEFAULT_MAX_INSTRUCTIONS
    source: str = "R500 program"
    interface: dict = None

    @property
    def instructions(self):
        return len(self.program) // R500_WORDS_PER_INSTRUCTION

    def quad(self, texture):
        """A model quad set up with this program and state (ValueError if no quad can run
        it, e.g. an END_ADDR past the program)."""
        return Quad(self.program, self.constants, self.bools, self.int_consts, self.samplers,
                    texture, self.start, self.end, self.max_instructions)


@dataclass
class ShadingStats:
    quads: int = 0
    instructions: int = 0


def quad_pixels(width, height):
    """The quads tiling a width × height image, each as its four (x, y) pixels in lane order
    (with an odd size, the last column or row of quads reaches outside the image)."""
    for j in range(0, height, 2):
        for i in range(0, width, 2):
            yield [(i + dx, j + dy) for dx, dy in LANE_OFFSETS]


def _colour_words(record, lane):
    """(output index, word) of render target 0's .rgb, or nothing if the lane was killed or
    wrote no channel of it (the pixel then keeps what the output memory holds)."""
    colour = None if lane.killed else lane.outputs.get(COLOUR_TARGET)
    if colour is None:
        return []
    return [(at, fp32.to_byte(value) << BYTE_SHIFT) for at, value in zip(record.output, colour)]


def _run_quads(shading, texture, quads):
    """Run the program on ``quads`` ((positions, records) pairs); returns ({output index:
    word}, ShadingStats). Raises ShadingError at the first quad that stops."""
    quad = shading.quad(texture)
    writes, stats = {}, ShadingStats()
    for positions, lanes in quads:
        inputs = [LaneInput(lane_temps(r)) if r else LaneInput(uncovered_temps(*p), False)
                  for p, r in zip(positions, lanes)]
        result = quad.run(inputs)
        stats.quads += 1
        stats.instructions += result.instructions
        if result.error is not None:
            x, y = next(p for p, r in zip(positions, lanes) if r)
            raise ShadingError(f"{shading.source}: the quad of pixel ({x}, {y}) stopped: "
                               f"{result.error}")
        for record, lane in zip(lanes, result.lanes):
            if record is not None:
                writes.update(_colour_words(record, lane))
    return writes, stats


def shade(shading, texture, records, omem, width, height, jobs=1):
    """Run ``shading``'s program on every quad of the image that holds a recorded pixel
    (``PixelRecord``s; a lane without one is uncovered) and write the colours into ``omem``.
    Quads are independent: with ``jobs`` > 1 they are shared out over as many processes.
    Returns ShadingStats; a quad error raises ShadingError (the first quad in image order)."""
    pixels = {(r.x, r.y): r for r in records if 0 <= r.x < width and 0 <= r.y < height}
    quads = []
    for positions in quad_pixels(width, height):
        lanes = [pixels.get(p) for p in positions]
        if any(lanes):
            quads.append((positions, lanes))
    parts = max(1, min(jobs, len(quads)))
    size = -(-len(quads) // parts)
    chunks = [quads[k:k + size] for k in range(0, len(quads), size)]
    if len(chunks) > 1:
        with ProcessPoolExecutor(max_workers=len(chunks)) as pool:
            outcomes = list(pool.map(_run_quads, [shading] * len(chunks),
                                     [texture] * len(chunks), chunks))
    else:
        outcomes = [_run_quads(shading, texture, chunk) for chunk in chunks]
    stats = ShadingStats()
    for writes, part in outcomes:
        for at, word in writes.items():
            omem[at] = word
        stats.quads += part.quads
        stats.instructions += part.instructions
    return stats
