"""The GPU with its memories in SDRAM and its display (hdl/gpu/system.py ``GpuSystem``) as a
top for the simulators: the SDRAM's pins as ports for the chip model (sim/sdram/), the host
bus, and the display's output.

``SystemSimTop(rom, config, serialise=False)``: the display's ``DisplayPipeline`` in the
``pixel`` domain (``symbols``, ``symbols_valid``), or with ``serialise`` the whole
``DisplayUnit`` and its ``tmds`` domain (``data``, ``clock``: the bit pairs the board's GPDI
pins send). ``sim.fast.gpu.gpu_sim`` runs it with the chip model and the board's clocks.
"""

from amaranth import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hdl.gpu.host_bus import HostBus
from hdl.gpu.system import GpuSystem
from hdl.mem.sdram_phy import simulation_pins
from sim.sdram.top import PinLevels, connect_pin_levels

__all__ = ["SystemSimTop"]


class SystemSimTop(wiring.Component):
    def __init__(self, rom, config, serialise=False):
        self.config = config
        self.sim_pins = simulation_pins(config.memory.chip)
        self.system = GpuSystem(rom, config, self.sim_pins, serialise=serialise)
        members = dict(self.system.signature.members)
        members["pins"] = Out(PinLevels(config.memory.chip))
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        m.submodules.system = system = self.system
        for name, member in self.system.signature.members.items():
            if name == "host":
                wiring.connect(m, wiring.flipped(self.host), system.host)
            else:
                m.d.comb += getattr(self, name).eq(getattr(system, name))
        connect_pin_levels(m, self.pins, self.sim_pins)
        return m
