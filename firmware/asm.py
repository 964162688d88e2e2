"""THEIA assembler: assembly text to a program image (entry table + code).

    python -m firmware.asm PROGRAM.s [-o OUT] [--rom] [--format mem|rom|hex] [--max-words N]

The syntax is ``theia-isa.md`` §7 "Assembly syntax"; in short:

* One statement per line, ``//`` comments, names case-sensitive. ``NAME:`` (alone or before a
  statement) labels the next word; ``ENTRYPOINT_ADRR_<ROUTINE>:`` also makes it the routine's
  entry. Labels may be used before they are defined.
* Operands by form (taken from ``hdl.isa``, see ``firmware.program.form_of``):
  ``OP DST SRC1 SRC2`` (type I), ``JGX TARGET SRC1 SRC2``, ``SETX|SETY|SETZ|RET DST IMM``,
  ``SWIZZLE3D DST SWIZZLE_XYZ``, ``JMP|CALL TARGET [VOID VOID]``, ``RETURN RT_TRUE|RT_FALSE|IMM``,
  ``NOP [RT_FALSE|VOID ...]``.
* Registers: a name of ``hdl.isa.REG_BY_NAME`` (aliases and ``VOID`` included) or a number
  0..131. Fields the opcode does not read as a register (e.g. OMWRITE's DST, MAG's SRC2) take a
  register name or any number 0..0xFFFF.
* TARGET: a label or a code address 0..0xFFFF.
* IMM: ``32'hXXXXXXXX`` (any ``N'h``/``N'd``/``N'b``/``N'o`` that fits in N bits), ``0x...``,
  decimal (negative = two's complement), fixed point with a decimal point (``1.5``: rounded to the
  nearest Q14.17 value, ties away from zero; range [-16384, 16384)), ``RT_TRUE``/``RT_FALSE``,
  ``SWIZZLE_XXX``...``SWIZZLE_YXZ``.

Directives (the disassembler uses them so that any image round-trips):

* ``.word VALUE`` -- one raw 64-bit word (an integer literal up to 64 bits) at this address.
* ``.entry ROUTINE VALUE`` -- entry-table word of ROUTINE (a name of ``hdl.isa.ENTRY_NAMES``)
  = VALUE (a label or an integer up to 64 bits), instead of an ``ENTRYPOINT_ADRR_`` label.

Image: a user program (default) is origin 0x8000, words 0..11 the entry table (a routine the
program does not define gets ``hdl.isa.ORIGINAL_ENTRY_ADDRESSES[i]``, i.e. "built-in"), code from
0x800C, at most ``max_words`` words (default 1,024) including the table. A ROM (``rom=True``) has
the same layout at origin 0 and must define all 12 entries.
"""

import argparse
from fractions import Fraction
import math
import re
import sys

from hdl.isa import (
    ENTRY_INDEX, ENTRY_NAMES, MASK32, NUM_ENTRIES, NUM_REGS, ONE, ORIGINAL_ENTRY_ADDRESSES,
    REG_BY_NAME, RT_FALSE, RT_TRUE, SWIZZLE_BY_NAME, SWIZZLES, USER_CODE_BASE, VOID,
    Instruction, pack,
)
from firmware.disasm import disassemble_word
from firmware.program import (
    AsmError, Diagnostic, Form, FORMS, Program, ENTRY_LABEL_PREFIX, ROM_ORIGIN, USER_RAM_WORDS,
    address_space_words, entry_label, read_mem_words,
)

__all__ = [
    "AsmError", "Program", "assemble", "assemble_file", "write_instructions_mem",
    "write_rom_mem", "write_hex", "read_mem_words", "parse_immediate", "MAX_ERRORS",
]

#: errors reported at most per run (the rest would mostly be consequences)
MAX_ERRORS = 20

_LABEL = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*:")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_VERILOG = re.compile(r"(\d*)'([hHdDbBoO])([0-9a-fA-F_]+)")
_HEX = re.compile(r"[+-]?0[xX][0-9a-fA-F_]+")
_DECIMAL = re.compile(r"[+-]?[0-9][0-9_]*")
_FIXED = re.compile(r"[+-]?(?:[0-9]+\.[0-9]*|\.[0-9]+)")
_VERILOG_BASES = {"h": 16, "d": 10, "b": 2, "o": 8}
_IMM_SYMBOLS = {"RT_TRUE": RT_TRUE, "RT_FALSE": RT_FALSE, **SWIZZLE_BY_NAME}
_FIXED_MIN, _FIXED_MAX = -16384, 16384          # Q14.17 range, max exclusive


