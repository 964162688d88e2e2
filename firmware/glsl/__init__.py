"""A GLSL 1.10/1.20 fragment-shader compiler for the R500 core (docs/glsl.md)."""

from firmware.glsl.compiler import Compiled, Limits, compile_glsl
from firmware.glsl.errors import GlslError

__all__ = ["compile_glsl", "GlslError", "Limits", "Compiled"]
