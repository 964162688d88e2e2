"""Random scenes for testing what must not change a frame (binning): the demo's camera, texture
and bands with random triangles of every awkward kind the fixed-point test meets."""

import dataclasses
import random

from hdl.isa import ONE, MASK32
from sim.demo_scene import demo_scene

__all__ = ["TRIANGLE_KINDS", "random_triangle", "random_scene"]

#: ordinary; behind the camera; crossing its plane; degenerate (a point or a line, the third
#: vertex on the line through the first two); tiny (a few thousandths); huge (thousands of
#: units: products near the 32-bit limits)
TRIANGLE_KINDS = ("ordinary", "behind", "crossing", "degenerate", "tiny", "huge")


def _fixed(v):
    return round(v * ONE) & MASK32


def random_triangle(rng, kind=None):
    """A triangle's seven rows (V0 UV0 V1 UV1 V2 UV2 DIFFUSE) of ``kind`` (default: any)."""
    kind = kind or rng.choice(TRIANGLE_KINDS)
    depth = {"behind": rng.uniform(-8, -0.5), "crossing": 0.0}.get(kind, rng.uniform(1, 8))
    centre = [rng.uniform(-3, 3), rng.uniform(-3, 3), depth]
    spread = {"tiny": 0.002, "huge": 3000.0, "crossing": 6.0}.get(kind, rng.uniform(0.2, 4))
    vertices = [[c + rng.uniform(-spread, spread) for c in centre] for _ in range(3)]
    if kind == "degenerate":
        a, b = vertices[0], vertices[1]
        s = rng.choice([0.0, 1.0, 0.5, 2.0])
        vertices[2] = [p + s * (q - p) for p, q in zip(a, b)]
    rows = [tuple(_fixed(max(-16000.0, min(16000.0, c))) for c in v) for v in vertices]
    uv = [(_fixed(rng.random()), _fixed(rng.random()), 0) for _ in range(3)]
    return rows[0], uv[0], rows[1], uv[1], rows[2], uv[2], (_fixed(1), _fixed(1), _fixed(1))


def random_scene(seed, size=12, triangles=14, bands=3):
    """The demo at ``size`` x ``size`` pixels with ``triangles`` random triangles."""
    rng = random.Random(seed)
    scene = demo_scene(size=size, bands=bands, texture_size=16)
    return dataclasses.replace(scene, name=f"random-{seed}",
                               triangles=[random_triangle(rng) for _ in range(triangles)])
