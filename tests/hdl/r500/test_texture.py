"""The R500 texture unit (hdl/r500/texture.py) against sim.r500.tex, bit for bit.

Requests stream into the unit with idle cycles; a memory model answers its word requests in
order after random delays (and holds requests off now and then); the consumer holds answers off
now and then. Every answer's tag, kill bit and (but for TEXKILL) four texel channels are
compared with the model's; the words the unit reads are counted (3 for NEAREST, 12 for
BILINEAR, none for TEXKILL). The Q14.17 converter is checked on its own as well.
"""

import random

import pytest
from amaranth.sim import Simulator

from hdl.isa import TexOp
from hdl.r500.fp_from_q17 import FpFromQ17
from hdl.r500.texture import TextureUnit
from sim.r500 import fp32
from sim.r500.tex import Sampler, project, sample, would_kill
from tests.helpers.r500_units import stream

ADDR_BITS = 24
TAG_BITS = 8
SAMPLING_OPS = (TexOp.LD, TexOp.LODBIAS, TexOp.LOD, TexOp.DXDY)
#: (filter, wrap) of the model, (bilinear, clamp) of the RTL
MODES = [(bilinear, clamp) for bilinear in (0, 1) for clamp in (0, 1)]

POS_INF, NEG_INF = fp32.POS_INF, fp32.NEG_INF
#: zeros, subnormals, infinities, NaNs of both signs with payloads, max finite, 2^-126
SPECIAL_COORDS = [0x0000_0000, 0x8000_0000, 0x0000_0001, 0x807F_FFFF, POS_INF, NEG_INF,
                  0x7FC0_0000, 0xFFC0_0000, 0x7F80_0001, 0xFFBF_FFFF, 0x7F7F_FFFF, 0xFF7F_FFFF,
                  0x0080_0000, 0x8080_0000]


def f32(value):
    return fp32.from_float(value)


def neighbours(word):
    """The pattern and the binary32 values either side of it (same sign)."""
    return [word, word + 1, word - 1] if word & fp32.MAGNITUDE else [word]


# --- texture memory --------------------------------------------------------------------------

def colour_word(rng):
    """A texture word: mostly an 8-bit colour << 9 (as THEIA scenes hold), else a negative or
    large Q14.17 word, one with more than 24 significant bits, or any pattern."""
    kind = rng.random()
    if kind < 0.6:
        return rng.getrandbits(8) << 9
    if kind < 0.7:
        return (-(rng.getrandbits(8) << 9)) & 0xFFFF_FFFF
    if kind < 0.8:
        return rng.choice((0x7FFF_FFFF, 0x8000_0000, 0x8000_0001, 0xFFFF_FFFF, 1, 0x0100_0001,
                           0x0300_0003, 0x7FFF_FF80, 0x7FFF_FFC0))
    return rng.getrandbits(32)


class Texture:
    """The texture memory: 2^addr_bits words, each drawn on its first read and kept."""

    def __init__(self, seed, addr_bits=ADDR_BITS):
        self.rng = random.Random(seed)
        self.addr_bits = addr_bits
        self.words = {}

    def __getitem__(self, address):
        assert 0 <= address < 1 << self.addr_bits
        if address not in self.words:
            self.words[address] = colour_word(self.rng)
        return self.words[address]


# --- requests and the model ------------------------------------------------------------------

def request(coords, op=TexOp.LD, unscaled=0, base=0, log2_width=0, log2_height=0, bilinear=0,
            clamp=0, tag=0):
    return {"coords": list(coords), "op": op, "unscaled": unscaled, "tag": tag,
            "sampler": {"base": base, "log2_width": log2_width, "log2_height": log2_height,
                        "bilinear": bilinear, "clamp": clamp}}


def words_read(req):
    if req["op"] == TexOp.TEXKILL:
        return 0
    return 12 if req["sampler"]["bilinear"] else 3


