"""What the runner needs to know of the shaders before compiling: how the vertex stage places
a rectangle, and whether the fragment shader reads anything this GPU cannot give it.

There is no vertex stage here: the runner transforms a ``draw rect``'s corners itself. So a
vertex shader is accepted only if it does nothing but set ``gl_Position`` to the vertex
(``gl_Vertex`` or piglit's ``piglit_vertex`` attribute: the rectangle as given) or to the
vertex through the fixed-function matrices (``gl_ModelViewProjectionMatrix * gl_Vertex``,
``ftransform()``: the rectangle through ``ortho``'s projection). A fragment shader may read no
varying (a user ``varying`` or ``gl_Color``, ``gl_TexCoord``…) and no built-in uniform state
(``gl_ModelViewMatrix``, ``gl_LightSource``…): this GPU interpolates nothing and has no
fixed-function state.
"""

import re

from sim.shader_test.errors import Skip

__all__ = ["IDENTITY", "FIXED_FUNCTION", "strip_comments", "vertex_transform",
           "check_fragment_shader", "declares"]

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
_MAIN = re.compile(r"^(?:(?:attribute|in)\s+vec4\s+(\w+)\s*;)?\s*void\s+main\s*\(\s*(?:void)?\s*\)"
                   r"\s*\{\s*gl_Position\s*=\s*([^;]+);\s*\}$")
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


def vertex_transform(vertex):
    """IDENTITY or FIXED_FUNCTION for a ShaderTest's ``vertex`` (None: fixed-function vertex
    processing; "passthrough"; a Source); raise Skip for any other vertex shader."""
    if vertex is None:
        return FIXED_FUNCTION
    if vertex == "passthrough":
        return IDENTITY
    text = _VERSION.sub(" ", strip_comments(vertex.text))
    match = _MAIN.match(" ".join(text.split()))
    if match:
        attribute, position = match.groups()
        position = "".join(position.split())
        if attribute and position == attribute:
            return IDENTITY
        if position in _POSITIONS:
            return _POSITIONS[position]
    varyings = re.findall(r"\bvarying\s+\w+\s+(\w+)", text)
    if varyings:
        raise Skip(f"the vertex shader writes the varying {varyings[0]!r} (nothing is "
                   f"interpolated here)")
    raise Skip("the vertex shader does more than set gl_Position to the vertex")


def declares(text, name):
    """Whether the identifier ``name`` occurs in the (comment-free) shader ``text``."""
    return re.search(rf"\b{re.escape(name)}\b", text) is not None


def check_fragment_shader(source):
    """Raise Skip if the fragment shader reads what this GPU cannot give it."""
    text = strip_comments(source.text)
    varying = re.search(r"\bvarying\b[^;]*?(\w+)\s*(\[[^\]]*\])?\s*;", text)
    if varying:
        raise Skip(f"the fragment shader reads the varying {varying.group(1)!r}")
    for name in _VARYINGS:
        if declares(text, name):
            raise Skip(f"the fragment shader reads the varying {name}")
    state = _STATE.search(text)
    if state:
        raise Skip(f"the fragment shader reads the built-in state {state.group(0)}")
    sampler = _SAMPLERS.search(text)
    if sampler:
        raise Skip(f"the fragment shader uses a {sampler.group(1)} (only sampler2D is offered)")
