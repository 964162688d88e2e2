"""Scene directories (theia-system.md §1): loading, errors, writing; the built-in demo scene."""


import numpy as np
import pytest

from hdl.isa import ONE, USER_CODE_START
from sim.demo_scene import demo_scene, CAMERA
from sim.scene import Scene, SceneError, load_scene, read_hex_words, save_scene
from tests.helpers.shared_data import SCENE_NAMES



@pytest.fixture(scope="module")
def scenes(scenes_dir):
    return {name: load_scene(scenes_dir / name) for name in SCENE_NAMES}


def tiny_scene(**changes):
    """A 4x2 scene with one triangle and a 2x2 texture: small enough to corrupt by hand."""
    fields = dict(
        name="tiny",
        config=[(0, ONE, 9), (0, 2 * ONE, 10 * ONE), (0xFFF80000, 0xFFF80000, 0),
                (4 * ONE, 4 * ONE, 0), (4 * ONE, 2 * ONE, 0), (2 * ONE, 2 * ONE, 0)],
        bands=[((0, 0, 0), (4 * ONE, ONE, 0)), ((0, ONE, 0), (4 * ONE, 2 * ONE, 0))],
        aabb=((0xFFFE0000, 0xFFFE0000, 0), (2 * ONE, 2 * ONE, 0)),
        triangles=[((0xFFFE0000, 0xFFFE0000, 0), (0, 0, ONE), (2 * ONE, 0xFFFE0000, 0),
                    (0xFFFF, 0, ONE), (0, 2 * ONE, 0), (0, 0xFFFF, ONE), (ONE, ONE, ONE))],
        texture=[0x200 * i for i in range(12)],
        texture_size=2,
        user_code=None,
        creg=7,
    )
    fields.update(changes)
    return Scene(**fields)


def write(path, text):
    path.write_bytes(text.encode())
    return path


# --- the original scenes ----------------------------------------------------------------------

def test_example3_counts(scenes):
    s = scenes["example3"]
    assert (len(s.triangles), len(s.bands), s.width, s.height, s.texture_size) == (118, 8, 160, 160,
                                                                                   256)
    assert s.config[1] == (0xA0000, 0xA0000, 0x1A0000)       # camera (5, 5, 13)
    assert s.bands[7] == ((0, 0x1180000, 0), (0x1400000, 0x1400000, 0))
    assert s.triangles[0][0] == (0xFFFEDD90, 0xFFF7EB83, 0x349F5)
    assert s.triangles[-1][6] == (0x20000, 0x20000, 0x20000)
    assert len(s.texture) == 256 * 256 * 3 and s.texture[:3] == [0x10800, 0xB800, 0x6C00]
    assert s.aabb == ((0xFFFA0000, 0xFFFD0000, 0xFFFA0000), (0x60000, 0x30000, 0x70000))
    assert s.creg == 7


def test_example1_and_shaders(scenes):
    e1, sh = scenes["example1"], scenes["shaders"]
    for s in (e1, sh):
        assert (len(s.triangles), len(s.bands), s.width, s.height, s.texture_size) == (2, 4, 200,
                                                                                       200, 256)
    # the shaders Params.mem has light rows after its D = 0x2A words: ignored
    assert sh.config == e1.config and sh.bands == e1.bands and sh.triangles == e1.triangles
    assert sh.user_code is None
    # example1's Instructions.mem: 12-entry table, PIXELSHADER -> user code, two instructions
    assert len(e1.user_code) == 14
    assert e1.user_code[10] == USER_CODE_START
    assert e1.user_code[12:] == [0x002F0080_0078006E, 0x00400000_00000001]


@pytest.mark.parametrize("name", ["example1", "example3", "shaders"])
def test_band_pixels_cover_the_image(scenes, name):
    s = scenes[name]
    counts = [s.band_pixel_count(b) for b in range(len(s.bands))]
    assert sum(counts) == s.width * s.height == s.pixel_count
    bases = [s.band_output_base(b) for b in range(len(s.bands))]
    assert bases[0] == 0
    assert all(bases[b + 1] - bases[b] == 3 * counts[b] for b in range(len(counts) - 1))


