"""Hard-block floorplan of the ULX3S-85F top: where the block RAMs and DSP blocks go.

Without it nextpnr spreads every core over the whole chip: nearly all the block RAMs are used
(the texture and output stores alone take 155 of 208), so a core's register-file block RAMs land
wherever one is free, and its DSP blocks spread along the DSP rows; each core's logic follows
them across the chip, and so do its paths. Pinning the hard blocks gives each core a quadrant
and its logic follows: core k's block RAMs at one end of a block-RAM
row and its DSP blocks at the same end of the DSP row nearest to it (cores 0, 1 bottom and top
left, 2, 3 bottom and top right: the pairs that share a divider sit one above the other, 44
rows apart; side by side, 76 columns apart, their divider would stretch across the chip), the
scene memory in the middle of the middle row (read by every IO unit), the texture and output
stores everywhere else (their logic is a few address and data wires). The R500 stage takes the
right half, where cores 2 and 3 would be (``R500_QUADRANTS``; boards with it have one or two
cores): the core's block RAMs in the middle row right of the scene memory and at the right ends of
the others, its DSP blocks at the right end of the middle DSP row; each quad former's row
buffer in the middle of its core's block-RAM row, between the core and the R500 core.

``pin_hard_blocks(path)`` adds nextpnr's ``BEL`` attribute to those cells of a Yosys JSON
netlist (the board build runs it between synthesis and place and route, for builds that fill
``FLOORPLAN_MIN_QUADRANTS`` quadrants or more: ``quadrants``). Cells it does not
know (cores beyond the fourth, other memories) stay free. Site names are nextpnr-ecp5's for the
LFE5U-85F: block RAMs in four rows of 52, DSP blocks (MULT18X18D) in three rows of 52, the same
columns in every row.
"""

import json
import re

__all__ = ["pin_hard_blocks", "plan_sites", "quadrants", "FLOORPLAN_MIN_QUADRANTS",
           "R500_QUADRANTS"]

#: builds that fill fewer quadrants are not pinned: one core pinned to its quadrant (the chip's
#: corner) routes far slower than unpinned. Three quadrants are pinned: one core and the R500
#: stage place faster pinned, and router2 overuses fewer wires (docs/fpga.md)
FLOORPLAN_MIN_QUADRANTS = 3
#: the R500 stage is about as large as two THEIA cores and takes their half of the chip
R500_QUADRANTS = 2

BRAM_ROWS = (22, 46, 70, 82)
#: (x, index of the EBR in its tile) of every block RAM of a row
BRAM_COLUMNS = tuple((x, k) for base in (4, 13, 22, 31, 40, 49, 58, 69, 78, 87, 96, 105, 114)
                     for k, x in enumerate(range(base, base + 8, 2)))
DSP_ROWS = (10, 34, 58)
#: (x, index of the MULT18 in its tile) of every DSP block of a row
DSP_COLUMNS = ((8, 4), (9, 5), (13, 0), (14, 1), (17, 4), (18, 5), (22, 0), (23, 1), (26, 4),
               (27, 5), (31, 0), (32, 1), (35, 4), (36, 5), (40, 0), (41, 1), (44, 4), (45, 5),
               (49, 0), (50, 1), (53, 4), (54, 5), (58, 0), (59, 1), (62, 4), (63, 5), (69, 0),
               (70, 1), (73, 4), (74, 5), (78, 0), (79, 1), (82, 4), (83, 5), (87, 0), (88, 1),
               (91, 4), (92, 5), (96, 0), (97, 1), (100, 4), (101, 5), (105, 0), (106, 1),
               (109, 4), (110, 5), (114, 0), (115, 1), (118, 4), (119, 5))
#: core k: (block-RAM row, DSP row, which end of them)
QUADRANTS = ((22, 10, "left"), (70, 58, "left"), (22, 10, "right"), (70, 58, "right"))
SCENE_ROW = 46
#: the R500 core's DSP blocks: the right end of the middle DSP row first
R500_DSP_ROWS = (34, 10, 58)

