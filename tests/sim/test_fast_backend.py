"""The fast simulation backend (sim/fast/): compiled models agree with Amaranth's simulator.

* random programs (sim/random_program.py) on ``hdl.core.Core``, one model for the batch: the
  output memory, RETURN value and all seven performance counters must be identical to the
  pysim run of the same sequence, i.e. cycle-exact (texture reads and output writes are served
  inside the C++ loop with the same timing as ``sim.core_pysim.serve_memories``);
* the host-bus helpers (write, pipelined read with wait states, polling) on a small
  memory-mapped test component, on both backends;
* once hdl/gpu/gpu.py exists: a tiny frame on the GPU through its host bus equals the model's.

Builds are cached (~/.cache/theia-gpu or $THEIA_CACHE): the first run builds the Core model
with Verilator (about a minute), later runs find it by its design key without elaborating it
(checked here too). Skipped when Verilator, g++ or Yosys are
missing.
"""

import importlib.util

import numpy as np
import pytest
from amaranth import Module, Signal, Mux
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out
from amaranth.sim import Simulator

from firmware.asm import assemble
from firmware.rom import default_rom
from hdl.config import preset
from hdl.core.core import Core
from hdl.isa import USER_CODE_START
from sim.core_pysim import MemoryModel, load_code, serve_memories
from sim.random_program import random_program
from sim.fast import check_tools, Design, FastSim

TMEM_WORDS = 64
OMEM_WORDS = 64
SEEDS = range(6)
COUNTERS = ("cycles", "retired", "stall_operand", "stall_writeback", "stall_memory", "bubbles",
            "drain")


def need(backend):
    problem = check_tools(backend)
    if problem:
        pytest.skip(f"{backend} backend unavailable: {problem}")


CORE = preset("full").core


def make_core():
    return Core(default_rom(), CORE, tmem_words=TMEM_WORDS, omem_words=OMEM_WORDS)


def core_design():
    """The same Core as a Design: its cached build is found without elaboration. (The tests
    that build it are in one xdist group: one worker builds it, the others do not wait.)"""
    return Design(Core, default_rom(), CORE, tmem_words=TMEM_WORDS, omem_words=OMEM_WORDS)


def texture():
    rng = np.random.default_rng(7)
    return [int(w) for w in rng.integers(0, 1 << 32, TMEM_WORDS, dtype=np.uint64)]


def programs():
    return [assemble(random_program(seed, tmem_words=TMEM_WORDS, omem_words=OMEM_WORDS,
                                    memory_heavy=seed % 2 == 1), f"<seed {seed}>").words
            for seed in SEEDS]


MAX_CYCLES = 200_000


def run_pysim(program_list):
    """Every program in turn on one pysim Core: [(omem, result, error, counters)]."""
    core = make_core()
    memories = MemoryModel(texture(), OMEM_WORDS)
    results = []

    async def testbench(ctx):
        for words in program_list:
            await load_code(ctx, core, words)
            ctx.set(core.start, 1)
            ctx.set(core.start_direct, 1)
            ctx.set(core.start_pc, USER_CODE_START)
            await ctx.tick()
            ctx.set(core.start, 0)
            for _ in range(MAX_CYCLES):
                if ctx.get(core.done) or ctx.get(core.error):
                    break
                await ctx.tick()
            result = ctx.get(core.result) if ctx.get(core.done) else None
            error = ctx.get(core.error_code) if ctx.get(core.error) else 0
            await ctx.tick()
            counters = {n: ctx.get(getattr(core.counters, n)) for n in COUNTERS}
            results.append((list(memories.omem), result, error, counters))

    sim = Simulator(core)
    sim.add_clock(1e-8)
    sim.add_testbench(testbench)

    async def memory_process(ctx):
        await serve_memories(ctx, core, memories)

    sim.add_process(memory_process)
    sim.run()
    return results


