"""Build a theia-2010 scene from ordinary files: a Wavefront OBJ mesh with UVs, a PNG texture and a
short TOML (or JSON) description of camera, projection window and resolution.

    python -m sim.scene_import SCENE.toml --out DIR     writes a scene directory (save_scene)
    python -m sim.render SCENE.toml --out image.png     renders it directly

Conventions (theia-system.md §1, §3; see docs/scene-import.md): the projection window lies in the
plane z = 0, the camera looks through it, x to the right and y up. Texture v goes *up* the image as
in OBJ/OpenGL: v = 0 is the bottom row of the PNG. Every problem is a SceneError naming file:line.
"""

import argparse
import math
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from hdl.isa import ONE, MASK32
from sim.r500.shader_config import shading_from_table
from sim.scene import Scene, SceneError, save_scene
from sim.settings import read_settings

__all__ = [
    "Mesh", "SceneDescription", "load_obj", "load_texture", "load_description",
    "import_scene",
    "to_q", "split_bands", "main",
]

#: Q14.17 holds -16384 <= x < 16384; we ask for |x| < 16384
Q_LIMIT = 16384.0
#: UVs are reduced per triangle by whole turns (exact, TCC wraps with MOD); what is left must keep
#: UV1 - UV0 inside Q14.17 too
UV_LIMIT = 8192.0
DEFAULT_BANDS = 4
#: LIGHT_INFO as the original scenes wrote it (the reference renderer does not use lights)
LIGHT_INFO = (0, ONE, 0)
#: Creg.mem: texture enabled, as the original tools wrote for textured scenes
CREG_TEXTURE = 0b010

DESCRIPTION_KEYS = {"mesh", "texture", "camera", "window_min", "window_max", "resolution",
                    "bands", "transform", "diffuse", "name", "shader"}
TRANSFORM_KEYS = {"scale", "rotate", "translate"}


def to_q(x, path, what, line=None, limit=Q_LIMIT):
    """x as a Q14.17 word (round to nearest, two's complement); out of range is a SceneError."""
    if not abs(x) < limit:
        raise SceneError(path, f"{what} = {x:g} does not fit Q14.17 (|x| < {limit:g}); "
                         f"scale the scene down", line)
    return round(x * ONE) & MASK32


# ---------------------------------------------------------------------------------------------
# OBJ

@dataclass
class Mesh:
    """An OBJ mesh reduced to what THEIA needs. `triangles` holds, per triangle, three
    (position index, uv index) pairs (0-based) and the OBJ line of the face it came from."""
    path: Path
    positions: list[tuple[float, float, float]]
    position_lines: list[int]
    uvs: list[tuple[float, float]]
    triangles: list[tuple[tuple[int, int], tuple[int, int], tuple[int, int], int]]


def _number(token, path, line, what):
    try:
        value = float(token)
    except ValueError:
        raise SceneError(path, f"malformed number {token!r} in {what}", line) from None
    if not math.isfinite(value):
        raise SceneError(path, f"{what} has a non-finite number {token!r}", line)
    return value


def _index(token, count, path, line, kind):
    """An OBJ index (1-based, or negative = relative to the end) as 0-based."""
    try:
        i = int(token)
    except ValueError:
        raise SceneError(path, f"malformed {kind} index {token!r} in face", line) from None
    resolved = i - 1 if i > 0 else count + i
    if i == 0 or not 0 <= resolved < count:
        plural = "vertices" if kind == "vertex" else f"{kind}s"
        raise SceneError(path, f"{kind} index {i} out of range: {count} {plural} defined "
                         f"before this line", line)
    return resolved


