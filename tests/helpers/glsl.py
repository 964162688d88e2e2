"""Running compiled GLSL on the R500 quad model: uniforms set through the compiler's interface,
results as floats."""

from firmware.glsl import compile_glsl
from sim.r500 import fp32
from sim.r500.quad import LaneInput, run_quad

__all__ = ["run_glsl", "Run", "set_uniforms"]


def _word(v):
    if isinstance(v, str):
        return int(v, 16)
    return fp32.from_float(float(v))


def set_uniforms(compiled, uniforms):
    """The constant registers for ``uniforms`` ({name: value or list of values in GLSL
    order}) and the compiler's own constants."""
    constants = {}
    for index, values in compiled.constants.items():
        constants[int(index)] = [_word(v) for v in values]
    for name, value in uniforms.items():
        values = value if isinstance(value, (list, tuple)) else [value]
        slots = compiled.interface["uniforms"][name]
        assert len(slots) == len(values) or not slots, (name, slots, values)
        for (reg, ch), v in zip(slots, values):
            constants.setdefault(reg, [0, 0, 0, 0])[ch] = _word(float(v))
    return constants


class Run:
    def __init__(self, compiled, result):
        self.compiled, self.result = compiled, result

    def out(self, lane=0, target=0):
        """Render target ``target`` of a lane as floats (None if not written)."""
        lr = self.result.lanes[lane]
        if lr.killed or target not in lr.outputs:
            return None
        return [fp32.to_float(w) for w in lr.outputs[target]]

    def killed(self, lane=0):
        return self.result.lanes[lane].killed


def run_glsl(source, uniforms=None, lanes=None, samplers=None, texture=(), compiled=None,
             path="test.frag"):
    """Compile (unless ``compiled`` is given) and run one quad. ``lanes``: four dicts
    {temporary: [r, g, b, a] floats}."""
    c = compiled or compile_glsl(source, path)
    constants = set_uniforms(c, uniforms or {})
    inputs = [LaneInput({t: [_word(x) for x in v] for t, v in (lane or {}).items()})
              for lane in (lanes or [{}] * 4)]
    result = run_quad(c.words, inputs, constants=constants,
                      int_consts={int(k): v for k, v in c.int_consts.items()},
                      samplers=samplers, texture=texture)
    assert result.error is None, f"{result.error}\n{c.asm}"
    return Run(c, result)
