"""UART byte protocol <-> GPU host port (``HostBus``, docs/host-interface.md).

The protocol (docs/host-link.md), host -> board; multi-byte fields are little-endian::

    'S' (0x53)                                  -> ACK                     sync / ping
    'W' (0x57) addr:u32 count:u16 word:u32 * count -> ACK after the last write is taken
    'R' (0x52) addr:u32 count:u16               -> word:u32 * count, ACK
    'B' (0x42) addr:u32 count:u16               -> byte * count (bits 7:0 of each word), ACK
    any other byte                              -> NAK

ACK = 0xA5, NAK = 0xEE. Word ``i`` of a command is at ``addr + i`` (word addresses). A command
whose bytes stop coming for ``timeout`` clock cycles is abandoned (no answer), so a host can
always resynchronise: wait longer than the timeout, send 'S', expect ACK.

One bus request is in flight at a time; a UART byte takes ten bit times, far longer than any
host-port access except a configuration, scene or texture write while a frame runs (which the
host must not do: the GPU holds it until the frame ends while bytes keep arriving).
"""

from amaranth import Module, Signal, Cat
from amaranth.lib import wiring, stream
from amaranth.lib.wiring import In, Out

from hdl.gpu.host_bus import HostBus

__all__ = ["HostLink", "ACK", "NAK", "CMD_SYNC", "CMD_WRITE", "CMD_READ", "CMD_READ_BYTES",
           "MAX_COUNT"]

ACK, NAK = 0xA5, 0xEE
CMD_SYNC, CMD_WRITE, CMD_READ, CMD_READ_BYTES = b"S"[0], b"W"[0], b"R"[0], b"B"[0]
MAX_COUNT = 0xFFFF


class HostLink(wiring.Component):
    """``rx``: bytes from the host (UartRx), ``tx``: bytes to the host (UartTx), ``bus``: the
    GPU's host port. ``timeout``: clock cycles of silence that abandon a half-received command
    (default about 14 ms at 75 MHz)."""

    def __init__(self, timeout=1 << 20):
        self.timeout = timeout
        super().__init__({
            "rx": In(stream.Signature(8)),
            "tx": Out(stream.Signature(8)),
            "bus": Out(HostBus()),
            "active": Out(1),             # a command is being handled (for an LED)
        })

    def elaborate(self, platform):
        m = Module()
        cmd = Signal(8)
        header = Signal(48)              # addr (32) then count (16), received LSB first
        addr = Signal(32)
        count = Signal(16)
        word = Signal(32)
        nbytes = Signal(range(7))        # bytes of the header / word / reply still to move
        silence = Signal(range(self.timeout + 1))
        bus = self.bus

        m.d.comb += [bus.addr.eq(addr), bus.wdata.eq(word)]
        take = self.rx.valid & self.rx.ready
        expired = Signal()
        m.d.comb += expired.eq(silence == self.timeout)

        with m.FSM():
            with m.State("IDLE"):
                m.d.comb += self.rx.ready.eq(1)
                with m.If(self.rx.valid):
                    m.d.sync += [cmd.eq(self.rx.payload), nbytes.eq(6)]
                    with m.Switch(self.rx.payload):
                        with m.Case(CMD_SYNC):
                            m.next = "ACK"
                        with m.Case(CMD_WRITE, CMD_READ, CMD_READ_BYTES):
                            m.next = "HEADER"
                        with m.Default():
                            m.next = "NAK"
            with m.State("HEADER"):
                m.d.comb += [self.rx.ready.eq(1), self.active.eq(1)]
                with m.If(self.rx.valid):
                    m.d.sync += [header.eq(Cat(header[8:], self.rx.payload)), nbytes.eq(nbytes - 1)]
                    with m.If(nbytes == 1):
                        new_count = self.rx.payload.as_unsigned() << 8 | header[40:48]
                        m.d.sync += [addr.eq(header[8:40]), count.eq(new_count), nbytes.eq(4)]
                        with m.If(new_count == 0):
                            m.next = "ACK"
                        with m.Elif(cmd == CMD_WRITE):
                            m.next = "WRITE_DATA"
                        with m.Else():
                            m.next = "READ_REQUEST"
                with m.Elif(expired):
                    m.next = "IDLE"
            with m.State("WRITE_DATA"):
                m.d.comb += [self.rx.ready.eq(1), self.active.eq(1)]
                with m.If(self.rx.valid):
                    m.d.sync += [word.eq(Cat(word[8:], self.rx.payload)), nbytes.eq(nbytes - 1)]
                    with m.If(nbytes == 1):
                        m.next = "WRITE_BUS"
                with m.Elif(expired):
                    m.next = "IDLE"
            with m.State("WRITE_BUS"):
                m.d.comb += [bus.valid.eq(1), bus.write.eq(1), self.active.eq(1)]
                with m.If(bus.ready):
                    m.d.sync += [addr.eq(addr + 1), count.eq(count - 1), nbytes.eq(4)]
                    with m.If(count == 1):
                        m.next = "ACK"
                    with m.Else():
                        m.next = "WRITE_DATA"
            with m.State("READ_REQUEST"):
                m.d.comb += [bus.valid.eq(1), self.active.eq(1)]
                with m.If(bus.ready):
                    m.next = "READ_WAIT"
            with m.State("READ_WAIT"):
                m.d.comb += self.active.eq(1)
                with m.If(bus.rvalid):
                    m.d.sync += [word.eq(bus.rdata),
                                 nbytes.eq(4 - 3 * (cmd == CMD_READ_BYTES))]
                    m.next = "READ_SEND"
            with m.State("READ_SEND"):
                m.d.comb += [self.tx.valid.eq(1), self.tx.payload.eq(word[:8]), self.active.eq(1)]
                with m.If(self.tx.ready):
                    m.d.sync += [word.eq(word >> 8), nbytes.eq(nbytes - 1)]
                    with m.If(nbytes == 1):
                        m.d.sync += [addr.eq(addr + 1), count.eq(count - 1)]
                        with m.If(count == 1):
                            m.next = "ACK"
                        with m.Else():
                            m.next = "READ_REQUEST"
                with m.Elif(expired):
                    m.next = "IDLE"
            with m.State("ACK"):
                m.d.comb += [self.tx.valid.eq(1), self.tx.payload.eq(ACK)]
                with m.If(self.tx.ready):
                    m.next = "IDLE"
            with m.State("NAK"):
                m.d.comb += [self.tx.valid.eq(1), self.tx.payload.eq(NAK)]
                with m.If(self.tx.ready):
                    m.next = "IDLE"


        # a command whose bytes stop coming is abandoned (HEADER / WRITE_DATA go back to IDLE)
        receiving = Signal()
        m.d.comb += receiving.eq(self.rx.ready & self.active)
        with m.If(~receiving | take | expired):
            m.d.sync += silence.eq(0)
        with m.Else():
            m.d.sync += silence.eq(silence + 1)
        return m
