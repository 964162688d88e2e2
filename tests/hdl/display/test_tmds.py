"""hdl/display/tmds.py against DVI 1.0 §3.2.3 as sim/display/tmds.py writes it: every byte at
every running disparity the algorithm reaches (one walk through all 9 x 256 pairs), the four
control symbols, and seeded random sequences with blanking between data runs, where the
RTL's symbols must be the reference's and their running disparity stay within +-8."""

import random
from collections import deque

from amaranth.sim import Simulator

from hdl.display.tmds import TmdsEncoder, CONTROL_SYMBOLS
from sim.display.tmds import CNT_BOUND, encode, reachable_cnt, symbol_disparity


def run_encoder(inputs):
    """[(active, byte, control)] -> the encoder's symbols, one per input."""
    dut = TmdsEncoder()
    out = []

    async def testbench(ctx):
        for active, byte, control in inputs + [(0, 0, 0)] * dut.LATENCY:
            ctx.set(dut.i, {"active": active, "data": byte, "control": control})
            await ctx.tick()
            out.append(ctx.get(dut.o))

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(testbench)
    sim.run()
    return out[dut.LATENCY - 1:dut.LATENCY - 1 + len(inputs)]


def reference(inputs):
    symbols, cnt = [], 0
    for active, byte, control in inputs:
        if active:
            symbol, cnt = encode(byte, cnt)
        else:
            symbol, cnt = CONTROL_SYMBOLS_FROM_SPEC[control], 0
        symbols.append(symbol)
    return symbols


#: DVI 1.0 §3.2.3: q_out[9:0] for C1C0 = 00, 01, 10, 11
CONTROL_SYMBOLS_FROM_SPEC = (0b1101010100, 0b0010101011, 0b0101010100, 0b1010101011)


def every_pair_walk():
    """Bytes that, encoded in a row from cnt 0, encode every byte at every reachable cnt."""
    after = {(cnt, byte): encode(byte, cnt)[1] for cnt in reachable_cnt() for byte in range(256)}
    todo = set(after)
    cnt, walk = 0, []
    while todo:
        byte = next((b for b in range(256) if (cnt, b) in todo), None)
        if byte is None:                 # nothing left here: go to the nearest cnt with work
            byte = _first_step_towards(cnt, {c for c, _ in todo}, after)
        todo.discard((cnt, byte))
        walk.append(byte)
        cnt = after[cnt, byte]
    return walk


def _first_step_towards(start, targets, after):
    """The first byte of a shortest walk from disparity ``start`` to one of ``targets``."""
    seen, queue = {start: None}, deque([start])
    while queue:
        cnt = queue.popleft()
        if cnt in targets:
            while seen[cnt][0] != start:
                cnt = seen[cnt][0]
            return seen[cnt][1]
        for byte in range(256):
            if after[cnt, byte] not in seen:
                seen[after[cnt, byte]] = (cnt, byte)
                queue.append(after[cnt, byte])
    raise AssertionError("unreachable disparity")


def test_every_byte_at_every_disparity():
    walk = every_pair_walk()
    inputs = [(0, 0, 0)] + [(1, byte, 0) for byte in walk]
    assert run_encoder(inputs) == reference(inputs)


def test_control_symbols():
    assert CONTROL_SYMBOLS == CONTROL_SYMBOLS_FROM_SPEC
    inputs = [(0, 0, c) for c in (0, 1, 2, 3, 2, 0)] + [(1, 0x55, 3), (0, 0, 3)]
    assert run_encoder(inputs) == reference(inputs)
    assert run_encoder(inputs)[:4] == list(CONTROL_SYMBOLS_FROM_SPEC)


def test_random_sequences_stay_dc_balanced():
    rng = random.Random(35)
    inputs = []
    for _ in range(40):
        inputs += [(0, rng.randrange(256), rng.randrange(4))] * rng.randrange(1, 4)
        kind = rng.random()
        for _ in range(rng.randrange(1, 60)):
            if kind < 0.3:                      # heavy bytes push the disparity hardest
                byte = rng.choice([0x00, 0xFF, 0x01, 0xFE, 0x80, 0x7F, 0x10, 0xEF])
            else:
                byte = rng.randrange(256)
            inputs.append((1, byte, rng.randrange(4)))
    symbols = run_encoder(inputs)
    assert symbols == reference(inputs)
    cnt = 0
    for (active, _, _), symbol in zip(inputs, symbols):
        cnt = cnt + symbol_disparity(symbol) if active else 0
        assert abs(cnt) <= CNT_BOUND
