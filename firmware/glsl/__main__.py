"""python -m firmware.glsl SHADER.frag -o PROG.asm|.inc|.hex|.bin [--interface IFACE.json]
[--temporaries N --constants N --instructions N]

Errors: one ``file:line:column: problem`` line on stderr, exit status 2."""

import argparse
import sys
from pathlib import Path

from firmware.glsl.compiler import Limits, compile_glsl, format_interface
from firmware.glsl.errors import GlslError
from firmware.r500.wordfile import WORD_FORMATS, format_words

__all__ = ["main"]

_FORMATS = ("asm",) + WORD_FORMATS


def _fail(message):
    print(message, file=sys.stderr)
    return 2


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m firmware.glsl",
                                     description="Compile a GLSL 1.10/1.20 fragment shader "
                                                 "for the R500 core.")
    parser.add_argument("shader", help="GLSL source (.frag)")
    parser.add_argument("-o", "--output", required=True,
                        help="the program: .asm (assembly), .inc, .hex or .bin (words)")
    parser.add_argument("--interface", help="write the uniforms' constant slots, the "
                                            "samplers and the inputs read (JSON)")
    defaults = Limits()
    for name in ("temporaries", "constants", "instructions"):
        parser.add_argument(f"--{name}", type=int, default=getattr(defaults, name),
                            help=f"the build's {name} (default {getattr(defaults, name)})")
    args = parser.parse_args(argv)
    fmt = Path(args.output).suffix.lower().lstrip(".")
    if fmt not in _FORMATS:
        return _fail(f"{args.output}: unknown output format (name it .asm, .inc, .hex or "
                     f".bin)")
    for name in ("temporaries", "constants", "instructions"):
        if getattr(args, name) < 1:
            return _fail(f"--{name} must be at least 1")
    limits = Limits(args.temporaries, args.constants, args.instructions, defaults.samplers)
    try:
        source = Path(args.shader).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        return _fail(f"{args.shader}: cannot read: {getattr(e, 'strerror', None) or e}")
    try:
        compiled = compile_glsl(source, args.shader, limits)
    except GlslError as e:
        return _fail(str(e))
    data = compiled.asm.encode() if fmt == "asm" else format_words(compiled.words, fmt)
    try:
        Path(args.output).write_bytes(data)
        if args.interface:
            Path(args.interface).write_text(format_interface(compiled.interface))
    except OSError as e:
        return _fail(f"cannot write: {e.strerror}: {e.filename}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
