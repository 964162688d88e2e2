"""GLSL compile errors: one line, ``file:line:column: problem`` (1-based line and column)."""

__all__ = ["GlslError", "Pos"]


class Pos:
    """A place in the source: 1-based line and column."""

    __slots__ = ("line", "col")

    def __init__(self, line, col):
        self.line, self.col = line, col

    def __repr__(self):
        return f"{self.line}:{self.col}"


class GlslError(Exception):
    """A problem with a shader. ``str()`` is ``path:line:column: problem``."""

    def __init__(self, message, pos=None, path=None):
        super().__init__(message)
        self.message = " ".join(str(message).split())       # always one line
        self.pos = pos
        self.path = path

    def __str__(self):
        line, col = (self.pos.line, self.pos.col) if self.pos else (1, 1)
        return f"{self.path or '<string>'}:{line}:{col}: {self.message}"
