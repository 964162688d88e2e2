"""The R500 fragment-shader ("US") assembly toolchain's parts: the lexer (with ``#include``), the
spellings shared by the assembler and the disassembler, the per-type instruction parsers, the
flow-control expansion and the word-file formats. The entry points are ``firmware.r500asm`` and
``firmware.r500disasm``; the syntax is ``docs/r500-asm.md``."""
