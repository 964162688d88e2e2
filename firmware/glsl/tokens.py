"""The parser's view of the token list: look-ahead, expectations and the keyword sets."""

from firmware.glsl.errors import GlslError

__all__ = ["TokenStream", "TYPE_KEYWORDS", "KEYWORDS", "RESERVED", "PRECISIONS"]

_MATRICES = {"mat2", "mat3", "mat4"} | {f"mat{c}x{r}" for c in "234" for r in "234"}
TYPE_KEYWORDS = frozenset(
    {"void", "bool", "int", "float"} | {f"{p}vec{n}" for p in ("", "b", "i") for n in "234"}
    | _MATRICES | {"sampler1D", "sampler2D", "sampler3D", "samplerCube", "sampler1DShadow",
                   "sampler2DShadow"})
PRECISIONS = frozenset({"lowp", "mediump", "highp"})
KEYWORDS = TYPE_KEYWORDS | PRECISIONS | frozenset("""attribute const uniform varying centroid
    invariant break continue do for while if else in out inout true false discard return
    struct precision""".split())
#: reserved for future use in GLSL 1.10/1.20: an error wherever they appear
RESERVED = frozenset("""asm class union enum typedef template this packed goto switch default
    inline noinline volatile public static extern external interface long short double half
    fixed unsigned input output hvec2 hvec3 hvec4 dvec2 dvec3 dvec4 fvec2 fvec3 fvec4
    sampler2DRect sampler3DRect sampler2DRectShadow sizeof cast namespace using""".split())


class TokenStream:
    def __init__(self, tokens):
        self.tokens = tokens
        self.i = 0

    def peek(self, k=0):
        j = min(self.i + k, len(self.tokens) - 1)
        return self.tokens[j]

    def next(self):
        t = self.tokens[self.i]
        if t.kind != "eof":
            self.i += 1
        return t

    def at(self, *texts):
        t = self.peek()
        return t.kind in ("punct", "ident") and t.text in texts

    def accept(self, text):
        if self.at(text):
            return self.next()
        return None

    def expect(self, text, context=""):
        if not self.at(text):
            raise self.unexpected(f"'{text}'" + (f" {context}" if context else ""))
        return self.next()

    def unexpected(self, wanted):
        t = self.peek()
        got = "the end of the shader" if t.kind == "eof" else f"'{t.text}'"
        return GlslError(f"expected {wanted}, got {got}", t.pos)

    def identifier(self, what="a name"):
        t = self.peek()
        if t.kind != "ident" or t.text in KEYWORDS:
            raise self.unexpected(what)
        if t.text in RESERVED:
            raise GlslError(f"'{t.text}' is a reserved word", t.pos)
        return self.next()
