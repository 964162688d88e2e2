"""The GPU with its memories in SDRAM and its display (``GpuConfig.memory``): what a board top
holds besides its clocks, pins and host link, and what the simulators run of it.

    host bus --> Gpu --sdram[0..3]--> SdramMemory (arbiter, controller, PHY) --> SDRAM pins
                     --display------> DisplayUnit (pixel, tmds domains) --> TMDS bit pairs

``GpuSystem(rom, config, pins)``: ``pins`` is the board's ``sdram`` resource or
``hdl.mem.sdram_phy.simulation_pins`` (then ``sdram_domain`` is None: no chip clock pin);
``plan`` the SDRAM clock's (by default ``sdram_plan(config.memory)``). ``serialise``: the whole ``DisplayUnit`` (its ``tmds`` domain,
the bit pairs on ``data``/``clock``, as the board's GPDI pins take them), or only the display's
``DisplayPipeline`` (``symbols``/``symbols_valid`` in the ``pixel`` domain): for simulations
that need the display's memory traffic but not its serial bits, at a third of the clock edges.
The domains ``pixel`` and ``tmds`` are the caller's (the board's PLL; a simulator's clocks).
"""

from amaranth import Module
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from hdl.display.formats import TmdsSymbols
from hdl.display.pipeline import DisplayPipeline
from hdl.display.unit import DisplayUnit
from hdl.gpu.gpu import Gpu
from hdl.gpu.host_bus import HostBus
from hdl.mem.sdram_arbiter import PORT_ORDER
from hdl.mem.sdram_clock import plan_sdram_clock
from hdl.mem.sdram_memory import SdramMemory

__all__ = ["GpuSystem", "sdram_plan"]


def sdram_plan(memory):
    """The SDRAM clock's phase and read capture (``SdramClockPlan``) for a ``MemoryConfig``:
    at its clock, among the phases its board's PLL makes."""
    return plan_sdram_clock(memory.chip, memory.clock_hz, phase_step_deg=memory.phase_step_deg)


class GpuSystem(wiring.Component):
    """Ports: ``host`` (the GPU's host bus), ``busy``/``done``/``error`` (STATUS, for LEDs),
    ``initialised`` (the SDRAM is ready), ``underrun`` (the display showed a pixel before it
    came: sticky), the memory system's statistics ``cache_fills``, ``line_writes``; with
    ``serialise`` ``data``/``clock`` (``tmds`` domain) and ``underflow``, else ``symbols``/
    ``symbols_valid`` (``pixel`` domain)."""

    def __init__(self, rom, config, pins, *, plan=None, sdram_domain=None, serialise=True):
        if config.memory is None:
            raise ValueError("a GpuSystem is a GPU with its memories in SDRAM "
                             "(GpuConfig.memory)")
        memory = config.memory
        self.config = config
        self.serialise = serialise
        self.gpu = Gpu(rom, config)
        self.sdram = SdramMemory(memory.chip, memory.clock_hz, pins, ports=len(PORT_ORDER),
                                 plan=plan or sdram_plan(memory), clock_domain=sdram_domain)
        self.display = (DisplayUnit(memory.mode) if serialise
                        else DisplayPipeline(memory.mode))
        display = ({"data": Out(data.ArrayLayout(3, 2)), "clock": Out(data.ArrayLayout(1, 2)),
                    "underflow": Out(1)} if serialise
                   else {"symbols": Out(TmdsSymbols), "symbols_valid": Out(1)})
        super().__init__({
            "host": In(HostBus()),
            "busy": Out(1), "done": Out(1), "error": Out(1), "initialised": Out(1),
            "underrun": Out(1), "cache_fills": Out(32), "line_writes": Out(32),
            **display,
        })

    def elaborate(self, platform):
        m = Module()
        gpu, sdram, display = self.gpu, self.sdram, self.display
        m.submodules.gpu = gpu
        m.submodules.sdram = sdram
        m.submodules.display = display
        wiring.connect(m, wiring.flipped(self.host), gpu.host)
        for k in range(len(PORT_ORDER)):
            wiring.connect(m, gpu.sdram[k], sdram.ports[k])
        link = gpu.display
        wiring.connect(m, link.config, display.config)
        wiring.connect(m, display.line_req, link.line_req)
        wiring.connect(m, link.pixels, display.pixels)
        m.d.comb += [link.vblank.eq(display.vblank), link.underrun.eq(display.underrun),
                     self.underrun.eq(display.underrun),
                     self.busy.eq(gpu.busy), self.done.eq(gpu.done), self.error.eq(gpu.error),
                     self.initialised.eq(sdram.initialised),
                     self.cache_fills.eq(gpu.cache_fills), self.line_writes.eq(gpu.line_writes)]
        if self.serialise:
            m.d.comb += [self.data.eq(display.data), self.clock.eq(display.clock),
                         self.underflow.eq(display.underflow)]
        else:
            m.d.comb += [self.symbols.eq(display.symbols),
                         self.symbols_valid.eq(display.symbols_valid)]
        return m
