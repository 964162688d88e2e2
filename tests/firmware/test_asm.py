"""The THEIA assembler (firmware/asm.py): encodings, literals, labels, layout, errors, CLI."""

import io
import subprocess
import sys
from pathlib import Path

import pytest

from hdl.isa import Op, ORIGINAL_ENTRY_ADDRESSES, ENTRY_NAMES
from firmware.asm import (
    AsmError, Program, assemble, assemble_file, parse_immediate, read_mem_words, write_hex,
    write_instructions_mem, write_rom_mem, MAX_ERRORS,
)
from tests.helpers import REPO

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="module")
def example3_mem(scenes_dir):
    """The original example3's user program (the original assembler's output)."""
    return scenes_dir / "example3" / "Instructions.mem"


def code(text, **kw):
    """The code words (after the entry table) of a user program."""
    return assemble(text, **kw).words[12:]


def one(line):
    [word] = code(line)
    return word


def hexword(hi, lo):
    return hi << 32 | lo


# --- encodings -------------------------------------------------------------------------------

# Opcode numbers as printed in theia-isa.md §3 (an independent copy, to check hdl.isa's forms).
SPEC_OPCODES = {
    "NOP": 0x00, "ADD": 0x01, "SUB": 0x02, "DIV": 0x03, "MUL": 0x04, "MAG": 0x05, "COPY": 0x07,
    "JGX": 0x08, "JLX": 0x09, "JEQX": 0x0A, "JNEX": 0x0B, "JGEX": 0x0C, "JLEX": 0x0D,
    "INC": 0x0E, "ZERO": 0x0F,
    "JGY": 0x10, "JLY": 0x11, "JEQY": 0x12, "JNEY": 0x13, "JGEY": 0x14, "JLEY": 0x15,
    "CROSS": 0x16, "DOT": 0x17,
    "JGZ": 0x18, "JLZ": 0x19, "JEQZ": 0x1A, "JNEZ": 0x1B, "JGEZ": 0x1C, "JLEZ": 0x1D,
    "DEBUG_PRINT": 0x1E, "MULP": 0x1F, "MOD": 0x20, "FRAC": 0x21, "INTP": 0x22, "NEG": 0x23,
    "DEC": 0x24, "XCHANGEX": 0x25, "XCHANGEY": 0x26, "XCHANGEZ": 0x27, "IMUL": 0x28,
    "UNSCALE": 0x29, "RESCALE": 0x2A, "INCX": 0x2B, "INCY": 0x2C, "INCZ": 0x2D,
    "OMWRITE": 0x2F, "TMREAD": 0x30, "LEA": 0x31, "RETURN": 0x40, "SETX": 0x41, "SETY": 0x42,
    "SETZ": 0x43, "SWIZZLE3D": 0x44, "JMP": 0x58, "CALL": 0x59, "RET": 0x5A,
}
BRANCHES = {n for n in SPEC_OPCODES if n[0] == "J" and n != "JMP"}
SET_LIKE = {"SETX", "SETY", "SETZ", "RET"}


def spec_case(name):
    """(source line, expected word) for one opcode in its spec form (R1=71, R2=72, R3=73)."""
    op = SPEC_OPCODES[name] << 48
    if name == "NOP":
        return "NOP", 0
    if name in BRANCHES:
        return f"{name} 0x8123 R1 R2", op | 0x8123 << 32 | 71 << 16 | 72
    if name in SET_LIKE:
        return f"{name} R4 32'h12345678", op | 74 << 32 | 0x12345678
    if name == "SWIZZLE3D":
        return "SWIZZLE3D R4 SWIZZLE_ZYZ", op | 74 << 32 | 20
    if name in ("JMP", "CALL"):
        return f"{name} 0x8123", op | 0x8123 << 32
    if name == "RETURN":
        return "RETURN RT_FALSE", op
    return f"{name} R1 R2 R3", op | 71 << 32 | 72 << 16 | 73


def test_spec_table_covers_every_opcode():
    assert set(SPEC_OPCODES) == {op.name for op in Op}
    assert all(SPEC_OPCODES[op.name] == op.value for op in Op)


