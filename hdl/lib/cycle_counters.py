"""Performance counters of a frame: the cycles each of a few conditions held since the last
``clear``.

Each condition is registered before it is counted: the signals it is made of may come from
across the chip (a core's stream and the ready of the unit it feeds), and a 32-bit increment
behind them would lengthen their path. A count therefore lags its condition by two cycles; a
host reads them once the frame has ended.
"""

from amaranth import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

__all__ = ["CycleCounters"]


class CycleCounters(wiring.Component):
    """Parameter: ``n`` (conditions). In: ``clear`` (the counts restart at 0), ``events``
    (a bit per condition, high in the cycles it holds). Out: ``counts`` (32 bits each: the
    cycles its condition held since the last ``clear``, wrapping)."""

    def __init__(self, n):
        self.n = n
        super().__init__({"clear": In(1), "events": In(n), "counts": Out(32).array(n)})

    def elaborate(self, platform):
        m = Module()
        held = Signal(self.n)
        # (a condition of the clearing cycle, or of the one before, belongs to the last frame)
        m.d.sync += held.eq(self.events & ~self.clear.replicate(self.n))
        for k, count in enumerate(self.counts):
            with m.If(self.clear):
                m.d.sync += count.eq(0)
            with m.Elif(held[k]):
                m.d.sync += count.eq(count + 1)
        return m
