"""Running one shader_test file: its commands become clears, draws and probes; only the quads
the probes read are run, batched by draw state; then each probe reads its pixels.

The framebuffer is never drawn in full. A probe's pixel is worked out from the ops before it:
the last clear (or the window's initial black, all channels 0), then every draw since whose
rectangle covers the pixel, in order: a covered lane that was not killed and wrote render
target 0 stores it (UNORM8); a killed lane or one that wrote nothing leaves the pixel as it
was. A program that does not read its position (temporary 9) computes the same in every lane
of every quad: one quad, all lanes covered, stands for the whole draw. Whether it reads it is
the compiler's interface's ``inputs`` (gl_FragCoord, theia_Pixel): a program whose arrays live
in temporaries addressed relative to a loop counter could otherwise read any temporary.
"""

from dataclasses import dataclass, field

import numpy as np

from hdl.isa.r500_program import temporaries_read
from sim.r500 import fp32
from sim.shader_test.commands import (Clear, ClearColor, DrawRect, LinkCheck, Ortho, Probe,
                                      TexParameter, TextureImage, Tolerance, UniformSet,
                                      parse_commands)
from sim.shader_test.compile import CompileFailed, compile_fragment
from sim.shader_test.engines import (LANE_OFFSETS, POSITION_TEMP, DrawState, EngineMismatch,
                                     QuadJob)
from sim.shader_test.errors import Failure, Skip
from sim.shader_test.parse import read_shader_test
from sim.shader_test.shaders import (FIXED_FUNCTION, check_fragment_shader,
                                     link_uniform_initializers, strip_comments, vertex_transform)
from sim.shader_test.textures import Textures
from sim.shader_test.uniforms import Uniforms
from sim.shader_test.window import (DEFAULT_TOLERANCE, Projection, covered_pixels,
                                    first_mismatch, pixels_to_clip, unorm8)

__all__ = ["Outcome", "run_test", "DEFAULT_MAX_INSTRUCTIONS"]

DEFAULT_MAX_INSTRUCTIONS = 100_000
_CANONICAL = QuadJob(0, 0, (True,) * 4)
_BLACK = (0, 0, 0, 0)


@dataclass
class Outcome:
    result: str                 # "pass", "fail" or "skip"
    reason: str = None
    quads: int = 0              # quads run


@dataclass
class _Clear:
    colour: tuple               # bytes


