"""Output images (theia-system.md §4): word conversion, PPM/PNG files, comparison helpers."""


import numpy as np
import pytest
from PIL import Image

from sim.image import (ImageError, compare_images, hit_mask, read_png, read_ppm, word_to_u8,
                       words_to_rgb, write_image, write_png, write_ppm)



def raw_values(path):
    """All numbers after the magic, ignoring comments: header (3) + raster + anything after."""
    tokens = []
    for line in path.read_text().splitlines():
        tokens += line.split("#", 1)[0].split()
    return tokens[1:]


@pytest.mark.parametrize("word, value", [
    (0, 0), (0x1FF, 0), (0x200, 1), (0x1FE00, 255), (0x1FFFF, 255), (0x20000, 255),
    (0x7FFFFFFF, 255), (0x80000000, 255), (0xFFFFFFFF, 255), (0x6C00, 0x36),
])
def test_word_to_u8(word, value):
    assert word_to_u8(word) == value


def test_words_to_rgb_file_order():
    words = [0x200 * i for i in range(18)] + [0xDEAD]       # extra word ignored
    rgb = words_to_rgb(words, 3, 2)
    assert rgb.shape == (2, 3, 3) and rgb.dtype == np.uint8
    assert rgb[0, 0].tolist() == [0, 1, 2]                   # first pixel written = row 0
    assert rgb[0, 2].tolist() == [6, 7, 8]
    assert rgb[1, 0].tolist() == [9, 10, 11]
    assert words_to_rgb([0xFFFFFFFF, 0x80000000, 0x1FE00], 1, 1).tolist() == [[[255, 255, 255]]]
    with pytest.raises(ImageError, match="need 18"):
        words_to_rgb(words[:17], 3, 2)


def test_read_reference_example3(scenes_dir):
    path = scenes_dir / "example3" / "Reference.ppm"
    rgb = read_ppm(path)
    assert rgb.shape == (160, 160, 3) and rgb.size == 76_800
    assert len(raw_values(path)) == 3 + 76_800
    # first pixel of every band is black (INITIAL), the background after it red (NPG)
    assert rgb[0, 0].tolist() == [0, 0, 0] and rgb[0, 1].tolist() == [255, 0, 0]
    assert rgb[20, 0].tolist() == [0, 0, 0]
    assert (rgb[:, :, 0] == 255).sum() > 1000


def test_read_reference_with_stray_value(scenes_dir):
    path = scenes_dir / "shaders" / "Reference.ppm"
    assert len(raw_values(path)) == 3 + 200 * 200 * 3 + 1  # one value after the raster
    rgb = read_ppm(path)
    assert rgb.shape == (200, 200, 3)
    values = [int(t) for t in raw_values(path)[3:3 + 120_000]]
    assert rgb.reshape(-1).tolist() == values


def test_read_reference_example1(scenes_dir):
    rgb = read_ppm(scenes_dir / "example1" / "Reference.ppm")
    assert rgb.shape == (200, 200, 3)
    hits = hit_mask(rgb, (0, 0, 0))
    assert 14_000 < hits.sum() < 20_000                      # two textured triangles


def test_read_ppm_tolerant(tmp_path):
    p = tmp_path / "x.ppm"
    p.write_bytes(b"P3\r\n# made by hand\r\n2 # width\r\n 1\r\n255\r\n1 2\r\n# inside\r\n3 4 5 6"
                  b"\r\n7 8\r\n")
    assert read_ppm(p).tolist() == [[[1, 2, 3], [4, 5, 6]]]
    p.write_text("P3 2 1 255 1 2 3 4 5\n")
    with pytest.raises(ImageError, match="5 values, a 2x1 image needs 6"):
        read_ppm(p)
    p.write_text("P3 1 1 255 1 2 300\n")
    with pytest.raises(ImageError, match="outside 0..255"):
        read_ppm(p)
    p.write_text("P3 1 1 255 1 x 3\n")
    with pytest.raises(ImageError, match=str(p)):
        read_ppm(p)
    p.write_text("P5 1 1 255\n")
    with pytest.raises(ImageError, match="not a PPM"):
        read_ppm(p)


def test_ppm_round_trip(tmp_path):
    rng = np.random.default_rng(1)
    rgb = rng.integers(0, 256, size=(7, 5, 3), dtype=np.uint8)
    write_ppm(tmp_path / "a.ppm", rgb, comment="scene test")
    text = (tmp_path / "a.ppm").read_text().splitlines()
    assert text[0] == "P3" and text[1].startswith("#") and "5 7" in text and "255" in text
    assert text[-1] == " ".join(map(str, rgb[-1, -1]))      # rows in array (file) order
    assert np.array_equal(read_ppm(tmp_path / "a.ppm"), rgb)
    write_image(tmp_path / "b.PPM", rgb)
    assert np.array_equal(read_ppm(tmp_path / "b.PPM"), rgb)


def test_reference_rewrite_is_identical(tmp_path, scenes_dir):
    ref = read_ppm(scenes_dir / "example3" / "Reference.ppm")
    write_ppm(tmp_path / "r.ppm", ref)
    assert compare_images(read_ppm(tmp_path / "r.ppm"), ref)["differing"] == 0


def test_p6_read(tmp_path):
    rgb = np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3)
    Image.fromarray(rgb, "RGB").save(tmp_path / "p6.ppm")        # Pillow writes binary P6
    assert np.array_equal(read_ppm(tmp_path / "p6.ppm"), rgb)


def test_png_is_flipped_upright(tmp_path):
    rgb = np.zeros((4, 3, 3), dtype=np.uint8)
    rgb[0] = (255, 0, 0)                 # row 0 = y = 0 = bottom of the window
    rgb[3] = (0, 0, 255)
    write_image(tmp_path / "a.png", rgb)
    with Image.open(tmp_path / "a.png") as im:
        assert im.size == (3, 4)
        assert im.getpixel((0, 3)) == (255, 0, 0)            # bottom row of the picture
        assert im.getpixel((0, 0)) == (0, 0, 255)
    assert np.array_equal(read_png(tmp_path / "a.png"), rgb)


def test_write_image_rejects_unknown(tmp_path):
    rgb = np.zeros((1, 1, 3), dtype=np.uint8)
    with pytest.raises(ImageError, match=r"unknown image type '\.jpg'"):
        write_image(tmp_path / "a.jpg", rgb)
    with pytest.raises(ImageError, match="shape"):
        write_png(tmp_path / "a.png", np.zeros((2, 2)))


def test_compare_images():
    a = np.zeros((2, 2, 3), dtype=np.uint8)
    b = a.copy()
    b[0, 0] = (1, 0, 0)
    b[1, 1] = (0, 0, 120)
    c = compare_images(a, b)
    assert c == {"values": 12, "identical": 10, "differing": 2, "within_1": 11, "within_3": 11,
                 "max_abs_diff": 120, "pixels": 4, "pixels_identical": 2}
    assert compare_images(a, a)["differing"] == 0
    with pytest.raises(ImageError, match="shapes differ"):
        compare_images(a, np.zeros((2, 3, 3), dtype=np.uint8))


def test_hit_mask():
    rgb = np.array([[[255, 0, 0], [0, 0, 0], [10, 20, 30], [255, 0, 1]]], dtype=np.uint8)
    assert hit_mask(rgb, (255, 0, 0)).tolist() == [[False, True, True, True]]
    assert hit_mask(rgb, [(255, 0, 0), (0, 0, 0)]).tolist() == [[False, False, True, True]]
