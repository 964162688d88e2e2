"""The published R500 programs (tests/helpers/shared_data.py) on a quad of random inputs: each runs without
error, and computes what its note says, checked against an independent float computation
(with a tolerance where special functions are involved)."""

import math
import random

import numpy as np
import pytest

from firmware.r500asm import read_words
from sim.r500 import fp32
from sim.r500.quad import LaneInput, run_quad
from sim.r500.tex import Sampler
from tests.helpers.shared_data import PUBLISHED_R500, R500_PROGRAMS_DIR

SIZE = 8                                    # texture width and height
SPECIAL_TOLERANCE = 2 ** -17                # RSQ/RCP/COS chains, relative or absolute


@pytest.fixture(autouse=True)
def _published(r500_programs_dir):
    """Every test here runs published programs: without them, each is skipped."""


def f32(x):
    return float(np.float32(x))


def texture_words(rng, count):
    """``count`` textures of SIZE × SIZE texels with 8-bit colours (k / 256, as THEIA's)."""
    return [rng.randrange(256) << 9 for _ in range(3 * SIZE * SIZE * count)]


def texel(texture, base, s, t):
    """NEAREST, REPEAT at (s, t), computed independently of the model."""
    i, j = math.floor(f32(s * SIZE)) % SIZE, math.floor(f32(t * SIZE)) % SIZE
    at = base + 3 * (i + j * SIZE)
    return [texture[at + k] / 2 ** 17 for k in range(3)]


class Inputs:
    """Random lane temporaries, constants and two nearest/repeat samplers."""

    def __init__(self, seed):
        rng = random.Random(seed)
        self.t = [[[f32(rng.uniform(-1, 1)) for _ in range(4)] for _ in range(10)]
                  for _ in range(4)]
        for lane in self.t:                         # t0: texture coordinates in [0, 1)
            lane[0] = [f32(rng.random()) for _ in range(4)]
        self.c = [[f32(rng.uniform(-0.2, 0.2)) for _ in range(4)] for _ in range(8)]
        self.texture = texture_words(rng, 2)
        self.samplers = {0: Sampler(0, SIZE, SIZE), 1: Sampler(3 * SIZE * SIZE, SIZE, SIZE)}

    def run(self, name):
        words = read_words(R500_PROGRAMS_DIR / f"{name}.inc")
        lanes = [LaneInput({i: [fp32.from_float(v) for v in vec] for i, vec in enumerate(t)})
                 for t in self.t]
        constants = {i: [fp32.from_float(v) for v in vec] for i, vec in enumerate(self.c)}
        result = run_quad(words, lanes, constants, samplers=self.samplers, texture=self.texture)
        assert result.error is None, f"{name}: {result.error}"
        assert result.instructions == len(words) // 6
        return [[fp32.to_float(v) for v in lane.outputs[0]] for lane in result.lanes]


@pytest.mark.parametrize("name", PUBLISHED_R500)
@pytest.mark.parametrize("seed", range(3))
def test_program_runs_on_random_inputs(name, seed):
    for out in Inputs(seed).run(name):
        assert out[3] == 1.0                        # every program writes alpha 1


def close(got, want):
    return abs(got - want) <= SPECIAL_TOLERANCE * max(1.0, abs(want))


@pytest.mark.parametrize("name", ["hw-length", "mesa-length"])
def test_length(name):
    inputs = Inputs(10)
    for t, out in zip(inputs.t, inputs.run(name)):
        assert close(out[0], math.hypot(t[0][0], t[0][1]))
        assert out[1:3] == [0.0, 0.0]


def test_hw_clear():
    assert Inputs(11).run("hw-clear") == [[0.0, 0.0, 0.0, 1.0]] * 4


def test_hw_shadertoy_circle():
    """out.r = |length(uv) − 0.5| − 0.1015625 >= 0 (float(29))."""
    for seed in range(4):
        inputs = Inputs(seed)
        for t, out in zip(inputs.t, inputs.run("hw-shadertoy_circle")):
            e = abs(math.hypot(t[0][0], t[0][1]) - 0.5) - 0.1015625
            if abs(e) > 1e-5:
                assert out[:3] == [1.0 if e >= 0 else 0.0, 0.0, 0.0]


def test_hw_shadertoy_palette():
    """0.5 + 0.5·cos(2π·(k + time + length(uv))) for k = 0.25, 0.40625, 0.5625 (float(40),
    float(45), float(49)), time = const[0].r."""
    inputs = Inputs(12)
    for t, out in zip(inputs.t, inputs.run("hw-shadertoy_palette")):
        s = inputs.c[0][0] + math.hypot(t[0][0], t[0][1])
        want = [0.5 + 0.5 * math.cos(2 * math.pi * (k + s)) for k in (0.25, 0.40625, 0.5625)]
        assert all(close(g, w) for g, w in zip(out[:3], want))


def test_mesa_shadertoy_circle_sin():
    """Mesa's trig lowering: out.r = cos(2π·frac(const[0].r · length(uv)))."""
    inputs = Inputs(13)
    for t, out in zip(inputs.t, inputs.run("mesa-shadertoy_circle_sin")):
        x = inputs.c[0][0] * math.hypot(t[0][0], t[0][1])
        assert close(out[0], math.cos(2 * math.pi * (x - math.floor(x))))


@pytest.mark.parametrize("name", ["hw-texture", "mesa-texture"])
def test_texture_fetch(name):
    inputs = Inputs(14)
    for t, out in zip(inputs.t, inputs.run(name)):
        assert out[:3] == texel(inputs.texture, 0, t[0][0], t[0][1])


def test_mesa_texture_dual():
    """out = tex0 + t0.r · (tex1 − tex0)."""
    inputs = Inputs(15)
    for t, out in zip(inputs.t, inputs.run("mesa-texture_dual")):
        a = texel(inputs.texture, 0, t[0][0], t[0][1])
        b = texel(inputs.texture, 3 * SIZE * SIZE, t[0][0], t[0][1])
        want = [x + t[0][0] * (y - x) for x, y in zip(a, b)]
        assert all(abs(g - w) <= 2 ** -20 for g, w in zip(out[:3], want))


def test_hw_texture_blur_horizontal():
    """Seven taps along x weighted by const[2]: the centre ·w.r, then pairs ·w.g, ·w.b, ·w.a at
    offsets const[0].r, .g; const[0].b and 0; const[1].r, .g. (The fourth offset reads
    ``src1.a`` of a slot whose .a address is not declared: the inline 0, not const[0].a.)"""
    inputs = Inputs(16)
    c0, c1, w = inputs.c[0], inputs.c[1], inputs.c[2]
    for t, out in zip(inputs.t, inputs.run("hw-texture_blur_horizontal")):
        x, y = t[0][0], t[0][1]
        taps = [(0.0, w[0])] + [(d, w[1]) for d in c0[:2]] + [(d, w[2]) for d in (c0[2], 0.0)] \
            + [(d, w[3]) for d in c1[:2]]
        want = [0.0] * 3
        for offset, weight in taps:
            colour = texel(inputs.texture, 0, f32(x + offset) if offset else x, y)
            want = [acc + weight * c for acc, c in zip(want, colour)]
        assert all(abs(g - v) <= 2 ** -18 for g, v in zip(out[:3], want))
