"""One RTL core per preset, kept in Amaranth's simulator for many runs (tests/hdl/core/).

Building a core's simulation (elaboration and the simulator's compile) takes seconds; running a
short routine on it takes a small part of that. ``CoreSession(config)`` builds the core once and
runs each job (``async def job(ctx, core)``) from the same state as a freshly built core: the
clock domain held in reset for a cycle, every memory of the core (register file, user RAM,
writeback ring, ...) back to its initial contents, a zero texture memory and output memory
given to the job. An exception in a job (a
failed assertion) is raised from ``run`` and leaves the session usable.
"""

from amaranth import ClockDomain, Elaboratable, Module
from amaranth.lib.memory import Memory
from amaranth.sim import Simulator

from firmware.rom import default_rom
from sim.core_pysim import MemoryModel, core_under_test, serve_memories

__all__ = ["ROM", "CoreSession"]

ROM = default_rom()


class _WithReset(Elaboratable):
    """``inner`` in a clock domain whose reset the testbench drives (``cd.rst``)."""

    def __init__(self, inner):
        self.inner = inner
        self.cd = ClockDomain("sync")

    def elaborate(self, platform):
        m = Module()
        m.domains.sync = self.cd
        m.submodules.inner = self.inner
        return m


def memories_of(top):
    """The ``Memory`` objects of ``top`` and of the elaboratables its attributes hold."""
    found, seen, pending = [], set(), [top]
    while pending:
        obj = pending.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, Memory):
            found.append(obj)
        for value in vars(obj).values():
            for item in value if isinstance(value, (list, tuple)) else [value]:
                if isinstance(item, Elaboratable):
                    pending.append(item)
    return found


class CoreSession:
    """A core of ``config`` (a ``hdl.config.CoreConfig``) with ``tmem_words`` of texture and
    ``omem_words`` of output memory (``sim.core_pysim.MemoryModel``: one-cycle texture answers,
    both ports always ready)."""

    def __init__(self, config, *, tmem_words, omem_words):
        self.config = config
        self.core = core_under_test(ROM, config, tmem_words=tmem_words, omem_words=omem_words)
        self.tmem_words, self.omem_words = tmem_words, omem_words
        self.memories = MemoryModel([0] * tmem_words, omem_words)
        self._top = _WithReset(self.core)
        self._memories = memories_of(self.core)
        self._job = self._outcome = None
        self._sim = Simulator(self._top)
        self._sim.add_clock(1e-8)
        self._sim.add_testbench(self._serve_jobs)
        self._sim.add_process(self._serve_memories)

    async def _serve_memories(self, ctx):
        await serve_memories(ctx, self.core, self.memories)

    async def _serve_jobs(self, ctx):
        while True:
            if self._job is None:
                await ctx.tick()
                continue
            job, self._job = self._job, None
            try:
                self._outcome = (True, await job(ctx))
            except Exception as error:
                self._outcome = (False, error)

    async def _fresh(self, ctx, tmem):
        """The state of a core just built, with ``tmem`` (default zeros) as texture memory."""
        core = self.core
        ctx.set(self._top.cd.rst, 1)
        await ctx.tick()
        ctx.set(self._top.cd.rst, 0)
        for memory in self._memories:
            for row, value in enumerate(memory.init):
                ctx.set(memory.data[row], value)
        self.memories.tmem = list(tmem or [0] * self.tmem_words)
        self.memories.omem = [0] * self.omem_words

    def run(self, job, tmem=None):
        """``await job(ctx, core)`` on the core in the state of one just built (``tmem``: the
        texture memory's words); returns what it returns, or raises what it raises. The output
        memory it wrote is ``self.memories.omem`` until the next run."""
        async def fresh_job(ctx):
            await self._fresh(ctx, tmem)
            return await job(ctx, self.core)

        self._job, self._outcome = fresh_job, None
        while self._outcome is None:
            self._sim.advance()
        ok, value = self._outcome
        if not ok:
            raise value
        return value
