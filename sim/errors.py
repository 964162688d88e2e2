"""Turning the project's errors into one clear line on a command line (no tracebacks)."""

import sys
from contextlib import contextmanager


def _known_errors():
    """The project's errors that mean bad input or a missing tool, not a bug."""
    from firmware.program import AsmError
    from sim.fast.build import BuildError
    from sim.fast.driver import FastSimError
    from sim.gpu_pysim import GpuRenderError
    from sim.model import TheiaError
    from sim.scene import SceneError
    from sim.sequencer import RenderError
    return (TheiaError, OSError, ValueError, SceneError, AsmError, RenderError, FastSimError,
            BuildError, GpuRenderError)


def source_errors():
    """The errors that are a line of a source file (``file:line:column: problem``, a GLSL
    program's): printed as they are, exit status 2, as the compiler's own command does."""
    from sim.r500.glsl_shading import ShaderSourceError
    return (ShaderSourceError,)


@contextmanager
def cli_errors(prog):
    """Print known errors as ``prog: message`` and exit 1 (a source file's error as its own
    line, exit 2); let real bugs show their traceback."""
    known, sources = _known_errors(), source_errors()
    try:
        yield
    except sources as e:
        print(e, file=sys.stderr)
        raise SystemExit(2) from None
    except known as e:
        print(f"{prog}: {e}", file=sys.stderr)
        raise SystemExit(1) from None
