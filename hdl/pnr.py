"""Place and route of a board top with nextpnr-ecp5, under the routing watchdog, and its
bitstream with ecppack.

nextpnr runs as Amaranth's build script calls it (device, netlist, LPF), with the build's
options and its log read as it runs (``hdl.route_watchdog``). When the timing-driven rip-up
stalls (nothing overused, no fewer failing arcs for a while), the watchdog stops nextpnr and
the build runs it again without the rip-up (``route_attempts``): router2 then ends as soon as
nothing is overused, with the Fmax that routing has. The second run places the netlist again,
and the placement is the first run's: nextpnr's placement is a function of the netlist, the
seed and the options: every line the placer logs is the first run's (``placement_digest``,
which the report compares; nextpnr's own checksum also covers the options, so it differs).
Routing from the first run's placed netlist (``--write``, then ``--json placed.json --no-pack
--no-place``) would skip that placement, but nextpnr-ecp5 0.11 does not route a netlist it
placed in another run: router2 stops at once with "Failed to route arc" on a LUT input (seen
on a one-core top, with and without ``--disable-router-lutperm``). When the overuse diverges,
the build ends there: the placement does not route.
"""

import hashlib
import re
import shlex
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from hdl.nextpnr_log import parse_nextpnr_log
from hdl.route_watchdog import DIVERGED, RIPUP_STALLED, STALLED, Watchdog, watch

__all__ = ["BuildError", "PLACED", "NEXTPNR_REPORT", "RouteAttempt", "route_attempts",
           "PnrOptions", "PnrResult", "place_and_route", "placement_digest"]

#: the placed netlist of a place-only build (nextpnr --write; bench.placed_paths reads it)
PLACED = "placed.json"
#: nextpnr's own report of a build: critical paths, and the arrival times at every routed
#: net's sinks (``--detailed-timing-report``)
NEXTPNR_REPORT = "nextpnr-report.json"
#: the options of Amaranth's nextpnr call that the build sets itself, with their values
_OWN_OPTIONS = {"--log": 1}
#: what differs between two logs of one placement: times, and nextpnr's checksums (which
#: cover the options, routing's too)
_RUN_SPECIFIC = re.compile(r"\d+(\.\d+)?s\b|Checksum: 0x[0-9a-f]+")


class BuildError(Exception):
    pass


class RouteAttempt(NamedTuple):
    """One nextpnr run: routing with timing-driven rip-up or not."""
    tmg_ripup: bool


def route_attempts(tmg_ripup):
    """The runs the watchdog moves through when the timing-driven rip-up stalls: as asked,
    then (after a rip-up) without it, which ends once nothing is overused."""
    return [RouteAttempt(True), RouteAttempt(False)] if tmg_ripup else [RouteAttempt(False)]


@dataclass(frozen=True)
class PnrOptions:
    """What places and routes: nextpnr's seed, placer (and its options), router, whether it
    routes with timing-driven rip-up, more options (``extra``), ``place_only``, the watchdog's
    limits (None: no watchdog, nextpnr runs until it ends)."""
    seed: int
    placer: str
    router: str
    tmg_ripup: bool
    placer_options: str = ""
    extra: str = ""
    place_only: bool = False
    limits: object = None


@dataclass
class PnrResult:
    """What place and route did: ``stage`` ("routed", "placement", "routing diverged",
    "routing stalled"), the seconds of each step, each nextpnr run (``runs``), the watchdog's
    one line (None if it did not intervene), the verdict that ended the build (None if it
    ended with a bitstream or a placement), the log to report from and the Fmax estimated
    from the placement."""
    stage: str
    steps: dict = field(default_factory=dict)
    runs: list = field(default_factory=list)
    watchdog: str = None
    failure: str = None
    log_text: str = ""
    placed_fmax_mhz: float = None


def placement_digest(log_text):
    """A digest of what nextpnr logs up to routing (packing, every placer iteration, the
    estimate after placement; times and checksums left out): runs with equal digests placed
    alike. None if the log does not reach the end of placement."""
    end = _routing_start(log_text)
    if end is None:
        return None
    lines = (_RUN_SPECIFIC.sub("", line) for line in log_text[:end].splitlines())
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]


def _routing_start(log_text):
    found = [i for i in (log_text.find("Running router2"), log_text.find("Info: Routing.."))
             if i >= 0]
    return min(found) if found else None


def _placed_fmax(log_text):
    """The Fmax nextpnr estimates after placement (its first Fmax lines)."""
    routing = _routing_start(log_text)
    return parse_nextpnr_log(log_text[:routing])["fmax_mhz"]


def _command(amaranth_call, nextpnr, log_name, options, tmg_ripup):
    """The nextpnr-ecp5 command: Amaranth's (its build script's line, split), the program by
    its full path, logging to ``log_name``, with the build's options."""
    args = []
    words = iter(amaranth_call[1:])
    for word in words:
        if word in _OWN_OPTIONS:
            for _ in range(_OWN_OPTIONS[word]):
                next(words, None)
        else:
            args.append(word)
    extra = [word for word in shlex.split(options.extra) if word != "--tmg-ripup"]
    command = [nextpnr, *args, "--log", log_name, "--seed", str(options.seed), "--placer",
               options.placer, *shlex.split(options.placer_options), "--router",
               options.router, "--timing-allow-fail", *extra]
    command += ["--report", NEXTPNR_REPORT, "--detailed-timing-report"]
    if options.place_only:
        return command + ["--no-route", "--write", PLACED]
    return command + (["--tmg-ripup"] if tmg_ripup else [])


