"""One RTL core in Amaranth's simulator (``sim.exec --engine rtl``, the core's tests, benches).

Helpers that put one ``hdl.core.Core`` (or a ShaderCore) in a testbench with a texture memory and
an output memory modelled in Python (one-cycle latency, always ready), so that tests and
``sim.exec`` can load code, run routines and read the registers back. A core that shares a
divider with another (``DividerSharing.PAIR``) is simulated with that divider, its other client
idle, as the GPU pairs cores (``standalone``). The register file and the user RAM are read and
written through the simulator's backdoor (``read_registers``, ``poke_register``,
``poke_code``): no cycle, only while the core is idle.
"""

from dataclasses import dataclass

from amaranth import Module
from amaranth.lib import wiring
from amaranth.sim import Simulator

from hdl.alu.shared_divider import DIVIDER_SLOTS, SharedDivider
from hdl.core.core import Core, Counters
from host.errors import core_error_message
from hdl.isa import NUM_REGS, USER_CODE_START, BANK_OUTPUT

__all__ = ["run_program_rtl", "WithDivider", "standalone", "core_under_test", "wait_settled", "read_registers", "core_error_message",
           "MemoryModel", "serve_memories", "poke_register", "poke_code", "load_code",
           "io_write", "flip_swap", "RoutineRun", "run_routine", "simulate", "settled_counters"]


def read_registers(ctx, core):
    """{address: (x, y, z)} as EXE sees them, read from the register file's memory."""
    swap = ctx.get(core.swap_sel)
    regs = {}
    for addr in range(NUM_REGS):
        if addr >= BANK_OUTPUT.first:
            regs[addr] = (0, 0, 0)
            continue
        memories, row = core.regfile.storage(addr, swap)
        word = ctx.get(memories[0].data[row])
        regs[addr] = ((word >> 64) & 0xFFFF_FFFF, (word >> 32) & 0xFFFF_FFFF, word & 0xFFFF_FFFF)
    return regs


class MemoryModel:
    """Texture and output memory as the testbench sees them (word lists)."""

    def __init__(self, tmem=None, omem_words=4096):
        self.tmem = list(tmem or [])
        self.omem = [0] * omem_words


async def serve_memories(ctx, core, memories):
    """Answer TMREAD requests one cycle later and accept OMWRITEs at once."""
    ctx.set(core.tm_req.ready, 1)
    ctx.set(core.om_req.ready, 1)
    pending = []
    async for clk_edge, rst, tm_valid, tm_addr, om_valid, om_addr, om_data in ctx.tick().sample(
            core.tm_req.valid, core.tm_req.payload, core.om_req.valid,
            core.om_req.payload.addr, core.om_req.payload.data):
        if pending:
            ctx.set(core.tm_resp.valid, 1)
            ctx.set(core.tm_resp.payload, pending.pop(0))
        else:
            ctx.set(core.tm_resp.valid, 0)
        if tm_valid:
            pending.append(memories.tmem[tm_addr] if tm_addr < len(memories.tmem) else 0)
        if om_valid:
            memories.omem[om_addr] = om_data


class WithDivider(wiring.Component):
    """A Core or ShaderCore that shares a divider (``DividerSharing.PAIR``) with that divider,
    its other client idle: one component with the wrapped one's ports but ``div``, so it can be
    simulated on its own (in Amaranth's simulator or the fast one). Other attributes (the
    register file, the user RAM, the ALU, ``max_latency``) are the wrapped one's, for the
    backdoor helpers."""

    def __init__(self, component):
        self.inner = component
        super().__init__({name: member for name, member in component.signature.members.items()
                          if name != "div"})

    #: what the backdoor helpers reach through the wrapper
    _REACHED = ("regfile", "ram", "valu", "max_latency", "config", "core")

    def __getattr__(self, name):
        if name in self._REACHED:
            return getattr(self.inner, name)
        raise AttributeError(name)

    def elaborate(self, platform):
        m = Module()
        m.submodules.inner = inner = self.inner
        m.submodules.divider = divider = SharedDivider(DIVIDER_SLOTS)
        wiring.connect(m, inner.div, divider.client[0])
        for name, member in self.signature.members.items():
            outer, inside = getattr(self, name), getattr(inner, name)
            if not member.is_port:
                wiring.connect(m, wiring.flipped(outer), inside)
            elif member.flow == wiring.In:
                m.d.comb += inside.eq(outer)
            else:
                m.d.comb += outer.eq(inside)
        return m


