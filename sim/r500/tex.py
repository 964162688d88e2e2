"""Texture sampling (r500-us.md §3.5): host-set 2D samplers over THEIA's Q14.17 texture words.

Every step is a binary32 operation of ``fp32``, in the spec's order, so that the RTL can follow
it step by step.
"""

from dataclasses import dataclass

from sim.r500 import fp32, sfu

__all__ = ["Sampler", "FILTERS", "WRAPS", "sample", "project", "would_kill"]

FILTERS = ("nearest", "bilinear")
WRAPS = ("repeat", "clamp")
CHANNELS = 3            # R, G, B words per texel; alpha is 1.0


@dataclass(frozen=True)
class Sampler:
    """A sampler as the host set it; any field may hold a value that leaves it not set up."""
    base: int = 0
    width: int = 1
    height: int = 1
    filter: str = "nearest"
    wrap: str = "repeat"

    def is_set_up(self, texture_words):
        """Power-of-two sizes, a known filter and wrap, every texel inside the texture memory."""
        def power_of_two(n):
            return isinstance(n, int) and n >= 1 and n & (n - 1) == 0
        return (power_of_two(self.width) and power_of_two(self.height)
                and isinstance(self.base, int) and self.base >= 0
                and self.base + CHANNELS * self.width * self.height <= texture_words
                and self.filter in FILTERS and self.wrap in WRAPS)


def _finite_or_zero(v):
    """Infinite or NaN coordinates read as 0.0."""
    return fp32.ZERO if fp32.is_nan(v) or fp32.is_inf(v) else v


def _coordinate(v, size, unscaled):
    v = _finite_or_zero(fp32.flush(v))
    if not unscaled:
        v = _finite_or_zero(fp32.mul(v, fp32.from_float(size)))
    return v


def _index(floor_word):
    """The integer value of an integral binary32 (a floor)."""
    return int(fp32.to_float(floor_word))


def _wrap(i, size, wrap):
    return i % size if wrap == "repeat" else min(max(i, 0), size - 1)


def _texel(sampler, texture, i, j):
    i = _wrap(i, sampler.width, sampler.wrap)
    j = _wrap(j, sampler.height, sampler.wrap)
    at = sampler.base + CHANNELS * (i + j * sampler.width)
    return [fp32.from_q17(texture[at + k]) for k in range(CHANNELS)]


def _bilinear(sampler, texture, x, y):
    xs, ys = fp32.sub(x, fp32.HALF), fp32.sub(y, fp32.HALF)
    fi, fj = fp32.floor_(xs), fp32.floor_(ys)
    a, b = fp32.sub(xs, fi), fp32.sub(ys, fj)
    i, j = _index(fi), _index(fj)
    one_a, one_b = fp32.sub(fp32.ONE, a), fp32.sub(fp32.ONE, b)
    weighted = [(_texel(sampler, texture, i, j), fp32.mul(one_a, one_b)),
                (_texel(sampler, texture, i + 1, j), fp32.mul(a, one_b)),
                (_texel(sampler, texture, i, j + 1), fp32.mul(one_a, b)),
                (_texel(sampler, texture, i + 1, j + 1), fp32.mul(a, b))]
    result = []
    for k in range(CHANNELS):
        total = fp32.mul(weighted[0][0][k], weighted[0][1])
        for texel, weight in weighted[1:]:
            total = fp32.add(total, fp32.mul(texel[k], weight))
        result.append(total)
    return result


def sample(sampler, texture, s, t, unscaled=False):
    """LD: the filtered texel (R, G, B, A = 1.0) at (s, t) of a sampler that is set up."""
    x = _coordinate(s, sampler.width, unscaled)
    y = _coordinate(t, sampler.height, unscaled)
    if sampler.filter == "nearest":
        rgb = _texel(sampler, texture, _index(fp32.floor_(x)), _index(fp32.floor_(y)))
    else:
        rgb = _bilinear(sampler, texture, x, y)
    return rgb + [fp32.ONE]


def project(s, t, q):
    """PROJ's coordinates (s·RCP(q), t·RCP(q))."""
    r = sfu.rcp(q)
    return fp32.mul(s, r), fp32.mul(t, r)


def would_kill(coords):
    """TEXKILL's test: the sign bit of any of s, t, r, q (-0 and negative NaN included)."""
    return any(fp32.sign(v) for v in coords)