@pytest.mark.parametrize("name", sorted(SPEC_OPCODES))
def test_every_opcode_in_its_spec_form(name):
    source, expected = spec_case(name)
    assert one(source) == expected, source


@pytest.mark.parametrize("source, hi, lo", [
    # from scenes/theia-2010/example3/Instructions.mem
    ("OMWRITE OREG_PIXEL_COLOR CREG_CURRENT_OUTPUT_PIXEL CREG_TEXTURE_COLOR",
     0x002F0080, 0x0078006E),
    ("RETURN RT_TRUE", 0x00400000, 0x00000001),
    # hand-encoded from the §2 field table
    ("ADD CREG_t CREG_E1 CREG_E2", 0x00010063, 0x00640065),
    ("ZERO R12 VOID VOID", 0x000F0052, 0x00000000),
    ("JNEZ 0x25 CREG_u CREG_ZERO", 0x001B0025, 0x00670077),
    ("SETY CREG_RAY_DIRECTION 32'hFFFE0000", 0x00420055, 0xFFFE0000),
    ("SETZ C7 -1", 0x00430046, 0xFFFFFFFF),
    ("SWIZZLE3D R1 SWIZZLE_XXX", 0x00440047, 0x00000000),
    ("SWIZZLE3D R1 21", 0x00440047, 0x00000015),
    ("RET R99 1", 0x005A0076, 0x00000001),
    ("RET VOID RT_FALSE", 0x005A0000, 0x00000000),
    ("JMP 0x9D VOID VOID", 0x0058009D, 0x00000000),
    ("CALL 0xBE", 0x005900BE, 0x00000000),
    ("NOP RT_FALSE", 0, 0),
    ("NOP VOID VOID VOID", 0, 0),
    ("COPY 127 0x7F 0", 0x0007007F, 0x007F0000),
    ("TMREAD CREG_TEXTURE_COLOR CREG_TEX_COORD1 VOID", 0x0030006E, 0x00740000),
    # aliases of the original spellings
    ("COPY R1 CREG_UNORMALIZED_DIRECTION CREG_FIRST_LIGTH", 0x00070047, 0x00540008),
    ("COPY R1 CREG_FIRST_LIGTH_DIFFUSE OREG_ADDR_O", 0x00070047, 0x00080083),
    # a field the opcode does not read as a register takes any 16-bit value
    ("MAG R1 R2 0xFFFF", 0x00050047, 0x0048FFFF),
    ("DEBUG_PRINT 0x1234 R5 VOID", 0x001E1234, 0x004B0000),
])
def test_known_encodings(source, hi, lo):
    assert one(source) == hexword(hi, lo)


# --- literals --------------------------------------------------------------------------------

@pytest.mark.parametrize("literal, value", [
    ("32'h00030000", 0x30000), ("32'hdeadBEEF", 0xDEADBEEF), ("32'd123", 123), ("8'hFF", 0xFF),
    ("4'b1010", 10), ("'h1_0000", 0x10000), ("0x1F", 0x1F), ("0XFFFFFFFF", 0xFFFFFFFF),
    ("-0x1", 0xFFFFFFFF), ("0", 0), ("42", 42), ("-1", 0xFFFFFFFF),
    ("-2147483648", 0x80000000), ("4294967295", 0xFFFFFFFF),
    ("1.5", 0x30000), ("-0.25", 0xFFFF8000), ("1.", 0x20000), (".5", 0x10000),
    ("+2.0", 0x40000), ("-16384.0", 0x80000000), ("16383.99999", 0x7FFFFFFF),
    # ties round away from zero: 2**-18 is half an LSB
    ("0.000003814697265625", 1), ("-0.000003814697265625", 0xFFFFFFFF),
    ("0.0000038", 0), ("RT_TRUE", 1), ("RT_FALSE", 0), ("SWIZZLE_YXZ", 21), ("SWIZZLE_XXX", 0),
])
def test_immediate_literals(literal, value):
    assert parse_immediate(literal) == value
    assert one(f"SETX R1 {literal}") == hexword(0x00410047, value)