class _Problem(Exception):
    """A problem with the statement being assembled (the caller adds file and line)."""


class _TooManyErrors(Exception):
    pass


# --- operand parsers -------------------------------------------------------------------------

def _numeric(token):
    return token[:1].isdigit() or token[:1] in "+-.'"


def parse_integer(token):
    """An integer literal: decimal, ``0x`` hex (both may be signed) or Verilog ``N'hX``."""
    try:
        if m := _VERILOG.fullmatch(token):
            size, base, digits = m.groups()
            value = int(digits, _VERILOG_BASES[base.lower()])
            if size:
                if not 1 <= int(size) <= 64:
                    raise _Problem(f"bad number syntax {token!r}: size must be 1..64 bits")
                if value >> int(size):
                    raise _Problem(f"number {token!r} does not fit in {int(size)} bits")
            return value
        if _HEX.fullmatch(token):
            return int(token, 16)
        if _DECIMAL.fullmatch(token):
            return int(token, 10)
    except ValueError:
        pass
    raise _Problem(f"bad number syntax {token!r}")


def _parse_fixed(token):
    value = Fraction(token)
    if not _FIXED_MIN <= value < _FIXED_MAX:
        raise _Problem(f"fixed-point literal {token} out of range [{_FIXED_MIN}, {_FIXED_MAX})")
    scaled = abs(value) * ONE
    rounded = math.floor(scaled + Fraction(1, 2)) * (-1 if value < 0 else 1)
    if not -(1 << 31) <= rounded < 1 << 31:
        raise _Problem(f"fixed-point literal {token} rounds to {rounded / ONE}, out of range "
                       f"[{_FIXED_MIN}, {_FIXED_MAX})")
    return rounded & MASK32


def parse_immediate(token):
    """The 32-bit IMM field a literal denotes (raises AsmError on a bad literal)."""
    try:
        return _parse_imm32(token)
    except _Problem as e:
        raise AsmError(str(e)) from None


def _parse_imm32(token):
    if token in _IMM_SYMBOLS:
        return _IMM_SYMBOLS[token]
    if _FIXED.fullmatch(token):
        return _parse_fixed(token)
    if not _numeric(token):
        raise _Problem(f"bad immediate {token!r} (expected a number, a fixed-point literal, "
                       f"RT_TRUE/RT_FALSE or SWIZZLE_...)")
    value = parse_integer(token)
    if not -(1 << 31) <= value < 1 << 32:
        raise _Problem(f"immediate {token} out of range (32 bits)")
    return value & MASK32


def _parse_register(token):
    if token in REG_BY_NAME:
        return REG_BY_NAME[token]
    if not _numeric(token):
        raise _Problem(f"bad register name {token!r}")
    value = parse_integer(token)
    if not 0 <= value < NUM_REGS:
        raise _Problem(f"register number {token} out of range (0..{NUM_REGS - 1})")
    return value


def _parse_field(token):
    """A field the opcode does not read as a register: a register name or any 16-bit number."""
    if token in REG_BY_NAME or not _numeric(token):
        return _parse_register(token)
    value = parse_integer(token)
    if not 0 <= value <= 0xFFFF:
        raise _Problem(f"field value {token} out of range (0..0xFFFF)")
    return value


def _parse_swizzle(token):
    if token in SWIZZLE_BY_NAME:
        return SWIZZLE_BY_NAME[token]
    if not _numeric(token):
        raise _Problem(f"bad swizzle selector {token!r} (expected SWIZZLE_XXX..SWIZZLE_YXZ "
                       f"or a number 0..{max(SWIZZLES)})")
    value = parse_integer(token)
    if value not in SWIZZLES:
        raise _Problem(f"swizzle selector {token} out of range (0..{max(SWIZZLES)})")
    return value


# --- the assembler ---------------------------------------------------------------------------

