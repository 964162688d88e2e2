"""Failing path groups of a placed ECP5 netlist: which modules' paths miss the clock, and why.

    python -m bench.placed_paths --cores 4 [--freq 75] [--seed 1] [--out DIR]   # place, then rank
    python -m bench.placed_paths DIR/placed.json [--freq 75]                     # rank only
    python -m bench.placed_paths --routed DIR/nextpnr-report.json [--freq 75]    # after routing
    [--groups 30] [--paths 8] [--json]

Routing four cores takes hours; placing them about fifteen minutes (``hdl.build``'s
``place_only``), and nextpnr then reports one number. This reads the placed netlist (packed
cells with their ``NEXTPNR_BEL``), estimates every register-to-register path with the cell
delays of ``bench.paths`` and a routing delay that grows with the distance between the cells
(fitted by eye to the nets of a routed 1-core top's critical path, 0.9-4.5 ns: 0.9 ns +
0.045 ns per tile of Manhattan distance, 0.3 ns inside a tile), and groups the paths that miss
the period by (start module, end module), worst path of each group shown. Use it for the
ranking: on one 4-core placement it found 15,093 endpoints over 13.3 ns, 13,730 of them from
the IO units into the cores' register files (the reason for the skid buffer on that path).

``--routed``: a routed build's nextpnr report (``hdl.build`` writes it with every net's
timing): its failing endpoints (register, block-RAM and LUT-RAM inputs whose routed arrival is
over the period) grouped by the module they end in, with the worst of each. nextpnr's own
report names one path per clock; this lists everything one build has to fix. (nextpnr's
arrivals count from the clock's source, not from the launching register's clock pin: the
offset between its critical path's arrival and the path's own length is taken off them.)

It also estimates the routing demand of every tile (RUDY: each net spreads (w + h) / (w * h)
over its pins' bounding box) and names the hottest tiles with the modules whose nets load them
most: a spot several times the chip's mean is where the router will struggle.
"""

import argparse
import json
import re
import sys
from collections import Counter, defaultdict

from hdl.build import build_board, summary, BuildError, PLACED, PLACERS
from hdl.config import preset
from bench.paths import (LUT_DELAY, MUX_DELAY, CARRY_IN_DELAY, CARRY_THROUGH, CARRY_SUM,
                         FF_CLK_TO_Q, BRAM_CLK_TO_Q, LUTRAM_READ, MULT_DELAY, SETUP)

TILE_DELAY = 0.045          # ns per tile of Manhattan distance
NET_DELAY = 0.9             # ns for any route leaving the tile
LOCAL_DELAY = 0.3           # ns inside a tile
DEDICATED = ("FCI", "FXA", "FXB")         # carry and wide-mux inputs: no general routing
_ENDPOINTS = {"TRELLIS_FF": ("M", "CE", "LSR"),
              "TRELLIS_COMB": ("WAD0", "WAD1", "WAD2", "WAD3", "WD", "WRE")}   # (LUT RAM)


def position(cell):
    m = re.match(r"X(\d+)/Y(\d+)/", cell["attributes"].get("NEXTPNR_BEL", ""))
    return (int(m.group(1)), int(m.group(2))) if m else None


def route_delay(a, b):
    if a is None or b is None:
        return NET_DELAY
    distance = abs(a[0] - b[0]) + abs(a[1] - b[1])
    return LOCAL_DELAY if distance == 0 else NET_DELAY + TILE_DELAY * distance


def _arcs(cell, port):
    """(output port, delay) reached combinationally from input ``port`` of a packed cell."""
    kind, mode = cell["type"], cell["parameters"].get("MODE")
    if kind == "TRELLIS_COMB":
        if mode == "CCU2":
            if port == "FCI":
                return [("F", CARRY_SUM), ("FCO", CARRY_THROUGH)]
            return [("F", CARRY_IN_DELAY), ("FCO", CARRY_IN_DELAY)] if port in "ABCD" else []
        if mode == "DPRAM":
            return [("F", LUTRAM_READ)] if port in "ABCD" else []
        if mode == "RAMW_BLOCK":
            return []
        if port in "ABCD":
            return [("F", LUT_DELAY), ("OFX", LUT_DELAY + MUX_DELAY)]
        return [("OFX", MUX_DELAY)] if port in ("M", "FXA", "FXB") else []
    if kind == "TRELLIS_RAMW":
        return [(f"{p}{i}", 0.1) for p in ("WADO", "WDO") for i in range(4)]
    if kind == "MULT18X18D" and re.match(r"[AB]\d+$", port):
        return [(f"P{i}", MULT_DELAY) for i in range(36)]
    return []