def load_obj(path):
    """Read `v`, `vt` and `f` lines of an OBJ file (other lines are ignored). Faces need UVs
    (v/vt or v/vt/vn); polygons are split into triangle fans."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        raise SceneError(path, "file not found") from None
    except OSError as e:
        raise SceneError(path, f"cannot read: {e.strerror}") from None
    positions, position_lines, uvs, triangles = [], [], [], []
    for number, raw in enumerate(text.splitlines(), start=1):
        tokens = raw.split("#", 1)[0].split()
        if not tokens:
            continue
        kind, args = tokens[0], tokens[1:]
        if kind == "v":
            if len(args) < 3:
                raise SceneError(path, f"vertex needs x y z, got {len(args)} numbers", number)
            positions.append(tuple(_number(a, path, number, "vertex") for a in args[:3]))
            position_lines.append(number)
        elif kind == "vt":
            if not args:
                raise SceneError(path, "texture coordinate needs u [v]", number)
            u = _number(args[0], path, number, "texture coordinate")
            v = _number(args[1], path, number, "texture coordinate") if len(args) > 1 else 0.0
            uvs.append((u, v))
        elif kind == "f":
            if len(args) < 3:
                raise SceneError(path, f"face needs at least 3 vertices, got {len(args)}", number)
            corners = []
            for arg in args:
                parts = arg.split("/")
                if len(parts) < 2 or parts[1] == "":
                    raise SceneError(path, f"face vertex {arg!r} has no texture coordinate: "
                                     f"UVs are required (write v/vt or v/vt/vn)", number)
                corners.append((_index(parts[0], len(positions), path, number, "vertex"),
                                _index(parts[1], len(uvs), path, number, "texture coordinate")))
            for k in range(1, len(corners) - 1):          # fan around the first corner
                triangles.append((corners[0], corners[k], corners[k + 1], number))
    if not triangles:
        raise SceneError(path, "no faces (f lines) found")
    return Mesh(path, positions, position_lines, uvs, triangles)


# ---------------------------------------------------------------------------------------------
# PNG

def load_texture(path):
    """A square, power-of-two image (any mode Pillow reads; alpha is dropped) as texture words
    R G B per texel, 8-bit colour << 9, and its size S. Texel (U, V) is at word 3·(U + V·S) with
    V counted from the *bottom* row of the image, so OBJ's v goes up the picture."""
    from PIL import Image, UnidentifiedImageError
    import numpy as np
    path = Path(path)
    try:
        with Image.open(path) as image:
            rgb = np.asarray(image.convert("RGB"), dtype=np.uint32)
    except FileNotFoundError:
        raise SceneError(path, "file not found") from None
    except UnidentifiedImageError:
        raise SceneError(path, "not an image Pillow can read (use a PNG)") from None
    except OSError as e:
        raise SceneError(path, f"cannot read image: {e}") from None
    height, width, _ = rgb.shape
    if width != height:
        raise SceneError(path, f"texture is {width}x{height}: it must be square (the firmware "
                         f"addresses only square textures)")
    if width & (width - 1):
        raise SceneError(path, f"texture size {width} is not a power of two (TCC wraps with "
                         f"a bit mask): use e.g. {1 << (width.bit_length() - 1)} or "
                         f"{1 << width.bit_length()}")
    words = (rgb[::-1] << 9).reshape(-1).tolist()        # bottom image row first
    return words, width


# ---------------------------------------------------------------------------------------------
# description (TOML / JSON)

@dataclass
class SceneDescription:
    path: Path
    mesh: Path
    texture: Path
    camera: tuple[float, float, float]
    window_min: tuple[float, float]
    window_max: tuple[float, float]
    resolution: tuple[int, int]
    bands: int
    scale: tuple[float, float, float] = (1.0, 1.0, 1.0)
    rotate: tuple[float, float, float] = (0.0, 0.0, 0.0)
    translate: tuple[float, float, float] = (0.0, 0.0, 0.0)
    diffuse: tuple[float, float, float] = (1.0, 1.0, 1.0)
    name: str = ""
    #: the [shader] table as read (sim/r500/shader_config.py checks it), None without one
    shader: dict | None = None
    lines: dict = field(default_factory=dict, repr=False)


