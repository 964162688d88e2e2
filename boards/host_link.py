"""UART byte protocol <-> GPU host port (``HostBus``, docs/host-interface.md), every frame
checked by a CRC-32 (boards/crc.py).

Commands, host -> board (multi-byte fields little-endian, ``crc`` = CRC-32 of the bytes before
it)::

    'S' seq crc                                    status: the last write sequence number applied
    'W' seq addr:u32 count:u16 word:u32*count crc  write (count <= write_words, 64 by default)
    'R' seq addr:u32 count:u16 crc                 read words
    'B' seq addr:u32 count:u16 crc                 read bytes (bits 7:0 of each word)

Answers, board -> host::

    ACK seq [payload] crc     payload: 'S' the last applied write's seq (one byte); 'W' none;
                              'R' count x word:u32; 'B' count bytes
    NAK 0 crc                 the command was refused (bad CRC, unknown command, a write longer
                              than the buffer, or bytes that stopped coming for ``timeout``)

ACK = 0xA5, NAK = 0xEE. Nothing is acted on before the whole command's CRC checked: a write's
words wait in a buffer (LUT RAM, ``write_words`` x 32 bits) and go to the GPU only then. A
write whose ``seq`` equals that of the last write applied is answered with ACK but not applied
again: the host numbers each new write, so a write retried after its ACK was lost (a frame
start, say) takes effect once. After a refused command the bridge drops every byte until the
line has been silent for ``timeout`` cycles, then answers NAK: whatever was left of the bad
command is gone, and the next byte starts a command.

One bus request is in flight at a time; a UART byte takes ten bit times, far longer than any
host-port access except a configuration, scene or texture write while a frame runs (which the
host must not do: the GPU holds it until the frame ends, and the answer with it).
"""

from amaranth import Module, Signal, Cat
from amaranth.lib import wiring, stream
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from boards.crc import INIT, RESIDUE, crc32_byte_step
from hdl.gpu.host_bus import HostBus

__all__ = ["Crc32", "HostLink", "ACK", "NAK", "CMD_STATUS", "CMD_WRITE", "CMD_READ",
           "CMD_READ_BYTES", "MAX_COUNT", "WRITE_WORDS", "LINK_TIMEOUT_S"]

ACK, NAK = 0xA5, 0xEE
CMD_STATUS, CMD_WRITE, CMD_READ, CMD_READ_BYTES = b"S"[0], b"W"[0], b"R"[0], b"B"[0]
MAX_COUNT = 0xFFFF       # words of a read (a u16)
WRITE_WORDS = 64         # words of a write: the bridge's buffer
#: the board's silence timeout (its ``timeout`` in seconds): long against the gaps a PC leaves
#: inside a command (USB frames of 1 ms), short against a person's patience when retrying
LINK_TIMEOUT_S = 1 / 64


class Crc32(wiring.Component):
    """The CRC-32 register of a byte stream: ``value`` is the register after every byte given
    with ``valid`` (``first``: the byte begins a frame, so the register starts from INIT).
    A frame followed by its own CRC leaves ``value`` at ``RESIDUE``."""
    data: In(8)
    valid: In(1)
    first: In(1)
    value: Out(32, init=INIT)

    def elaborate(self, platform):
        m = Module()
        start = Signal(32)
        m.d.comb += start.eq(self.value)
        with m.If(self.first):
            m.d.comb += start.eq(INIT)
        with m.If(self.valid):
            m.d.sync += self.value.eq(crc32_byte_step(start, self.data)[:32])
        return m


