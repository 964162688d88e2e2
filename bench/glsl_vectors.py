"""Test vectors for every GLSL 1.20 built-in function and operator a fragment shader can
call on values (the pure ones): arguments, the exact result (computed in double precision from
binary32 arguments, then rounded to binary32) and a tolerance, in the manner of piglit's
generated built-in tests (``generated_tests/builtin_function.py`` there).

Values are Python scalars (``float``, ``int``, ``bool``), vectors (``Vec``: a tuple of
scalars) and matrices (``Mat``: a tuple of column ``Vec``\\s). ``suite()`` returns
``{Signature: [TestVector, …]}``.

Tolerances follow piglit's reading of GLSL's precision: 1e-5 of the result's length for most
functions, max(1e-4, 1e-3 · |result|) for the trigonometric ones, 1e-5 · |a| · |b| for
``cross``; a vectorised vector's tolerance is the root sum of its components' squares; bool
and int results are exact.
"""

import itertools
import math
import struct
from dataclasses import dataclass

__all__ = ["Vec", "Mat", "GlslType", "Signature", "TestVector", "type_of", "components",
           "suite"]


class Vec(tuple):
    """A vector: a tuple of 2–4 scalars of one kind."""


class Mat(tuple):
    """A matrix: a tuple of 2–4 column Vecs of 2–4 floats."""


@dataclass(frozen=True, order=True)
class GlslType:
    name: str
    base: str               # "float", "int" or "bool"
    cols: int = 1
    rows: int = 1

    @property
    def is_scalar(self):
        return self.cols == 1 and self.rows == 1

    @property
    def is_vector(self):
        return self.cols == 1 and self.rows > 1

    @property
    def is_matrix(self):
        return self.cols > 1

    @property
    def version(self):
        """The GLSL version that introduced the type (non-square matrices: 1.20)."""
        return 120 if self.is_matrix and self.cols != self.rows else 110

    def __str__(self):
        return self.name


@dataclass(frozen=True, order=True)
class Signature:
    name: str               # the function, or "op-…" for an operator
    template: str           # GLSL of the call, {0}, {1}… the arguments
    version: int            # 110 or 120
    rettype: GlslType
    argtypes: tuple


@dataclass(frozen=True)
class TestVector:
    arguments: tuple
    result: object
    tolerance: float


_PREFIX = {"float": "", "int": "i", "bool": "b"}


def _scalar_kind(x):
    if isinstance(x, bool):
        return "bool"
    if isinstance(x, int):
        return "int"
    return "float"


def type_of(value):
    """The GlslType of a value."""
    if isinstance(value, Mat):
        cols, rows = len(value), len(value[0])
        name = f"mat{cols}" if cols == rows else f"mat{cols}x{rows}"
        return GlslType(name, "float", cols, rows)
    if isinstance(value, Vec):
        kind = _scalar_kind(value[0])
        return GlslType(f"{_PREFIX[kind]}vec{len(value)}", kind, 1, len(value))
    kind = _scalar_kind(value)
    return GlslType(kind, kind)


def components(value):
    """The scalars of a value in GLSL order (matrices column by column)."""
    if isinstance(value, Mat):
        return [x for column in value for x in column]
    if isinstance(value, Vec):
        return list(value)
    return [value]


# --- binary32 ------------------------------------------------------------------------------

def f32(x):
    """The binary32 nearest the double ``x`` (overflow to infinity)."""
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def _round(value):
    if isinstance(value, Mat):
        return Mat(_round(column) for column in value)
    if isinstance(value, Vec):
        return Vec(_round(x) for x in value)
    return f32(value) if isinstance(value, float) else value


def linspace(low, high, count):
    return [low + (high - low) * i / (count - 1) for i in range(count)]


# --- arithmetic on values ------------------------------------------------------------------

def _map(function, *values):
    """``function`` applied component by component; scalars spread over the others' shape."""
    shaped = next((v for v in values if isinstance(v, (Vec, Mat))), None)
    if shaped is None:
        return function(*values)
    if isinstance(shaped, Mat):
        return Mat(_map(function, *[v if not isinstance(v, Mat) else v[c] for v in values])
                   for c in range(len(shaped)))
    return Vec(function(*[v[i] if isinstance(v, Vec) else v for v in values])
               for i in range(len(shaped)))