class _Statement:
    __slots__ = ("line", "address", "mnemonic", "operands")

    def __init__(self, line, address, mnemonic, operands):
        self.line, self.address, self.mnemonic, self.operands = line, address, mnemonic, operands


class _Assembler:
    def __init__(self, filename, rom, max_words):
        self.filename = filename
        self.rom = rom
        self.origin = ROM_ORIGIN if rom else USER_CODE_BASE
        space = address_space_words(self.origin)
        if max_words is None:
            max_words = space if rom else USER_RAM_WORDS
        if max_words < NUM_ENTRIES:
            raise ValueError(f"max_words = {max_words} leaves no room for the entry table")
        self.max_words = min(max_words, space)
        self.diagnostics = []
        self.labels = {}            # name -> address
        self.label_lines = {}       # name -> line
        self.entries = {}           # routine -> (table word, line)
        self.statements = []

    # -- diagnostics

    def error(self, line, problem):
        self.diagnostics.append(Diagnostic(self.filename, line, problem))
        if len(self.diagnostics) >= MAX_ERRORS:
            raise _TooManyErrors

    # -- pass 1: statements, addresses, labels

    def scan(self, text):
        address = self.origin + NUM_ENTRIES
        too_large = False
        lineno = 0
        for lineno, line in enumerate(text.splitlines(), 1):
            body = line.split("//", 1)[0]
            while m := _LABEL.match(body):
                self.define_label(m.group(1), address, lineno)
                body = body[m.end():]
            tokens = body.split()
            if not tokens:
                continue
            mnemonic, operands = tokens[0], tokens[1:]
            if mnemonic.endswith(":") or ":" in mnemonic:
                self.error(lineno, f"bad label name {mnemonic.split(':')[0]!r}")
                continue
            if mnemonic == ".entry":
                self.statements.append(_Statement(lineno, None, mnemonic, operands))
                continue
            if address - self.origin >= self.max_words and not too_large:
                too_large = True
                self.error(lineno, f"program too large: more than {self.max_words} words "
                                   f"(entry table included)")
            self.statements.append(_Statement(lineno, address, mnemonic, operands))
            address += 1
        return lineno

    def define_label(self, name, address, line):
        if name in self.labels:
            self.error(line, f"duplicate label {name!r} (first defined at line "
                             f"{self.label_lines[name]})")
            return
        if name.startswith(ENTRY_LABEL_PREFIX):
            routine = name[len(ENTRY_LABEL_PREFIX):]
            if routine not in ENTRY_INDEX:
                self.error(line, f"unknown ENTRYPOINT routine name {routine!r} (expected one "
                                 f"of {', '.join(ENTRY_NAMES)})")
                return
            self.define_entry(routine, address, line)
        self.labels[name] = address
        self.label_lines[name] = line

    def define_entry(self, routine, value, line):
        if routine in self.entries:
            self.error(line, f"entry of routine {routine} already defined at line "
                             f"{self.entries[routine][1]}")
        else:
            self.entries[routine] = (value, line)

    # -- pass 2: encoding

    def target(self, token, limit=0xFFFF):
        if _NAME.fullmatch(token):
            if token not in self.labels:
                raise _Problem(f"undefined label {token!r}")
            return self.labels[token]
        value = parse_integer(token)
        if not 0 <= value <= limit:
            raise _Problem(f"code address {token} out of range (0..0x{limit:X})")
        return value

    @staticmethod
    def expect(name, form, operands, *counts):
        if len(operands) not in counts:
            if form is Form.JUMP:
                wanted = "1 operand (TARGET) or 3 (TARGET VOID VOID)"
            else:
                wanted = f"{counts[0]} operand{'s' * (counts[0] != 1)} ({form.value})"
            raise _Problem(f"{name} expects {wanted}, got {len(operands)}")

    def encode(self, st):
        name, ops = st.mnemonic, st.operands
        if name == ".word":
            if len(ops) != 1:
                raise _Problem(f".word expects 1 operand (a 64-bit value), got {len(ops)}")
            value = parse_integer(ops[0])
            if not 0 <= value < 1 << 64:
                raise _Problem(f".word value {ops[0]} out of range (64 bits)")
            return value
        if name.startswith("."):
            raise _Problem(f"unknown directive {name!r} (expected .word or .entry)")
        if name not in FORMS:
            hint = f" (names are case-sensitive: {name.upper()})" if name.upper() in FORMS else ""
            raise _Problem(f"unknown opcode {name!r}{hint}")
        info, form = FORMS[name]
        if form is Form.NOP:
            if len(ops) > 3:
                raise _Problem(f"NOP expects at most 3 operands (RT_FALSE or VOID), "
                               f"got {len(ops)}")
            for op in ops:
                if op not in ("RT_FALSE", "VOID") and not (_numeric(op)
                                                           and parse_integer(op) == 0):
                    raise _Problem(f"NOP operand {op!r} must be RT_FALSE or VOID")
            return pack(Instruction(info.op))
        if form in (Form.REGS, Form.BRANCH):
            self.expect(name, form, ops, 3)
            if form is Form.BRANCH:
                dst = self.target(ops[0])
            else:
                dst = (_parse_register if info.dst_reg else _parse_field)(ops[0])
            src1 = (_parse_register if info.a_reg else _parse_field)(ops[1])
            src2 = (_parse_register if info.b_reg else _parse_field)(ops[2])
            return pack(Instruction(info.op, dst, src1, src2))
        if form is Form.JUMP:
            self.expect(name, form, ops, 1, 3)
            for extra in ops[1:]:
                if extra != "VOID":
                    raise _Problem(f"{name} operand {extra!r} after the target must be VOID")
            return pack(Instruction.type2(info.op, self.target(ops[0]), 0))
        if form is Form.RETURN:
            self.expect(name, form, ops, 1)
            return pack(Instruction.type2(info.op, VOID, _parse_imm32(ops[0])))
        self.expect(name, form, ops, 2)
        dst = _parse_register(ops[0])
        imm = _parse_swizzle(ops[1]) if form is Form.SWIZZLE else _parse_imm32(ops[1])
        return pack(Instruction.type2(info.op, dst, imm))

    def entry_directive(self, st):
        if len(st.operands) != 2:
            raise _Problem(f".entry expects 2 operands (ROUTINE VALUE), got {len(st.operands)}")
        routine, value = st.operands
        if routine not in ENTRY_INDEX:
            raise _Problem(f"unknown ENTRYPOINT routine name {routine!r} (expected one of "
                           f"{', '.join(ENTRY_NAMES)})")
        self.define_entry(routine, self.target(value, limit=(1 << 64) - 1), st.line)

    def assemble(self, text):
        try:
            last_line = self.scan(text)
            words, lines = [0] * NUM_ENTRIES, {}
            for st in self.statements:
                try:
                    if st.address is None:
                        self.entry_directive(st)
                        continue
                    lines[st.address] = (self.filename, st.line)
                    words.append(0)
                    words[-1] = self.encode(st)
                except _Problem as problem:
                    self.error(st.line, str(problem))
            missing = []
            for index, routine in enumerate(ENTRY_NAMES):
                if routine in self.entries:
                    words[index] = self.entries[routine][0]
                elif self.rom:
                    missing.append(routine)
                else:
                    words[index] = ORIGINAL_ENTRY_ADDRESSES[index]
            if missing:
                self.error(max(last_line, 1),
                           f"ROM needs every entry point; missing "
                           f"{', '.join(ENTRY_LABEL_PREFIX + r for r in missing)}")
        except _TooManyErrors:
            self.diagnostics.append(Diagnostic(self.filename, None,
                                               f"too many errors; stopped after {MAX_ERRORS}"))
        if self.diagnostics:
            raise AsmError(sorted(self.diagnostics,
                                  key=lambda d: (d.line is None, d.line or 0)))
        entries = {routine: value & 0xFFFF for routine, (value, _) in
                   sorted(self.entries.items(), key=lambda kv: ENTRY_INDEX[kv[0]])}
        return Program(self.origin, words, dict(self.labels), entries, lines)