def run_fast(program_list, backend="verilator"):
    sim = FastSim(core_design(), backend=backend)
    sim.serve_reads("tm_req", "tm_resp", texture())
    omem = sim.serve_writes("om_req", np.zeros(OMEM_WORDS, dtype=np.uint32))
    results = []
    for words in program_list:
        sim.start_program(words)
        sim.run_until(["done", "error"], MAX_CYCLES)
        result = sim.get("result") if sim.get("done") else None
        error = sim.get("error_code") if sim.get("error") else 0
        sim.step()
        fields = sim.get_fields("counters")
        counters = {n: int(getattr(fields, n)) for n in COUNTERS}
        results.append(([int(w) for w in omem], result, error, counters))
    return results


@pytest.mark.xdist_group("fast-core")
def test_random_programs_match_pysim_cycle_exact():
    need("verilator")
    program_list = programs()
    fast = run_fast(program_list)
    slow = run_pysim(program_list)
    for seed, (f, s) in zip(SEEDS, zip(fast, slow)):
        assert f[3] == s[3], f"seed {seed}: counters differ"
        assert f[1:3] == s[1:3], f"seed {seed}: result/error differ"
        assert f[0] == s[0], f"seed {seed}: output memory differs"
    assert any(any(r[0]) for r in fast), "no program wrote output memory"
    assert all(r[1] is not None for r in fast), "a program did not RETURN"


@pytest.mark.xdist_group("fast-core")
def test_long_loop_counts_cycles():
    """A 2000-iteration loop: the retired-instruction counter matches the program's shape."""
    need("verilator")
    program = assemble("""
        SETX R1 0
        SETX R3 1
        SETX R2 2000
    LOOP:
        ADD R5 R4 R4
        ADD R1 R1 R3
        JLX LOOP R1 R2
        RETURN RT_TRUE
    """, "<loop>")
    sim = FastSim(core_design())
    sim.start_program(program.words)
    cycles = sim.run_until(["done", "error"], 1_000_000)
    assert sim.get("done") == 1 and sim.get("error") == 0
    sim.step()                                   # the edge that retires RETURN
    sim.step()                                   # (the counters run a cycle behind)
    counters = sim.get_fields("counters")
    assert counters.retired == 3 + 3 * 2000 + 1
    assert counters.cycles == cycles + 1 >= counters.retired


@pytest.mark.xdist_group("fast-core")
def test_cached_design_is_not_elaborated(monkeypatch):
    """A second FastSim of the same Design finds the build by its key alone: neither the
    constructor nor elaboration runs, and the ports (with struct layouts) come from build.json."""
    need("verilator")
    first = FastSim(core_design())
    assert first.build_info.cached or first.build_info.build_s > 0

    def refuse(self):
        raise AssertionError("a cache hit must not construct/elaborate the design")

    monkeypatch.setattr(Design, "make", refuse)
    sim = FastSim(core_design())
    assert sim.build_info.cached
    assert sim.build_info.library == first.build_info.library
    assert [(p.name, p.width, p.direction) for p in sim.build_info.ports] == \
        [(p.name, p.width, p.direction) for p in first.build_info.ports]
    sim.step(3)
    assert int(sim.get_fields("counters").cycles) >= 0        # the Counters layout survived


def test_design_key_inputs():
    """The key covers the constructor's arguments and the sources it imports; a value with
    no canonical text (a lambda) gives no key (the build is then keyed by its Verilog)."""
    from sim.fast.build import design_key, _source_closure
    need("verilator")
    base = design_key(core_design())
    assert base == design_key(core_design())
    assert base != design_key(Design(Core, default_rom(), CORE, tmem_words=TMEM_WORDS * 2,
                                     omem_words=OMEM_WORDS))
    assert base != design_key(Design(Core, default_rom(), preset("ulx3s").core,
                                     tmem_words=TMEM_WORDS, omem_words=OMEM_WORDS))
    rom = default_rom()
    rom[-1] ^= 1
    assert base != design_key(Design(Core, rom, CORE, tmem_words=TMEM_WORDS,
                                     omem_words=OMEM_WORDS))
    assert design_key(Design(Core, lambda: 0)) is None
    sources = _source_closure("hdl.core.core")
    assert {"hdl/core/core.py", "hdl/isa/theia.py", "hdl/isa/r500.py", "hdl/__init__.py"} <= set(sources)
    assert not any(path.startswith("tests/") for path in sources)