def expected(req, texture):
    """(texel or None for TEXKILL, kill bit) by the model."""
    coords = req["coords"]
    if req["op"] == TexOp.TEXKILL:
        return None, int(would_kill(coords))
    s, t = coords[0], coords[1]
    if req["op"] == TexOp.PROJ:
        s, t = project(s, t, coords[3])
    fields = req["sampler"]
    sampler = Sampler(base=fields["base"], width=1 << fields["log2_width"],
                      height=1 << fields["log2_height"],
                      filter="bilinear" if fields["bilinear"] else "nearest",
                      wrap="clamp" if fields["clamp"] else "repeat")
    assert sampler.is_set_up(1 << texture.addr_bits)
    return sample(sampler, texture, s, t, req["unscaled"]), 0


def random_sampler(rng, bilinear=None, clamp=None, log2_size=None, addr_bits=ADDR_BITS):
    log2_width, log2_height = log2_size or (rng.randrange(6), rng.randrange(5))
    size = 3 << (log2_width + log2_height)
    return {"base": rng.choice((0, rng.randrange((1 << addr_bits) - size + 1),
                                (1 << addr_bits) - size)),
            "log2_width": log2_width, "log2_height": log2_height,
            "bilinear": rng.getrandbits(1) if bilinear is None else bilinear,
            "clamp": rng.getrandbits(1) if clamp is None else clamp}


def edge_coordinate(rng, size, unscaled, addr_bits=ADDR_BITS):
    """A coordinate on or next to a texel edge or half, inside or outside 0 … 1 (0 … size when
    unscaled), or a special or huge one."""
    kind = rng.random()
    scale = 1 if unscaled else size
    if kind < 0.45:                                    # an edge, a half, or next to one
        position = rng.randrange(-3 * size, 3 * size) + rng.choice((0, 0.5))
        return rng.choice(neighbours(f32(position / scale)))
    if kind < 0.52:           # integers near the index arithmetic's 2^(addr_bits-2), and 2^31
        whole = 2 ** rng.choice((addr_bits - 3, addr_bits - 2, addr_bits - 1, 31, 32))
        return f32(rng.choice((1, -1)) * (whole + rng.randrange(-2 * size, 2 * size)) / scale)
    if kind < 0.6:
        return rng.choice(SPECIAL_COORDS)
    if kind < 0.75:                                    # huge, tiny, or overflowing when scaled
        return rng.getrandbits(1) << 31 | rng.choice((
            f32(2.0 ** rng.randrange(20, 128)), f32(rng.uniform(1e6, 1e38)),
            f32(rng.uniform(0, 2.0 ** 26)),
            f32(2.0 ** rng.randrange(-126, -10)), 0x7F7F_FFFF - rng.randrange(1 << 24),
            (127 + 128 - rng.randrange(6)) << 23 | rng.getrandbits(23)))
    return f32(rng.uniform(-2.5, 2.5) * (size if unscaled else 1))


def random_request(rng, tag, op=None, sampler=None, unscaled=None, addr_bits=ADDR_BITS):
    sampler = sampler or random_sampler(rng, addr_bits=addr_bits)
    op = op if op is not None else rng.choice(SAMPLING_OPS + (TexOp.PROJ, TexOp.TEXKILL))
    unscaled = rng.random() < 0.25 if unscaled is None else unscaled
    coords = [edge_coordinate(rng, 1 << sampler["log2_width"], unscaled, addr_bits),
              edge_coordinate(rng, 1 << sampler["log2_height"], unscaled, addr_bits),
              rng.getrandbits(32), projector(rng)]
    return request(coords, op, int(unscaled), tag=tag, **sampler)


def projector(rng):
    """PROJ's q: zeros, infinities, NaNs, negative, tiny, huge, ordinary."""
    kind = rng.random()
    if kind < 0.3:
        return rng.choice(SPECIAL_COORDS + [f32(1.0), f32(-1.0), f32(0.5), f32(2.0)])
    if kind < 0.45:
        return rng.getrandbits(1) << 31 | f32(2.0 ** rng.uniform(-126, -60))
    if kind < 0.6:
        return rng.getrandbits(1) << 31 | f32(2.0 ** rng.uniform(60, 127))
    return f32(rng.choice((1, -1)) * rng.uniform(0.25, 4.0))


