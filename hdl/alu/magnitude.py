"""The vector ALU's MAGNITUDE class after the products: MAG's square root.

The squares come from the lane multipliers and their sum from the PRODUCT_SUM stage
(hdl/alu/products.py), then the square root: pipelined (hdl/alu/sqrt.py), or one root bit per
cycle (``serial_sqrt``: hdl/alu/serial_sqrt.py, the same latency, a sixth of the logic), in
which case a MAG holds ``mag_ready`` low for the 30 cycles after it (the issuer must not send a
MAG while it is low).
"""

from amaranth import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hdl.alu.serial_sqrt import SerialSquareRoot
from hdl.alu.sqrt import S_WIDTH, SquareRoot, sqrt_latency

__all__ = ["RootUnit"]


class RootUnit(wiring.Component):
    """Ports: ``i_issue`` (a MAG issues now), ``i_valid``/``i_s``/``i_tag`` (its radicand,
    from the product stage); ``o_valid``, ``o_root``, ``o_tag``; ``mag_ready``; ``collision``
    (sticky: a radicand arrived while the serial root was busy)."""

    def __init__(self, serial, tag_width=0, bits_per_stage=1):
        self.serial = serial
        self.tag_width = tag_width
        self.bits_per_stage = bits_per_stage
        self.latency = SerialSquareRoot.LATENCY if serial else sqrt_latency(bits_per_stage)
        super().__init__({
            "i_issue": In(1), "i_valid": In(1), "i_s": In(S_WIDTH), "i_tag": In(tag_width),
            "o_valid": Out(1), "o_root": Out(32), "o_tag": Out(tag_width),
            "mag_ready": Out(1), "collision": Out(1),
        })

    def busy_cycles(self):
        """Cycles a MAG keeps the next MAG out (reference of ``mag_ready``)."""
        return SerialSquareRoot.BUSY_CYCLES + 1 if self.serial else 1

    def elaborate(self, platform):
        m = Module()
        if self.serial:
            root = SerialSquareRoot(tag_width=self.tag_width)
            # a MAG's radicand reaches the square root a fixed number of cycles after the MAG
            # issues, so the next MAG may issue busy_cycles() after it: counted at issue
            # (``mag_ready`` is a flip-flop: it feeds the core's issue decision)
            mag_wait = Signal(range(SerialSquareRoot.BUSY_CYCLES + 1))
            mag_ready = Signal(init=1)
            with m.If(self.i_issue):
                m.d.sync += [mag_wait.eq(SerialSquareRoot.BUSY_CYCLES), mag_ready.eq(0)]
            with m.Elif(mag_wait != 0):
                m.d.sync += [mag_wait.eq(mag_wait - 1), mag_ready.eq(mag_wait == 1)]
            m.d.comb += self.mag_ready.eq(mag_ready)
            with m.If(root.overrun):
                m.d.sync += self.collision.eq(1)
        else:
            root = SquareRoot(tag_width=self.tag_width, bits_per_stage=self.bits_per_stage)
            m.d.comb += self.mag_ready.eq(1)
        m.submodules.sqrt = root
        m.d.comb += [root.i_valid.eq(self.i_valid), root.i_s.eq(self.i_s),
                     root.i_tag.eq(self.i_tag),
                     self.o_valid.eq(root.o_valid), self.o_root.eq(root.o_root),
                     self.o_tag.eq(root.o_tag)]
        return m