def _norm(value):
    return math.sqrt(sum(float(x) * float(x) for x in components(value)))


def _dot(a, b):
    return sum(x * y for x, y in zip(components(a), components(b)))


def _rows(m):
    return [Vec(column[r] for column in m) for r in range(len(m[0]))]


def _multiply(x, y):
    """GLSL's ``*``: linear algebra where a matrix takes part, else component by component."""
    if isinstance(x, Mat) and isinstance(y, Mat):
        return Mat(Vec(_dot(row, column) for row in _rows(x)) for column in y)
    if isinstance(x, Mat) and isinstance(y, Vec):
        return Vec(_dot(row, y) for row in _rows(x))
    if isinstance(x, Vec) and isinstance(y, Mat):
        return Vec(_dot(x, column) for column in y)
    return _map(lambda a, b: a * b, x, y)


def _int_divide(a, b):
    quotient = abs(a) // abs(b)
    return quotient if (a < 0) == (b < 0) else -quotient


def _divide(x, y):
    if any(v == 0 for v in components(y)):
        return None                                     # undefined
    if type_of(x).base == "int":
        return _map(_int_divide, x, y)
    return _map(lambda a, b: a / b, x, y)


def _negate(x):
    return _map(lambda a: -a, x)


def _step_by(x, delta):
    return _map(lambda a: a + delta, x)


# --- GLSL functions GLSL defines on scalars ------------------------------------------------

def _atan2(y, x):
    return None if x == y == 0.0 else math.atan2(y, x)


def _pow(x, y):
    if x < 0.0 or (x == 0.0 and y <= 0.0):
        return None
    return math.pow(x, y)


def _sign(x):
    return (x > 0) - (x < 0) + 0.0


def _clamp(x, low, high):
    return None if low > high else min(max(x, low), high)


def _smoothstep(edge0, edge1, x):
    if edge0 >= edge1:
        return None
    t = min(max((x - edge0) / (edge1 - edge0), 0.0), 1.0)
    return t * t * (3.0 - 2.0 * t)


def _normalize(x):
    n = _norm(x)
    return _map(lambda a: a / n, x)


def _faceforward(n, i, nref):
    return n if _dot(nref, i) < 0.0 else _negate(n)


def _reflect(i, n):
    d = _dot(n, i)
    return _map(lambda a, b: a - 2 * d * b, i, n)


def _refract(i, n, eta):
    d = _dot(n, i)
    k = 1.0 - eta * eta * (1.0 - d * d)
    if k < 0.0:
        return _map(lambda a: 0.0 * a, i)
    return _map(lambda a, b: eta * a - (eta * d + math.sqrt(k)) * b, i, n)


def _cross(a, b):
    return Vec((a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]))


# --- tolerances ----------------------------------------------------------------------------

def strict_tolerance(arguments, result):
    """GLSL 1.20 §4.1.4 through OpenGL 1.4 §2.1.1: 1 part in 10^5 of the result."""
    return 1e-5 * _norm(result)


def trig_tolerance(arguments, result):
    return max(1e-4, 1e-3 * _norm(result))


def cross_tolerance(arguments, result):
    return 1e-5 * _norm(arguments[0]) * _norm(arguments[1])


# --- building the suite --------------------------------------------------------------------

def _store(table, name, version, vectors, template=None):
    for vector in vectors:
        argtypes = tuple(type_of(a) for a in vector.arguments)
        rettype = type_of(vector.result)
        if template is None:
            call = f"{name}({', '.join(f'{{{i}}}' for i in range(len(argtypes)))})"
        else:
            call = template
        needed = max([version, rettype.version] + [t.version for t in argtypes])
        table.setdefault(Signature(name, call, needed, rettype, argtypes), []).append(vector)


