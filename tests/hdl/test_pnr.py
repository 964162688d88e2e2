"""Place and route under the watchdog (hdl/pnr.py) with a stand-in nextpnr: a rip-up that
stalls is stopped and the netlist routed again without it; a routing that diverges ends the
build with the verdict; a routing that ends is packed."""

import sys

import pytest

from hdl.pnr import PnrOptions, place_and_route, placement_digest, route_attempts
from hdl.route_watchdog import WatchdogLimits

PLACEMENT = """\
Info: Device utilisation:
Info: \t          TRELLIS_FF:   21034/  83640    25%
Info: \t        TRELLIS_COMB:   61234/  83640    73%
Info: Checksum: 0x11111111
Info: Running main analytical placer, max placement attempts per cell = 1000.
Info:     at iteration #1, type ALL: wirelen solved = 1, spread = 2, legal = 3; time = 0.1s
Info: Checksum: 0x22222222
Info: Max frequency for clock '$glbnet$clk': 68.10 MHz (FAIL at 80.25 MHz)
"""
ROUTED = """\
Info: Router2 time 1.00s
Info: Max frequency for clock '$glbnet$clk': 77.70 MHz (FAIL at 80.25 MHz)
"""

#: a stand-in nextpnr-ecp5: writes the placement to its --log, then routes as $ROUTE says:
#: "ends" (a few iterations, then the Fmax), "stalls" (the rip-up loops on 3 failing arcs,
#: without --tmg-ripup it ends), "diverges" (overused wires grow)
NEXTPNR = f"""\
import os, sys, time
args = sys.argv[1:]
log = open(args[args.index("--log") + 1], "w")
with open(os.environ["RUNS"], "a") as runs:
    print(" ".join(args), file=runs)
log.write({PLACEMENT!r})
log.write("Info: Running router2...\\n")
mode = os.environ["ROUTE"]
ripup = "--tmg-ripup" in args
i = 0
while True:
    i += 1
    if mode == "diverges":
        overused, failing = (500 - 100 * i if i < 5 else 100 * i), 0
    elif mode == "stalls" and ripup:
        overused, failing = max(0, 30 - 10 * i), 3
    else:
        overused, failing = max(0, 30 - 10 * i), 0
    tmg = f" tmgfail={{failing}}" if ripup else ""
    log.write(f"Info:     iter={{i}} wires=9 overused={{overused}} overuse={{overused}}{{tmg}} "
              f"archfail=NA\\n")
    log.flush()
    if overused == 0 and (failing == 0 or not ripup):
        break
    time.sleep(0.01)
log.write({ROUTED!r})
open("top.config", "w").write("config")
"""


@pytest.fixture
def stand_in(tmp_path, monkeypatch):
    script = tmp_path / "nextpnr.py"
    script.write_text(NEXTPNR)
    monkeypatch.setenv("RUNS", str(tmp_path / "runs.txt"))
    out = tmp_path / "build"
    out.mkdir()
    ecppack = [sys.executable, "-c", "open('top.bit', 'w').write('bit')"]
    amaranth_call = ["$NEXTPNR_ECP5", "--quiet", "--log", "top.tim", "--85k", "--json",
                     "top.json"]

    def run(mode, tmg_ripup=True, **changes):
        monkeypatch.setenv("ROUTE", mode)
        changes.setdefault("limits", WatchdogLimits(ripup_iterations=10, growth_iterations=5))
        options = PnrOptions(seed=1, placer="static", router="router2", tmg_ripup=tmg_ripup,
                             **changes)
        messages = []
        result = place_and_route(out, sys.executable, [amaranth_call[0], str(script),
                                                       *amaranth_call[1:]],
                                 ecppack, options, log=messages.append)
        runs = (tmp_path / "runs.txt").read_text().splitlines()
        (tmp_path / "runs.txt").unlink()
        return result, runs, messages
    return run, out


def test_routing_that_ends_is_packed(stand_in):
    run, out = stand_in
    result, runs, _ = run("ends")
    assert (result.stage, result.watchdog, result.failure) == ("routed", None, None)
    assert len(runs) == 1 and "--tmg-ripup" in runs[0].split()
    assert "--log nextpnr1.log" in runs[0] and "top.tim" not in runs[0]
    assert result.placed_fmax_mhz == 68.10 and "77.70" in result.log_text
    assert result.runs[0]["ended"] == "routed" and result.runs[0]["iterations"] == 3
    assert set(result.steps) == {"placement", "routing", "bitstream"}
    assert (out / "top.bit").is_file() and "nextpnr1.log" in (out / "pnr.sh").read_text()


def test_stalled_ripup_is_stopped_and_routed_again_without_it(stand_in):
    """Nothing overused from iteration 3, 3 failing arcs ever after: the watchdog stops run 1
    after 10 iterations without fewer; run 2 (the same seed and placer, no --tmg-ripup)
    routes; both placed alike (the same digest of their placement logs)."""
    run, out = stand_in
    result, runs, messages = run("stalls")
    assert len(runs) == 2
    assert "--tmg-ripup" in runs[0].split() and "--tmg-ripup" not in runs[1].split()
    assert runs[0].replace(" --tmg-ripup", "").replace("nextpnr1", "nextpnr2") == runs[1]
    assert result.stage == "routed" and result.failure is None
    first, second = result.runs
    assert first["ended"].startswith("stopped: timing-driven rip-up stalled at iteration 13")
    assert "3 failing arcs" in first["ended"] and second["ended"] == "routed"
    assert first["placement_digest"] == second["placement_digest"] is not None
    assert "run 2 routed the same placement without --tmg-ripup" in result.watchdog
    assert any(m.startswith("watchdog: timing-driven rip-up stalled") for m in messages)
    assert (out / "top.bit").is_file()


def test_diverged_routing_ends_the_build(stand_in):
    run, out = stand_in
    result, runs, _ = run("diverges")
    assert len(runs) == 1 and result.stage == "routing diverged"
    assert result.failure.startswith("routing diverged: 100 overused wires at fewest")
    assert not (out / "top.bit").exists()


def test_without_the_watchdog_one_run(stand_in):
    run, _ = stand_in
    result, runs, _ = run("ends", limits=None)
    assert len(runs) == 1 and result.stage == "routed"
    assert route_attempts(True) == [(True,), (False,)] and route_attempts(False) == [(False,)]


def test_place_only_writes_the_placement_and_packs_nothing(stand_in):
    run, out = stand_in
    result, runs, _ = run("ends", place_only=True)
    assert runs[0].split()[-3:] == ["--no-route", "--write", "placed.json"]
    assert result.stage == "placement" and not (out / "top.bit").exists()


def test_placement_digest_leaves_out_times_and_checksums():
    """Two logs of one placement differ in their times and nextpnr's checksums (which cover the
    routing options too), not in what the placer did."""
    routed = PLACEMENT + "Info: Running router2...\n"
    other_run = routed.replace("0x22222222", "0x33333333").replace("0.1s", "0.7s")
    assert placement_digest(routed) == placement_digest(other_run) is not None
    assert placement_digest(routed.replace("68.10", "68.11")) != placement_digest(routed)
    assert placement_digest(PLACEMENT) is None                # placement not over
