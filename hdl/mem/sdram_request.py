"""The controller's request front: requests in, pieces that stay within one row out.

A request (``request_layout``: address, write, 1 .. max_words words) may cross the end of a
row; the controller's command logic works on one (bank, row) at a time, so ``RowSplitter``
hands it the request in pieces (``piece_layout``: bank, row, first column, write, the piece's
words - 1), each within one row: at most two for requests no longer than a row. Its output is
registered (the controller compares the piece's row with its open rows straight from these
flip-flops), and its input passes a skid buffer, so ``i.ready`` is a flip-flop too: nothing of
the controller's decisions reaches the requesters' ``ready`` in the same cycle.
"""

from amaranth import Module, Signal, Mux, unsigned
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hdl.lib.skid_buffer import SkidBuffer
from hdl.mem.sdram_bus import request_layout

__all__ = ["RowSplitter", "piece_layout"]


def piece_layout(chip, max_words):
    return data.StructLayout({
        "bank": unsigned(max(1, chip.bank_bits)), "row": unsigned(chip.row_bits),
        "col": unsigned(chip.col_bits), "write": unsigned(1),
        "words_minus_one": unsigned(max(1, (max_words - 1).bit_length())),
    })


class RowSplitter(wiring.Component):
    """``i``: requests; ``o``: pieces within one row, in order."""

    def __init__(self, chip, max_words):
        if max_words > 1 << chip.col_bits:
            raise ValueError(f"requests of up to {max_words} words are longer than a row "
                             f"({1 << chip.col_bits} words)")
        self.chip = chip
        self.max_words = max_words
        super().__init__({
            "i": In(stream.Signature(request_layout(chip, max_words))),
            "o": Out(stream.Signature(piece_layout(chip, max_words))),
        })

    def elaborate(self, platform):
        m = Module()
        chip = self.chip
        m.submodules.skid = skid = SkidBuffer(request_layout(chip, self.max_words))
        wiring.connect(m, wiring.flipped(self.i), skid.i)

        held = Signal()                                     # a request (rest) is held
        line = Signal(chip.address_bits - chip.col_bits)    # {row, bank} of the next piece
        col = Signal(chip.col_bits)
        write = Signal()
        left = Signal.like(skid.o.payload.words_minus_one)  # its words - 1
        to_row_end = Signal(chip.col_bits)                  # words after ``col`` in the row
        fits = Signal()
        m.d.comb += [
            to_row_end.eq(~col),
            fits.eq(left <= to_row_end),
            self.o.valid.eq(held),
            self.o.payload.bank.eq(line[:chip.bank_bits]),
            self.o.payload.row.eq(line[chip.bank_bits:]),
            self.o.payload.col.eq(col),
            self.o.payload.write.eq(write),
            self.o.payload.words_minus_one.eq(Mux(fits, left, to_row_end)),
        ]
        done = ~held | (self.o.ready & fits)            # the held request is (being) passed on
        m.d.comb += skid.o.ready.eq(done)
        with m.If(done):
            m.d.sync += held.eq(skid.o.valid)
            with m.If(skid.o.valid):
                request = skid.o.payload
                m.d.sync += [line.eq(request.addr[chip.col_bits:]),
                             col.eq(request.addr[:chip.col_bits]), write.eq(request.write),
                             left.eq(request.words_minus_one)]
        with m.Elif(self.o.ready):                      # the rest starts the next row
            m.d.sync += [line.eq(line + 1), col.eq(0), left.eq(left - to_row_end - 1)]
        return m
