"""The R500 assembler (firmware/r500asm.py): the base syntax bit for bit, the extensions, flow
control, errors and the CLI."""

from pathlib import Path
import re
import subprocess
import sys

import pytest

from hdl.isa import (
    US_CMN_INST, US_ALU_ALPHA_INST, US_ALU_RGB_INST, US_FC_ADDR, US_FC_INST, US_TEX_ADDR_DXDY,
    US_TEX_INST, AddrOp, BranchOp, FcOp, JumpFunc,
)
from firmware.r500asm import R500AsmError, assemble, assemble_file, load_program, read_words
from tests.helpers import REPO

DATA = Path(__file__).resolve().parent / "data"


def words(text):
    return assemble(text).words


def hexwords(text):
    return " ".join(f"{w:08x}" for w in words(text))


# --- base syntax (r500-us.md §5.5 and the published programs) --------------------------------

@pytest.mark.parametrize("text, expected", [
    ("src0.rgb = temp[0] : temp[0].r = DP3 src0.rg0 src0.rg0 ;",
     "00000800 08020000 08020080 00840420 00000000 00000001"),
    ("TEX TEX_SEM_WAIT TEX_SEM_ACQUIRE temp[0].rgba = LD tex[0].rgba temp[0].rgaa ;",
     "00007807 02400000 e400f400 00000000 00000000 00000000"),
    ("src0.rgb = temp[1] , src0.a = float(60) : temp[1].rg = MAD src0.rg_ src0.aa_ src0.00_ ;",
     "00001800 08020001 080200bc 00ed8720 00000000 00790010"),
])
def test_spec_examples(text, expected):
    assert hexwords(text) == expected


@pytest.mark.parametrize("source, published", [
    ("clear", "hw-clear"), ("length", "hw-length"), ("circle", "hw-shadertoy_circle"),
    ("palette", "hw-shadertoy_palette"), ("texture", "hw-texture"),
    ("blur", "hw-texture_blur_horizontal"),
])
def test_published_programs_bit_for_bit(r500_programs_dir, source, published):
    published_words = read_words(r500_programs_dir / f"{published}.inc")
    program = assemble_file(DATA / f"{source}.asm")
    assert program.words == published_words
    assert program.end_addr == program.instructions - 1


def test_free_form_and_case():
    one = "src0.rgb = temp[0] : temp[0].r = DP3 src0.rg0 src0.rg0 ;"
    spread = "src0.rgb\n=\ttemp[0]\r\n:temp[0].r=DP3 -- a comment\nsrc0.rg0 src0.rg0;"
    assert words(spread) == words(one) == words(one.replace("DP3", "dp3").replace("src0", "SRC0")
                                                  .replace("temp", "TEMP").replace("rg0", "RG0"))


def test_defaults_and_optional_commas():
    assert words(": ;")[1:3] == [0x08020080, 0x08020080]           # undeclared slots
    assert words("src0.rgb = temp[0], : temp[0].r = FRC src0.rrr, ;") == \
        words("src0.rgb = temp[0] : temp[0].r = FRC src0.rrr ;")


def test_unit_rules():
    # rule 3: the op with no mask takes the unit the other does not use
    rgb_then_alpha = words(": temp[0].r = MAD src0.rrr, temp[1].none = MAD src0.r ;")
    assert US_ALU_ALPHA_INST.unpack(rgb_then_alpha[4])["ALPHA_ADDRD"] == 1
    assert words(": out[0].r = SOP, RCP src0.a ;") == words(": RCP src0.a, out[0].r = SOP ;")


def test_modifiers_omod_and_srcp():
    w = words("srcp.rgb = add, srcp.a = neg : temp[0].rgb = 0.125 * MAD -src0.rgb |src1.rgb| "
              "-|srcp.rgb| ;")
    rgb = US_ALU_RGB_INST.unpack(w[3])
    assert (rgb["RGB_MOD_A"], rgb["RGB_MOD_B"], rgb["OMOD"]) == (1, 2, 6)
    assert w[5] >> 23 & 3 == 3 and w[5] >> 12 & 3 == 3          # C: NAB of srcp
    assert (w[1] >> 30, w[2] >> 30) == (2, 3)


# --- extensions (docs/r500-asm.md) -----------------------------------------------------------

def inst0(text):
    return US_CMN_INST.unpack(words(text)[0])


