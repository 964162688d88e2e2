"""The R500 core's temporaries: 4 lanes x ``temporaries`` vec4 per context (r500-us.md §3.2).

A lane-op reads three source slots whose .rgb and .a come from different addresses, so the
.rgb parts (96 bits) and the .a parts (32 bits) are separate memories, each in three copies,
one per slot, written alike (one write port each: the RGB unit's and the alpha unit's
destinations differ). A read answers the cycle after its address.

A temporary nobody wrote since the context was claimed reads as zero: a ``written`` bit per
part and lane, cleared for a whole context at once (``clear``), which masks the read. The
first write to a part writes all its channels (those not enabled as 0), so a partly written
temporary holds zeros in the rest, as the model's.

Reads and writes of one address in the same cycle return the old word; the core never reads a
temporary in the cycle it writes it (a context issues its next instruction after its writes).
"""

from amaranth import Cat, Module, Mux, Signal, Value, unsigned
from amaranth.lib import data, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out
from amaranth.utils import ceil_log2

from hdl.lib.synthesis import READ_COLLISION_UNDEFINED

__all__ = ["LANES", "RGB_CHANNELS", "temp_address_layout", "temp_write_layout", "Temporaries"]

LANES = 4
RGB_CHANNELS = 3
SLOTS = 3


def temp_address_layout(contexts):
    """A temporary of one lane of one context."""
    return data.StructLayout({"temp": 7, "lane": 2, "context": range(max(contexts, 2))})


def temp_write_layout(contexts):
    """One write: the .rgb part (channel enables ``rgb_en``) to ``rgb_addr`` and the .a part
    (``alpha_en``) to ``alpha_addr``."""
    address = temp_address_layout(contexts)
    return data.StructLayout({
        "rgb_addr": address, "rgb_en": RGB_CHANNELS, "rgb": data.ArrayLayout(32, RGB_CHANNELS),
        "alpha_addr": address, "alpha_en": 1, "alpha": 32,
    })


class Temporaries(wiring.Component):
    """Ports: ``rgb_addr[n]`` / ``alpha_addr[n]`` (the slot-n reads' addresses) -> ``rgb[n]`` /
    ``alpha[n]`` a cycle later; ``write`` (``temp_write_layout``); ``clear`` / ``clear_context``
    (every temporary of a context reads zero from the next cycle on)."""

    def __init__(self, contexts, temporaries):
        self.contexts = contexts
        self.temporaries = temporaries
        self.temp_bits = max(ceil_log2(temporaries), 1)
        address = temp_address_layout(contexts)
        super().__init__({
            "rgb_addr": In(address).array(SLOTS),
            "alpha_addr": In(address).array(SLOTS),
            "rgb": Out(data.ArrayLayout(32, RGB_CHANNELS)).array(SLOTS),
            "alpha": Out(32).array(SLOTS),
            "write": In(temp_write_layout(contexts)),
            "clear": In(1),
            "clear_context": In(range(max(contexts, 2))),
        })

    def _row(self, address):
        """The memory row of a temporary address (lanes and contexts above the temporaries)."""
        return Cat(address.temp[:self.temp_bits], address.lane, address.context)

    def elaborate(self, platform):
        m = Module()
        # (a power of two: contexts padded, so that every address is a row; the simulators,
        # Verilator above all, handle such a vector's bit selects far better)
        rows = 1 << (ceil_log2(max(self.contexts, 2)) + 2 + self.temp_bits)
        context_rows = LANES << self.temp_bits
        write = self.write
        for part, channels, enables, read_addrs, outputs in (
                ("rgb", RGB_CHANNELS, write.rgb_en, self.rgb_addr, self.rgb),
                ("alpha", 1, write.alpha_en, self.alpha_addr, self.alpha)):
            written = Signal(rows, name=f"{part}_written")
            write_row = self._row(write[f"{part}_addr"])
            first = ~written.bit_select(write_row, 1)
            # the first write of a part writes its every channel: zeros where not enabled
            value = Cat(Mux(enables[c], Value.cast(write[part]).word_select(c, 32), 0)
                        for c in range(channels))
            # (a write in the cycle of a clear counts: it comes after it)
            with m.If(self.clear):
                m.d.sync += written.word_select(self.clear_context, context_rows).eq(0)
            with m.If(enables.any()):
                m.d.sync += written.bit_select(write_row, 1).eq(1)
            for n in range(SLOTS):
                memory = Memory(shape=unsigned(32 * channels), depth=rows, init=[],
                                attrs=READ_COLLISION_UNDEFINED)
                m.submodules[f"{part}{n}"] = memory
                write_port = memory.write_port(granularity=32)
                m.d.comb += [write_port.addr.eq(write_row), write_port.data.eq(value),
                             write_port.en.eq(Mux(first & enables.any(),
                                                  (1 << channels) - 1, enables))]
                read_port = memory.read_port()
                read_row = self._row(read_addrs[n])
                valid = Signal(name=f"{part}{n}_valid")
                m.d.comb += read_port.addr.eq(read_row)
                m.d.sync += valid.eq(written.bit_select(read_row, 1))
                m.d.comb += outputs[n].eq(Mux(valid, read_port.data, 0))
        return m
