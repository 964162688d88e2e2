"""GLSL types: scalars and vectors (``Basic``), matrices, samplers, structs, arrays, void."""

from dataclasses import dataclass

__all__ = ["Type", "Basic", "Matrix", "Sampler", "Struct", "Array", "VOID", "FLOAT", "INT",
           "BOOL", "vec", "ivec", "bvec", "basic_of", "type_by_name", "SAMPLERS"]


class Type:
    def components(self):
        """Scalar components, flattened (a constructor's count)."""
        raise NotImplementedError

    @property
    def is_scalar(self):
        return isinstance(self, Basic) and self.size == 1

    @property
    def is_vector(self):
        return isinstance(self, Basic) and self.size > 1

    @property
    def is_numeric(self):
        return isinstance(self, (Basic, Matrix)) and getattr(self, "base", "float") != "bool"

    @property
    def has_sampler(self):
        return False

    @property
    def has_array(self):
        return False


@dataclass(frozen=True)
class _Void(Type):
    def __str__(self):
        return "void"

    def components(self):
        return 0


@dataclass(frozen=True)
class Basic(Type):
    base: str               # "float", "int", "bool"
    size: int = 1

    def __str__(self):
        if self.size == 1:
            return self.base
        return {"float": "", "int": "i", "bool": "b"}[self.base] + f"vec{self.size}"

    def components(self):
        return self.size

    def with_size(self, size):
        return Basic(self.base, size)

    def with_base(self, base):
        return Basic(base, self.size)


@dataclass(frozen=True)
class Matrix(Type):
    cols: int
    rows: int

    def __str__(self):
        return f"mat{self.cols}" if self.cols == self.rows else f"mat{self.cols}x{self.rows}"

    def components(self):
        return self.cols * self.rows

    @property
    def column(self):
        return Basic("float", self.rows)

    @property
    def base(self):
        return "float"


@dataclass(frozen=True)
class Sampler(Type):
    name: str

    def __str__(self):
        return self.name

    def components(self):
        return 0

    @property
    def has_sampler(self):
        return True


class Struct(Type):
    """A struct type; two definitions are two types, even with the same members."""

    def __init__(self, name, members):
        self.name = name
        self.members = members          # list of (name, Type)

    def __str__(self):
        return f"struct {self.name}" if self.name else "struct"

    def components(self):
        return sum(t.components() for _, t in self.members)

    def member(self, name):
        for i, (n, t) in enumerate(self.members):
            if n == name:
                return i, t
        return None, None

    @property
    def has_sampler(self):
        return any(t.has_sampler for _, t in self.members)

    @property
    def has_array(self):
        return any(t.has_array for _, t in self.members)


@dataclass(frozen=True)
class Array(Type):
    element: Type
    size: int

    def __str__(self):
        return f"{self.element}[{self.size}]"

    def components(self):
        return self.element.components() * self.size

    @property
    def has_sampler(self):
        return self.element.has_sampler

    @property
    def has_array(self):
        return True


VOID = _Void()
FLOAT = Basic("float")
INT = Basic("int")
BOOL = Basic("bool")


def vec(n):
    return Basic("float", n)


def ivec(n):
    return Basic("int", n)


def bvec(n):
    return Basic("bool", n)


def basic_of(t):
    """The Basic type of a component of a Basic or Matrix type."""
    return Basic(t.base)


SAMPLERS = ("sampler1D", "sampler2D", "sampler3D", "samplerCube", "sampler1DShadow",
            "sampler2DShadow")
_NAMED = {"void": VOID, "float": FLOAT, "int": INT, "bool": BOOL}
for _n in (2, 3, 4):
    _NAMED[f"vec{_n}"], _NAMED[f"ivec{_n}"], _NAMED[f"bvec{_n}"] = vec(_n), ivec(_n), bvec(_n)
    _NAMED[f"mat{_n}"] = Matrix(_n, _n)
    for _r in (2, 3, 4):
        _NAMED[f"mat{_n}x{_r}"] = Matrix(_n, _r)
for _s in SAMPLERS:
    _NAMED[_s] = Sampler(_s)


def type_by_name(name):
    """The built-in type called ``name``, or None."""
    return _NAMED.get(name)