def test_tags_set_fields():
    f = inst0("RGB_CLAMP ALPHA_CLAMP WRITE_INACTIVE STAT_WE(9) RGB_PRED_SEL(gggg) RGB_PRED_INV "
              "ALPHA_PRED_SEL(aaaa) ALU_RESULT_SEL(alpha) ALU_RESULT_OP(ne) LAST ALU_WAIT : "
              "temp[0].r = MAD ;")
    assert (f["RGB_CLAMP"], f["ALPHA_CLAMP"], f["WRITE_INACTIVE"], f["STAT_WE"]) == (1, 1, 1, 9)
    assert (f["RGB_PRED_SEL"], f["RGB_PRED_INV"], f["ALPHA_PRED_SEL"]) == (3, 1, 5)
    assert (f["ALU_RESULT_SEL"], f["ALU_RESULT_OP"], f["LAST"], f["ALU_WAIT"]) == (1, 3, 1, 1)
    w = words("ALU_WMASK W_OMASK OUT : out[0].a = MAX src0.1 src0.1 ;")
    assert w[3] >> 31 == 1 and w[4] >> 31 == 1


def test_noomod_pred_dests_and_unit_marks():
    w = words(": pred[lt].rg = NOOMOD MAX src0.rgb src0.rgb, ALPHA MIN src0.r src0.g ;")
    assert US_ALU_RGB_INST.unpack(w[3])["OMOD"] == 7
    assert US_ALU_RGB_INST.unpack(w[3])["TARGET"] == 1
    assert US_CMN_INST.unpack(w[0])["RGB_OMASK"] == 3
    assert US_ALU_ALPHA_INST.unpack(w[4])["ALPHA_OP"] == 2
    # a pred[] destination encodes as the base's out[N] without OUT
    assert w == words(": out[1].rg = NOOMOD MAX src0.rgb src0.rgb, ALPHA MIN src0.r src0.g ;")


def test_relative_addresses():
    w = words("src0.rgb = temp[aL+3], src1.a = const[aL+250], src2.rgb = temp[aL] : "
              "temp[aL+5].rgb = MAD src0.rgb src1.aaa src2.rgb ;")
    assert w[1] & 0x3FF == 0x203 and (w[1] >> 20) & 0x3FF == 0x200
    assert (w[2] >> 10) & 0x3FF == 0x1FA | 0x300
    assert (w[5] >> 4) & 0xFF == 0x85


def test_tex_extensions():
    w = words("TEX UNSCALED IGNORE_UNCOVERED RGB_CLAMP temp[aL+5].a = DXDY tex[3].abgr "
              "temp[aL+2].rgaa temp[1].rrrr temp[aL+2].gggg ;")
    tex = US_TEX_INST.unpack(w[1])
    assert (tex["UNSCALED"], tex["IGNORE_UNCOVERED"], tex["TEX_ID"], tex["INST"]) == (1, 1, 3, 6)
    assert US_CMN_INST.unpack(w[0])["ALPHA_WMASK"] == 1 and w[0] >> 11 & 7 == 0
    assert w[2] >> 16 & 0xFF == 0x85 and w[2] & 0xFF == 0x82
    assert US_TEX_ADDR_DXDY.unpack(w[3]) == {
        "DX_ADDR": 1, "DX_ADDR_REL": 0, "DX_S_SWIZ": 0, "DX_T_SWIZ": 0, "DX_R_SWIZ": 0,
        "DX_Q_SWIZ": 0, "DY_ADDR": 2, "DY_ADDR_REL": 1, "DY_S_SWIZ": 1, "DY_T_SWIZ": 1,
        "DY_R_SWIZ": 1, "DY_Q_SWIZ": 1}


def test_raw_fc_every_field():
    w = words("NOP FC BREAKREP JUMP_FUNC(0x5a) JUMP_ANY B_ELSE A_OP(pop) B_POP_CNT(31) "
              "B_OP0(decr) B_OP1(incr) IGNORE_UNCOVERED BOOL_ADDR(17) INT_ADDR(30) "
              "JUMP_GLOBAL JUMP_ADDR(511) RGB_PRED_SEL(bbbb) ;")
    assert w[0] == US_CMN_INST.pack(TYPE=2, NOP=1, RGB_PRED_SEL=4)
    assert w[2] == US_FC_INST.pack(OP=FcOp.BREAKREP, JUMP_FUNC=0x5A, JUMP_ANY=1, B_ELSE=1,
                                   A_OP=AddrOp.POP, B_POP_CNT=31, B_OP0=BranchOp.DECR,
                                   B_OP1=BranchOp.INCR, IGNORE_UNCOVERED=1)
    assert w[3] == US_FC_ADDR.pack(BOOL_ADDR=17, INT_ADDR=30, JUMP_GLOBAL=1, JUMP_ADDR=511)
    assert w[1] == w[4] == w[5] == 0


