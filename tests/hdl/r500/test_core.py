"""The R500 core (hdl/r500/core.py) through its job top against the model: the published R500
programs on random quads, directed cases of every part of the core, and one job in Amaranth's
simulator with a VCD. The random programs are in test_core_random.py."""

import random

import pytest

from firmware.r500asm import read_words
from hdl.isa import AlphaOp, QuadFault, RgbOp, TexOp
from sim.fc_model import fc_endif, fc_else, fc_if, fc_endloop, fc_loop, fc_break, int_const
from sim.r500 import fp32
from sim.r500.job import Job
from sim.r500.quad import LaneInput, run_quad
from sim.r500.rtl import run_job_rtl
from sim.r500.tex import Sampler
from tests.helpers.r500 import alu, fc, tex, vec
from tests.helpers.shared_data import PUBLISHED_R500

SIZE = 8

pytestmark = pytest.mark.xdist_group("r500_job_top")


def same(job):
    """Run ``job`` on the model and the RTL; assert every lane's temporaries, outputs, W, kills,
    the instruction count and the error's code and PC agree. Returns the RTL's cycles."""
    want = run_quad(job.program, job.lanes, job.constants, job.bools, job.int_consts,
                    job.samplers, job.texture, job.start, job.end, job.max_instructions)
    got, cycles = run_job_rtl(job)
    for l, (a, b) in enumerate(zip(want.lanes, got.lanes)):
        for t, (x, y) in enumerate(zip(a.temps, b.temps)):
            assert x == y, f"lane {l} temp {t}: model {[hex(v) for v in x]} rtl {[hex(v) for v in y]}"
        assert a.outputs == b.outputs, f"lane {l} outputs"
        assert (a.w, a.killed) == (b.w, b.killed), f"lane {l} W/killed"
    assert want.instructions == got.instructions
    if want.error is None:
        assert got.error is None, f"rtl stopped: {got.error}"
    else:
        assert got.error is not None, f"model stopped ({want.error}), rtl did not"
        assert (want.error.code, want.error.pc) == (got.error.code, got.error.pc)
    return cycles


def words(program):
    return [w for inst in program for w in inst]


def job(program, temps=None, **kw):
    """A Job of instructions (tests.helpers.r500 builders) with lane temporaries ``temps``
    ({index: floats} for every lane, or a list of four)."""
    temps = temps or {}
    per_lane = temps if isinstance(temps, list) else [temps] * 4
    lanes = [LaneInput({i: vec(*v) for i, v in t.items()}) for t in per_lane]
    kw.setdefault("constants", {})
    kw["constants"] = {i: vec(*v) for i, v in kw["constants"].items()}
    return Job(program=words(program), lanes=lanes, **kw)


# --- the published programs -------------------------------------------------------------------

def published_job(path, seed):
    rng = random.Random(seed)
    program = read_words(path)
    lanes = []
    for _ in range(4):
        temps = {i: [fp32.from_float(rng.uniform(-1, 1)) for _ in range(4)] for i in range(10)}
        temps[0] = [fp32.from_float(rng.random()) for _ in range(4)]
        lanes.append(LaneInput(temps))
    constants = {i: [fp32.from_float(rng.uniform(-0.2, 0.2)) for _ in range(4)]
                 for i in range(8)}
    texture = [rng.randrange(256) << 9 for _ in range(2 * 3 * SIZE * SIZE)]
    samplers = {0: Sampler(0, SIZE, SIZE), 1: Sampler(3 * SIZE * SIZE, SIZE, SIZE, "bilinear")}
    return Job(program=program, constants=constants, samplers=samplers, texture=texture,
               lanes=lanes)


@pytest.mark.parametrize("name", PUBLISHED_R500)
def test_published_program_matches_model(r500_programs_dir, name):
    for seed in range(3):
        same(published_job(r500_programs_dir / f"{name}.inc", seed))


# --- directed ------------------------------------------------------------------------------

def test_dependent_chain():
    """Each instruction reads the one before: the context waits for its writes."""
    program = [alu(a="src0.rgb", b="src0.rgb", c="src0.rgb", aa="src0.a", ab="src0.a",
                   ac="src0.a", rgb=["t1"], alpha=["t1"], rgb_dest=1, alpha_dest=1,
                   RGB_WMASK=7, ALPHA_WMASK=1) for _ in range(6)]
    same(job(program, {1: [0.5, -1.25, 2.0, 0.75]}))


