"""Running a draw's quads: on the R500 model (``sim.r500.quad``) or on the RTL core (the R500
job top, ``hdl/gpu/r500_top.py``, in the fast simulator), batched.

A draw's state (program, constants, samplers, texture memory) is loaded once and then its
quads run: on the model one ``Quad`` runs them in turn; on the RTL the state goes over the host
bus once and the quads fill the job top's contexts (``JOB_TOP.contexts``), are launched
together, waited for and read back (render target 0, the written channels and the kill flags of
each lane, the fault), as many at a time. The compiled model of the job top is built (or found
in the cache) once per process.

A quad is four lanes, lane 0 = pixel (2i, 2j), 1 = (2i + 1, 2j), 2 = (2i, 2j + 1), 3 =
(2i + 1, 2j + 1), each with temporary 9 = (x, y, 0.5, 0) (the pixel and piglit's window depth
0.5, r500-us.md §4.2), temporaries 0-8 zero, and covered or not (uncovered lanes compute, for
the derivatives, and write no output). Its outcome per lane: the render target 0 value a
covered, unkilled lane wrote (None if it wrote none) and whether it was killed; and the error
that stopped the quad, if any.
"""

from dataclasses import dataclass

from hdl.gpu.address_map import (R5Area, R5Reg, Region, host_address, r500_address,
                                  sampler_fields)
from host.port import BlockingPort, run_blocking
from host.r500_job import launch_quad, load_quad
from host.r500_state import R500State, r500_load_runs
from hdl.isa import QuadFault
from sim.r500 import fp32
from sim.r500.errors import QuadErrorCode
from sim.r500.quad import LANES, LaneInput, Quad

__all__ = ["DrawState", "QuadJob", "QuadOutcome", "ModelEngine", "RtlEngine", "CompareEngine",
           "EngineMismatch", "EngineUnavailable", "LANE_OFFSETS", "make_engine", "ENGINES"]

ENGINES = ("model", "rtl")
LANE_OFFSETS = ((0, 0), (1, 0), (0, 1), (1, 1))
WINDOW_DEPTH = 0.5
COLOUR_TARGET = 0
POSITION_TEMP = 9


@dataclass(frozen=True)
class DrawState:
    """What a draw loads: program words and END_ADDR, constants {index: (4 words)}, integer
    constants, static booleans, samplers {TEX_ID: Sampler}, texture memory words, the
    instruction limit per quad."""
    program: tuple
    end: int
    constants: tuple            # sorted (index, (4 words)) pairs
    int_consts: tuple           # sorted (index, word) pairs
    bools: int
    samplers: tuple             # sorted (TEX_ID, Sampler) pairs
    texture: tuple
    max_instructions: int


@dataclass(frozen=True)
class QuadJob:
    """Quad (i, j) of the window (lane 0 at pixel (2i, 2j)) and each lane's coverage."""
    i: int
    j: int
    covered: tuple


@dataclass(frozen=True)
class QuadOutcome:
    colours: tuple              # per lane: render target 0 (4 words) or None
    killed: tuple               # per lane
    error: tuple = None         # (QuadErrorCode, PC) or None

    def error_text(self):
        code, pc = self.error
        return f"{code.value} at PC {pc}"


class EngineMismatch(Exception):
    """The RTL and the model disagree on a quad (one line)."""


class EngineUnavailable(Exception):
    """The RTL engine's model cannot be built or loaded here (one line: what is missing)."""


def _lanes(job):
    """The quad's LaneInputs: temporary 9 = (x, y, 0.5, 0), the rest zero."""
    lanes = []
    for lane, (dx, dy) in enumerate(LANE_OFFSETS):
        position = [fp32.from_float(float(v)) for v in (2 * job.i + dx, 2 * job.j + dy,
                                                        WINDOW_DEPTH, 0)]
        lanes.append(LaneInput({POSITION_TEMP: position}, job.covered[lane]))
    return lanes


def _outcome(covered, killed, written, targets, error):
    """A QuadOutcome from per-lane kill flags, whether target 0 was written and its value."""
    colours = tuple(tuple(targets[l]) if covered[l] and not killed[l] and written[l] else None
                    for l in range(LANES))
    return QuadOutcome(colours, tuple(bool(k) for k in killed), error)