def test_labels_end_addr_and_words():
    program = assemble("top: : temp[0].r = MAD ;\nFC JUMP JUMP_FUNC(always) JUMP_ADDR(end) ;\n"
                       "end: WORDS 0x1 2 0x3 4 5 0xffffffff ;\nEND_ADDR(top) ;")
    assert program.labels == {"top": 0, "end": 2}
    assert US_FC_ADDR.unpack(program.words[9])["JUMP_ADDR"] == 2
    assert program.words[12:] == [1, 2, 3, 4, 5, 0xFFFFFFFF]
    assert program.end_addr == 0


# --- structured flow control (r500-us.md §2's table) -----------------------------------------

def fc_rows(text):
    """(OP, JUMP_FUNC, JUMP_ANY, B_ELSE, B_OP0, B_OP1, B_POP_CNT, IGNORE_UNCOVERED, A_OP,
    JUMP_ADDR) of every FC instruction, by index."""
    w = words(text)
    rows = {}
    for i in range(0, len(w), 6):
        if w[i] & 3 == 2:
            assert US_CMN_INST.unpack(w[i])["ALU_WAIT"] == 1
            f = US_FC_INST.unpack(w[i + 2])
            rows[i // 6] = (f["OP"], f["JUMP_FUNC"], f["JUMP_ANY"], f["B_ELSE"], f["B_OP0"],
                            f["B_OP1"], f["B_POP_CNT"], f["IGNORE_UNCOVERED"], f["A_OP"],
                            US_FC_ADDR.unpack(w[i + 3])["JUMP_ADDR"])
    return rows


NOP_ALU = ": temp[0].r = MAD ;\n"
J, NONE, INCR, DECR = FcOp.JUMP, BranchOp.NONE, BranchOp.INCR, BranchOp.DECR


def test_if_else_endif():
    rows = fc_rows(f"IF alu ;\n{NOP_ALU}ELSE ;\n{NOP_ALU}ENDIF ;\n{NOP_ALU}")
    assert rows == {0: (J, 0x0F, 0, 0, INCR, INCR, 0, 1, 0, 3),
                    2: (J, 0x00, 0, 1, NONE, DECR, 1, 0, 0, 5),
                    4: (J, 0x00, 1, 0, DECR, NONE, 1, 0, 0, 5)}


def test_if_without_else_and_conditions():
    rows = fc_rows(f"IF NOT bool(7) ;\n{NOP_ALU}ENDIF ;\nIF pred.rrrr ;\nENDIF ;\n{NOP_ALU}")
    assert rows[0] == (J, JumpFunc.BOOL, 0, 0, INCR, NONE, 0, 1, 0, 3)
    assert rows[3][1] == JumpFunc.NOT_PRED and rows[3][-1] == 5
    w = words(f"IF NOT bool(7) ;\n{NOP_ALU}ENDIF ;\nIF pred.rrrr ;\nENDIF ;\n{NOP_ALU}")
    assert US_FC_ADDR.unpack(w[3])["BOOL_ADDR"] == 7
    assert US_CMN_INST.unpack(w[18])["RGB_PRED_SEL"] == 2


def test_loop_break_continue_pop_counts():
    rows = fc_rows(f"LOOP ;\n{NOP_ALU}IF alu ;\nIF alu ;\nBREAK ;\nENDIF ;\nCONTINUE ;\n"
                   f"ENDIF ;\nENDLOOP ;\n{NOP_ALU}")
    assert rows[0] == (FcOp.LOOP, 0x00, 0, 0, NONE, NONE, 0, 1, 0, 8)
    assert rows[4] == (FcOp.BREAKLOOP, 0xFF, 0, 0, NONE, DECR, 2, 1, 0, 9)
    assert rows[6] == (FcOp.CONTINUE, 0xFF, 0, 0, NONE, DECR, 1, 1, 0, 8)
    assert rows[8] == (FcOp.ENDLOOP, 0xFF, 1, 0, NONE, NONE, 0, 1, 0, 1)


