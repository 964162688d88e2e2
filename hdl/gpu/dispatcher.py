"""The band dispatcher: hands bands 0 .. NUM_BANDS-1 to the IO units as they become idle.

``start`` (while not ``busy``) begins a frame. For each band in turn the entry is read from the
band table (a synchronous read port: ``table_addr`` -> ``table_data`` one cycle later) and
offered to the lowest-numbered idle unit (``units[k]`` streams; a unit is ready exactly when it
is idle, and stays ready until it takes a band; the dispatcher looks at the units' ready a
cycle late). A core may get several bands; its registers carry over, as in the model.

The frame ends (``busy`` falls) when every band has been handed out and every unit is idle
again; ``done`` then says it finished cleanly. A unit reporting a core error (``unit_error``
pulse) stops the dispatching (from the next cycle on): ``error`` goes high and the frame ends
as soon as the units still running have finished their bands. ``done`` and ``error`` hold until
the next start. ``halt`` (another part of the GPU failed: the R500 stage) stops it as a unit's
error does.
"""

from amaranth import Module, Signal, Cat
from amaranth.lib import wiring, stream
from amaranth.lib.wiring import In, Out

from hdl.gpu.io_unit import BandEntry

__all__ = ["Dispatcher"]


class Dispatcher(wiring.Component):
    def __init__(self, units, max_bands):
        self.n_units = units
        self.max_bands = max_bands
        super().__init__({
            "start": In(1),
            "num_bands": In(16),
            "busy": Out(1), "done": Out(1), "error": Out(1),
            "table_addr": Out(range(max_bands)),
            "table_data": In(BandEntry),
            "units": Out(stream.Signature(BandEntry)).array(units),
            "unit_error": In(units),
            "halt": In(1),
        })

    def elaborate(self, platform):
        m = Module()
        band = Signal(16)
        done = Signal()
        error = Signal()
        m.d.comb += [self.done.eq(done), self.error.eq(error),
                     self.table_addr.eq(band)]
        # which units are idle, registered (the units sit apart on the chip; a unit's state ->
        # every unit's offer is a long path): a unit stays idle until it takes a band, and
        # a cycle passes after each band handed out (FETCH, HANDED_OUT), so the registered
        # view is never stale in OFFER and DRAIN
        idle = Signal(self.n_units)
        m.d.sync += idle.eq(Cat(u.ready for u in self.units))

        with m.If((self.unit_error.any() | self.halt) & self.busy):
            m.d.sync += error.eq(1)

        with m.FSM():
            with m.State("IDLE"):
                with m.If(self.start):
                    m.d.sync += [band.eq(0), done.eq(0), error.eq(0)]
                    with m.If(self.num_bands == 0):
                        m.next = "DRAIN"
                    with m.Else():
                        m.next = "FETCH"
            with m.State("FETCH"):               # the table entry of ``band`` is being read
                m.d.comb += self.busy.eq(1)
                m.next = "OFFER"
            with m.State("OFFER"):
                m.d.comb += self.busy.eq(1)
                # (the registered ``error``: a unit's error -> every unit's offer is a long path;
                # a band may still go out in the cycle of the error)
                with m.If(error):
                    m.next = "DRAIN"
                with m.Else():
                    # the lowest-numbered idle unit takes it (the last assignment wins)
                    for k in reversed(range(self.n_units)):
                        with m.If(idle[k]):
                            m.d.comb += self.units[k].valid.eq(1)
                            for j in range(self.n_units):
                                if j != k:
                                    m.d.comb += self.units[j].valid.eq(0)
                    with m.If(idle.any()):
                        m.d.sync += band.eq(band + 1)
                        with m.If(band + 1 >= self.num_bands):
                            m.next = "HANDED_OUT"
                        with m.Else():
                            m.next = "FETCH"
            with m.State("HANDED_OUT"):          # (``idle`` does not show the last band yet)
                m.d.comb += self.busy.eq(1)
                m.next = "DRAIN"
            with m.State("DRAIN"):
                m.d.comb += self.busy.eq(1)
                with m.If(idle.all()):
                    m.d.sync += done.eq(~error & ~self.unit_error.any() & ~self.halt)
                    m.next = "IDLE"
        for u in self.units:
            m.d.comb += u.payload.eq(self.table_data)
        return m