@pytest.mark.parametrize("literal, problem", [
    ("16384.0", "fixed-point literal 16384.0 out of range [-16384, 16384)"),
    ("-16384.1", "fixed-point literal -16384.1 out of range [-16384, 16384)"),
    ("16383.999999999", "rounds to 16384.0, out of range"),
    ("0x100000000", "immediate 0x100000000 out of range (32 bits)"),
    ("4294967296", "immediate 4294967296 out of range (32 bits)"),
    ("-2147483649", "immediate -2147483649 out of range (32 bits)"),
    ("4'h1F", "number \"4'h1F\" does not fit in 4 bits"),
    ("0x12G", "bad number syntax '0x12G'"),
    ("1..2", "bad number syntax '1..2'"),
    ("12ab", "bad number syntax '12ab'"),
    ("R1", "bad immediate 'R1'"),
])
def test_bad_immediates(literal, problem):
    with pytest.raises(AsmError) as err:
        assemble(f"SETX R1 {literal}", "t.s")
    assert str(err.value).startswith("t.s:1: ")
    assert problem in str(err.value)


# --- labels and layout -----------------------------------------------------------------------

def test_labels_forward_backward_and_same_line():
    program = assemble("""
    top:
        JMP bottom
    middle: JEQX top R1 R2     // label and statement on one line
        CALL middle VOID VOID
    a: b:
    bottom:
        RETURN RT_TRUE
    end:
    """)
    assert program.labels == {"top": 0x800C, "middle": 0x800D, "a": 0x800F, "b": 0x800F,
                              "bottom": 0x800F, "end": 0x8010}
    assert program.code == [hexword(0x0058800F, 0), hexword(0x000A800C, 0x00470048),
                            hexword(0x0059800D, 0), hexword(0x00400000, 1)]


def test_targets_can_be_numbers():
    assert one("JMP 0") == hexword(0x00580000, 0)
    assert one("JLEX 65535 VOID VOID") == hexword(0x000DFFFF, 0)


def test_user_program_entry_table_defaults():
    program = assemble("ENTRYPOINT_ADRR_MAIN:\n  RETURN RT_FALSE\n"
                       "ENTRYPOINT_ADRR_PSU2: NOP\n")
    assert program.origin == 0x8000
    table = list(ORIGINAL_ENTRY_ADDRESSES)
    table[ENTRY_NAMES.index("MAIN")] = 0x800C
    table[ENTRY_NAMES.index("PSU2")] = 0x800D
    assert program.words[:12] == table
    assert program.entry_table() == table
    assert program.entries == {"PSU2": 0x800D, "MAIN": 0x800C}
    assert program.labels["ENTRYPOINT_ADRR_MAIN"] == 0x800C
    assert program.lines == {0x800C: ("<string>", 2), 0x800D: ("<string>", 3)}


def test_empty_program_is_the_default_table():
    program = assemble("// nothing\n\n")
    assert program.words == list(ORIGINAL_ENTRY_ADDRESSES)
    assert program.entries == {}


def test_entrypoint_label_usable_as_target():
    program = assemble("ENTRYPOINT_ADRR_PIXELSHADER:\n NOP\n JMP ENTRYPOINT_ADRR_PIXELSHADER\n")
    assert program.code[1] == hexword(0x0058800C, 0)


def test_rom_mode():
    program = assemble_file(DATA / "tiny_rom.s", rom=True)
    assert program.origin == 0
    assert program.words[:12] == [12] * 11 + [13]
    assert program.code == [hexword(0x00400000, 1), hexword(0x0059000F, 0),
                            hexword(0x00400000, 0), hexword(0x005A0076, 1)]
    assert program.labels["hit"] == 15
    assert program.entries["MAIN"] == 13


def test_rom_mode_requires_every_entry():
    with pytest.raises(AsmError) as err:
        assemble("ENTRYPOINT_ADRR_MAIN:\n RETURN RT_TRUE\n", "rom.s", rom=True)
    message = str(err.value)
    assert message.startswith("rom.s:2: ROM needs every entry point; missing ")
    assert "ENTRYPOINT_ADRR_INITIAL" in message and "ENTRYPOINT_ADRR_PIXELSHADER" in message
    assert "ENTRYPOINT_ADRR_MAIN," not in message and not message.endswith("MAIN")


