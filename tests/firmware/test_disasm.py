"""The THEIA disassembler (firmware/disasm.py): text of single words and whole images, and
the round trip disassemble -> assemble on the scene files and on seeded random images."""

import random
import subprocess
import sys
from pathlib import Path

import pytest

from hdl.isa import (
    OPS, NUM_REGS, ORIGINAL_ENTRY_ADDRESSES, ENTRY_NAMES, USER_CODE_BASE, Instruction, pack,
)
from firmware.asm import assemble, assemble_file, read_mem_words
from firmware.disasm import disassemble, disassemble_word, word_problem
from firmware.program import Form, form_of
from tests.helpers import REPO

DATA = Path(__file__).resolve().parent / "data"


def round_trip(words, origin=USER_CODE_BASE):
    text = disassemble(words, origin)
    program = assemble(text, "<disassembly>", rom=origin == 0, max_words=len(words))
    assert program.words == words
    return text


# --- single words ----------------------------------------------------------------------------

@pytest.mark.parametrize("word, text", [
    (0x002F00800078006E, "OMWRITE OREG_PIXEL_COLOR CREG_CURRENT_OUTPUT_PIXEL CREG_TEXTURE_COLOR"),
    (0x0040000000000001, "RETURN RT_TRUE"),
    (0x0040000000000000, "RETURN RT_FALSE"),
    (0x0040000000000007, "RETURN 32'h00000007"),
    (0x0000000000000000, "NOP"),
    (0x0001006300640065, "ADD CREG_t CREG_E1 CREG_E2"),
    (0x0001000000000000, "ADD VOID CREG_LIGHT_INFO CREG_LIGHT_INFO"),
    (0x000F005200000000, "ZERO R12 VOID VOID"),
    (0x0005004700481234, "MAG R1 R2 0x1234"),
    (0x0007007B007F0076, "COPY 123 127 R99"),
    (0x001B002500670077, "JNEZ 0x0025 CREG_u CREG_ZERO"),
    (0x00420055FFFE0000, "SETY CREG_RAY_DIRECTION 32'hFFFE0000"),
    (0x0044004700000015, "SWIZZLE3D R1 SWIZZLE_YXZ"),
    (0x005A007600000001, "RET R99 32'h00000001"),
    (0x005A000000000000, "RET VOID 32'h00000000"),
    (0x0058009D00000000, "JMP 0x009D"),
    (0x0059800D00000000, "CALL 0x800D"),
])
def test_disassemble_word(word, text):
    assert disassemble_word(word) == text
    assert word_problem(word) is None
    assert assemble(text).words[12:] == [word]


@pytest.mark.parametrize("word, problem", [
    (0x0006000000000000, "illegal opcode 0x0006"),
    (0x0080000000000000, "illegal opcode 0x0080"),
    (0xFFFF000000000000, "illegal opcode 0xFFFF"),
    (0x0001008400000000, "illegal: ADD DST register 132 >= 132"),
    (0x0001000000840000, "illegal: ADD SRC1 register 132 >= 132"),
    (0x000800000000FFFF, "illegal: JGX SRC2 register 65535 >= 132"),
    (0x0041008400000000, "illegal: SETX DST register 132 >= 132"),
    (0x0044004700000016, "illegal: SWIZZLE3D selector 22 > 21"),
    (0x0000000000000001, "NOP with nonzero operand fields"),
    (0x0058800000000001, "JMP with nonzero IMM 0x00000001"),
    (0x0040000100000001, "RETURN with nonzero DST field 0x0001"),
])
def test_words_printed_raw(word, problem):
    assert disassemble_word(word) == f".word 0x{word:016X}"
    assert word_problem(word) == problem
    assert assemble(disassemble_word(word)).words[12:] == [word]


def test_jump_targets_use_given_labels():
    assert disassemble_word(0x0058800C00000000, 0x800D, {0x800C: "loop"}) == "JMP loop"
    assert disassemble_word(0x000A800C00470048, labels={0x800C: "top"}) == "JEQX top R1 R2"


# --- whole images ----------------------------------------------------------------------------

@pytest.mark.parametrize("scene", ["example1", "example3"])
def test_scene_instructions_round_trip(scenes_dir, scene):
    words = read_mem_words(scenes_dir / scene / "Instructions.mem")
    text = round_trip(words)
    assert "ENTRYPOINT_ADRR_PIXELSHADER:" in text
    assert ".entry" not in text          # the other entries are the original's defaults
    body = [line.split("//")[0].strip() for line in text.splitlines()]
    assert [line for line in body if line] == [
        "ENTRYPOINT_ADRR_PIXELSHADER:",
        "OMWRITE OREG_PIXEL_COLOR CREG_CURRENT_OUTPUT_PIXEL CREG_TEXTURE_COLOR",
        "RETURN RT_TRUE",
    ]


def test_labels_and_entry_directives():
    words = list(ORIGINAL_ENTRY_ADDRESSES)
    words[ENTRY_NAMES.index("MAIN")] = 0x800D
    words[ENTRY_NAMES.index("NPG")] = 0x9000          # outside the program
    words[ENTRY_NAMES.index("RGU")] = 0x30            # built-in, but not the default value
    words[ENTRY_NAMES.index("PSU")] = 0x1_0000_800C   # high bits set: not just an address
    words += [
        pack(Instruction(0x08, 0x800E, 71, 72)),       # JGX L_800E R1 R2
        pack(Instruction.type2(0x59, 0x800D, 0)),      # CALL ENTRYPOINT_ADRR_MAIN
        pack(Instruction.type2(0x58, 0x0025, 0)),      # JMP 0x0025 (firmware)
    ]
    text = round_trip(words)
    lines = [line.split("//")[0].strip() for line in text.splitlines()]
    assert ".entry RGU 0x0030" in lines
    assert ".entry NPG 0x9000" in lines
    assert ".entry PSU 0x10000800C" in lines
    assert lines.index("ENTRYPOINT_ADRR_MAIN:") + 1 == lines.index("CALL ENTRYPOINT_ADRR_MAIN")
    assert "JGX L_800E R1 R2" in lines and "L_800E:" in lines
    assert "JMP 0x0025" in lines


