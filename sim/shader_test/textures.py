"""piglit's test textures on the R500's samplers (r500-us.md §3.5).

``texture rgbw UNIT (W, H)`` is piglit's red/green/blue/white quadrant image (red at texel
(0, 0), the bottom left; alpha 1.0), NEAREST, CLAMP_TO_EDGE; ``texture checkerboard UNIT 0
(W, H) (rgba) (rgba)`` its checkerboard of W/2 × H/2 squares ((0, 0) the first colour), NEAREST,
CLAMP_TO_BORDER. Each texel is what a GL_RGBA8 texture holds, v = round(c · 255) / 255, stored
in the texture memory as THEIA's Q14.17 word round(v · 2^17) (within 2^-18 of v).

An R500 sampler has one filter and one wrap mode, no mipmaps and no alpha (its texels' alpha is
1.0), and the texture memory of the RTL job top holds 65,536 words. So: the MIN and MAG filters
must agree and be NEAREST or LINEAR, WRAP_S and WRAP_T must agree (REPEAT, or CLAMP_TO_EDGE /
CLAMP / CLAMP_TO_BORDER, all sampled as clamp-to-edge: a coordinate outside [0, 1] of a
checkerboard gets its edge texel, not the red border), sizes must be powers of two, and a
draw's textures must fit the memory; anything else is a skip. A texture whose alpha is not 1.0
is sampled with alpha 1.0: a test that reads that alpha can fail (its reason says so). A
sampler whose unit holds no texture samples GL's incomplete texture, (0, 0, 0, 1).
"""

from dataclasses import dataclass, field, replace

from sim.r500.tex import Sampler
from sim.shader_test.errors import ShaderTestError, Skip

__all__ = ["TEXTURE_WORDS", "Texture", "Textures", "make_texture"]

#: the texture memory of the RTL job top (sim.r500.rtl.TEXTURE_WORDS; a test checks they agree)
TEXTURE_WORDS = 1 << 16
_FILTERS = {"nearest": "nearest", "linear": "bilinear"}
_WRAPS = {"repeat": "repeat", "clamp_to_edge": "clamp", "clamp": "clamp",
          "clamp_to_border": "clamp"}
_RGBW = ((1.0, 0.0, 0.0, 1.0), (0.0, 1.0, 0.0, 1.0), (0.0, 0.0, 1.0, 1.0), (1.0, 1.0, 1.0, 1.0))


def _unorm8(value):
    return round(min(max(value, 0.0), 1.0) * 255) / 255


def _q17(value):
    return round(value * (1 << 17))


@dataclass(frozen=True)
class Texture:
    width: int
    height: int
    texels: tuple                       # per texel, row by row from the bottom: (r, g, b, a)
    min_filter: str = "nearest"
    mag_filter: str = "nearest"
    wrap_s: str = "clamp_to_edge"
    wrap_t: str = "clamp_to_edge"

    @property
    def has_alpha(self):
        """Whether some texel's alpha is not 1.0 (the R500 samples 1.0)."""
        return any(t[3] != 1.0 for t in self.texels)

    def words(self):
        return [_q17(channel) for texel in self.texels for channel in texel[:3]]

    def sampler(self, base):
        """The R500 sampler of this texture at word ``base``; Skip for a setup it cannot
        sample."""
        for size in (self.width, self.height):
            if size & (size - 1):
                raise Skip(f"a {self.width}x{self.height} texture (sizes are powers of two)")
        if self.min_filter != self.mag_filter:
            raise Skip(f"texture filters min {self.min_filter}, mag {self.mag_filter} "
                       f"(one filter for both)")
        if self.min_filter not in _FILTERS:
            raise Skip(f"texture filter {self.min_filter} (no mipmaps)")
        if self.wrap_s != self.wrap_t or self.wrap_s not in _WRAPS:
            raise Skip(f"texture wrap s {self.wrap_s}, t {self.wrap_t}")
        return Sampler(base, self.width, self.height, _FILTERS[self.min_filter],
                       _WRAPS[self.wrap_s])


#: what a sampler reads where its unit holds no texture
INCOMPLETE = Texture(1, 1, ((0.0, 0.0, 0.0, 1.0),))


def make_texture(command):
    """The Texture of a TextureImage command."""
    width, height = command.size
    if not (0 < width <= 4096 and 0 < height <= 4096):
        raise Skip(f"a {width}x{height} texture")
    texels = []
    for y in range(height):
        for x in range(width):
            if command.kind == "rgbw":
                colour = _RGBW[(x >= width // 2) + 2 * (y >= height // 2)]
            else:
                square = (y // max(height // 2, 1)) ^ (x // max(width // 2, 1))
                colour = command.colours[square & 1]
            texels.append(tuple(_unorm8(c) for c in colour))
    wrap = "clamp_to_edge" if command.kind == "rgbw" else "clamp_to_border"
    return Texture(width, height, tuple(texels), wrap_s=wrap, wrap_t=wrap)


_PARAMETERS = {"min": "min_filter", "mag": "mag_filter", "wrap_s": "wrap_s", "wrap_t": "wrap_t"}
_IGNORED = ("lod_bias", "max_level")        # no effect on a texture of one level


@dataclass
class Textures:
    """The texture units, and the unit ``texparameter`` acts on (the last one a texture
    command bound)."""
    units: dict = field(default_factory=dict)
    active: int = 0

    def bind(self, command):
        self.units[command.unit] = make_texture(command)
        self.active = command.unit

    def parameter(self, command, path):
        if command.target != "2D":
            raise Skip(f"texparameter {command.target} (2D textures only)")
        name, value = command.name, command.value.lower()
        if name in _IGNORED or (name == "base_level" and value == "0"):
            return
        if name not in _PARAMETERS:
            raise Skip(f"texparameter {name}")
        texture = self.units.get(self.active)
        if texture is None:
            raise ShaderTestError(path, command.line, "texparameter with no texture bound")
        self.units[self.active] = replace(texture, **{_PARAMETERS[name]: value})

    def layout(self, sampler_units):
        """(samplers {TEX_ID: Sampler}, texture words, whether a texture has alpha other than
        1.0) for a draw whose samplers read ``sampler_units`` ({TEX_ID: unit})."""
        samplers, words, placed, alpha = {}, [], {}, False
        for tex_id, unit in sorted(sampler_units.items()):
            texture = self.units.get(unit, INCOMPLETE)
            if unit not in placed:
                placed[unit] = len(words)
                words += texture.words()
            samplers[tex_id] = texture.sampler(placed[unit])
            alpha |= texture.has_alpha
        if len(words) > TEXTURE_WORDS:
            raise Skip(f"the textures need {len(words)} words; the texture memory holds "
                       f"{TEXTURE_WORDS}")
        return samplers, words, alpha
