"""bench.paths: arrival times over a hand-made netlist (no Yosys needed)."""

import pytest

from bench.paths import (analyse, routing_delay, FF_CLK_TO_Q, LUT_DELAY, BRAM_CLK_TO_Q, SETUP,
                         CARRY_IN_DELAY, CARRY_THROUGH, CARRY_SUM)


def _cell(kind, inputs, outputs):
    conns = {**inputs, **outputs}
    dirs = {**{p: "input" for p in inputs}, **{p: "output" for p in outputs}}
    return {"type": kind, "parameters": {}, "attributes": {}, "connections": conns,
            "port_directions": dirs}


def _netlist(cells, names):
    return {"modules": {"top": {"attributes": {"top": 1}, "cells": cells,
                                "netnames": {n: {"hide_name": 0, "bits": [b]}
                                             for n, b in names.items()}}}}


def test_lut_chain_and_block_ram_launch():
    # ff0 -> lut -> lut -> ff1 ; bram -> lut -> ff2 (the block RAM's clock-to-out dominates)
    cells = {
        "ff0": _cell("TRELLIS_FF", {"CLK": [1], "DI": [9]}, {"Q": [2]}),
        "lut_a": _cell("LUT4", {"A": [2]}, {"Z": [3]}),
        "lut_b": _cell("LUT4", {"A": [3]}, {"Z": [4]}),
        "ff1": _cell("TRELLIS_FF", {"CLK": [1], "DI": [4]}, {"Q": [5]}),
        "bram": _cell("DP16KD", {"CLKA": [1]}, {"DOA0": [6]}),
        "lut_c": _cell("LUT4", {"B": [6]}, {"Z": [7]}),
        "ff2": _cell("TRELLIS_FF", {"CLK": [1], "DI": [7]}, {"Q": [8]}),
    }
    endpoints, path = analyse(_netlist(cells, {"q": 2, "x": 3, "y": 4, "ram": 6, "z": 7}))
    by_cell = {cname: t for t, cname, _, _ in endpoints}
    hop = routing_delay(1)
    assert by_cell["ff1"] == pytest.approx(FF_CLK_TO_Q + 3 * hop + 2 * LUT_DELAY + SETUP)
    assert by_cell["ff2"] == pytest.approx(BRAM_CLK_TO_Q + 2 * hop + LUT_DELAY + SETUP)
    assert endpoints[0][1] == "ff2"                       # worst first
    assert [name for name, _ in path(endpoints[0][3])][-1].endswith("z")


def test_carry_chain_is_fast_inside():
    # ff -> CCU2C (A0) -> COUT -> CCU2C (CIN) -> S0 -> ff: dedicated carry wire, no routing
    cells = {
        "ff0": _cell("TRELLIS_FF", {"CLK": [1], "DI": [9]}, {"Q": [2]}),
        "c0": _cell("CCU2C", {"A0": [2], "CIN": [10]}, {"COUT": [3], "S0": [11]}),
        "c1": _cell("CCU2C", {"A0": [12], "CIN": [3]}, {"COUT": [13], "S0": [4]}),
        "ff1": _cell("TRELLIS_FF", {"CLK": [1], "DI": [4]}, {"Q": [5]}),
    }
    endpoints, _ = analyse(_netlist(cells, {}))
    ff1 = next(t for t, cname, _, _ in endpoints if cname == "ff1")
    hop = routing_delay(1)
    assert ff1 == pytest.approx(FF_CLK_TO_Q + hop + CARRY_IN_DELAY + CARRY_SUM + hop + SETUP)
    assert CARRY_THROUGH < LUT_DELAY
