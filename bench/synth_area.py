"""Synthesis only (Yosys' synth_ecp5, no place and route) of the board top: the cells a GPU
takes, in tens of minutes instead of the hours a routed four-core build takes. For asking
whether a configuration can fit the LFE5U-85F before routing it.

    python -m bench.synth_area [--config ulx3s-r500] [--cores N] [--r500-temporaries T]
                               [--r500-instructions I] [--r500-contexts C] [--out DIR]

Prints JSON: the configuration and Yosys' counts of LUT4, CCU2C (two LUT positions each),
TRELLIS_DPR16X4 (LUT RAM), TRELLIS_FF, MULT18X18D and DP16KD, beside the chip's totals.
nextpnr's packed logic count (report.json's ``lut4``) is larger than LUT4 + 2 x CCU2C: it
adds the LUT RAM's slices and the route-through LUTs packing needs (docs/fpga.md compares
the two for a routed build).
"""

import argparse
import dataclasses
import json
import re
import sys
from pathlib import Path

from hdl import build
from hdl.config import PRESET_NAMES, preset
from boards.ulx3s import DEFAULT_BAUD, Ulx3sTop

CELLS = ("LUT4", "CCU2C", "TRELLIS_DPR16X4", "TRELLIS_FF", "MULT18X18D", "DP16KD")
CHIP = {"LUT4": 83640, "TRELLIS_FF": 83640, "MULT18X18D": 156, "DP16KD": 208}


def configured(name, cores=None, temporaries=None, instructions=None, contexts=None):
    """The preset ``name`` with the given counts changed (the R500 stage's instruction memory
    in LUT RAM only while it is as small as the preset that has it)."""
    config = preset(name)
    if cores is not None:
        config = dataclasses.replace(config, cores=cores)
    if config.r500 is not None:
        stage = config.r500
        changes = {key: value for key, value in (("temporaries", temporaries),
                   ("instructions", instructions), ("contexts", contexts)) if value is not None}
        stage = dataclasses.replace(stage, **changes)
        if stage.instructions > preset(name).r500.instructions:
            stage = dataclasses.replace(stage, lut_code_ram=False)
        config = dataclasses.replace(config, r500=stage)
    return config


def cell_counts(report_text):
    """The cell counts of Yosys' last statistics (the flattened top after synth_ecp5)."""
    last = report_text.rsplit("Printing statistics", 1)[-1]
    counts = {}
    for cell in CELLS:
        match = re.search(rf"^\s+(\d+)\s+{cell}$", last, re.MULTILINE)
        counts[cell] = int(match.group(1)) if match else 0
    return counts


def synthesise(config, out_dir, freq_mhz=75):
    """Yosys' half of the board build (hdl.build's synthesis, no floorplan) of the top with
    ``config``; returns the cell counts."""
    build._set_tool_env()
    out_dir.mkdir(parents=True, exist_ok=True)
    top = Ulx3sTop(config=config, freq_mhz=freq_mhz, baud=DEFAULT_BAUD)
    plan = build._platform("ulx3s-85f").prepare(top, name="top", **build.SYNTH_OVERRIDES)
    build._synthesise(plan, out_dir, floorplan=False)
    return cell_counts((out_dir / "top.rpt").read_text())


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.synth_area",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--config", default="ulx3s-r500", choices=PRESET_NAMES)
    parser.add_argument("--cores", type=int)
    parser.add_argument("--r500-temporaries", type=int)
    parser.add_argument("--r500-instructions", type=int)
    parser.add_argument("--r500-contexts", type=int)
    parser.add_argument("--out", type=Path, default=Path("build/synth-area"))
    args = parser.parse_args(argv)
    try:
        config = configured(args.config, args.cores, args.r500_temporaries,
                            args.r500_instructions, args.r500_contexts)
        counts = synthesise(config, args.out)
    except (ValueError, build.BuildError) as error:
        sys.exit(f"bench.synth_area: {error}")
    stage = config.r500
    print(json.dumps({
        "config": args.config, "cores": config.cores,
        "r500": None if stage is None else {"temporaries": stage.temporaries,
                                            "instructions": stage.instructions,
                                            "contexts": stage.contexts},
        "cells": counts, "chip": CHIP,
        "lut_positions": counts["LUT4"] + 2 * counts["CCU2C"]}, indent=1))


if __name__ == "__main__":
    main()
