"""TEX instructions on the quad (r500-us.md §3.5): NEAREST and BILINEAR × REPEAT and CLAMP,
UNSCALED, PROJ, non-finite coordinates, swizzles, masks, clamp, TEXKILL."""

import math

import pytest

from hdl.isa import TexOp, PredSel, Compare
from sim.fc_model import fc_if, fc_endif
from sim.r500 import fp32
from sim.r500.tex import Sampler
from tests.helpers.r500 import alu, bits, tex, fc, run, floats

W, H = 4, 2


def q17(x):
    return round(x * 2 ** 17) & 0xFFFF_FFFF


def colour(i, j):
    """Texel (i, j): R = i + 4j, G = i / 2, B = -j (exact in Q14.17 and binary32)."""
    return [i + W * j, i / 2, -j]


TEXTURE = [q17(c) for j in range(H) for i in range(W) for c in colour(i, j)]


def fetch(coords, op=TexOp.LD, filter="nearest", wrap="repeat", swz="rgba", mask="rgba",
          unscaled=0, **cmn):
    """temp[1] of every lane after one TEX from temp[0] = coords (one tuple per lane)."""
    sampler = Sampler(0, W, H, filter, wrap)
    coords = (list(coords) * 4)[:4]
    result = run([tex(op, src=0, dst=1, swz=swz, mask=mask, unscaled=unscaled, **cmn)],
                 [{0: c} for c in coords], samplers={0: sampler}, texture=TEXTURE)
    assert result.error is None, result.error
    return [floats(lane.temps[1]) for lane in result.lanes]


@pytest.mark.parametrize("wrap, coords, texel", [
    ("repeat", (0.3, 0.75), (1, 1)), ("repeat", (1.3, 0.25), (1, 0)),
    ("repeat", (-0.1, -0.25), (3, 1)), ("clamp", (-0.1, -0.25), (0, 0)),
    ("clamp", (7.0, 0.99), (3, 1)), ("repeat", (0.0, 0.5), (0, 1)),
])
def test_nearest(wrap, coords, texel):
    got = fetch([coords + (0, 0)] * 4, wrap=wrap)
    assert got == [colour(*texel) + [1.0]] * 4


def bilinear(x, y, wrap):
    """The spec's formula in Python floats (exact for the dyadic values used here)."""
    def index(k, size):
        return k % size if wrap == "repeat" else min(max(k, 0), size - 1)
    xs, ys = x - 0.5, y - 0.5
    i, j = math.floor(xs), math.floor(ys)
    a, b = xs - i, ys - j
    taps = [((i, j), (1 - a) * (1 - b)), ((i + 1, j), a * (1 - b)),
            ((i, j + 1), (1 - a) * b), ((i + 1, j + 1), a * b)]
    return [sum(colour(index(ti, W), index(tj, H))[k] * w for (ti, tj), w in taps)
            for k in range(3)] + [1.0]


@pytest.mark.parametrize("wrap", ["repeat", "clamp"])
@pytest.mark.parametrize("s, t", [(0.4375, 0.625), (0.0, 0.0), (0.96875, 0.875), (0.125, 0.5)])
def test_bilinear(wrap, s, t):
    assert fetch([(s, t, 0, 0)], filter="bilinear", wrap=wrap)[0] == bilinear(s * W, t * H, wrap)


def test_bilinear_with_inexact_weights():
    s = 1 / 3
    got = fetch([(s, 0.25, 0, 0)], filter="bilinear")[0]
    exact = bilinear(fp32.to_float(fp32.from_float(s)) * W, 0.5, "repeat")
    assert all(abs(g - e) < 1e-6 for g, e in zip(got, exact))


def test_unscaled_and_proj():
    assert fetch([(2.5, 1.5, 0, 0)], unscaled=1)[0] == colour(2, 1) + [1.0]
    assert fetch([(0.6, 1.5, 0, 2.0)], op=TexOp.PROJ)[0] == colour(1, 1) + [1.0]
    assert fetch([(1.0, 1.0, 0, 4.0)], op=TexOp.PROJ, unscaled=1)[0] == colour(0, 0) + [1.0]


@pytest.mark.parametrize("op", [TexOp.LODBIAS, TexOp.LOD, TexOp.DXDY])
def test_lod_ops_are_ld(op):
    assert fetch([(0.3, 0.75, 0, 0)], op=op)[0] == colour(1, 1) + [1.0]


