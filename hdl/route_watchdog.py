"""The routing watchdog: reads nextpnr's log while it runs and stops a router that no longer
makes progress.

nextpnr's router2 has no iteration limit: it loops until no wire is overused and, with
timing-driven rip-up (``--tmg-ripup``), until no arc misses the clock. Either can go on for
hours without getting closer. ``Watchdog`` judges each progress event of the log
(``hdl.nextpnr_log``) and returns a ``Verdict`` when the router has stopped getting closer:

* **"rip-up stalled"**: nothing is overused, but the timing-driven rip-up has not reduced the
  fewest failing arcs for ``WatchdogLimits.ripup_iterations`` iterations (or
  ``ripup_minutes``). The routing is legal; what is left is timing (``hdl.pnr`` then routes
  the same placement again without the rip-up).
* **"diverged"**: wires are still overused, and their count has not fallen below its fewest
  for ``overuse_iterations`` iterations (or ``overuse_minutes``), or it has grown to more than
  twice its fewest (plus ``GROWTH_SLACK``) for ``growth_iterations`` iterations in a row. The
  placement does not route.
* **"stalled"**: router1's arcs left have not fallen below their fewest for ``arcs_minutes``.

``watch(command, ...)`` runs nextpnr, feeds its log to a ``Watchdog`` as it grows and stops the
process on a verdict.
"""

import subprocess
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from hdl.nextpnr_log import ArcsLeft, Placing, ProgressReader, RouterIteration

__all__ = ["WatchdogLimits", "Verdict", "Watchdog", "Watched", "watch", "RIPUP_STALLED",
           "DIVERGED", "STALLED"]

RIPUP_STALLED = "rip-up stalled"
DIVERGED = "diverged"
STALLED = "stalled"
#: overuse counts as growing only when above twice its fewest plus this (a few wires more or
#: less is noise)
GROWTH_SLACK = 50


@dataclass(frozen=True)
class WatchdogLimits:
    """How long the watchdog waits for progress. Defaults: router2 reaches its fewest failing
    arcs within a few dozen iterations of routing without overuse when it reaches them at
    all, each such iteration taking seconds; while wires are overused, a placement that routes
    has been seen to take 180 iterations between two new fewest counts at a handful of wires."""
    ripup_iterations: int = 40
    ripup_minutes: float = 15.0
    overuse_iterations: int = 250
    overuse_minutes: float = 25.0
    growth_iterations: int = 15
    arcs_minutes: float = 15.0


@dataclass(frozen=True)
class Verdict:
    """Why the watchdog stops the router: ``kind`` (RIPUP_STALLED, DIVERGED or STALLED) and one
    line saying what it saw."""
    kind: str
    text: str


class _Best:
    """The fewest of a count so far: its value, at which iteration and when."""

    def __init__(self):
        self.value = self.iteration = self.time = None

    def offer(self, value, iteration, now):
        if self.value is None or value < self.value:
            self.value, self.iteration, self.time = value, iteration, now
            return True
        return False

    def waited(self, iteration, now, iterations, minutes):
        return iteration - self.iteration >= iterations or now - self.time >= minutes * 60


