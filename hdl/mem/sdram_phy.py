"""The SDRAM's I/O: every pin through a register of its I/O cell, and the chip's clock.

``SdramPhy(pins)`` connects the controller's ``SdramPads`` (hdl/mem/sdram_bus.py) to ``pins``,
an object with the attributes of amaranth-boards' ``sdram`` resource (``clk``, ``clk_en``,
``cs``, ``we``, ``ras``, ``cas``, ``ba``, ``a``, ``dq``, ``dqm``: what
``platform.request("sdram", dir="-")`` returns, or ``simulation_pins(chip)``). Each output goes
through an ``io.FFBuffer`` (on the ECP5 the output register of the pin's I/O cell: every pin
changes at the same moment after the clock edge, whatever the placer does in the fabric), and
DQ is caught by the input register of its cell. The controller counts both registers in its
read latency (hdl/mem/sdram_controller.py).

The chip's clock (``clk``) is driven from the clock domain ``clock_domain`` (the GPU clock
shifted by ``SdramClockPlan.phase_deg``, a PLL output the board top makes) through a DDR output
register (high in the first half period, low in the second): it leaves the FPGA by the same kind
of path as the signals it samples. With ``clock_domain=None`` (simulation) there is no clock
pin: the chip model samples the pins once per cycle.
"""

from types import SimpleNamespace

from amaranth import Module
from amaranth.lib import io, wiring
from amaranth.lib.wiring import In

from hdl.mem.sdram_bus import SdramPads

__all__ = ["SdramPhy", "simulation_pins", "INVERTED_PINS"]

#: the pins amaranth-boards declares active low (PinsN): their ports invert
INVERTED_PINS = ("cs", "we", "ras", "cas")
_OUTPUTS = ("clk_en", "cs", "we", "ras", "cas", "ba", "a", "dqm")


def simulation_pins(chip):
    """``io.SimulationPort``s shaped like the board's ``sdram`` resource (no ``clk``): their
    ``o``/``oe``/``i`` signals are the pin levels (``cs.o`` is CS#)."""
    widths = {"clk_en": 1, "cs": 1, "we": 1, "ras": 1, "cas": 1, "ba": max(1, chip.bank_bits),
              "a": chip.row_bits, "dqm": chip.data_width // 8}
    pins = {name: io.SimulationPort("o", width, invert=name in INVERTED_PINS, name=f"sdram_{name}")
            for name, width in widths.items()}
    pins["dq"] = io.SimulationPort("io", chip.data_width, name="sdram_dq")
    return SimpleNamespace(**pins)


class SdramPhy(wiring.Component):
    """``pads`` (In: the controller drives it) to the pins of ``pins``; the chip's clock from
    ``clock_domain`` when given."""

    def __init__(self, chip, pins, clock_domain=None):
        self.chip = chip
        self.pins = pins
        self.clock_domain = clock_domain
        super().__init__({"pads": In(SdramPads(chip))})

    def elaborate(self, platform):
        m = Module()
        pads = self.pads
        for name in _OUTPUTS:
            m.submodules[name] = buffer = io.FFBuffer("o", getattr(self.pins, name))
            m.d.comb += buffer.o.eq(getattr(pads, name))
        m.submodules.dq = dq = io.FFBuffer("io", self.pins.dq)
        m.d.comb += [dq.o.eq(pads.dq_o), dq.oe.eq(pads.dq_oe), pads.dq_i.eq(dq.i)]
        if self.clock_domain is not None:
            m.submodules.clk = clk = io.DDRBuffer("o", self.pins.clk, o_domain=self.clock_domain)
            m.d.comb += [clk.o[0].eq(1), clk.o[1].eq(0)]
        return m
