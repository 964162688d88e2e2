"""The chip model (sim/sdram/model.py) on Amaranth's simulator: a testbench on the pins.

    sim = Simulator(top)                       # top: sim.sdram.top.SdramSimTop
    model = SdramChipModel(top.chip, top.clock_hz, top.plan)
    add_chip(sim, top.pins, model)

Each cycle the testbench packs the pin levels after the clock edge (what the FPGA's output
registers drive then, and the chip takes at its own edge, ``phase_deg`` later) into the
model's word, hands it to ``model.sample`` and drives ``dq_i`` with ``model.dq`` for the next
edge; a rule broken stops the simulation with the ``SdramViolation``. ``add_chip`` returns a
dict whose ``"cycle"`` is the cycle count (the model's clock).
"""

from sim.sdram.pins import PIN_NAMES

__all__ = ["add_chip", "add_requesters", "add_grant_log", "run_traffic"]


def add_chip(sim, pins, model):
    """Add the model's testbench to ``sim`` (``pins``: the top's ``PinLevels``)."""
    state = {"cycle": 0}
    signals = [getattr(pins, "dq_o" if name == "dq" else name) for name in PIN_NAMES]
    layout = model.layout
    dq_i = pins.dq_i

    async def chip(ctx):
        last = None
        async for _ in ctx.tick():
            state["cycle"] += 1
            cycle = state["cycle"]
            model.sample(cycle, layout.pack([ctx.get(s) for s in signals]))
            value = model.dq(cycle)
            if value != last:
                ctx.set(dq_i, value)
                last = value

    sim.add_testbench(chip, background=True)
    return state


class _Port:
    """One port's streams in a requester testbench: what it offers, what it has taken."""

    def __init__(self, port, requests):
        self.cmd, self.wdata, self.rdata = port.cmd, port.wdata, port.rdata
        self.cmd_layout = port.cmd.payload.shape()
        self.write_layout = port.wdata.payload.shape()
        self.commands = list(requests)
        self.words = [(word, enable) for r in requests
                      for word, enable in zip(r.data, r.byte_enable)]
        self.expected = sum(r.words for r in requests if not r.write)
        self.received = []
        self.offer_cmd = self.offer_word = False
        self.take = False


def add_requesters(sim, ports, requests, rng, stall=0.0):
    """One testbench offering ``requests[k]`` (sim/sdram/traffic.py) on ``ports[k]`` (the
    top's SdramBus ports) and taking the read words: in each cycle, with probability
    ``stall`` a stream that could move does not (no new request or write word offered, no read
    word taken). Returns each port's list of read words (filled as they arrive)."""
    state = [_Port(port, reqs) for port, reqs in zip(ports, requests)]
    samples = [v for p in state for v in (p.cmd.ready, p.wdata.ready, p.rdata.valid,
                                          p.rdata.payload)]

    async def requesters(ctx):
        while any(p.commands or p.words or len(p.received) < p.expected for p in state):
            for p in state:
                if not p.offer_cmd and p.commands and rng.random() >= stall:
                    request = p.commands[0]
                    ctx.set(p.cmd.payload, p.cmd_layout.const({
                        "addr": request.addr, "write": request.write,
                        "words_minus_one": request.words - 1}))
                    ctx.set(p.cmd.valid, 1)
                    p.offer_cmd = True
                if not p.offer_word and p.words and rng.random() >= stall:
                    word, enable = p.words[0]
                    ctx.set(p.wdata.payload, p.write_layout.const({"data": word,
                                                                   "byte_enable": enable}))
                    ctx.set(p.wdata.valid, 1)
                    p.offer_word = True
                take = rng.random() >= stall
                if take != p.take:
                    ctx.set(p.rdata.ready, take)
                    p.take = take
            sampled = (await ctx.tick().sample(*samples))[2:]
            for k, p in enumerate(state):
                cmd_ready, word_ready, read_valid, read_word = sampled[4 * k:4 * k + 4]
                if p.offer_cmd and cmd_ready:
                    p.commands.pop(0)
                    p.offer_cmd = False
                    ctx.set(p.cmd.valid, 0)
                if p.offer_word and word_ready:
                    p.words.pop(0)
                    p.offer_word = False
                    ctx.set(p.wdata.valid, 0)
                if p.take and read_valid:
                    p.received.append(read_word)

    sim.add_testbench(requesters)
    return [p.received for p in state]


def add_grant_log(sim, top):
    """A testbench recording the port of every request the arbiter passes on; returns the
    list."""
    grants = []

    async def log(ctx):
        async for _, _, valid, port in ctx.tick().sample(top.grant_valid, top.grant_port):
            if valid:
                grants.append(port)

    sim.add_testbench(log, background=True)
    return grants


def run_traffic(top, model, requests, rng, stall=0.0, min_cycles=0, initial=None):
    """Simulate ``top`` (an ``SdramSimTop``) with ``model`` on its pins and ``requests[k]`` on
    port k until every read word is back, and for at least ``min_cycles``; returns (received,
    expected, cycles): each port's read words, the dictionary replay's (from ``initial``, the
    image the model was preloaded with), the cycles run. A rule broken raises the model's
    ``SdramViolation``."""
    from amaranth.sim import Simulator
    from sim.sdram.traffic import Replay

    sim = Simulator(top)
    sim.add_clock(1 / top.clock_hz)
    state = add_chip(sim, top.pins, model)
    received = add_requesters(sim, top.ports, requests, rng, stall)
    grants = add_grant_log(sim, top)
    if min_cycles:
        async def wait(ctx):
            for _ in range(min_cycles):
                await ctx.tick()
        sim.add_testbench(wait)
    sim.run()
    model.finish(state["cycle"])
    expected = Replay(top.chip, initial).expected_reads(grants, requests)
    return received, expected, state["cycle"]