def _simulate(argument_lists, reference, tolerance):
    """Test vectors of ``reference`` on every argument tuple it defines (None: undefined)."""
    vectors = []
    for arguments in argument_lists:
        result = reference(*arguments)
        if result is None:
            continue
        if type_of(result).base == "float":
            error = f32(tolerance(arguments, result))
        else:
            error = 0.0
        vectors.append(TestVector(tuple(arguments), _round(result), error))
    return vectors


def _arguments(inputs):
    """Every combination of the binary32-rounded inputs, one list per argument."""
    return list(itertools.product(*[[_round(x) for x in seq] for seq in inputs]))


def _vectorize(vectors, scalar_indices, length):
    """Scalar test vectors merged ``length`` at a time into vector ones (wrapping around so
    that each is used), keeping the arguments of ``scalar_indices`` scalars (grouped by them).
    """
    groups = {}
    for vector in vectors:
        key = tuple(vector.arguments[i] for i in scalar_indices)
        groups.setdefault(key, []).append(vector)
    merged = []
    for key in sorted(groups):
        group = groups[key]
        for start in range(0, len(group), length):
            part = [group[(start + j) % len(group)] for j in range(length)]
            arguments = tuple(part[0].arguments[i] if i in scalar_indices
                              else Vec(v.arguments[i] for v in part)
                              for i in range(len(part[0].arguments)))
            tolerance = f32(math.sqrt(sum(v.tolerance ** 2 for v in part)))
            merged.append(TestVector(arguments, Vec(v.result for v in part), tolerance))
    return merged


def _componentwise(table):
    """Functions of scalars GLSL extends to vectors component by component."""
    atan_inputs = [0.0] + [s * 10.0 ** e for e in (-10, -1, 0, 1, 10) for s in (1, -1)]

    def f(name, reference, scalar_variants, inputs, tolerance=strict_tolerance):
        scalars = _simulate(_arguments(inputs), reference, tolerance)
        _store(table, name, 110, scalars)
        for indices in [()] + ([tuple(scalar_variants)] if scalar_variants else []):
            for length in (2, 3, 4):
                _store(table, name, 110, _vectorize(scalars, indices, length))

    pi = math.pi
    f("radians", math.radians, None, [linspace(-180.0, 180.0, 4)])
    f("degrees", math.degrees, None, [linspace(-pi, pi, 4)])
    f("sin", math.sin, None, [linspace(-pi, pi, 4)], trig_tolerance)
    f("cos", math.cos, None, [linspace(-pi, pi, 4)], trig_tolerance)
    f("tan", math.tan, None, [linspace(-pi, pi, 4)], trig_tolerance)
    f("asin", math.asin, None, [linspace(-1.0, 1.0, 4)], trig_tolerance)
    f("acos", math.acos, None, [linspace(-1.0, 1.0, 4)], trig_tolerance)
    f("atan", math.atan, None, [atan_inputs], trig_tolerance)
    f("atan", _atan2, None, [atan_inputs, atan_inputs], trig_tolerance)
    f("pow", _pow, None, [linspace(0.0, 2.0, 4), linspace(-2.0, 2.0, 4)])
    f("exp", math.exp, None, [linspace(-2.0, 2.0, 4)])
    f("log", math.log, None, [linspace(0.01, 2.0, 4)])
    f("exp2", lambda x: 2.0 ** x, None, [linspace(-2.0, 2.0, 4)])
    f("log2", math.log2, None, [linspace(0.01, 2.0, 4)])
    f("sqrt", math.sqrt, None, [linspace(0.0, 2.0, 4)])
    f("inversesqrt", lambda x: 1.0 / math.sqrt(x), None, [linspace(0.1, 2.0, 4)])
    f("abs", abs, None, [linspace(-1.5, 1.5, 5)])
    f("sign", _sign, None, [linspace(-1.5, 1.5, 5)])
    f("floor", _float_results(math.floor), None, [linspace(-2.0, 2.0, 4)])
    f("ceil", _float_results(math.ceil), None, [linspace(-2.0, 2.0, 4)])
    f("fract", lambda x: x - math.floor(x), None, [linspace(-2.0, 2.0, 4)])
    f("mod", lambda x, y: x - y * math.floor(x / y), [1],
      [linspace(-1.9, 1.9, 4), linspace(-2.0, 2.0, 4)])
    f("min", min, [1], [linspace(-2.0, 2.0, 4)] * 2)
    f("max", max, [1], [linspace(-2.0, 2.0, 4)] * 2)
    f("clamp", _clamp, [1, 2], [linspace(-2.0, 2.0, 4), linspace(-1.5, 1.5, 3),
                                linspace(-1.5, 1.5, 3)])
    f("mix", lambda x, y, a: x * (1 - a) + y * a, [2],
      [linspace(-2.0, 2.0, 2), linspace(-3.0, 3.0, 2), linspace(0.0, 1.0, 4)])
    f("step", lambda edge, x: 0.0 if x < edge else 1.0, [0], [linspace(-2.0, 2.0, 4)] * 2)
    f("smoothstep", _smoothstep, [0, 1], [linspace(-1.9, 1.9, 4), linspace(-1.9, 1.9, 4),
                                          linspace(-2.0, 2.0, 4)])


