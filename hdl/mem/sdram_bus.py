"""The SDRAM controller's interfaces: the request bus its users (and the arbiter) speak, the
pad signals it drives, and the chip's command encoding.

Request bus (``SdramBus``, from the requester's side):

* ``cmd`` (stream, requester -> memory): ``addr`` (a word address), ``write``,
  ``words_minus_one`` (a request moves 1 .. ``max_words`` consecutive words; it may cross rows
  and banks);
* ``wdata`` (stream, requester -> memory): for each write request its words, in order:
  ``data`` and ``byte_enable`` (bit i set: byte i of the word is written);
* ``rdata`` (stream, memory -> requester): for each read request its words, in request order.

A word address is {row, bank, column} from the top bit down: consecutive addresses fill a row,
then go on in the same row of the next bank, so a long sequential stream finds the next row
already open in another bank each time it crosses one (``address_fields``).

Pads (``SdramPads``, controller -> PHY): the chip's pins as the controller's registers drive
them, active high (``cs`` = chip selected); hdl/mem/sdram_phy.py puts them through the I/O
cells' registers, whose inversion makes ``cs_n`` etc. of ``cs``.
"""

import enum

from amaranth import unsigned
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

__all__ = ["Command", "request_layout", "write_layout", "SdramBus", "SdramPads",
           "mode_register", "address_fields"]


class Command(enum.IntEnum):
    """The SDRAM's commands as (RAS, CAS, WE) asserted, bit 2 = RAS (with CS asserted)."""
    NOP = 0b000
    BURST_TERMINATE = 0b001
    READ = 0b010
    WRITE = 0b011
    ACTIVE = 0b100
    PRECHARGE = 0b101
    AUTO_REFRESH = 0b110
    LOAD_MODE = 0b111


def _bits(n):
    return max(1, (n - 1).bit_length())


def request_layout(chip, max_words):
    return data.StructLayout({"addr": unsigned(chip.address_bits), "write": unsigned(1),
                              "words_minus_one": unsigned(_bits(max_words))})


def write_layout(chip):
    return data.StructLayout({"data": unsigned(chip.data_width),
                              "byte_enable": unsigned(chip.data_width // 8)})


class SdramBus(wiring.Signature):
    """A requester's port (its view: ``cmd`` and ``wdata`` out, ``rdata`` in)."""

    def __init__(self, chip, max_words):
        self.chip = chip
        self.max_words = max_words
        super().__init__({
            "cmd": Out(stream.Signature(request_layout(chip, max_words))),
            "wdata": Out(stream.Signature(write_layout(chip))),
            "rdata": In(stream.Signature(unsigned(chip.data_width))),
        })

    def __eq__(self, other):
        return (type(other) is SdramBus and self.chip == other.chip
                and self.max_words == other.max_words)

    def __repr__(self):
        return f"SdramBus({self.chip.name}, max_words={self.max_words})"


class SdramPads(wiring.Signature):
    """The chip's pins, active high, before the I/O registers (the controller's side)."""

    def __init__(self, chip):
        self.chip = chip
        super().__init__({
            "clk_en": Out(1), "cs": Out(1), "ras": Out(1), "cas": Out(1), "we": Out(1),
            "ba": Out(max(1, chip.bank_bits)), "a": Out(chip.row_bits),
            "dqm": Out(chip.data_width // 8),
            "dq_o": Out(chip.data_width), "dq_oe": Out(1), "dq_i": In(chip.data_width),
        })

    def __eq__(self, other):
        return type(other) is SdramPads and self.chip == other.chip

    def __repr__(self):
        return f"SdramPads({self.chip.name})"


#: mode register fields: burst length code (A2:A0), CAS latency (A6:A4)
_BURST_CODES = {1: 0, 2: 1, 4: 2, 8: 3}


def mode_register(chip):
    """The LOAD MODE REGISTER address word: ``chip``'s burst length (sequential), CAS latency,
    standard operation, write bursts as programmed."""
    return _BURST_CODES[chip.burst_length] | (chip.cas_latency << 4)


def address_fields(chip, addr):
    """(bank, row, column) of word address ``addr`` (see the module docstring)."""
    col = addr & ((1 << chip.col_bits) - 1)
    bank = (addr >> chip.col_bits) & ((1 << chip.bank_bits) - 1)
    row = addr >> (chip.col_bits + chip.bank_bits)
    return bank, row, col