def test_rep_int_addr_and_call_ret():
    w = words("REP INT_ADDR(5) ;\nBREAK ;\nENDREP ;\nCALL f ;\nf: RET ;")
    assert [US_FC_INST.unpack(w[i + 2])["OP"] for i in range(0, 30, 6)] == \
        [FcOp.REP, FcOp.BREAKREP, FcOp.ENDREP, J, J]
    assert US_FC_ADDR.unpack(w[3])["INT_ADDR"] == US_FC_ADDR.unpack(w[15])["INT_ADDR"] == 5
    rows = fc_rows("CALL f ;\nf: RET ;")
    assert rows == {0: (J, 0xFF, 0, 0, NONE, NONE, 0, 0, AddrOp.PUSH, 1),
                    1: (J, 0xFF, 0, 0, NONE, NONE, 0, 0, AddrOp.POP, 0)}


# --- errors ----------------------------------------------------------------------------------

@pytest.mark.parametrize("text, line, message", [
    ("src0.rgb = temp[0] :\n temp[0].r = DP5 src0.rrr ;", 2, "unknown opcode 'DP5'"),
    (": temp[0].r = DP3\n src0.rgx src0.rrr ;", 2, "bad rgb swizzle 'rgx'"),
    (": temp[0].a = RCP src0.rr ;", 1, "bad alpha swizzle 'rr'"),
    (":\n temp[0].rgba = MAD src0.rgb ;", 2, "bad write mask 'rgba'"),
    ("src0.rgb = temp[0],\n src0.rgb = temp[1] : temp[0].r = MAD ;", 2, "declared twice"),
    ("src0.rgb = temp[128] : temp[0].r = MAD ;", 1, "temp address 128 out of range"),
    ("src0.a = const[256] : temp[0].a = MAD ;", 1, "const address 256 out of range"),
    ("src1.a = float(128) : temp[0].a = MAD ;", 1, "float address 128 out of range"),
    ("OUT : out[4].r = MAD ;", 1, "out target 4 out of range"),
    ("TEX temp[0].rgba = LD tex[16].rgba temp[0].rgba ;", 1, "tex id 16 out of range"),
    (": temp[0].r = MAD, temp[1].g = MAD ;", 1, "both operations are on the rgb unit"),
    (": temp[0].r = RCP src0.r ;", 1, "RCP runs on the alpha unit"),
    (": temp[0].a = DP3 src0.rgb ;", 1, "DP3 runs on the rgb unit"),
    (": MAD src0.rrr ;", 1, "cannot tell which unit runs MAD"),
    (": temp[0].r = temp[1].r = MAD ;", 1, "at most one temp destination"),
    (": temp[0].r = DP3 src0.rg0 src0.rg0\n: temp[0].a = RCP src0.r ;", 1, "missing ';'"),
    (": temp[0].r = DP3 src0.rg0 src0.rg0", 1, "missing ';'"),
    (": temp[0].r = MAD |-src0.rgb| ;", 1, "|-x|"),
    ("TEX temp[0].rgba = LD tex[0].RGBA temp[0].rgba ;", 1, "TEX swizzles are lower case"),
    ("TEX temp[0].RGB = LD tex[0].rgba temp[0].rgba ;", 1, "TEX masks are lower case"),
    ("a: : temp[0].r = MAD ;\na: : temp[0].r = MAD ;", 2, "label 'a' defined twice"),
    ("\nFC JUMP JUMP_ADDR(nowhere) ;", 2, "undefined label 'nowhere'"),
    (": temp[0].r = MAD ;\nIF alu ;\n: temp[0].r = MAD ;", 2, "IF is never closed"),
    ("ENDIF ;", 1, "ENDIF without an open IF"),
    ("LOOP ;\nELSE ;", 2, "ELSE without an open IF"),
    ("\nBREAK ;", 2, "BREAK outside a LOOP or REP"),
    (": temp[0].r = 3.0 * MAD ;", 1, "bad output modifier '3.0'"),
    ("LAST LAST : temp[0].r = MAD ;", 1, "tag LAST given twice"),
    ("OUT : pred[lt].r = MAD ;", 1, "not in an OUT instruction"),
    ("TEX TEX_ID(3) temp[0].r = LD tex[0].rgba temp[0].rgba ;", 1, "a TEX tag, a destination"),
    (": temp[0].r = MAD ;\n\n: temp[0].r = MAD ; @", 3, "unexpected character '@'"),
    ("END_ADDR(3) ;\n: temp[0].r = MAD ;", 1, "END_ADDR"),
    # an ELSE (or a BREAK) whose construct ends the program would jump past its end
    ("IF alu ;\n: temp[0].r = MAD ;\nELSE ;\n: temp[1].r = MAD ;\nENDIF ;", 3,
     "ELSE would jump to instruction 5, past the program's end (4)"),
    ("LOOP ;\nBREAK ;\nENDLOOP ;", 2, "BREAK would jump to instruction 3, past the program's end"),
])
def test_error_names_line(text, line, message):
    with pytest.raises(R500AsmError) as info:
        assemble(text)
    first = info.value.first
    assert (first.filename, first.line) == ("<string>", line), str(info.value)
    assert message in first.problem


