"""Assembly errors: every problem is reported as ``file:line: problem``."""

from firmware.program import AsmError, Diagnostic

__all__ = ["R500AsmError", "Diagnostic", "Problem"]


class R500AsmError(AsmError):
    """R500 assembly (or word file) errors; ``str()`` is one ``file:line: problem`` per line,
    ``diagnostics`` the same as :class:`firmware.program.Diagnostic` objects."""


class Problem(Exception):
    """A problem at one token; ``token`` (if given) locates it, else the caller's statement."""

    def __init__(self, message, token=None):
        super().__init__(message)
        self.token = token