def _key_lines(text):
    """Line number of each `key =` / `"key":` in the text, so errors can point at it (tomllib
    and json do not say where a value came from)."""
    lines = {}
    for number, line in enumerate(text.splitlines(), start=1):
        m = re.match(r'\s*"?([A-Za-z_][A-Za-z0-9_]*)"?\s*[=:]', line)
        if m:
            lines.setdefault(m.group(1), number)
        m = re.match(r"\s*\[\s*([A-Za-z_][A-Za-z0-9_]*)\s*\]", line)
        if m:
            lines.setdefault(m.group(1), number)
    return lines


def load_description(path):
    """Read and check a TOML (.toml) or JSON (.json) scene description."""
    path = Path(path)
    data, text = read_settings(path)
    lines = _key_lines(text)

    def fail(key, problem):
        raise SceneError(path, f"{key}: {problem}", lines.get(key.split(".")[-1]))

    unknown = sorted(set(data) - DESCRIPTION_KEYS)
    if unknown:
        fail(unknown[0], f"unknown setting (known: {', '.join(sorted(DESCRIPTION_KEYS))})")
    for key in ("mesh", "texture", "camera", "window_min", "window_max", "resolution"):
        if key not in data:
            raise SceneError(path, f"missing required setting '{key}'")

    def vector(key, value, n):
        if (not isinstance(value, list) or len(value) != n
                or not all(isinstance(x, (int, float)) and not isinstance(x, bool)
                           and math.isfinite(x) for x in value)):
            fail(key, f"expected a list of {n} numbers, got {value!r}")
        return tuple(float(x) for x in value)

    def file(key):
        value = data[key]
        if not isinstance(value, str) or not value:
            fail(key, f"expected a file name, got {value!r}")
        return (path.parent / value)

    camera = vector("camera", data["camera"], 3)
    window_min = vector("window_min", data["window_min"], 2)
    window_max = vector("window_max", data["window_max"], 2)
    if not all(lo < hi for lo, hi in zip(window_min, window_max)):
        fail("window_max", f"must be above window_min in x and y, got {list(window_min)} .. "
                           f"{list(window_max)}")
    resolution = data["resolution"]
    if (not isinstance(resolution, list) or len(resolution) != 2
            or not all(isinstance(x, int) and not isinstance(x, bool) and x > 0
                       for x in resolution)):
        fail("resolution", f"expected [width, height], two positive whole numbers, got "
                           f"{resolution!r}")
    bands = data.get("bands", min(DEFAULT_BANDS, resolution[1]))
    if not isinstance(bands, int) or isinstance(bands, bool) or not 1 <= bands <= resolution[1]:
        fail("bands", f"expected a whole number from 1 to the height {resolution[1]}, got "
                      f"{bands!r}")
    transform = data.get("transform", {})
    if not isinstance(transform, dict):
        fail("transform", "expected a table with scale, rotate, translate")
    unknown = sorted(set(transform) - TRANSFORM_KEYS)
    if unknown:
        fail(f"transform.{unknown[0]}", "unknown setting (known: scale, rotate, translate)")
    scale = transform.get("scale", 1.0)
    if isinstance(scale, (int, float)) and not isinstance(scale, bool):
        scale = [scale] * 3
    description = SceneDescription(
        path=path, mesh=file("mesh"), texture=file("texture"), camera=camera,
        window_min=window_min, window_max=window_max, resolution=tuple(resolution), bands=bands,
        scale=vector("transform.scale", scale, 3),
        rotate=vector("transform.rotate", transform.get("rotate", [0, 0, 0]), 3),
        translate=vector("transform.translate", transform.get("translate", [0, 0, 0]), 3),
        diffuse=vector("diffuse", data.get("diffuse", [1, 1, 1]), 3),
        name=str(data.get("name", path.stem)), shader=data.get("shader"), lines=lines)
    if camera[2] == 0:
        fail("camera", "z must not be 0: the projection window is the plane z = 0 and the "
                       "camera looks through it")
    return description


# ---------------------------------------------------------------------------------------------
# building the scene