def standalone(component):
    """``component`` (a Core or ShaderCore) as it can run on its own: with its divider when it
    shares one."""
    return WithDivider(component) if "div" in component.signature.members else component


def core_under_test(rom, config, *, tmem_words, omem_words):
    """A Core of ``config`` (a ``hdl.config.CoreConfig``) that runs on its own."""
    return standalone(Core(rom, config, tmem_words=tmem_words, omem_words=omem_words))


def run_program_rtl(program, config=None, max_instructions=10_000_000, tmem=None, vcd=None,
                    max_cycles=None):
    """Run an assembled user ``program`` from its first instruction on the RTL core of
    ``config`` (a ``hdl.config.CoreConfig``, default the ``default`` preset's)."""
    from firmware.rom import default_rom
    from hdl.config import preset
    from sim.model import DEFAULT_LIMITS
    # the same memories as sim.exec's model run: a zero texture of the default size
    tmem = list(tmem) if tmem else [0] * DEFAULT_LIMITS["tmem_words"]
    core = core_under_test(default_rom(), config or preset("default").core,
                           tmem_words=len(tmem), omem_words=4096)
    memories = MemoryModel(tmem)
    result = {}
    max_cycles = max_cycles or 40 * max_instructions + 1000

    async def testbench(ctx):
        for i, word in enumerate(program.words):
            ctx.set(core.imem_we, 1)
            ctx.set(core.imem_addr, i)
            ctx.set(core.imem_data, word)
            await ctx.tick()
        ctx.set(core.imem_we, 0)
        ctx.set(core.start, 1)
        ctx.set(core.start_direct, 1)
        ctx.set(core.start_pc, USER_CODE_START)
        await ctx.tick()
        ctx.set(core.start, 0)
        error = None
        for _ in range(max_cycles):
            if ctx.get(core.done):
                await ctx.tick()
                break
            if ctx.get(core.error):
                error = core_error_message(ctx.get(core.error_code), ctx.get(core.error_pc))
                break
            if ctx.get(core.counters.retired) >= max_instructions:
                error = f"program did not RETURN within {max_instructions} instructions"
                break
            await ctx.tick()
        else:
            error = f"program did not RETURN within {max_cycles} cycles"
        counters = await settled_counters(ctx, core)
        await wait_settled(ctx, core)
        regs = read_registers(ctx, core)
        result.update({
            "regs": {str(a): list(v) for a, v in regs.items()},
            "instructions": counters.retired,
            "cycles": counters.cycles,
            "error": error,
        })

    simulate(core, testbench, memories, vcd=vcd)
    return result


# --- small testbench helpers (tests/hdl/core/, bench/) --------------------------------------

def poke_register(ctx, core, addr, value, swap_copy=None):
    """Backdoor: register ``addr`` = (x, y, z) in both read-port copies of the register memory,
    without a cycle. Swap rows go to ``swap_copy`` (default: the copy EXE sees now). Only while
    the core is idle; output registers (no storage) are ignored."""
    if addr >= BANK_OUTPUT.first:
        return
    if swap_copy is None:
        swap_copy = ctx.get(core.swap_sel)
    x, y, z = (v & 0xFFFF_FFFF for v in value)
    memories, row = core.regfile.storage(addr, swap_copy)
    for memory in memories:
        ctx.set(memory.data[row], x << 64 | y << 32 | z)


def poke_code(ctx, core, words, first=0):
    """Backdoor: user instruction RAM words ``first``.. = ``words`` (word 0 = address 0x8000)."""
    for i, word in enumerate(words, first):
        ctx.set(core.ram.data[i], word)


async def load_code(ctx, core, words, first=0):
    """Write user instruction RAM through the core's ``imem_*`` port, one word per cycle."""
    for i, word in enumerate(words, first):
        ctx.set(core.imem_we, 1)
        ctx.set(core.imem_addr, i)
        ctx.set(core.imem_data, word)
        await ctx.tick()
    ctx.set(core.imem_we, 0)


