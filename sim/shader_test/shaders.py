"""What the runner needs to know of the shaders before compiling: how the vertex stage places
a rectangle, and whether the fragment shader reads anything this GPU cannot give it.

There is no vertex stage here: the runner transforms a ``draw rect``'s corners itself. So a
vertex shader is accepted only if its main sets ``gl_Position`` to the vertex (``gl_Vertex``
or an attribute such as piglit's ``piglit_vertex``: the rectangle as given) or to the vertex
through the fixed-function matrices (``gl_ModelViewProjectionMatrix * gl_Vertex``,
``ftransform()``: the rectangle through ``ortho``'s projection), and otherwise only writes
varyings; it may declare uniforms, varyings and attributes. A fragment shader may read no
varying (a user ``varying`` or ``gl_Color``, ``gl_TexCoord``…; declaring one is harmless) and
no built-in uniform state (``gl_ModelViewMatrix``, ``gl_LightSource``…): this GPU
interpolates nothing and has no fixed-function state.
"""

import dataclasses
import re

from sim.shader_test.errors import Skip

__all__ = ["IDENTITY", "FIXED_FUNCTION", "strip_comments", "vertex_transform",
           "check_fragment_shader", "declares", "link_uniform_initializers"]

#: how a vertex shader (or its absence) places the rectangle's corners
IDENTITY = "identity"               # as given: they are clip coordinates
FIXED_FUNCTION = "fixed-function"   # through the projection (and the identity modelview)

_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_VERSION = re.compile(r"^\s*#\s*version\s+\d+[^\n]*$", re.M)
_POSITIONS = {
    "gl_Vertex": IDENTITY,
    "gl_ModelViewProjectionMatrix*gl_Vertex": FIXED_FUNCTION,
    "gl_ProjectionMatrix*gl_ModelViewMatrix*gl_Vertex": FIXED_FUNCTION,
    "ftransform()": FIXED_FUNCTION,
}
_WHOLE_VERTEX = re.compile(r"^vec4\((\w+)(?:\.xy,0(?:\.0*)?|\.xyz),1(?:\.0*)?\)$")
#: a global declaration of the vertex shader: uniforms, varyings, attributes (their names)
_GLOBAL = re.compile(r"\b(uniform|varying|attribute|invariant|precision)\b([^;{}]*);")
_MAIN = re.compile(r"^void\s+main\s*\(\s*(?:void)?\s*\)\s*\{([^{}]*)\}$")
_ASSIGNMENT = re.compile(r"^(\w+)\s*(\[[^\]]*\])?\s*=(?!=)(.*)$", re.S)
#: the vertex shader's outputs the fragment stage reads as varyings (gl_Position aside)
_VERTEX_VARYINGS = ("gl_FrontColor", "gl_BackColor", "gl_FrontSecondaryColor",
                    "gl_BackSecondaryColor", "gl_TexCoord", "gl_FogFragCoord")
_VARYINGS = ("gl_Color", "gl_SecondaryColor", "gl_TexCoord", "gl_FogFragCoord", "gl_PointCoord")
_STATE = re.compile(r"\bgl_(ModelView\w*|Projection\w*|TextureMatrix\w*|NormalMatrix|NormalScale"
                    r"|DepthRange|ClipPlane|Point|FrontMaterial|BackMaterial|LightSource"
                    r"|LightModel|FrontLightModelProduct|BackLightModelProduct|FrontLightProduct"
                    r"|BackLightProduct|TextureEnvColor|EyePlane\w|ObjectPlane\w|Fog)\b")
_SAMPLERS = re.compile(r"\b(sampler1D|sampler3D|samplerCube|sampler1DShadow|sampler2DShadow|"
                       r"sampler2DRect\w*|isampler\w+|usampler\w+|sampler\w*Array\w*)\b")


def strip_comments(text):
    """``text`` without // and /* */ comments (each replaced by a space)."""
    return _COMMENTS.sub(" ", text)


def _declared(declarations, qualifier):
    """The names the global ``declarations`` ((qualifier, rest) pairs) declare with it."""
    names = []
    for kind, rest in declarations:
        if kind == qualifier:
            names += re.findall(r"(\w+)\s*(?:\[[^\]]*\])?\s*(?:,|$)", rest.strip())
    return names