def test_band_pixel_count_follows_npg():
    """Walk NPG literally (theia-system.md §3) and compare with the closed form."""
    def walk(initial, final):
        x, y = initial
        count = 1
        while True:
            if x >= final[0] - ONE:
                x, y = 0, y + ONE
                if y >= final[1]:
                    return count
            else:
                x += ONE
            count += 1

    cases = [((0, 0), (4, 1)), ((2, 0), (4, 3)), ((3, 0), (4, 1)), ((0, 5), (4, 5)),
             ((6, 0), (4, 2)), ((0, 0), (1, 3)), ((1, 1), (5, 4))]
    for (ix, iy), (fx, fy) in cases:
        initial, final = (ix * ONE, iy * ONE), (fx * ONE, fy * ONE)
        s = tiny_scene(bands=[((*initial, 0), (*final, 0))])
        assert s.band_pixel_count(0) == walk(initial, final), ((ix, iy), (fx, fy))


# --- hex word files ---------------------------------------------------------------------------

def test_read_hex_words_tolerates_layout(tmp_path):
    p = write(tmp_path / "w.mem", "// header\r\n\r\n1a\t2B //c\r\n  ffff_ffff//x\n\n\t0\r\n")
    assert read_hex_words(p) == [(0x1A, 3), (0x2B, 3), (0xFFFFFFFF, 4), (0, 6)]


@pytest.mark.parametrize("text, line, words", [
    ("1 2\n3 zz 4\n", 2, "'zz'"),
    ("1\n\n0x10\n", 3, "'0x10'"),
    ("// ok\n1 100000000\n", 2, "32 bits"),
    ("@10\n", 1, "address"),
])
def test_read_hex_words_errors(tmp_path, text, line, words):
    p = write(tmp_path / "bad.mem", text)
    with pytest.raises(SceneError) as e:
        read_hex_words(p)
    assert str(e.value).startswith(f"{p}:{line}: ") and words in str(e.value)


# --- malformed scene directories --------------------------------------------------------------

@pytest.fixture
def tiny_dir(tmp_path):
    d = tmp_path / "tiny"
    save_scene(tiny_scene(), d)
    return d


def error_of(directory):
    with pytest.raises(SceneError) as e:
        load_scene(directory)
    return str(e.value)


def test_tiny_round_trip(tiny_dir):
    s = load_scene(tiny_dir)
    assert s == tiny_scene()
    assert [s.band_pixel_count(b) for b in range(2)] == [4, 4] and (s.width, s.height) == (4, 2)


@pytest.mark.parametrize("missing", ["Params.mem", "Vertex.mem", "Textures.mem"])
def test_missing_file(tiny_dir, missing):
    (tiny_dir / missing).unlink()
    msg = error_of(tiny_dir)
    assert str(tiny_dir / missing) in msg and "missing" in msg


def test_optional_files(tiny_dir):
    (tiny_dir / "Creg.mem").unlink()
    assert load_scene(tiny_dir).creg is None and load_scene(tiny_dir).user_code is None


def test_non_hex_token_names_line(tiny_dir):
    lines = (tiny_dir / "Vertex.mem").read_text().splitlines()
    lines[7] = "0 g00 0"
    write(tiny_dir / "Vertex.mem", "\n".join(lines))
    assert error_of(tiny_dir).startswith(f"{tiny_dir / 'Vertex.mem'}:8: not a hexadecimal word")


def test_truncated_vertex(tiny_dir):
    words = [w for w, _ in read_hex_words(tiny_dir / "Vertex.mem")]
    write(tiny_dir / "Vertex.mem", "\n".join(f"{w:x}" for w in words[:-2]))
    msg = error_of(tiny_dir)
    assert msg.startswith(f"{tiny_dir / 'Vertex.mem'}:29: truncated")
    assert "1 triangles" in msg and "31 words are expected" in msg and "found 29" in msg


def test_truncated_textures(tiny_dir):
    write(tiny_dir / "Textures.mem", "0 0 0\n0 0 0\n0 0 0\n0 0\n")
    msg = error_of(tiny_dir)
    assert str(tiny_dir / "Textures.mem") in msg and "needs 12 words" in msg and "found 11" in msg


