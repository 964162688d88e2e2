"""The GLSL 1.10/1.20 preprocessor: directives, conditional blocks and macro expansion.

Directives: ``#version 110|120`` (first, or absent), ``#define`` (object- and function-like),
``#undef``, ``#if``/``#ifdef``/``#ifndef``/``#elif``/``#else``/``#endif``, ``#error``, ``#pragma``
(ignored), ``#extension`` (no extension is supported: ``require`` is an error, the others are
accepted and change nothing), ``#line``. Predefined macros: ``__LINE__``, ``__FILE__``,
``__VERSION__``, ``GL_ES`` is not defined. Expansion follows C's rules with a hide set per token
(a macro is not expanded again inside its own expansion).
"""

from firmware.glsl.errors import GlslError
from firmware.glsl.lexer import Token, classify_number

__all__ = ["preprocess", "VERSIONS"]

VERSIONS = (110, 120)
_BEHAVIOURS = ("require", "enable", "warn", "disable")


class _Macro:
    def __init__(self, name, params, body):
        self.name, self.params, self.body = name, params, body

    def same_as(self, other):
        return (self.params == other.params
                and [t.text for t in self.body] == [t.text for t in other.body])


def _lines(tokens):
    """Split at newline tokens: a list of token lists (the eof token dropped)."""
    line, out = [], []
    for t in tokens:
        if t.kind == "newline":
            out.append(line)
            line = []
        elif t.kind != "eof":
            line.append(t)
    return out


class _Expander:
    def __init__(self, version):
        self.macros = {}
        self.version = version
        self.line_offset = 0        # #line's adjustment of __LINE__

    # --- definitions -------------------------------------------------------------------------

    def define(self, line):
        if len(line) < 3 or line[2].kind != "ident":
            raise GlslError("#define needs a macro name", line[2].pos if len(line) > 2
                            else line[1].pos)
        name_tok = line[2]
        name = name_tok.text
        if name.startswith("GL_") or name in ("__LINE__", "__FILE__", "__VERSION__",
                                              "defined"):
            raise GlslError(f"macro name '{name}' is reserved", name_tok.pos)
        params, body_at = None, 3
        if len(line) > 3 and line[3].is_("(") and not line[3].ws_before:
            params, i = [], 4
            while True:
                if i >= len(line):
                    raise GlslError(f"unterminated parameter list of macro '{name}'",
                                    line[-1].pos)
                t = line[i]
                if t.is_(")") and not params:
                    i += 1
                    break
                if t.kind != "ident":
                    raise GlslError(f"expected a parameter name in macro '{name}', "
                                    f"got '{t.text}'", t.pos)
                if t.text in params:
                    raise GlslError(f"duplicate macro parameter '{t.text}'", t.pos)
                params.append(t.text)
                i += 1
                if i < len(line) and line[i].is_(","):
                    i += 1
                    continue
                if i < len(line) and line[i].is_(")"):
                    i += 1
                    break
                raise GlslError(f"expected ',' or ')' in the parameters of macro '{name}'",
                                line[i].pos if i < len(line) else line[-1].pos)
            body_at = i
        body = line[body_at:]
        for t in body:
            if t.is_("##") or (t.is_("#") and params is not None):
                raise GlslError("the # and ## operators are not supported in GLSL macros",
                                t.pos)
        macro = _Macro(name, params, body)
        old = self.macros.get(name)
        if old is not None and not old.same_as(macro):
            raise GlslError(f"macro '{name}' redefined differently", name_tok.pos)
        self.macros[name] = macro

    # --- expansion ---------------------------------------------------------------------------

    def _predefined(self, t):
        if t.text == "__LINE__":
            return str(t.pos.line + self.line_offset)
        if t.text == "__FILE__":
            return "0"
        if t.text == "__VERSION__":
            return str(self.version)
        return None

    def expand(self, tokens, hide=None):
        """Macro-expand a token list; ``hide`` maps id(token) -> its hide set."""
        hide = dict(hide or {})
        out = []
        todo = list(tokens)
        i = 0
        while i < len(todo):
            t = todo[i]
            hs = hide.get(id(t), frozenset())
            if t.kind != "ident" or t.text in hs:
                out.append(t)
                i += 1
                continue
            pre = self._predefined(t)
            if pre is not None:
                out.append(Token("number", pre, t.pos))
                i += 1
                continue
            macro = self.macros.get(t.text)
            if macro is None:
                out.append(t)
                i += 1
                continue
            new_hs = hs | {macro.name}
            if macro.params is None:
                body = [b.moved(t.pos) for b in macro.body]
                for b in body:
                    hide[id(b)] = hide.get(id(b), frozenset()) | new_hs
                todo[i:i + 1] = body
                continue
            if i + 1 >= len(todo) or not todo[i + 1].is_("("):
                out.append(t)
                i += 1
                continue
            args, end = self._arguments(todo, i + 1, macro, t)
            expanded = [self.expand(a, hide) for a in args]
            body = []
            for b in macro.body:
                if b.kind == "ident" and b.text in macro.params:
                    body.extend(x.moved(t.pos) for x in expanded[macro.params.index(b.text)])
                else:
                    body.append(b.moved(t.pos))
            for b in body:
                hide[id(b)] = hide.get(id(b), frozenset()) | new_hs
            todo[i:end] = body
        return out

    def _arguments(self, todo, open_at, macro, name_tok):
        args, current, depth, j = [], [], 0, open_at + 1
        while True:
            if j >= len(todo):
                raise GlslError(f"unterminated call of macro '{macro.name}'", name_tok.pos)
            t = todo[j]
            if t.is_("(") :
                depth += 1
            elif t.is_(")"):
                if depth == 0:
                    break
                depth -= 1
            elif t.is_(",") and depth == 0:
                args.append(current)
                current = []
                j += 1
                continue
            current.append(t)
            j += 1
        args.append(current)
        if len(macro.params) == 0 and args == [[]]:
            args = []
        if len(args) != len(macro.params):
            raise GlslError(f"macro '{macro.name}' takes {len(macro.params)} argument(s), "
                            f"got {len(args)}", name_tok.pos)
        return args, j + 1


