"""Where the data from outside the repository is: the original project's scenes (with their
reference images), the specification and the published R500 programs. They sit in ``shared``
beside the checkout (``../shared`` from its root), or in the directory ``$THEIA_SHARED`` names.

Tests that need them take the fixtures ``scenes_dir``, ``r500_programs_dir`` or ``spec_dir``
(tests/conftest.py): without the data they are skipped, each reported at the test with one
line naming what is missing and how to provide it. Tests parametrised over the data use the
names below (``SCENE_NAMES``, ``PUBLISHED_R500``), never a directory listing, so that they skip
one by one rather than vanish; ``tests/test_shared_data.py`` checks that the directories hold
exactly these."""

import os
from pathlib import Path

import pytest

from tests.helpers import REPO

#: the environment variable that names the shared data's directory
ENVIRONMENT = "THEIA_SHARED"


def shared_dir():
    """``$THEIA_SHARED`` if set, else ``shared`` beside the checkout."""
    named = os.environ.get(ENVIRONMENT)
    return Path(named) if named else REPO.parent / "shared"


SHARED = shared_dir()
#: the original scenes in the theia-2010 format, each with its Reference.ppm
SCENES_DIR = SHARED / "scenes" / "theia-2010"
#: the specification (theia-isa.md, theia-system.md, r500-us.md)
SPEC_DIR = SHARED / "spec"
#: the published hand-written and Mesa-compiled R500 programs (``NAME.inc``)
R500_PROGRAMS_DIR = SHARED / "r500" / "programs"

SCENE_NAMES = ("example1", "example3", "shaders")
PUBLISHED_R500 = (
    "hw-clear", "hw-length", "hw-shadertoy_circle", "hw-shadertoy_palette", "hw-texture",
    "hw-texture_blur_horizontal", "mesa-length", "mesa-shadertoy_circle_sin", "mesa-texture",
    "mesa-texture_dual",
)


def missing(path, what):
    """The one-line reason to skip when ``path`` (``what`` it holds) is absent, else None."""
    if Path(path).exists():
        return None
    return (f"{what} not found: {path} is missing (put the project's shared data beside the "
            f"checkout as ../shared, or set {ENVIRONMENT} to its directory)")


def require(path, what):
    """``path``, or skip the calling test with the one-line reason."""
    reason = missing(path, what)
    if reason:
        pytest.skip(reason)
    return Path(path)

