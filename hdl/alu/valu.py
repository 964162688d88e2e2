"""The THEIA vector ALU: every ALU-kind opcode of hdl.isa, bit exact to ``sim.semantics.alu_result``.

One operation may enter every cycle; nothing ever stalls. Each opcode belongs to a latency class
(hdl/alu/classes.py), a fixed-latency pipeline of one unit; the output is the merge of the
units' last stages. The issuer (the core) must not start an operation whose result would leave
in the same cycle as an earlier one's: it reserves writeback slots using
``VectorALU.latency(op)``. Should two results meet anyway, the sticky ``collision`` output goes
high (the tests check it stays low).

Units and their latencies (the configuration's, ``hdl.config.CoreConfig``):

* SIMPLE (hdl/alu/simple.py): ``simple_latency``, 1 or 2 - one adder per lane and a result
  select.
* MULTIPLY, PRODUCT_SUM (DOT), CROSS (hdl/alu/products.py): 3, 4, and 3 + ``cross_passes``;
  with two passes ``mul_ready`` is low in the cycle after a CROSS.
* DIVIDE (hdl/alu/divide.py): 26 with three lane dividers, 32 with one per pair of cores
  (``div_ready`` low outside this ALU's slots and while a DIV's other lanes take them).
* MAGNITUDE (hdl/alu/magnitude.py): the squares and their sum from the product unit, then the
  square root: 3 + 1 + 31 = 35; with the serial root ``mag_ready`` is low for 30 cycles after a
  MAG.

The issuer decodes each operation for the units a stage ahead (``i_simple``:
``simple_control(m, op, imm)``; ``i_class``: ``op_class(op)``), so that no opcode compare is in
front of the units' operand multiplexers. A non-ALU operation sent with ``i_valid`` goes down
the SIMPLE class and yields (0, 0, 0).

Ports: in ``i_valid``, ``i_simple``, ``i_class``, ``i_a``, ``i_b`` (VectorLayout), ``i_imm[32]``
(SETx value, SWIZZLE3D selector), ``i_pc[16]`` (LEA), ``i_tag[tag_width]``; out ``o_valid``,
``o_result`` (VectorLayout, the full vector: the lane write mask ``OPS[op].wmask`` is the core's
business), ``o_tag``, ``collision``, ``div_ready``, ``mag_ready``, ``mul_ready``; with a divider
shared by a pair of cores, ``div`` (its link).
"""

from amaranth import Cat, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hdl.alu.classes import (ALU_OPS, CLASS_OF, MULTIPLIER_OPS, LatencyClass, OpClass, op_class,
                             or_all)
from hdl.alu.divide import DivideUnit
from hdl.alu.magnitude import RootUnit
from hdl.alu.multiplier import Multiplier
from hdl.alu.products import ProductUnit
from hdl.alu.simple import SimpleControl, SimpleUnit, simple_control
from hdl.config import DividerSharing
from hdl.isa import LANES, Op, VectorLayout

__all__ = ["VectorALU", "LatencyClass", "CLASS_OF", "ALU_OPS", "MULTIPLIER_OPS",
           "SimpleControl", "simple_control", "OpClass", "op_class"]