class _Conditions:
    """The stack of #if blocks: each entry [taking, taken_before, saw_else, token]."""

    def __init__(self):
        self.stack = []

    def active(self):
        return all(e[0] for e in self.stack)

    def outer_active(self):
        return all(e[0] for e in self.stack[:-1])


def preprocess(tokens):
    """Preprocess the lexer's tokens: (tokens for the parser, the #version's number or
    None)."""
    lines = _lines(tokens)
    version, first = None, 0
    for n, line in enumerate(lines):
        if not line:
            continue
        if line[0].is_("#") and len(line) > 1 and line[1].is_("version"):
            version = _version(line)
            first = n + 1
        break
    ex = _Expander(version or 110)
    cond = _Conditions()
    out, pending = [], []

    def flush():
        out.extend(ex.expand(pending))
        pending.clear()

    for line in lines[first:]:
        if not line:
            continue
        if not line[0].is_("#"):
            if cond.active():
                pending.extend(line)
            continue
        flush()
        _directive(line, ex, cond)
    flush()
    if cond.stack:
        raise GlslError(f"#{cond.stack[-1][3].text} without #endif", cond.stack[-1][3].pos)
    result = []
    for t in out:
        if t.kind == "number":
            t = classify_number(t)
        elif t.kind == "other":
            raise GlslError(f"unexpected character '{t.text}'", t.pos)
        elif t.is_("#") or t.is_("##"):
            raise GlslError(f"unexpected '{t.text}' (a directive must start its line)", t.pos)
        result.append(t)
    end = tokens[-1]
    result.append(Token("eof", "", end.pos))
    return result, version


def _version(line):
    if len(line) < 3 or line[2].kind != "number":
        raise GlslError("#version needs a number", line[1].pos)
    try:
        number = int(line[2].text)
    except ValueError:
        number = None
    if number not in VERSIONS:
        raise GlslError(f"GLSL version {line[2].text} is not supported (only 110 and 120)",
                        line[2].pos)
    if len(line) > 3:
        raise GlslError(f"unexpected '{line[3].text}' after #version {number}", line[3].pos)
    return number


def _directive(line, ex, cond):
    if len(line) == 1:
        return                                          # the null directive
    word = line[1]
    name = word.text
    active = cond.active()
    if name in ("if", "ifdef", "ifndef"):
        taking = False
        if active:
            taking = _condition(line, ex) if name == "if" else \
                ((_defined_name(line, ex) in ex.macros) == (name == "ifdef"))
        cond.stack.append([taking, taking, False, word])
        return
    if name in ("elif", "else", "endif"):
        if not cond.stack:
            raise GlslError(f"#{name} without #if", word.pos)
        entry = cond.stack[-1]
        if name == "endif":
            cond.stack.pop()
            return
        if entry[2]:
            raise GlslError(f"#{name} after #else", word.pos)
        if name == "else":
            entry[2] = True
            entry[0] = cond.outer_active() and not entry[1]
        else:
            entry[0] = cond.outer_active() and not entry[1] and _condition(line, ex)
        entry[1] = entry[1] or entry[0]
        return
    if not active:
        return
    if name == "define":
        ex.define(line)
    elif name == "undef":
        if len(line) != 3 or line[2].kind != "ident":
            raise GlslError("#undef needs one macro name", word.pos)
        if line[2].text.startswith("GL_") or line[2].text == "__LINE__" \
                or line[2].text in ("__FILE__", "__VERSION__"):
            raise GlslError(f"cannot #undef the predefined macro '{line[2].text}'",
                            line[2].pos)
        ex.macros.pop(line[2].text, None)
    elif name == "error":
        text = " ".join(t.text for t in line[2:])
        raise GlslError(f"#error {text}".rstrip(), line[0].pos)
    elif name == "pragma":
        pass
    elif name == "extension":
        _extension(line)
    elif name == "version":
        raise GlslError("#version must come before anything else", line[0].pos)
    elif name == "line":
        expanded = ex.expand(line[2:])
        if not expanded or expanded[0].kind != "number" or not expanded[0].text.isdigit():
            raise GlslError("#line needs a line number", word.pos)
        ex.line_offset = int(expanded[0].text) - (line[0].pos.line + 1)
    else:
        raise GlslError(f"unknown directive #{name}", word.pos)


