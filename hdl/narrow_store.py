"""8-bit texture and output stores: ``Gpu(narrow_stores=True)`` (the ULX3S top; block RAMs).

A texture word is always an 8-bit colour << 9 (theia-system.md §1), so ``TextureStore`` keeps
bits 16:9 and reads back ``byte << 9``: exact for every scene the host tool accepts
(boards/limits.py refuses the others). ``PixelStore`` keeps min(255, w >> 9) of each output
word (sim.image.word_to_u8) and reads it back zero-extended: the host receives converted
pixels, not raw output words.

Both have the part of ``lib.memory.Memory``'s interface the Gpu uses (``read_port()``,
``write_port()``, ports with ``addr``/``en``/``data``; 32-bit ``data``), so the Gpu uses them
like its 32-bit memories.
"""

from amaranth import Elaboratable, Module, Signal, Cat, Const, Mux, unsigned
from amaranth.lib.memory import Memory

__all__ = ["TextureStore", "PixelStore"]

_SHIFT = 9


class _Port:
    def __init__(self, depth, en_init):
        self.addr = Signal(range(depth))
        self.en = Signal(init=en_init)
        self.data = Signal(32)


class _NarrowMemory(Elaboratable):
    def __init__(self, depth):
        self.depth = depth
        self.memory = Memory(shape=unsigned(8), depth=depth, init=[])
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
        m.submodules.memory = self.memory
        for port in self._write_ports:
            inner = self.memory.write_port()
            m.d.comb += [inner.addr.eq(port.addr), inner.en.eq(port.en),
                         inner.data.eq(self.narrow(port.data))]
        for port in self._read_ports:
            inner = self.memory.read_port()
            m.d.comb += [inner.addr.eq(port.addr), inner.en.eq(port.en),
                         port.data.eq(self.widen(inner.data))]
        return m


class TextureStore(_NarrowMemory):
    @staticmethod
    def narrow(word):
        return word[_SHIFT:_SHIFT + 8]

    @staticmethod
    def widen(byte):
        return Cat(Const(0, _SHIFT), byte)


class PixelStore(_NarrowMemory):
    @staticmethod
    def narrow(word):
        return Mux(word[_SHIFT + 8:] != 0, 0xFF, word[_SHIFT:_SHIFT + 8])

    @staticmethod
    def widen(byte):
        return byte

