"""The R500 disassembler (firmware/r500disasm.py): every word prints as text that assembles
back to it; the published programs, random legal words of every type, raw words; the CLI."""

from pathlib import Path
import subprocess
import sys

from hypothesis import given, settings, strategies as st
import pytest

from hdl.isa import (
    US_CMN_INST, US_ALU_ALPHA_INST, US_ALU_RGBA_INST, US_FC_ADDR, US_FC_INST, US_TEX_INST,
)
from firmware.r500asm import assemble, assemble_file
from firmware.r500disasm import disassemble, disassemble_instruction, read_words
from tests.helpers import REPO
from tests.helpers.shared_data import PUBLISHED_R500

DATA = Path(__file__).resolve().parent / "data"


def round_trip(words):
    text = disassemble(words)
    assert assemble(text).words == words, text
    return text


@pytest.mark.parametrize("name", PUBLISHED_R500)
def test_published_programs_round_trip(r500_programs_dir, name):
    text = round_trip(read_words(r500_programs_dir / f"{name}.inc"))
    assert "WORDS" not in text


def test_reads_like_the_base_syntax():
    text = disassemble(assemble_file(DATA / "circle.asm").words)
    assert "NOP\nsrc0.a = temp[0] :\n  temp[0].a = RCP src0.a ;" in text
    assert "srcp.a = sub :\n  temp[0].a = MAD |srcp.a| src0.1 -src2.a ;" in text
    assert text.endswith("  out[0].a = MAX src0.1 src0.1 ,\n"
                         "  out[0].rgb = CMP src0.100 src0.000 src0.a00 ;\n")


def test_flow_control_labels():
    words = assemble("LOOP ;\nIF alu ;\nBREAK ;\nENDIF ;\nENDLOOP ;\n: temp[0].r = MAD ;").words
    text = round_trip(words)
    assert text.startswith("FC LOOP") and "JUMP_ADDR(L4)" in text.splitlines()[0]
    assert "L4:\nFC ENDLOOP" in text and "JUMP_ADDR(L1)" in text


def test_raw_words_for_illegal_instructions():
    for words in ([0, 0, 0, 0, 0, 6],                         # RGB_OP 6
                  [2, 1, 0, 0, 0, 0],                         # FC with a nonzero inst1
                  [3, 7 << 22, 0, 0, 0, 0],                   # TEX INST 7
                  [2, 0, 1 << 3, 0, 0, 0]):                   # a reserved FC bit
        assert disassemble_instruction(words).startswith("WORDS ")
        round_trip(words)


# --- random legal words ----------------------------------------------------------------------

WORD = st.integers(0, 2**32 - 1)


def with_fields(fmt, word, **fields):
    """``word`` with ``fields`` of ``fmt`` replaced."""
    values = fmt.unpack(word)
    values.update(fields)
    return fmt.pack(**values)


@st.composite
def alu_words(draw):
    inst0 = with_fields(US_CMN_INST, draw(WORD), TYPE=draw(st.sampled_from([0, 1])))
    inst4 = with_fields(US_ALU_ALPHA_INST, draw(WORD),
                        ALPHA_OP=draw(st.sampled_from([0, 1, 2, 3] + list(range(5, 16)))))
    inst5 = with_fields(US_ALU_RGBA_INST, draw(WORD),
                        RGB_OP=draw(st.sampled_from([0, 1, 2, 3, 4, 5] + list(range(7, 13)))))
    return [inst0, draw(WORD), draw(WORD), draw(WORD), inst4, inst5]


@st.composite
def tex_words(draw):
    inst0 = with_fields(US_CMN_INST, draw(WORD), TYPE=3)
    inst1 = US_TEX_INST.pack(**{name: draw(st.integers(0, (1 << width) - 1))
                                for name, (_, width) in US_TEX_INST.fields.items()
                                if name != "INST"}, INST=draw(st.integers(0, 6)))
    dxdy = draw(st.one_of(st.just(0), WORD))
    return [inst0, inst1, draw(WORD), dxdy, 0, 0]


def random_fields(draw, fmt):
    return fmt.pack(**{name: draw(st.integers(0, (1 << width) - 1))
                       for name, (_, width) in fmt.fields.items()})


@st.composite
def fc_words(draw):
    inst0 = with_fields(US_CMN_INST, draw(WORD), TYPE=2)
    return [inst0, 0, random_fields(draw, US_FC_INST), random_fields(draw, US_FC_ADDR), 0, 0]


@settings(max_examples=150, deadline=None)
@given(st.one_of(alu_words(), tex_words(), fc_words()))
def test_legal_words_round_trip_without_raw(words):
    text = disassemble_instruction(words)
    assert not text.startswith("WORDS"), text
    assert assemble(text).words == words, text


@settings(max_examples=60, deadline=None)
@given(st.lists(WORD, min_size=6, max_size=6))
def test_any_words_round_trip(words):
    assert assemble(disassemble(words)).words == words


@settings(max_examples=30, deadline=None)
@given(st.lists(st.one_of(alu_words(), tex_words(), fc_words()), min_size=2, max_size=6))
def test_programs_round_trip_with_labels(instructions):
    round_trip([w for inst in instructions for w in inst])


# --- CLI and word files ----------------------------------------------------------------------

def run(*args):
    return subprocess.run([sys.executable, "-m", "firmware.r500disasm", *map(str, args)],
                          capture_output=True, text=True, cwd=REPO)


def test_cli_reads_every_format(tmp_path):
    words = assemble_file(DATA / "palette.asm").words
    inc = tmp_path / "p.inc"
    inc.write_text("".join(f"0x{w:08X},\n" for w in words))      # no blank lines, as Mesa's
    hexfile = tmp_path / "p.hex"
    hexfile.write_text("\n".join(" ".join(f"{w:08x}" for w in words[i:i + 6])
                                 for i in range(0, len(words), 6)))
    binfile = tmp_path / "p.bin"
    binfile.write_bytes(b"".join(w.to_bytes(4, "little") for w in words))
    outputs = {run(path).stdout for path in (inc, hexfile, binfile)}
    assert len(outputs) == 1
    assert assemble(outputs.pop()).words == words


def test_cli_errors(tmp_path):
    bad = tmp_path / "bad.inc"
    bad.write_text("0x00000000,\n0xnothex,\n")
    result = run(bad)
    assert (result.returncode, result.stderr) == (1, f"{bad}:2: bad word '0xnothex' (expected "
                                                     f"a 32-bit hex number)\n")
    bad.write_text("0x1,\n" * 7)
    assert "7 words are not whole instructions" in run(bad).stderr
    assert run(tmp_path / "absent.bin").returncode == 1
