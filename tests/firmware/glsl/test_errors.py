"""Malformed, unsupported and over-limit shaders: each is one deliberate error,
``file:line:column: problem``, never a traceback (the CLI prints it and exits 2)."""

import pytest

from firmware.glsl import GlslError, Limits, compile_glsl
from firmware.glsl.__main__ import main

M = "void main() { gl_FragColor = vec4(1.0); }\n"

ERRORS = [
    ('color_and_data',
     'void main() {\n  gl_FragColor = vec4(1.0);\n  gl_FragData[0] = vec4(0.0);\n}\n',
     'color_and_data.frag:3:3: a shader may write gl_FragColor or gl_FragData, not both'),
    ('missing_semicolon',
     'void main() {\n  float x = 1.0\n  gl_FragColor = vec4(x);\n}\n',
     "missing_semicolon.frag:3:3: expected ';' after a declaration, got 'gl_FragColor'"),
    ('undeclared',
     'void main() {\n  gl_FragColor = vec4(y);\n}\n',
     "undeclared.frag:2:23: 'y' is not declared"),
    ('assign_type',
     'void main() {\n  vec3 v = vec4(1.0);\n}\n',
     "assign_type.frag:2:12: initialiser of 'v': cannot convert 'vec4' to 'vec3'"),
    ('operand_types',
     'void main() {\n  vec4 v = vec4(vec3(1.0) + vec2(1.0), 1.0);\n}\n',
     "operand_types.frag:2:27: operator '+' cannot be applied to 'vec3' and 'vec2'"),
    ('unknown_function',
     'void main() {\n  gl_FragColor = vec4(frobnicate(1.0));\n}\n',
     "unknown_function.frag:2:23: no function called 'frobnicate'"),
    ('builtin_args',
     'void main() {\n  float d = dot(vec3(1.0), vec2(1.0));\n}\n',
     'builtin_args.frag:2:13: no dot() takes (vec3, vec2)'),
    ('write_uniform',
     'uniform float u;\nvoid main() {\n  u = 1.0;\n}\n',
     "write_uniform.frag:3:3: assignment: 'u' is a uniform"),
    ('write_const',
     'const float k = 1.0;\nvoid main() {\n  k += 1.0;\n}\n',
     "write_const.frag:3:3: assignment: 'k' is a constant"),
    ('recursion',
     'float f(float x) {\n  return x > 0.0 ? f(x - 1.0) : 0.0;\n}\nvoid main() { gl_FragColor ='
     ' vec4(f(2.0)); }\n',
     'recursion.frag:2:20: recursion is not supported (f -> f)'),
    ('mutual_recursion',
     'float g(float x);\nfloat f(float x) { return g(x); }\nfloat g(float x) { return f(x); }\n'
     'void main() { gl_FragColor = vec4(f(2.0)); }\n',
     'mutual_recursion.frag:2:27: recursion is not supported (g -> f -> g)'),
    ('undefined_function',
     'float f(float x);\nvoid main() {\n  gl_FragColor = vec4(f(1.0));\n}\n',
     'undefined_function.frag:3:23: f() is declared but never defined'),
    ('void_return_value',
     'void f() {\n  return 1.0;\n}\nvoid main() { gl_FragColor = vec4(1.0); }\n',
     'void_return_value.frag:2:10: f() returns void, not a value'),
    ('missing_return_value',
     'float f() {\n  return;\n}\nvoid main() { gl_FragColor = vec4(1.0); }\n',
     "missing_return_value.frag:2:3: f() must return a 'float'"),
    ('break_outside_loop',
     'void main() {\n  break;\n}\n',
     'break_outside_loop.frag:2:3: break outside a loop'),
    ('texture3d',
     'uniform sampler3D s;\nvoid main() {\n  gl_FragColor = texture3D(s, vec3(0.0));\n}\n',
     'texture3d.frag:3:18: texture3D() is not supported: the R500 stage here samples 2D texture'
     's only (sampler2D with texture2D and texture2DProj)'),
    ('vertex_only',
     'uniform sampler2D s;\nvoid main() {\n  gl_FragColor = texture2DLod(s, vec2(0.0), 0.0);\n}'
     '\n',
     'vertex_only.frag:3:18: texture2DLod() is only available in vertex shaders'),
    ('varying',
     'varying vec2 uv;\nvoid main() {\n  gl_FragColor = vec4(uv, 0.0, 1.0);\n}\n',
     "varying.frag:3:23: varying 'uv' has no value here: this GPU's fragment stage has no varyi"
     "ngs (its inputs are gl_FragCoord, gl_FrontFacing and the theia_* hit data)"),
    ('gl_color',
     'void main() {\n  gl_FragColor = gl_Color;\n}\n',
     "gl_color.frag:2:18: 'gl_Color' is not available: this GPU's fragment stage has no varying"
     "s, vertex state or fixed-function uniforms (its inputs are gl_FragCoord, gl_FrontFacing a"
     "nd the theia_* hit data)"),
    ('attribute',
     'attribute vec4 pos;\nvoid main() { gl_FragColor = vec4(1.0); }\n',
     'attribute.frag:1:16: attribute variables are for vertex shaders'),
    ('version',
     '#version 130\nvoid main() { gl_FragColor = vec4(1.0); }\n',
     'version.frag:1:10: GLSL version 130 is not supported (only 110 and 120)'),
    ('extension',
     '#extension GL_ARB_texture_rectangle : require\nvoid main() { gl_FragColor = vec4(1.0); }'
     '\n',
     "extension.frag:1:12: extension 'GL_ARB_texture_rectangle' is not supported"),
    ('error_directive',
     '#if 1\n#error this shader is not ready\n#endif\nvoid main() { gl_FragColor = vec4(1.0); }'
     '\n',
     'error_directive.frag:2:1: #error this shader is not ready'),
    ('unterminated_comment',
     'void main() {\n  /* never closed\n}\n',
     'unterminated_comment.frag:2:3: unterminated /* comment'),
    ('if_without_endif',
     '#ifdef FOO\nvoid main() { gl_FragColor = vec4(1.0); }\n',
     'if_without_endif.frag:1:2: #ifdef without #endif'),
    ('undefined_macro',
     '#if FOO > 1\n#endif\nvoid main() { gl_FragColor = vec4(1.0); }\n',
     "undefined_macro.frag:1:5: undefined macro 'FOO' in #if"),
    ('malformed_number',
     'void main() {\n  float x = 1.0e;\n}\n',
     "malformed_number.frag:2:13: malformed number '1.0e'"),
    ('reserved_word',
     'void main() {\n  goto end;\n}\n',
     "reserved_word.frag:2:3: 'goto' is a reserved word"),
    ('reserved_operator',
     'void main() {\n  int a = 1 & 2;\n}\n',
     "reserved_operator.frag:2:13: operator '&' is reserved in GLSL 1.10 and 1.20"),
    ('swizzle_range',
     'void main() {\n  vec2 v = vec2(1.0);\n  float z = v.z;\n}\n',
     "swizzle_range.frag:3:15: swizzle 'z' reads past the end of a 'vec2'"),
    ('swizzle_mixed',
     'void main() {\n  vec4 v = vec4(1.0);\n  vec2 w = v.xg;\n}\n',
     "swizzle_mixed.frag:3:14: 'xg' is not a swizzle (one of xyzw, rgba, stpq)"),
    ('index_range',
     'void main() {\n  float a[2];\n  a[2] = 1.0;\n}\n',
     'index_range.frag:3:5: index 2 is out of range (0 to 1)'),
    ('array_size',
     'uniform int n;\nvoid main() {\n  float a[n];\n}\n',
     'array_size.frag:3:11: an array size must be a constant expression'),
    ('const_no_init',
     'void main() {\n  const float k;\n}\n',
     "const_no_init.frag:2:15: const 'k' needs an initialiser"),
    ('no_main',
     'float f() { return 1.0; }\n',
     'no_main.frag:1:1: the shader has no main() function'),
    ('implicit_110',
     '#version 110\nvoid main() {\n  float x = 1;\n}\n',
     "implicit_110.frag:3:13: initialiser of 'x': cannot convert 'int' to 'float' (GLSL 1.10 ha"
     "s no implicit int-to-float conversion)"),
    ('constructor_many',
     'void main() {\n  vec2 v = vec2(1.0, 2.0, 3.0);\n}\n',
     "constructor_many.frag:2:27: too many arguments to the 'vec2' constructor"),
    ('constructor_few',
     'void main() {\n  vec4 v = vec4(1.0, 2.0);\n}\n',
     "constructor_few.frag:2:12: not enough data for the 'vec4' constructor (2 of 4 components)"),
    ('redeclared',
     'void main() {\n  float x;\n  int x;\n}\n',
     "redeclared.frag:3:7: 'x' is already declared in this scope"),
    ('condition_type',
     'void main() {\n  if (1.0) discard;\n}\n',
     "condition_type.frag:2:7: the condition of if must be a bool, got 'float'"),
    ('bad_character',
     'void main() {\n  float x = 1.0 @ 2.0;\n}\n',
     "bad_character.frag:2:17: unexpected character '@'"),
    ('defined_twice',
     'float f() { return 1.0; }\nfloat f() { return 2.0; }\nvoid main() { gl_FragColor = vec4(1'
     '.0); }\n',
     'defined_twice.frag:2:7: f() is defined twice'),
    ('main_returns',
     'float main() {\n  return 1.0;\n}\n',
     'main_returns.frag:1:7: main() must return void'),
    ('argument_count',
     'float f(float a, float b) { return a + b; }\nvoid main() {\n  gl_FragColor = vec4(f(1.0))'
     ';\n}\n',
     'argument_count.frag:3:23: no f() takes (float)'),
    ('out_argument',
     'void f(out float a) { a = 1.0; }\nvoid main() {\n  f(2.0);\n}\n',
     'out_argument.frag:3:5: argument 1 of f() (out) needs an l-value (a variable, or an elemen'
     't or field of one)'),
    ('sampler_local',
     'void main() {\n  sampler2D s;\n}\n',
     "sampler_local.frag:2:13: 's': a sampler must be a uniform"),
    ('struct_member',
     'struct S { float a; };\nvoid main() {\n  S s = S(1.0);\n  float b = s.b;\n}\n',
     "struct_member.frag:4:15: 'struct S' has no member 'b'"),
]

