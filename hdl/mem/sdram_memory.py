"""The SDRAM as a board top uses it: request ports in, the chip's pins out.

``SdramMemory(chip, clock_hz, pins, ports=4)`` is the arbiter (hdl/mem/sdram_arbiter.py), the
controller (hdl/mem/sdram_controller.py) and the PHY (hdl/mem/sdram_phy.py). ``pins``: the
board's ``sdram`` resource (``platform.request("sdram", dir="-")``) or
``simulation_pins(chip)``. ``clock_domain``: the domain of the chip's clock, the GPU clock
shifted by ``plan.phase_deg`` (``plan`` defaults to ``plan_sdram_clock(chip, clock_hz)``;
``hdl.mem.sdram_clock.ecp5_phase_settings`` gives the PLL's parameters for it); None in
simulation.

What a board top adds: a PLL output at the GPU clock's frequency with that phase, as a clock
domain (e.g. "sdram") whose name it passes here, and the GPU clock's frequency as ``clock_hz``
(the power-up wait, the refresh interval and every gap are counted from it).
"""

from amaranth import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hdl.mem.sdram_arbiter import SdramArbiter, PORT_ORDER
from hdl.mem.sdram_bus import SdramBus
from hdl.mem.sdram_clock import plan_sdram_clock
from hdl.mem.sdram_controller import SdramController
from hdl.mem.sdram_phy import SdramPhy

__all__ = ["SdramMemory"]


class SdramMemory(wiring.Component):
    """Ports: ``ports[k]`` (In(SdramBus), 0 the highest priority), ``initialised``,
    ``grant_valid``/``grant_port`` (the arbiter's)."""

    def __init__(self, chip, clock_hz, pins, *, ports=len(PORT_ORDER), max_words=16,
                 plan=None, clock_domain=None, patience=8):
        self.plan = plan or plan_sdram_clock(chip, clock_hz)
        self.arbiter = SdramArbiter(chip, max_words, ports, patience=patience)
        self.controller = SdramController(chip, clock_hz, plan=self.plan, max_words=max_words)
        self.phy = SdramPhy(chip, pins, clock_domain)
        super().__init__({
            "ports": In(SdramBus(chip, max_words)).array(ports),
            "initialised": Out(1),
            "grant_valid": Out(1),
            "grant_port": Out(range(max(ports, 2))),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.arbiter = arbiter = self.arbiter
        m.submodules.controller = controller = self.controller
        m.submodules.phy = phy = self.phy
        for port, inner in zip(self.ports, arbiter.ports):
            wiring.connect(m, wiring.flipped(port), inner)
        wiring.connect(m, arbiter.memory, controller.bus)
        wiring.connect(m, controller.pads, phy.pads)
        m.d.comb += [self.initialised.eq(controller.initialised),
                     self.grant_valid.eq(arbiter.grant_valid),
                     self.grant_port.eq(arbiter.grant_port)]
        return m
