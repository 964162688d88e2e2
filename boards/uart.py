"""8N1 UART receiver and transmitter (one clock domain, ``divisor`` clock cycles per bit).

``UartRx`` synchronises the pin (two flip-flops), waits for a falling edge, checks the start bit
half a bit later and then samples each bit in its middle: the line is watched on every clock
cycle (``divisor``-fold oversampling), so a baud clock that is off by up to ~±4 % (half a bit
over ten bits) is still read right. A byte is offered on the ``data`` stream; if the consumer
has not taken it when the next byte is complete, ``overrun`` pulses and the old byte is
replaced. A stop bit that is low pulses ``frame_error`` and drops the byte.

``UartTx`` sends each byte of its ``data`` stream (start bit, 8 bits LSB first, stop bit).
"""

from amaranth import Module, Signal, Cat
from amaranth.lib import wiring, stream
from amaranth.lib.cdc import FFSynchronizer
from amaranth.lib.wiring import In, Out

__all__ = ["UartRx", "UartTx", "uart_divisor"]


def uart_divisor(clk_hz, baud):
    """Clock cycles per bit for ``baud`` at ``clk_hz``; errors if the rate is off by > 2 %."""
    divisor = round(clk_hz / baud)
    if divisor < 4:
        raise ValueError(f"{baud} baud needs at least 4 clock cycles per bit; the clock is "
                         f"{clk_hz / 1e6:g} MHz")
    error = abs(clk_hz / divisor - baud) / baud
    if error > 0.02:
        raise ValueError(f"{baud} baud at {clk_hz / 1e6:g} MHz: the nearest divisor {divisor} "
                         f"gives {clk_hz / divisor:.0f} baud ({error:.1%} off, > 2 %)")
    return divisor


class UartRx(wiring.Component):
    def __init__(self, divisor):
        if divisor < 4:
            raise ValueError(f"divisor must be at least 4, got {divisor}")
        self.divisor = divisor
        super().__init__({
            "rx": In(1, init=1),
            "data": Out(stream.Signature(8)),
            "frame_error": Out(1),
            "overrun": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        line = Signal(init=1)
        m.submodules.sync_rx = FFSynchronizer(self.rx, line, init=1)

        timer = Signal(range(self.divisor))
        bits = Signal(range(9))
        shreg = Signal(8)
        valid = Signal()
        m.d.comb += self.data.valid.eq(valid)
        received = Signal(8)
        m.d.comb += self.data.payload.eq(received)
        with m.If(self.data.ready):
            m.d.sync += valid.eq(0)

        with m.FSM():
            with m.State("IDLE"):
                with m.If(~line):
                    m.d.sync += timer.eq(self.divisor // 2 - 1)
                    m.next = "START"
            with m.State("START"):
                m.d.sync += timer.eq(timer - 1)
                with m.If(timer == 0):
                    with m.If(line):          # a glitch, not a start bit
                        m.next = "IDLE"
                    with m.Else():
                        m.d.sync += [timer.eq(self.divisor - 1), bits.eq(0)]
                        m.next = "DATA"
            with m.State("DATA"):
                m.d.sync += timer.eq(timer - 1)
                with m.If(timer == 0):
                    m.d.sync += [shreg.eq(Cat(shreg[1:], line)), bits.eq(bits + 1),
                                 timer.eq(self.divisor - 1)]
                    with m.If(bits == 7):
                        m.next = "STOP"
            with m.State("STOP"):
                m.d.sync += timer.eq(timer - 1)
                with m.If(timer == 0):
                    with m.If(line):
                        m.d.sync += [received.eq(shreg), valid.eq(1)]
                        m.d.comb += self.overrun.eq(valid & ~self.data.ready)
                    with m.Else():
                        m.d.comb += self.frame_error.eq(1)
                    # back to IDLE in the middle of the stop bit: the next start edge is seen
                    m.next = "IDLE"
        return m


class UartTx(wiring.Component):
    def __init__(self, divisor):
        if divisor < 4:
            raise ValueError(f"divisor must be at least 4, got {divisor}")
        self.divisor = divisor
        super().__init__({
            "data": In(stream.Signature(8)),
            "tx": Out(1, init=1),
        })

    def elaborate(self, platform):
        m = Module()
        frame = Signal(10, init=0x3FF)      # bits still to send, LSB first; idle = all ones
        bits = Signal(range(11))
        timer = Signal(range(self.divisor))
        # the next byte is taken as the stop bit ends, so frames follow back to back
        m.d.comb += [self.tx.eq(frame[0]),
                     self.data.ready.eq((bits == 0) | ((bits == 1) & (timer == 0)))]
        with m.If(self.data.valid & self.data.ready):
            m.d.sync += [frame.eq(Cat(0, self.data.payload, 1)), bits.eq(10),
                         timer.eq(self.divisor - 1)]
        with m.Elif(bits != 0):
            with m.If(timer == 0):
                m.d.sync += [frame.eq(Cat(frame[1:], 1)), bits.eq(bits - 1),
                             timer.eq(self.divisor - 1)]
            with m.Else():
                m.d.sync += timer.eq(timer - 1)
        return m