def test_rom_round_trip():
    program = assemble_file(DATA / "tiny_rom.s", rom=True)
    text = round_trip(program.words, origin=0)
    assert "assemble with --rom" in text
    assert text.count("ENTRYPOINT_ADRR_") == 12
    assert "CALL L_000F" in text


def test_disassemble_rejects_bad_images():
    with pytest.raises(ValueError, match="entry table"):
        disassemble([0] * 11)
    with pytest.raises(ValueError, match="origin"):
        disassemble([0] * 12, origin=0x100)


# --- seeded random images --------------------------------------------------------------------

def random_legal_word(rng, code_addresses):
    """A legal instruction word in the canonical encoding of its form."""
    info = rng.choice(list(OPS.values()))
    form = form_of(info)

    def field(is_register):
        if is_register:
            return rng.randrange(NUM_REGS)
        return rng.choice([0, rng.randrange(NUM_REGS), rng.randrange(1 << 16)])

    def target():
        return rng.choice([rng.randrange(1 << 16), rng.choice(code_addresses)])

    imm = rng.choice([0, 1, rng.getrandbits(32)])
    if form is Form.NOP:
        return 0
    if form is Form.REGS:
        return pack(Instruction(info.op, field(info.dst_reg), field(info.a_reg), field(info.b_reg)))
    if form is Form.BRANCH:
        return pack(Instruction(info.op, target(), field(True), field(True)))
    if form is Form.JUMP:
        return pack(Instruction.type2(info.op, target(), 0))
    if form is Form.RETURN:
        return pack(Instruction.type2(info.op, 0, imm))
    if form is Form.SWIZZLE:
        return pack(Instruction.type2(info.op, field(True), rng.randrange(22)))
    return pack(Instruction.type2(info.op, field(True), imm))


def random_any_word(rng):
    """Mostly legal opcodes with fields near and beyond the register range, some bad opcodes."""
    opcode = rng.choice([rng.choice(list(OPS)).value, rng.randrange(0x80), rng.randrange(1 << 16)])
    fields = [rng.choice([0, rng.randrange(140), rng.getrandbits(16)]) for _ in range(3)]
    return pack(Instruction(opcode, *fields))


def random_table(rng, origin, size):
    table = []
    for index in range(12):
        table.append(rng.choice([
            ORIGINAL_ENTRY_ADDRESSES[index], origin + 12 + rng.randrange(size),
            rng.randrange(1 << 16), rng.getrandbits(64)]))
    return table


def test_random_legal_words_round_trip_without_raw_words():
    rng = random.Random(20240601)
    size = 3000
    code_addresses = range(USER_CODE_BASE + 12, USER_CODE_BASE + 12 + size)
    code = [random_legal_word(rng, code_addresses) for _ in range(size)]
    assert all(word_problem(word) is None for word in code)
    text = round_trip(random_table(rng, USER_CODE_BASE, size) + code)
    assert ".word" not in text
    assert "L_" in text


def test_random_any_words_round_trip():
    rng = random.Random(77)
    size = 3000
    code = [random_any_word(rng) for _ in range(size)]
    text = round_trip(random_table(rng, USER_CODE_BASE, size) + code)
    raw = text.count(".word")
    assert 0 < raw < size        # both kinds occur


def test_random_rom_round_trip():
    rng = random.Random(5)
    size = 1000
    code = [random_legal_word(rng, range(12, 12 + size)) if rng.random() < 0.8
            else random_any_word(rng) for _ in range(size)]
    round_trip(random_table(rng, 0, size) + code, origin=0)


# --- CLI -------------------------------------------------------------------------------------

def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "firmware.disasm", *map(str, args)], cwd=REPO,
                          capture_output=True, text=True, timeout=60)


def test_cli_disassembles_instructions_mem(scenes_dir):
    path = scenes_dir / "example3" / "Instructions.mem"
    result = run_cli(path)
    assert result.returncode == 0, result.stderr
    assert assemble(result.stdout).words == read_mem_words(path)


def test_cli_disassembles_a_rom_image(tmp_path):
    asm = subprocess.run([sys.executable, "-m", "firmware.asm", str(DATA / "tiny_rom.s"), "--rom",
                          "-o", str(tmp_path / "rom.mem")], cwd=REPO, capture_output=True,
                         text=True, timeout=60)
    assert asm.returncode == 0, asm.stderr
    result = run_cli(tmp_path / "rom.mem", "--rom")
    assert result.returncode == 0, result.stderr
    assert assemble(result.stdout, rom=True).words == read_mem_words(tmp_path / "rom.mem")


@pytest.mark.parametrize("content, message", [
    ("4\n00400000 0000000Z\n", "bad.mem:2: bad hex word '0000000Z'"),
    ("4\n00400000 00000001\n", "bad.mem: only 1 words; a program starts with the 12-word "
                               "entry table"),
])
def test_cli_bad_file(tmp_path, content, message):
    path = tmp_path / "bad.mem"
    path.write_text(content)
    result = run_cli(path)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.strip() == f"{tmp_path}/{message}"
    result = run_cli(tmp_path / "missing.mem")
    assert result.returncode == 1
    assert result.stderr.strip() == (f"{tmp_path}/missing.mem: cannot read: "
                                     "No such file or directory")
