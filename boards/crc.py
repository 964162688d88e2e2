"""CRC-32 of the UART host link (docs/host-link.md): the reflected IEEE 802.3 / zlib CRC
(polynomial 0x04C11DB7, bit-reversed 0xEDB88320, initial value and final XOR 0xFFFFFFFF).

``crc32`` is the one definition the host tool and the tests use; ``crc32_byte_step`` is the
same step written for Amaranth values, so the RTL checker (boards/host_link.py) is built from
the rule tested here, not from a second transcription.

A frame is followed by its CRC, little-endian; the CRC of the frame *with* its CRC appended
leaves the register (before the final XOR) at ``RESIDUE``, which is how the receiver checks a
frame without knowing where its CRC field starts.
"""

__all__ = ["POLY", "INIT", "RESIDUE", "crc32", "crc32_bytes", "crc32_byte_step"]

POLY = 0xEDB88320          # 0x04C11DB7 bit-reversed: bytes are shifted in LSB first, as a UART sends them
INIT = 0xFFFF_FFFF
RESIDUE = 0xDEBB20E3      # register after a frame and its own CRC (before the final XOR)


def crc32_byte_step(register, byte):
    """The CRC register after shifting in ``byte``, LSB first. Works on ints and on Amaranth
    values alike (only ^, &, >> and negation: ``-feedback`` is all ones or zero); an Amaranth
result is to be truncated to 32 bits."""
    for i in range(8):
        feedback = (register ^ (byte >> i)) & 1
        register = (register >> 1) ^ (POLY & -feedback)
    return register


_TABLE = [crc32_byte_step(n, 0) for n in range(256)]


def crc32(data, crc=0):
    """CRC-32 of ``data`` (bytes), continuing from a previous result ``crc`` (as zlib.crc32)."""
    register = crc ^ INIT
    for byte in data:
        register = (register >> 8) ^ _TABLE[(register ^ byte) & 0xFF]
    return register ^ INIT


def crc32_bytes(data):
    """``data`` followed by its CRC-32, little-endian: a frame as it goes on the line."""
    return bytes(data) + crc32(data).to_bytes(4, "little")
