"""Scene directories in the original THEIA "theia-2010" format (theia-system.md §1).

A scene is five text files of hexadecimal words (Verilog `$readmemh` syntax): Params.mem
(configuration rows and one pair of position rows per band), Vertex.mem (a legacy bounding-box node
and the triangles), Textures.mem (R G B words per texel), Creg.mem (one enable word, which the
original ignored) and, optionally, Instructions.mem (entry table and user code).

Every value in a `Scene` is a 32-bit word exactly as it appears in the files (Q14.17 for
coordinates, two's complement for negatives), so a scene read and written again is unchanged.

A ``Scene`` is a value: a loader returns it complete, and a change is a new scene
(``dataclasses.replace``). Tools load scenes with ``sim.scene_loader.load_any_scene``.
"""

from dataclasses import dataclass
from pathlib import Path

from hdl.isa import SCALE, ONE, MASK32, NUM_ENTRIES

__all__ = [
    "SceneError", "Scene", "load_scene", "save_scene",
    "read_hex_words",
    "CONFIG_ROW_NAMES", "TRIANGLE_ROW_NAMES", "TRIANGLE_WORDS", "LEGACY_NODE_WORDS",
]

CONFIG_ROW_NAMES = ("LIGHT_INFO", "CAMERA_POSITION", "PROJECTION_WINDOW_MIN",
                    "PROJECTION_WINDOW_MAX", "RESOLUTION", "TEXTURE_SIZE")
TRIANGLE_ROW_NAMES = ("V0", "UV0", "V1", "UV1", "V2", "UV2", "DIFFUSE")
CONFIG_WORDS = 3 * len(CONFIG_ROW_NAMES)          # 18
BAND_WORDS = 6                                    # two rows of three words
TRIANGLE_WORDS = 3 * len(TRIANGLE_ROW_NAMES)      # 21
LEGACY_NODE_WORDS = 10
#: words 7-9 of the legacy node as the original tools wrote them ("offset to data" = 10.0, then
#: two null links); nothing reads them
LEGACY_NODE_TAIL = (0x140000, 0, 0)
#: Creg.mem bits (the original's names); written by save_scene when a scene has no Creg word
CREG_EN_LIGHTS, CREG_EN_TEXTURE, CREG_EN_USER_CODE = 1, 2, 4

PARAMS, VERTEX, TEXTURES, CREG, INSTRUCTIONS = (
    "Params.mem", "Vertex.mem", "Textures.mem", "Creg.mem", "Instructions.mem")


class SceneError(Exception):
    """A scene file that cannot be used; str() is "path:line: problem" or "path: problem"."""

    def __init__(self, path, problem, line=None):
        self.path = str(path)
        self.line = line
        self.problem = problem
        where = self.path if line is None else f"{self.path}:{line}"
        super().__init__(f"{where}: {problem}")


Row = tuple[int, int, int]


def _signed(word):
    return word - (1 << 32) if word & 0x8000_0000 else word