def split_bands(height, bands):
    """Row ranges (start, end) of `bands` horizontal strips, as even as possible (the first
    height % bands strips get one row more)."""
    base, extra = divmod(height, bands)
    ranges, start = [], 0
    for b in range(bands):
        end = start + base + (1 if b < extra else 0)
        ranges.append((start, end))
        start = end
    return ranges


def _transform(point, d):
    x, y, z = (p * s for p, s in zip(point, d.scale))
    rx, ry, rz = (math.radians(a) for a in d.rotate)
    y, z = y * math.cos(rx) - z * math.sin(rx), y * math.sin(rx) + z * math.cos(rx)
    z, x = z * math.cos(ry) - x * math.sin(ry), z * math.sin(ry) + x * math.cos(ry)
    x, y = x * math.cos(rz) - y * math.sin(rz), x * math.sin(rz) + y * math.cos(rz)
    return tuple(p + t for p, t in zip((x, y, z), d.translate))


def _sub(a, b):
    return tuple(x - y for x, y in zip(a, b))


def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _norm(a):
    return math.sqrt(sum(x * x for x in a))


def _check_triangle_math(p0, p1, p2, camera, path, line, t):
    """BIU's intermediate values (theia-system.md §3) must fit Q14.17 too, or the hit test wraps
    silently: T = camera - V0, E1, E2, Q = T x E1, H1 = Q . E2, and the bounds |E1||E2| (DELTA),
    |T||E2| (H2) for any unit ray direction."""
    e1, e2, tv = _sub(p1, p0), _sub(p2, p0), _sub(camera, p0)
    q = _cross(tv, e1)
    checks = [("camera - V0", max(map(abs, tv))), ("V1 - V0", max(map(abs, e1))),
              ("V2 - V0", max(map(abs, e2))), ("(camera - V0) x (V1 - V0)", max(map(abs, q))),
              ("H1 = Q . E2", abs(sum(a * b for a, b in zip(q, e2)))),
              ("|E1|·|E2|", _norm(e1) * _norm(e2)), ("|camera - V0|·|E2|", _norm(tv) * _norm(e2))]
    for what, value in checks:
        if not value < Q_LIMIT:
            raise SceneError(path, f"triangle {t}: the hit test's {what} reaches {value:.0f}, "
                             f"beyond Q14.17 (|x| < 16384): scale the scene down or move the "
                             f"camera closer", line)


