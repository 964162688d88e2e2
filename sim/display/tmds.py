"""TMDS as DVI 1.0 §3.2.3 defines it, in plain Python: the reference the encoder RTL is held
to, and the tables the receiver model (``sim.display.tmds_decode``) decodes with.

``encode(byte, cnt)`` is the encode algorithm of the spec's Figure 3-5, step by step; ``cnt``
is the running disparity (ones minus zeros sent since the last control period). Control
symbols by C1C0 are ``CONTROL``. A data symbol's disparity (ones minus zeros of its 10 bits)
is exactly what ``encode`` adds to ``cnt``, so a receiver can follow ``cnt`` from the symbols
alone.
"""

from functools import lru_cache

import numpy as np

__all__ = ["CONTROL", "CNT_BOUND", "encode", "encode_word", "decode_data", "symbol_disparity",
           "reachable_cnt", "data_codes", "tables"]

#: q_out[9:0] for C1C0 = 00, 01, 10, 11 (DVI 1.0 §3.2.3)
CONTROL = (0b1101010100, 0b0010101011, 0b0101010100, 0b1010101011)


def _ones(value):
    return bin(value).count("1")


def encode_word(byte):
    """The transition-minimised 9-bit q_m of ``byte`` (bit 8: 1 = XOR, 0 = XNOR)."""
    ones = _ones(byte)
    use_xnor = ones > 4 or (ones == 4 and not byte & 1)
    q_m = byte & 1
    for i in range(1, 8):
        bit = ((q_m >> (i - 1)) ^ (byte >> i)) & 1
        q_m |= (bit ^ use_xnor) << i
    return q_m | (0 if use_xnor else 1) << 8


def encode(byte, cnt):
    """(the 10-bit symbol q_out[9:0] of data ``byte`` at running disparity ``cnt``, the new
    ``cnt``)."""
    q_m = encode_word(byte)
    low, xor = q_m & 0xFF, q_m >> 8
    n1 = _ones(low)
    n0 = 8 - n1
    if cnt == 0 or n1 == n0:
        symbol = (1 - xor) << 9 | xor << 8 | (low if xor else low ^ 0xFF)
        cnt += (n1 - n0) if xor else (n0 - n1)
    elif (cnt > 0 and n1 > n0) or (cnt < 0 and n0 > n1):
        symbol = 1 << 9 | xor << 8 | (low ^ 0xFF)
        cnt += 2 * xor + (n0 - n1)
    else:
        symbol = xor << 8 | low
        cnt += -2 * (1 - xor) + (n1 - n0)
    return symbol, cnt


def decode_data(symbol):
    """The byte a data symbol carries (bit 9: the low 8 bits were inverted; bit 8: XOR)."""
    low = symbol & 0xFF
    if symbol >> 9 & 1:
        low ^= 0xFF
    byte = low & 1
    for i in range(1, 8):
        bit = ((low >> i) ^ (low >> (i - 1))) & 1
        byte |= (bit if symbol >> 8 & 1 else bit ^ 1) << i
    return byte


def symbol_disparity(symbol):
    """Ones minus zeros of a 10-bit symbol."""
    return 2 * _ones(symbol & 0x3FF) - 10


@lru_cache(maxsize=None)
def reachable_cnt():
    """Every running disparity the algorithm reaches from 0, sorted."""
    seen, pending = {0}, [0]
    while pending:
        cnt = pending.pop()
        for byte in range(256):
            _, after = encode(byte, cnt)
            if after not in seen:
                seen.add(after)
                pending.append(after)
    return tuple(sorted(seen))


#: the running disparity stays within +-CNT_BOUND (computed: 8)
CNT_BOUND = max(abs(c) for c in reachable_cnt())


@lru_cache(maxsize=None)
def data_codes():
    """The 10-bit symbols the algorithm can send for data (460 of the 1024)."""
    return frozenset(encode(byte, cnt)[0] for cnt in reachable_cnt() for byte in range(256))


@lru_cache(maxsize=None)
def tables():
    """numpy tables over the 1024 symbols, for vectorised decoding: ``control`` (C1C0, or -1),
    ``data`` (the byte, or -1 for a symbol that is no data code), ``disparity``; and
    ``expected[cnt + CNT_BOUND, byte]``: the symbol the algorithm sends for ``byte`` at ``cnt``
    (0 where ``cnt`` is odd, which is never reached)."""
    control = np.full(1024, -1, dtype=np.int16)
    for value, symbol in enumerate(CONTROL):
        control[symbol] = value
    codes = data_codes()
    data = np.array([decode_data(s) if s in codes else -1 for s in range(1024)], dtype=np.int16)
    disparity = np.array([symbol_disparity(s) for s in range(1024)], dtype=np.int16)
    expected = np.zeros((2 * CNT_BOUND + 1, 256), dtype=np.int16)
    for cnt in reachable_cnt():
        for byte in range(256):
            expected[cnt + CNT_BOUND, byte] = encode(byte, cnt)[0]
    for table in (control, data, disparity, expected):
        table.flags.writeable = False
    return {"control": control, "data": data, "disparity": disparity, "expected": expected}