def test_word_and_entry_directives():
    program = assemble("""
        .entry MAIN 0x8123
        .entry PSU there
        .entry TCC 0xFFFF00000000ABCD
        .word 0xFFFF000000000000
    there:
        .word 64'h0123456789ABCDEF
    """)
    assert program.code == [0xFFFF000000000000, 0x0123456789ABCDEF]
    assert program.words[ENTRY_NAMES.index("MAIN")] == 0x8123
    assert program.words[ENTRY_NAMES.index("PSU")] == 0x800D
    assert program.words[ENTRY_NAMES.index("TCC")] == 0xFFFF00000000ABCD
    assert program.entry_table()[ENTRY_NAMES.index("TCC")] == 0xABCD
    assert program.entries == {"PSU": 0x800D, "TCC": 0xABCD, "MAIN": 0x8123}


def test_max_words():
    text = "NOP\n" * 1012
    assert len(assemble(text).words) == 1024
    with pytest.raises(AsmError) as err:
        assemble(text + "RETURN RT_TRUE\n", "big.s")
    assert str(err.value) == ("big.s:1013: program too large: more than 1024 words "
                              "(entry table included)")
    assert len(assemble(text + "NOP\n", max_words=2000).words) == 1025
    with pytest.raises(AsmError, match=r"t.s:3: program too large: more than 14 words"):
        assemble("NOP\nNOP\nNOP\n", "t.s", max_words=14)


# --- errors ----------------------------------------------------------------------------------

@pytest.mark.parametrize("source, message", [
    ("NOP\nFOO R1 R2 R3", "t.s:2: unknown opcode 'FOO'"),
    ("add R1 R2 R3", "t.s:1: unknown opcode 'add' (names are case-sensitive: ADD)"),
    ("ADD R1 R2 R13", "t.s:1: bad register name 'R13'"),
    ("ADD R1 creg_t R2", "t.s:1: bad register name 'creg_t'"),
    ("ADD R1 R2 132", "t.s:1: register number 132 out of range (0..131)"),
    ("SETX 0x84 1", "t.s:1: register number 0x84 out of range (0..131)"),
    ("MAG R1 R2 0x10000", "t.s:1: field value 0x10000 out of range (0..0xFFFF)"),
    ("\n\nJMP nowhere", "t.s:3: undefined label 'nowhere'"),
    ("x: NOP\nx: NOP", "t.s:2: duplicate label 'x' (first defined at line 1)"),
    ("SETX R1 0x1FFFFFFFF", "t.s:1: immediate 0x1FFFFFFFF out of range (32 bits)"),
    ("SETY R1 20000.0", "t.s:1: fixed-point literal 20000.0 out of range [-16384, 16384)"),
    ("SWIZZLE3D R1 22", "t.s:1: swizzle selector 22 out of range (0..21)"),
    ("SWIZZLE3D R1 SWIZZLE_ABC", "t.s:1: bad swizzle selector 'SWIZZLE_ABC' "
                                 "(expected SWIZZLE_XXX..SWIZZLE_YXZ or a number 0..21)"),
    ("JMP 0x10000", "t.s:1: code address 0x10000 out of range (0..0xFFFF)"),
    ("JGX -1 R1 R2", "t.s:1: code address -1 out of range (0..0xFFFF)"),
    ("ADD R1 R2", "t.s:1: ADD expects 3 operands (DST SRC1 SRC2), got 2"),
    ("JGX R1 R2", "t.s:1: JGX expects 3 operands (TARGET SRC1 SRC2), got 2"),
    ("SETX R1", "t.s:1: SETX expects 2 operands (DST IMM), got 1"),
    ("SWIZZLE3D R1 1 2", "t.s:1: SWIZZLE3D expects 2 operands (DST SWIZZLE_...), got 3"),
    ("RETURN", "t.s:1: RETURN expects 1 operand (RT_TRUE|RT_FALSE|IMM), got 0"),
    ("JMP", "t.s:1: JMP expects 1 operand (TARGET) or 3 (TARGET VOID VOID), got 0"),
    ("CALL x VOID\nx:", "t.s:1: CALL expects 1 operand (TARGET) or 3 (TARGET VOID VOID), got 2"),
    ("CALL x R1 VOID\nx:", "t.s:1: CALL operand 'R1' after the target must be VOID"),
    ("NOP RT_TRUE", "t.s:1: NOP operand 'RT_TRUE' must be RT_FALSE or VOID"),
    ("NOP 0 0 0 0", "t.s:1: NOP expects at most 3 operands (RT_FALSE or VOID), got 4"),
    ("COPY R1 0x R2", "t.s:1: bad number syntax '0x'"),
    ("SETX R1 32'hxyz", "t.s:1: bad number syntax \"32'hxyz\""),
    ("SETX R1 99'h1", "t.s:1: bad number syntax \"99'h1\": size must be 1..64 bits"),
    ("ENTRYPOINT_ADRR_FOO:\nNOP", "t.s:1: unknown ENTRYPOINT routine name 'FOO' (expected one "
                                  "of INITIAL, CPPU, RGU, AABBIU, BIU, PSU, PSU2, TCC, NPG, "
                                  "USERCONSTANTS, PIXELSHADER, MAIN)"),
    (".entry FOO 0x8000", "t.s:1: unknown ENTRYPOINT routine name 'FOO' (expected one "
                          "of INITIAL, CPPU, RGU, AABBIU, BIU, PSU, PSU2, TCC, NPG, "
                          "USERCONSTANTS, PIXELSHADER, MAIN)"),
    ("ENTRYPOINT_ADRR_MAIN: NOP\n.entry MAIN 0x25",
     "t.s:2: entry of routine MAIN already defined at line 1"),
    (".entry MAIN", "t.s:1: .entry expects 2 operands (ROUTINE VALUE), got 1"),
    (".word 0x10000000000000000", "t.s:1: .word value 0x10000000000000000 out of range (64 bits)"),
    (".word", "t.s:1: .word expects 1 operand (a 64-bit value), got 0"),
    (".org 0", "t.s:1: unknown directive '.org' (expected .word or .entry)"),
    ("1abc: NOP", "t.s:1: bad label name '1abc'"),
])
def test_error_messages(source, message):
    with pytest.raises(AsmError) as err:
        assemble(source, "t.s")
    assert str(err.value) == message
    assert err.value.first.filename == "t.s"