def test_every_rgb_and_alpha_op():
    rgb_ops = [op for op in RgbOp if op not in (RgbOp.DP4, RgbOp.DP3)]
    program = []
    for k, op in enumerate(rgb_ops):
        program.append(alu(op, a="src0.rgb", b="src1.gbr", c="src2.brg", rgb=["t1", "t2", "t3"],
                           rgb_dest=10 + k, RGB_WMASK=7))
    for k, op in enumerate(a for a in AlphaOp if a != AlphaOp.DP):
        program.append(alu(alpha_op=op, aa="src0.a", ab="src1.r", ac="src2.g",
                           alpha=["t1", "t2", "t3"], rgb=["t1", "t2", "t3"],
                           alpha_dest=30 + k, ALPHA_WMASK=1))
    program.append(alu(RgbOp.DP4, a="src0.rgb", b="src1.rgb", alpha_op=AlphaOp.DP,
                       aa="src0.a", ab="src1.a", rgb=["t1", "t2"], alpha=["t1", "t2"],
                       rgb_dest=50, alpha_dest=51, RGB_WMASK=7, ALPHA_WMASK=1))
    program.append(alu(RgbOp.DP3, a="src0.rgb", b="src1.rgb", alpha_op=AlphaOp.DP,
                       rgb=["t1", "t2"], rgb_dest=52, alpha_dest=52, RGB_WMASK=7,
                       ALPHA_WMASK=1))
    lanes = [{1: [0.3 + l, -1.5, 2.25, 0.625], 2: [-0.75, 0.5 * l, 4.0, -0.0],
              3: [0.5, 0.0, -3.0, 1.5 - l]} for l in range(4)]
    same(job(program, lanes))


def test_branches_diverge():
    """IF/ELSE/ENDIF on a per-lane condition, and a LOOP left by BREAK."""
    program = [
        alu(a="src0.rgb", alpha_op=AlphaOp.MAX, aa="src0.a", ab="src0.a", alpha=["t1"],
            rgb=["t1"], alu_wmask=1, ALU_RESULT_SEL=1, ALU_RESULT_OP=2),   # alu = t1.a >= 0
        fc(fc_if(4)),
        alu(a="src0.rgb", b="src0.111", c="src0.111", rgb=["t1"], rgb_dest=2, RGB_WMASK=7),
        fc(fc_else(5)),
        alu(a="src0.rgb", b="src0.000", c="src0.hhh", rgb=["t1"], rgb_dest=2, RGB_WMASK=7),
        fc(fc_endif(6)),
        fc(fc_loop(9, 0)),
        alu(a="src0.rgb", b="src0.111", c="src0.111", rgb=["t2"], rgb_dest=2, RGB_WMASK=7),
        fc(fc_break(10, 0)),
        fc(fc_endloop(7, 0)),
        alu(out=True, a="src0.rgb", rgb=["t2"], RGB_OMASK=7),
    ]
    lanes = [{1: [1, 2, 3, -1.0 if l % 2 else 1.0]} for l in range(4)]
    same(job(program, lanes, int_consts={0: int_const(3)}))


def test_texture_and_kill():
    texture = [(k * 37 % 256) << 9 for k in range(3 * 4 * 4)]
    program = [tex(TexOp.LD, src=1, dst=2),
               tex(TexOp.TEXKILL, src=3, dst=0, mask=""),
               alu(out=True, a="src0.rgb", rgb=["t2"], RGB_OMASK=7)]
    lanes = [{1: [0.1 * l, 0.3, 0, 1], 3: [1, -0.0 if l == 2 else 0.5, 0, 0]} for l in range(4)]
    same(job(program, lanes, texture=texture, samplers={0: Sampler(0, 4, 4, "bilinear")}))


@pytest.mark.parametrize("fault", [QuadFault.ILLEGAL_INSTRUCTION, QuadFault.BAD_TEMPORARY,
                                   QuadFault.SAMPLER_NOT_SET_UP, QuadFault.INSTRUCTION_LIMIT])
def test_faults(fault):
    body = alu(a="src0.rgb", rgb=["t1"], rgb_dest=2, RGB_WMASK=7)
    bad = {QuadFault.ILLEGAL_INSTRUCTION: alu(rgb_op=6),
           QuadFault.BAD_TEMPORARY: alu(rgb=["t1+"], rgb_dest=3),
           QuadFault.SAMPLER_NOT_SET_UP: tex(TexOp.LD, tex_id=5),
           QuadFault.INSTRUCTION_LIMIT: body}[fault]
    kw = {"max_instructions": 2} if fault == QuadFault.INSTRUCTION_LIMIT else {}
    same(job([body, body, bad, body], {1: [1, 2, 3, 4]}, **kw))


def test_pysim_with_vcd(tmp_path):
    """The job in Amaranth's simulator gives the model's answer and a VCD."""
    program = [alu(rgb_op=RgbOp.FRC, a="src0.rgb", rgb=["t1"], rgb_dest=2, RGB_WMASK=7),
               alu(out=True, a="src0.rgb", rgb=["t2"], RGB_OMASK=7)]
    j = job(program, {1: [1.25, -0.5, 7.0, 0]})
    want = run_quad(j.program, j.lanes)
    got, cycles = run_job_rtl(j, backend="pysim", vcd=tmp_path / "quad.vcd")
    assert [l.outputs for l in got.lanes] == [l.outputs for l in want.lanes]
    assert cycles > 0 and (tmp_path / "quad.vcd").stat().st_size > 0
