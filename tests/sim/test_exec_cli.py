"""``python -m sim.exec PROGRAM.s --engine model --json``: the command line the RTL is compared
through. Each test runs it as a subprocess on a small program written to a temporary directory."""

import json
import subprocess
import sys

import pytest

from hdl.isa import NUM_REGS, ONE, USER_CODE_START, reg
from tests.helpers import REPO



def sim_exec(tmp_path, source, *args, name="prog.s"):
    path = tmp_path / name
    path.write_text(source)
    proc = subprocess.run([sys.executable, "-m", "sim.exec", str(path), *args],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    return path, proc


def json_result(proc):
    result = json.loads(proc.stdout)
    assert set(result) == {"regs", "instructions", "cycles", "error"}
    return result


PROGRAM = """\
    SETX R1 1.5
    SETY R1 -2.0
    SETZ R1 0xFFFFFFFF
    ADD R2 R1 R1            // (3.0, -4.0, -2 LSB)
    COPY C7 R2 VOID
    SETX 5 1                // config: dropped
    RETURN RT_TRUE
"""


def test_json_result(tmp_path):
    _, proc = sim_exec(tmp_path, PROGRAM, "--engine", "model", "--json")
    assert proc.returncode == 0, proc.stderr
    result = json_result(proc)
    assert result["error"] is None
    assert result["cycles"] is None                 # the model does not count cycles
    assert result["instructions"] == 7
    regs = result["regs"]
    assert list(regs) == [str(a) for a in range(NUM_REGS)]
    for value in regs.values():
        assert len(value) == 3 and all(isinstance(v, int) and 0 <= v <= 0xFFFF_FFFF for v in value)
    assert regs[str(reg("R1"))] == [0x3_0000, 0xFFFC_0000, 0xFFFF_FFFF]
    assert regs[str(reg("R2"))] == [0x6_0000, 0xFFF8_0000, 0xFFFF_FFFE]
    assert regs[str(reg("C7"))] == regs[str(reg("R2"))]
    assert regs["5"] == [0, 0, 0]
    assert sum(1 for v in regs.values() if any(v)) == 3


def test_default_engine_is_model(tmp_path):
    _, proc = sim_exec(tmp_path, PROGRAM, "--json")
    assert proc.returncode == 0
    assert json_result(proc)["instructions"] == 7


def test_instruction_count_with_loop_and_call(tmp_path):
    source = """\
    SETX R1 3.0
LOOP:
    DEC R1 R1 VOID
    CALL SUB
    JGX LOOP R1 CREG_ZERO   // three times round
    RETURN RT_FALSE
SUB:
    INCY R2 R2 VOID
    RET VOID 0
"""
    _, proc = sim_exec(tmp_path, source, "--engine", "model", "--json")
    assert proc.returncode == 0, proc.stderr
    result = json_result(proc)
    assert result["instructions"] == 1 + 3 * (3 + 2) + 1
    assert result["regs"][str(reg("R2"))] == [0, 3 * ONE, 0]


def test_text_output(tmp_path):
    _, proc = sim_exec(tmp_path, PROGRAM, "--engine", "model")
    assert proc.returncode == 0
    assert "00060000 FFF80000 FFFFFFFE" in proc.stdout
    assert "instructions: 7" in proc.stdout


def test_assembly_error(tmp_path):
    path, proc = sim_exec(tmp_path, "    SETX R1 1.0\n    BOGUS R1 R2 R3\n    RETURN RT_TRUE\n",
                          "--engine", "model", "--json")
    assert proc.returncode != 0
    result = json_result(proc)
    assert f"{path}:2:" in result["error"]
    assert "Traceback" not in proc.stderr


def test_missing_file(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "sim.exec", str(tmp_path / "nope.s"), "--json"],
                          cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0
    assert "nope.s" in json_result(proc)["error"]
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("source, pc, what", [
    ("    NOP\n    .word 0x002E000000000000\n    RETURN RT_TRUE\n", USER_CODE_START + 1,
     "illegal instruction"),
    ("    NOP\n    NOP\n    .word 0x00010047004700C8   // ADD R1 R1 200\n", USER_CODE_START + 2,
     "illegal instruction"),
    ("    NOP\n    RET VOID 1\n", USER_CODE_START + 1, "RET"),
    ("S:\n    CALL S\n", USER_CODE_START, "CALL"),
])
def test_run_errors_name_the_address(tmp_path, source, pc, what):
    _, proc = sim_exec(tmp_path, source, "--engine", "model", "--json")
    assert proc.returncode != 0
    result = json_result(proc)
    assert what in result["error"]
    assert f"{pc:#06x}" in result["error"]
    assert len(result["regs"]) == NUM_REGS          # the state at the stop is still reported
    assert "Traceback" not in proc.stderr


def test_runaway_loop(tmp_path):
    _, proc = sim_exec(tmp_path, "LOOP:\n    INCX R1 R1 VOID\n    JMP LOOP\n",
                       "--engine", "model", "--json", "--max-instructions", "1000")
    assert proc.returncode != 0
    result = json_result(proc)
    assert "1000" in result["error"]
    assert result["instructions"] == 1000
    assert result["regs"][str(reg("R1"))][0] == 500 * ONE


def test_rtl_engine_result_or_one_line_refusal(tmp_path):
    """Until the RTL exists ``--engine rtl`` prints one line and fails; once it does, it must
    give the same JSON result as the model (cycles then count)."""
    _, model = sim_exec(tmp_path, PROGRAM, "--engine", "model", "--json")
    _, rtl = sim_exec(tmp_path, PROGRAM, "--engine", "rtl", "--json")
    if rtl.returncode != 0 and not rtl.stdout.strip():
        lines = rtl.stderr.strip().splitlines()
        assert len(lines) == 1 and "rtl" in lines[0]
        return
    assert rtl.returncode == 0, rtl.stderr
    result = json_result(rtl)
    expected = json_result(model)
    assert result["error"] is None
    assert result["regs"] == expected["regs"]
    assert result["instructions"] == expected["instructions"]
    assert isinstance(result["cycles"], int) and result["cycles"] >= result["instructions"]
