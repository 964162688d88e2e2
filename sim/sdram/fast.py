"""The chip model (sim/sdram/model.py) on the fast backend, and request traffic through it.

``attach_chip(sim, model)`` hands ``model.sample`` the packed pins of every cycle in which
something happens (the idle ones are recognised in C++ by ``PinLayout.idle_patterns``) and
gives the C++ loop the model's schedule of read words to drive on ``pins__dq_i``. The Python
model is called once per command (or per write or DQM cycle), not once per cycle:
sim/fast/harness.cc, ``PinModel``.

``FastTraffic(chip, clock_hz, ports)`` builds (or finds cached) ``SdramSimTop`` as a
``Design``, attaches the model (preloaded with a seeded random image), feeds each port's
requests and write words from C++ queues, drains the read words (``ready`` in a share of the
cycles) and logs the arbiter's grants; ``run(requests)`` returns what came back, what the
dictionary replay expected and the cycles.
"""

import time
from dataclasses import dataclass

import numpy as np

from hdl.mem.sdram_bus import request_layout, write_layout
from hdl.mem.sdram_clock import plan_sdram_clock
from sim.fast.build import Design
from sim.fast.driver import FastSim
from sim.sdram.model import SdramChipModel
from sim.sdram.pins import PIN_NAMES
from sim.sdram.top import SdramSimTop
from sim.sdram.traffic import Replay

__all__ = ["attach_chip", "FastTraffic", "TrafficResult"]


def attach_chip(sim, model, prefix="pins"):
    """Put ``model`` on the pins ``<prefix>__cke`` ... of ``sim`` (a FastSim of a top with
    ``PinLevels``)."""
    pins = [f"{prefix}__{'dq_o' if name == 'dq' else name}" for name in PIN_NAMES]

    def on_pins(cycle, word):
        model.sample(cycle, word)
        model.dq(cycle)             # (the C++ loop has put the words due by now on DQ)
        return model.schedule()

    sim.attach_pin_model(pins, model.layout.idle_patterns(), f"{prefix}__dq_i", on_pins)


def _field_packer(layout):
    """numpy packing of a StructLayout's fields into uint64 payloads."""
    def pack(**columns):
        out = np.zeros(len(next(iter(columns.values()))), dtype=np.uint64)
        for name, values in columns.items():
            f = layout[name]
            mask = (1 << f.width) - 1
            out |= (np.asarray(values, dtype=np.uint64) & np.uint64(mask)) << np.uint64(f.offset)
        return out
    return pack


@dataclass
class TrafficResult:
    received: list         # per port: the read words (numpy)
    expected: list         # per port: the replay's
    cycles: int            # from the first request to the last read word
    words: int             # words moved (read and written)
    wall_s: float
    model_calls: int

    @property
    def mismatches(self):
        bad = 0
        for got, want in zip(self.received, self.expected):
            n = min(len(got), len(want))
            want_words = np.asarray(want[:n], dtype=np.uint64)
            bad += int(np.count_nonzero(np.asarray(got[:n]) != want_words))
            bad += abs(len(got) - len(want))
        return bad


class FastTraffic:
    """A fast-backend ``SdramSimTop`` with the chip model on its pins."""

    def __init__(self, chip, clock_hz, ports=1, max_words=16, ready_share=1.0, seed=1,
                 backend=None, log=None):
        self.chip = chip
        self.n = ports
        self.sim = FastSim(Design(SdramSimTop, chip, clock_hz, ports, max_words),
                           backend=backend, log=log)
        self.plan = plan_sdram_clock(chip, clock_hz)
        self.model = SdramChipModel(chip, clock_hz, self.plan)
        attach_chip(self.sim, self.model)
        self.replay = Replay(chip, self.model.fill_random(seed))
        self.cmd = [self.sim.add_stream_source(f"ports__{k}__cmd") for k in range(ports)]
        self.wdata = [self.sim.add_stream_source(f"ports__{k}__wdata") for k in range(ports)]
        self.rdata = [self.sim.add_stream_sink(f"ports__{k}__rdata", ready_share, seed + k)
                      for k in range(ports)]
        self.grants = self.sim.add_write_monitor("grant_valid", "grant_port", "grant_port")
        self._pack_cmd = _field_packer(request_layout(chip, max_words))
        self._pack_word = _field_packer(write_layout(chip))

    def wait_initialised(self, max_cycles=None):
        limit = max_cycles or self.model.t.power_up + 10_000
        cycles = self.sim.run_until("initialised", limit)
        if not self.sim.get("initialised"):
            raise RuntimeError(f"the controller is not initialised after {cycles} cycles")
        return cycles

    def run(self, requests, max_cycles=None):
        """Send ``requests[k]`` on port k, wait for every read word; a TrafficResult."""
        start_cycle, start = self.sim.cycles, time.monotonic()
        calls = self.sim.pin_model_calls()
        words = 0
        for k, reqs in enumerate(requests):
            if not reqs:
                continue
            self.sim.stream_push(self.cmd[k], self._pack_cmd(
                addr=[r.addr for r in reqs], write=[int(r.write) for r in reqs],
                words_minus_one=[r.words - 1 for r in reqs]))
            data = [w for r in reqs for w in r.data]
            enables = [e for r in reqs for e in r.byte_enable]
            if data:
                self.sim.stream_push(self.wdata[k], self._pack_word(data=data,
                                                                    byte_enable=enables))
            self.sim.stream_expect(self.rdata[k], sum(r.words for r in reqs if not r.write))
            words += sum(r.words for r in reqs)
        budget = max_cycles or 64 * words + 100_000
        self.sim.run_streams(budget)
        received = [self.sim.stream_take(sink) for sink in self.rdata]
        grants, _ = self.sim.take_writes(self.grants)
        expected = self.replay.expected_reads([int(g) for g in grants], requests)
        self.model.finish(self.sim.cycles)
        return TrafficResult(received, expected, self.sim.cycles - start_cycle, words,
                             time.monotonic() - start, self.sim.pin_model_calls() - calls)
