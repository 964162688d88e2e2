"""Which context issues next: round robin over the contexts that may (docs/r500-core.md)."""

from amaranth import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

__all__ = ["RoundRobinPick"]


class RoundRobinPick(wiring.Component):
    """``ready`` (one bit per context) -> ``valid`` and ``index``: the first ready context after
    the one picked last (``take``: the pick is used this cycle), so that every ready context
    gets its turn within ``n`` picks."""

    def __init__(self, n):
        self.n = n
        super().__init__({"ready": In(n), "take": In(1), "valid": Out(1),
                          "index": Out(range(max(n, 2)))})

    def elaborate(self, platform):
        m = Module()
        n = self.n
        last = Signal(range(max(n, 2)), init=n - 1)
        with m.Switch(last):
            for previous in range(n):
                with m.Case(previous):
                    for k in reversed([(previous + 1 + j) % n for j in range(n)]):
                        with m.If(self.ready[k]):      # the last assignment wins: the first
                            m.d.comb += [self.valid.eq(1), self.index.eq(k)]
        with m.If(self.take & self.valid):
            m.d.sync += last.eq(self.index)
        return m
