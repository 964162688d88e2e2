"""The scene a tool is given: ``load_any_scene`` is what every tool loads a scene with (a
theia-2010 directory, sim/scene.py; a .toml/.json scene description, sim/scene_import.py; the
built-in ``demo`` and ``demo-lit``, sim/demo_scene.py), with the R500 program of ``--shader`` and
``--constants`` when they are given. The scene it returns is complete: nothing is set on it
afterwards."""

import dataclasses

from sim.demo_scene import demo_lit_scene, demo_scene
from sim.r500.shader_config import load_constants, load_shading
from sim.scene import load_scene
from sim.scene_import import import_scene

__all__ = ["SCENE_ARGUMENT_HELP", "load_any_scene", "shading_for"]

#: the scene argument of every tool that loads one with ``load_any_scene``
SCENE_ARGUMENT_HELP = ("scene directory (theia-2010 format), a .toml/.json scene description, "
                       "'demo', or 'demo-lit' (the demo lit by an R500 program)")


def shading_for(scene, program=None, constants=None):
    """The R500 program of ``--shader``/``--constants``: ``program`` replaces the scene's own
    (with ``constants`` or none); ``constants`` alone replaces the constants of the scene's."""
    if program:
        return load_shading(program, constants)
    if scene.shader is None:
        raise ValueError(f"--constants: scene '{scene.name}' has no R500 program (give --shader)")
    return dataclasses.replace(scene.shader, constants=load_constants(constants))


def load_any_scene(name, shader=None, constants=None):
    """The scene ``name`` names (SCENE_ARGUMENT_HELP): ``demo`` is the built-in demo scene, a
    .toml/.json path a scene description (docs/scene-import.md), anything else a scene
    directory. ``demo-lit`` is the demo scene shaded by an R500 program (docs/r500-shading.md).
    ``shader``, ``constants``: as ``shading_for``'s. Problems raise SceneError (ValueError for
    ``constants`` without a program)."""
    if name == "demo":
        scene = demo_scene()
    elif name == "demo-lit":
        scene = demo_lit_scene()
    elif str(name).lower().endswith((".toml", ".json")):
        scene = import_scene(name)
    else:
        scene = load_scene(name)
    if shader or constants:
        scene = dataclasses.replace(scene, shader=shading_for(scene, shader, constants))
    return scene
