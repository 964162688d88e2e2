"""The GLSL compiler's built-in functions on the R500 model: the largest errors against the
host's double-precision functions over many seeded random inputs, and the instructions each
takes (the sweep tests/firmware/glsl/test_builtins.py samples).

    python -m bench.glsl_builtins [--quads N] [--seed S]

Each function runs in ``--quads`` quads of four lanes, every lane with its own arguments (in
theia_UV0/UV1: temporaries 2 and 3, so the compiler cannot fold them), binary32-rounded before
the reference sees them. Prints one JSON object: per function ``max_abs``, ``max_rel`` (relative
to max(1, |exact|)), ``at`` (the worst argument), ``instructions``, ``samples``; and ``wall_s``.
"""

import argparse
import json
import math
import random
import time

from firmware.glsl import compile_glsl
from sim.r500 import fp32
from sim.r500.quad import LaneInput, run_quad

#: name -> (GLSL of a and b, reference, range of a, range of b)
FUNCTIONS = {
    "sin": ("sin(a)", math.sin, (-20, 20), None),
    "cos": ("cos(a)", math.cos, (-20, 20), None),
    "tan": ("tan(a)", math.tan, (-1.4, 1.4), None),
    "asin": ("asin(a)", math.asin, (-1, 1), None),
    "acos": ("acos(a)", math.acos, (-1, 1), None),
    "atan": ("atan(a)", math.atan, (-1e3, 1e3), None),
    "atan2": ("atan(a, b)", math.atan2, (-10, 10), (-10, 10)),
    "pow": ("pow(a, b)", math.pow, (0.01, 10), (-4, 4)),
    "exp": ("exp(a)", math.exp, (-20, 20), None),
    "log": ("log(a)", math.log, (1e-3, 1e3), None),
    "exp2": ("exp2(a)", lambda a: 2.0 ** a, (-30, 30), None),
    "log2": ("log2(a)", math.log2, (1e-3, 1e3), None),
    "sqrt": ("sqrt(a)", math.sqrt, (0, 1e4), None),
    "inversesqrt": ("inversesqrt(a)", lambda a: 1 / math.sqrt(a), (1e-3, 1e4), None),
    "mod": ("mod(a, b)", lambda a, b: a - b * math.floor(a / b), (-100, 100), (0.1, 10)),
    "smoothstep": ("smoothstep(0.0, b, a)", lambda a, b: (lambda t: t * t * (3 - 2 * t))(
        min(max(a / b, 0.0), 1.0)), (-1, 3), (0.5, 2)),
    "distance": ("distance(vec2(a, b), vec2(b, a))", lambda a, b: math.sqrt(2) * abs(a - b),
                 (-10, 10), (-10, 10)),
    "degrees": ("degrees(a)", math.degrees, (-10, 10), None),
}


def _f32(x):
    return fp32.to_float(fp32.from_float(x))


def measure(name, quads, rng):
    expr, reference, range_a, range_b = FUNCTIONS[name]
    src = ("void main() { float a = theia_UV0.x; float b = theia_UV1.x; "
           f"gl_FragColor = vec4({expr}); }}")
    compiled = compile_glsl(src, f"{name}.frag")
    constants = {reg: [fp32.from_float(v) for v in values]
                 for reg, values in compiled.constants.items()}
    worst_abs = worst_rel = 0.0
    at = None
    for _ in range(quads):
        args = [(_f32(rng.uniform(*range_a)), _f32(rng.uniform(*(range_b or (0, 1)))))
                for _ in range(4)]
        lanes = [LaneInput({2: [fp32.from_float(a), 0, 0, 0], 3: [fp32.from_float(b), 0, 0, 0]})
                 for a, b in args]
        result = run_quad(compiled.words, lanes, constants=constants)
        for (a, b), lane in zip(args, result.lanes):
            got = fp32.to_float(lane.outputs[0][0])
            want = reference(a, b) if range_b else reference(a)
            err = abs(got - want)
            rel = err / max(1.0, abs(want))
            if rel > worst_rel:
                worst_rel, at = rel, [a, b] if range_b else [a]
            worst_abs = max(worst_abs, err)
    return {"max_abs": worst_abs, "max_rel": worst_rel, "at": at,
            "instructions": compiled.instructions, "samples": 4 * quads}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.glsl_builtins",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--quads", type=int, default=250, help="quads per function")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    start = time.perf_counter()
    results = {name: measure(name, args.quads, rng) for name in FUNCTIONS}
    results["wall_s"] = round(time.perf_counter() - start, 1)
    print(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