# --- the host-bus helpers on a small test component -------------------------------------------

class BusRam(wiring.Component):
    """A host bus (docs/host-interface.md) over 64 words of RAM. Requests are accepted only in
    cycles where a free-running counter is even (wait states); read data comes back three
    cycles after acceptance. Writing address 100 starts a countdown of the written value;
    address 101 reads 1 when it has run out."""

    def __init__(self):
        super().__init__({"valid": In(1), "write": In(1), "addr": In(32), "wdata": In(32),
                          "ready": Out(1), "rvalid": Out(1), "rdata": Out(32)})

    def elaborate(self, platform):
        m = Module()
        m.submodules.mem = mem = Memory(shape=32, depth=64, init=[])
        wp = mem.write_port()
        rp = mem.read_port()
        phase = Signal()
        countdown = Signal(32)
        m.d.sync += phase.eq(~phase)
        with m.If(countdown != 0):
            m.d.sync += countdown.eq(countdown - 1)
        m.d.comb += self.ready.eq(~phase)
        take = self.valid & self.ready
        m.d.comb += [wp.addr.eq(self.addr), wp.data.eq(self.wdata),
                     wp.en.eq(take & self.write & (self.addr < 64)), rp.addr.eq(self.addr)]
        with m.If(take & self.write & (self.addr == 100)):
            m.d.sync += countdown.eq(self.wdata)
        # read pipeline: accepted (1) -> memory data (2) -> out (3)
        s1, s1_status, s2, s2_data = Signal(), Signal(), Signal(), Signal(32)
        m.d.sync += [s1.eq(take & ~self.write), s1_status.eq(self.addr == 101), s2.eq(s1),
                     s2_data.eq(Mux(s1_status, countdown == 0, rp.data)),
                     self.rvalid.eq(s2), self.rdata.eq(s2_data)]
        return m


@pytest.mark.parametrize("backend", ["verilator", "cxxrtl"])
def test_host_bus_helpers(backend):
    need(backend)
    sim = FastSim(BusRam, backend=backend)
    assert sim.attach_bus() == ""                            # the bare valid, write, ...
    words = np.arange(1000, 1064, dtype=np.uint32) * 7
    cycles = sim.bus_write(0, words)
    assert 64 <= cycles <= 2 * 64 + 2                       # wait states every other cycle
    assert list(sim.bus_read(0, 64)) == list(words)
    assert list(sim.bus_read(10, 3)) == list(words[10:13])
    sim.bus_write_scatter([5, 6], [11, 12])
    assert list(sim.bus_read(4, 4)) == [words[4], 11, 12, words[7]]
    sim.bus_write(100, [500])
    cycles, last = sim.bus_poll(101, 1, 100)
    assert cycles >= 100 and last == 0                       # not yet
    cycles, last = sim.bus_poll(101, 1, 10_000)
    assert last == 1 and cycles < 500


def _close_and_exit(sim):
    sim.close()


def test_a_forked_process_leaves_the_simulator_to_its_owner():
    """A process forked while a model is open (the model renderer's worker pool) has a copy of
    its handle but not its threads: closing it there must neither wait forever nor touch the
    owner's simulator."""
    import multiprocessing
    need("verilator")
    sim = FastSim(BusRam)
    sim.attach_bus()
    sim.bus_write(0, np.array([7, 8], dtype=np.uint32))
    child = multiprocessing.get_context("fork").Process(target=_close_and_exit, args=(sim,))
    child.start()
    child.join(timeout=60)
    if child.exitcode is None:
        child.kill()
    assert child.exitcode == 0
    assert list(sim.bus_read(0, 2)) == [7, 8]
    sim.close()


# --- the GPU top, once it exists ----------------------------------------------------------------

