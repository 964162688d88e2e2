"""The GLSL versions of the shipped R500 shaders (firmware/r500_shaders/*.frag) against their
hand-written assembly, on the quad model over many random lanes: the same bits."""

import random
import tomllib
from pathlib import Path

import pytest

from firmware.glsl import compile_glsl
from firmware.r500asm import assemble_file
from sim.r500 import fp32
from sim.r500.quad import LaneInput, run_quad
from tests.helpers.glsl import set_uniforms

SHADERS = Path(__file__).parents[3] / "firmware" / "r500_shaders"


def _pair(name):
    frag = SHADERS / f"{name}.frag"
    return compile_glsl(frag.read_text(), frag), assemble_file(SHADERS / f"{name}.asm")


def _words(lane):
    return LaneInput({t: [fp32.from_float(x) for x in v] for t, v in lane.items()})


def _compare(glsl, asm, asm_constants, glsl_constants, make_lane, quads, seed):
    rng = random.Random(seed)
    for _ in range(quads):
        lanes = [_words(make_lane(rng)) for _ in range(4)]
        a = run_quad(asm.words, lanes, constants=asm_constants)
        b = run_quad(glsl.words, lanes, constants=glsl_constants)
        assert a.error is None and b.error is None
        for la, lb in zip(a.lanes, b.lanes):
            assert la.killed == lb.killed
            if not la.killed:
                assert la.outputs[0][:3] == lb.outputs[0][:3]


def test_lit_matches_lit_asm_bit_for_bit():
    """lit.frag with lit-demo.toml's constants by name: identical colours, fewer
    instructions."""
    glsl, asm = _pair("lit")
    demo = tomllib.loads((SHADERS / "lit-demo.toml").read_text())
    asm_constants = {int(k): [fp32.from_float(v) for v in vs] for k, vs in demo.items()}
    uniforms = {"lightDirection": demo["0"][:3], "lightColor": demo["1"][:3],
                "ambient": demo["2"][:3], "specularColor": demo["3"][:3],
                "shininess": demo["3"][3]}

    def lane(rng):
        return {0: [rng.random() for _ in range(3)] + [float(rng.random() < 0.8)],
                5: [rng.uniform(-2, 2) for _ in range(3)] + [0.0],
                6: [rng.uniform(-2, 2) for _ in range(3)] + [0.0],
                8: [rng.uniform(-1, 1) for _ in range(3)] + [0.0]}
    _compare(glsl, asm, asm_constants, set_uniforms(glsl, uniforms), lane, 40, 1)
    assert glsl.instructions < asm.instructions == 24


def test_discard_matches_discard_asm():
    glsl, asm = _pair("discard")
    values = (7.5, 7.5, 1 / 6, 0.5, 0.25, 0.5, 0.75)
    asm_constants = {0: [fp32.from_float(v) for v in values[:4]],
                     1: [fp32.from_float(v) for v in values[4:] + (0.0,)]}
    uniforms = {"centre": values[:2], "inverseRadius": values[2], "vignette": values[3],
                "missColor": list(values[4:])}

    def lane(rng):
        return {0: [rng.random() for _ in range(3)] + [float(rng.random() < 0.7)],
                9: [rng.randrange(16), rng.randrange(16), 0.0, 0.0]}
    _compare(glsl, asm, asm_constants, set_uniforms(glsl, uniforms), lane, 40, 2)
    assert glsl.instructions <= asm.instructions


def test_passthrough_is_passthrough_asm():
    glsl, asm = _pair("passthrough")
    assert glsl.words == asm.words


@pytest.mark.parametrize("name", ["lit", "discard", "passthrough"])
def test_shipped_shaders_interfaces(name):
    glsl, _ = _pair(name)
    names = {"lit": {"lightDirection", "lightColor", "ambient", "specularColor", "shininess"},
             "discard": {"centre", "inverseRadius", "vignette", "missColor"},
             "passthrough": set()}[name]
    assert set(glsl.interface["uniforms"]) == names
    assert glsl.interface["samplers"] == {} and glsl.constants == {}
