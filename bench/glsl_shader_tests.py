"""shader_test files of the GLSL built-in functions and operators, from ``bench.glsl_vectors``'s
test vectors, in the layouts of piglit's generated built-in tests
(``generated_tests/gen_builtin_uniform_tests.py`` there, fragment-shader ``fs-*`` files).

One file per overload, the arguments uniforms ``arg0``, ``arg1``… (so nothing folds); each
test vector sets them, draws ``draw rect -1 -1 2 2`` and probes pixel (n, 0). How the result
is checked is the *mode*:

* ``compare`` (piglit's since 2011): a float result against the uniforms ``expected`` and
  ``tolerance`` in the shader (``distance(result, expected) <= tolerance``, or the residual's
  squared sum for matrices), an int result by ``==``, writing green or red; a bool result
  written as its 0/1 components and probed;
* ``if``: a bool result as the condition of an ``if`` choosing one of two colours
  (``-using-if``);
* ``scaled`` (piglit's first layout): the result, minus an offset and times a scale that bring
  every test vector's result into [0.25, 0.75], written as the colour (a matrix one column at
  a time, chosen by the uniform ``column``) and probed to the framebuffer's precision;
* ``const``: the ``compare`` check, but the arguments are constants in the shader, so the
  compiler folds the call; one branch per test vector (CONSTANT_PART to a file), chosen by the
  uniform ``which``.
"""

import os
import struct

from bench.glsl_vectors import components, suite, type_of

__all__ = ["ShaderTest", "all_tests", "write_tests", "MODES"]

MODES = ("compare", "if", "scaled", "const")
GREEN, RED = "vec4(0.0, 1.0, 0.0, 1.0)", "vec4(1.0, 0.0, 0.0, 1.0)"
DRAW = "draw rect -1 -1 2 2\n"
VERTEX_SHADER = "void main()\n{\n\tgl_Position = gl_Vertex;\n}\n"
#: test vectors per file of constant arguments (each adds a branch to the shader)
CONSTANT_PART = 16


def number(x):
    """A scalar as a shader_test value: bools 0/1, ints in decimal, floats in the fewest
    digits that give the same binary32."""
    if isinstance(x, bool):
        return str(int(x))
    if isinstance(x, int):
        return str(x)
    for digits in range(1, 10):
        text = f"{x:.{digits}g}"
        if struct.pack("<f", float(text)) == struct.pack("<f", x):
            return text
    return repr(x)


def values(value):
    return " ".join(number(x) for x in components(value))


def literal(value):
    """GLSL for a constant value (a float always with a point or an exponent)."""
    def scalar(x):
        if isinstance(x, bool):
            return "true" if x else "false"
        if isinstance(x, int):
            return str(x)
        text = number(x)
        return text if "." in text or "e" in text else text + ".0"
    parts = components(value)
    if len(parts) == 1:
        return scalar(parts[0])
    return f"{type_of(value)}({', '.join(scalar(x) for x in parts)})"


def uniform_type(glsl_type):
    """The type a ``uniform`` command names: bools as ints (piglit's runner sets them with
    glUniform*i), matrices as matCxR."""
    if glsl_type.base == "bool":
        return "int" if glsl_type.is_scalar else f"ivec{glsl_type.rows}"
    if glsl_type.is_matrix:
        return f"mat{glsl_type.cols}x{glsl_type.rows}"
    return glsl_type.name


def _indexers(t):
    cols = [""] if t.cols == 1 else [f"[{c}]" for c in range(t.cols)]
    rows = [""] if t.rows == 1 else [f"[{r}]" for r in range(t.rows)]
    return [c + r for c in cols for r in rows]


def _offset_and_scale(vectors):
    """An offset and a scale (at most 1) that bring every result into [0.25, 0.75]."""
    results = [float(x) for v in vectors for x in components(v.result)]
    low, high = min(results), max(results)
    span = max(2.0 * (high - low), 1.0)
    return (high + low) / 2.0 - span / 2.0, 1.0 / span


def _colour(floats):
    return " ".join(repr(float(x)) for x in floats + [0.0] * (4 - len(floats)))


