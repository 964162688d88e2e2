"""Request traffic for the SDRAM memory and its check against a dictionary.

``Request``: one request of a port (address, write or read, words, the write data and byte
enables). The generators make the access patterns of the GPU board's requesters and seeded
random mixtures; ``Replay`` applies requests in the order the arbiter granted them to a plain
dictionary of the memory and returns, per port, the words every read must return.
"""

from dataclasses import dataclass, field

__all__ = ["Request", "Replay", "scanout_reads", "frame_writes", "line_fills", "random_words",
           "random_requests"]


@dataclass
class Request:
    addr: int
    write: bool
    words: int
    data: list = field(default_factory=list)         # writes: one word each
    byte_enable: list = field(default_factory=list)  # writes: bit i = byte i written


def _write(rng, addr, words, chip, partial=0.0):
    full = (1 << (chip.data_width // 8)) - 1
    data = [rng.getrandbits(chip.data_width) for _ in range(words)]
    enables = [rng.randrange(full + 1) if rng.random() < partial else full
               for _ in range(words)]
    return Request(addr, True, words, data, enables)


def scanout_reads(chip, count, words=16, start=0, frame_words=None):
    """The scan-out: a frame (``frame_words``, default the whole memory) read front to back in
    ``words``-word requests, from word ``start`` of it."""
    size = frame_words or chip.words
    return [Request((start + i * words) % size, False, words) for i in range(count)]


def frame_writes(chip, rng, count, words=16, start=0, frame_words=None):
    """Frame writes: random words written front to back over a frame, as ``scanout_reads``
    reads it, every byte."""
    size = frame_words or chip.words
    full = (1 << (chip.data_width // 8)) - 1
    return [Request((start + i * words) % size, True, words,
                    [rng.getrandbits(chip.data_width) for _ in range(words)], [full] * words)
            for i in range(count)]


def line_fills(chip, rng, count, words=8):
    """The texture cache: ``words``-word lines at random aligned addresses."""
    lines = chip.words // words
    return [Request(rng.randrange(lines) * words, False, words) for _ in range(count)]


def random_words(chip, rng, count, write_fraction=0.5):
    """Single words at random addresses, reads and writes."""
    out = []
    for _ in range(count):
        addr = rng.randrange(chip.words)
        out.append(_write(rng, addr, 1, chip) if rng.random() < write_fraction
                   else Request(addr, False, 1))
    return out


def random_requests(chip, rng, count, max_words, rows_per_bank=3, write_fraction=0.5,
                    partial=0.2):
    """Every bank, a few rows of each (so row hits and misses both happen), any column (so
    requests cross row ends), 1 .. ``max_words`` words, partial byte masks."""
    rows = [rng.sample(range(1 << chip.row_bits), rows_per_bank) for _ in range(chip.banks)]
    out = []
    for _ in range(count):
        bank = rng.randrange(chip.banks)
        row = rng.choice(rows[bank])
        col = rng.randrange(1 << chip.col_bits)
        if rng.random() < 0.2:              # near the row's end
            col = (1 << chip.col_bits) - 1 - rng.randrange(max_words)
        addr = (((row << chip.bank_bits) | bank) << chip.col_bits) | col
        words = rng.randint(1, max_words)
        out.append(_write(rng, addr, words, chip, partial) if rng.random() < write_fraction
                   else Request(addr, False, words))
    return out


class Replay:
    """The memory as a plain dictionary (address -> word written); an address never written
    reads ``initial[address]`` (the image the chip model was preloaded with), or 0."""

    def __init__(self, chip, initial=None):
        self.chip = chip
        self.memory = {}
        self.initial = initial

    def _word(self, addr):
        word = self.memory.get(addr)
        if word is None:
            word = 0 if self.initial is None else int(self.initial[addr])
        return word

    def apply(self, request):
        """Perform ``request``; the words a read returns, None for a write."""
        mask = self.chip.words - 1
        if request.write:
            for i, (word, enable) in enumerate(zip(request.data, request.byte_enable)):
                addr = (request.addr + i) & mask
                old = self._word(addr)
                for byte in range(self.chip.data_width // 8):
                    if enable >> byte & 1:
                        keep = ~(0xFF << (8 * byte))
                        old = (old & keep) | (word & (0xFF << (8 * byte)))
                self.memory[addr] = old
            return None
        return [self._word((request.addr + i) & mask) for i in range(request.words)]

    def expected_reads(self, grants, requests):
        """``grants``: the port of each granted request, in grant order; ``requests``: each
        port's list. Returns each port's expected read words, in order."""
        taken = [0] * len(requests)
        expected = [[] for _ in requests]
        for port in grants:
            words = self.apply(requests[port][taken[port]])
            taken[port] += 1
            if words is not None:
                expected[port] += words
        return expected
