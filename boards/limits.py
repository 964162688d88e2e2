"""What a board build of the GPU can hold, and the check that a scene fits it exactly.

The board stores texture words and output words in 8 bits (hdl/gpu/narrow_store.py): a texture
word must be an 8-bit colour << 9 (theia-system.md §1 Textures.mem), and the board keeps
min(255, w >> 9) of each output word, which is all the image needs (sim.image.word_to_u8).
"""

from dataclasses import dataclass

from hdl.isa import NUM_ENTRIES

__all__ = ["BoardLimits", "ULX3S_85F_LIMITS", "SceneDoesNotFit", "check_scene_fits",
           "TEXTURE_SHIFT", "TEXTURE_MAX"]

TEXTURE_SHIFT = 9
TEXTURE_MAX = 0xFF << TEXTURE_SHIFT


class SceneDoesNotFit(ValueError):
    """A scene the board cannot hold exactly; str() says which limit and by how much."""


@dataclass(frozen=True)
class BoardLimits:
    max_triangles: int = 128          # example3 has 118
    tmem_words: int = 3 * 256 * 256   # a 256x256 texture, 8 bits per word
    omem_words: int = 3 * 200 * 200   # a 200x200 image, 8 bits per word (converted)
    max_bands: int = 32
    user_words: int = 64              # user code incl. the 12-word entry table (LUT RAM)

    def gpu_params(self):
        return {"max_triangles": self.max_triangles, "tmem_words": self.tmem_words,
                "omem_words": self.omem_words, "max_bands": self.max_bands,
                "user_words": self.user_words}


ULX3S_85F_LIMITS = BoardLimits()


def check_scene_fits(scene, limits):
    """Raise SceneDoesNotFit unless ``limits`` hold ``scene`` exactly."""
    name = scene.name

    def fail(problem):
        raise SceneDoesNotFit(f"{name}: {problem}")

    if len(scene.triangles) > limits.max_triangles:
        fail(f"{len(scene.triangles)} triangles, the board holds {limits.max_triangles}")
    if len(scene.bands) > limits.max_bands:
        fail(f"{len(scene.bands)} bands, the board's band table holds {limits.max_bands}")
    if len(scene.texture) > limits.tmem_words:
        fail(f"texture of {len(scene.texture)} words ({scene.texture_size}x{scene.texture_size}),"
             f" the board holds {limits.tmem_words}")
    for i, word in enumerate(scene.texture):
        if word & ((1 << TEXTURE_SHIFT) - 1) or word > TEXTURE_MAX:
            fail(f"Textures.mem word {i} (texel {i // 3}) is {word:#x}: the board stores 8-bit "
                 f"colours, so a texture word must be a multiple of 0x200 up to {TEXTURE_MAX:#x}")
    need = 3 * scene.pixel_count
    if need > limits.omem_words:
        fail(f"{scene.pixel_count} pixels ({scene.width}x{scene.height}) need {need} output "
             f"words, the board holds {limits.omem_words}")
    if scene.user_code is not None and len(scene.user_code) > limits.user_words:
        fail(f"{len(scene.user_code)} instruction words ({NUM_ENTRIES} entries + "
             f"{len(scene.user_code) - NUM_ENTRIES} code), the board holds {limits.user_words}")