class VectorALU(wiring.Component):
    """See the module docstring. ``config``: a ``hdl.config.CoreConfig``. ``latency(op)``
    gives the cycles from ``i_valid`` to ``o_valid`` for an ALU-kind opcode; ``latencies``
    maps each LatencyClass to its latency."""

    def __init__(self, config, tag_width=0, div_bits_per_stage=2, sqrt_bits_per_stage=1):
        self.config = config
        self.tag_width = tag_width
        self.simple = SimpleUnit(config.simple_latency, tag_width)
        self.products = ProductUnit(config.cross_passes, tag_width)
        self.root = RootUnit(config.serial_sqrt, tag_width, sqrt_bits_per_stage)
        self.divide = DivideUnit(config.divider, tag_width, div_bits_per_stage)
        self.latencies = {
            LatencyClass.SIMPLE: config.simple_latency,
            LatencyClass.MULTIPLY: Multiplier.LATENCY,
            LatencyClass.PRODUCT_SUM: Multiplier.LATENCY + 1,
            LatencyClass.CROSS: Multiplier.LATENCY + config.cross_passes,
            LatencyClass.DIVIDE: self.divide.latency,
            LatencyClass.MAGNITUDE: Multiplier.LATENCY + 1 + self.root.latency,
        }
        self.max_latency = max(self.latencies.values())
        members = {
            "i_valid": In(1), "i_simple": In(SimpleControl), "i_class": In(OpClass),
            "i_a": In(VectorLayout), "i_b": In(VectorLayout), "i_imm": In(32), "i_pc": In(16),
            "i_tag": In(tag_width),
            "o_valid": Out(1), "o_result": Out(VectorLayout), "o_tag": Out(tag_width),
            "collision": Out(1), "div_ready": Out(1), "mag_ready": Out(1), "mul_ready": Out(1),
        }
        if config.divider == DividerSharing.PAIR:
            members["div"] = self.divide.signature.members["div"]
        super().__init__(members)

    def latency(self, op):
        """Cycles from issue to result of an ALU-kind opcode (ValueError for any other)."""
        try:
            return self.latencies[CLASS_OF[Op(op)]]
        except (KeyError, ValueError):
            raise ValueError(f"opcode {op!r} is not an ALU-kind opcode of hdl.isa") from None

    def mag_cycles(self):
        """Cycles a MAG keeps the next MAG out (reference of ``mag_ready``)."""
        return self.root.busy_cycles()

    def multiplier_cycles(self, op):
        """Cycles an operation keeps the next one of MULTIPLIER_OPS out (reference of
        ``mul_ready``)."""
        return self.config.cross_passes if op == Op.CROSS else 1

    def elaborate(self, platform):
        m = Module()
        cls = self.i_class
        simple, products, root, divide = self.simple, self.products, self.root, self.divide
        m.submodules.simple = simple
        m.submodules.products = products
        m.submodules.sqrt = root
        m.submodules.divide = divide
        operands = [self.i_a, self.i_b]
        m.d.comb += [
            # (a non-ALU opcode takes the SIMPLE path too: its result 0 answers o_valid)
            simple.i_valid.eq(self.i_valid & cls.simple), simple.i_control.eq(self.i_simple),
            simple.i_imm.eq(self.i_imm), simple.i_pc.eq(self.i_pc), simple.i_tag.eq(self.i_tag),
            products.i_valid.eq(self.i_valid & (cls.multiply | cls.cross | cls.dot | cls.mag)),
            products.i_class.eq(cls), products.i_tag.eq(self.i_tag),
            root.i_issue.eq(self.i_valid & cls.mag), root.i_valid.eq(products.o_radicand_valid),
            root.i_s.eq(products.o_radicand), root.i_tag.eq(products.o_radicand_tag),
            divide.i_valid.eq(self.i_valid & cls.div), divide.i_tag.eq(self.i_tag),
            self.div_ready.eq(divide.div_ready), self.mag_ready.eq(root.mag_ready),
            self.mul_ready.eq(products.mul_ready),
        ]
        for unit in (simple, products, divide):
            m.d.comb += [unit.i_a.eq(operands[0]), unit.i_b.eq(operands[1])]
        if "div" in self.signature.members:
            wiring.connect(m, divide.div, wiring.flipped(self.div))

        # at most one class completes per cycle (the issuer's promise)
        outputs = [(simple.o_valid, simple.o_result, simple.o_tag),
                   (products.o_multiply_valid, products.o_multiply, products.o_multiply_tag),
                   (products.o_sum_valid, products.o_sum, products.o_sum_tag),
                   (root.o_valid, None, root.o_tag),
                   (divide.o_valid, divide.o_q, divide.o_tag)]
        valids = Cat(v for v, _, _ in outputs)
        m.d.comb += self.o_valid.eq(valids.any())
        for name in LANES:
            m.d.comb += getattr(self.o_result, name).eq(or_all(
                Mux(v, root.o_root if lanes is None else getattr(lanes, name), 0)
                for v, lanes, _ in outputs))
        m.d.comb += self.o_tag.eq(or_all(Mux(v, t, 0) for v, _, t in outputs))
        several = Signal()                  # (sticky)
        with m.If((valids & (valids - 1)).any()):
            m.d.sync += several.eq(1)
        m.d.comb += self.collision.eq(several | products.collision | root.collision)
        return m
