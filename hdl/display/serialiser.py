"""10:1 serialisation of the TMDS symbols at five times the pixel clock, two bits a clock.

Each pixel clock's three symbols cross from the pixel domain into the ``tmds`` domain (five
times faster) through an AsyncFIFO of ``DEPTH`` entries; there each lane is a 10-bit shift
register loaded every fifth cycle and shifted by two bits in between, least significant bit
first: ``data[0]`` is a lane's earlier bit, ``data[1]`` the later one, what an ECP5 ODDRX1F
(``io.DDRBuffer``) sends on the rising and the falling half of the clock. The clock lane sends
0b1111100000 the same way: one period per symbol, the pixel clock.

The crossing: on the board both clocks come from one PLL, so the FIFO is written and read at
exactly the same rate and its level stays where it started: the tmds side begins to read once
``PREFILL`` symbols have arrived, which leaves that margin against either clock's jitter and
the skew between their networks. It relies on no phase relation between the clocks (the FIFO
is safe at any ratio); at a ratio other than exactly 1:5 it would eventually run empty or
full: the tmds side then sends ``idle`` symbols (``underflow``, sticky, in the tmds domain),
and the pixel side's symbols are dropped while it is full, never corrupted.
"""

from amaranth import Module, Signal, Cat
from amaranth.lib import data, wiring
from amaranth.lib.fifo import AsyncFIFO
from amaranth.lib.wiring import In, Out

from hdl.display.formats import TmdsSymbols
from hdl.display.tmds import CONTROL_SYMBOLS, SYMBOL_BITS

__all__ = ["TmdsSerialiser", "CLOCK_PATTERN", "DEFAULT_IDLE"]

#: what the clock lane sends each symbol period: five bits low, five high
CLOCK_PATTERN = 0b1111100000
#: the symbols sent when there are none (control, C1C0 = 00, on every lane)
DEFAULT_IDLE = (CONTROL_SYMBOLS[0],) * 3


class TmdsSerialiser(wiring.Component):
    """``symbols`` (pixel domain) -> ``data`` (3 lanes x 2 bits) and ``clock`` (1 x 2 bits)
    each tmds clock. ``idle``: the three symbols sent before the first symbols arrive and
    while the FIFO is empty."""

    DEPTH = 8
    PREFILL = 3
    PAIRS = SYMBOL_BITS // 2

    def __init__(self, pixel_domain="pixel", tmds_domain="tmds", idle=DEFAULT_IDLE):
        self.pixel_domain = pixel_domain
        self.tmds_domain = tmds_domain
        self.idle = tuple(idle)
        super().__init__({
            "symbols": In(TmdsSymbols),
            "data": Out(data.ArrayLayout(3, 2)), "clock": Out(data.ArrayLayout(1, 2)),
            "underflow": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        tmds = m.d[self.tmds_domain]
        m.submodules.cdc = cdc = AsyncFIFO(width=3 * SYMBOL_BITS, depth=self.DEPTH,
                                           w_domain=self.pixel_domain, r_domain=self.tmds_domain)
        m.d.comb += [cdc.w_data.eq(self.symbols), cdc.w_en.eq(1)]

        # one-hot: which of the five pairs of the current symbols is going out
        phase = Signal(self.PAIRS, init=1)
        tmds += phase.eq(phase.rotate_left(1))
        load = phase[-1]
        started = Signal()
        with m.If(cdc.r_level >= self.PREFILL):
            tmds += started.eq(1)
        take = load & started & cdc.r_rdy
        m.d.comb += cdc.r_en.eq(take)

        lanes = [Signal(SYMBOL_BITS, name=f"lane{k}", init=self.idle[k]) for k in range(3)]
        clock = Signal(SYMBOL_BITS, init=CLOCK_PATTERN)
        incoming = data.View(TmdsSymbols, cdc.r_data)
        with m.If(load):
            tmds += clock.eq(CLOCK_PATTERN)
            for k, lane in enumerate(lanes):
                with m.If(take):
                    tmds += lane.eq(incoming[k])
                with m.Else():
                    tmds += lane.eq(self.idle[k])
            with m.If(started & ~cdc.r_rdy):
                tmds += self.underflow.eq(1)
        with m.Else():
            for register in (*lanes, clock):
                tmds += register.eq(register >> 2)
        for half in range(2):
            m.d.comb += [self.data[half].eq(Cat(lane[half] for lane in lanes)),
                         self.clock[half].eq(clock[half])]
        return m
