"""Random R500 programs (sim/r500/random_program.py: every opcode and modifier, swizzles,
srcp, OMOD, clamp, predication, WRITE_INACTIVE, relative addresses, flow control with
diverging lanes, TEX, TEXKILL, MDH/MDV, edge-value operands) on the RTL core and on the model:
every temporary, output, W and kill flag, the instruction count and the error agree. The bench
``python -m bench.r500_random --engine rtl`` runs thousands."""

import pytest

from hdl.isa import R500_TEMPS
from sim.r500.compare import compare
from sim.r500.random_program import random_job
from sim.r500.rtl import run_result

pytestmark = pytest.mark.xdist_group("r500_job_top")

PROGRAMS = 200
BATCHES = 4


@pytest.mark.slow
@pytest.mark.parametrize("batch", range(BATCHES))
def test_random_programs_match_model(batch):
    size = PROGRAMS // BATCHES
    for seed in range(batch * size, (batch + 1) * size):
        job = random_job(seed, temporaries=R500_TEMPS)
        differences = compare(job.run(), run_result(job))
        assert not differences, f"seed {seed}: " + "; ".join(differences[:5])