def test_texture_size_not_power_of_two(tiny_dir):
    text = (tiny_dir / "Params.mem").read_text().replace("40000 40000 0\t//TEXTURE_SIZE",
                                                           "60000 60000 0\t//TEXTURE_SIZE")
    write(tiny_dir / "Params.mem", text)
    expected = f"{tiny_dir / 'Params.mem'}:7: TEXTURE_SIZE 3 is not a power of two"
    assert error_of(tiny_dir) == expected


def test_bad_band_count(tiny_dir):
    p = tiny_dir / "Params.mem"
    lines = p.read_text().splitlines()
    write(p, "\n".join(["1b"] + lines[1:]))             # D = 27: 9 words after the config
    msg = error_of(tiny_dir)
    assert msg.startswith(f"{p}:10: 27 data words") and "not whole bands" in msg
    write(p, "\n".join(["12"] + lines[1:]))             # D = 18: no band at all
    assert "at least one band" in error_of(tiny_dir)


def test_params_count_larger_than_words_present(tiny_dir):
    p = tiny_dir / "Params.mem"
    lines = p.read_text().splitlines()
    write(p, "\n".join(["FF"] + lines[1:-2]))           # D too big: one band present, fine
    assert len(load_scene(tiny_dir).bands) == 1


def test_instructions_file(tiny_dir):
    code = list(range(100, 112)) + [0x1234_5678_9ABC_DEF0]
    save_scene(tiny_scene(user_code=code), tiny_dir)
    text = (tiny_dir / "Instructions.mem").read_text().splitlines()
    assert text[0].split()[0] == "26" and "12345678 9ABCDEF0" in text
    assert load_scene(tiny_dir).user_code == code
    write(tiny_dir / "Instructions.mem", "\n".join(text[:-1] + ["12345678"]))
    msg = error_of(tiny_dir)
    assert msg.startswith(f"{tiny_dir / 'Instructions.mem'}:{len(text)}: 25 words")
    assert "even" in msg
    write(tiny_dir / "Instructions.mem", "4\n0 0\n0 0\n")
    assert "entry table needs 12" in error_of(tiny_dir)
    save_scene(tiny_scene(), tiny_dir)                  # no user code: the stale file goes
    assert not (tiny_dir / "Instructions.mem").exists()


def test_save_rejects_bad_scene(tmp_path):
    with pytest.raises(SceneError, match="texture has 3 words, expected 12"):
        save_scene(tiny_scene(texture=[0, 0, 0]), tmp_path / "x")
    with pytest.raises(SceneError, match="not three 32-bit words"):
        save_scene(tiny_scene(aabb=((0, 0, 1 << 32), (0, 0, 0))), tmp_path / "x")
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("name", ["example1", "example3", "shaders"])
def test_original_round_trip(scenes, tmp_path, name):
    save_scene(scenes[name], tmp_path / name)
    again = load_scene(tmp_path / name)
    assert again == scenes[name]


# --- the demo scene ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def demo():
    return demo_scene()


def signed(w):
    return w - (1 << 32) if w & 0x8000_0000 else w


def test_demo_shape(demo):
    assert (demo.width, demo.height, len(demo.bands)) == (128, 128, 4)
    assert 12 <= len(demo.triangles) <= 40
    assert demo.pixel_count == 128 * 128
    assert [demo.band_pixel_count(b) for b in range(4)] == [32 * 128] * 4
    s = demo.texture_size
    assert s & (s - 1) == 0 and len(demo.texture) == 3 * s * s
    assert all(w % 0x200 == 0 and w <= 255 << 9 for w in demo.texture)
    assert len(set(demo.texture)) > 20
    words = [w for row in demo.config for w in row] + [
        w for tri in demo.triangles for row in tri for w in row]
    assert all(0 <= w < 1 << 32 for w in words)
    for tri in demo.triangles:
        for uv in (tri[1], tri[3], tri[5]):
            assert 0 <= uv[0] < ONE and 0 <= uv[1] < ONE
        for v in (tri[0], tri[2], tri[4]):          # every vertex well inside Q14.17 range
            assert all(abs(signed(x)) < 20 * ONE for x in v)
    # odd splits: the last band takes the remainder
    odd = demo_scene(size=30, bands=4)
    assert [odd.band_pixel_count(b) for b in range(4)] == [210, 210, 210, 270]


def test_demo_round_trip(demo, tmp_path):
    save_scene(demo, tmp_path / "demo")
    assert load_scene(tmp_path / "demo") == demo


