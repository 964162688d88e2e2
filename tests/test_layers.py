"""Imports point one way (README, "Layers"): every import of every module of the project's
packages, those inside functions included, read with ``ast`` (nothing is imported), makes a
graph that has no cycle and keeps each layer to what it may use."""

import ast

import pytest

from tests.helpers import REPO

PACKAGES = ("hdl", "sim", "firmware", "boards", "bench", "host")
#: tables of the GPU's memories and registers: constants and plain functions beside the
#: instruction-set tables, for the RTL, the presets and the hosts alike
TABLES = ("hdl.gpu.scene_layout", "hdl.gpu.address_map")

#: what each layer may import, by module-name prefix; the longest prefix of a module names its
#: layer. (Inside a layer anything goes, short of a cycle.)
MAY_IMPORT = {
    "hdl": (),          # (a module of hdl/ with no layer below is refused)
    "hdl.lib": ("hdl.lib",),
    "hdl.isa": ("hdl.isa", "hdl.lib"),
    "hdl.gpu.scene_layout": ("hdl.isa", "hdl.lib"),
    "hdl.gpu.address_map": ("hdl.isa", "hdl.lib"),
    # (and the parts and modes a memory system is built for: tables of plain data)
    "hdl.config": ("hdl.isa", "hdl.lib", "hdl.mem.sdram_chip", "hdl.display.mode") + TABLES,
    "hdl.alu": ("hdl.alu", "hdl.lib", "hdl.isa", "hdl.config"),
    "hdl.core": ("hdl.core", "hdl.alu", "hdl.lib", "hdl.isa", "hdl.config"),
    # the R500 core runs its quads' flow control on the THEIA core's stack engine
    "hdl.r500": ("hdl.r500", "hdl.alu", "hdl.lib", "hdl.isa", "hdl.config",
                 "hdl.core.fc_engine"),
    # the board's memory and display units know nothing of THEIA
    "hdl.mem": ("hdl.mem", "hdl.lib"),
    "hdl.display": ("hdl.display", "hdl.lib"),
    "hdl.gpu": ("hdl.gpu", "hdl.core", "hdl.r500", "hdl.alu", "hdl.mem", "hdl.display",
                "hdl.lib", "hdl.isa", "hdl.config"),
    # the build command puts the board's top (boards/) and the firmware ROM into a bitstream
    "hdl.build": ("hdl", "boards", "firmware"),
    # the build's tools: nextpnr run under the routing watchdog, which reads its log
    "hdl.pnr": ("hdl.pnr", "hdl.route_watchdog", "hdl.nextpnr_log"),
    "hdl.route_watchdog": ("hdl.route_watchdog", "hdl.nextpnr_log"),
    "hdl.nextpnr_log": ("hdl.nextpnr_log",),
    "firmware": ("firmware", "hdl.isa"),
    "host": ("host", "hdl.isa") + TABLES,
    "sim": ("sim", "host", "hdl", "firmware"),
    "boards": ("boards", "sim", "host", "hdl", "firmware"),
    "bench": PACKAGES,
}


def _modules():
    """{module name: source path} of every module of the project's packages."""
    modules = {}
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            parts = list(path.relative_to(REPO).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


def _imports(name, is_package, text, modules):
    """(imported project module, line) of every import statement in a module's source."""
    package = name if is_package else name.rpartition(".")[0]

    def known(target):          # a module, or the module that holds the imported name
        while target and target not in modules:
            target = target.rpartition(".")[0]
        return target or None

    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
            targets = [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for target in targets:
            found = known(target)
            if found and found != name:
                yield found, node.lineno


@pytest.fixture(scope="module")
def graph():
    modules = _modules()
    return {name: sorted(set(_imports(name, path.name == "__init__.py", path.read_text(),
                                      modules)))
            for name, path in modules.items()}


def _cycle(graph):
    """One import cycle as a list of modules, or None (depth-first search)."""
    state, stack = {}, []

    def visit(name):
        state[name] = "open"
        stack.append(name)
        for target, _ in graph[name]:
            if state.get(target) == "open":
                return stack[stack.index(target):] + [target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        stack.pop()
        state[name] = "done"
        return None

    for name in sorted(graph):
        if name not in state:
            found = visit(name)
            if found:
                return found
    return None


def _layer(name):
    return max((prefix for prefix in MAY_IMPORT
                if name == prefix or name.startswith(prefix + ".")), key=len)


def _within(name, prefixes):
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def test_the_checker_sees_imports_inside_functions_and_cycles():
    modules = {"p.a": None, "p.b": None, "p.b.c": None}
    source = "import os\n\ndef f():\n    from p.b import thing\n    from .b import c\n"
    assert sorted(_imports("p.a", False, source, modules)) == [("p.b", 4), ("p.b.c", 5)]
    assert _cycle({"a": [("b", 1)], "b": [("a", 3)]}) == ["a", "b", "a"]
    assert _cycle({"a": [("b", 1)], "b": []}) is None


def test_every_module_has_a_layer(graph):
    for name in graph:
        assert _layer(name) is not None, name


def test_no_import_cycle(graph):
    cycle = _cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_layers_import_only_what_is_below_them(graph):
    wrong = [f"{name}:{line} imports {target}"
             for name, targets in sorted(graph.items()) for target, line in targets
             if not _within(target, MAY_IMPORT[_layer(name)])]
    assert not wrong, "\n".join(wrong)