class HostLink(wiring.Component):
    """``rx``: bytes from the host (UartRx), ``tx``: bytes to the host (UartTx), ``bus``: the
    GPU's host port. ``timeout``: clock cycles of silence that end a command (default about
    14 ms at 75 MHz). ``write_words``: the longest write, the depth of the write buffer."""

    def __init__(self, timeout=1 << 20, write_words=WRITE_WORDS):
        self.timeout = timeout
        self.write_words = write_words
        super().__init__({
            "rx": In(stream.Signature(8)),
            "tx": Out(stream.Signature(8)),
            "bus": Out(HostBus()),
            "active": Out(1),             # a command is being handled (for an LED)
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.rx_crc = rx_crc = Crc32()
        m.submodules.tx_crc = tx_crc = Crc32()
        # a write's words wait here until its CRC checked; asynchronous reads (LUT RAM on
        # the ECP5: the board has no block RAM to spare)
        m.submodules.buffer = buffer = Memory(shape=32, depth=self.write_words, init=[])
        buffer_write = buffer.write_port()
        buffer_read = buffer.read_port(domain="comb")

        cmd = Signal(8)
        header = Signal(56)              # seq, addr, count, shifted in LSB first
        seq = Signal(8)
        addr = Signal(32)
        count = Signal(16)
        index = Signal(16)               # word of the write buffer / of the read
        word = Signal(32)
        nbytes = Signal(range(8))        # bytes of the header / word / CRC still to move
        last_write_seq = Signal(8)       # the write applied last (a retry of it is not applied)
        reply = Signal(8)                # ACK or NAK
        silence = Signal(range(self.timeout + 1))
        bus = self.bus

        byte = self.rx.payload
        take = Signal()
        m.d.comb += take.eq(self.rx.valid & self.rx.ready)
        expired = Signal()
        m.d.comb += expired.eq(silence == self.timeout)
        receiving = Signal()             # in a command: its bytes must keep coming
        checked = Signal()               # bytes that the command's CRC covers
        m.d.comb += [rx_crc.data.eq(byte), rx_crc.valid.eq(take & checked)]
        sent = Signal()
        m.d.comb += [sent.eq(self.tx.valid & self.tx.ready),
                     tx_crc.data.eq(self.tx.payload), tx_crc.valid.eq(sent)]

        m.d.comb += [bus.addr.eq(addr), bus.wdata.eq(buffer_read.data),
                     buffer_read.addr.eq(index), buffer_write.addr.eq(index),
                     buffer_write.data.eq(Cat(word[8:], byte))]
        fields = Cat(header[8:], byte)   # the header with the byte now arriving

        with m.FSM() as fsm:
            with m.State("IDLE"):
                m.d.comb += [self.rx.ready.eq(1), checked.eq(1), rx_crc.first.eq(1)]
                with m.If(self.rx.valid):
                    m.d.sync += cmd.eq(byte)
                    with m.Switch(byte):
                        with m.Case(CMD_STATUS):
                            m.d.sync += nbytes.eq(1)
                            m.next = "HEADER"
                        with m.Case(CMD_WRITE, CMD_READ, CMD_READ_BYTES):
                            m.d.sync += nbytes.eq(7)
                            m.next = "HEADER"
                        with m.Default():
                            m.next = "DRAIN"
            with m.State("HEADER"):
                m.d.comb += [self.rx.ready.eq(1), receiving.eq(1), checked.eq(1)]
                with m.If(self.rx.valid):
                    m.d.sync += [header.eq(fields), nbytes.eq(nbytes - 1)]
                    with m.If(nbytes == 1):
                        new_count = fields[40:56]
                        m.d.sync += [seq.eq(fields[0:8]), addr.eq(fields[8:40]),
                                     count.eq(new_count), index.eq(0), nbytes.eq(4)]
                        with m.If(cmd == CMD_STATUS):
                            m.d.sync += seq.eq(byte)
                            m.next = "CRC"
                        with m.Elif(cmd != CMD_WRITE):
                            m.next = "CRC"
                        with m.Elif(new_count > self.write_words):
                            m.next = "DRAIN"
                        with m.Elif(new_count == 0):
                            m.next = "CRC"
                        with m.Else():
                            m.next = "DATA"
                with m.Elif(expired):
                    m.next = "SEND_REPLY"
            with m.State("DATA"):
                m.d.comb += [self.rx.ready.eq(1), receiving.eq(1), checked.eq(1)]
                with m.If(self.rx.valid):
                    m.d.sync += [word.eq(Cat(word[8:], byte)), nbytes.eq(nbytes - 1)]
                    with m.If(nbytes == 1):
                        m.d.comb += buffer_write.en.eq(1)
                        m.d.sync += [index.eq(index + 1), nbytes.eq(4)]
                        with m.If(index == count - 1):
                            m.next = "CRC"
                with m.Elif(expired):
                    m.next = "SEND_REPLY"
            with m.State("CRC"):
                m.d.comb += [self.rx.ready.eq(1), receiving.eq(1), checked.eq(1)]
                with m.If(self.rx.valid):
                    m.d.sync += nbytes.eq(nbytes - 1)
                    with m.If(nbytes == 1):
                        m.next = "CHECK"
                with m.Elif(expired):
                    m.next = "SEND_REPLY"
            with m.State("CHECK"):
                m.d.sync += [reply.eq(ACK), index.eq(0)]
                with m.If(rx_crc.value != RESIDUE):
                    m.next = "DRAIN"
                with m.Elif((cmd == CMD_WRITE) & (seq != last_write_seq) & (count != 0)):
                    m.d.sync += last_write_seq.eq(seq)
                    m.next = "APPLY"
                with m.Else():
                    with m.If(cmd == CMD_WRITE):
                        m.d.sync += last_write_seq.eq(seq)
                    m.next = "SEND_REPLY"
            with m.State("APPLY"):
                m.d.comb += [bus.valid.eq(1), bus.write.eq(1)]
                with m.If(bus.ready):
                    m.d.sync += [addr.eq(addr + 1), index.eq(index + 1)]
                    with m.If(index == count - 1):
                        m.next = "SEND_REPLY"
            with m.State("DRAIN"):
                # a refused command: drop bytes until the line is quiet, then say so
                m.d.comb += [self.rx.ready.eq(1), receiving.eq(1)]
                with m.If(expired):
                    m.next = "SEND_REPLY"

            # --- the answer: reply, seq, payload, CRC ---
            with m.State("SEND_REPLY"):
                m.d.comb += [self.tx.valid.eq(1), self.tx.payload.eq(reply),
                             tx_crc.first.eq(1)]
                with m.If(self.tx.ready):
                    m.next = "SEND_SEQ"
            with m.State("SEND_SEQ"):
                m.d.comb += [self.tx.valid.eq(1), self.tx.payload.eq(seq)]
                with m.If(self.tx.ready):
                    with m.If(reply == NAK):
                        m.next = "SEND_CRC"
                    with m.Elif(cmd == CMD_STATUS):
                        m.next = "SEND_STATUS"
                    with m.Elif((cmd == CMD_WRITE) | (count == 0)):
                        m.next = "SEND_CRC"
                    with m.Else():
                        m.next = "READ_REQUEST"
            with m.State("SEND_STATUS"):
                m.d.comb += [self.tx.valid.eq(1), self.tx.payload.eq(last_write_seq)]
                with m.If(self.tx.ready):
                    m.next = "SEND_CRC"
            with m.State("READ_REQUEST"):
                m.d.comb += [bus.valid.eq(1)]
                with m.If(bus.ready):
                    m.next = "READ_WAIT"
            with m.State("READ_WAIT"):
                with m.If(bus.rvalid):
                    m.d.sync += [word.eq(bus.rdata),
                                 nbytes.eq(4 - 3 * (cmd == CMD_READ_BYTES))]
                    m.next = "READ_SEND"
            with m.State("READ_SEND"):
                m.d.comb += [self.tx.valid.eq(1), self.tx.payload.eq(word[:8])]
                with m.If(self.tx.ready):
                    m.d.sync += [word.eq(word >> 8), nbytes.eq(nbytes - 1)]
                    with m.If(nbytes == 1):
                        m.d.sync += [addr.eq(addr + 1), index.eq(index + 1)]
                        with m.If(index == count - 1):
                            m.next = "SEND_CRC"
                        with m.Else():
                            m.next = "READ_REQUEST"
            with m.State("SEND_CRC"):
                # the CRC register holds every byte sent so far: its complement, LSB first
                m.d.sync += [word.eq(~tx_crc.value), nbytes.eq(4)]
                m.next = "SEND_WORD"
            with m.State("SEND_WORD"):
                m.d.comb += [self.tx.valid.eq(1), self.tx.payload.eq(word[:8])]
                with m.If(self.tx.ready):
                    m.d.sync += [word.eq(word >> 8), nbytes.eq(nbytes - 1)]
                    with m.If(nbytes == 1):
                        m.next = "IDLE"

        m.d.comb += self.active.eq(~fsm.ongoing("IDLE"))
        # a command whose bytes stop coming is refused after ``timeout`` quiet cycles (as is
        # one that DRAIN is waiting out): NAK
        with m.If(receiving & expired):
            m.d.sync += [reply.eq(NAK), seq.eq(0)]
        with m.If(~receiving | take | expired):
            m.d.sync += silence.eq(0)
        with m.Else():
            m.d.sync += silence.eq(silence + 1)
        return m
