"""A runner for piglit's ``shader_test`` files on the R500 fragment stage (docs/shader-test.md).

    python -m sim.shader_test FILE.shader_test … [--engine model|rtl] [--compare] [--json]

``parse`` reads a file's sections and [require]; ``shaders`` checks the vertex shader (only
gl_Position = the vertex) and what the fragment shader reads; ``commands`` reads the [test]
commands; ``compile`` runs the GLSL compiler (``firmware.glsl``); ``uniforms`` and ``textures``
turn uniform and texture commands into constants, samplers and texture memory; ``window``
places rectangles, stores UNORM8 values and compares probes; ``engines`` runs quads on the
model or the RTL core, batched; ``evaluate`` runs a file.

    from sim.shader_test import run_test, make_engine
    outcome = run_test("test.shader_test", make_engine("model"))   # .result, .reason
"""

from sim.shader_test.engines import make_engine
from sim.shader_test.errors import ShaderTestError
from sim.shader_test.evaluate import Outcome, run_test

__all__ = ["run_test", "make_engine", "Outcome", "ShaderTestError"]
