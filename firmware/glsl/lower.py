"""A checked program to IR: the environment main() starts in (inputs, uniforms, samplers,
globals, outputs), main() lowered, the outputs written at its end."""

from firmware.glsl.errors import GlslError
from firmware.glsl.ir import IRBuilder, const_value
from firmware.glsl.lower_stmt import StatementLowering
from firmware.glsl.symbols import INPUTS
from firmware.glsl.types import Array, Basic, Matrix, Sampler
from firmware.glsl.values import SamplerValue, zero_of

__all__ = ["lower_program", "LoweredProgram", "UniformLeaf", "FRAGCOORD_TEMP"]

#: temporary 9 holds the pixel's integer x, y and its depth (r500-us.md §4.2)
FRAGCOORD_TEMP = 9


class UniformLeaf:
    """A vector of a uniform (a matrix has one per column): its interface name, where its
    components start in that name's list, how many, and the initialiser's values (or None)."""

    def __init__(self, key, offset, size, default, pos=None):
        self.key, self.offset, self.size, self.default = key, offset, size, default
        self.pos = pos

    def __repr__(self):
        return f"uniform {self.key}+{self.offset}"


class LoweredProgram:
    def __init__(self, region, uniform_keys, samplers, inputs_read):
        self.region = region                # the top ir.Region
        self.uniform_keys = uniform_keys    # every uniform's interface names, in order
        self.samplers = samplers            # name -> TEX_ID
        self.inputs_read = inputs_read      # the predefined inputs the program reads


class _Uniforms:
    def __init__(self, low, limits):
        self.low, self.limits = low, limits
        self.samplers, self.keys = {}, []

    def value(self, t, key, default, pos):
        """The value of a uniform: 'uniform' leaves, a sampler's TEX_ID."""
        if isinstance(t, Sampler):
            if t.name != "sampler2D":
                return SamplerValue(None, key)
            if len(self.samplers) >= self.limits.samplers:
                raise GlslError(f"more than {self.limits.samplers} samplers "
                                f"(the build's limit)", pos)
            self.samplers[key] = len(self.samplers)
            return SamplerValue(self.samplers[key], key)
        if isinstance(t, (Basic, Matrix)):
            self.keys.append(key)
            cols = [None] if isinstance(t, Basic) else range(t.cols)
            size = t.size if isinstance(t, Basic) else t.rows
            out = []
            for c in cols:
                vec = default if c is None or default is None else default[c]
                values = None if vec is None else [const_value(x) for x in vec]
                leaf = UniformLeaf(key, 0 if c is None else c * size, size, values, pos)
                out.append(self.low.b.leaf("uniform", leaf, size))
            return out[0] if isinstance(t, Basic) else tuple(out)
        if isinstance(t, Array):
            return tuple(self.value(t.element, f"{key}[{i}]", default and default[i], pos)
                         for i in range(t.size))
        return tuple(self.value(mt, f"{key}.{n}", default and default[i], pos)
                     for i, (n, mt) in enumerate(t.members))


def _input_value(b, name):
    if name == "gl_FragCoord":
        t9 = b.leaf("input", FRAGCOORD_TEMP, 4)
        xy = b.op("add", t9[:2], b.const([0.5, 0.5]))
        return xy + (t9[2],) + b.const([1.0])
    if name == "gl_FrontFacing":
        return b.const([1.0])
    t, temp, channels = INPUTS[name]
    reg = b.leaf("input", temp, 4)
    if name == "theia_Hit":
        return b.op("sne", (reg[3],), b.const([0.0]))
    return tuple(reg[c] for c in channels)


def lower_program(checked, limits):
    low = StatementLowering(IRBuilder())
    uniforms = _Uniforms(low, limits)
    for v in checked.globals:
        if v.storage == "uniform":
            low.b.pos = v.pos
            low.env[v] = uniforms.value(v.type, v.name, v.default, v.pos)
    low.b.pos = None
    for name in ["gl_FragCoord", "gl_FrontFacing"] + list(INPUTS):
        low.env[checked.builtins[name]] = _input_value(low.b, name)
    outputs = [checked.builtins["gl_FragColor"], checked.builtins["gl_FragData"]]
    undef = low.b.leaf("undef", None, 4)
    low.env[outputs[0]] = undef
    low.env[outputs[1]] = tuple(undef for _ in range(outputs[1].type.size))
    for v in checked.globals:
        if v.storage == "global":
            low.b.pos = v.pos
            low.env[v] = low.value(v.init) if v.init is not None else \
                zero_of(v.type, low.const)
    final = low.lower_main(checked.main)
    low.emit_outputs(final, outputs)
    return LoweredProgram(low.b.region, uniforms.keys, uniforms.samplers,
                          sorted(low.inputs_read))