def _float_results(function):
    """``function`` with a float result (GLSL's floor/ceil return floats, Python's ints)."""
    return lambda *a: float(function(*a))


def _vector_relational(table):
    """Functions defined only on vectors, component by component (lessThan … not)."""
    inputs = {"v": linspace(-1.5, 1.5, 4), "i": [-5, -2, -1, 0, 1, 2, 5], "b": [False, True]}

    def f(name, arity, reference, kinds):
        for kind in kinds:
            scalars = _simulate(_arguments([inputs[kind]] * arity), reference, strict_tolerance)
            for length in (2, 3, 4):
                _store(table, name, 110, _vectorize(scalars, (), length))

    f("lessThan", 2, lambda x, y: x < y, "vi")
    f("lessThanEqual", 2, lambda x, y: x <= y, "vi")
    f("greaterThan", 2, lambda x, y: x > y, "vi")
    f("greaterThanEqual", 2, lambda x, y: x >= y, "vi")
    f("equal", 2, lambda x, y: x == y, "vib")
    f("notEqual", 2, lambda x, y: x != y, "vib")
    f("not", 1, lambda x: not x, "b")


def _matrices():
    """Two matrices of each shape (given as rows, stored as columns)."""
    def rows(*r):
        return Mat(Vec(row[c] for row in r) for c in range(len(r[0])))
    return [
        rows((1.60, 0.76), (1.53, -1.00)), rows((-0.13, -0.87), (-1.40, 1.40)),
        rows((-1.11, 1.67, -0.41), (0.13, 1.09, -0.02), (0.56, 0.95, 0.24)),
        rows((-1.69, -0.46, -0.18), (-1.09, 1.75, 2.00), (-1.53, -0.70, -1.47)),
        rows((-1.00, -0.55, -1.08, 1.79), (1.77, 0.62, 0.48, -1.35),
             (0.09, -0.71, -1.39, -1.21), (-0.91, -1.82, -1.43, 0.72)),
        rows((0.06, 1.31, 1.52, -1.96), (1.60, -0.32, 0.51, -1.84),
             (1.25, 0.45, 1.90, -0.72), (-0.16, 0.45, -0.88, 0.39)),
        rows((0.09, 1.30, 1.25), (-1.19, 0.08, 1.08)),
        rows((-0.36, -1.08, -0.60), (-0.53, 0.88, -1.79)),
        rows((-0.46, 1.94), (-0.45, -0.75), (1.03, -0.50)),
        rows((1.38, -1.08), (-1.27, 1.83), (1.00, -0.74)),
        rows((1.81, -0.87, 0.81, 0.65), (-1.16, -1.52, 0.25, -1.51)),
        rows((1.93, -1.63, 0.29, 1.60), (0.49, 0.27, 0.14, 0.94)),
        rows((0.16, -1.69), (-0.80, 0.59), (-1.74, -1.43), (-0.02, -1.21)),
        rows((-1.02, 0.74), (-1.64, -0.13), (-1.59, 0.47), (0.30, 1.13)),
        rows((-0.27, -1.38, -1.41, -0.12), (-0.17, -0.56, 1.47, 1.86),
             (-1.85, -1.29, 1.77, 0.01)),
        rows((-0.47, -0.15, 1.97, -1.05), (-0.20, 0.53, -1.82, -1.41),
             (-1.39, -0.19, 1.62, 1.58)),
        rows((1.42, -0.86, 0.27), (1.80, -1.74, 0.04), (-1.88, -0.37, 0.43),
             (1.37, 1.90, 0.71)),
        rows((-1.72, 0.09, 0.45), (-0.31, -1.58, 1.92), (0.14, 0.18, -0.56),
             (0.40, -0.77, 1.76)),
    ]


