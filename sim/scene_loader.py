"""The scene a tool is given: ``load_any_scene`` is what every tool loads a scene with (a
theia-2010 directory, sim/scene.py; a .toml/.json scene description, sim/scene_import.py; the
built-in ``demo`` and ``demo-lit``, sim/demo_scene.py), with the R500 program of ``--shader``,
``--constants`` and ``--uniforms`` when they are given (``add_shader_arguments`` puts them on a
tool's command line). The scene it returns is complete: nothing is set on it afterwards."""

import dataclasses

from sim.demo_scene import demo_lit_scene, demo_scene
from sim.r500.shader_config import load_constants, load_shading, with_uniforms
from sim.scene import SceneError, load_scene
from sim.scene_import import import_scene

__all__ = ["SCENE_ARGUMENT_HELP", "add_shader_arguments", "load_any_scene", "scene_from_arguments",
           "shading_for"]

#: the scene argument of every tool that loads one with ``load_any_scene``
SCENE_ARGUMENT_HELP = ("scene directory (theia-2010 format), a .toml/.json scene description, "
                       "'demo', or 'demo-lit' (the demo lit by an R500 program); "
                       "'demo:WxH' for another size (128x128 by default)")


def add_shader_arguments(parser):
    """``--shader``, ``--constants`` and ``--uniforms`` (``scene_from_arguments`` reads them)."""
    parser.add_argument("--shader", help=(
        "shade the hits with this R500 program in place of PIXELSHADER: a GLSL .frag (compiled "
        "by firmware.glsl), a .asm/.inc/.hex/.bin file, or one of ours in "
        "firmware/r500_shaders by file name (lit.frag) or bare name (lit: lit.asm)"))
    parser.add_argument("--constants", help=(
        "an assembly program's constants: a .json or .toml file of index = [r, g, b, a] "
        "(numbers or \"0x...\" bit patterns)"))
    parser.add_argument("--uniforms", help=(
        "a GLSL program's uniforms by name: a .json or .toml file of name = value(s)"))


def scene_from_arguments(args):
    """``load_any_scene`` of a parsed command line with ``scene`` and the shader arguments."""
    return load_any_scene(args.scene, args.shader, args.constants, args.uniforms)


def shading_for(scene, program=None, constants=None, uniforms=None):
    """The R500 program of ``--shader``/``--constants``/``--uniforms``: ``program`` replaces
    the scene's own (with ``constants`` or ``uniforms``, or none); ``constants`` or
    ``uniforms`` alone replace those of the scene's."""
    if program:
        return load_shading(program, constants, uniforms)
    given = "--constants" if constants else "--uniforms"
    if scene.shader is None:
        raise ValueError(f"{given}: scene '{scene.name}' has no R500 program (give --shader)")
    if constants and scene.shader.interface is not None:
        raise ValueError(f"--constants: the program of scene '{scene.name}' is GLSL "
                         f"({scene.shader.source}): give its uniforms by name with --uniforms")
    shading = scene.shader
    if constants:
        shading = dataclasses.replace(shading, constants=load_constants(constants))
    return with_uniforms(shading, uniforms) if uniforms else shading


def _demo_size(name, size):
    """``demo_scene``'s size arguments for 'WxH' (none for '')."""
    if not size:
        return {}
    width, _, height = size.partition("x")
    if not (width.isdigit() and height.isdigit() and 0 < int(height) <= int(width) * 4
            and 0 < int(width) <= 4096 and int(height) <= 4096):
        raise SceneError(name, "the demo's size is WIDTHxHEIGHT, e.g. demo:320x240")
    return {"size": int(width), "height": int(height), "bands": min(4, int(height))}


def load_any_scene(name, shader=None, constants=None, uniforms=None):
    """The scene ``name`` names (SCENE_ARGUMENT_HELP): ``demo`` is the built-in demo scene, a
    .toml/.json path a scene description (docs/scene-import.md), anything else a scene
    directory. ``demo-lit`` is the demo scene shaded by an R500 program (docs/r500-shading.md).
    ``shader``, ``constants``, ``uniforms``: as ``shading_for``'s. Problems raise SceneError
    (ShaderSourceError for a .frag that does not compile; ValueError for ``constants`` or
    ``uniforms`` without a program)."""
    base, _, size = str(name).partition(":")
    if base in ("demo", "demo-lit"):
        scene = (demo_scene if base == "demo" else demo_lit_scene)(**_demo_size(name, size))
    elif str(name).lower().endswith((".toml", ".json")):
        scene = import_scene(name)
    else:
        scene = load_scene(name)
    if shader or constants or uniforms:
        scene = dataclasses.replace(scene, shader=shading_for(scene, shader, constants, uniforms))
    return scene
