"""THEIA disassembler: instruction words back to assembly text that re-assembles to the same words.

    python -m firmware.disasm FILE [--rom]

FILE is an ``Instructions.mem`` file or a 64-bit image (``firmware.asm --format rom|hex``);
``--rom`` reads it as a firmware ROM (origin 0) instead of a user program (origin 0x8000).

Every word round-trips: words that are not legal instructions (illegal opcode, a register field
>= 132, a SWIZZLE3D selector > 21) and legal words the assembly syntax cannot spell (a NOP with
nonzero fields, JMP/CALL with a nonzero IMM, RETURN with a nonzero DST) become ``.word 0x...``
with a comment saying why. Entry-table values become ``ENTRYPOINT_ADRR_<NAME>:`` labels when they
point at an instruction of the program, nothing when they are a user program's default (the
original's built-in address), and ``.entry <NAME> <value>`` otherwise.
"""

import argparse
import sys

from hdl.isa import (
    NUM_ENTRIES, NUM_REGS, ENTRY_NAMES, ORIGINAL_ENTRY_ADDRESSES, USER_CODE_BASE, VOID,
    SWIZZLES, op_info, reg_name, unpack,
)
from firmware.program import (
    AsmError, Diagnostic, Form, FORMS, ROM_ORIGIN, entry_label, read_mem_words,
)

__all__ = ["disassemble", "disassemble_word", "word_problem", "main"]


def _raw(word):
    return f".word 0x{word:016X}"


def _field(value):
    """A field the instruction does not read as a register: keep its value, spelled readably."""
    if value == VOID:
        return "VOID"
    return reg_name(value) if value < NUM_REGS else f"0x{value:04X}"


def _dst(value):
    return "VOID" if value == VOID else reg_name(value)


def _imm(value):
    return f"32'h{value:08X}"


def _decode(word, labels):
    """``(text, problem)``; ``problem`` is None for an instruction, else why ``text`` is raw."""
    if not 0 <= word < 1 << 64:
        raise ValueError(f"instruction word {word:#x} is not a 64-bit value")
    insn = unpack(word)
    info = op_info(insn.opcode)
    if info is None:
        return _raw(word), f"illegal opcode 0x{insn.opcode:04X}"
    form = FORMS[info.name][1]

    def target(addr):
        return labels.get(addr, f"0x{addr:04X}")

    def bad_registers(*fields):
        for label, value, is_reg in fields:
            if is_reg and value >= NUM_REGS:
                return f"illegal: {info.name} {label} register {value} >= {NUM_REGS}"
        return None

    if form is Form.NOP:
        if word & ((1 << 48) - 1):
            return _raw(word), "NOP with nonzero operand fields"
        return "NOP", None
    if form in (Form.REGS, Form.BRANCH):
        problem = bad_registers(("DST", insn.dst, info.dst_reg), ("SRC1", insn.src1, info.a_reg),
                                ("SRC2", insn.src2, info.b_reg))
        if problem:
            return _raw(word), problem
        if form is Form.BRANCH:
            first = target(insn.dst)
        else:
            first = _dst(insn.dst) if info.dst_reg else _field(insn.dst)
        src1 = reg_name(insn.src1) if info.a_reg else _field(insn.src1)
        src2 = reg_name(insn.src2) if info.b_reg else _field(insn.src2)
        return f"{info.name} {first} {src1} {src2}", None
    if form is Form.JUMP:
        if insn.imm:
            return _raw(word), f"{info.name} with nonzero IMM 0x{insn.imm:08X}"
        return f"{info.name} {target(insn.dst)}", None
    if form is Form.RETURN:
        if insn.dst:
            return _raw(word), f"RETURN with nonzero DST field 0x{insn.dst:04X}"
        value = {1: "RT_TRUE", 0: "RT_FALSE"}.get(insn.imm, _imm(insn.imm))
        return f"RETURN {value}", None
    problem = bad_registers(("DST", insn.dst, True))
    if problem:
        return _raw(word), problem
    if form is Form.SWIZZLE:
        if insn.imm not in SWIZZLES:
            return _raw(word), f"illegal: SWIZZLE3D selector {insn.imm} > {max(SWIZZLES)}"
        return f"{info.name} {_dst(insn.dst)} SWIZZLE_{SWIZZLES[insn.imm][0]}", None
    assert form is Form.SET
    return f"{info.name} {_dst(insn.dst)} {_imm(insn.imm)}", None


