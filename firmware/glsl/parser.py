"""The GLSL 1.20 grammar (fragment shaders): declarations, functions and statements; the
expressions are ``parse_expr``'s. Struct names are tracked by scope so that ``S x;`` reads as a
declaration and ``S(...)`` as a constructor."""

from firmware.glsl import ast
from firmware.glsl.errors import GlslError
from firmware.glsl.parse_expr import ExpressionParser
from firmware.glsl.tokens import PRECISIONS, RESERVED, TYPE_KEYWORDS, TokenStream

__all__ = ["parse"]

_STORAGE = ("const", "attribute", "uniform", "varying")
_QUALIFIER_WORDS = _STORAGE + ("invariant", "centroid") + tuple(PRECISIONS)


class Parser(ExpressionParser):
    def __init__(self, tokens):
        self.ts = TokenStream(tokens)
        self.struct_scopes = [set()]

    # --- helpers -----------------------------------------------------------------------------

    def is_type_name(self, name):
        return any(name in s for s in self.struct_scopes)

    def _at_type(self, k=0):
        t = self.ts.peek(k)
        return t.kind == "ident" and (t.text in TYPE_KEYWORDS or t.text == "struct"
                                      or self.is_type_name(t.text))

    def parse_type_suffix(self):
        """``[size]`` or ``[]`` -> the size expression or ``...``."""
        self.ts.expect("[")
        if self.ts.accept("]"):
            return ...
        size = self.conditional()
        self.ts.expect("]", "after an array size")
        return size

    def _push(self):
        self.struct_scopes.append(set())

    def _pop(self):
        self.struct_scopes.pop()

    # --- types -------------------------------------------------------------------------------

    def type_spec(self):
        t = self.ts.peek()
        while t.kind == "ident" and t.text in PRECISIONS:     # accepted and ignored
            self.ts.next()
            t = self.ts.peek()
        if t.is_("struct"):
            spec = ast.TypeSpec(t.pos, struct=self.struct_def())
        elif t.kind == "ident" and (t.text in TYPE_KEYWORDS or self.is_type_name(t.text)):
            self.ts.next()
            spec = ast.TypeSpec(t.pos, name=t.text)
        else:
            if t.kind == "ident" and t.text in RESERVED:
                raise GlslError(f"'{t.text}' is a reserved word", t.pos)
            raise self.ts.unexpected("a type")
        if self.ts.at("["):
            spec.array = self.parse_type_suffix()
        return spec

    def struct_def(self):
        pos = self.ts.expect("struct").pos
        name = None
        if self.ts.peek().kind == "ident" and not self.ts.at("{"):
            name_tok = self.ts.identifier("a struct name")
            name, pos = name_tok.text, name_tok.pos
        self.ts.expect("{", "to start the struct's members")
        members = []
        while not self.ts.at("}"):
            while self.ts.peek().text in PRECISIONS:
                self.ts.next()
            mtype = self.type_spec()
            while True:
                mname = self.ts.identifier("a member name")
                array = self.parse_type_suffix() if self.ts.at("[") else None
                members.append(ast.Member(mname.pos, mtype, mname.text, array))
                if not self.ts.accept(","):
                    break
            self.ts.expect(";", "after a struct member")
        self.ts.expect("}")
        if not members:
            raise GlslError("a struct needs at least one member", pos)
        if name is not None:
            self.struct_scopes[-1].add(name)
        return ast.StructDef(pos, name, members)

    # --- declarations ------------------------------------------------------------------------

    def qualifiers(self):
        storage, invariant, first = None, False, None
        while self.ts.at(*_QUALIFIER_WORDS):
            t = self.ts.next()
            first = first or t
            if t.text in _STORAGE:
                if storage is not None:
                    raise GlslError(f"two storage qualifiers ('{storage}' and '{t.text}')",
                                    t.pos)
                storage = t.text
            elif t.text == "invariant":
                invariant = True
            elif t.text == "centroid":
                pass
        return storage, invariant, first

    def declaration(self, global_scope):
        """A declaration statement (or, at global scope, a function) after its start."""
        start = self.ts.peek()
        if self.ts.at("precision"):
            self.ts.next()
            if not self.ts.at(*PRECISIONS):
                raise self.ts.unexpected("lowp, mediump or highp")
            self.ts.next()
            self.type_spec()
            self.ts.expect(";", "after a precision statement")
            return ast.Precision(start.pos)
        storage, invariant, first = self.qualifiers()
        if invariant and storage is None and self.ts.peek().kind == "ident" \
                and not self._at_type():
            while True:                                 # ``invariant name, ...;``
                self.ts.identifier("a varying's name")
                if not self.ts.accept(","):
                    break
            self.ts.expect(";")
            return ast.Precision(start.pos)
        spec = self.type_spec()
        if self.ts.accept(";"):
            if spec.struct is None:
                raise GlslError("a declaration needs a name", self.ts.peek().pos)
            return ast.DeclStmt(start.pos, [spec.struct])
        name = self.ts.identifier("a name")
        if self.ts.at("("):
            if not global_scope:
                raise GlslError("functions can only be defined at global scope", name.pos)
            if storage is not None:
                raise GlslError(f"a function cannot be '{storage}'", first.pos)
            return self.function(spec, name)
        decls = [] if spec.struct is None else [spec.struct]
        while True:
            array = self.parse_type_suffix() if self.ts.at("[") else None
            init = self.assignment() if self.ts.accept("=") else None
            decls.append(ast.VarDecl(name.pos, storage, spec, name.text, array, init,
                                     invariant))
            if not self.ts.accept(","):
                break
            name = self.ts.identifier("a name")
        self.ts.expect(";", "after a declaration")
        return ast.DeclStmt(start.pos, decls)

    def function(self, return_type, name):
        self.ts.expect("(")
        params = []
        if self.ts.at("void") and self.ts.peek(1).is_(")"):
            self.ts.next()
        while not self.ts.at(")"):
            params.append(self.parameter())
            if not self.ts.accept(","):
                break
        self.ts.expect(")", "after the parameters")
        fn = ast.Function(name.pos, return_type, name.text, params)
        if self.ts.accept(";"):
            return fn
        if not self.ts.at("{"):
            raise self.ts.unexpected("'{' or ';' after a function's parameters")
        self._push()
        fn.body = self.compound(new_scope=False)
        self._pop()
        return fn

    def parameter(self):
        pos = self.ts.peek().pos
        const = direction = None
        while self.ts.at("const", "in", "out", "inout", *PRECISIONS):
            t = self.ts.next()
            if t.text == "const":
                const = True
            elif t.text in ("in", "out", "inout"):
                if direction is not None:
                    raise GlslError("a parameter has one of in, out, inout", t.pos)
                direction = t.text
        if self.ts.at(*_STORAGE):
            raise GlslError(f"a parameter cannot be '{self.ts.peek().text}'", self.ts.peek().pos)
        spec = self.type_spec()
        name, array = None, None
        if self.ts.peek().kind == "ident" and not self.ts.at(",", ")"):
            tok = self.ts.identifier("a parameter name")
            name, pos = tok.text, tok.pos
            if self.ts.at("["):
                array = self.parse_type_suffix()
        if const and direction in ("out", "inout"):
            raise GlslError(f"a const parameter cannot be '{direction}'", pos)
        return ast.Param(pos, direction or "in", bool(const), spec, name, array)

    # --- statements --------------------------------------------------------------------------

    def compound(self, new_scope=True):
        pos = self.ts.expect("{").pos
        if new_scope:
            self._push()
        stmts = []
        while not self.ts.at("}"):
            if self.ts.peek().kind == "eof":
                raise self.ts.unexpected("'}'")
            stmts.append(self.statement())
        self.ts.next()
        if new_scope:
            self._pop()
        return ast.Compound(pos, stmts, new_scope)

    def _at_declaration(self):
        t = self.ts.peek()
        if t.kind != "ident":
            return False
        if t.text in _QUALIFIER_WORDS or t.text in ("precision", "struct"):
            return True
        if not self._at_type():
            return False
        nxt = self.ts.peek(1)
        if nxt.kind == "ident":
            return True
        if nxt.is_("["):                    # float[3] a; versus float[3](...)
            depth, k = 0, 1
            while True:
                tk = self.ts.peek(k)
                if tk.kind == "eof":
                    return False
                if tk.is_("["):
                    depth += 1
                elif tk.is_("]"):
                    depth -= 1
                    if depth == 0:
                        return self.ts.peek(k + 1).kind == "ident"
                k += 1
        return False

    def statement(self):
        t = self.ts.peek()
        if t.is_("{"):
            return self.compound()
        if t.is_(";"):
            self.ts.next()
            return ast.Empty(t.pos)
        handler = {"if": self._if, "for": self._for, "while": self._while, "do": self._do,
                   "break": self._jump, "continue": self._jump, "discard": self._jump,
                   "return": self._return}.get(t.text) if t.kind == "ident" else None
        if handler:
            return handler()
        if self._at_declaration():
            return self.declaration(global_scope=False)
        e = self.expression()
        self.ts.expect(";", "after an expression")
        return ast.ExprStmt(t.pos, e)

    def _scoped_statement(self):
        """A loop's or if's body: a statement with its own scope."""
        if self.ts.at("{"):
            return self.compound()
        self._push()
        s = self.statement()
        self._pop()
        return s

    def _if(self):
        pos = self.ts.next().pos
        self.ts.expect("(", "after 'if'")
        cond = self.expression()
        self.ts.expect(")", "after the condition")
        then = self._scoped_statement()
        else_ = self._scoped_statement() if self.ts.accept("else") else None
        return ast.If(pos, cond, then, else_)

    def _condition(self):
        """A loop condition: an expression or ``type name = init``."""
        if self._at_declaration():
            spec = self.type_spec()
            name = self.ts.identifier()
            self.ts.expect("=", "in a condition declaration")
            return ast.VarDecl(name.pos, None, spec, name.text, None, self.assignment())
        return self.expression()

    def _for(self):
        pos = self.ts.next().pos
        self.ts.expect("(", "after 'for'")
        self._push()
        if self.ts.accept(";"):
            init = None
        elif self._at_declaration():
            init = self.declaration(global_scope=False)
        else:
            t = self.ts.peek()
            init = ast.ExprStmt(t.pos, self.expression())
            self.ts.expect(";", "after a for loop's initialiser")
        cond = None if self.ts.at(";") else self._condition()
        self.ts.expect(";", "after a for loop's condition")
        step = None if self.ts.at(")") else self.expression()
        self.ts.expect(")", "after a for loop's step")
        body = self._scoped_statement()
        self._pop()
        return ast.For(pos, init, cond, step, body)

    def _while(self):
        pos = self.ts.next().pos
        self.ts.expect("(", "after 'while'")
        self._push()
        cond = self._condition()
        self.ts.expect(")", "after the condition")
        body = self._scoped_statement()
        self._pop()
        return ast.While(pos, cond, body)

    def _do(self):
        pos = self.ts.next().pos
        body = self._scoped_statement()
        self.ts.expect("while", "after a do loop's body")
        self.ts.expect("(", "after 'while'")
        cond = self.expression()
        self.ts.expect(")", "after the condition")
        self.ts.expect(";", "after do-while")
        return ast.DoWhile(pos, body, cond)

    def _jump(self):
        t = self.ts.next()
        self.ts.expect(";", f"after '{t.text}'")
        return {"break": ast.Break, "continue": ast.Continue, "discard": ast.Discard}[t.text](
            t.pos)

    def _return(self):
        pos = self.ts.next().pos
        value = None if self.ts.at(";") else self.expression()
        self.ts.expect(";", "after return")
        return ast.Return(pos, value)

    # --- the translation unit ----------------------------------------------------------------

    def unit(self):
        items = []
        while self.ts.peek().kind != "eof":
            if self.ts.at(";"):
                self.ts.next()
                continue
            if not self._at_declaration() and not self._at_type():
                t = self.ts.peek()
                if t.kind == "ident" and t.text in RESERVED:
                    raise GlslError(f"'{t.text}' is a reserved word", t.pos)
                raise self.ts.unexpected("a declaration or a function")
            item = self.declaration(global_scope=True)
            if isinstance(item, ast.DeclStmt):
                items.extend(item.decls)
            else:
                items.append(item)
        return items


def parse(tokens, version=None):
    """The preprocessed tokens -> a TranslationUnit."""
    return ast.TranslationUnit(Parser(tokens).unit(), version)