@dataclass
class _Draw:
    line: int
    pixels: tuple               # x0, x1, y0, y1
    state: DrawState
    uniform: bool               # the program does not read its position
    alpha: bool                 # a texture it samples has alpha other than 1.0

    def jobs(self, region):
        """The QuadJobs of the quads of ``region`` (x0, x1, y0, y1, inside the rectangle)."""
        if self.uniform:
            return [_CANONICAL]
        x0, x1, y0, y1 = region
        return [QuadJob(i, j, tuple(self.covers(2 * i + dx, 2 * j + dy)
                                    for dx, dy in LANE_OFFSETS))
                for j in range(y0 // 2, (y1 + 1) // 2) for i in range(x0 // 2, (x1 + 1) // 2)]

    def covers(self, x, y):
        x0, x1, y0, y1 = self.pixels
        return x0 <= x < x1 and y0 <= y < y1


@dataclass
class _Probe:
    probe: Probe
    tolerance: tuple


@dataclass
class _Ops:
    ops: list = field(default_factory=list)
    link_error: bool = False


def _intersect(a, b):
    x0, x1 = max(a[0], b[0]), min(a[1], b[1])
    y0, y1 = max(a[2], b[2]), min(a[3], b[3])
    return (x0, x1, y0, y1) if x0 < x1 and y0 < y1 else None


def _reads_position(program):
    """Whether the program reads its pixel's position (temporary 9): as the interface's
    ``inputs`` say (gl_FragCoord, theia_Pixel), else whenever an instruction can read
    temporary 9 (a relative address can read any)."""
    inputs = program.interface.get("inputs")
    if inputs is not None:
        return any("gl_FragCoord" in name or "theia_Pixel" in name for name in inputs)
    return bool(temporaries_read(program.words) >> POSITION_TEMP & 1)


def _colour_bytes(colour):
    return tuple(unorm8(fp32.to_float(w)) for w in colour)


class _Run:
    """One file's run from its parsed parts."""

    def __init__(self, test, transform, commands, engine, compiler, max_instructions):
        self.test, self.commands = test, commands
        self.engine, self.compiler = engine, compiler
        self.fixed_function = transform == FIXED_FUNCTION
        self.max_instructions = max_instructions
        self.outcomes = {}

    # --- the ops ---------------------------------------------------------------------------

    def _draw_state(self, program, uniforms, textures):
        units = {tex_id: uniforms.units.get(name, 0)
                 for name, tex_id in program.interface.get("samplers", {}).items()}
        samplers, texture, alpha = textures.layout(units)
        state = DrawState(tuple(program.words), program.end,
                          tuple(sorted(uniforms.snapshot().items())),
                          tuple(sorted(program.int_consts.items())), program.bools,
                          tuple(sorted(samplers.items())), tuple(texture), self.max_instructions)
        return state, alpha

    def ops(self, program):
        """The clears, draws and probes of the commands, in order."""
        test = self.test
        uniforms = Uniforms(program.interface, program.constants,
                            strip_comments(test.fragment.text), test.path)
        textures, projection = Textures(), None
        uniform = not _reads_position(program)
        tolerance, clear_colour, ops = DEFAULT_TOLERANCE, None, []
        for command in self.commands:
            if isinstance(command, ClearColor):
                clear_colour = tuple(unorm8(float(c)) for c in command.rgba)
            elif isinstance(command, Clear):
                if clear_colour is not None:        # piglit clears only after a clear color
                    ops.append(_Clear(clear_colour))
            elif isinstance(command, DrawRect):
                rect = pixels_to_clip(command.rect, test.window) if command.ortho else \
                    command.rect
                pixels = covered_pixels(rect, test.window,
                                        projection if self.fixed_function else None)
                state, alpha = self._draw_state(program, uniforms, textures)
                ops.append(_Draw(command.line, pixels, state, uniform, alpha))
            elif isinstance(command, Ortho):
                bounds = command.bounds or (0, test.window[0], 0, test.window[1])
                projection = Projection(*bounds)
            elif isinstance(command, Probe):
                ops.append(_Probe(command, tolerance))
            elif isinstance(command, Tolerance):
                tolerance = command.values
            elif isinstance(command, UniformSet):
                uniforms.set(command)
            elif isinstance(command, TextureImage):
                textures.bind(command)
            elif isinstance(command, TexParameter):
                textures.parameter(command, test.path)
        return ops

    # --- the quads -------------------------------------------------------------------------

    def _region(self, probe):
        x, y, w, h = probe.rect
        width, height = self.test.window
        if x < 0 or y < 0 or x + w > width or y + h > height:
            raise Failure(f"line {probe.line}: {probe.text}: outside the {width}x{height} "
                          f"window")
        return (x, x + w, y, y + h) if w > 0 and h > 0 else None

    @staticmethod
    def _since_clear(ops, k):
        """The last clear before op ``k`` (None: the initial window) and the draws after it."""
        start = max((n for n in range(k) if isinstance(ops[n], _Clear)), default=-1)
        clear = ops[start] if start >= 0 else None
        return clear, [op for op in ops[start + 1:k] if isinstance(op, _Draw)]

    def run_quads(self, ops):
        """Run every quad a probe reads, one engine batch per draw state."""
        needed = {}
        for k, op in enumerate(ops):
            if not isinstance(op, _Probe) or (region := self._region(op.probe)) is None:
                continue
            for draw in self._since_clear(ops, k)[1]:
                inside = _intersect(draw.pixels, region)
                if inside:
                    needed.setdefault(draw.state, {}).update(dict.fromkeys(draw.jobs(inside)))
        first_line = {}                  # draw state -> the line of its first draw
        for op in ops:
            if isinstance(op, _Draw):
                first_line.setdefault(op.state, op.line)
        for state, jobs in needed.items():
            jobs = list(jobs)
            for job, outcome in zip(jobs, self.engine.run(state, jobs)):
                if outcome.error:
                    raise Failure(f"line {first_line[state]}: the quad at pixel ({2 * job.i}, "
                                  f"{2 * job.j}) stopped: {outcome.error_text()}")
                self.outcomes[state, job] = outcome

    # --- the probes ------------------------------------------------------------------------

    def _paint(self, pixels, region, draw):
        """Store ``draw``'s output over ``pixels`` (the bytes of ``region``)."""
        inside = _intersect(draw.pixels, region)
        if inside is None:
            return
        x0, y0 = region[0], region[2]
        for job in draw.jobs(inside):
            outcome = self.outcomes[draw.state, job]
            if draw.uniform:
                colour = outcome.colours[0]
                if colour is not None:
                    pixels[inside[2] - y0:inside[3] - y0, inside[0] - x0:inside[1] - x0] = \
                        _colour_bytes(colour)
                continue
            for (dx, dy), colour in zip(LANE_OFFSETS, outcome.colours):
                x, y = 2 * job.i + dx, 2 * job.j + dy
                if colour is not None and inside[0] <= x < inside[1] and inside[2] <= y < inside[3]:
                    pixels[y - y0, x - x0] = _colour_bytes(colour)

    def probe(self, ops, k):
        """None if probe ``k`` passes, else why it fails."""
        op = ops[k]
        probe, region = op.probe, self._region(op.probe)
        if region is None:
            return None
        clear, draws = self._since_clear(ops, k)
        pixels = np.empty((region[3] - region[2], region[1] - region[0], 4), dtype=np.uint8)
        pixels[...] = clear.colour if clear else _BLACK
        for draw in draws:
            self._paint(pixels, region, draw)
        failing = first_mismatch(pixels, probe.expected, op.tolerance)
        if failing is None:
            return None
        row, column = failing
        observed = ", ".join(f"{b / 255:.3f}".rstrip("0").rstrip(".")
                             for b in pixels[row, column][:len(probe.expected)])
        expected = ", ".join(f"{v:g}" for v in probe.expected)
        note = ""
        if any(draw.alpha for draw in draws) and len(probe.expected) == 4:
            note = " (a texture has alpha other than 1.0; the R500 samples alpha 1.0)"
        return (f"line {probe.line}: {probe.text}: pixel ({region[0] + column}, "
                f"{region[2] + row}) expected ({expected}), observed ({observed}){note}")

    # --- the whole run ---------------------------------------------------------------------

    def outcome(self):
        link_error = any(isinstance(c, LinkCheck) and c.error_expected for c in self.commands)
        try:
            program = compile_fragment(self.test.fragment, self.test.glsl_version,
                                       self.compiler)
        except CompileFailed as error:
            if link_error and not error.crashed:
                draws = [c.line for c in self.commands if isinstance(c, DrawRect)]
                if draws:
                    return Outcome("fail", f"line {draws[0]}: draw rect with no program")
                return Outcome("pass")
            return Outcome("fail", str(error))
        if link_error:
            return Outcome("fail", "a link error was expected, but the shader compiled")
        ops = self.ops(program)
        self.run_quads(ops)
        failures = [f for k, op in enumerate(ops) if isinstance(op, _Probe)
                    and (f := self.probe(ops, k)) is not None]
        quads = len(self.outcomes)
        if failures:
            more = f" (and {len(failures) - 1} more failing probes)" if len(failures) > 1 else ""
            return Outcome("fail", failures[0] + more, quads)
        return Outcome("pass", None, quads)


def run_test(path, engine, compiler=None, max_instructions=DEFAULT_MAX_INSTRUCTIONS):
    """The Outcome of the shader_test file at ``path`` on ``engine``
    (``sim.shader_test.engines``); ``compiler``: (compile function, error class) instead of
    ``firmware.glsl``'s. Raises ShaderTestError for a malformed file."""
    try:
        test = read_shader_test(path)
        transform = vertex_transform(test.vertex)
        check_fragment_shader(test.fragment)
        test.fragment = link_uniform_initializers(test.vertex, test.fragment)
        commands = parse_commands(test.path, test.commands, test.window)
        run = _Run(test, transform, commands, engine, compiler, max_instructions)
        return run.outcome()
    except Skip as skip:
        return Outcome("skip", str(skip))
    except (Failure, EngineMismatch) as failure:
        return Outcome("fail", str(failure))
