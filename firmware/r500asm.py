"""R500 fragment-shader assembler: assembly text (r500-us.md §5, ``docs/r500-asm.md``) to
instruction words.

    python -m firmware.r500asm PROG.asm -o PROG.inc|PROG.hex|PROG.bin [--format inc|hex|bin]

Without ``-o`` the words go to stdout as ``.inc`` text. Errors are ``file:line: problem`` lines
on stderr, exit status 1.
"""

import argparse
from pathlib import Path
import sys

from firmware.r500.errors import R500AsmError
from firmware.r500.lexer import tokenize, tokenize_file
from firmware.r500.parser import MAX_ERRORS, R500Program, parse_program
from firmware.r500.wordfile import WORD_FORMATS, format_words, read_words, write_words

__all__ = ["R500AsmError", "R500Program", "assemble", "assemble_file", "load_program",
           "read_words", "format_words", "write_words", "MAX_ERRORS", "main"]


def assemble(text, path=None):
    """Assemble ``text``; ``path`` names it in errors and anchors its ``#include``s (default:
    ``<string>`` and the current directory). Raises :class:`R500AsmError`."""
    if path is None:
        return parse_program(tokenize(text))
    path = Path(path)
    return parse_program(tokenize(text, str(path), path.parent, (path.resolve(),)))


def assemble_file(path):
    """Assemble the file at ``path`` (UTF-8 text). Raises :class:`R500AsmError`."""
    return parse_program(tokenize_file(path))


def load_program(path):
    """A program file of any kind: assembly (``.asm``) is assembled, anything else is read as a
    word file (:func:`read_words`, END_ADDR = its last instruction)."""
    if Path(path).suffix.lower() == ".asm":
        return assemble_file(path)
    words = read_words(path)
    return R500Program(words, len(words) // 6 - 1)


def _error(message):
    print(message, file=sys.stderr)
    return 1


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m firmware.r500asm",
                                     description="Assemble an R500 fragment program.")
    parser.add_argument("program", help="assembly source (.asm)")
    parser.add_argument("-o", "--output", help="output file; its suffix (.inc, .hex, .bin) "
                                               "picks the format (default: .inc on stdout)")
    parser.add_argument("--format", choices=WORD_FORMATS, help="output format, whatever the "
                                                               "output file is called")
    args = parser.parse_args(argv)
    fmt = args.format
    if fmt is None and args.output:
        fmt = Path(args.output).suffix.lower().lstrip(".")
        if fmt not in WORD_FORMATS:
            return _error(f"{args.output}: unknown output format (name it .inc, .hex or .bin, "
                          f"or give --format)")
    try:
        data = format_words(assemble_file(args.program).words, fmt or "inc")
    except R500AsmError as e:
        return _error(e)
    if not args.output:
        sys.stdout.buffer.write(data)
    else:
        try:
            Path(args.output).write_bytes(data)
        except OSError as e:
            return _error(f"{args.output}: cannot write: {e.strerror}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
