"""The random R500 jobs (sim/r500/random_program.py) on the model: they run, cover every feature
the RTL core has to match (sim/r500/coverage.py), stop with an error only now and then (every
kind of §4.3 among them), come out the same for the same seed; ``compare``
(sim/r500/compare.py) finds differences."""

import copy
import random
from collections import Counter

import pytest

from hdl.isa import R500_MAX_INSTRUCTIONS, R500_TEMPS
from sim.r500.errors import QuadError, QuadErrorCode
from sim.r500.compare import compare
from sim.r500.coverage import trace, FEATURES
from sim.r500.random_program import random_job, ERROR_KINDS, ERROR_EVERY, MAX_EXECUTED

SEEDS = range(200)


def temporaries(seed):
    """Odd seeds run on a core of 64 temporaries: the seeds that plant errors are odd
    (ERROR_EVERY - 1 mod ERROR_EVERY), and "bad temporary address" needs fewer than 128."""
    return R500_TEMPS if seed % 2 == 0 else 64


@pytest.fixture(scope="module")
def runs():
    """(job, result, features) of every seed."""
    assert ERROR_EVERY % 2 == 0
    return [(job, *trace(job)) for job in (random_job(s, temporaries=temporaries(s))
                                           for s in SEEDS)]


def test_jobs_run_and_cover_every_feature(runs):
    total = Counter()
    for job, result, features in runs:
        assert not compare(job.run(), result)       # the traced run is the model's run
        total.update(features)
    missing = [name for name in FEATURES if not total[name]]
    assert not missing


def test_programs_stay_small(runs):
    for job, result, _ in runs:
        assert len(job.program) % 6 == 0 and len(job.program) // 6 <= R500_MAX_INSTRUCTIONS
        assert result.instructions <= MAX_EXECUTED
    assert sum(result.instructions for _, result, _ in runs) > 20 * len(SEEDS)


def test_errors_are_few_and_of_every_kind(runs):
    errors = Counter(result.error.code for _, result, _ in runs if result.error)
    assert set(errors) == set(ERROR_KINDS)
    assert sum(errors.values()) <= len(SEEDS) // 10


@pytest.mark.parametrize("kind", ERROR_KINDS, ids=lambda kind: kind.name)
def test_each_planted_error_is_the_error(kind):
    for seed in range(6):
        result = random_job(seed, temporaries=40, error=kind).run()
        assert result.error is not None and result.error.code == kind, (seed, result.error)


@pytest.mark.parametrize("count", [4, 13, 127])
def test_fewer_temporaries_run_clean(count):
    for seed in range(25):
        job = random_job(seed, temporaries=count, error=None)
        assert job.temporaries == count
        result = job.run()
        assert result.error is None, (seed, result.error)
        assert all(len(lane.temps) == count for lane in result.lanes)


def test_no_bad_temporary_with_128():
    with pytest.raises(ValueError):
        random_job(0, error=QuadErrorCode.BAD_TEMPORARY)
    with pytest.raises(ValueError):
        random_job(0, temporaries=3)


def test_deterministic_by_seed():
    for seed in (0, 7, 15, 31):
        assert random_job(seed) == random_job(seed)
        assert random_job(random.Random(seed)) == random_job(random.Random(seed))
    assert random_job(1).program != random_job(2).program


def test_compare_finds_planted_differences():
    job = next(random_job(s) for s in range(100)
               if (r := random_job(s).run()).error is None and r.lanes[1].outputs
               and not r.lanes[1].killed)
    model = job.run()
    assert compare(model, copy.deepcopy(model)) == []
    lane = 1
    target = sorted(model.lanes[lane].outputs)[0]
    changes = {
        "lane 1 temp[5].g": lambda r: r.lanes[lane].temps[5].__setitem__(1, 0x8000_0000),
        f"lane 1 out[{target}].a": lambda r: r.lanes[lane].outputs[target].__setitem__(3, 1),
        "lane 1 render targets": lambda r: r.lanes[lane].outputs.__setitem__(9, [0] * 4),
        "lane 1 w": lambda r: setattr(r.lanes[lane], "w", r.lanes[lane].w ^ 1),
        "lane 1 killed": lambda r: setattr(r.lanes[lane], "killed", True),
        "instructions": lambda r: setattr(r, "instructions", r.instructions + 1),
        "error": lambda r: setattr(r, "error", QuadError(QuadErrorCode.INSTRUCTION_LIMIT, 3)),
    }
    for what, change in changes.items():
        other = copy.deepcopy(model)
        change(other)
        differences = compare(model, other)
        assert len(differences) == 1 and differences[0].startswith(what + ":"), differences
    # the error's PC counts, its detail does not
    stopped = copy.deepcopy(model)
    stopped.error = QuadError(QuadErrorCode.LOOP_OVERFLOW, 7, "one detail")
    other = copy.deepcopy(stopped)
    other.error = QuadError(QuadErrorCode.LOOP_OVERFLOW, 7, "another")
    assert compare(stopped, other) == []
    other.error = QuadError(QuadErrorCode.LOOP_OVERFLOW, 8, "one detail")
    assert compare(stopped, other) == ["error: model loop stack overflow at PC 7, "
                                       "rtl loop stack overflow at PC 8"]
    # a killed lane's outputs are not compared (it leaves none)
    killed = copy.deepcopy(model)
    killed.lanes[lane].killed = True
    other = copy.deepcopy(killed)
    other.lanes[lane].outputs.clear()
    other.lanes[lane].w ^= 1
    assert compare(killed, other) == []
