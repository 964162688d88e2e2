"""The two ways a shader_test file can stop before its probes: malformed, or not runnable here."""

__all__ = ["ShaderTestError", "Skip", "Failure"]


class ShaderTestError(Exception):
    """A malformed test file: ``str()`` is one line, ``file:line: problem``."""

    def __init__(self, path, line, problem):
        problem = " ".join(str(problem).split())
        self.path, self.line, self.problem = path, line, problem
        where = f"{path}:{line}" if line else f"{path}"
        super().__init__(f"{where}: {problem}")


class Skip(Exception):
    """The test needs something this runner, the compiler or the R500 stage does not have;
    ``str()`` is the reason (one line)."""


class Failure(Exception):
    """The test ran and failed for a reason other than a probe (a uniform the shader does not
    have, a quad that stopped): ``str()`` is the reason (one line)."""
