"""Turning the project's errors into one clear line on a command line (no tracebacks)."""

import sys
from contextlib import contextmanager


@contextmanager
def cli_errors(prog):
    """Print known errors as ``prog: message`` and exit 1; let real bugs show their traceback."""
    from sim.model import TheiaError
    known = [TheiaError, OSError, ValueError]
    for module, name in (("sim.scene", "SceneError"), ("firmware.asm", "AsmError"),
                         ("sim.sequencer", "RenderError"), ("sim.fast.driver", "FastSimError"),
                         ("sim.fast.build", "BuildError"), ("sim.gpu_pysim", "GpuRenderError")):
        try:
            known.append(getattr(__import__(module, fromlist=[name]), name))
        except (ImportError, AttributeError):
            pass
    try:
        yield
    except tuple(known) as e:
        print(f"{prog}: {e}", file=sys.stderr)
        raise SystemExit(1) from None
