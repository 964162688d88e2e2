"""Names: variables, functions and scopes, and the fragment stage's built-in variables
(``gl_*``, THEIA's ``theia_*`` hit data, the implementation constants ``gl_Max*``)."""

from firmware.glsl.errors import GlslError
from firmware.glsl.types import BOOL, FLOAT, INT, Array, Struct, vec

__all__ = ["Variable", "FunctionSymbol", "Scope", "INPUTS", "builtin_scope",
           "UNAVAILABLE_MESSAGE"]


class Variable:
    """A variable. ``storage``: local, global, const, uniform, param, input (a predefined
    read-only input), output (gl_FragColor, gl_FragData), varying (declared, has no value)."""

    def __init__(self, name, type, storage, pos=None, value=None, direction=None):
        self.name, self.type, self.storage, self.pos = name, type, storage, pos
        self.value = value              # const: the composite value (IR constants)
        self.direction = direction      # param: in, out, inout
        self.default = None             # uniform: the initialiser's value, if any
        self.init = None                # a global's initialiser (checked expression)
        self.read_only = storage in ("const", "uniform", "input", "varying") or \
            (storage == "param" and direction == "const")

    def __repr__(self):
        return f"Variable({self.name}: {self.type}, {self.storage})"


class FunctionSymbol:
    """One signature of a user function: its prototypes and its definition."""

    def __init__(self, name, params, return_type, pos):
        self.name, self.params, self.return_type, self.pos = name, params, return_type, pos
        self.definition = None          # the ast.Function with a body
        self.param_symbols = []         # Variables of the definition's parameters
        self.calls = []                 # (FunctionSymbol, call position) made by the body
        self.modifies = set()           # global Variables the body may write (transitively)

    @property
    def param_types(self):
        return tuple(t for t, _ in self.params)

    def __repr__(self):
        return f"{self.name}({', '.join(str(t) for t, _ in self.params)})"


class Scope:
    def __init__(self, parent=None):
        self.parent = parent
        self.names = {}                 # name -> Variable | Struct | [FunctionSymbol]

    def lookup(self, name):
        s = self
        while s is not None:
            if name in s.names:
                return s.names[name]
            s = s.parent
        return None

    def declare(self, name, thing, pos):
        old = self.names.get(name)
        if old is not None and not (isinstance(old, list) and isinstance(thing, list)):
            raise GlslError(f"'{name}' is already declared in this scope", pos)
        self.names[name] = thing


#: THEIA's hit data and the pixel (r500-us.md §4.2): name -> (type, temporary, channels)
INPUTS = {
    "theia_TextureColor": (vec(3), 0, (0, 1, 2)),
    "theia_Hit": (BOOL, 0, (3,)),
    "theia_LastUVT": (vec(3), 1, (0, 1, 2)),
    "theia_UV0": (vec(3), 2, (0, 1, 2)),
    "theia_UV1": (vec(3), 3, (0, 1, 2)),
    "theia_UV2": (vec(3), 4, (0, 1, 2)),
    "theia_E1": (vec(3), 5, (0, 1, 2)),
    "theia_E2": (vec(3), 6, (0, 1, 2)),
    "theia_Diffuse": (vec(3), 7, (0, 1, 2)),
    "theia_RayDirection": (vec(3), 8, (0, 1, 2)),
    "theia_Pixel": (vec(2), 9, (0, 1)),
}

UNAVAILABLE_MESSAGE = ("'{name}' is not available: this GPU's fragment stage has no "
                       "varyings, vertex state or fixed-function uniforms (its inputs are "
                       "gl_FragCoord, gl_FrontFacing and the theia_* hit data)")

MAX_DRAW_BUFFERS = 4


def builtin_scope(limits, make_constant):
    """The scope of the built-in variables. ``make_constant(type, python value)`` builds a
    constant's value."""
    scope = Scope()
    for name, t in (("gl_FragCoord", vec(4)), ("gl_FrontFacing", BOOL)):
        scope.names[name] = Variable(name, t, "input")
    for name, (t, _, _) in INPUTS.items():
        scope.names[name] = Variable(name, t, "input")
    scope.names["gl_FragColor"] = Variable("gl_FragColor", vec(4), "output")
    scope.names["gl_FragData"] = Variable("gl_FragData", Array(vec(4), MAX_DRAW_BUFFERS),
                                          "output")
    constants = {
        "gl_MaxLights": 8, "gl_MaxClipPlanes": 6, "gl_MaxTextureUnits": 2,
        "gl_MaxTextureCoords": 2, "gl_MaxVertexAttribs": 16,
        "gl_MaxVertexUniformComponents": 512, "gl_MaxVaryingFloats": 32,
        "gl_MaxVertexTextureImageUnits": 0,
        "gl_MaxCombinedTextureImageUnits": limits.samplers,
        "gl_MaxTextureImageUnits": limits.samplers,
        "gl_MaxFragmentUniformComponents": 4 * limits.constants,
        "gl_MaxDrawBuffers": MAX_DRAW_BUFFERS,
    }
    for name, value in constants.items():
        scope.names[name] = Variable(name, INT, "const", value=make_constant(INT, value))
    depth = Struct("gl_DepthRangeParameters", [("near", FLOAT), ("far", FLOAT),
                                               ("diff", FLOAT)])
    scope.names["gl_DepthRange"] = Variable("gl_DepthRange", depth, "const",
                                            value=make_constant(depth, [0.0, 1.0, 1.0]))
    return scope
