"""Simulated serial ports: the host tool's code talks to the board design in a simulator, over
the bits of an 8N1 line, with faults injected on the way.

``SimulatedLine`` is the host's end of the line as a ``Transport`` for
``boards.host.HostLinkClient`` (``write``, ``read(n, timeout)``, ``flush``, ``sleep``,
``now_s``, ``timing``). It runs on simulated time: a read that waits advances the simulation
until its bytes came or its timeout passed, so timeouts, stalls and retries behave the same
however fast the simulator is. Two simulators sit behind it:

* ``AmaranthSerial``: Amaranth's simulator; testbenches drive the design's ``rx`` pin bit by bit
  and decode its ``tx`` pin (tests with small stand-ins for the GPU);
* ``CompiledSerial``: the compiled model (sim/fast) of ``boards.sim_board.SimulatedBoard``, whose
  line is driven and decoded in C++ (the host tool's ``--simulated``, whole frames).

``FaultInjector`` damages bytes in either direction with probability ``rate`` each: a flipped
bit, a dropped byte, a duplicated byte, or a stall (the line idle for up to three times the
board's timeout before the byte, so some stalls end a command and some do not).
"""

import math
import random
from collections import Counter, deque

from boards.link_timing import LinkTiming

__all__ = ["FaultInjector", "SimulatedLine", "AmaranthSerial", "CompiledSerial", "TO_BOARD",
           "TO_HOST"]

TO_BOARD, TO_HOST = "to board", "to host"


class FaultInjector:
    KINDS = ("flip", "drop", "duplicate", "stall")

    def __init__(self, rate, seed=0, kinds=KINDS):
        if not 0 <= rate < 1:
            raise ValueError(f"the fault rate is a probability per byte, 0 <= P < 1, not {rate}")
        self.rate = rate
        self.kinds = tuple(kinds)
        self.random = random.Random(seed)
        self.counts = Counter()           # (direction, kind) -> faults injected
        self.stall_cycles = (0, 0)        # set by the line: (shortest, longest) stall

    def apply(self, direction, byte):
        """[(byte, idle cycles before it)] that arrive for ``byte``: none, one or two."""
        if self.random.random() >= self.rate:
            return [(byte, 0)]
        kind = self.random.choice(self.kinds)
        self.counts[direction, kind] += 1
        if kind == "flip":
            return [(byte ^ 1 << self.random.randrange(8), 0)]
        if kind == "drop":
            return []
        if kind == "duplicate":
            return [(byte, 0), (byte, 0)]
        return [(byte, self.random.randint(*self.stall_cycles))]

    @property
    def total(self):
        return sum(self.counts.values())

    def summary(self):
        """'12 faults injected (to board: 3 flip, ...; to host: ...)'."""
        parts = []
        for direction in (TO_BOARD, TO_HOST):
            kinds = [f"{self.counts[direction, k]} {k}" for k in self.KINDS
                     if self.counts[direction, k]]
            if kinds:
                parts.append(f"{direction}: {', '.join(kinds)}")
        return f"{self.total} faults injected" + (f" ({'; '.join(parts)})" if parts else "")


