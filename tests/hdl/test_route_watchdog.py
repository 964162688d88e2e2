"""The routing watchdog (hdl/route_watchdog.py) and nextpnr's log read line by line
(hdl/nextpnr_log.py): the decisions on synthetic iterations, the parser on excerpts of real
nextpnr-ecp5 0.11 logs (tests/hdl/data/), and ``watch`` stopping a stand-in router that loops."""

import sys
from pathlib import Path

from hdl.nextpnr_log import ArcsLeft, Placing, ProgressReader, RouterIteration
from hdl.route_watchdog import (DIVERGED, RIPUP_STALLED, STALLED, Watchdog, WatchdogLimits,
                                watch)

DATA = Path(__file__).parent / "data"


def _events(name):
    reader = ProgressReader()
    return [e for line in (DATA / name).read_text().splitlines()
            if (e := reader.feed(line)) is not None]


def _run(watchdog, iterations, seconds_each=1.0):
    """Feed ``iterations`` ((overused, failing) pairs, numbered from 1) until a verdict."""
    for i, (overused, failing) in enumerate(iterations, 1):
        verdict = watchdog.feed(RouterIteration(i, overused, overused * 2, failing),
                                i * seconds_each)
        if verdict is not None:
            return i, verdict
    return None, None


def test_real_placement_log_is_read_as_placer_iterations():
    events = _events("nextpnr-place-heap.log")
    heap = [e.iteration for e in events if e.placer == "HeAP"]
    annealing = [e.iteration for e in events if e.placer == "annealing"]
    assert all(isinstance(e, Placing) for e in events)
    assert heap[:2] == [0, 1] and heap[-1] == 15
    assert annealing[0] == 1 and annealing[-1] == 24


def test_real_static_placement_log_is_read_as_placer_iterations():
    """The static placer's iterations, then the annealing refinement (the four-core top)."""
    events = _events("nextpnr-place-static.log")
    static = [e.iteration for e in events if e.placer == "static"]
    annealing = [e.iteration for e in events if e.placer == "annealing"]
    assert static[:3] == [0, 1, 2] and static[-1] == 547
    assert annealing and annealing[0] == 1 and len(static) + len(annealing) == len(events)


def test_real_ripup_stall_is_stopped_where_the_build_stopped_it():
    """The four-core top's router2 log on seed 1 (tests/hdl/data): nothing overused from
    iteration 102, then 10 failing arcs at every iteration; read line by line, the watchdog
    stops it at iteration 142, as the build did."""
    iterations = [e for e in _events("nextpnr-route-ripup-stall.log")
                  if isinstance(e, RouterIteration)]
    assert [e.iteration for e in iterations] == list(range(1, 143))
    assert iterations[0].overused > 50000 and all(e.failing is not None for e in iterations)
    first_routed = next(e for e in iterations if e.overused == 0)
    assert (first_routed.iteration, first_routed.failing) == (102, 10)
    watchdog = Watchdog()
    verdicts = [(e.iteration, v) for e in iterations
                if (v := watchdog.feed(e, e.iteration * 10.0)) is not None]
    assert len(verdicts) == 1
    at, verdict = verdicts[0]
    assert at == 142 and verdict.kind == RIPUP_STALLED
    assert "10 failing arcs at fewest (iteration 102" in verdict.text


def test_ripup_that_stops_improving_is_stopped_after_the_limit():
    """Nothing overused from iteration 3; the failing arcs fall to 10 at iteration 5, then
    hover above: the verdict comes ``ripup_iterations`` after iteration 5, not before."""
    limits = WatchdogLimits(ripup_iterations=40)
    history = [(900, 50), (12, 40), (0, 30), (0, 12), (0, 10)] + [(0, 10 + i % 3)
                                                                    for i in range(100)]
    at, verdict = _run(Watchdog(limits), history)
    assert at == 5 + 40
    assert verdict.kind == RIPUP_STALLED
    assert "10 failing arcs" in verdict.text and "iteration 5" in verdict.text