def import_scene(path, resolution=None, bands=None):
    """The Scene described by a .toml/.json file. `resolution` (w, h) and `bands` override the
    file's values (handy for quick test renders)."""
    d = load_description(path)
    if resolution is not None:
        d.resolution = tuple(resolution)
        if bands is None:
            d.bands = min(d.bands, d.resolution[1])
    if bands is not None:
        d.bands = bands
    width, height = d.resolution
    if not 1 <= d.bands <= height:
        raise SceneError(d.path, f"bands: {d.bands} bands for {height} rows (need 1 .. height)")
    mesh = load_obj(d.mesh)
    texture, size = load_texture(d.texture)

    def qrow(values, key, line=None, source=None):
        return tuple(to_q(v, source or d.path, f"{key}.{axis}", line if source else
                          d.lines.get(key)) for v, axis in zip(values, "xyz"))

    camera = qrow(d.camera, "camera")
    window_min, window_max = qrow(d.window_min, "window_min"), qrow(d.window_max, "window_max")
    config = [LIGHT_INFO, camera, (*window_min, 0), (*window_max, 0),
              (to_q(width, d.path, "resolution width", d.lines.get("resolution")),
               to_q(height, d.path, "resolution height", d.lines.get("resolution")), 0),
              (to_q(size, d.texture, "texture size"), to_q(size, d.texture, "texture size"), 0)]
    band_rows = [((0, to_q(start, d.path, "band start"), 0),
                  (to_q(width, d.path, "width"), to_q(end, d.path, "band end"), 0))
                 for start, end in split_bands(height, d.bands)]
    diffuse = qrow(d.diffuse, "diffuse")

    # every vertex strictly on the window's side of the camera: the firmware has no t > 0 test,
    # so a triangle behind the camera would be "hit" by the backward ray and win
    toward = -1.0 if d.camera[2] > 0 else 1.0
    points = []
    for i, (point, line) in enumerate(zip(mesh.positions, mesh.position_lines)):
        p = _transform(point, d)
        if not (p[2] - d.camera[2]) * toward > 0:
            raise SceneError(mesh.path, f"vertex {i + 1} is at z = {p[2]:g} (after the "
                             f"transform), not in front of the camera (z = {d.camera[2]:g}, "
                             f"looking toward {'-' if toward < 0 else '+'}z): the firmware would "
                             f"draw it over everything", line)
        points.append(p)
        qrow(p, f"vertex {i + 1} (after the transform)", line, mesh.path)

    triangles = []
    for t, (*corners, line) in enumerate(mesh.triangles):
        ps = [points[pi] for pi, _ in corners]
        _check_triangle_math(*ps, d.camera, mesh.path, line, t)
        uvs = [mesh.uvs[ti] for _, ti in corners]
        # whole turns of u and v change nothing (TCC wraps with MOD), so bring the triangle's
        # smallest u and v into [0, 1): tiled UVs of any size stay in range
        shift = [math.floor(min(uv[k] for uv in uvs)) for k in (0, 1)]
        rows = []
        for p, uv in zip(ps, uvs):
            rows.append(qrow(p, f"triangle {t} vertex", line, mesh.path))
            rows.append((to_q(uv[0] - shift[0], mesh.path, "u (span within a triangle)", line,
                              UV_LIMIT),
                         to_q(uv[1] - shift[1], mesh.path, "v (span within a triangle)", line,
                              UV_LIMIT), 0))
        triangles.append((*rows, diffuse))

    def signed(w):
        return w - (1 << 32) if w & 0x8000_0000 else w

    corners = [tuple(map(signed, tri[i])) for tri in triangles for i in (0, 2, 4)]
    aabb = tuple(tuple(pick(c[k] for c in corners) & MASK32 for k in range(3))
                 for pick in (min, max))
    shader = None
    if d.shader is not None:
        shader = shading_from_table(d.shader, d.path, len(texture))
    return Scene(name=d.name, config=config, bands=band_rows, aabb=aabb, triangles=triangles,
                 texture=texture, texture_size=size, user_code=None, creg=CREG_TEXTURE,
                 shader=shader)


# ---------------------------------------------------------------------------------------------
# command line

def _resolution(text):
    m = re.fullmatch(r"(\d+)[xX](\d+)", text)
    if not m or not int(m.group(1)) or not int(m.group(2)):
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT, e.g. 64x64, got {text!r}")
    return int(m.group(1)), int(m.group(2))


def main(argv=None):
    from sim.errors import cli_errors
    parser = argparse.ArgumentParser(
        prog="python -m sim.scene_import",
        description="Write a theia-2010 scene directory from an OBJ + PNG + TOML/JSON scene.")
    parser.add_argument("scene", help="scene description, .toml or .json")
    parser.add_argument("--out", required=True, help="scene directory to write")
    parser.add_argument("--resolution", type=_resolution, help="override, WIDTHxHEIGHT")
    parser.add_argument("--bands", type=int, help="override the number of bands")
    args = parser.parse_args(argv)
    with cli_errors("sim.scene_import"):
        scene = import_scene(args.scene, args.resolution, args.bands)
        save_scene(scene, args.out)
        print(f"{args.out}: {scene.width}x{scene.height}, {len(scene.bands)} bands, "
              f"{len(scene.triangles)} triangles, {scene.texture_size}x{scene.texture_size} "
              f"texture", file=sys.stderr)
        if scene.shader is not None:
            print(f"{args.out}: the [shader] section is not written (a scene directory holds "
                  f"no R500 program: give it to sim.render with --shader)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