# --- running the unit ------------------------------------------------------------------------

class Readiness:
    """A ready signal: each cycle ready with chance ``chance``, but now and then (``bursts``)
    held low for up to ``longest`` cycles in a row."""

    def __init__(self, rng, chance, bursts=0.0, longest=40):
        self.rng, self.chance, self.bursts, self.longest = rng, chance, bursts, longest
        self.held = 0

    def __call__(self):
        if self.held:
            self.held -= 1
            return False
        if self.rng.random() < self.bursts:
            self.held = self.rng.randint(1, self.longest)
            return False
        return self.rng.random() < self.chance


def run(requests, texture, seed, buffer_depth=16, offer=0.9, mem_ready=0.85, out_ready=0.85,
        bursts=0.01, delays=(1, 12)):
    """Stream ``requests`` through a TextureUnit with a memory answering each word after a
    random delay in ``delays`` (in order), ``offer``/``mem_ready``/``out_ready`` the chances
    that a request is offered, a memory request taken, an answer taken in a cycle (the latter
    two also held off for long stretches, ``bursts`` the chance one starts). Returns the
    answers (texel, kill, tag) and the addresses read."""
    rng = random.Random(seed)
    mem_ready = Readiness(rng, mem_ready, bursts)
    out_ready = Readiness(rng, out_ready, bursts)
    dut = TextureUnit(addr_bits=texture.addr_bits, tag_bits=TAG_BITS, buffer_depth=buffer_depth)
    answers = []
    reads = []

    async def testbench(ctx):
        answers_due = []                               # (cycle due, word), in request order
        offered = 0
        offering = False
        cycle = 0
        while len(answers) < len(requests):
            cycle += 1
            assert cycle < 200 * len(requests) + 1000, "the unit stopped answering"
            if not offering and offered < len(requests) and rng.random() < offer:
                ctx.set(dut.i.payload, requests[offered])
                offering = True
            ctx.set(dut.i.valid, offering)
            ctx.set(dut.mem_req.ready, mem_ready())
            ctx.set(dut.o.ready, out_ready())
            if answers_due and answers_due[0][0] <= cycle:
                ctx.set(dut.mem_resp.valid, 1)
                ctx.set(dut.mem_resp.payload, answers_due.pop(0)[1])
            else:
                ctx.set(dut.mem_resp.valid, 0)
                ctx.set(dut.mem_resp.payload, rng.getrandbits(32))

            if offering and ctx.get(dut.i.ready):
                offering = False
                offered += 1
            if ctx.get(dut.mem_req.valid) and ctx.get(dut.mem_req.ready):
                address = ctx.get(dut.mem_req.payload)
                reads.append(address)
                due = cycle + rng.randint(*delays)
                if answers_due:
                    due = max(due, answers_due[-1][0] + 1)
                answers_due.append((due, texture[address]))
            if ctx.get(dut.o.valid) and ctx.get(dut.o.ready):
                payload = dut.o.payload
                answers.append(([ctx.get(payload.texel[k]) for k in range(4)],
                                ctx.get(payload.kill), ctx.get(payload.tag)))
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(testbench)
    sim.run()
    return answers, reads


def check(requests, texture, seed, **kwargs):
    answers, reads = run(requests, texture, seed, **kwargs)
    mismatches = []
    for req, (texel, kill, tag) in zip(requests, answers):
        model_texel, model_kill = expected(req, texture)
        if (tag != req["tag"] or kill != model_kill
                or (model_texel is not None and texel != model_texel)):
            mismatches.append((req, [hex(v) for v in texel], kill, tag,
                               model_texel and [hex(v) for v in model_texel], model_kill))
    assert not mismatches, f"{len(mismatches)} of {len(requests)}: {mismatches[:4]}"
    assert len(reads) == sum(words_read(req) for req in requests)


# --- the tests -------------------------------------------------------------------------------