def test_ripup_that_keeps_improving_runs_on():
    """New fewest failing arcs every 30 iterations: no verdict; and router2 without rip-up
    (no tmgfail) is never stopped once nothing is overused."""
    history = [(0, 100 - k // 30) for k in range(300)]
    assert _run(Watchdog(WatchdogLimits(ripup_iterations=40)), history) == (None, None)
    assert _run(Watchdog(), [(50, None)] + [(0, None)] * 500) == (None, None)


def test_ripup_stall_counts_iterations_that_overuse_wires_again():
    """Rip-up can make wires overused again; those iterations are no progress."""
    history = [(5, 20), (0, 9)] + [(3, 4), (0, 9)] * 30
    at, verdict = _run(Watchdog(WatchdogLimits(ripup_iterations=20)), history)
    assert (at, verdict.kind) == (22, RIPUP_STALLED)


def test_ripup_stall_by_minutes():
    history = [(0, 5)] + [(0, 6)] * 50
    at, verdict = _run(Watchdog(WatchdogLimits(ripup_iterations=1000, ripup_minutes=1)),
                       history, seconds_each=10.0)
    assert (at, verdict.kind) == (7, RIPUP_STALLED)          # 60 s after iteration 1


def test_overuse_that_grows_is_diverged():
    """The overused wires fall to 700 at iteration 20, then grow: diverged once the last
    ``growth_iterations`` are all above twice the fewest (plus the slack)."""
    falling = [(5000 - 215 * i, None) for i in range(1, 21)]       # 700 at iteration 20
    growing = [(700 + 80 * i, None) for i in range(1, 100)]
    at, verdict = _run(Watchdog(WatchdogLimits(growth_iterations=10)), falling + growing)
    assert verdict.kind == DIVERGED and "700 overused wires at fewest (iteration 20)" in verdict.text
    assert "growing" in verdict.text
    first_above = 20 + next(i for i in range(1, 100) if 700 + 80 * i > 2 * 700 + 50)
    assert at == first_above + 10 - 1


def test_overuse_that_stops_falling_is_diverged_after_the_limit():
    history = [(100, None), (40, None), (11, None)] + [(11 + i % 5, None) for i in range(400)]
    at, verdict = _run(Watchdog(WatchdogLimits(overuse_iterations=250)), history)
    assert (at, verdict.kind) == (3 + 250, DIVERGED)
    assert "none fewer in 250 iterations" in verdict.text


def test_slow_convergence_with_a_few_wires_runs_on():
    """A placement that routes after long stretches at a handful of overused wires (the R500
    top on seed 6: 11 or fewer from iteration 114, none at 295) is not stopped."""
    history = ([(800 - 7 * i, None) for i in range(100)] + [(11, None)] * 14
               + [(9, None)] * 120 + [(5, None)] * 60 + [(0, None)])
    assert _run(Watchdog(), history, seconds_each=3.0) == (None, None)


def test_router1_that_stops_reducing_arcs_is_stalled():
    watchdog = Watchdog(WatchdogLimits(arcs_minutes=10))
    assert watchdog.feed(ArcsLeft(1000, 5000), 0.0) is None
    assert watchdog.feed(ArcsLeft(2000, 4000), 60.0) is None
    assert watchdog.feed(ArcsLeft(3000, 4100), 600.0) is None
    verdict = watchdog.feed(ArcsLeft(4000, 4050), 660.0)
    assert verdict.kind == STALLED and "4,000 arcs left" in verdict.text


def test_watch_stops_a_router_that_loops(tmp_path):
    """``watch`` reads the log as it grows and stops the process on the verdict (a stand-in
    router2 whose rip-up never ends)."""
    router = tmp_path / "router.py"
    router.write_text(
        "import sys, time\n"
        "with open(sys.argv[1], 'w') as log:\n"
        "    print('Info: Running router2...', file=log, flush=True)\n"
        "    i = 0\n"
        "    while True:\n"
        "        i += 1\n"
        "        print(f'Info:     iter={i} wires=9 overused=0 overuse=0 resources=0 '\n"
        "              f'overused=0 overuse=0 tmgfail=3 archfail=NA', file=log, flush=True)\n"
        "        time.sleep(0.01)\n")
    watched = watch([sys.executable, str(router), "route.log"], tmp_path, "route.log",
                    Watchdog(WatchdogLimits(ripup_iterations=20)), poll_seconds=0.05)
    assert watched.returncode is None and watched.verdict.kind == RIPUP_STALLED
    assert watched.iterations == 21 and "3 failing arcs" in watched.status


def test_watch_returns_when_the_tool_ends(tmp_path):
    watched = watch([sys.executable, "-c", "open('x.log', 'w').write('Info: done\\n')"],
                    tmp_path, "x.log", Watchdog(), poll_seconds=0.05)
    assert (watched.returncode, watched.verdict, watched.iterations) == (0, None, None)