def test_several_errors_are_reported_in_line_order():
    with pytest.raises(AsmError) as err:
        assemble("JMP later_undefined\nADD R1 R2\nx: NOP\nx: NOP\n", "m.s")
    assert str(err.value).splitlines() == [
        "m.s:1: undefined label 'later_undefined'",
        "m.s:2: ADD expects 3 operands (DST SRC1 SRC2), got 2",
        "m.s:4: duplicate label 'x' (first defined at line 3)",
    ]
    assert [d.line for d in err.value.diagnostics] == [1, 2, 4]


def test_error_count_is_capped():
    with pytest.raises(AsmError) as err:
        assemble("BAD\n" * 100, "many.s")
    lines = str(err.value).splitlines()
    assert len(lines) == MAX_ERRORS + 1
    assert lines[-1] == f"many.s: too many errors; stopped after {MAX_ERRORS}"


def test_assemble_file_reports_missing_file(tmp_path):
    with pytest.raises(AsmError, match=r"nope\.s: cannot read: No such file"):
        assemble_file(tmp_path / "nope.s")


# --- output formats --------------------------------------------------------------------------

def normalized(text):
    return [line.rstrip() for line in text.replace("\r\n", "\n").splitlines()]


def test_instructions_mem_matches_the_original_file(example3_mem):
    program = assemble_file(DATA / "example3.s")
    out = io.StringIO()
    write_instructions_mem(program, out)
    assert normalized(out.getvalue()) == normalized(example3_mem.read_text())