class ShaderTest:
    """One generated file: a signature, its test vectors and the mode (MODES) of its check;
    ``part`` numbers the files a signature's vectors are split into."""

    def __init__(self, signature, vectors, mode="compare", part=None):
        assert mode in MODES
        self.signature, self.vectors, self.mode, self.part = signature, vectors, mode, part
        self.rettype = signature.rettype
        if mode == "scaled":
            self.offset, self.scale = _offset_and_scale(vectors)

    @property
    def filename(self):
        version = f"{self.signature.version / 100:.2f}"
        args = "-".join(str(t) for t in self.signature.argtypes)
        prefix = {"const": "fs-const", "scaled": "fs-scaled"}.get(self.mode, "fs")
        suffix = "-using-if" if self.mode == "if" else ""
        if self.part is not None:
            suffix += f"-{self.part}"
        return os.path.join(f"glsl-{version}",
                            f"{prefix}-{self.signature.name}-{args}{suffix}.shader_test")

    def _arguments(self):
        return [f"arg{i}" for i in range(len(self.signature.argtypes))]

    def _declarations(self):
        if self.mode == "const":
            lines = ["uniform int which;"]
        else:
            lines = [f"uniform {t} arg{i};" for i, t in enumerate(self.signature.argtypes)]
        if self.mode == "scaled" and self.rettype.is_matrix:
            lines.append("uniform int column;")
        if self.mode in ("compare", "const"):
            if self.rettype.base == "float":
                lines.append("uniform float tolerance;")
            if self.rettype.base != "bool":
                lines.append(f"uniform {self.rettype} expected;")
        return "\n".join(lines) + "\n"

    def _result(self):
        """The statements that compute ``result``."""
        template, t = self.signature.template, self.rettype
        if self.mode != "const":
            return f"  {t} result = {template.format(*self._arguments())};\n"
        text = f"  {t} result;\n"
        for n, vector in enumerate(self.vectors):
            keyword = "if" if n == 0 else "else if"
            call = template.format(*[literal(a) for a in vector.arguments])
            text += f"  {keyword} (which == {n}) {{\n    result = {call};\n  }}\n"
        return text + f"  else\n    result = {t}(0);\n"

    def _body(self):
        t = self.rettype
        if self.mode == "if":
            call = self.signature.template.format(*self._arguments())
            return (f"  if({call})\n    gl_FragColor = vec4(1.0, 1.0, 0.0, 1.0);\n  else\n"
                    f"    gl_FragColor = vec4(0.0, 0.0, 1.0, 1.0);\n")
        body = self._result()
        if self.mode == "scaled" or t.base == "bool":
            if t.base != "bool":
                body += f"  result -= {literal(self.offset)};\n"
                body += f"  result *= {literal(self.scale)};\n"
            column = "[column]" if t.is_matrix else ""
            return body + f"  gl_FragColor = vec4(result{column}{', 0.0' * (4 - t.rows)});\n"
        if t.base == "int":
            return body + f"  gl_FragColor = result == expected ? {GREEN} : {RED};\n"
        if self.signature.name == "distance" or t.is_matrix:
            squares = " + ".join(f"residual{i} * residual{i}" for i in _indexers(t))
            body += f"  {t} residual = result - expected;\n  float error_sq = {squares};\n"
            condition = "error_sq <= tolerance * tolerance"
        else:
            condition = "distance(result, expected) <= tolerance"
        return body + f"  gl_FragColor = {condition} ? {GREEN} : {RED};\n"

    def _probes(self, n, vector):
        t = self.rettype
        if self.mode == "if":
            colour = "1.0 1.0 0.0 1.0" if vector.result else "0.0 0.0 1.0 1.0"
            return f"{DRAW}probe rgba {n} 0 {colour}\n"
        if t.base == "bool":
            bits = [float(b) for b in components(vector.result)]
            return f"{DRAW}probe rgba {n} 0 {_colour(bits)}\n"
        if self.mode == "scaled":
            columns = vector.result if t.is_matrix else [vector.result]
            text = ""
            for c, column in enumerate(columns):
                if t.is_matrix:
                    text += f"uniform int column {c}\n"
                scaled = [(float(x) - self.offset) * self.scale for x in components(column)]
                text += f"{DRAW}probe rgba {n} {c} {_colour(scaled)}\n"
            return text
        text = f"uniform {uniform_type(t)} expected {values(vector.result)}\n"
        if t.base == "float":
            text += f"uniform float tolerance {number(vector.tolerance)}\n"
        return text + f"{DRAW}probe rgba {n} 0 0.0 1.0 0.0 1.0\n"

    def text(self):
        shader = f"{self._declarations()}\nvoid main()\n{{\n{self._body()}}}\n"
        commands = ""
        for n, vector in enumerate(self.vectors):
            if self.mode == "const":
                commands += f"uniform int which {n}\n"
            else:
                for i, (t, argument) in enumerate(zip(self.signature.argtypes,
                                                      vector.arguments)):
                    commands += f"uniform {uniform_type(t)} arg{i} {values(argument)}\n"
            commands += self._probes(n % 250, vector)
        return (f"[require]\nGLSL >= {self.signature.version / 100:.2f}\n\n"
                f"[vertex shader]\n{VERTEX_SHADER}\n[fragment shader]\n{shader}\n"
                f"[test]\n{commands}")


def all_tests(modes=MODES):
    """The generated tests of the given modes: ``compare`` one per signature, ``if`` one per
    signature returning bool, ``scaled`` one per signature of a float result, ``const`` a
    signature's vectors CONSTANT_PART at a time."""
    table = sorted(suite().items())
    tests = []
    for signature, vectors in table:
        base = signature.rettype.base
        if "compare" in modes:
            tests.append(ShaderTest(signature, vectors))
        if "if" in modes and signature.rettype.name == "bool":
            tests.append(ShaderTest(signature, vectors, "if"))
        if "scaled" in modes and base == "float":
            tests.append(ShaderTest(signature, vectors, "scaled"))
        if "const" in modes:
            starts = range(0, len(vectors), CONSTANT_PART)
            tests += [ShaderTest(signature, vectors[k:k + CONSTANT_PART], "const",
                                 k // CONSTANT_PART if len(starts) > 1 else None)
                      for k in starts]
    return tests


def write_tests(tests, directory):
    """Write each test under ``directory``; return their paths."""
    paths = []
    for test in tests:
        path = os.path.join(directory, test.filename)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(test.text())
        paths.append(path)
    return paths