def _launches(cell):
    """(output port, clock-to-out) of a sequential cell's outputs."""
    if cell["type"] == "TRELLIS_FF":
        return [("Q", FF_CLK_TO_Q)]
    if cell["type"] == "DP16KD":
        return [(p, BRAM_CLK_TO_Q) for p, d in cell["port_directions"].items()
                if d == "output"]
    return []


def _is_endpoint(cell, port):
    allowed = _ENDPOINTS.get(cell["type"])
    if cell["type"] == "DP16KD":
        return not port.startswith("CLK")
    if cell["type"] == "TRELLIS_COMB" and cell["parameters"].get("MODE") != "DPRAM":
        return False
    return allowed is not None and port in allowed


def module_of(cell_name):
    """The module a cell belongs to, cores folded together (``core2`` -> ``coreN``)."""
    parts = cell_name.split(".")[:-1][:4]
    return re.sub(r"core\d+", "coreN", ".".join(parts))


def analyse(netlist, period):
    """(endpoint count, failing endpoints [(arrival, start node, end cell, end port)], path
    function): longest arrival times through the packed netlist."""
    cells = netlist["modules"]["top"]["cells"]
    driver, where = {}, {name: position(cell) for name, cell in cells.items()}
    for name, cell in cells.items():
        for port, bits in cell["connections"].items():
            if cell["port_directions"].get(port) == "output":
                for bit in bits:
                    if isinstance(bit, int):
                        driver[bit] = (name, port)

    def inputs(name, cell):
        for port, bits in cell["connections"].items():
            if cell["port_directions"].get(port) == "input":
                for bit in bits:
                    if isinstance(bit, int) and bit in driver:
                        yield port, driver[bit]

    successors, waiting = defaultdict(list), Counter()
    for name, cell in cells.items():
        for port, source in inputs(name, cell):
            for out_port, delay in _arcs(cell, port):
                net = 0.0 if port in DEDICATED else route_delay(where[source[0]], where[name])
                successors[source].append(((name, out_port), net + delay))
                waiting[(name, out_port)] += 1
    arrival, previous = {}, {}
    for name, cell in cells.items():
        for port, delay in _launches(cell):
            arrival[(name, port)], previous[(name, port)] = delay, None
    nodes = set(successors) | {n for s in successors.values() for n, _ in s} | set(arrival)
    ready = [n for n in nodes if waiting[n] == 0]
    while ready:                        # longest path, in topological order
        node = ready.pop()
        for nxt, delay in successors.get(node, ()):
            if node in arrival and arrival[node] + delay > arrival.get(nxt, -1.0):
                arrival[nxt], previous[nxt] = arrival[node] + delay, node
            waiting[nxt] -= 1
            if waiting[nxt] == 0:
                ready.append(nxt)
    ends = []
    for name, cell in cells.items():
        for port, source in inputs(name, cell):
            if _is_endpoint(cell, port) and source in arrival:
                t = arrival[source] + route_delay(where[source[0]], where[name]) + SETUP
                ends.append((t, source, name, port))

    def path(node):
        out = []
        while node is not None:
            out.append((node[0], node[1], where[node[0]], round(arrival[node], 2)))
            node = previous[node]
        return out[::-1]

    failing = sorted((e for e in ends if e[0] > period), reverse=True)
    return len(ends), failing, path