Q17_WORDS = [0, 1, 2, 3, 0xFFFF_FFFF, 0xFFFF_FFFE, 0x7FFF_FFFF, 0x8000_0000, 0x8000_0001,
             0x0000_0200, 0x0001_FE00, 0x0002_0000, 0xFFFE_0000, 0x00FF_FFFF, 0x0100_0000,
             0x0100_0001, 0x0100_0002, 0x0100_0003, 0x0180_0001, 0x01FF_FFFF, 0x02FF_FFFE,
             0x7FFF_FF80, 0x7FFF_FF7F, 0x7FFF_FFC0, 0x8000_0040, 0xFEFF_FFFF, 0xFF00_0001]


def test_fp_from_q17_matches_model():
    rng = random.Random(0x017)
    words = (Q17_WORDS + [word << shift & 0xFFFF_FFFF for word in (1, 3, 0x1FF, 0xFFFFFF)
                          for shift in range(32)]
             + [rng.getrandbits(8) << 9 for _ in range(300)]
             + [rng.getrandbits(32) >> rng.randrange(32) for _ in range(3000)]
             + [rng.getrandbits(32) for _ in range(3000)])
    results = stream(FpFromQ17(), [{"i_word": w} for w in words], seed=3, idle=0.05)
    mismatches = [(hex(w), hex(got), hex(fp32.from_q17(w)))
                  for w, got in zip(words, results) if got != fp32.from_q17(w)]
    assert not mismatches, f"{len(mismatches)} of {len(words)}: {mismatches[:10]}"


@pytest.mark.parametrize("bilinear, clamp", MODES,
                         ids=[f"{'bilinear' if b else 'nearest'}-{'clamp' if c else 'repeat'}"
                              for b, c in MODES])
def test_filter_and_wrap(bilinear, clamp):
    """Every filter and wrap over sizes 1x1 … 32x16 and bases from 0 to the memory's end:
    coordinates on and next to texel edges and halves, outside 0 … 1, special and huge, scaled
    and UNSCALED, through LD, LODBIAS, LOD and DXDY."""
    rng = random.Random(0x7E0 + 2 * bilinear + clamp)
    texture = Texture(rng.getrandbits(32))
    sizes = [(0, 0), (5, 4), (0, 4), (5, 0), (1, 3), (3, 1), (2, 2)]
    requests = []
    for n in range(150 if bilinear else 300):
        sampler = random_sampler(rng, bilinear, clamp, sizes[n] if n < len(sizes) else None)
        requests.append(random_request(rng, rng.getrandbits(TAG_BITS), rng.choice(SAMPLING_OPS),
                                       sampler))
    check(requests, texture, seed=2 * bilinear + clamp)


def test_proj():
    """PROJ: q = ±0, ±inf, NaN, negative, tiny, huge, ordinary, with every filter and wrap."""
    rng = random.Random(0x960)
    texture = Texture(5)
    qs = SPECIAL_COORDS + [f32(v) for v in (1.0, -1.0, 0.5, -2.0, 3.0, 1e-30, -1e-30, 1e30,
                                            -1e30, 2.0 ** -126, 2.0 ** 126, 2.0 ** 127)]
    requests = []
    for n, q in enumerate(qs + [projector(rng) for _ in range(120)]):
        req = random_request(rng, n % 256, TexOp.PROJ)
        # s, t ordinary (the projection then decides), or special themselves
        if rng.random() < 0.7:
            req["coords"][:2] = [f32(rng.uniform(-3, 3)), f32(rng.uniform(-3, 3))]
        req["coords"][3] = q
        requests.append(req)
    check(requests, texture, seed=1)


def test_texkill_among_lookups():
    """TEXKILL answers the sign bits of s, t, r, q as stored (-0 and negative NaN kill), reads
    no memory and keeps its place among other lanes' answers."""
    rng = random.Random(0x4111)
    texture = Texture(6)
    killing = [0x8000_0000, 0xFFC0_0000, 0xFF80_0000, 0x8000_0001, 0xBF80_0000, 0xFFFF_FFFF]
    passing = [0x0000_0000, 0x7FC0_0000, 0x7F80_0000, 0x0000_0001, 0x3F80_0000, 0x7FFF_FFFF]
    requests = []
    for n in range(80):
        coords = [rng.choice(passing) for _ in range(4)]
        if n % 2:
            coords[rng.randrange(4)] = rng.choice(killing)
        requests.append(request(coords, TexOp.TEXKILL, tag=rng.getrandbits(TAG_BITS)))
        requests.append(random_request(rng, rng.getrandbits(TAG_BITS), rng.choice(SAMPLING_OPS)))
    check(requests, texture, seed=2)
    assert sum(expected(req, texture)[1] for req in requests) == 40