async def io_write(ctx, core, addr, value):
    """The IO side writes config row / swap row ``addr`` (0-63): waits for ``io_ready``, then
    until the row has landed (``io_idle``). Returns the cycles it took."""
    x, y, z = (v & 0xFFFF_FFFF for v in value)
    ctx.set(core.io_valid, 1)
    ctx.set(core.io_addr, addr)
    ctx.set(core.io_data.as_value(), x << 64 | y << 32 | z)
    ticks = 1
    while not ctx.get(core.io_ready):
        await ctx.tick()
        ticks += 1
    await ctx.tick()
    ctx.set(core.io_valid, 0)
    while not ctx.get(core.io_idle):
        await ctx.tick()
        ticks += 1
    return ticks


async def flip_swap(ctx, core):
    """Pulse ``flip`` for one cycle (the core ignores it while busy)."""
    ctx.set(core.flip, 1)
    await ctx.tick()
    ctx.set(core.flip, 0)


@dataclass
class RoutineRun:
    """What one ``run_routine`` saw; counters are the increase during the routine."""
    done: bool
    result: int | None
    error_code: int
    error_pc: int | None
    counters: dict

    @property
    def error(self):
        if self.error_code:
            return core_error_message(self.error_code, self.error_pc)
        return None if self.done else "no RETURN within the cycle limit"

    @property
    def cycles(self):
        return self.counters["cycles"]

    @property
    def retired(self):
        return self.counters["retired"]


def _by_name(counters):
    return {name: getattr(counters, name) for name, _ in Counters.as_shape()}


async def settled_counters(ctx, core):
    """``core.counters`` with this cycle's events in: the core counts them a cycle late
    (hdl/core/core.py), so after one more tick."""
    await ctx.tick()
    return ctx.get(core.counters)


async def wait_settled(ctx, core):
    """Wait until the core is idle with no write in flight (registers can then be read)."""
    for _ in range(core.max_latency + 2):
        if ctx.get(core.settled):
            return
        await ctx.tick()
    raise AssertionError("the core did not settle after its routine ended")


async def run_routine(ctx, core, *, entry=None, pc=None, max_cycles=100_000):
    """Start a routine by entry-table index ``entry`` or at code address ``pc``; wait until it
    RETURNs or stops with an error (then let the ALU's writes in flight land, so that the
    registers can be read); return a ``RoutineRun``."""
    assert (entry is None) != (pc is None), "give entry or pc"
    before = _by_name(ctx.get(core.counters))
    ctx.set(core.start, 1)
    ctx.set(core.start_direct, pc is not None)
    ctx.set(core.start_entry, entry or 0)
    ctx.set(core.start_pc, pc or 0)
    await ctx.tick()
    ctx.set(core.start, 0)
    done, result, error_code, error_pc = False, None, 0, None
    for _ in range(max_cycles):
        if ctx.get(core.done):
            done, result = True, ctx.get(core.result)
            await ctx.tick()
            break
        if ctx.get(core.error):
            error_code, error_pc = ctx.get(core.error_code), ctx.get(core.error_pc)
            break
        await ctx.tick()
    after = _by_name(await settled_counters(ctx, core))
    await wait_settled(ctx, core)
    return RoutineRun(done, result, error_code, error_pc,
                      {k: (after[k] - before[k]) & 0xFFFF_FFFF for k in after})


def simulate(core, testbench, memories=None, vcd=None, serve=None, top=None):
    """Run ``async testbench(ctx)`` against ``core`` with ``memories`` (a MemoryModel) served by
    ``serve(ctx, core, memories)`` (default ``serve_memories``); return the memories. ``top``:
    the design to simulate when ``core`` is part of a larger one (default ``core``)."""
    memories = memories if memories is not None else MemoryModel()
    serve = serve or serve_memories
    sim = Simulator(top if top is not None else core)
    sim.add_clock(1e-8)
    sim.add_testbench(testbench)

    async def memory_process(ctx):
        await serve(ctx, core, memories)

    sim.add_process(memory_process)
    if vcd:
        with sim.write_vcd(vcd):
            sim.run()
    else:
        sim.run()
    return memories
