"""8-bit texture and output stores: ``GpuConfig.narrow_stores`` (the ULX3S top; block RAMs).

A texture word is always an 8-bit colour << 9 (theia-system.md §1), so ``TextureStore`` keeps
bits 16:9 and reads back ``byte << 9``: exact for every scene the host tool accepts
(``GpuConfig.check_fits`` refuses the others). ``PixelStore`` keeps min(255, w >> 9) of each output
word (sim.image.word_to_u8) and reads it back zero-extended: the host receives converted
pixels, not raw output words.

Both have the part of ``lib.memory.Memory``'s interface the Gpu uses (``read_port()``,
``write_port()``, ports with ``addr``/``en``/``data``; 32-bit ``data``), so the Gpu uses them
like its 32-bit memories, except that a read takes three cycles (``READ_LATENCY``): the
stores are banks of eight block RAMs (``BANK_WORDS``); a read's address is registered in a
copy beside every bank, and every bank's word is registered beside its block RAMs before the
multiplexer over all banks picks one (writes are registered on their way in too: no answer,
so no latency to see). On the ULX3S the texture store is 96 block RAMs all over the chip: a
block RAM's clock-to-output (5.8 ns) followed by a multiplexer over all of them, or one
address register fanning out to every bank, does not fit a 75 MHz cycle.
"""

from amaranth import Elaboratable, Module, Signal, Cat, Const, Mux, unsigned
from amaranth.lib.memory import Memory

from hdl.config import TEXTURE_SHIFT
from hdl.lib.synthesis import REGISTER_COPY, READ_COLLISION_UNDEFINED

__all__ = ["TextureStore", "PixelStore", "BANK_WORDS"]

#: words of one bank: eight ECP5 DP16KD in their 16384 x 1 shape, one per bit, so a bank needs
#: no multiplexer of its own (Yosys maps a deeper 8-bit memory the same way, then picks among
#: groups of eight; in 2048 x 9 the multiplexers took 2.4k LUTs for the texture store)
BANK_WORDS = 16384


class _Port:
    def __init__(self, depth, en_init):
        self.addr = Signal(range(depth))
        self.en = Signal(init=en_init)
        self.data = Signal(32)


class _NarrowMemory(Elaboratable):
    #: cycles from a read's address (with ``en``) to its ``data``
    READ_LATENCY = 3

    def __init__(self, depth, bank_words=BANK_WORDS):
        self.depth = depth
        self.bank_bits = (bank_words - 1).bit_length()
        assert bank_words == 1 << self.bank_bits
        # (nothing reads a word in the cycle it is written: the Gpu takes no host texture write
        # while a frame runs, and output words are read once the frame is done; hdl/lib/synthesis.py)
        self.banks = [Memory(shape=unsigned(8), depth=min(bank_words, depth - base), init=[],
                             attrs=READ_COLLISION_UNDEFINED)
                      for base in range(0, depth, bank_words)]
        self._read_ports = []
        self._write_ports = []

    def read_port(self, *, domain="sync", transparent_for=()):
        assert domain == "sync" and not transparent_for
        port = _Port(self.depth, en_init=1)
        self._read_ports.append(port)
        return port

    def write_port(self, *, domain="sync", granularity=None):
        assert domain == "sync" and granularity is None
        port = _Port(self.depth, en_init=0)
        self._write_ports.append(port)
        return port

    def elaborate(self, platform):
        m = Module()
        for k, bank in enumerate(self.banks):
            m.submodules[f"bank{k}"] = bank
        for port in self._write_ports:
            # each bank's address, enable and byte registered beside it (one register fanning
            # out to every bank across the chip is up to 16 ns of routing)
            data_byte = self.narrow(port.data)
            bank_index = port.addr[self.bank_bits:]
            for k, bank in enumerate(self.banks):
                addr, en = self._registered(m, port.addr, port.en & (bank_index == k),
                                            f"write{k}")
                data = Signal(8, name=f"write{k}_data")
                m.d.sync += data.eq(data_byte)
                inner = bank.write_port()
                m.d.comb += [inner.addr.eq(addr), inner.en.eq(en), inner.data.eq(data)]
        for port in self._read_ports:
            # each bank's copy of the address registered, every bank reads (no decode on the
            # address path); its word is registered in the next cycle, then the bank index,
            # two cycles older, picks one
            en = Signal()                       # the banks read
            read = Signal()                     # the banks' outputs hold a new read
            addressed = Signal(range(len(self.banks)))
            bank_index = Signal(range(len(self.banks)))
            picked = Signal(range(len(self.banks)))
            m.d.sync += [en.eq(port.en), read.eq(en)]
            with m.If(port.en):
                m.d.sync += addressed.eq(port.addr[self.bank_bits:])
            with m.If(en):
                m.d.sync += bank_index.eq(addressed)
            with m.If(read):
                m.d.sync += picked.eq(bank_index)
            words = []
            for k, bank in enumerate(self.banks):
                bank_addr, bank_en = self._registered(m, port.addr, port.en, f"read{k}")
                inner = bank.read_port()
                word = Signal(8, name=f"bank{k}_word")
                m.d.comb += [inner.addr.eq(bank_addr), inner.en.eq(bank_en)]
                with m.If(read):
                    m.d.sync += word.eq(inner.data)
                words.append(word)
            byte = Signal(8)
            with m.Switch(picked):
                for k, word in enumerate(words):
                    with m.Case(k):
                        m.d.comb += byte.eq(word)
            m.d.comb += port.data.eq(self.widen(byte))
        return m

    @staticmethod
    def _registered(m, addr, en, name):
        """A bank's copy of a port's address and enable, registered (the first cycle of a read
        or write). The copies are kept apart (synthesis would merge them back into one)."""
        addr_copy = Signal.like(addr, name=f"{name}_addr", attrs=REGISTER_COPY)
        en_copy = Signal(name=f"{name}_en", attrs=REGISTER_COPY)
        m.d.sync += [addr_copy.eq(addr), en_copy.eq(en)]
        return addr_copy, en_copy


class TextureStore(_NarrowMemory):
    @staticmethod
    def narrow(word):
        return word[TEXTURE_SHIFT:TEXTURE_SHIFT + 8]

    @staticmethod
    def widen(byte):
        return Cat(Const(0, TEXTURE_SHIFT), byte)


class PixelStore(_NarrowMemory):
    @staticmethod
    def narrow(word):
        return Mux(word[TEXTURE_SHIFT + 8:] != 0, 0xFF, word[TEXTURE_SHIFT:TEXTURE_SHIFT + 8])

    @staticmethod
    def widen(byte):
        return byte

