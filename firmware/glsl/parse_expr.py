"""GLSL expressions by precedence climbing (GLSL 1.20 §5.1's table)."""

from firmware.glsl import ast
from firmware.glsl.errors import GlslError
from firmware.glsl.tokens import KEYWORDS, RESERVED, TYPE_KEYWORDS

__all__ = ["ExpressionParser"]

#: binary operators from the loosest to the tightest
_LEVELS = [("||",), ("^^",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="),
           ("<", ">", "<=", ">="), ("<<", ">>"), ("+", "-"), ("*", "/", "%")]
_ASSIGN = ("=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|=")


class ExpressionParser:
    """Mixed into the parser: ``ts`` is its TokenStream, ``is_type_name(text)`` says whether a
    name is a type (a keyword type or a struct in scope), ``parse_type_suffix`` parses
    ``[size]``."""

    def expression(self):
        e = self.assignment()
        while self.ts.at(","):
            pos = self.ts.next().pos
            e = ast.Comma(pos, left=e, right=self.assignment())
        return e

    def assignment(self):
        cond = self.conditional()
        if self.ts.at(*_ASSIGN):
            op = self.ts.next()
            return ast.Assign(op.pos, op=op.text, target=cond, value=self.assignment())
        return cond

    def conditional(self):
        cond = self.binary(0)
        if self.ts.at("?"):
            pos = self.ts.next().pos
            then = self.expression()
            self.ts.expect(":", "in ?:")
            return ast.Ternary(pos, cond=cond, then=then, else_=self.assignment())
        return cond

    def binary(self, level):
        if level == len(_LEVELS):
            return self.unary()
        left = self.binary(level + 1)
        while self.ts.peek().kind == "punct" and self.ts.peek().text in _LEVELS[level]:
            op = self.ts.next()
            left = ast.Binary(op.pos, op=op.text, left=left, right=self.binary(level + 1))
        return left

    def unary(self):
        t = self.ts.peek()
        if t.kind == "punct" and t.text in ("+", "-", "!", "~", "++", "--"):
            self.ts.next()
            return ast.Unary(t.pos, op=t.text, operand=self.unary())
        return self.postfix(self.primary())

    def postfix(self, e):
        while True:
            t = self.ts.peek()
            if t.is_("["):
                self.ts.next()
                index = self.expression()
                self.ts.expect("]", "after an index")
                e = ast.Index(t.pos, base=e, index=index)
            elif t.is_("."):
                self.ts.next()
                name = self.ts.peek()
                if name.kind != "ident":
                    raise self.ts.unexpected("a field or swizzle after '.'")
                self.ts.next()
                if name.text == "length" and self.ts.at("("):
                    self.ts.next()
                    self.ts.expect(")", "after length(")
                    e = ast.Length(name.pos, base=e)
                else:
                    e = ast.Field(name.pos, base=e, name=name.text)
            elif t.is_("++") or t.is_("--"):
                self.ts.next()
                e = ast.Postfix(t.pos, op=t.text, operand=e)
            else:
                return e

    def arguments(self):
        """``( args )`` after a callee; ``void`` alone means none."""
        self.ts.expect("(")
        args = []
        if self.ts.at("void") and self.ts.peek(1).is_(")"):
            self.ts.next()
        if not self.ts.at(")"):
            args.append(self.assignment())
            while self.ts.accept(","):
                args.append(self.assignment())
        self.ts.expect(")", "after the arguments")
        return args

    def primary(self):
        t = self.ts.peek()
        if t.kind == "int" or t.kind == "float":
            self.ts.next()
            return ast.Literal(t.pos, value=t.value, kind=t.kind)
        if t.is_("true") or t.is_("false"):
            self.ts.next()
            return ast.Literal(t.pos, value=t.text == "true", kind="bool")
        if t.is_("("):
            self.ts.next()
            e = self.expression()
            self.ts.expect(")")
            return e
        if t.kind == "ident" and (t.text in TYPE_KEYWORDS or self.is_type_name(t.text)):
            self.ts.next()
            spec = ast.TypeSpec(t.pos, name=t.text)
            if self.ts.at("["):
                spec.array = self.parse_type_suffix()
            if not self.ts.at("("):
                raise self.ts.unexpected(f"'(' after the type name '{t.text}' "
                                         f"(a constructor)")
            return ast.Call(t.pos, callee=spec, args=self.arguments())
        if t.kind == "ident":
            if t.text in RESERVED:
                raise GlslError(f"'{t.text}' is a reserved word", t.pos)
            if t.text in KEYWORDS:
                raise self.ts.unexpected("an expression")
            self.ts.next()
            if self.ts.at("("):
                return ast.Call(t.pos, callee=t.text, args=self.arguments())
            return ast.Ident(t.pos, name=t.text)
        raise self.ts.unexpected("an expression")