LIMITS = [
    ('input_temporary',
     'void main() {\n  gl_FragColor = vec4(theia_Diffuse, 1.0);\n}\n',
     Limits(temporaries=5),
     "input_temporary.frag:2:16: the shader reads input temporary 7; the build has 5 "
     "temporaries"),
    ('temporaries',
     'uniform vec4 a, b, c;\nvoid main() {\n  vec4 x = a * b, y = b * c, z = a * c;\n  gl_FragC'
     'olor = x * y * z + x + y + z;\n}\n',
     Limits(temporaries=2, constants=256, instructions=512, samplers=16),
     "temporaries.frag:3:36: the shader needs more than 2 temporaries (the build's limit)"),
    ('constants',
     'uniform vec4 a, b;\nvoid main() {\n  gl_FragColor = a + b;\n}\n',
     Limits(temporaries=128, constants=1, instructions=512, samplers=16),
     "constants.frag:1:17: the shader needs more than 1 constant registers for its uniforms (th"
     "e build's limit)"),
    ('literals',
     'uniform vec4 a;\nvoid main() {\n  gl_FragColor = a * vec4(1.1, 2.2, 3.3, 4.4) + vec4(5.1,'
     ' 6.2, 7.3, 8.4);\n}\n',
     Limits(temporaries=128, constants=2, instructions=512, samplers=16),
     "literals.frag:3:47: the shader needs more than 2 constant registers for its uniforms and "
     "literals (the build's limit)"),
    ('instructions',
     'uniform vec4 a;\nvoid main() {\n  vec4 x = sin(a);\n  gl_FragColor = x;\n}\n',
     Limits(temporaries=128, constants=256, instructions=3, samplers=16),
     "instructions.frag:4:16: the shader needs more than 3 instructions (the build's limit)"),
    ('samplers',
     'uniform sampler2D s0;\nuniform sampler2D s1;\nuniform sampler2D s2;\nvoid main() {\n  gl_'
     'FragColor = texture2D(s0, vec2(0.0)) + texture2D(s1, vec2(0.0)) + texture2D(s2, vec2(0.0)'
     ');\n}\n',
     Limits(temporaries=128, constants=256, instructions=512, samplers=2),
     "samplers.frag:3:19: more than 2 samplers (the build's limit)"),
]