def vertex_transform(vertex):
    """IDENTITY or FIXED_FUNCTION for a ShaderTest's ``vertex`` (None: fixed-function vertex
    processing; "passthrough"; a Source); raise Skip for any other vertex shader.

    The shader may declare uniforms, varyings and attributes; its main sets gl_Position to
    the vertex and may also write varyings (which the fragment shader then must not read:
    ``check_fragment_shader``), nothing else."""
    if vertex is None:
        return FIXED_FUNCTION
    if vertex == "passthrough":
        return IDENTITY
    text = _VERSION.sub(" ", strip_comments(vertex.text))
    declarations = _GLOBAL.findall(text)
    main = _MAIN.match(" ".join(_GLOBAL.sub(" ", text).split()))
    if main is None:
        raise Skip("the vertex shader does more than set gl_Position to the vertex")
    varyings = set(_declared(declarations, "varying")) | set(_VERTEX_VARYINGS)
    transform = None
    for statement in filter(None, (s.strip() for s in main.group(1).split(";"))):
        assignment = _ASSIGNMENT.match(statement)
        target = assignment.group(1) if assignment else None
        if target == "gl_Position" and assignment.group(2) is None and transform is None:
            transform = _position(assignment.group(3), _declared(declarations, "attribute"))
        elif target not in varyings:
            transform = None
            break
    if transform is None:
        raise Skip("the vertex shader does more than set gl_Position to the vertex")
    return transform


def _position(expression, attributes):
    """How a vertex shader's ``gl_Position = expression`` places the vertex (None: not as
    this runner can). The rectangle's vertices have z 0 and w 1, so ``vec4(v.xy, 0, 1)`` and
    ``vec4(v.xyz, 1)`` are the vertex ``v`` itself."""
    position = "".join(expression.split())
    whole = _WHOLE_VERTEX.match(position)
    if whole:
        position = whole.group(1)
    if position in attributes:
        return IDENTITY
    return _POSITIONS.get(position)


def link_uniform_initializers(vertex, fragment):
    """The fragment shader Source with the vertex shader's uniform initializers: GL links a
    uniform both stages declare into one, so ``uniform vec2 u = vec2(1, 2);`` in the vertex
    shader gives the fragment shader's ``uniform vec2 u;`` that value (piglit's
    uniform-initializer ``-set-by-other-stage`` tests). Lines stay where they were."""
    if not hasattr(vertex, "text"):
        return fragment
    text = fragment.text
    for kind, rest in _GLOBAL.findall(strip_comments(vertex.text)):
        declaration = re.match(r"^\s*(\w+)\s+(\w+)\s*=(.*)$", rest, re.S)
        if kind != "uniform" or declaration is None:
            continue
        type_, name, value = declaration.groups()
        value = " ".join(value.split())
        text = re.sub(rf"\buniform\s+{type_}\s+{name}\s*;",
                      f"uniform {type_} {name} = {value};", text)
    return dataclasses.replace(fragment, text=text)


def declares(text, name):
    """Whether the identifier ``name`` occurs in the (comment-free) shader ``text``."""
    return re.search(rf"\b{re.escape(name)}\b", text) is not None


def check_fragment_shader(source):
    """Raise Skip if the fragment shader reads what this GPU cannot give it. A varying it
    declares but never uses is harmless (piglit's generated tests declare ones they do not
    read)."""
    text = strip_comments(source.text)
    declarations = _GLOBAL.findall(text)
    rest = _GLOBAL.sub(" ", text)
    for name in _declared(declarations, "varying"):
        if declares(rest, name):
            raise Skip(f"the fragment shader reads the varying {name!r}")
    for name in _VARYINGS:
        if declares(text, name):
            raise Skip(f"the fragment shader reads the varying {name}")
    state = _STATE.search(text)
    if state:
        raise Skip(f"the fragment shader reads the built-in state {state.group(0)}")
    sampler = _SAMPLERS.search(text)
    if sampler:
        raise Skip(f"the fragment shader uses a {sampler.group(1)} (only sampler2D is offered)")
