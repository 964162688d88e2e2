"""Writing small shader_test files for the runner's tests, and running them with the stand-in
compiler."""

from sim.shader_test import make_engine, run_test
from tests.sim.shader_test.fake_glsl import COMPILER

__all__ = ["COLOUR_SHADER", "POSITION_SHADER", "shader_test", "write_test", "run", "line_of"]

COLOUR_SHADER = "uniform vec4 color;\nvoid main() { gl_FragColor = color; }\n"
POSITION_SHADER = "void main() { gl_FragColor = vec4(gl_FragCoord.xy / 250.0, 0.0, 1.0); }\n"
_MODEL = make_engine("model")


def shader_test(test, fragment=COLOUR_SHADER, require="GLSL >= 1.10",
                vertex="[vertex shader passthrough]\n"):
    """The text of a shader_test file: [require], the vertex part, [fragment shader], [test]."""
    return (f"[require]\n{require}\n\n{vertex}\n[fragment shader]\n{fragment}\n"
            f"[test]\n{test}")


def write_test(tmp_path, test, name="t.shader_test", **parts):
    path = tmp_path / name
    path.write_text(shader_test(test, **parts))
    return path


def run(tmp_path, test, engine=_MODEL, max_instructions=100_000, **parts):
    """The Outcome of a file made of ``test`` and ``parts`` (see shader_test)."""
    return run_test(write_test(tmp_path, test, **parts), engine, COMPILER, max_instructions)


def line_of(path, text):
    """The number of the first line of the file at ``path`` that holds ``text``."""
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)