def test_non_finite_coordinates_read_as_zero():
    inf, nan = bits(fp32.POS_INF), bits(fp32.CANONICAL_NAN)
    got = fetch([(inf, 0.75, 0, 0), (nan, nan, 0, 0), (3e38, 0.75, 0, 0), (0.3, -inf, 0, 0)])
    assert got == [colour(0, 1) + [1.0], colour(0, 0) + [1.0], colour(0, 1) + [1.0],
                   colour(1, 0) + [1.0]]
    assert fetch([(0.3, 0.75, 0, 0.0)], op=TexOp.PROJ)[0] == colour(0, 0) + [1.0]


def test_destination_swizzle_mask_and_clamp():
    got = fetch([(0.3, 0.75, 0, 0)], swz="abgr", mask="rb")[0]
    assert got == [1.0, 0.0, 0.5, 0.0]
    got = fetch([(0.3, 0.75, 0, 0)], swz="rgba", RGB_CLAMP=1)[0]
    assert got == [1.0, 0.5, 0.0, 1.0]


def test_negative_texel_and_rounded_q17():
    texture = [0xFFFE_0000, 0x0000_0001, 0x7FFF_FFFF]
    result = run([tex(dst=1)], {0: (0, 0, 0, 0)}, samplers={0: Sampler(0, 1, 1)},
                 texture=texture)
    assert result.lanes[0].temps[1] == [fp32.from_float(-1.0), fp32.from_float(2 ** -17),
                                        fp32.from_float(2 ** 14), fp32.ONE]


def test_tex_writes_are_predicated_and_only_in_active_lanes():
    program = [alu(a="src0.rrr", rgb=("t2",), rgb_target=Compare.NE, RGB_OMASK=2),  # G
               alu(rgb=("t2",), alu_wmask=1, ALU_RESULT_OP=Compare.GE),
               fc(fc_if(5, has_else=False)),
               tex(dst=1, RGB_PRED_SEL=PredSel.GGGG, ALPHA_PRED_SEL=PredSel.GGGG),
               fc(fc_endif(5)),
               alu()]
    lanes = [{0: (0.3, 0.75, 0, 0), 2: (r, 0, 0, 0)} for r in (1, 0, -1, 2)]
    result = run(program, lanes, samplers={0: Sampler(0, W, H)}, texture=TEXTURE)
    written = [lane.temps[1] != [0] * 4 for lane in result.lanes]
    assert written == [True, False, False, True]


# --- TEXKILL ----------------------------------------------------------------------------------

def test_texkill_on_any_sign_bit():
    neg_zero, neg_nan = bits(fp32.NEG_ZERO), bits(0xFFC0_0000)
    coords = [(0, 0, 0, neg_zero), (1, 2, 3, 4), (0, neg_nan, 0, 0), (0.5, 0.5, -1e-30, 0.5)]
    result = run([tex(TexOp.TEXKILL, src=0, dst=1), alu(rgb=("i56",), rgb_dest=2,
                                                        RGB_WMASK=7, out=True, RGB_OMASK=7)],
                 [{0: c} for c in coords])
    assert [lane.killed for lane in result.lanes] == [True, False, True, True]
    for lane in result.lanes:
        assert lane.temps[1] == [0] * 4                     # TEXKILL writes nothing
        assert (lane.temps[2] == [0] * 4) == lane.killed    # killed lanes write nothing more
        assert (lane.outputs == {}) == lane.killed


def test_texkill_only_in_lanes_that_would_write():
    """Inactive lanes are not killed, unless WRITE_INACTIVE; predication does not apply."""
    program = [alu(rgb=("t2",), alu_wmask=1, ALU_RESULT_OP=Compare.GE),
               fc(fc_if(4, has_else=False)),
               tex(TexOp.TEXKILL, RGB_PRED_SEL=PredSel.RRRR),
               fc(fc_endif(4)),
               alu()]
    lanes = [{0: (-1, 0, 0, 0), 2: (r, 0, 0, 0)} for r in (1, -1, 1, -1)]
    assert [lane.killed for lane in run(program, lanes).lanes] == [True, False, True, False]
    program[2] = tex(TexOp.TEXKILL, WRITE_INACTIVE=1)
    assert all(lane.killed for lane in run(program, lanes).lanes)