def place_and_route(out_dir, nextpnr, amaranth_call, ecppack_command, options, log=print,
                    report_seconds=300.0):
    """Place and route ``out_dir/top.json`` with the program ``nextpnr`` as Amaranth's build
    script calls it (``amaranth_call``, split into words) under the watchdog, and pack the
    bitstream (``ecppack_command``, run as is), as ``options`` (``PnrOptions``) say. Returns a
    ``PnrResult``; raises BuildError when a tool fails."""
    out_dir = Path(out_dir)
    result = PnrResult(stage="placement" if options.place_only else "routed")
    attempts = route_attempts(options.tmg_ripup and not options.place_only)
    if options.limits is None:
        attempts = attempts[:1]
    stopped = []
    commands = []
    digests = []
    for n, attempt in enumerate(attempts, 1):
        log_name = f"nextpnr{n}.log"
        command = _command(amaranth_call, nextpnr, log_name, options, attempt.tmg_ripup)
        commands.append(command)
        how = (f"--placer {options.placer} {options.placer_options} --router {options.router}"
               f"{' --tmg-ripup' if attempt.tmg_ripup else ''}").replace("  ", " ")
        log(f"place and route {n}/{len(attempts)}: nextpnr-ecp5 {how}"
            + (" (placement only)" if options.place_only else ""))
        watchdog = Watchdog(options.limits) if options.limits is not None else _Unwatched()
        watched = _watch(command, out_dir, log_name, watchdog, log, report_seconds)
        text = (out_dir / log_name).read_text(errors="replace")
        routing_at = next((watched.steps[s] for s in ("router2", "router1") if s in watched.steps),
                          watched.seconds)
        verdict = watched.verdict
        run = {"tmg_ripup": attempt.tmg_ripup, "log": log_name,
               "placement_seconds": round(routing_at, 1),
               "routing_seconds": round(watched.seconds - routing_at, 1),
               "iterations": watched.iterations,
               "placement_digest": placement_digest(text),
               "ended": "placed" if options.place_only else
                        "routed" if verdict is None else f"stopped: {verdict.text}"}
        result.runs.append(run)
        digests.append(run["placement_digest"])
        if result.placed_fmax_mhz is None:
            result.placed_fmax_mhz = _placed_fmax(text)
        log(f"place and route {n}: placement {run['placement_seconds']:.0f} s, "
            f"Fmax estimated from it {_placed_fmax(text)} MHz"
            + ("" if options.place_only else f"; routing {run['routing_seconds']:.0f} s, "
               f"{watched.status}"))
        if verdict is None:
            result.log_text = text
            break
        stopped.append(verdict.text)
        log(f"watchdog: {verdict.text}")
        if verdict.kind != RIPUP_STALLED or n == len(attempts):
            result.stage = {DIVERGED: "routing diverged", STALLED: "routing stalled",
                            RIPUP_STALLED: "routing stalled"}[verdict.kind]
            result.failure = verdict.text
            result.log_text = text
            break
    result.steps["placement"] = round(sum(r["placement_seconds"] for r in result.runs), 1)
    result.steps["routing"] = round(sum(r["routing_seconds"] for r in result.runs), 1)
    if stopped and not result.failure:
        same = ("the same placement" if len(set(digests)) == 1
                else "a placement that differs from the first (its placer logged otherwise)")
        result.watchdog = (f"stopped run 1: {stopped[0]}; run 2 routed {same} without "
                           f"--tmg-ripup")
    elif stopped:
        result.watchdog = "stopped: " + "; then ".join(stopped)
    if result.failure or options.place_only:
        _write_script(out_dir, commands)
        return result
    started = time.monotonic()
    try:
        subprocess.run(ecppack_command, cwd=out_dir, check=True, capture_output=True)
    except subprocess.CalledProcessError as e:
        output = (e.stdout + e.stderr).decode(errors="replace").strip().splitlines()
        raise BuildError(f"ecppack failed (exit {e.returncode}): "
                         f"{output[-1] if output else 'no output'}") from None
    result.steps["bitstream"] = round(time.monotonic() - started, 1)
    _write_script(out_dir, commands[-1:] + [ecppack_command])
    return result


def _watch(command, out_dir, log_name, watchdog, log, report_seconds):
    watched = watch(command, out_dir, log_name, watchdog, report=log,
                    report_seconds=report_seconds)
    if watched.returncode not in (0, None):
        log_path = Path(out_dir) / log_name
        tail = ""
        if log_path.is_file():
            tail = "\n".join(log_path.read_text(errors="replace").splitlines()[-15:])
        raise BuildError(f"nextpnr-ecp5 failed (exit {watched.returncode}); log {log_path}"
                         f"\n{tail}")
    return watched


class _Unwatched:
    """A watchdog that lets nextpnr run until it ends (``--no-watchdog``)."""

    def __init__(self):
        self.inner = Watchdog()

    def feed(self, event, now):
        self.inner.feed(event, now)
        return None

    def status(self):
        return self.inner.status()


def _write_script(out_dir, commands):
    """``pnr.sh``: the place-and-route commands of the build's result, to repeat by hand."""
    lines = ["#!/bin/sh", "# place and route as hdl.build ran them (report.json: each nextpnr "
             "run, and why it ended)", "set -e"]
    lines += [shlex.join(str(word) for word in command) for command in commands]
    (Path(out_dir) / "pnr.sh").write_text("\n".join(lines) + "\n")