class ModelEngine:
    name = "model"

    def run(self, state, jobs):
        """The QuadOutcomes of ``jobs`` (QuadJobs) under ``state`` (a DrawState)."""
        quad = Quad(state.program, dict(state.constants), state.bools, dict(state.int_consts),
                    dict(state.samplers), state.texture, 0, state.end, state.max_instructions)
        outcomes = []
        for job in jobs:
            result = quad.run(_lanes(job))
            error = None if result.error is None else (result.error.code, result.error.pc)
            lanes = result.lanes
            outcomes.append(_outcome(job.covered, [l.killed for l in lanes],
                                     [COLOUR_TARGET in l.outputs for l in lanes],
                                     [l.outputs.get(COLOUR_TARGET) for l in lanes], error))
        return outcomes


_runner = None


def _quad_runner():
    """The job top's fast model (built or found in the cache once per process)."""
    global _runner
    if _runner is None:
        from sim.fast.build import DEFAULT_BACKEND, BuildError, check_tools
        from sim.fast.driver import FastSimError
        from sim.r500.rtl import QuadRunner
        missing = check_tools(DEFAULT_BACKEND)
        if missing:
            raise EngineUnavailable(missing)
        try:
            _runner = QuadRunner()
        except (BuildError, FastSimError, OSError) as error:
            raise EngineUnavailable(" ".join(str(error).split())) from None
    return _runner


class RtlEngine:
    name = "rtl"

    def run(self, state, jobs):
        runner = _quad_runner()
        return run_blocking(_rtl_batch(BlockingPort(runner.host), runner.config, state, jobs))


async def _rtl_batch(port, config, state, jobs):
    samplers = {tex_id: (s.base, sampler_fields(s.width, s.height, s.filter == "bilinear",
                                                s.wrap == "clamp", True))
                for tex_id, s in state.samplers}
    loaded = R500State(list(state.program), 0, state.end, state.max_instructions,
                       dict(state.constants), state.bools, dict(state.int_consts), samplers)
    for address, words in r500_load_runs(loaded):
        await port.write(address, words)
    if state.texture:
        await port.write(host_address(Region.TEXTURE), list(state.texture))
    outcomes = []
    for first in range(0, len(jobs), config.contexts):
        batch = [(job, [(lane.temps, lane.covered) for lane in _lanes(job)])
                 for job in jobs[first:first + config.contexts]]
        for context, (_, lanes) in enumerate(batch):
            await load_quad(port, lanes, context)
        for context, (_, lanes) in enumerate(batch):
            await launch_quad(port, lanes, context)
        for context, (job, _) in enumerate(batch):
            await port.write(r500_address(R5Area.REGS, R5Reg.CONTEXT), [context])
            await port.wait_frame()
            (fault,) = await port.read(r500_address(R5Area.REGS, R5Reg.FAULT), 1)
            killed, written, targets = [], [], []
            for lane in range(LANES):
                targets.append(await port.read(r500_address(R5Area.TARGETS, 16 * lane), 4))
                info = await port.read(r500_address(R5Area.LANES, 8 * lane), 8)
                killed.append(bool(info[1]))
                written.append(bool(info[4 + COLOUR_TARGET]))
            error = None
            if fault & 0xFFFF != QuadFault.NONE:
                error = (QuadErrorCode[QuadFault(fault & 0xFFFF).name], fault >> 16)
            outcomes.append(_outcome(job.covered, killed, written, targets, error))
    return outcomes


class CompareEngine:
    """Runs every batch on ``engine`` and on the model; a quad on which they disagree raises
    EngineMismatch."""

    def __init__(self, engine):
        self.engine, self.model = engine, ModelEngine()
        self.name = f"{engine.name}+model"

    def run(self, state, jobs):
        outcomes = self.engine.run(state, jobs)
        for job, theirs, ours in zip(jobs, outcomes, self.model.run(state, jobs)):
            if theirs != ours:
                raise EngineMismatch(f"the quad at pixel ({2 * job.i}, {2 * job.j}): "
                                     f"{self.engine.name} {_describe(theirs)}, "
                                     f"model {_describe(ours)}")
        return outcomes


def _describe(outcome):
    if outcome.error:
        return outcome.error_text()
    return "; ".join("killed" if k else "-" if c is None else
                     "(" + ", ".join(f"0x{w:08x}" for w in c) + ")"
                     for c, k in zip(outcome.colours, outcome.killed))


def make_engine(name, compare=False):
    """The engine called ``name`` ("model" or "rtl"); ``compare``: checked against the model
    quad by quad."""
    engine = {"model": ModelEngine, "rtl": RtlEngine}[name]()
    return CompareEngine(engine) if compare else engine
