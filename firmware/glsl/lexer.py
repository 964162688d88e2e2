"""GLSL source text to tokens: line continuations, comments, identifiers, numbers, operators.

The lexer produces *preprocessing tokens* with their positions in the original text (line
continuations removed first, as C's translation phase 2 does, with positions kept); the
preprocessor then works on them line by line. Characters GLSL has no use for become ``other``
tokens, an error only where they reach the parser (a ``#error`` line or a skipped block may hold
anything).
"""

import re

from firmware.glsl.errors import GlslError, Pos

__all__ = ["Token", "tokenize", "PUNCTUATORS"]

PUNCTUATORS = sorted("""<<= >>= ++ -- << >> <= >= == != && || ^^ += -= *= /= %= &= |= ^= ##
    ( ) [ ] { } . , ; : ? + - * / % < > = ! ~ & | ^ #""".split(), key=len, reverse=True)

_TOKEN = re.compile(r"""
    (?P<ws>[ \t\f\v\r]+)
  | (?P<newline>\n)
  | (?P<line_comment>//[^\n]*)
  | (?P<block_comment>/\*)
  | (?P<number>(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?[A-Za-z_0-9]*
              | \d+[eE][+-]?\d+[A-Za-z_0-9]*
              | 0[xX][0-9A-Za-z_]*
              | \d[A-Za-z_0-9]*)
  | (?P<ident>[A-Za-z_][A-Za-z_0-9]*)
  | (?P<punct>""" + "|".join(re.escape(p) for p in PUNCTUATORS) + r""")
  | (?P<other>.)
""", re.VERBOSE)

_FLOAT = re.compile(r"(?:\d+\.\d*|\.\d+|\d+(?=[eE]))(?:[eE][+-]?\d+)?([fF]?)\Z")
_DECIMAL = re.compile(r"[1-9]\d*\Z")
_OCTAL = re.compile(r"0[0-7]*\Z")
_HEX = re.compile(r"0[xX][0-9a-fA-F]+\Z")


class Token:
    """A token: ``kind`` is ident, int, float, punct, newline, other or eof."""

    __slots__ = ("kind", "text", "pos", "value", "ws_before")

    def __init__(self, kind, text, pos, value=None, ws_before=False):
        self.kind, self.text, self.pos, self.value = kind, text, pos, value
        self.ws_before = ws_before

    def is_(self, text):
        return self.kind in ("punct", "ident") and self.text == text

    def moved(self, pos):
        """The same token at another place (a macro expansion's tokens take the place of the
        macro's name)."""
        return Token(self.kind, self.text, pos, self.value, self.ws_before)

    def __repr__(self):
        return f"Token({self.kind}, {self.text!r}, {self.pos})"


def _splice(text):
    """Remove backslash-newline pairs; returns the logical text and, per logical character,
    its (line, column) in the original."""
    out, where = [], []
    line, col, i, n = 1, 1, 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\" and text.startswith("\n", i + 1):
            i, line, col = i + 2, line + 1, 1
            continue
        if c == "\\" and text.startswith("\r\n", i + 1):
            i, line, col = i + 3, line + 1, 1
            continue
        out.append(c)
        where.append((line, col))
        if c == "\n":
            line, col = line + 1, 1
        else:
            col += 1
        i += 1
    where.append((line, col))
    return "".join(out), where


def _number(text, pos):
    """The kind and value of a number token; an error for a malformed one."""
    if _FLOAT.match(text):
        return "float", float(text.rstrip("fF"))
    for pattern, base in ((_DECIMAL, 10), (_HEX, 16), (_OCTAL, 8)):
        if pattern.match(text):
            return "int", int(text, base)
    raise GlslError(f"malformed number '{text}'", pos)


def tokenize(text):
    """The preprocessing tokens of ``text``, ending with a newline and an ``eof`` token."""
    logical, where = _splice(text)
    tokens, pos, ws = [], 0, True
    n = len(logical)
    while pos < n:
        m = _TOKEN.match(logical, pos)
        kind = m.lastgroup
        at = Pos(*where[pos])
        if kind == "block_comment":
            end = logical.find("*/", pos + 2)
            if end < 0:
                raise GlslError("unterminated /* comment", at)
            pos, ws = end + 2, True
            continue
        pos = m.end()
        if kind in ("ws", "line_comment"):
            ws = True
            continue
        t = m.group()
        if kind == "newline":
            tokens.append(Token("newline", "\n", at))
            ws = True
            continue
        value = None
        if kind == "number":
            kind, value = "number", None
        tokens.append(Token(kind, t, at, value, ws))
        ws = False
    tokens.append(Token("newline", "\n", Pos(*where[n])))
    tokens.append(Token("eof", "", Pos(*where[n])))
    return tokens


def classify_number(token):
    """Turn a ``number`` pp-token into an ``int`` or ``float`` token (after preprocessing)."""
    kind, value = _number(token.text, token.pos)
    return Token(kind, token.text, token.pos, value, token.ws_before)
