"""The syntax tree of a GLSL shader. Every node has ``pos`` (a ``Pos``); the checker
(``check.py``) sets ``type`` on every expression and resolves names and calls."""

from dataclasses import dataclass, field

__all__ = [
    "TypeSpec", "StructDef", "Member", "VarDecl", "Param", "Function", "Precision",
    "Compound", "ExprStmt", "DeclStmt", "If", "For", "While", "DoWhile", "Break", "Continue",
    "Return", "Discard", "Empty",
    "Literal", "Ident", "Unary", "Postfix", "Binary", "Assign", "Ternary", "Call", "Index",
    "Field", "Length", "Comma", "TranslationUnit",
]


# --- types and declarations --------------------------------------------------------------------

@dataclass(eq=False)
class TypeSpec:
    """A type as written: a name (``vec3``, a struct's name) or a struct definition, and the
    array size of ``float[3]`` (an expression, ``None``, or ``...`` for ``float[]``)."""
    pos: object
    name: str = None
    struct: "StructDef" = None
    array: object = None


@dataclass(eq=False)
class Member:
    pos: object
    type: TypeSpec
    name: str
    array: object = None


@dataclass(eq=False)
class StructDef:
    pos: object
    name: str
    members: list
    resolved: object = None     # the Struct type, once checked


@dataclass(eq=False)
class VarDecl:
    pos: object                 # of the name
    qualifier: str              # None, "const", "uniform", "varying", "attribute"
    type: TypeSpec
    name: str
    array: object = None        # declarator's [size]: expression, ... (unsized) or None
    init: object = None
    invariant: bool = False
    symbol: object = None       # set by the checker


@dataclass(eq=False)
class Param:
    pos: object
    direction: str              # "in", "out", "inout"
    const: bool
    type: TypeSpec
    name: str = None
    array: object = None


@dataclass(eq=False)
class Function:
    pos: object                 # of the name
    return_type: TypeSpec
    name: str
    params: list
    body: "Compound" = None     # None: a prototype
    signature: object = None    # set by the checker


@dataclass(eq=False)
class Precision:
    pos: object


@dataclass(eq=False)
class TranslationUnit:
    items: list                 # VarDecl, StructDef (alone), Function, Precision
    version: int = None         # the #version, if any


# --- statements --------------------------------------------------------------------------------

@dataclass(eq=False)
class Compound:
    pos: object
    stmts: list
    scope: bool = True          # a new scope (not for a function's body, which shares its
                                # parameters' scope)


@dataclass(eq=False)
class ExprStmt:
    pos: object
    expr: object


@dataclass(eq=False)
class DeclStmt:
    pos: object
    decls: list                 # VarDecl or StructDef


@dataclass(eq=False)
class If:
    pos: object
    cond: object
    then: object
    else_: object = None


@dataclass(eq=False)
class For:
    pos: object
    init: object                # a statement or None
    cond: object                # an expression, a VarDecl (condition declaration) or None
    step: object                # an expression or None
    body: object


@dataclass(eq=False)
class While:
    pos: object
    cond: object
    body: object


@dataclass(eq=False)
class DoWhile:
    pos: object
    body: object
    cond: object


@dataclass(eq=False)
class Break:
    pos: object


@dataclass(eq=False)
class Continue:
    pos: object


@dataclass(eq=False)
class Return:
    pos: object
    value: object = None


@dataclass(eq=False)
class Discard:
    pos: object


@dataclass(eq=False)
class Empty:
    pos: object


# --- expressions -------------------------------------------------------------------------------

@dataclass(eq=False)
class Expr:
    pos: object
    type: object = field(default=None, init=False)


@dataclass(eq=False)
class Literal(Expr):
    value: object = None        # bool, int or float
    kind: str = "float"         # "bool", "int", "float"


@dataclass(eq=False)
class Ident(Expr):
    name: str = None
    symbol: object = field(default=None, init=False)


@dataclass(eq=False)
class Unary(Expr):
    op: str = None              # + - ! ~ ++ --  (++/-- are the prefix forms)
    operand: object = None


@dataclass(eq=False)
class Postfix(Expr):
    op: str = None              # ++ --
    operand: object = None


@dataclass(eq=False)
class Binary(Expr):
    op: str = None
    left: object = None
    right: object = None


@dataclass(eq=False)
class Assign(Expr):
    op: str = None              # = += -= *= /= %=
    target: object = None
    value: object = None


@dataclass(eq=False)
class Ternary(Expr):
    cond: object = None
    then: object = None
    else_: object = None


@dataclass(eq=False)
class Call(Expr):
    """A function call or a constructor (``callee`` is a TypeSpec for ``vec3(...)``,
    ``S(...)``, ``float[2](...)``; a name otherwise)."""
    callee: object = None
    args: list = None
    target: object = field(default=None, init=False)   # set by the checker


@dataclass(eq=False)
class Index(Expr):
    base: object = None
    index: object = None


@dataclass(eq=False)
class Field(Expr):
    """``base.name``: a struct member or a swizzle (``components`` set by the checker)."""
    base: object = None
    name: str = None
    components: tuple = field(default=None, init=False)


@dataclass(eq=False)
class Length(Expr):
    """``array.length()``."""
    base: object = None


@dataclass(eq=False)
class Comma(Expr):
    left: object = None
    right: object = None
