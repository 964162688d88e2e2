"""``python -m sim.r500 run JOB.json`` (r500-us.md §4.3): the job, the answer, the exit status."""

import json
import shutil
import subprocess
import sys

import pytest

from hdl.isa import TexOp
from sim.r500.__main__ import main
from tests.helpers.r500 import alu, tex

LENGTH_ASM = """src0.rgb = temp[0] : temp[0].r = DP3 src0.rg0 src0.rg0 ;
src0.rgb = temp[0] : temp[0].a = RSQ |src0.r| ;
OUT src0.a = temp[0] : out[0].r = SOP, RCP src0.a ;
"""


def write_job(tmp_path, job, name="job.json"):
    path = tmp_path / name
    path.write_text(job if isinstance(job, str) else json.dumps(job))
    return path


def run_cli(capsys, path, *extra):
    status = main(["run", str(path), *extra])
    out, err = capsys.readouterr()
    return status, out, err


def answer_of(capsys, tmp_path, job):
    status, out, err = run_cli(capsys, write_job(tmp_path, job))
    return status, json.loads(out), err


def test_the_command_runs_a_word_file(tmp_path, r500_programs_dir):
    """The real command line, once: hw-length on (3, 4)."""
    shutil.copy(r500_programs_dir / "hw-length.inc", tmp_path)
    job = write_job(tmp_path, {"program": "hw-length.inc",
                               "lanes": [{"temps": {"0": [3, 4, 0, 1]}}, {}, {}, {}]})
    done = subprocess.run([sys.executable, "-m", "sim.r500", "run", str(job), "--engine",
                           "model"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert list(answer) == ["lanes", "instructions", "cycles", "error"]
    assert answer["instructions"] == 4 and answer["cycles"] is None and answer["error"] is None
    lane = answer["lanes"][0]
    assert list(lane) == ["temps", "out", "w", "killed"]
    assert lane["out"] == {"0": ["0x40a00000", "0x00000000", "0x00000000", "0x3f800000"]}
    assert lane["w"] == "0x00000000" and lane["killed"] is False


def test_assembly_program_and_values(capsys, tmp_path):
    (tmp_path / "length.asm").write_text(LENGTH_ASM)
    job = {"program": {"path": "length.asm"},
           "lanes": [{"temps": {"0": [0.3, 0.4, 0, 0], "5": ["0x00000001", 0, -0.0, 1e-40],
                                "6": [-1e-40, 0, 0, 0], "7": [0, 0, 0, 0]}},
                     {"covered": False}, {}, {}]}
    status, answer, _ = answer_of(capsys, tmp_path, job)
    assert status == 0
    temps = answer["lanes"][0]["temps"]
    assert temps["5"] == ["0x00000001", "0x00000000", "0x80000000", "0x00000000"]
    assert temps["6"] == ["0x80000000"] + ["0x00000000"] * 3     # -1e-40 flushes to -0
    assert "7" not in temps                                        # all zero: not listed
    assert temps["0"][1] == "0x3ecccccd"                           # 0.4 to nearest binary32
    uncovered = answer["lanes"][1]
    assert uncovered["out"] == {} and uncovered["w"] == "0x00000000"
    assert uncovered["temps"]["0"][3] == "0x7f800000"             # RSQ of 0: it computed


def words(*instructions):
    return [w for inst in instructions for w in inst]


def test_word_list_start_end_and_hex_strings(capsys, tmp_path):
    program = words(alu(rgb=("i64",), rgb_dest=1, RGB_WMASK=1),
                    alu(rgb=("i56",), rgb_dest=2, RGB_WMASK=1),
                    alu(rgb=("i56",), rgb_dest=3, RGB_WMASK=1))
    job = {"program": {"words": [f"0x{w:x}" for w in program], "start": 1, "end": 1}}
    status, answer, _ = answer_of(capsys, tmp_path, job)
    assert status == 0 and answer["instructions"] == 1
    assert list(answer["lanes"][0]["temps"]) == ["2"]


def test_killed_lane_and_constants(capsys, tmp_path):
    program = words(tex(TexOp.TEXKILL, src=0),
                    alu(rgb=("c3",), alpha=("c3",), out=True, RGB_OMASK=7, ALPHA_OMASK=1,
                        w=1, rgb_target=1, alpha_target=1))
    job = {"program": program, "constants": {"3": [1.0, 0.5, "0x80000000", 0]},
           "lanes": [{"temps": {"0": [-1, 0, 0, 0]}}, {}, {}, {}]}
    status, answer, _ = answer_of(capsys, tmp_path, job)
    assert status == 0
    killed, alive = answer["lanes"][0], answer["lanes"][1]
    assert killed == {"temps": {"0": ["0xbf800000"] + ["0x00000000"] * 3}, "out": {},
                      "w": None, "killed": True}
    assert alive["out"] == {"1": ["0x3f800000", "0x3f000000", "0x80000000", "0x00000000"]}
    assert alive["w"] == "0x00000000"


def test_quad_error_exits_1(capsys, tmp_path):
    job = {"program": words(alu(), alu(rgb_dest=0), tex(TexOp.LD))}
    status, answer, _ = answer_of(capsys, tmp_path, job)
    assert status == 1 and answer["error"].startswith("sampler not set up at PC 2")
    job = {"program": words(alu(), tex(TexOp.LD)), "texture": [0, 0, 0],
           "samplers": {"1": {"width": 1, "height": 1}}}         # the program samples 0
    status, answer, _ = answer_of(capsys, tmp_path, job)
    assert status == 1 and answer["error"].startswith("sampler not set up at PC 1")
    job = {"program": words(alu(rgb_op=6))}
    status, answer, _ = answer_of(capsys, tmp_path, job)
    assert status == 1 and answer["error"].startswith("illegal instruction at PC 0")


def test_samplers_texture_int_consts_bools_and_limit(capsys, tmp_path):
    program = words(tex(TexOp.LD, src=0, dst=1))
    job = {"program": program, "texture": [0, 512, "0x00000400"], "bools": "0x1",
           "int_consts": {"0": 255}, "max_instructions": 1,
           "samplers": {"0": {"base": 0, "width": 1, "height": 1, "filter": "bilinear",
                              "wrap": "clamp"}}}
    status, answer, _ = answer_of(capsys, tmp_path, job)
    assert status == 0
    assert answer["lanes"][0]["temps"]["1"] == ["0x00000000", "0x3b800000", "0x3c000000",
                                                "0x3f800000"]
    job["max_instructions"] = 0
    status, answer, _ = answer_of(capsys, tmp_path, job)
    assert status == 1 and answer["error"].startswith("instruction limit at PC 0")


@pytest.mark.parametrize("job, field", [
    ('{"program": [0, 0', "not JSON"),
    ([], "expected an object"),
    ({}, "program"),
    ({"program": 5}, "program"),
    ({"program": "missing.inc"}, "program"),
    ({"program": "prog.txt"}, "program"),
    ({"program": "bad.asm"}, "bad.asm:1"),
    ({"program": [0] * 7}, "program"),
    ({"program": [0] * 6, "colour": 1}, "'colour'"),
    ({"program": {"path": "p.inc", "words": [0] * 6}}, "program"),
    ({"program": {"words": [0] * 6, "end": 3}}, "program"),
    ({"program": {"words": [0] * 6, "start": -1}}, "program.start"),
    ({"program": [-1, 0, 0, 0, 0, 0]}, "program[0]"),
    ({"program": [0] * 6, "constants": {"256": [0, 0, 0, 0]}}, 'constants["256"]'),
    ({"program": [0] * 6, "constants": {"1": [0, 0, 0]}}, 'constants["1"]'),
    ({"program": [0] * 6, "constants": {"1": [0, 0, True, 0]}}, 'constants["1"][2]'),
    ({"program": [0] * 6, "constants": {"1": [0, 0, "0xZ", 0]}}, 'constants["1"][2]'),
    ({"program": [0] * 6, "bools": 1.5}, "bools"),
    ({"program": [0] * 6, "int_consts": {"32": 1}}, 'int_consts["32"]'),
    ({"program": [0] * 6, "samplers": {"0": {"width": 2}}}, 'samplers["0"]'),
    ({"program": [0] * 6, "samplers": {"0": {"width": 2, "height": "2"}}}, "height"),
    ({"program": [0] * 6, "samplers": {"0": {"width": 2, "height": 2, "filter": 1}}},
     "filter"),
    ({"program": [0] * 6, "samplers": {"16": {"width": 2, "height": 2}}}, 'samplers["16"]'),
    # a sampler the hardware cannot set up (r500-us.md §3.5) is refused by field
    ({"program": [0] * 6, "texture": [0] * 12, "samplers": {"0": {"width": 3, "height": 1}}},
     'samplers["0"].width: 3 is not a power of two'),
    ({"program": [0] * 6, "texture": [0] * 24, "samplers": {"0": {"width": 1, "height": 6}}},
     'samplers["0"].height: 6 is not a power of two'),
    ({"program": [0] * 6, "texture": [0] * 12, "samplers": {"0": {"width": 0, "height": 1}}},
     'samplers["0"].width: 0 is outside'),
    ({"program": [0] * 6, "texture": [0] * 12,
      "samplers": {"0": {"base": -3, "width": 1, "height": 1}}}, 'samplers["0"].base'),
    ({"program": [0] * 6, "texture": [0] * 12,
      "samplers": {"0": {"width": 2, "height": 2, "filter": "trilinear"}}},
     'samplers["0"].filter: \'trilinear\' is not one of nearest, bilinear'),
    ({"program": [0] * 6, "texture": [0] * 12,
      "samplers": {"0": {"width": 2, "height": 2, "wrap": "mirror"}}},
     'samplers["0"].wrap: \'mirror\' is not one of repeat, clamp'),
    ({"program": [0] * 6, "texture": [0] * 12, "samplers": {"0": {"width": 4, "height": 4}}},
     'samplers["0"]: its texels, words 0 to 47 (4 x 4 of 3), lie outside the texture\'s 12'),
    ({"program": [0] * 6, "texture": [0] * 12,
      "samplers": {"0": {"base": 10, "width": 1, "height": 1}}},
     'samplers["0"]: its texels, words 10 to 12'),
    ({"program": [0] * 6, "samplers": {"3": {"width": 1, "height": 1}}},
     'samplers["3"]: its texels, words 0 to 2 (1 x 1 of 3), lie outside the texture\'s 0'),
    ({"program": [0] * 6, "texture": [2 ** 32]}, "texture[0]"),
    ({"program": [0] * 6, "lanes": [{}, {}, {}]}, "lanes"),
    ({"program": [0] * 6, "lanes": [{"covered": 1}, {}, {}, {}]}, "lanes[0].covered"),
    ({"program": [0] * 6, "lanes": [{"temps": {"128": [0, 0, 0, 0]}}, {}, {}, {}]},
     'lanes[0].temps["128"]'),
    ({"program": [0] * 6, "lanes": [{"temps": {"0": [10 ** 400, 0, 0, 0]}}, {}, {}, {}]},
     None),
    ({"program": [0] * 6, "max_instructions": -1}, "max_instructions"),
])
def test_malformed_jobs_exit_2_with_one_line(capsys, tmp_path, job, field):
    (tmp_path / "bad.asm").write_text("src0.rgb = temp[0] : temp[0].r = DP9 src0.rg0 ;\n")
    (tmp_path / "prog.txt").write_text("0x0\n")
    path = write_job(tmp_path, job)
    try:
        status, out, err = run_cli(capsys, path)
    except SystemExit as stop:                  # no path may end in a traceback either
        pytest.fail(f"SystemExit {stop}")
    if field is None:                           # a huge number is +inf, not an error
        assert status == 0
        return
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and str(path) in err and field in err, err


@pytest.mark.parametrize("backend", ["fast", "pysim"])
def test_rtl_engine_answers_as_the_model(capsys, tmp_path, r500_programs_dir, backend):
    """--engine rtl runs the job on the R500 core (compiled, or Amaranth's simulator with a
    VCD) and answers what the model answers, with the cycles it took."""
    shutil.copy(r500_programs_dir / "hw-length.inc", tmp_path)
    job = write_job(tmp_path, {"program": "hw-length.inc",
                               "lanes": [{"temps": {"0": [3, 4, 0, 1]}}, {"covered": False},
                                         {"temps": {"0": [-1e-40, float("inf"), 0, 0]}}, {}]})
    status, out, err = run_cli(capsys, job, "--engine", "model")
    assert status == 0, err
    model = json.loads(out)
    extra = ["--vcd", str(tmp_path / "quad.vcd")] if backend == "pysim" else []
    status, out, err = run_cli(capsys, job, "--engine", "rtl", "--backend", backend, *extra)
    assert status == 0, err
    rtl = json.loads(out)
    assert isinstance(rtl["cycles"], int) and rtl["cycles"] > 0
    assert {**rtl, "cycles": None} == model
    assert backend == "fast" or (tmp_path / "quad.vcd").stat().st_size > 0
