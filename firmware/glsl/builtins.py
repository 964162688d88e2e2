"""The built-in functions of GLSL 1.20 chapter 8 a fragment shader may call: their signatures.
What each computes on the R500 is ``lower_builtins.py``'s."""

from firmware.glsl.types import BOOL, FLOAT, Matrix, Sampler, bvec, ivec, vec

__all__ = ["signatures", "VERTEX_ONLY", "UNSUPPORTED", "BUILTIN_NAMES"]

_GEN = [FLOAT, vec(2), vec(3), vec(4)]


def _gen(table, names, shape):
    """Add ``shape(T)`` for every genType T under each name."""
    for name in names.split():
        for t in _GEN:
            table.setdefault(name, []).append(shape(t))


def _build():
    t = {}
    _gen(t, "radians degrees sin cos tan asin acos atan exp log exp2 log2 sqrt inversesqrt "
            "abs sign floor ceil fract normalize dFdx dFdy fwidth", lambda g: ((g,), g))
    _gen(t, "atan pow mod min max step", lambda g: ((g, g), g))
    _gen(t, "mod min max", lambda g: ((g, FLOAT), g))
    _gen(t, "clamp mix smoothstep", lambda g: ((g, g, g), g))
    _gen(t, "clamp", lambda g: ((g, FLOAT, FLOAT), g))
    _gen(t, "mix", lambda g: ((g, g, FLOAT), g))
    _gen(t, "step", lambda g: ((FLOAT, g), g))
    _gen(t, "smoothstep", lambda g: ((FLOAT, FLOAT, g), g))
    _gen(t, "length", lambda g: ((g,), FLOAT))
    _gen(t, "distance dot", lambda g: ((g, g), FLOAT))
    _gen(t, "faceforward", lambda g: ((g, g, g), g))
    _gen(t, "reflect", lambda g: ((g, g), g))
    _gen(t, "refract", lambda g: ((g, g, FLOAT), g))
    # noise: GLSL allows any function with noise's statistics; this compiler returns 0
    _gen(t, "noise1", lambda g: ((g,), FLOAT))
    for n in (2, 3, 4):
        _gen(t, f"noise{n}", lambda g, n=n: ((g,), vec(n)))
    t["cross"] = [((vec(3), vec(3)), vec(3))]
    for c in (2, 3, 4):
        for r in (2, 3, 4):
            m = Matrix(c, r)
            t.setdefault("matrixCompMult", []).append(((m, m), m))
            t.setdefault("outerProduct", []).append(((vec(r), vec(c)), m))
            t.setdefault("transpose", []).append(((m,), Matrix(r, c)))
    for n in (2, 3, 4):
        for name in ("lessThan", "lessThanEqual", "greaterThan", "greaterThanEqual"):
            t.setdefault(name, []).extend([((vec(n), vec(n)), bvec(n)),
                                           ((ivec(n), ivec(n)), bvec(n))])
        for name in ("equal", "notEqual"):
            t.setdefault(name, []).extend([((vec(n), vec(n)), bvec(n)),
                                           ((ivec(n), ivec(n)), bvec(n)),
                                           ((bvec(n), bvec(n)), bvec(n))])
        t.setdefault("any", []).append(((bvec(n),), BOOL))
        t.setdefault("all", []).append(((bvec(n),), BOOL))
        t.setdefault("not", []).append(((bvec(n),), bvec(n)))
    s2d = Sampler("sampler2D")
    t["texture2D"] = [((s2d, vec(2)), vec(4)), ((s2d, vec(2), FLOAT), vec(4))]
    t["texture2DProj"] = [((s2d, vec(3)), vec(4)), ((s2d, vec(3), FLOAT), vec(4)),
                          ((s2d, vec(4)), vec(4)), ((s2d, vec(4), FLOAT), vec(4))]
    return t


_TABLE = _build()
#: built-ins a fragment shader may not call
VERTEX_ONLY = frozenset({"texture2DLod", "texture2DProjLod", "texture1DLod",
                         "texture1DProjLod", "texture3DLod", "texture3DProjLod",
                         "textureCubeLod", "shadow1DLod", "shadow2DLod", "shadow1DProjLod",
                         "shadow2DProjLod", "ftransform"})
#: built-ins of samplers this GPU does not have
UNSUPPORTED = frozenset({"texture1D", "texture1DProj", "texture3D", "texture3DProj",
                         "textureCube", "shadow1D", "shadow2D", "shadow1DProj",
                         "shadow2DProj"})
BUILTIN_NAMES = frozenset(_TABLE) | VERTEX_ONLY | UNSUPPORTED


def signatures(name):
    """The (parameter types, return type) pairs of a built-in function, or []."""
    return _TABLE.get(name, [])
