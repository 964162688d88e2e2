"""bench.placed_paths: arrival times and path groups over a hand-made placed netlist (packed
cells with NEXTPNR_BEL, as nextpnr --write leaves them; no tools needed)."""

import json

import pytest

from bench.paths import FF_CLK_TO_Q, LUT_DELAY, CARRY_IN_DELAY, CARRY_SUM, SETUP
from bench.placed_paths import (analyse, path_groups, module_of, route_delay, main,
                                NET_DELAY, TILE_DELAY, LOCAL_DELAY)


def _cell(kind, bel, inputs, outputs, mode=None):
    return {"type": kind, "parameters": {"MODE": mode} if mode else {},
            "attributes": {"NEXTPNR_BEL": bel},
            "connections": {**inputs, **outputs},
            "port_directions": {**{p: "input" for p in inputs},
                                **{p: "output" for p in outputs}}}


def _netlist():
    # a.ff (0,0) -> a.lut (10,0) -> b.ff (10,0); a.ff -> carry (4,3) -> carry -> core1.ff (4,4)
    cells = {
        "top.a.ff": _cell("TRELLIS_FF", "X0/Y0/SLICEA.FF0", {"CLK": [1], "M": [9]}, {"Q": [2]}),
        "top.a.lut": _cell("TRELLIS_COMB", "X10/Y0/SLICEA.K0", {"A": [2]}, {"F": [3]}),
        "top.b.ff": _cell("TRELLIS_FF", "X10/Y0/SLICEB.FF0", {"CLK": [1], "M": [3]}, {"Q": [4]}),
        "top.c0": _cell("TRELLIS_COMB", "X4/Y3/SLICEA.K0", {"B": [2]}, {"FCO": [5]}, "CCU2"),
        "top.c1": _cell("TRELLIS_COMB", "X4/Y3/SLICEA.K1", {"FCI": [5]}, {"F": [6]}, "CCU2"),
        "top.core1.x.ff": _cell("TRELLIS_FF", "X4/Y4/SLICEA.FF1", {"CLK": [1], "M": [6]},
                                {"Q": [7]}),
    }
    return {"modules": {"top": {"cells": cells}}}


def test_arrival_times_follow_cell_delays_and_distance():
    assert route_delay((0, 0), (10, 0)) == pytest.approx(NET_DELAY + 10 * TILE_DELAY)
    assert route_delay((3, 3), (3, 3)) == LOCAL_DELAY
    endpoints, failing, path = analyse(_netlist(), period=0.0)
    assert endpoints == 2                   # the driven M inputs (a.ff's is not driven)
    by_end = {end: t for t, _, end, _ in failing}
    assert by_end["top.b.ff"] == pytest.approx(
        FF_CLK_TO_Q + route_delay((0, 0), (10, 0)) + LUT_DELAY + LOCAL_DELAY + SETUP)
    # the carry chain's FCI takes no routing; the sum's F leaves the tile
    assert by_end["top.core1.x.ff"] == pytest.approx(
        FF_CLK_TO_Q + route_delay((0, 0), (4, 3)) + CARRY_IN_DELAY + CARRY_SUM
        + route_delay((4, 3), (4, 4)) + SETUP)
    worst = max(failing)
    assert [node[0] for node in path(worst[1])] == ["top.a.ff", "top.c0", "top.c1"]


def test_failing_paths_are_grouped_by_start_and_end_module():
    assert module_of("logic.target.core3.core.valu.x_LUT4_Z") == "logic.target.coreN.core"
    _, failing, path = analyse(_netlist(), period=2.0)
    groups = path_groups(failing, path)
    assert set(groups) == {("top.a", "top.b"), ("top.a", "top.coreN.x")}
    assert all(count == 1 for count, *_ in groups.values())
    _, none_failing, _ = analyse(_netlist(), period=100.0)
    assert not none_failing


