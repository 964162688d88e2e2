"""Shared pytest fixtures."""

from pathlib import Path

import pytest

#: the original project's scene directories, next to the checkout (``/work/shared`` beside ``/work/main``)
SCENES_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "scenes" / "theia-2010"


@pytest.fixture(scope="session")
def scenes_dir():
    """The theia-2010 scene directory; tests that need it are skipped (with the path) if absent."""
    if not SCENES_DIR.is_dir():
        pytest.skip(f"scene directory {SCENES_DIR} is not present")
    return SCENES_DIR
