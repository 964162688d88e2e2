"""Full FPGA build (synthesis, place and route, bitstream) of the board top; prints report.json.

    python -m bench.fpga [--board ulx3s-85f] [--config ulx3s] [--cores N] [--freq 75] [--out DIR] [--seed N]
                       [--router router1|router2] [--placer heap|static]

Takes minutes to tens of minutes (nextpnr on an 85F). The JSON has cores, target_mhz, fmax_mhz,
lut4, ff, dsp, bram, the utilisation table, the clocks' Fmax and nextpnr's critical path.
A repeated run with unchanged inputs reuses the previous build (hdl.build's stamp).
"""

import argparse
import json
import sys

from hdl.build import (build_board, summary, BuildError, BOARDS, ROUTERS,
                       PLACERS)
from hdl.config import PRESET_NAMES, preset


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.fpga", description=__doc__.split("\n")[0])
    parser.add_argument("--board", default="ulx3s-85f", choices=sorted(BOARDS))
    parser.add_argument("--config", default="ulx3s", choices=PRESET_NAMES,
                        help="the GPU's preset (default 'ulx3s')")
    parser.add_argument("--cores", type=int, default=None, help="cores (default: the preset's)")
    parser.add_argument("--freq", type=float, default=75.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--router", choices=ROUTERS, default=None,
                        help="default: hdl.build.default_tools")
    parser.add_argument("--placer", choices=PLACERS, default=None,
                        help="default: hdl.build.default_tools")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    config = preset(args.config, **({"cores": args.cores} if args.cores else {}))
    out = args.out or f"build/{args.board}-{args.config}-{config.cores}c-{args.freq:g}mhz"
    try:
        report = build_board(args.board, config, args.freq, out, seed=args.seed,
                             router=args.router, placer=args.placer,
                             log=lambda text: print(text, file=sys.stderr),
                             config_name=args.config)
    except (BuildError, ValueError) as e:
        sys.exit(f"error: {e}")
    print(summary(report), file=sys.stderr)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