def _same_types(*indices):
    return lambda *args: len({type_of(args[i]) for i in indices}) == 1


def _simple_binop(x, y):
    """``+ - /``: one base type, and a scalar with anything or two of one type."""
    tx, ty = type_of(x), type_of(y)
    return tx.base == ty.base and (tx.is_scalar or ty.is_scalar or tx == ty)


def _multiplies(x, y):
    tx, ty = type_of(x), type_of(y)
    if tx.base != ty.base:
        return False
    if tx.is_scalar or ty.is_scalar:
        return True
    if tx.is_vector and ty.is_matrix:
        return tx.rows == ty.rows
    if tx.is_vector:
        return tx == ty
    return tx.cols == ty.rows


def _assigns(x, y):
    """``x op= y`` for + - /: the result has x's type."""
    tx, ty = type_of(x), type_of(y)
    return tx.base == ty.base and (ty.is_scalar or tx == ty)


def _assigns_product(x, y):
    tx, ty = type_of(x), type_of(y)
    if tx.base != ty.base:
        return False
    if ty.is_scalar:
        return True
    if tx.is_scalar:
        return False
    if tx.is_vector and ty.is_matrix:
        return tx.rows == ty.rows == ty.cols
    if tx.is_vector:
        return tx == ty
    return tx.cols == ty.rows == ty.cols