def disassemble_word(word, addr=None, labels=None):
    """One instruction word as one assembly statement.

    ``labels`` maps code addresses to the names jump targets are printed with (a number
    otherwise). ``addr`` (the word's own address) is accepted for callers that print traces;
    the text does not depend on it because THEIA's jumps are absolute.
    """
    return _decode(word, labels or {})[0]


def word_problem(word):
    """Why ``disassemble_word`` prints ``word`` as ``.word`` (None when it is an instruction)."""
    return _decode(word, {})[1]


def _target_of(word):
    info = op_info(unpack(word).opcode)
    if info is not None and FORMS[info.name][1] in (Form.BRANCH, Form.JUMP):
        return unpack(word).dst
    return None


def disassemble(words, origin=USER_CODE_BASE):
    """Assembly text for an image of 64-bit ``words`` at ``origin`` (entry table included).

    ``origin`` is 0x8000 (a user program) or 0 (a ROM, to be assembled with ``rom=True``).
    """
    if origin not in (ROM_ORIGIN, USER_CODE_BASE):
        raise ValueError(f"origin must be 0 (ROM) or 0x{USER_CODE_BASE:X} (user program), "
                         f"not 0x{origin:X}")
    if len(words) < NUM_ENTRIES:
        raise ValueError(f"{len(words)} words: an image starts with the {NUM_ENTRIES}-word "
                         f"entry table")
    rom = origin == ROM_ORIGIN
    code_start, end = origin + NUM_ENTRIES, origin + len(words)

    def inside(addr):
        return code_start <= addr < end

    labels_at = {}            # address -> label names, ENTRYPOINT labels first
    entry_lines = []
    for index, value in enumerate(words[:NUM_ENTRIES]):
        if inside(value):
            labels_at.setdefault(value, []).append(entry_label(index))
        elif rom or value != ORIGINAL_ENTRY_ADDRESSES[index]:
            entry_lines.append(f".entry {ENTRY_NAMES[index]} 0x{value:04X}")
    for word in words[NUM_ENTRIES:]:
        target = _target_of(word)
        if target is not None and inside(target) and target not in labels_at:
            labels_at[target] = [f"L_{target:04X}"]
    target_names = {addr: names[0] for addr, names in labels_at.items()}

    kind = "firmware ROM (assemble with --rom)" if rom else "user program"
    out = [f"// THEIA {kind}: origin 0x{origin:04X}, {NUM_ENTRIES} entry-table words + "
           f"{len(words) - NUM_ENTRIES} code words"]
    out += entry_lines
    for addr, word in enumerate(words[NUM_ENTRIES:], code_start):
        for name in labels_at.get(addr, ()):
            out.append(f"{name}:")
        text, problem = _decode(word, target_names)
        comment = f"{addr:04X}" + (f": {problem}" if problem else "")
        out.append(f"    {text:<64} // {comment}")
    return "\n".join(out) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m firmware.disasm",
        description="Disassemble an Instructions.mem file or a 64-bit ROM/hex image.")
    parser.add_argument("file", help="Instructions.mem or a one-64-bit-word-per-line image")
    parser.add_argument("--rom", action="store_true",
                        help="the image is a firmware ROM at address 0 (default: user program "
                             f"at 0x{USER_CODE_BASE:X})")
    args = parser.parse_args(argv)
    try:
        words = read_mem_words(args.file)
        if len(words) < NUM_ENTRIES:
            raise AsmError([Diagnostic(args.file, None,
                                       f"only {len(words)} words; a program starts with the "
                                       f"{NUM_ENTRIES}-word entry table")])
    except AsmError as e:
        print(e, file=sys.stderr)
        return 1
    sys.stdout.write(disassemble(words, ROM_ORIGIN if args.rom else USER_CODE_BASE))
    return 0


if __name__ == "__main__":
    sys.exit(main())
