"""R500 program word files: ``.inc`` (``0x%08x,`` per line, an empty line after each
instruction), ``.hex`` (one instruction per line, six 8-digit hex words) and ``.bin``
(little-endian 32-bit words, 24 bytes per instruction)."""

from pathlib import Path
import re
import struct

from hdl.isa import R500_WORDS_PER_INSTRUCTION
from firmware.r500.errors import Diagnostic, R500AsmError

__all__ = ["read_words", "parse_word_text", "format_words", "write_words", "WORD_FORMATS"]

WORD_FORMATS = ("inc", "hex", "bin")
_SEPARATORS = re.compile(r"[\s,]+")
_HEX = re.compile(r"(0[xX])?([0-9a-fA-F]{1,8})\Z")


def _whole_instructions(words, path):
    if len(words) % R500_WORDS_PER_INSTRUCTION:
        raise R500AsmError([Diagnostic(str(path), None,
                                       f"{len(words)} words are not whole instructions "
                                       f"({R500_WORDS_PER_INSTRUCTION} words each)")])
    return words


def parse_word_text(text, path="<string>"):
    """The 32-bit hex words of a ``.inc``/``.hex`` text (``0x`` optional; separated by
    white space and commas)."""
    words = []
    for number, line in enumerate(text.splitlines(), 1):
        for token in filter(None, _SEPARATORS.split(line)):
            match = _HEX.match(token)
            if not match:
                raise R500AsmError([Diagnostic(str(path), number,
                                               f"bad word {token!r} (expected a 32-bit hex "
                                               f"number)")])
            words.append(int(match.group(2), 16))
    return _whole_instructions(words, path)


def read_words(path):
    """The words of a word file: ``.bin`` is binary, anything else hex text."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise R500AsmError([Diagnostic(str(path), None, f"cannot read: {e.strerror}")]) from None
    if path.suffix.lower() == ".bin":
        if len(data) % 4:
            raise R500AsmError([Diagnostic(str(path), None,
                                           f"{len(data)} bytes are not whole 32-bit words")])
        return _whole_instructions(list(struct.unpack(f"<{len(data) // 4}I", data)), path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise R500AsmError([Diagnostic(str(path), None, "not a text word file (use .bin for "
                                                        "binary)")]) from None
    return parse_word_text(text, path)


def format_words(words, fmt):
    """``words`` as the bytes of a ``fmt`` ("inc", "hex" or "bin") file."""
    n = R500_WORDS_PER_INSTRUCTION
    if fmt == "bin":
        return struct.pack(f"<{len(words)}I", *words)
    instructions = [words[i:i + n] for i in range(0, len(words), n)]
    if fmt == "inc":
        text = "".join("".join(f"0x{w:08x},\n" for w in inst) + "\n" for inst in instructions)
    elif fmt == "hex":
        text = "".join(" ".join(f"{w:08x}" for w in inst) + "\n" for inst in instructions)
    else:
        raise ValueError(f"unknown word format {fmt!r} (expected one of {WORD_FORMATS})")
    return text.encode()


def write_words(path, words, fmt=None):
    """Write ``words`` to ``path`` in ``fmt`` (default: from the file name's suffix)."""
    path = Path(path)
    fmt = fmt or path.suffix.lower().lstrip(".")
    path.write_bytes(format_words(words, fmt))