def _whole_values(table):
    """Functions and operators on whole vectors and matrices, and the operators on scalars."""
    bools = [False, True]
    bvecs = [Vec(b) for n in (2, 3, 4) for b in itertools.product(bools, repeat=n)]
    ints = [12, -6, 76, -32, 0]
    ivecs = [Vec(v) for v in ((38, 35), (64, -9), (64, 9), (-36, 32, -88), (36, 32, 88),
                               (59, 77, 68), (-64, 72, 88, -76), (64, 72, 88, 76),
                               (-24, 40, -23, 64), (24, 40, 23, 64))]
    nonzero = [-1.33, 0.85]
    floats = [0.0] + nonzero
    vecs = [Vec(v) for v in ((-0.10, -1.20), (-0.42, 0.48), (-0.03, -0.85, -0.94),
                              (1.67, 0.66, 1.87), (-1.65, 1.33, 1.93, 0.76),
                              (0.80, -0.15, -0.51, 0.0))]
    vec3s = vecs[2:4]
    unit = [_normalize(x) for x in nonzero + vecs]
    mats = _matrices()
    numbers = floats + vecs + mats + ints + ivecs
    everything = numbers + bools + bvecs

    def f(name, reference, accept, inputs, tolerance=strict_tolerance, template=None):
        arguments = _arguments(inputs)
        if accept is not None:
            arguments = [a for a in arguments if accept(*a)]
        _store(table, name, 110, _simulate(arguments, reference, tolerance), template)

    add = lambda x, y: _map(lambda a, b: a + b, x, y)          # noqa: E731
    sub = lambda x, y: _map(lambda a, b: a - b, x, y)          # noqa: E731
    f("op-assign-add", add, _assigns, [numbers] * 2, template="{0};\n  result += {1}")
    f("op-assign-sub", sub, _assigns, [numbers] * 2, template="{0};\n  result -= {1}")
    f("op-assign-mult", _multiply, _assigns_product, [numbers] * 2,
      template="{0};\n  result *= {1}")
    f("op-assign-div", _divide, _assigns, [numbers] * 2, template="{0};\n  result /= {1}")
    f("op-add", add, _simple_binop, [numbers] * 2, template="({0} + {1})")
    f("op-sub", sub, _simple_binop, [numbers] * 2, template="({0} - {1})")
    f("op-mult", _multiply, _multiplies, [numbers] * 2, template="({0} * {1})")
    f("op-div", _divide, _simple_binop, [numbers] * 2, template="({0} / {1})")
    f("op-uplus", lambda x: x, None, [numbers], template="(+ {0})")
    f("op-neg", _negate, None, [numbers], template="(- {0})")
    scalars = ints + floats
    f("op-gt", lambda x, y: x > y, _same_types(0, 1), [scalars] * 2, template="({0} > {1})")
    f("op-lt", lambda x, y: x < y, _same_types(0, 1), [scalars] * 2, template="({0} < {1})")
    f("op-ge", lambda x, y: x >= y, _same_types(0, 1), [scalars] * 2, template="({0} >= {1})")
    f("op-le", lambda x, y: x <= y, _same_types(0, 1), [scalars] * 2, template="({0} <= {1})")
    f("op-eq", lambda x, y: all(a == b for a, b in zip(components(x), components(y))),
      _same_types(0, 1), [everything] * 2, template="({0} == {1})")
    f("op-ne", lambda x, y: any(a != b for a, b in zip(components(x), components(y))),
      _same_types(0, 1), [everything] * 2, template="({0} != {1})")
    f("op-and", lambda x, y: x and y, None, [bools] * 2, template="({0} && {1})")
    f("op-or", lambda x, y: x or y, None, [bools] * 2, template="({0} || {1})")
    f("op-xor", lambda x, y: x != y, None, [bools] * 2, template="({0} ^^ {1})")
    f("op-not", lambda x: not x, None, [bools], template="(! {0})")
    f("op-selection", lambda c, x, y: x if c else y, _same_types(1, 2),
      [bools, everything, everything], template="({0} ? {1} : {2})")
    # ++ and -- (piglit leaves them out): the value of the expression and of the variable
    increments = floats + vecs + mats + ints + ivecs
    for name, delta, prefix in (("op-preinc", 1, "++"), ("op-predec", -1, "--")):
        f(name, lambda x, d=delta: add(_step_by(x, d), _step_by(x, d)), None, [increments],
          template="{0};\n  result = " + prefix + "result + result")
    for name, delta, suffix in (("op-postinc", 1, "++"), ("op-postdec", -1, "--")):
        f(name, lambda x, d=delta: add(x, _step_by(x, d)), None, [increments],
          template="{0};\n  result = result" + suffix + " + result")

    f("length", _norm, None, [floats + vecs])
    f("distance", lambda x, y: _norm(sub(x, y)), _same_types(0, 1), [floats + vecs] * 2)
    f("dot", lambda x, y: float(_dot(x, y)), _same_types(0, 1), [floats + vecs] * 2)
    f("cross", _cross, None, [vec3s] * 2, cross_tolerance)
    f("normalize", _normalize, None, [nonzero + vecs])
    f("faceforward", _faceforward, _same_types(0, 1, 2), [floats + vecs] * 3)
    f("reflect", _reflect, _same_types(0, 1), [floats + vecs, unit])
    f("refract", _refract, _same_types(0, 1), [unit, unit, [0.5, 2.0]])
    f("matrixCompMult", lambda x, y: _map(lambda a, b: a * b, x, y), _same_types(0, 1),
      [mats] * 2)
    f("outerProduct", lambda c, r: Mat(Vec(a * b for a in c) for b in r), None, [vecs] * 2)
    f("transpose", lambda m: Mat(_rows(m)), None, [mats])
    f("any", any, None, [bvecs])
    f("all", all, None, [bvecs])


def suite():
    """{Signature: [TestVector]} for every built-in function and operator of GLSL 1.20
    that a fragment shader may call on values."""
    table = {}
    _componentwise(table)
    _vector_relational(table)
    _whole_values(table)
    return table