def _ceil_div(a, b):
    return -((-a) // b)


@dataclass(frozen=True)
class Scene:
    name: str
    config: list[Row]
    bands: list[tuple[Row, Row]]
    aabb: tuple[Row, Row]
    triangles: list[tuple[Row, Row, Row, Row, Row, Row, Row]]
    texture: list[int]
    texture_size: int
    user_code: list[int] | None = None
    creg: int | None = None
    #: an R500 fragment program that shades the hits in place of PIXELSHADER
    #: (sim.r500.shading.R500Shading; r500-us.md §4.2); a scene directory cannot hold one
    shader: "R500Shading | None" = None

    @property
    def width(self):
        return self.config[4][0] >> SCALE

    @property
    def height(self):
        return self.config[4][1] >> SCALE

    @property
    def camera(self):
        return self.config[1]

    def band_pixel_count(self, band_index):
        """Pixels NPG walks in the band (theia-system.md §3 NPG), worked out from the same signed
        comparisons, so it is right for any start/end positions, not only whole rows: the first
        pixel is always rendered; a row ends at the first x >= FINAL.x - 1.0; the band ends when y
        reaches FINAL.y."""
        (x0, y0, _), (fx, fy, _) = self.bands[band_index]
        x0, y0, fx, fy = map(_signed, (x0, y0, fx, fy))
        last_col = fx - ONE

        def row_pixels(x):
            return 1 if x >= last_col else _ceil_div(last_col - x, ONE) + 1

        rows_after_first = max(0, _ceil_div(fy - y0, ONE) - 1)
        return row_pixels(x0) + rows_after_first * row_pixels(0)

    def band_output_base(self, band_index):
        """Word offset of the band's buffer in output memory: the bands' buffers follow each
        other in band order, three words per pixel."""
        return 3 * sum(self.band_pixel_count(b) for b in range(band_index))

    @property
    def pixel_count(self):
        return sum(self.band_pixel_count(b) for b in range(len(self.bands)))


# ---------------------------------------------------------------------------------------------
# reading

def read_hex_words(path):
    """Every hexadecimal word of a `$readmemh`-style text file as (value, line number).

    `//` starts a comment to the end of the line; blank lines, tabs and CRLF are fine; `_` inside
    a number is a digit separator as in Verilog. A token that is not hex, or a value wider than
    32 bits, is a SceneError naming path:line.
    """
    path = Path(path)
    try:
        text = path.read_bytes().decode("ascii", errors="replace")
    except FileNotFoundError:
        raise SceneError(path, "file not found") from None
    except OSError as e:
        raise SceneError(path, f"cannot read: {e.strerror}") from None
    words = []
    # splitlines() also treats a lone CR as a line end; the originals use LF and CRLF
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.split("//", 1)[0]
        for token in line.split():
            digits = token.replace("_", "")
            if not digits or token.startswith("_") or any(
                    c not in "0123456789abcdefABCDEF" for c in digits):
                hint = ""
                if token.startswith("@"):
                    hint = " (address directives are not supported)"
                elif token.startswith("/*"):
                    hint = " (only // comments are supported)"
                raise SceneError(path, f"not a hexadecimal word: {token!r}{hint}", number)
            value = int(digits, 16)
            if value > MASK32:
                raise SceneError(path, f"value {token} does not fit in 32 bits", number)
            words.append((value, number))
    return words


def _rows(words, count):
    """`count` rows of three words from a flat list of (value, line)."""
    return [tuple(w for w, _ in words[3 * i:3 * i + 3]) for i in range(count)]


def _last_line(words):
    return words[-1][1] if words else None


def _load_params(path):
    words = read_hex_words(path)
    if not words:
        raise SceneError(path, "empty: expected the data word count D as the first word")
    declared, count_line = words[0]
    data = words[1:1 + declared]         # min(D, words present); words after D are ignored
    if len(data) < CONFIG_WORDS + BAND_WORDS:
        raise SceneError(
            path, f"{len(data)} data words (count word says {declared:#x}, {len(data)} present): "
            f"need {CONFIG_WORDS} configuration words and at least one band of {BAND_WORDS}",
            _last_line(data) or count_line)
    if (len(data) - CONFIG_WORDS) % BAND_WORDS:
        raise SceneError(
            path, f"{len(data)} data words: {len(data) - CONFIG_WORDS} words after the "
            f"{CONFIG_WORDS} configuration words are not whole bands of {BAND_WORDS} "
            f"(two rows x, y, z)", _last_line(data))
    config = _rows(data, len(CONFIG_ROW_NAMES))
    band_rows = _rows(data[CONFIG_WORDS:], (len(data) - CONFIG_WORDS) // 3)
    bands = [(band_rows[i], band_rows[i + 1]) for i in range(0, len(band_rows), 2)]

    def check_whole(row_index, what):
        value_words = data[3 * row_index:3 * row_index + 2]
        for word, line in value_words:
            if word & (ONE - 1) or _signed(word) <= 0:
                raise SceneError(path, f"{what} must be positive whole numbers x 1.0 "
                                 f"(Q14.17, e.g. 1900000 = 200), got {word:x}", line)

    check_whole(4, "RESOLUTION width and height")
    check_whole(5, "TEXTURE_SIZE")
    return config, bands, data


def _load_vertex(path):
    words = read_hex_words(path)
    if len(words) < LEGACY_NODE_WORDS:
        raise SceneError(path, f"truncated: expected {LEGACY_NODE_WORDS} header words "
                         f"(AABBMIN, AABBMAX, triangle count, 3 unused), found {len(words)}")
    count = words[6][0] & 0xFFFF
    expected = LEGACY_NODE_WORDS + TRIANGLE_WORDS * count
    if len(words) < expected:
        raise SceneError(
            path, f"truncated: word 6 says {count} triangles, so {expected} words are expected "
            f"({LEGACY_NODE_WORDS} + {TRIANGLE_WORDS} x {count}), found {len(words)}",
            _last_line(words))
    aabb = tuple(_rows(words, 2))
    flat = _rows(words[LEGACY_NODE_WORDS:expected], 7 * count)
    triangles = [tuple(flat[7 * t:7 * t + 7]) for t in range(count)]
    return aabb, triangles


def _load_textures(path, size, size_line):
    words = read_hex_words(path)
    expected = size * size * 3
    if len(words) < expected:
        raise SceneError(path, f"truncated: a {size}x{size} texture (TEXTURE_SIZE, {size_line}) "
                         f"needs {expected} words (R G B per texel), found {len(words)}",
                         _last_line(words))
    return [w for w, _ in words[:expected]]


def _load_instructions(path):
    words = read_hex_words(path)
    if not words:
        raise SceneError(path, "empty: expected a count word, then hi lo pairs")
    pairs = words[1:]                    # word 0 is a count the original wrote in decimal: ignored
    if len(pairs) % 2:
        raise SceneError(path, f"{len(pairs)} words after the count: instructions are hi lo "
                         f"pairs, so the number must be even (last word unpaired)",
                         _last_line(pairs))
    if len(pairs) < 2 * NUM_ENTRIES:
        raise SceneError(path, f"the entry table needs {NUM_ENTRIES} hi lo pairs "
                         f"({2 * NUM_ENTRIES} words), found {len(pairs)} words",
                         _last_line(words))
    return [(pairs[i][0] << 32) | pairs[i + 1][0] for i in range(0, len(pairs), 2)]


def _load_creg(path):
    words = read_hex_words(path)
    if not words:
        return None
    if len(words) > 1:
        raise SceneError(path, f"expected one enable word, found {len(words)}", words[1][1])
    return words[0][0]


def load_scene(directory):
    """Read a theia-2010 scene directory. Missing, truncated or malformed files raise SceneError
    with the file (and line) at fault."""
    directory = Path(directory)
    if not directory.is_dir():
        raise SceneError(directory, "not a scene directory")
    for required in (PARAMS, VERTEX, TEXTURES):
        if not (directory / required).is_file():
            raise SceneError(directory / required, "required scene file is missing")

    params_path = directory / PARAMS
    config, bands, params_words = _load_params(params_path)
    size_word, size_line = params_words[15]
    size = size_word >> SCALE
    where = f"{params_path.name}:{size_line}"
    if size & (size - 1):
        raise SceneError(params_path, f"TEXTURE_SIZE {size} is not a power of two", size_line)
    if config[5][1] != config[5][0]:
        raise SceneError(params_path, f"TEXTURE_SIZE {size}x{config[5][1] >> SCALE} is not square "
                         f"(the firmware addresses only square textures)", size_line)
    aabb, triangles = _load_vertex(directory / VERTEX)
    texture = _load_textures(directory / TEXTURES, size, where)
    user_code = None
    if (directory / INSTRUCTIONS).is_file():
        user_code = _load_instructions(directory / INSTRUCTIONS)
    creg = _load_creg(directory / CREG) if (directory / CREG).is_file() else None
    return Scene(name=directory.name, config=config, bands=bands, aabb=aabb, triangles=triangles,
                 texture=texture, texture_size=size, user_code=user_code, creg=creg)


# ---------------------------------------------------------------------------------------------
# writing

def _row_text(row):
    return " ".join(f"{w & MASK32:x}" for w in row)


def _check_scene(scene):
    """Shape checks before anything is written, so a bad Scene never leaves half a directory."""
    def fail(problem):
        raise SceneError(scene.name, problem)

    if len(scene.config) != len(CONFIG_ROW_NAMES):
        fail(f"config has {len(scene.config)} rows, expected {len(CONFIG_ROW_NAMES)}")
    if not scene.bands:
        fail("no bands")
    rows = list(scene.config) + [r for band in scene.bands for r in band] + list(scene.aabb)
    rows += [r for tri in scene.triangles for r in tri]
    for row in rows:
        if len(row) != 3 or any(not 0 <= w <= MASK32 for w in row):
            fail(f"row {row!r} is not three 32-bit words")
    for t, tri in enumerate(scene.triangles):
        if len(tri) != len(TRIANGLE_ROW_NAMES):
            fail(f"triangle {t} has {len(tri)} rows, expected {len(TRIANGLE_ROW_NAMES)}")
    if len(scene.triangles) > 0xFFFF:
        fail(f"{len(scene.triangles)} triangles: the count field is 16 bits")
    expected = 3 * scene.texture_size ** 2
    if len(scene.texture) != expected:
        fail(f"texture has {len(scene.texture)} words, expected {expected} for size "
             f"{scene.texture_size}")
    if any(not 0 <= w <= MASK32 for w in scene.texture):
        fail("texture word out of 32-bit range")
    if scene.user_code is not None:
        if len(scene.user_code) < NUM_ENTRIES:
            fail(f"user_code has {len(scene.user_code)} words: the entry table alone needs "
                 f"{NUM_ENTRIES}")
        if any(not 0 <= w < 1 << 64 for w in scene.user_code):
            fail("user_code word out of 64-bit range")


def save_scene(scene, directory):
    """Write the scene as a theia-2010 directory in the original layout (commented rows, one
    texel per line). Instructions.mem is written when the scene has user code and removed when it
    has none, so the directory always reads back as this scene. A scene without a Creg word gets
    the enable bits the original tools used: texture, plus user code when there is some."""
    _check_scene(scene)
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)

    data_words = CONFIG_WORDS + BAND_WORDS * len(scene.bands)
    lines = [f"{data_words:X}\t//data word count D (hex): {len(scene.bands)} bands"]
    for name, row in zip(CONFIG_ROW_NAMES, scene.config):
        lines.append(f"{_row_text(row)}\t//{name}")
    for b, (start, end) in enumerate(scene.bands):
        lines.append(f"{_row_text(start)}\t//band {b} PIXEL_2D_INITIAL_POSITION")
        lines.append(f"{_row_text(end)}\t//band {b} PIXEL_2D_FINAL_POSITION")
    _write_lines(directory / PARAMS, lines)

    lines = ["//Root node (legacy, unused): AABBMIN, AABBMAX",
             _row_text(scene.aabb[0]), _row_text(scene.aabb[1]),
             "//triangle count (low 16 bits)", f"{len(scene.triangles):x}",
             "//unused: offset to data, next brother, parent's brother",
             *(f"{w:x}" for w in LEGACY_NODE_TAIL)]
    for t, tri in enumerate(scene.triangles):
        lines.append(f"//Triangle {t}: V0 UV0 V1 UV1 V2 UV2 DIFFUSE")
        lines += [_row_text(row) for row in tri]
    _write_lines(directory / VERTEX, lines)

    tex = scene.texture
    _write_lines(directory / TEXTURES,
                 (f"{tex[i]:x} {tex[i + 1]:x} {tex[i + 2]:x}" for i in range(0, len(tex), 3)))

    creg = scene.creg
    if creg is None:
        creg = CREG_EN_TEXTURE | (CREG_EN_USER_CODE if scene.user_code else 0)
    _write_lines(directory / CREG, ["//enable bits: b0 lights, b1 texture, b2 user code "
                                    "(ignored by the GPU)", f"{creg:x}"])

    instructions = directory / INSTRUCTIONS
    if scene.user_code is None:
        instructions.unlink(missing_ok=True)
    else:
        code = scene.user_code
        # the count line is decimal, as the original tool wrote it (the loader ignores it)
        lines = [f"{2 * len(code)}\t//number of words that follow", "//entry point table"]
        lines += [f"{w >> 32:08X} {w & MASK32:08X}" for w in code[:NUM_ENTRIES]]
        lines.append("//user code")
        lines += [f"{w >> 32:08X} {w & MASK32:08X}" for w in code[NUM_ENTRIES:]]
        _write_lines(instructions, lines)


def _write_lines(path, lines):
    with open(path, "w", newline="\n") as f:
        for line in lines:
            f.write(line)
            f.write("\n")