def test_rom_and_hex_formats_round_trip(tmp_path):
    program = assemble_file(DATA / "tiny_rom.s", rom=True)
    write_rom_mem(program, tmp_path / "rom.mem")
    text = (tmp_path / "rom.mem").read_text()
    assert "0059000F00000000 // 000D: CALL hit" in text
    assert "000000000000000C // 0000: ENTRYPOINT_ADRR_INITIAL = 0x000C" in text
    assert read_mem_words(tmp_path / "rom.mem") == program.words
    write_hex(program, tmp_path / "rom.hex")
    assert (tmp_path / "rom.hex").read_text().splitlines()[12] == "0040000000000001"
    assert read_mem_words(tmp_path / "rom.hex") == program.words
    with pytest.raises(ValueError, match="Instructions.mem holds a user program"):
        write_instructions_mem(program, tmp_path / "x.mem")


def test_read_mem_words_reads_the_original_file(example3_mem):
    assert read_mem_words(example3_mem) == assemble_file(DATA / "example3.s").words


def test_read_mem_words_instructions_format(tmp_path):
    path = tmp_path / "i.mem"
    path.write_bytes(b"4 //count\r\n00400000 00000001\t// x\r\n\r\n0041ABCD\r\n00000002\r\n")
    assert read_mem_words(path) == [0x0040000000000001, 0x0041ABCD00000002]
    path.write_bytes(b"0040000000000001 // any token wider than 8 digits: a 64-bit image\r\n0\r\n")
    assert read_mem_words(path) == [0x0040000000000001, 0]
    path.write_text("4 // count\n00400000 00000001 // one\n0041ABCD 00000002\n")
    assert read_mem_words(path) == [0x0040000000000001, 0x0041ABCD00000002]


@pytest.mark.parametrize("content, message", [
    ("4\n00400000 00000001\n00410047\n",
     "bad.mem:3: odd number of 32-bit words after the count (3)"),
    ("4\n00400000 0000000G\n", "bad.mem:2: bad hex word '0000000G'"),
    ("@10\n0040000000000001\n", "bad.mem:1: address directive '@10' is not supported"),
    ("00000000000000000\n", "bad.mem:1: hex word '00000000000000000' is wider than 64 bits"),
    ("// empty\n", "bad.mem: no words in file"),
])
def test_read_mem_words_errors(tmp_path, content, message):
    path = tmp_path / "bad.mem"
    path.write_text(content)
    with pytest.raises(AsmError) as err:
        read_mem_words(path)
    assert str(err.value).replace(str(tmp_path) + "/", "").startswith(message)


# --- CLI -------------------------------------------------------------------------------------

def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "firmware.asm", *map(str, args)], cwd=REPO,
                          capture_output=True, text=True, timeout=60)


def test_cli_writes_instructions_mem_to_stdout(example3_mem):
    result = run_cli(DATA / "example3.s")
    assert result.returncode == 0, result.stderr
    assert normalized(result.stdout) == normalized(example3_mem.read_text())


def test_cli_writes_a_rom_image_and_hex_to_a_file(tmp_path):
    result = run_cli(DATA / "tiny_rom.s", "--rom", "-o", tmp_path / "rom.mem")
    assert result.returncode == 0, result.stderr
    rom = assemble_file(DATA / "tiny_rom.s", rom=True)
    assert read_mem_words(tmp_path / "rom.mem") == rom.words
    result = run_cli(DATA / "example3.s", "--format", "hex")
    assert result.stdout.splitlines()[12:] == ["002F00800078006E", "0040000000000001"]


def test_cli_errors_are_one_line_each_without_traceback():
    result = run_cli(DATA / "bad.s")
    assert result.returncode == 1
    path = DATA / "bad.s"
    assert result.stderr.splitlines() == [
        f"{path}:2: ADD expects 3 operands (DST SRC1 SRC2), got 2",
        f"{path}:3: unknown opcode 'FOO'",
    ]
    assert result.stdout == ""
    result = run_cli(DATA / "example3.s", "--rom", "--format", "mem")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    result = run_cli(DATA / "missing.s")
    assert result.returncode == 1
    assert result.stderr.strip() == f"{DATA / 'missing.s'}: cannot read: No such file or directory"


def test_program_dataclass_api():
    program = Program(0x8000, [0] * 12)
    assert program.entry_table() == [0] * 12
    assert program.labels == {} and program.entries == {} and program.lines == {}
