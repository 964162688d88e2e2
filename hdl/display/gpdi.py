"""The ULX3S's GPDI (HDMI connector) pins: the display unit's bit pairs through the ECP5's
DDR output registers.

amaranth-boards' ULX3S resource ``hdmi`` 0: ``d`` (three pairs: d[0] blue/channel 0, d[1]
green, d[2] red) and ``clk``, ``LVCMOS33D``: the ECP5 drives the pair's complement itself
(pseudo-differential, the only differential output of its top bank). ``io.DDRBuffer`` makes an
ODDRX1F per pin, clocked by the ``tmds`` domain: ``o[0]`` goes out in the clock's first half,
``o[1]`` in its second.

    m.submodules.gpdi = GpdiOutput(platform.request("hdmi", 0, dir="-"))
    m.d.comb += [gpdi.data.eq(display.data), gpdi.clock.eq(display.clock)]
"""

from amaranth import Module
from amaranth.lib import data, io, wiring
from amaranth.lib.wiring import In

__all__ = ["GpdiOutput"]


class GpdiOutput(wiring.Component):
    """``resource``: the requested ``hdmi`` resource (``dir="-"``)."""

    data: In(data.ArrayLayout(3, 2))
    clock: In(data.ArrayLayout(1, 2))

    def __init__(self, resource, domain="tmds"):
        self.resource = resource
        self.domain = domain
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        m.submodules.lanes = lanes = io.DDRBuffer("o", self.resource.d, o_domain=self.domain)
        m.submodules.clock = clock = io.DDRBuffer("o", self.resource.clk, o_domain=self.domain)
        m.d.comb += [lanes.o.eq(self.data), clock.o.eq(self.clock)]
        return m
