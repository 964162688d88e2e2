"""R500 jobs on the RTL (r500-us.md §4.3): the R500 job top (``hdl/gpu/r500_top.py``) in the
fast simulator (compiled once and cached, so that thousands of jobs are quick) or in Amaranth's
simulator (``pysim``, with a VCD on request), through the host protocol's job sequence
(``host.r500_job.run_quad_job``). The answer is a ``sim.r500.quad.QuadResult``, as the
model's, and the quad's cycles.

    runner = QuadRunner()              # the fast backend
    result, cycles = runner.run(job)   # a sim.r500.job.Job
"""

from amaranth.sim import Simulator

from hdl.config import R500Config
from host.port import BlockingPort, run_blocking
from host.r500_job import run_quad_job
from host.r500_state import shading_state
from hdl.gpu.r500_top import R500Top
from hdl.isa import QuadFault
from sim.r500.errors import QuadError, QuadErrorCode
from sim.r500.quad import LaneResult, QuadResult

__all__ = ["JOB_TOP", "THROUGHPUT_TOP", "TEXTURE_WORDS", "RtlJobError", "QuadRunner",
           "run_job_rtl", "run_job_pysim", "run_result", "BACKENDS"]

#: the job top models the full R500 (§4.3: 128 temporaries, 512 instructions); a job is one
#: quad, so two contexts (the context logic is there) rather than the ten that hide the
#: datapath's latency, which Verilator builds several times slower
JOB_TOP = R500Config(contexts=2)
#: the ten contexts the throughput bench fills (bench.r500_throughput)
THROUGHPUT_TOP = R500Config()
#: the job top's texture memory, in words
TEXTURE_WORDS = 1 << 16
BACKENDS = ("fast", "pysim")


class RtlJobError(ValueError):
    """A job the RTL job top cannot hold; one line."""


def _job_state(job):
    return shading_state(job, len(job.texture))


def _check(job, config):
    if len(job.program) // 6 > config.instructions:
        raise RtlJobError(f"the program has {len(job.program) // 6} instructions, the RTL job "
                          f"top holds {config.instructions}")
    if len(job.texture) > TEXTURE_WORDS:
        raise RtlJobError(f"the texture has {len(job.texture)} words, the RTL job top holds "
                          f"{TEXTURE_WORDS}")


def _lanes(job):
    return [(lane.temps, lane.covered) for lane in job.lanes]


def _result(readback, job, temporaries):
    lanes = []
    for l, lane in enumerate(job.lanes):
        temps = [list(t) for t in readback.temps[l]]
        temps += [[0] * 4 for _ in range(temporaries - len(temps))]
        outputs = {r: list(readback.targets[l][r]) for r in range(4) if readback.written[l][r]}
        lanes.append(LaneResult(temps, outputs, readback.w[l], readback.killed[l],
                                bool(lane.covered)))
    error = None
    if readback.fault != QuadFault.NONE:
        error = QuadError(QuadErrorCode[QuadFault(readback.fault).name], readback.fault_pc)
    return QuadResult(lanes, readback.instructions, error)


class QuadRunner:
    """The job top in the fast simulator, built (or found in the cache) once."""

    def __init__(self, config=JOB_TOP, backend=None, log=None):
        from sim.fast.build import Design
        from sim.fast.driver import FastSim
        from sim.fast.gpu import BusHost
        self.config = config
        self.sim = FastSim(Design(R500Top, config, TEXTURE_WORDS), backend=backend, log=log)
        self.sim.attach_bus()
        self.host = BusHost(self.sim, None, 100_000, 1 << 40)

    def run(self, job):
        """(QuadResult, cycles) of a Job."""
        _check(job, self.config)
        readback = run_blocking(run_quad_job(BlockingPort(self.host), _job_state(job),
                                             job.texture, _lanes(job),
                                             self.config.temporaries))
        return _result(readback, job, self.config.temporaries), readback.cycles


def run_job_pysim(job, config=JOB_TOP, vcd=None):
    """(QuadResult, cycles) of a Job in Amaranth's simulator; ``vcd`` names a file for the
    waveforms."""
    from sim.gpu_pysim import HostDriver, PysimPort
    _check(job, config)
    top = R500Top(config, TEXTURE_WORDS)
    outcome = {}

    async def testbench(ctx):
        port = PysimPort(HostDriver(ctx, top.host), poll_every=16)
        outcome["readback"] = await run_quad_job(port, _job_state(job), job.texture,
                                                 _lanes(job), config.temporaries)

    sim = Simulator(top)
    sim.add_clock(1e-8)
    sim.add_testbench(testbench)
    if vcd:
        with sim.write_vcd(str(vcd)):
            sim.run()
    else:
        sim.run()
    readback = outcome["readback"]
    return _result(readback, job, config.temporaries), readback.cycles


_runners = {}


def _runner(temporaries=JOB_TOP.temporaries):
    """The fast runner of a job top with ``temporaries`` (built once per process)."""
    if temporaries not in _runners:
        config = JOB_TOP if temporaries == JOB_TOP.temporaries else \
            R500Config(temporaries=temporaries, contexts=JOB_TOP.contexts)
        _runners[temporaries] = QuadRunner(config)
    return _runners[temporaries]


def run_job_rtl(job, backend="fast", vcd=None):
    """(QuadResult, cycles) of a Job on the RTL core: ``backend`` "fast" (the compiled model,
    built once per process) or "pysim" (Amaranth's simulator, ``vcd`` optional)."""
    if backend == "pysim":
        return run_job_pysim(job, vcd=vcd)
    if backend != "fast":
        raise ValueError(f"backend is one of {', '.join(BACKENDS)}, not {backend!r}")
    return _runner().run(job)


def run_result(job):
    """The QuadResult of a Job on the fast RTL core holding the job's ``temporaries``."""
    return _runner(getattr(job, "temporaries", JOB_TOP.temporaries)).run(job)[0]