def test_random_requests_and_timing():
    """Seeded random requests of every op, sampler and coordinate kind; the memory's delay
    from 1 to 40 cycles; requests, memory requests and answers held off often."""
    rng = random.Random(0xA11)
    texture = Texture(7)
    requests = [random_request(rng, rng.getrandbits(TAG_BITS)) for _ in range(300)]
    check(requests, texture, seed=3, offer=0.5, mem_ready=0.6, out_ready=0.5, bursts=0.03,
          delays=(1, 40))


def test_narrow_texture_memory():
    """A 2^16-word texture memory (the default build holds 3 x 128 x 128 words): 14-bit
    indices, whose bounds coordinates near 2^14 meet, and the widest and tallest textures it
    holds (16384 x 1, 1 x 16384, 128 x 128)."""
    rng = random.Random(0x16)
    texture = Texture(10, addr_bits=16)
    requests = []
    for n in range(160):
        log2_size = [(14, 0), (0, 14), (7, 7), None][n % 4]
        sampler = random_sampler(rng, log2_size=log2_size, addr_bits=16)
        requests.append(random_request(rng, n, sampler=sampler, addr_bits=16))
    check(requests, texture, seed=5)


def test_small_buffer():
    """A buffer of 4 words (BILINEAR reads 12): requests wait for room, no answer is lost."""
    rng = random.Random(0x5B)
    texture = Texture(8)
    requests = [random_request(rng, n, rng.choice(SAMPLING_OPS)) for n in range(50)]
    check(requests, texture, seed=4, buffer_depth=4, delays=(5, 30), out_ready=0.7)


def cycles_per_lane(bilinear, latency, lanes=12):
    """Cycles between answers of back-to-back LD lanes with a memory answering ``latency``
    cycles after each request and nothing held off."""
    texture = Texture(9)
    requests = [request([f32(0.3), f32(0.6), 0, 0], log2_width=3, log2_height=3,
                        bilinear=bilinear, tag=n) for n in range(lanes)]
    dut = TextureUnit(addr_bits=ADDR_BITS, tag_bits=TAG_BITS)
    answered = []

    async def testbench(ctx):
        due = []
        ctx.set(dut.mem_req.ready, 1)
        ctx.set(dut.o.ready, 1)
        offered = 0
        for cycle in range(60 * lanes):
            ctx.set(dut.i.valid, offered < lanes)
            if offered < lanes:
                ctx.set(dut.i.payload, requests[offered])
            ctx.set(dut.mem_resp.valid, bool(due) and due[0][0] == cycle)
            if due and due[0][0] == cycle:
                ctx.set(dut.mem_resp.payload, due.pop(0)[1])
            if offered < lanes and ctx.get(dut.i.ready):
                offered += 1
            if ctx.get(dut.mem_req.valid):
                due.append((cycle + latency, texture[ctx.get(dut.mem_req.payload)]))
            if ctx.get(dut.o.valid):
                answered.append(cycle)
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(testbench)
    sim.run()
    assert len(answered) == lanes
    gaps = {b - a for a, b in zip(answered[lanes // 2:], answered[lanes // 2 + 1:])}
    assert len(gaps) == 1, gaps                       # a steady rate
    return gaps.pop()


#: cycles per lane, back to back, at a memory latency of 4 cycles (docs/r500-rtl.md)
NEAREST_CYCLES = 3
BILINEAR_CYCLES = 30


@pytest.mark.parametrize("bilinear, cycles", [(0, NEAREST_CYCLES), (1, BILINEAR_CYCLES)],
                         ids=["nearest", "bilinear"])
def test_cycles_per_lane(bilinear, cycles):
    assert cycles_per_lane(bilinear, latency=4) == cycles