class Watchdog:
    """Judges a router's progress events (``feed``); ``status`` is one line of where it is."""

    def __init__(self, limits=WatchdogLimits()):
        self.limits = limits
        self.overused = _Best()
        self.failing = _Best()       # with nothing overused
        self.arcs = _Best()
        self.recent = deque(maxlen=limits.growth_iterations)
        self.routed_at = None        # the first iteration with nothing overused
        self.last = None

    def feed(self, event, now):
        """The verdict on ``event`` (at time ``now``, seconds), or None to let it run."""
        self.last = event
        if isinstance(event, RouterIteration):
            return self._iteration(event, now)
        if isinstance(event, ArcsLeft):
            self.arcs.offer(event.arcs, event.iteration, now)
            if now - self.arcs.time >= self.limits.arcs_minutes * 60:
                return Verdict(STALLED, f"router1 stalled: {self.arcs.value:,} arcs left at "
                                        f"fewest, none fewer in {self.limits.arcs_minutes:g} "
                                        f"minutes ({event.arcs:,} now)")
        return None

    def _iteration(self, event, now):
        limits, i = self.limits, event.iteration
        if event.overused == 0 and self.routed_at is None:
            self.routed_at = i
        if self.routed_at is None:
            self.overused.offer(event.overused, i, now)
            self.recent.append(event.overused)
            best = self.overused
            growing = (len(self.recent) == self.recent.maxlen
                       and min(self.recent) > 2 * best.value + GROWTH_SLACK)
            if growing or best.waited(i, now, limits.overuse_iterations, limits.overuse_minutes):
                how = "growing" if growing else f"none fewer in {i - best.iteration} iterations"
                return Verdict(DIVERGED, f"routing diverged: {best.value:,} overused wires at "
                                         f"fewest (iteration {best.iteration}), {event.overused:,}"
                                         f" at iteration {i} ({how})")
            return None
        if event.failing is None:
            return None                  # without rip-up, router2 ends by itself from here
        if event.overused == 0:
            self.failing.offer(event.failing, i, now)
        best = self.failing
        if best.value is not None and best.waited(i, now, limits.ripup_iterations,
                                                  limits.ripup_minutes):
            return Verdict(RIPUP_STALLED,
                           f"timing-driven rip-up stalled at iteration {i}: {best.value} "
                           f"failing arcs at fewest (iteration {best.iteration}; nothing "
                           f"overused since iteration {self.routed_at}), none fewer in "
                           f"{i - best.iteration} iterations")
        return None

    def status(self):
        """Where the router (or placer) is, in a few words."""
        e = self.last
        if isinstance(e, RouterIteration):
            failing = "" if e.failing is None else f", {e.failing} failing arcs"
            return f"router2 iteration {e.iteration}: {e.overused:,} overused wires{failing}"
        if isinstance(e, ArcsLeft):
            return f"router1: {e.arcs:,} arcs left"
        if isinstance(e, Placing):
            return f"{e.placer} placer iteration {e.iteration}"
        return "starting"


@dataclass
class Watched:
    """How a watched run ended: nextpnr's exit code (None if stopped), the watchdog's verdict
    (None if nextpnr ended by itself), its last status, the seconds it took, the last router2
    iteration seen (None if none) and when (seconds after the start) the log entered each
    step (``ProgressReader.step``: "HeAP", "router2", ...)."""
    returncode: int | None
    verdict: Verdict | None
    status: str
    seconds: float
    iterations: int | None
    steps: dict


def watch(command, cwd, log_name, watchdog, report=print, poll_seconds=1.0,
          report_seconds=300.0):
    """Run ``command`` (nextpnr, writing its log to ``cwd/log_name``) in ``cwd``, feed its log
    to ``watchdog`` line by line as it grows, and stop it on a verdict. ``report`` gets a line
    of progress every ``report_seconds``. Returns a ``Watched``."""
    log_path = Path(cwd) / log_name
    log_path.unlink(missing_ok=True)
    reader = ProgressReader()
    started = time.monotonic()
    last_report = started
    iterations = None
    steps = {}
    pending = ""
    offset = 0
    with open(Path(cwd) / f"{log_name}.stderr", "w") as stderr:
        process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=stderr)
    try:
        while True:
            ended = process.poll() is not None
            if log_path.is_file():
                with open(log_path, "r", errors="replace") as f:
                    f.seek(offset)
                    text = f.read()
                    offset = f.tell()
                lines = (pending + text).split("\n")
                pending = lines.pop()
                for line in lines:
                    event = reader.feed(line)
                    steps.setdefault(reader.step, round(time.monotonic() - started, 1))
                    if event is None:
                        continue
                    if isinstance(event, RouterIteration):
                        iterations = event.iteration
                    verdict = watchdog.feed(event, time.monotonic())
                    if verdict is not None:
                        _stop(process)
                        return Watched(None, verdict, watchdog.status(),
                                       time.monotonic() - started, iterations, steps)
            if ended:
                return Watched(process.returncode, None, watchdog.status(),
                               time.monotonic() - started, iterations, steps)
            now = time.monotonic()
            if now - last_report >= report_seconds:
                report(f"  {_minutes(now - started)}: {watchdog.status()}")
                last_report = now
            time.sleep(poll_seconds)
    finally:
        _stop(process)


def _stop(process):
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _minutes(seconds):
    return f"{int(seconds // 60)}:{int(seconds % 60):02d}"
