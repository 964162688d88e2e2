"""The SDRAM memory with its pins as ports: the top both simulator paths run.

``SdramSimTop(chip, clock_hz, ports)`` is ``SdramMemory`` (hdl/mem/sdram_memory.py: arbiter,
controller, PHY) on simulation pins, whose levels are the ports ``pins__cke`` ...
``pins__dq_oe`` (outputs, as on the board: ``cs_n`` low = selected) and ``pins__dq_i`` (the
chip model's DQ, input). The request ports are ``ports__<k>__cmd__valid`` etc.; ``grant_valid``
/ ``grant_port`` show the order in which the arbiter passes requests on (which a checker
replays against a dictionary of the memory). Build it for the fast backend as
``Design(SdramSimTop, chip, clock_hz, ports)``.
"""

from amaranth import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hdl.mem.sdram_bus import SdramBus
from hdl.mem.sdram_memory import SdramMemory
from hdl.mem.sdram_phy import simulation_pins
from sim.sdram.pins import PIN_NAMES, PinLayout

__all__ = ["SdramSimTop", "PinLevels", "connect_pin_levels"]


class PinLevels(wiring.Signature):
    """The chip's pins as levels (outputs of the FPGA, and the chip's DQ as ``dq_i``)."""

    def __init__(self, chip):
        widths = dict(zip(PIN_NAMES, PinLayout.of(chip).widths))
        members = {name: Out(width) for name, width in widths.items() if name != "dq"}
        members["dq_o"] = Out(widths["dq"])
        members["dq_i"] = In(widths["dq"])
        super().__init__(members)


class SdramSimTop(wiring.Component):
    def __init__(self, chip, clock_hz, ports=1, max_words=16, patience=8):
        self.chip = chip
        self.clock_hz = clock_hz
        self.n = ports
        self.memory = SdramMemory(chip, clock_hz, simulation_pins(chip), ports=ports,
                                  max_words=max_words, patience=patience)
        self.plan = self.memory.plan
        super().__init__({
            "ports": In(SdramBus(chip, max_words)).array(ports),
            "pins": Out(PinLevels(chip)),
            "initialised": Out(1),
            "grant_valid": Out(1),
            "grant_port": Out(range(max(ports, 2))),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.memory = memory = self.memory
        for port, inner in zip(self.ports, memory.ports):
            wiring.connect(m, wiring.flipped(port), inner)
        m.d.comb += [self.initialised.eq(memory.initialised),
                     self.grant_valid.eq(memory.grant_valid),
                     self.grant_port.eq(memory.grant_port)]
        connect_pin_levels(m, self.pins, memory.phy.pins)
        return m


def connect_pin_levels(m, pins, sim_pins):
    """Drive a ``PinLevels`` port ``pins`` from the ``simulation_pins`` an SdramMemory
    drives, and its DQ input from ``pins.dq_i``."""
    m.d.comb += [pins.cke.eq(sim_pins.clk_en.o), pins.cs_n.eq(sim_pins.cs.o),
                 pins.ras_n.eq(sim_pins.ras.o), pins.cas_n.eq(sim_pins.cas.o),
                 pins.we_n.eq(sim_pins.we.o), pins.ba.eq(sim_pins.ba.o),
                 pins.a.eq(sim_pins.a.o), pins.dqm.eq(sim_pins.dqm.o),
                 pins.dq_o.eq(sim_pins.dq.o), pins.dq_oe.eq(sim_pins.dq.oe),
                 sim_pins.dq.i.eq(pins.dq_i)]
