"""A built-in demo scene made in code: a textured cube and a pyramid on a checkered floor in front
of a sky backdrop, in the theia-2010 conventions (theia-system.md §1, §3).

Conventions (as in example3): the projection window lies in the plane z = 0 between WINDOW_MIN and
WINDOW_MAX, the camera sits at z > 0 and looks toward -z, x to the right and y up. Every triangle
must be in front of the camera (the firmware has no t > 0 test, so anything behind would win the
nearest-hit test). Lights are not applied by the reference algorithm, so the shading of the faces
is baked into the texture: each face picks one of several copies of its pattern at a brightness
given by a fixed light direction.

Texture layout (S x S texels, S a power of two >= 16), in four quadrants of S/2 x S/2:
  (0, 0) checkerboard for the floor        (1, 0) sky gradient for the backdrop
  (0, 1) four 'cube' tiles of S/4 x S/4 at brightness levels 0..3
  (1, 1) four 'pyramid' tiles at brightness levels 0..3
A face's UVs stay one texel inside its region, so the bilinear neighbour (u + 1, v + 1) never
reaches into the next region.
"""

import dataclasses
import math

from hdl.isa import ONE, MASK32
from sim.r500.shader_config import SHADER_DIR, load_shading
from sim.scene import Scene

__all__ = ["demo_scene", "demo_lit_scene", "q", "CAMERA", "WINDOW_MIN", "WINDOW_MAX", "LIGHT",
           "LIT_CONSTANTS", "LIT_PROGRAM", "LIT_UNIFORMS"]

CAMERA = (0.0, 3.0, 10.0)
WINDOW_MIN = (-4.0, -4.0)
WINDOW_MAX = (4.0, 4.0)
FLOOR_Y = -2.0
LIGHT = (-0.45, 0.8, 0.55)         # towards the light: the baked brightness, lit's lightDirection
BRIGHTNESS = (1.0, 0.78, 0.58, 0.42)
#: demo-lit's program and its uniforms, in firmware/r500_shaders (lightDirection is LIGHT)
LIT_PROGRAM = "lit.frag"
LIT_UNIFORMS = "lit-demo-uniforms.toml"
#: the same values as lit.asm's constants (its c0 is LIGHT)
LIT_CONSTANTS = "lit-demo.toml"


def q(x):
    """x as a Q14.17 word (round to nearest, two's complement)."""
    return round(x * ONE) & MASK32


def _row(x, y, z=0.0):
    return (q(x), q(y), q(z))


def _colour(r, g, b):
    """An 8-bit colour as texture words: value << 9, i.e. value/256 in Q14.17, as the originals."""
    return [max(0, min(255, int(round(c)))) << 9 for c in (r, g, b)]


# --- texture ---------------------------------------------------------------------------------

