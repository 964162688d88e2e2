"""The core's performance counters (``hdl.core.ports.Counters``).

Which counter a cycle counts is registered before it is counted: the counters are summed over
the cores (hdl/gpu/gpu.py), so they sit apart from the issue decision that picks one. They run
a cycle behind.
"""

from amaranth import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hdl.core.ports import Counters

__all__ = ["PerformanceCounters"]


class PerformanceCounters(wiring.Component):
    """In: ``running``, ``issue`` (I's instruction leaves I), ``i_valid``, ``hazard``,
    ``draining`` (a RETURN is in I), ``memory`` (a TMREAD / OMWRITE is in I), ``waiting`` (the
    write port or a unit is taken). Out: ``counters``."""
    running: In(1)
    issue: In(1)
    i_valid: In(1)
    hazard: In(1)
    draining: In(1)
    memory: In(1)
    waiting: In(1)
    counters: Out(Counters)

    def elaborate(self, platform):
        m = Module()
        counts = {name: Signal(name=f"counts_{name}") for name, _ in Counters.as_shape()}
        m.d.sync += [flag.eq(0) for flag in counts.values()]
        with m.If(self.running):
            m.d.sync += counts["cycles"].eq(1)
            with m.If(self.issue):
                m.d.sync += counts["retired"].eq(1)
            with m.Elif(~self.i_valid):
                m.d.sync += counts["bubbles"].eq(1)
            with m.Elif(self.hazard):
                m.d.sync += counts["stall_operand"].eq(1)
            with m.Elif(self.draining):
                m.d.sync += counts["drain"].eq(1)
            with m.Elif(self.memory):
                m.d.sync += counts["stall_memory"].eq(1)
            with m.Elif(self.waiting):
                m.d.sync += counts["stall_writeback"].eq(1)
        counters = Signal(Counters)
        m.d.comb += self.counters.eq(counters)
        for name, flag in counts.items():
            counter = getattr(counters, name)
            with m.If(flag):
                m.d.sync += counter.eq(counter + 1)
        return m
