"""Tokens of R500 assembly (r500-us.md §5.1), with ``#include`` spliced in.

The format is free-form: a token never spans lines, and line breaks only separate tokens. Every
token remembers its file and line so that errors anywhere (an included file too) say where.
"""

from dataclasses import dataclass
from pathlib import Path

from firmware.r500.errors import Diagnostic, R500AsmError

__all__ = ["Token", "PUNCTUATION", "tokenize", "tokenize_file"]

#: one-character tokens; ``+`` is the project's (``temp[aL+N]``), the rest are the base's
PUNCTUATION = frozenset("[]()=.|:;,*+")
_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
_BLANK = frozenset(" \t\r\n")
_INCLUDE = "#include"


@dataclass(frozen=True)
class Token:
    kind: str           # "word", "punct", "neg" (a negate sign) or "eof"
    text: str
    file: str
    line: int

    def is_word(self, *keywords):
        """A word equal (ignoring case) to one of ``keywords``; any word if none are given."""
        return self.kind == "word" and (not keywords or self.text.upper() in keywords)

    def is_punct(self, char):
        return self.kind == "punct" and self.text == char


def _fail(file, line, problem):
    raise R500AsmError([Diagnostic(file, line, problem)])


def tokenize(text, file="<string>", directory=None, _including=()):
    """The tokens of ``text`` (from ``file``), ending with one ``eof`` token.

    ``#include "p"`` reads ``p`` relative to ``directory`` (the directory of ``file`` if it is
    a path, else the current directory); an include cycle is an error.
    """
    if directory is None:
        directory = Path(file).parent if file != "<string>" else Path(".")
    tokens = []
    i, line, n = 0, 1, len(text)
    while i < n:
        c = text[i]
        if c in _BLANK:
            line += c == "\n"
            i += 1
        elif text.startswith("--", i):
            while i < n and text[i] != "\n":
                i += 1
        elif c == "-":
            tokens.append(Token("neg", c, file, line))
            i += 1
        elif c in PUNCTUATION:
            tokens.append(Token("punct", c, file, line))
            i += 1
        elif c in _WORD_CHARS:
            start = i
            while i < n and text[i] in _WORD_CHARS:
                i += 1
            tokens.append(Token("word", text[start:i], file, line))
        elif c == "#":
            i, included = _include(text, i, file, line, Path(directory), _including)
            tokens.extend(included[:-1])
        else:
            _fail(file, line, f"unexpected character {c!r}")
    tokens.append(Token("eof", "", file, line))
    return tokens


def _include(text, i, file, line, directory, including):
    """Read ``#include "p"`` at ``text[i]``: (index after it, the tokens of ``p``)."""
    if not text.startswith(_INCLUDE, i):
        _fail(file, line, "'#' starts no directive here (expected #include \"path\")")
    j = i + len(_INCLUDE)
    while j < len(text) and text[j] == " ":
        j += 1
    end = text.find('"', j + 1)
    newline = text.find("\n", j)
    if j >= len(text) or text[j] != '"' or end < 0 or (0 <= newline < end):
        _fail(file, line, '#include expects a quoted path on the same line: #include "path"')
    written = text[j + 1:end]
    path = directory / written
    if not path.is_file():
        _fail(file, line, f'cannot include "{written}": no such file (looked for {path})')
    return end + 1, tokenize_file(path, _including=including, _site=(file, line))


def tokenize_file(path, _including=(), _site=None):
    """The tokens of the file at ``path`` and of the files it includes."""
    path = Path(path)
    key = path.resolve()
    if key in _including:
        chain = " -> ".join(p.name for p in (*_including, key)[list(_including).index(key):])
        _fail(*_site, f"#include cycle: {chain}")
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        if _site is None:
            _fail(str(path), None, f"cannot read: {e.strerror}")
        _fail(*_site, f'cannot include "{path}": {e.strerror}')
    except UnicodeDecodeError:
        _fail(str(path), None, "not a text (UTF-8) file")
    return tokenize(text, str(path), path.parent, (*_including, key))