def test_cli_ranks_a_placed_netlist(tmp_path, capsys):
    placed = tmp_path / "placed.json"
    placed.write_text(json.dumps(_netlist()))
    main([str(placed), "--freq", "500", "--json"])
    result = json.loads(capsys.readouterr().out)
    assert result["failing"] == 2 and result["period_ns"] == 2.0
    assert result["routing_demand"]["hottest"][0]["tile"] == [4, 3]
    assert {(g["from"], g["to"]) for g in result["groups"]} == {("top.a", "top.b"),
                                                               ("top.a", "top.coreN.x")}
    with pytest.raises(SystemExit):
        main([])                            # neither a netlist nor --cores


def test_routing_demand_finds_the_tile_where_nets_pile_up():
    # bit 2: (0,0) -> (10,0), (4,3): 11 x 4 box, 15/44 per tile; bit 3 inside (10,0): 2;
    # bit 5 inside (4,3): 2; bit 6: (4,3) -> (4,4): 1 x 2 box, 1.5 per tile
    from bench.placed_paths import routing_demand
    mean, hot = routing_demand(_netlist(), hottest=2)
    (tile, demand, modules), (second, second_demand, _) = hot
    assert tile == (4, 3) and demand == pytest.approx(15 / 44 + 2 + 1.5, abs=0.05)
    assert second == (10, 0) and second_demand == pytest.approx(15 / 44 + 2, abs=0.05)
    assert modules[0][0] == "top"           # (top.c0, top.c1 drive the nets there)
    assert 0 < mean < demand


def _routed_report():
    """A routed nextpnr report: arrivals counted from the clock's source (2.0 ns before the
    launching register), the critical path 9.0 ns long into top.core1.x.ff."""
    def sink(cell, port, arrival):
        return {"cell": cell, "port": port, "delay": [arrival - 1.0, arrival]}
    step = {"delay": 9.0, "type": "routing", "from": {"cell": "top.a.ff", "port": "Q"},
            "to": {"cell": "top.core1.x.ff", "port": "DI"}}
    return {"critical_paths": [{"from": "posedge clk", "to": "posedge clk", "path": [step]}],
            "detailed_net_timings": [
                {"net": "n1", "endpoints": [sink("top.core1.x.ff", "DI", 11.0),
                                            sink("top.core1.y.lut", "A", 30.0)]},
                {"net": "n2", "endpoints": [sink("top.core2.z.ff", "CE", 10.5),
                                            sink("top.b.ff", "DI", 6.0),
                                            sink("top.b.ram", "WAD0", 9.5)]}]}


def test_routed_report_endpoints_grouped_by_end_module(capsys):
    """--routed: path ends only (not LUT inputs), arrivals taken back to the launching edge
    by the critical path's offset, grouped by the module they end in, cores folded."""
    from bench.placed_paths import routed_endpoints, clock_offset, _path_ends
    report = _routed_report()
    assert clock_offset(report, _path_ends(report)) == pytest.approx(2.0)
    ends, groups = routed_endpoints(report, period=7.0)
    assert ends == 4                                  # the LUT input is not a path end
    assert groups == {"top.coreN.x": [1, 9.0, "top.core1.x.ff", "DI"],
                      "top.coreN.z": [1, 8.5, "top.core2.z.ff", "CE"],
                      "top.b": [1, 7.5, "top.b.ram", "WAD0"]}


def test_cli_ranks_a_routed_report(tmp_path, capsys):
    path = tmp_path / "nextpnr-report.json"
    path.write_text(json.dumps(_routed_report()))
    main(["--routed", str(path), "--freq", str(1000 / 8.0), "--json"])
    result = json.loads(capsys.readouterr().out)
    assert result["endpoints"] == 4 and result["failing"] == 2
    assert [g["to"] for g in result["groups"]] == ["top.coreN.x", "top.coreN.z"]
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(SystemExit, match="no net timings"):
        main(["--routed", str(tmp_path / "bad.json")])
