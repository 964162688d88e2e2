"""What the host reads about a frame: its cycle count, the cores' counters summed, the first error.

The cores' running totals are summed and taken relative to the frame's start, a register after
each step: the counters sit in the cores all over the chip, and a sum of four 32-bit values
across it, or a subtraction's carry chain in front of the host port's answer register, is a
long path. The counts lag a few cycles (the host reads them after the frame's end). ``error_info`` holds the first core
error of a frame (the lowest core index wins a tie): bits 15:0 the PC, 18:16 the code
(``CoreError``), 31:24 the core; an error of the R500 stage (``r500_error``) is core
``R500_STAGE`` (hdl/gpu/address_map.py; its registers say the rest).
"""

from amaranth import Cat, Const, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hdl.gpu.address_map import R500_STAGE

__all__ = ["FrameStatus", "COUNTS"]

#: the per-core totals summed for the host, in the order of the CYCLES.. TESTS registers
COUNTS = ("instructions", "io_wait", "stall", "pixels", "tests")


def _sum_tree(m, values, name):
    """The sum of ``values`` (32 bits), added in pairs, each level registered (one value: as it
    is, registered)."""
    level = 0
    if len(values) == 1:
        total = Signal(32, name=f"{name}_sum")
        m.d.sync += total.eq(values[0])
        return total
    while len(values) > 1:
        pairs = [values[k:k + 2] for k in range(0, len(values), 2)]
        values = []
        for k, pair in enumerate(pairs):
            total = Signal(32, name=f"{name}_sum{level}_{k}")
            m.d.sync += total.eq(pair[0] + pair[1] if len(pair) == 2 else pair[0])
            values.append(total)
        level += 1
    return values[0]


class FrameStatus(wiring.Component):
    """Parameter: ``cores``. In: ``start`` (a frame starts), ``busy`` (a frame runs), per core
    ``instructions``, ``io_wait``, ``stall``, ``pixels``, ``tests`` (running totals, from registers),
    ``error``, ``error_code``, ``error_pc``. Out: ``cycles``, the frame's ``counts`` (COUNTS), and
    ``error_info``."""

    def __init__(self, cores):
        self.cores = cores
        members = {"start": In(1), "busy": In(1), "cycles": Out(32), "error_info": Out(32),
                   "error": In(1).array(cores), "error_code": In(3).array(cores),
                   "error_pc": In(16).array(cores), "r500_error": In(1)}
        for name in COUNTS:
            members[name] = In(32).array(cores)
            members[f"frame_{name}"] = Out(32)
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        for name in COUNTS:
            total = _sum_tree(m, list(getattr(self, name)), name)
            at_start = Signal(32, name=f"{name}_at_start")
            with m.If(self.start):
                m.d.sync += at_start.eq(total)
            m.d.sync += getattr(self, f"frame_{name}").eq(total - at_start)
        with m.If(self.start):
            m.d.sync += self.cycles.eq(0)
        with m.Elif(self.busy):
            m.d.sync += self.cycles.eq(self.cycles + 1)

        error_seen = Signal()
        with m.If(self.start):
            m.d.sync += [self.error_info.eq(0), error_seen.eq(0)]
        with m.Else():
            with m.If(self.r500_error & ~error_seen):
                m.d.sync += [self.error_info.eq(R500_STAGE << 24), error_seen.eq(1)]
            for k in reversed(range(self.cores)):      # the lowest index wins a tie
                with m.If(self.error[k] & ~error_seen):
                    m.d.sync += [self.error_info.eq(Cat(self.error_pc[k], self.error_code[k],
                                                        Const(0, 5), Const(k, 8))),
                                 error_seen.eq(1)]
        return m
