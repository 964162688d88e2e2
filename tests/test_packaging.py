"""What ``pip install .`` ships: every file of the project's packages, Python or not (the
firmware, the R500 programs and their constants, the fast backend's harness), so that an
installed copy runs from any directory. setuptools' own ``build_py`` (what a wheel is made of)
copies the packages of a copy of the checkout, and the copy must hold every file the checkout's
package directories hold."""

import os
import shutil
import subprocess
import sys
import tomllib

from tests.helpers import REPO

#: not part of a package: the tests (run from a checkout) and what Python writes
_SKIPPED = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")


def _top_level_packages():
    """Every directory of the checkout holding an ``__init__.py``, the tests aside."""
    return sorted(p.name for p in REPO.iterdir()
                  if (p / "__init__.py").is_file() and p.name != "tests")


def _files(root, packages):
    found = set()
    for package in packages:
        for directory, names, files in os.walk(root / package):
            names[:] = [n for n in names if n != "__pycache__" and not n.endswith(".egg-info")]
            found |= {str((root / directory / f).relative_to(root)) for f in files
                      if not f.endswith(".pyc")}
    return found


def test_every_package_is_declared():
    declared = tomllib.loads((REPO / "pyproject.toml").read_text())
    include = declared["tool"]["setuptools"]["packages"]["find"]["include"]
    assert sorted(pattern.rstrip("*") for pattern in include) == _top_level_packages()


def test_build_ships_every_file_of_the_packages(tmp_path):
    source = tmp_path / "source"
    source.mkdir()
    packages = _top_level_packages()
    for package in packages:
        shutil.copytree(REPO / package, source / package, ignore=_SKIPPED)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source)
    built = tmp_path / "built"
    done = subprocess.run([sys.executable, "-c", "from setuptools import setup; setup()",
                           "--quiet", "build_py", "--build-lib", str(built)],
                          cwd=source, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    missing = sorted(_files(REPO, packages) - _files(built, packages))
    assert not missing, f"not shipped (pyproject.toml's package-data): {missing}"