@pytest.mark.parametrize("name,source,message", ERRORS, ids=[e[0] for e in ERRORS])
def test_error(name, source, message):
    with pytest.raises(GlslError) as info:
        compile_glsl(source, f"{name}.frag")
    assert str(info.value) == message


@pytest.mark.parametrize("name,source,limits,message", LIMITS, ids=[e[0] for e in LIMITS])
def test_over_the_limits(name, source, limits, message):
    with pytest.raises(GlslError) as info:
        compile_glsl(source, f"{name}.frag", limits)
    assert str(info.value) == message


def test_cli_prints_one_line_and_exits_2(tmp_path, capsys):
    shader = tmp_path / "bad.frag"
    shader.write_text("void main() {\n  gl_FragColor = vec4(1.0) +;\n}\n")
    assert main([str(shader), "-o", str(tmp_path / "bad.asm")]) == 2
    err = capsys.readouterr().err
    assert err == f"{shader}:2:29: expected an expression, got ';'\n"
    assert not (tmp_path / "bad.asm").exists()


def test_cli_limits(tmp_path, capsys):
    shader = tmp_path / "big.frag"
    shader.write_text(LIMITS[-2][1])
    assert main([str(shader), "-o", str(tmp_path / "big.inc"), "--instructions", "3"]) == 2
    assert capsys.readouterr().err.endswith("the shader needs more than 3 instructions "
                                            "(the build's limit)\n")
