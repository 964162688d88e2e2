"""The SDRAM's pins as the chip model samples them: one integer per cycle.

Both simulator paths hand the chip model (sim/sdram/model.py) the pin levels of a cycle packed
into one integer (``PinLayout.pack``): Amaranth's simulator from the signals, the fast backend
from its ports in C++ (sim/fast/harness.cc), with the same field order and widths. A cycle in
which nothing happens (``PinLayout.idle_patterns``: a NOP or a deselected chip, DQ not driven,
DQM 0, CKE high) need not be shown to the model at all: the fast backend skips them in C++.
"""

from dataclasses import dataclass

__all__ = ["PinLayout", "PIN_NAMES"]

#: the fields, lowest bits first (levels as on the board: *_n low = asserted)
PIN_NAMES = ("cke", "cs_n", "ras_n", "cas_n", "we_n", "ba", "a", "dqm", "dq", "dq_oe")


@dataclass(frozen=True)
class PinLayout:
    """Offsets and widths of the packed pin word of ``chip``."""
    widths: tuple
    offsets: tuple

    @classmethod
    def of(cls, chip):
        widths = {"cke": 1, "cs_n": 1, "ras_n": 1, "cas_n": 1, "we_n": 1,
                  "ba": max(1, chip.bank_bits), "a": chip.row_bits, "dqm": chip.data_width // 8,
                  "dq": chip.data_width, "dq_oe": 1}
        widths = tuple(widths[name] for name in PIN_NAMES)
        offsets = tuple(sum(widths[:i]) for i in range(len(widths)))
        return cls(widths, offsets)

    @property
    def total_bits(self):
        return sum(self.widths)

    def field(self, name):
        """(offset, mask) of a field."""
        i = PIN_NAMES.index(name)
        return self.offsets[i], (1 << self.widths[i]) - 1

    def pack(self, values):
        """``values``: the fields in ``PIN_NAMES`` order."""
        word = 0
        for value, offset, width in zip(values, self.offsets, self.widths):
            word |= (int(value) & ((1 << width) - 1)) << offset
        return word

    def unpack(self, word):
        return tuple((word >> offset) & ((1 << width) - 1)
                     for offset, width in zip(self.offsets, self.widths))

    def idle_patterns(self):
        """[(mask, value)]: a cycle whose packed word matches one of these changes nothing in
        the chip (NOP, or CS# high; DQ not driven; DQM 0; CKE high)."""
        def bits(**fields):
            mask = value = 0
            for name, level in fields.items():
                offset, field_mask = self.field(name)
                mask |= field_mask << offset
                value |= level << offset
            return mask, value
        common = {"cke": 1, "dq_oe": 0, "dqm": 0}
        return [bits(cs_n=1, **common), bits(ras_n=1, cas_n=1, we_n=1, **common)]