_CORE = re.compile(r"\.core(\d+)\.")
_R500 = re.compile(r"\.r500(\$\d+)?\.")
_FORMER = re.compile(r"\.r500(\$\d+)?\.former(\d+)\.")


def quadrants(config):
    """How many quadrants of the chip the board top of ``config`` (a ``GpuConfig``) fills: one
    a THEIA core, ``R500_QUADRANTS`` the R500 stage."""
    return config.cores + (R500_QUADRANTS if config.r500 is not None else 0)


def _brams(y):
    return [f"X{x}/Y{y}/EBR{k}" for x, k in BRAM_COLUMNS]


def _dsps(y):
    return [f"X{x}/Y{y}/MULT18_{k}" for x, k in DSP_COLUMNS]


def _end(sites, count, side):
    return sites[:count] if side == "left" else sites[len(sites) - count:]


def plan_sites(cells):
    """``{cell name: site}`` for the cells (``{name: type}``) this floorplan places."""
    plan = {}
    taken = set()

    def place(names, sites):
        free = [s for s in sites if s not in taken]
        for name, site in zip(sorted(names), free):
            plan[name] = site
            taken.add(site)

    def of_type(kind, test):
        return [n for n, t in cells.items() if t == kind and test(n)]

    for k, (bram_row, dsp_row, side) in enumerate(QUADRANTS):
        def in_core(name, k=k):
            found = _CORE.search(name)
            return found is not None and int(found.group(1)) == k
        brams = of_type("DP16KD", in_core)
        dsps = of_type("MULT18X18D", in_core)
        place(brams, _end(_brams(bram_row), len(brams), side))
        place(dsps, _end(_dsps(dsp_row), len(dsps), side))
    # the scene memory in the middle of the chip, the same distance from every core's IO unit
    scene = of_type("DP16KD", lambda n: "scene_mem" in n)
    middle = _brams(SCENE_ROW)
    first = (len(middle) - len(scene)) // 2
    place(scene, middle[first:first + len(scene)])
    # the R500 core on the right half: block RAMs right of the scene memory, then at the right
    # ends of the other rows; DSP blocks at the right end of the middle DSP row
    r500 = lambda n: _R500.search(n) is not None and _FORMER.search(n) is None
    right = lambda sites: sites[len(sites) // 2:]
    place(of_type("DP16KD", r500),
          middle[first + len(scene):] + [s for y in (70, 22, 82) for s in right(_brams(y))])
    dsps = of_type("MULT18X18D", r500)
    place(dsps, _end(_dsps(R500_DSP_ROWS[0]), len(dsps), "right")
          + [s for y in R500_DSP_ROWS[1:] for s in right(_dsps(y))])
    # a quad former's row buffer in the middle of its core's row, between it and the R500 core
    for k, (bram_row, _, _) in enumerate(QUADRANTS):
        ring = of_type("DP16KD", lambda n, k=k: (found := _FORMER.search(n)) is not None
                       and int(found.group(2)) == k)
        sites = _brams(bram_row)
        place(ring, sites[(len(sites) - len(ring)) // 2:])
    stores = of_type("DP16KD", lambda n: ".tmem." in n or ".omem." in n)
    place(stores, [s for y in BRAM_ROWS for s in _brams(y)])
    return plan


def pin_hard_blocks(path):
    """Add ``BEL`` attributes to the hard blocks of the Yosys JSON netlist at ``path`` (module
    ``top``); returns how many cells were pinned (0 for a netlist without ``top``)."""
    with open(path) as f:
        netlist = json.load(f)
    top = netlist.get("modules", {}).get("top")
    if top is None:
        return 0
    cells = top["cells"]
    plan = plan_sites({name: cell["type"] for name, cell in cells.items()})
    for name, site in plan.items():
        cells[name].setdefault("attributes", {})["BEL"] = site
    with open(path, "w") as f:
        json.dump(netlist, f)
    return len(plan)