def float_hits(scene):
    """A tiny float ray caster (Möller–Trumbore over all pixels with numpy): index of the nearest
    triangle per pixel (-1 = miss) and its t, in file order (row 0 = y = 0). Geometry only, to
    check the demo's camera and placement; the bit-exact renderer lives elsewhere."""
    def vec(row):
        return np.array([signed(w) / ONE for w in row])

    cam, wmin, wmax = vec(scene.config[1]), vec(scene.config[2]), vec(scene.config[3])
    w, h = scene.width, scene.height
    ys, xs = np.mgrid[0:h, 0:w]
    scale = (wmax - wmin)[:2] / (w, h)
    r = np.stack([xs * scale[0] + wmin[0], ys * scale[1] + wmin[1], np.zeros_like(xs, float)], -1)
    d = r - cam
    d /= np.linalg.norm(d, axis=-1, keepdims=True)
    best_t = np.full((h, w), np.inf)
    best = np.full((h, w), -1)
    for i, tri in enumerate(scene.triangles):
        v0, v1, v2 = vec(tri[0]), vec(tri[2]), vec(tri[4])
        e1, e2, t_vec = v1 - v0, v2 - v0, cam - v0
        p = np.cross(d, e2)
        delta = p @ e1
        with np.errstate(divide="ignore", invalid="ignore"):
            u = (p @ t_vec) / delta
            q = np.cross(t_vec, e1)
            v = (d @ q) / delta
            t = (q @ e2) / delta
            hit = (u >= 0) & (v >= 0) & (u + v <= 1) & (t < best_t)
        assert np.all(t[hit] > 0), f"triangle {i} is hit behind the camera"
        best_t[hit], best[hit] = t[hit], i
    return best, best_t


def test_demo_picture(demo):
    assert all(signed(tri[k][2]) < signed(demo.config[1][2])
               for tri in demo.triangles for k in (0, 2, 4))        # all in front (z < camera)
    best, _ = float_hits(demo)
    assert (best >= 0).all(), "every pixel sees something (no red background)"
    # objects by triangle index: sky 0-1, floor 2-3, big cube 4-13, pyramid 14-17, small cube 18-27
    objects = {"sky": range(0, 2), "floor": range(2, 4), "cube": range(4, 14),
               "pyramid": range(14, 18), "small cube": range(18, 28)}
    assert len(demo.triangles) == 28
    for name, ids in objects.items():
        assert np.isin(best, list(ids)).sum() > 150, name
    assert np.isin(best[-1], objects["sky"]).all()          # top row (y max): sky
    assert np.isin(best[0], objects["floor"]).all()         # bottom row: floor
    assert best[64, 44] in objects["cube"]
    assert CAMERA[2] > 0


@pytest.mark.parametrize("name, background, most", [
    ("example3", [(255, 0, 0), (0, 0, 0)], 10),      # the original RTL: red background
    ("example1", [(0, 0, 0)], 300),                  # software renderer, black background
])
def test_float_caster_matches_reference_silhouettes(scenes, scenes_dir, name, background, most):
    """The conventions the demo scene relies on (window in z = 0, pixel (col, row) -> row 0 = y min,
    file order) reproduce the originals' silhouettes."""
    from sim.image import hit_mask, read_ppm
    best, _ = float_hits(scenes[name])
    reference = hit_mask(read_ppm(scenes_dir / name / "Reference.ppm"), background)
    assert ((best >= 0) != reference).sum() <= most


def test_demo_lit_is_the_demo_with_an_r500_program():
    """``demo-lit``: the demo's geometry, every face on its brightest tiles (no baked
    lighting), shaded by lit.frag; the plain demo carries no program."""
    from sim.scene_loader import load_any_scene
    lit, plain = load_any_scene("demo-lit"), load_any_scene("demo")
    assert plain.shader is None
    assert lit.name == "demo-lit" and lit.shader.source.endswith("r500_shaders/lit.frag")
    assert sorted(lit.shader.constants) == [0, 1, 2, 3]
    positions = [[tri[i] for i in (0, 2, 4)] for tri in lit.triangles]
    assert positions == [[tri[i] for i in (0, 2, 4)] for tri in plain.triangles]
    assert lit.triangles != plain.triangles            # some faces' UVs move to level 0
    assert lit.texture == plain.texture