def routing_demand(netlist, hottest=10, max_area=3000):
    """(mean demand, [(tile, demand, [(module, share), ...])] of the ``hottest`` tiles).
    Nets with a bounding box over ``max_area`` tiles (clock, resets) are left out."""
    import numpy as np
    cells = netlist["modules"]["top"]["cells"]
    pins, source = defaultdict(list), {}
    for name, cell in cells.items():
        xy = position(cell)
        if xy is None:
            continue
        for port, bits in cell["connections"].items():
            for bit in bits:
                if isinstance(bit, int):
                    pins[bit].append(xy)
                    if cell["port_directions"].get(port) == "output":
                        source[bit] = name
    size = (max(x for p in pins.values() for x, _ in p) + 1,
            max(y for p in pins.values() for _, y in p) + 1)
    demand = np.zeros(size)
    by_module = defaultdict(lambda: np.zeros(size))
    for bit, xys in pins.items():
        if len(xys) < 2 or bit not in source:
            continue
        xs, ys = [x for x, _ in xys], [y for _, y in xys]
        w, h = max(xs) - min(xs) + 1, max(ys) - min(ys) + 1
        if w * h > max_area:
            continue
        box = (slice(min(xs), max(xs) + 1), slice(min(ys), max(ys) + 1))
        demand[box] += (w + h) / (w * h)
        by_module[module_of(source[bit])][box] += (w + h) / (w * h)
    hot = []
    for index in np.argsort(demand, axis=None)[::-1][:hottest]:
        x, y = np.unravel_index(index, size)
        shares = sorted(((float(m[x, y]), name) for name, m in by_module.items()),
                        reverse=True)[:3]
        hot.append(((int(x), int(y)), round(float(demand[x, y]), 1),
                    [(name, round(share, 1)) for share, name in shares]))
    return round(float(demand[demand > 0].mean()), 1), hot


def _path_ends(report):
    """{(cell, port): worst arrival} of the sinks that end a path (register, block-RAM and
    LUT-RAM inputs) in a routed nextpnr report's net timings."""
    ends = {}
    for net in report.get("detailed_net_timings", []):
        for sink in net["endpoints"]:
            cell, port = sink["cell"], sink["port"]
            if (port in ("DI", "M", "CE", "LSR") or port.startswith(("WAD", "WD", "WRE"))
                    or re.match(r"(ADA|ADB|DIA|DIB|CEA|CEB|WEA|WEB)\d*$", port)):
                ends[cell, port] = max(ends.get((cell, port), 0.0), max(sink["delay"]))
    return ends


def clock_offset(report, ends):
    """Arrival at the end of nextpnr's critical register-to-register path minus that path's
    length: what the report's arrivals count before the launching register (0 without one)."""
    for critical in report.get("critical_paths", []):
        if critical["from"] == critical["to"] and "async" not in critical["from"]:
            steps = critical["path"]
            end = (steps[-1]["to"]["cell"], steps[-1]["to"]["port"])
            if end in ends:
                return ends[end] - sum(step["delay"] for step in steps)
    return 0.0


def routed_endpoints(report, period):
    """(endpoint count, {end module: [count, worst arrival, end cell, end port]}) of a routed
    nextpnr report (arrivals from the launching clock edge: ``clock_offset`` taken off)."""
    ends = _path_ends(report)
    offset = clock_offset(report, ends)
    groups = {}
    for (cell, port), arrival in ends.items():
        arrival -= offset
        if arrival <= period:
            continue
        group = groups.setdefault(module_of(cell), [0, 0.0, cell, port])
        group[0] += 1
        if arrival > group[1]:
            group[1:] = [round(arrival, 2), cell, port]
    return len(ends), groups


def path_groups(failing, path):
    """{(start module, end module): [count, worst arrival, worst path, end cell, end port]}"""
    groups = {}
    for t, source, end, port in failing:
        nodes = path(source)
        key = (module_of(nodes[0][0]), module_of(end))
        if key not in groups:
            groups[key] = [0, round(t, 2), nodes, end, port]
        groups[key][0] += 1
    return groups