def _extension(line):
    if len(line) != 5 or line[2].kind != "ident" or not line[3].is_(":") \
            or line[4].text not in _BEHAVIOURS:
        raise GlslError("#extension needs 'name : require|enable|warn|disable'", line[1].pos)
    name, behaviour = line[2].text, line[4].text
    if name == "all":
        if behaviour in ("require", "enable"):
            raise GlslError(f"#extension all : {behaviour} is not allowed", line[4].pos)
        return
    if behaviour == "require":
        raise GlslError(f"extension '{name}' is not supported", line[2].pos)


def _defined_name(line, ex):
    if len(line) != 3 or line[2].kind != "ident":
        raise GlslError(f"#{line[1].text} needs one macro name", line[1].pos)
    return line[2].text


def _condition(line, ex):
    """Evaluate the expression of #if / #elif (defined() first, then macros)."""
    toks, i = [], 2
    body = line[2:]
    while i < len(line):
        t = line[i]
        if t.is_("defined"):
            j = i + 1
            paren = j < len(line) and line[j].is_("(")
            if paren:
                j += 1
            if j >= len(line) or line[j].kind != "ident":
                raise GlslError("'defined' needs a macro name", t.pos)
            value = int(line[j].text in ex.macros)
            j += 1
            if paren:
                if j >= len(line) or not line[j].is_(")"):
                    raise GlslError("missing ')' after defined(", t.pos)
                j += 1
            toks.append(Token("number", str(value), t.pos))
            i = j
            continue
        toks.append(t)
        i += 1
    if not body:
        raise GlslError(f"#{line[1].text} needs an expression", line[1].pos)
    return _PpExpr(ex.expand(toks), line[1]).evaluate() != 0


class _PpExpr:
    """Integer expressions of #if: C's operators without ?: and the comma."""

    _BINARY = [("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="),
               ("<", ">", "<=", ">="), ("<<", ">>"), ("+", "-"), ("*", "/", "%")]

    def __init__(self, tokens, directive):
        self.tokens, self.i, self.directive = tokens, 0, directive

    def _peek(self):
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def _fail(self, what):
        t = self._peek()
        raise GlslError(f"{what} in #{self.directive.text}",
                        t.pos if t else self.directive.pos)

    def evaluate(self):
        value = self._binary(0)
        if self._peek() is not None:
            self._fail(f"unexpected '{self._peek().text}'")
        return value

    def _binary(self, level):
        if level == len(self._BINARY):
            return self._unary()
        left = self._binary(level + 1)
        while self._peek() is not None and self._peek().kind == "punct" \
                and self._peek().text in self._BINARY[level]:
            op = self.tokens[self.i]
            self.i += 1
            right = self._binary(level + 1)
            left = self._apply(op, left, right)
        return left

    @staticmethod
    def _apply(op, a, b):
        o = op.text
        if o in ("/", "%") and b == 0:
            raise GlslError("division by zero in #if", op.pos)
        if o == "/":
            q = abs(a) // abs(b)
            return q if (a < 0) == (b < 0) else -q
        if o == "%":
            return a - b * _PpExpr._apply(Token("punct", "/", op.pos), a, b)
        return {"||": lambda: int(bool(a) or bool(b)), "&&": lambda: int(bool(a) and bool(b)),
                "|": lambda: a | b, "^": lambda: a ^ b, "&": lambda: a & b,
                "==": lambda: int(a == b), "!=": lambda: int(a != b),
                "<": lambda: int(a < b), ">": lambda: int(a > b),
                "<=": lambda: int(a <= b), ">=": lambda: int(a >= b),
                "<<": lambda: a << b, ">>": lambda: a >> b,
                "+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b}[o]()

    def _unary(self):
        t = self._peek()
        if t is None:
            self._fail("expression ends early")
        if t.kind == "punct" and t.text in ("+", "-", "~", "!"):
            self.i += 1
            v = self._unary()
            return {"+": v, "-": -v, "~": ~v, "!": int(not v)}[t.text]
        if t.is_("("):
            self.i += 1
            v = self._binary(0)
            if self._peek() is None or not self._peek().is_(")"):
                self._fail("missing ')'")
            self.i += 1
            return v
        if t.kind == "number":
            self.i += 1
            number = classify_number(t)
            if number.kind != "int":
                raise GlslError(f"#if needs integers, got '{t.text}'", t.pos)
            return number.value
        if t.kind == "ident":
            raise GlslError(f"undefined macro '{t.text}' in #{self.directive.text}", t.pos)
        self._fail(f"unexpected '{t.text}'")