@pytest.mark.skipif(importlib.util.find_spec("hdl.gpu.gpu") is None, reason="hdl/gpu/gpu.py not written yet")
def test_tiny_frame_matches_model():
    need("verilator")
    from sim.demo_scene import demo_scene
    from sim.fast.gpu import render_gpu_fast
    from sim.bins import frame_bins
    from sim.sequencer import render_model
    scene = demo_scene(size=8, bands=2, texture_size=16)
    expected, bands, _ = render_model(scene, default_rom(), cores=1, jobs=1,
                                      bins=frame_bins(scene))
    omem, stats = render_gpu_fast(scene, default_rom(), preset("default"))
    assert omem == expected
    assert stats["pixels"] == scene.width * scene.height
    assert stats["binning"] and stats["tests"] == sum(b.tests for b in bands)
    assert stats["instructions"] == sum(b.instructions for b in bands)
    assert stats["cycles"] > stats["instructions"]


def test_cache_keeps_the_most_recently_used_builds(tmp_path, monkeypatch):
    """prune_cache: the ``keep`` builds used last stay, older ones, their stale design entries
    and surplus Verilog files go; unrelated files are left alone."""
    import json
    import os

    from sim.fast.build import prune_cache
    monkeypatch.setenv("THEIA_CACHE", str(tmp_path))
    (tmp_path / "designs").mkdir()
    (tmp_path / "verilog").mkdir()
    for age in range(5):                      # build 0 was used last
        build = tmp_path / f"verilator-{age:020d}"
        build.mkdir()
        (build / "build.json").write_text("{}")
        os.utime(build / "build.json", (1e9 - age * 100, 1e9 - age * 100))
        (tmp_path / "designs" / f"verilator-d{age}.json").write_text(
            json.dumps({"build": build.name}))
    for n in range(10):
        (tmp_path / "verilog" / f"{n}.v").write_text("")
    (tmp_path / "verilator-xyz.12345").mkdir()     # a build in progress: not a cache entry
    (tmp_path / "notes.txt").write_text("mine")
    deleted = prune_cache(keep=2)
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == ["designs", "notes.txt", "verilator-00000000000000000000",
                    "verilator-00000000000000000001", "verilator-xyz.12345", "verilog"]
    assert sorted(p.name for p in (tmp_path / "designs").iterdir()) == \
        ["verilator-d0.json", "verilator-d1.json"]
    assert len(list((tmp_path / "verilog").iterdir())) == 8
    assert len(deleted) == 3 + 2 + 3
    assert prune_cache(keep=2) == []


def test_two_processes_building_one_design_at_once(tmp_path, monkeypatch):
    """Two processes build the same design into an empty cache at the same time (as parallel
    test workers may): each exports and builds in files of its own and renames them into place;
    both get the one build that stays, and nothing half-written or left over remains. (The
    Verilator step is a stand-in that waits until both processes are in it.)"""
    import json
    import multiprocessing
    import os

    from sim.fast import build as fast_build
    need("verilator")
    monkeypatch.setenv("THEIA_CACHE", str(tmp_path))
    context = multiprocessing.get_context("fork")
    both_building = context.Barrier(2)

    def stand_in_verilator(work, ports, jobs, log):
        both_building.wait(timeout=120)
        library = work / "obj" / "libtheia.so"
        library.parent.mkdir()
        library.write_text(str(os.getpid()))
        return library

    monkeypatch.setattr(fast_build, "_build_verilator", stand_in_verilator)
    results = context.Queue()

    def build_in_a_process():
        made = fast_build.build(Design(BusRam), log=lambda message: None)
        results.put((str(made.library), made.cached))

    processes = [context.Process(target=build_in_a_process) for _ in range(2)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=300)
    assert [process.exitcode for process in processes] == [0, 0]
    (first, first_cached), (second, second_cached) = results.get(), results.get()
    assert first == second and not first_cached and not second_cached
    library = tmp_path.joinpath(first)
    assert library.read_text() in {str(process.pid) for process in processes}
    builds = [p.name for p in tmp_path.iterdir() if p.name.startswith("verilator")]
    assert builds == [library.relative_to(tmp_path).parts[0]]     # no build directory left over
    [entry] = (tmp_path / "designs").iterdir()
    assert json.loads(entry.read_text()) == {"build": builds[0]}
    assert [p.suffix for p in (tmp_path / "verilog").iterdir()] == [".v"]
    # a third build finds it by the design's key
    assert fast_build.build(Design(BusRam), log=lambda message: None).cached