def assemble(text, filename="<string>", rom=False, max_words=None):
    """Assemble ``text``; raises :class:`AsmError` listing up to ``MAX_ERRORS`` problems."""
    return _Assembler(filename, rom, max_words).assemble(text)


def assemble_file(path, rom=False, max_words=None):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError as e:
        raise AsmError([Diagnostic(str(path), None, f"cannot read: {e.strerror}")]) from None
    return assemble(text, str(path), rom, max_words)


# --- output formats --------------------------------------------------------------------------

def _target_names(program):
    names = {}
    for name, addr in program.labels.items():
        names.setdefault(addr, name)
    return names


def _write(path_or_file, text):
    if hasattr(path_or_file, "write"):
        path_or_file.write(text)
    else:
        with open(path_or_file, "w", encoding="utf-8") as f:
            f.write(text)


def write_instructions_mem(program, path_or_file):
    """The original ``Instructions.mem`` format: a count, then ``hi lo`` pairs with comments."""
    if program.origin != USER_CODE_BASE:
        raise ValueError("Instructions.mem holds a user program (origin 0x8000); "
                         "write a ROM with write_rom_mem")
    rule = "//" + "-" * 38
    out = [f"{2 * len(program.words)} //Number of ioctects in file", rule,
           "//Subroutine Entry Point Table"]
    for index, word in enumerate(program.words[:NUM_ENTRIES]):
        out.append(f"{word >> 32:08X} {word & MASK32:08X}\t//{entry_label(index)}")
    out.append(rule)
    names = _target_names(program)
    for index, word in enumerate(program.code, NUM_ENTRIES):
        addr = program.origin + index
        out.append(f"{word >> 32:08X} {word & MASK32:08X}\t\t//  IP {addr:06X} ({index}): "
                   f"{disassemble_word(word, addr, names)}")
    _write(path_or_file, "\n".join(out) + "\n")