def _texel(u, v, size):
    half, quarter = size // 2, size // 4
    if v < half:
        if u < half:                                      # floor checkerboard, 8 x 8 checks
            check = half // 8 or 1
            light = ((u // check) + (v // check)) % 2 == 0
            return (235, 232, 220) if light else (60, 70, 95)
        # sky: v grows with world y; pale at the horizon, deep blue at the top
        h = v / (half - 1)
        return (200 - 150 * h, 220 - 120 * h, 245 - 30 * h)
    tile_u, tile_v = u % quarter, (v - half) % quarter
    level = (u % half) // quarter + 2 * ((v - half) // quarter)
    k = BRIGHTNESS[level]
    edge = min(tile_u, tile_v, quarter - 1 - tile_u, quarter - 1 - tile_v)
    if u < half:                                          # cube: framed orange tile, white diamond
        if edge < max(1, quarter // 16 + 1):
            base = (70, 35, 20)
        elif abs(tile_u - (quarter - 1) / 2) + abs(tile_v - (quarter - 1) / 2) < quarter / 4:
            base = (250, 245, 235)
        else:
            base = (235, 130, 40)
    else:                                                 # pyramid: green and yellow stripes
        base = (60, 170, 80) if (tile_u // max(1, quarter // 8)) % 2 else (240, 215, 70)
    return tuple(c * k for c in base)


def _texture(size):
    words = []
    for v in range(size):
        for u in range(size):
            words += _colour(*_texel(u, v, size))
    return words


def _region(size, name, level=0):
    """(u0, v0, u1, v1) in texture units [0, 1) for a region, one texel inside its edges."""
    half, quarter = size // 2, size // 4
    if name == "floor":
        x0, y0, n = 0, 0, half
    elif name == "sky":
        x0, y0, n = half, 0, half
    else:
        x0 = (0 if name == "cube" else half) + (level % 2) * quarter
        y0 = half + (level // 2) * quarter
        n = quarter
    return (x0 / size, y0 / size, (x0 + n - 1) / size, (y0 + n - 1) / size)


# --- geometry --------------------------------------------------------------------------------

def _sub(a, b):
    return tuple(x - y for x, y in zip(a, b))


def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _normalise(a):
    m = math.sqrt(sum(x * x for x in a))
    return tuple(x / m for x in a)


def _level(corners, baked):
    """Brightness level 0 (lit) .. 3 (dark) of a planar face from its normal and LIGHT; always
    0 without ``baked`` lighting."""
    if not baked:
        return 0
    n = _normalise(_cross(_sub(corners[1], corners[0]), _sub(corners[2], corners[0])))
    centre = tuple(sum(c) / len(corners) for c in zip(*corners))
    if sum(a * b for a, b in zip(n, _sub(CAMERA, centre))) < 0:
        n = tuple(-x for x in n)                          # the side the camera sees
    lit = max(0.0, sum(a * b for a, b in zip(n, _normalise(LIGHT))))
    return min(3, int((1.0 - lit) * 4))


def _triangle(p0, t0, p1, t1, p2, t2, diffuse=(1.0, 1.0, 1.0)):
    return (_row(*p0), _row(*t0), _row(*p1), _row(*t1), _row(*p2), _row(*t2), _row(*diffuse))


def _quad(corners, uv_rect):
    """Two triangles for a planar quad a b c d, mapped onto the texture rectangle."""
    a, b, c, d = corners
    u0, v0, u1, v1 = uv_rect
    ta, tb, tc, td = (u0, v0), (u1, v0), (u1, v1), (u0, v1)
    return [_triangle(a, ta, b, tb, c, tc), _triangle(a, ta, c, tc, d, td)]


def _cube(size, centre, half_side, yaw_degrees, baked):
    cx, cy, cz = centre
    s, c = math.sin(math.radians(yaw_degrees)), math.cos(math.radians(yaw_degrees))

    def corner(i):
        x = half_side if i & 1 else -half_side
        y = half_side if i & 2 else -half_side
        z = half_side if i & 4 else -half_side
        return (cx + c * x + s * z, cy + y, cz - s * x + c * z)

    # five faces: the bottom rests on the floor and is never seen
    faces = [(4, 5, 7, 6), (1, 0, 2, 3), (0, 4, 6, 2), (5, 1, 3, 7), (6, 7, 3, 2)]
    triangles = []
    for face in faces:
        corners = [corner(i) for i in face]
        triangles += _quad(corners, _region(size, "cube", _level(corners, baked)))
    return triangles


def _pyramid(size, base_centre, half_base, height, yaw_degrees, baked):
    bx, by, bz = base_centre
    apex = (bx, by + height, bz)
    s, c = math.sin(math.radians(yaw_degrees)), math.cos(math.radians(yaw_degrees))
    base = [(bx + c * x + s * z, by, bz - s * x + c * z)
            for x, z in ((-half_base, half_base), (half_base, half_base),
                         (half_base, -half_base), (-half_base, -half_base))]
    triangles = []
    for i in range(4):
        p0, p1 = base[i], base[(i + 1) % 4]
        u0, v0, u1, v1 = _region(size, "pyramid", _level([p0, p1, apex], baked))
        triangles.append(_triangle(p0, (u0, v0), p1, (u1, v0), apex, ((u0 + u1) / 2, v1)))
    return triangles


def demo_scene(size=128, bands=4, texture_size=128, baked_lighting=True, height=None):
    """The demo scene at size x size pixels (or size x ``height``: the window widened to keep
    the pixels square) split into `bands` horizontal strips of whole rows (the last strip takes
    any remainder), with a texture_size x texture_size texture. 28 triangles (sky, floor, two
    cubes, a pyramid), all in front of the camera. Without ``baked_lighting`` every face shows
    its brightest tiles, for a program that lights them."""
    width, height = size, height or size
    if width < 1 or not 1 <= bands <= height:
        raise ValueError(f"need 1 <= bands <= height, got {width}x{height}, bands={bands}")
    if texture_size < 16 or texture_size & (texture_size - 1):
        raise ValueError(f"texture_size must be a power of two >= 16, got {texture_size}")

    config = [
        (0, q(1.0), 0),                                   # LIGHT_INFO as the originals (unused)
        _row(*CAMERA),
        _row(WINDOW_MIN[0] * width / height, WINDOW_MIN[1]),
        _row(WINDOW_MAX[0] * width / height, WINDOW_MAX[1]),
        _row(width, height),
        _row(texture_size, texture_size),
    ]
    rows_per_band = height // bands
    band_rows = []
    for b in range(bands):
        start = b * rows_per_band
        end = height if b == bands - 1 else start + rows_per_band
        band_rows.append((_row(0, start), _row(width, end)))

    ts = texture_size
    floor = [(-10.0, FLOOR_Y, 6.0), (10.0, FLOOR_Y, 6.0), (10.0, FLOOR_Y, -14.0),
             (-10.0, FLOOR_Y, -14.0)]
    sky = [(-13.0, -2.5, -14.0), (13.0, -2.5, -14.0), (13.0, 8.0, -14.0), (-13.0, 8.0, -14.0)]
    triangles = (_quad(sky, _region(ts, "sky")) + _quad(floor, _region(ts, "floor"))
                 + _cube(ts, (-1.2, FLOOR_Y + 1.5, -2.0), 1.5, 35.0, baked_lighting)
                 + _pyramid(ts, (3.2, FLOOR_Y, -5.5), 1.6, 3.4, 20.0, baked_lighting)
                 + _cube(ts, (-5.0, FLOOR_Y + 0.75, -7.0), 0.75, -20.0, baked_lighting))

    def signed(w):
        return w - (1 << 32) if w & 0x8000_0000 else w

    points = [tuple(map(signed, tri[i])) for tri in triangles for i in (0, 2, 4)]
    aabb = tuple(tuple(pick(p[k] for p in points) & MASK32 for k in range(3))
                 for pick in (min, max))
    return Scene(name="demo", config=config, bands=band_rows, aabb=aabb,
                 triangles=triangles, texture=_texture(ts), texture_size=ts,
                 user_code=None, creg=0b010)


def demo_lit_scene(**kwargs):
    """``demo-lit``: the demo scene (``kwargs`` as ``demo_scene``'s) without baked lighting,
    lit by the GLSL program firmware/r500_shaders/lit.frag with the uniforms of LIT_UNIFORMS."""
    return dataclasses.replace(
        demo_scene(baked_lighting=False, **kwargs), name="demo-lit",
        shader=load_shading(LIT_PROGRAM, uniforms=SHADER_DIR / LIT_UNIFORMS))
