"""The data outside the repository (tests/helpers/shared_data.py): where it is looked for, that
its directories hold exactly what the tests are parametrised over, and the one-line reason a
test is skipped without it."""

import pytest

from tests.helpers import REPO, shared_data


def test_shared_data_is_found_beside_the_checkout_or_where_the_variable_says(monkeypatch,
                                                                                tmp_path):
    monkeypatch.delenv(shared_data.ENVIRONMENT, raising=False)
    assert shared_data.shared_dir() == REPO.parent / "shared"
    monkeypatch.setenv(shared_data.ENVIRONMENT, str(tmp_path))
    assert shared_data.shared_dir() == tmp_path


def test_a_missing_directory_is_one_line_naming_it_and_the_variable(tmp_path):
    absent = tmp_path / "nothing"
    reason = shared_data.missing(absent, "the original scene example3")
    assert "\n" not in reason
    assert reason.startswith("the original scene example3 not found")
    assert str(absent) in reason and "../shared" in reason and shared_data.ENVIRONMENT in reason
    assert shared_data.missing(tmp_path, "anything") is None
    with pytest.raises(pytest.skip.Exception, match="example3 not found"):
        shared_data.require(absent, "the original scene example3")


def test_the_scenes_are_the_three_originals(scenes_dir):
    assert sorted(p.name for p in scenes_dir.iterdir() if p.is_dir()) == \
        sorted(shared_data.SCENE_NAMES)
    for name in shared_data.SCENE_NAMES:
        assert (scenes_dir / name / "Reference.ppm").is_file()


def test_the_published_r500_programs_are_the_ten_named(r500_programs_dir):
    assert sorted(p.stem for p in r500_programs_dir.glob("*.inc")) == \
        sorted(shared_data.PUBLISHED_R500)
    assert len(shared_data.PUBLISHED_R500) == 10


def test_the_spec_is_there(spec_dir):
    assert {"theia-isa.md", "theia-system.md", "r500-us.md"} <= \
        {p.name for p in spec_dir.iterdir()}