def _short(name, width=100):
    return name if len(name) <= width else name[:width - 3] + "..."


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.placed_paths",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("placed", nargs="?", help="a placed netlist (nextpnr --write)")
    parser.add_argument("--routed", metavar="REPORT",
                        help="a routed build's nextpnr report (DIR/nextpnr-report.json)")
    parser.add_argument("--cores", type=int,
                        help="place the ULX3S-85F top (the ulx3s preset) of this many cores")
    parser.add_argument("--freq", type=float, default=75.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--placer", choices=PLACERS, default=None,
                        help="default: hdl.build.default_tools")
    parser.add_argument("--out", default=None)
    parser.add_argument("--groups", type=int, default=30)
    parser.add_argument("--paths", type=int, default=8, help="worst paths shown")
    parser.add_argument("--hot", type=int, default=8, help="hottest tiles shown")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.routed is not None:
        return _routed(args)
    if (args.placed is None) == (args.cores is None):
        parser.error("give a placed netlist, --cores N or --routed REPORT")
    report = None
    placed = args.placed
    if args.cores is not None:
        out = args.out or f"build/placed-{args.cores}c-{args.freq:g}mhz"
        try:
            report = build_board("ulx3s-85f", preset("ulx3s", cores=args.cores), args.freq, out,
                                 seed=args.seed, placer=args.placer, place_only=True,
                                 log=lambda text: print(text, file=sys.stderr),
                                 config_name="ulx3s")
        except (BuildError, ValueError) as e:
            sys.exit(f"error: {e}")
        print(summary(report), file=sys.stderr)
        placed = f"{out}/{PLACED}"
    try:
        with open(placed) as f:
            netlist = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"error: {placed}: {e}")
    period = 1000.0 / args.freq
    endpoints, failing, path = analyse(netlist, period)
    groups = sorted(path_groups(failing, path).items(), key=lambda kv: -kv[1][0])
    result = {"placed": placed, "period_ns": round(period, 2), "endpoints": endpoints,
              "failing": len(failing), "worst_ns": round(failing[0][0], 2) if failing else None,
              "groups": [{"from": k[0], "to": k[1], "endpoints": g[0], "worst_ns": g[1]}
                         for k, g in groups[:args.groups]]}
    mean_demand, hot = routing_demand(netlist, args.hot)
    result["routing_demand"] = {"mean": mean_demand,
                                "hottest": [{"tile": t, "demand": d, "modules": m}
                                            for t, d, m in hot]}
    if report is not None:
        result["placement"] = report
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{endpoints} endpoints, {len(failing)} over {period:.2f} ns"
          + (f"; worst {failing[0][0]:.2f} ns" if failing else ""))
    for (start, end), (count, worst, _, _, _) in groups[:args.groups]:
        print(f"{count:7d} {worst:7.2f} ns  {start} -> {end}")
    for (start, end), (count, worst, nodes, end_cell, end_port) in groups[:args.paths]:
        print(f"\n{worst:.2f} ns: {start} -> {end}")
        for k, (cell, port, xy, t) in enumerate(nodes):
            if port == "FCO" and k + 1 < len(nodes) and nodes[k + 1][1] == "FCO":
                continue                        # (inside a carry chain: its last step shown)
            print(f"  {t:6.2f}  {xy}  {_short(cell)}.{port}")
        print(f"          {_short(end_cell)}.{end_port}")
    print(f"\nrouting demand (RUDY): mean {mean_demand} per tile; hottest:")
    for tile, value, modules in hot:
        print(f"  {tile} {value:6.1f}  " + ", ".join(f"{m} {s}" for m, s in modules))


def _routed(args):
    try:
        with open(args.routed) as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"error: {args.routed}: {e}")
    if "detailed_net_timings" not in report:
        sys.exit(f"error: {args.routed}: no net timings (nextpnr --detailed-timing-report)")
    period = 1000.0 / args.freq
    ends, groups = routed_endpoints(report, period)
    ranked = sorted(groups.items(), key=lambda kv: -kv[1][0])[:args.groups]
    failing = sum(g[0] for g in groups.values())
    if args.json:
        print(json.dumps({"report": args.routed, "period_ns": round(period, 2),
                          "endpoints": ends, "failing": failing,
                          "groups": [{"to": k, "endpoints": g[0], "worst_ns": g[1],
                                      "worst_end": f"{g[2]}.{g[3]}"} for k, g in ranked]},
                         indent=2))
        return
    print(f"{ends} endpoints, {failing} with a routed arrival over {period:.2f} ns")
    for module, (count, worst, cell, port) in ranked:
        print(f"{count:7d} {worst:7.2f} ns  -> {module}  ({_short(cell, 80)}.{port})")


if __name__ == "__main__":
    main()