def test_too_many_instructions():
    with pytest.raises(R500AsmError, match=r"<string>:513: more than 512 instructions"):
        assemble(NOP_ALU * 513)
    assert assemble(NOP_ALU * 512).instructions == 512


def test_several_errors_reported():
    with pytest.raises(R500AsmError) as info:
        assemble(": temp[0].r = XYZ ;\n: temp[0].r = MAD ;\n: temp[0].q = MAD ;")
    assert [d.line for d in info.value.diagnostics] == [1, 3]


def test_include_relative_and_errors(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "part.asm").write_text(NOP_ALU + '#include "more.asm"\n')
    (tmp_path / "sub" / "more.asm").write_text("\n: temp[0].r = BAD ;\n")
    (tmp_path / "main.asm").write_text('-- main\n#include "sub/part.asm"\n')
    with pytest.raises(R500AsmError) as info:
        assemble_file(tmp_path / "main.asm")
    assert str(info.value) == f"{tmp_path / 'sub' / 'more.asm'}:2: unknown opcode 'BAD'"
    (tmp_path / "sub" / "more.asm").write_text('#include "part.asm"\n')
    with pytest.raises(R500AsmError, match=r"more.asm:1: #include cycle: part.asm -> "
                                           r"more.asm -> part.asm"):
        assemble_file(tmp_path / "main.asm")
    (tmp_path / "main.asm").write_text('\n\n#include "gone.asm"\n')
    with pytest.raises(R500AsmError, match=r'main.asm:3: cannot include "gone.asm"'):
        assemble_file(tmp_path / "main.asm")
    with pytest.raises(R500AsmError, match="cannot read"):
        assemble_file(tmp_path / "absent.asm")


# --- CLI and files ---------------------------------------------------------------------------

def run(*args):
    return subprocess.run([sys.executable, "-m", "firmware.r500asm", *map(str, args)],
                          capture_output=True, text=True, cwd=REPO)


def test_cli_formats(tmp_path):
    source = DATA / "texture.asm"
    expected = assemble_file(source).words
    for suffix in ("inc", "hex", "bin"):
        out = tmp_path / f"prog.{suffix}"
        assert run(source, "-o", out).returncode == 0
        assert read_words(out) == expected
        assert load_program(out).words == expected
    assert (tmp_path / "prog.inc").read_text() == "".join(
        "".join(f"0x{w:08x},\n" for w in expected[i:i + 6]) + "\n" for i in (0, 6))
    assert (tmp_path / "prog.hex").read_text().splitlines()[0] == \
        " ".join(f"{w:08x}" for w in expected[:6])
    assert len((tmp_path / "prog.bin").read_bytes()) == 48
    assert load_program(source).words == expected


def test_cli_error_exit(tmp_path):
    bad = tmp_path / "bad.asm"
    bad.write_text(NOP_ALU + ": temp[0].r = MAD src0.rrr\n")
    result = run(bad, "-o", tmp_path / "x.inc")
    assert result.returncode == 1
    assert result.stderr == f"{bad}:2: missing ';' after 'rrr'\n"
    assert not (tmp_path / "x.inc").exists()
    assert run(DATA / "texture.asm", "-o", tmp_path / "x.txt").returncode == 1


def test_docs_examples_assemble():
    text = (REPO / "docs" / "r500-asm.md").read_text()
    blocks = [b for b in re.findall(r"^```\w*\n(.*?)^```", text, re.S | re.M)
              if b.startswith(("OUT", "ALU_WMASK"))]
    assert len(blocks) == 2
    for block in blocks:
        assemble(block)
