"""The vector ALU on its own, as the core drives it: for its tests and ``bench.alu_random``.

``AluUnderTest(config)`` is a VectorALU of ``config`` (a ``hdl.config.CoreConfig``) with the
opcode decode the core does a stage earlier (``simple_control``, ``op_class``) in front, so it
takes an opcode (``i_op``); with a divider shared by a pair of cores it has that divider too,
its other client idle (such an ALU takes no tag). Its other ports are the VectorALU's.
"""

from amaranth import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In

from hdl.alu.shared_divider import DIVIDER_SLOTS, SharedDivider
from hdl.alu.valu import VectorALU, op_class, simple_control
from hdl.config import DividerSharing

__all__ = ["AluUnderTest"]


class AluUnderTest(wiring.Component):
    def __init__(self, config, tag_width=0, **unit_params):
        if config.divider == DividerSharing.PAIR:
            tag_width = 0
        self.alu = VectorALU(config, tag_width=tag_width, **unit_params)
        self.tag_width = tag_width
        self.latency, self.latencies = self.alu.latency, self.alu.latencies
        self.max_latency = self.alu.max_latency
        self.mag_cycles, self.multiplier_cycles = self.alu.mag_cycles, self.alu.multiplier_cycles
        members = {name: member for name, member in self.alu.signature.members.items()
                   if name not in ("div", "i_simple", "i_class")}
        super().__init__({"i_op": In(7), **members})

    def elaborate(self, platform):
        m = Module()
        m.submodules.alu = alu = self.alu
        m.d.comb += [alu.i_simple.eq(simple_control(m, self.i_op, self.i_imm)),
                     alu.i_class.eq(op_class(self.i_op))]
        if "div" in alu.signature.members:
            m.submodules.divider = divider = SharedDivider(DIVIDER_SLOTS)
            wiring.connect(m, alu.div, divider.client[0])
        for name, member in self.signature.members.items():
            if name == "i_op":
                continue
            outer, inner = getattr(self, name), getattr(alu, name)
            m.d.comb += inner.eq(outer) if member.flow == wiring.In else outer.eq(inner)
        return m