class SimulatedLine:
    """The host's end of a simulated line; time is the board's clock cycles (``now``).
    ``divisor``: cycles per bit, ``clock_hz``: the board clock the cycles stand for,
    ``board_timeout``: the bridge's silence timeout in cycles. Subclasses move the bits:
    ``_send(data, gaps)``, ``_pending()``, ``_run(max_cycles, stop_bytes, flush)`` -> cycles
    run, ``_take()`` -> (bytes, the cycle each arrived)."""

    def __init__(self, divisor, clock_hz, board_timeout, faults=None):
        self.divisor = divisor
        self.clock_hz = clock_hz
        self.now = 0
        self.faults = faults
        if faults is not None:
            faults.stall_cycles = (board_timeout // 2, 3 * board_timeout)
        # the host's turnaround: a few byte times (the simulated port has no USB in between)
        self.timing = LinkTiming(byte_s=10 * divisor / clock_hz,
                                 board_timeout_s=board_timeout / clock_hz,
                                 latency_s=40 * divisor / clock_hz)
        self._inbox = deque()             # (byte, cycle it reaches the host)
        self._last_delivery = 0

    def now_s(self):
        return self.now / self.clock_hz

    def _damage(self, direction, data):
        for byte in data:
            yield from (self.faults.apply(direction, byte) if self.faults else [(byte, 0)])

    def write(self, data):
        damaged = list(self._damage(TO_BOARD, data))
        self._send(bytes(b for b, _ in damaged), [gap for _, gap in damaged])

    def _advance(self, cycles, stop_bytes=0, flush=False):
        self.now += self._run(cycles, stop_bytes, flush)
        data, cycles = self._take()
        for (byte, arrived) in zip(data, cycles):
            for damaged, stall in self._damage(TO_HOST, [byte]):
                # bytes reach the host in order: a stalled one holds up those behind it
                self._last_delivery = max(arrived, self._last_delivery) + stall
                self._inbox.append((damaged, self._last_delivery))

    def read(self, n, timeout):
        deadline = self.now + max(1, math.ceil(timeout * self.clock_hz))
        out = bytearray()
        while True:
            while self._inbox and len(out) < n and self._inbox[0][1] <= self.now:
                out.append(self._inbox.popleft()[0])
            if len(out) >= n or self.now >= deadline:
                return bytes(out)
            until = min(deadline, self._inbox[0][1]) if self._inbox else deadline
            self._advance(until - self.now, stop_bytes=max(1, n - len(out) - len(self._inbox)))

    def flush(self):
        while self._pending():
            self._advance(10 * self.divisor * (self._pending() + 1), flush=True)

    def sleep(self, seconds):
        until = self.now + math.ceil(seconds * self.clock_hz)
        while self.now < until:
            self._advance(until - self.now)


class AmaranthSerial(SimulatedLine):
    """The line on pins ``rx_pin`` (driven) and ``tx_pin`` (decoded) of the design in ``sim``
    (an amaranth.sim.Simulator whose clock has period ``period`` seconds); adds its
    testbenches to ``sim``, which must not have run yet."""

    def __init__(self, sim, rx_pin, tx_pin, divisor, board_timeout, period=1e-6, faults=None):
        super().__init__(divisor, 1 / period, board_timeout, faults)
        self.sim = sim
        self.period = period
        self.rx_pin, self.tx_pin = rx_pin, tx_pin
        self.framing_errors = 0
        self._to_board = deque()          # (byte, idle cycles before it)
        self._sending = False
        self._received = []               # (byte, cycle)
        self._closing = False
        sim.add_testbench(self._drive, background=True)
        sim.add_testbench(self._sample, background=True)

    def _send(self, data, gaps):
        self._to_board.extend(zip(data, gaps))

    def _pending(self):
        return len(self._to_board) + self._sending

    def _run(self, max_cycles, stop_bytes, flush):
        ran = 0
        while ran < max_cycles:
            if stop_bytes and len(self._received) >= stop_bytes or flush and not self._pending():
                break
            step = min(max_cycles - ran, 10 * self.divisor)
            self.sim.run_until((self.now + ran + step) * self.period)
            ran += step
        return ran

    def _take(self):
        received, self._received = self._received, []
        return bytes(b for b, _ in received), [c for _, c in received]

    def close(self):
        """End the testbenches: run until they have returned (a simulator dropped with
        testbenches suspended in it warns when it is collected)."""
        self._closing = True
        self.sim.run_until((self.now + 40 * self.divisor) * self.period)

    async def _drive(self, ctx):
        ctx.set(self.rx_pin, 1)
        while not self._closing:
            if not self._to_board:
                await ctx.tick().repeat(self.divisor)
                continue
            byte, gap = self._to_board.popleft()
            self._sending = True
            if gap:
                await ctx.tick().repeat(gap)
            for bit in [0, *((byte >> i) & 1 for i in range(8)), 1]:
                ctx.set(self.rx_pin, bit)
                await ctx.tick().repeat(self.divisor)
            self._sending = False

    async def _sample(self, ctx):
        half = self.divisor // 2
        cycle = 0
        while not self._closing:
            while ctx.get(self.tx_pin) and not self._closing:
                await ctx.tick()
                cycle += 1
            await ctx.tick().repeat(half)
            byte = 0
            for i in range(8):
                await ctx.tick().repeat(self.divisor)
                byte |= ctx.get(self.tx_pin) << i
            await ctx.tick().repeat(self.divisor)
            cycle += half + 9 * self.divisor
            if ctx.get(self.tx_pin):
                self._received.append((byte, cycle))
            else:
                self.framing_errors += 1
                while not ctx.get(self.tx_pin):
                    await ctx.tick()
                    cycle += 1


class CompiledSerial(SimulatedLine):
    """The line on ports ``rx`` and ``tx`` of ``fast_sim`` (a sim.fast FastSim), moved bit by
    bit in C++."""

    def __init__(self, fast_sim, divisor, clock_hz, board_timeout, faults=None, rx="rx", tx="tx"):
        super().__init__(divisor, clock_hz, board_timeout, faults)
        self.fast_sim = fast_sim
        fast_sim.uart_attach(rx, tx, divisor)

    # The line's time is the simulation's cycles (the bytes' arrivals are counted in them),
    # also when something else runs it: an SDRAM's power-up before, a screen capture between
    # commands.
    @property
    def now(self):
        return self.fast_sim.cycles

    @now.setter
    def now(self, cycles):
        pass                            # (``_advance`` adds the cycles it ran: the same)

    @property
    def framing_errors(self):
        return self.fast_sim.uart_framing_errors()

    def _send(self, data, gaps):
        self.fast_sim.uart_send(data, gaps)

    def _pending(self):
        return self.fast_sim.uart_pending()

    def _run(self, max_cycles, stop_bytes, flush):
        return self.fast_sim.uart_run(max_cycles, stop_bytes, flush)

    def _take(self):
        return self.fast_sim.uart_take()
