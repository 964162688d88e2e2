"""Shader values in the lowering: a value mirrors its type. A scalar or vector is a tuple of
components ``(node, index)``; a matrix a tuple of column vectors; an array a tuple of
elements; a struct a tuple of members; a sampler a ``SamplerValue``."""

from firmware.glsl.errors import GlslError
from firmware.glsl.types import Array, Basic, Matrix, Sampler, Struct

__all__ = ["SamplerValue", "flatten", "unflatten", "map_leaves", "zero_of", "leaf_types"]


class SamplerValue:
    """A sampler: the TEX_ID its uniform was given."""

    def __init__(self, tex_id, name):
        self.tex_id, self.name = tex_id, name

    def __repr__(self):
        return f"sampler{self.tex_id}"


def flatten(value, t):
    """The scalar components of a value, in GLSL order (matrices column by column)."""
    if isinstance(t, Basic):
        return list(value)
    if isinstance(t, Matrix):
        return [c for col in value for c in col]
    if isinstance(t, Array):
        return [c for v in value for c in flatten(v, t.element)]
    if isinstance(t, Struct):
        return [c for v, (_, mt) in zip(value, t.members) for c in flatten(v, mt)]
    return []


def unflatten(comps, t):
    """The inverse of ``flatten`` (``comps`` long enough)."""
    comps = list(comps)

    def take(t):
        if isinstance(t, Basic):
            out = tuple(comps[:t.size])
            del comps[:t.size]
            return out
        if isinstance(t, Matrix):
            return tuple(take(t.column) for _ in range(t.cols))
        if isinstance(t, Array):
            return tuple(take(t.element) for _ in range(t.size))
        if isinstance(t, Struct):
            return tuple(take(mt) for _, mt in t.members)
        raise AssertionError(t)
    return take(t)


def leaf_types(t):
    """(path suffix, Basic type) of every vector leaf of a type (a matrix's columns)."""
    if isinstance(t, Basic):
        return [("", t)]
    if isinstance(t, Matrix):
        return [(f"[{i}]", t.column) for i in range(t.cols)]
    if isinstance(t, Array):
        return [(f"[{i}]{p}", lt) for i in range(t.size) for p, lt in leaf_types(t.element)]
    if isinstance(t, Struct):
        return [(f".{n}{p}", lt) for n, mt in t.members for p, lt in leaf_types(mt)]
    return []


def map_leaves(fn, t, *values):
    """Apply ``fn(basic_type, *vectors)`` to every vector leaf (a matrix's columns); samplers
    must be the same object in every value."""
    if isinstance(t, Basic):
        return fn(t, *values)
    if isinstance(t, Matrix):
        return tuple(fn(t.column, *cols) for cols in zip(*values))
    if isinstance(t, Array):
        return tuple(map_leaves(fn, t.element, *vs) for vs in zip(*values))
    if isinstance(t, Struct):
        return tuple(map_leaves(fn, mt, *vs) for (_, mt), vs in zip(t.members, zip(*values)))
    if isinstance(t, Sampler):
        first = values[0]
        if any(v is not first for v in values[1:]):
            raise GlslError("which sampler a value names must be known when the shader is "
                            "compiled")
        return first
    raise AssertionError(t)


def zero_of(t, const):
    """A value of type t with every component 0 (``const(values)`` makes constants)."""
    return unflatten(list(const([0.0] * t.components())) if t.components() else [], t)