def write_rom_mem(program, path_or_file):
    """One 64-bit word per line (16 hex digits, ``$readmemh``) with ``// addr: ...`` comments."""
    kind = "firmware ROM" if program.rom else "user program"
    out = [f"// THEIA {kind}: {len(program.words)} 64-bit words from 0x{program.origin:04X} "
           f"({NUM_ENTRIES}-word entry table + code)"]
    for index, word in enumerate(program.words[:NUM_ENTRIES]):
        out.append(f"{word:016X} // {program.origin + index:04X}: {entry_label(index)} = "
                   f"0x{word & 0xFFFF:04X}")
    names = _target_names(program)
    for index, word in enumerate(program.code, NUM_ENTRIES):
        addr = program.origin + index
        out.append(f"{word:016X} // {addr:04X}: {disassemble_word(word, addr, names)}")
    _write(path_or_file, "\n".join(out) + "\n")


def write_hex(program, path_or_file):
    """One 64-bit word per line, 16 hex digits, nothing else."""
    _write(path_or_file, "".join(f"{word:016X}\n" for word in program.words))


_WRITERS = {"mem": write_instructions_mem, "rom": write_rom_mem, "hex": write_hex}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m firmware.asm",
                                     description="Assemble a THEIA program.")
    parser.add_argument("program", help="assembly source (.s)")
    parser.add_argument("-o", "--output", help="output file (default: stdout)")
    parser.add_argument("--rom", action="store_true",
                        help="assemble a firmware ROM at address 0 (all 12 entries required)")
    parser.add_argument("--format", choices=sorted(_WRITERS),
                        help="mem = original Instructions.mem (default for user programs), "
                             "rom = one commented 64-bit word per line (default with --rom), "
                             "hex = bare 64-bit words")
    parser.add_argument("--max-words", type=int, default=None,
                        help=f"size limit in words, entry table included (default "
                             f"{USER_RAM_WORDS} for user programs)")
    args = parser.parse_args(argv)
    fmt = args.format or ("rom" if args.rom else "mem")
    if args.rom and fmt == "mem":
        print(f"{args.program}: Instructions.mem format holds user programs; "
              f"use --format rom or hex with --rom", file=sys.stderr)
        return 1
    try:
        program = assemble_file(args.program, rom=args.rom, max_words=args.max_words)
    except AsmError as e:
        print(e, file=sys.stderr)
        return 1
    except ValueError as e:
        print(f"{args.program}: {e}", file=sys.stderr)
        return 1
    try:
        _WRITERS[fmt](program, args.output or sys.stdout)
    except OSError as e:
        print(f"{args.output}: cannot write: {e.strerror}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
