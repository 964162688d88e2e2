"""A minimum gap between commands, counted down: ``gap.after(issued, n)`` says that a command
issued this cycle allows the guarded one from n cycles later on; ``gap.ready`` says it may be
issued now. Several ``after`` rules keep the longest wait. The count is a few bits (the
SDRAM's gaps are a handful of cycles) and ``ready`` one small comparison with zero."""

from amaranth import Mux, Signal

__all__ = ["Gap"]


class Gap:
    def __init__(self, longest, name):
        self.longest = max(1, longest)
        self.count = Signal(range(self.longest), name=name)
        self._rules = []

    def after(self, issued, cycles):
        if cycles > self.longest:
            raise ValueError(f"{self.count.name}: a gap of {cycles} > {self.longest} cycles")
        if cycles > 1:
            self._rules.append((issued, cycles))

    @property
    def ready(self):
        return self.count == 0

    def update(self, m):
        """Drive the count (call once, after every ``after``)."""
        value = Mux(self.count == 0, 0, self.count - 1)
        for issued, cycles in self._rules:
            value = Mux(issued & (value < cycles - 1), cycles - 1, value)
        m.d.sync += self.count.eq(value)
