"""What an R500 program sees of a THEIA pixel (r500-us.md §4.2): the registers after PSU2,
recorded on the THEIA core, and the lane temporaries made from them.

``PixelRecorder`` takes the place of the PIXELSHADER routine in the per-band sequence
(``sim.sequencer.run_band``): for every pixel it keeps the raw register words the program's
inputs come from, where THEIA would have written the pixel, and whether it hit a triangle.
``lane_temps`` turns such a record into temporaries 0-9 of a lane, ``uncovered_temps`` gives a
lane whose pixel lies outside the image its temporary 9.
"""

from dataclasses import dataclass
from functools import lru_cache

from hdl.isa import SCALE, reg
from sim.r500 import fp32

__all__ = ["INPUT_REGISTERS", "PixelRecord", "PixelRecorder", "lane_temps", "uncovered_temps"]

#: the THEIA registers recorded per pixel, in the order of ``PixelRecord.rows``
INPUT_REGISTERS = ("TEXTURE_COLOR", "LAST_u", "LAST_v", "LAST_t", "UV0_LAST", "UV1_LAST",
                   "UV2_LAST", "E1_LAST", "E2_LAST", "TRI_DIFFUSE_LAST", "RAY_DIRECTION")
_INPUT_ADDRESSES = tuple(reg(f"CREG_{name}") for name in INPUT_REGISTERS)
_POSITION = reg("CREG_PIXEL_2D_POSITION")
_OUTPUT_PIXEL = reg("CREG_CURRENT_OUTPUT_PIXEL")

#: temporaries 2-8: whole rows (x, y, z) of these registers
_ROW_TEMPS = {2: "UV0_LAST", 3: "UV1_LAST", 4: "UV2_LAST", 5: "E1_LAST", 6: "E2_LAST",
              7: "TRI_DIFFUSE_LAST", 8: "RAY_DIRECTION"}
_ROW_INDEX = {temp: INPUT_REGISTERS.index(name) for temp, name in _ROW_TEMPS.items()}
_U, _V, _T = (INPUT_REGISTERS.index(n) for n in ("LAST_u", "LAST_v", "LAST_t"))


def _signed(word):
    return word - (1 << 32) if word & 0x8000_0000 else word


@dataclass(frozen=True)
class PixelRecord:
    """One pixel as the THEIA routines left it: integer pixel coordinates, the three output
    words PIXELSHADER would have written (absolute indices in the output memory), whether MAIN
    reported a hit, and the raw words of ``INPUT_REGISTERS``."""
    x: int
    y: int
    output: tuple
    hit: bool
    rows: tuple


class PixelRecorder:
    """The pixel stage of ``run_band`` when an R500 program shades: ``recorder(core, hit)``
    records the pixel instead of running PIXELSHADER."""

    def __init__(self):
        self.records = []

    def __call__(self, core, hit):
        regs = core.regs
        x, y, _ = regs[_POSITION]
        output = tuple(core.omem_base + address for address in regs[_OUTPUT_PIXEL])
        self.records.append(PixelRecord(_signed(x) >> SCALE, _signed(y) >> SCALE, output,
                                        bool(hit), tuple(regs[a] for a in _INPUT_ADDRESSES)))


# Many pixels share their words (a triangle's rows, colours); the conversion is exact rounding
# in pure Python, so remember recent ones.
_from_q17 = lru_cache(maxsize=1 << 16)(fp32.from_q17)


def _pixel_position(x, y):
    """Temporary 9: the pixel's integer coordinates."""
    return [fp32.from_float(float(x)), fp32.from_float(float(y)), fp32.ZERO, fp32.ZERO]


def lane_temps(record):
    """Temporaries 0-9 of a covered lane ({index: [r, g, b, a] words}), each input word read
    as signed / 2^17 and rounded once to binary32; .a of temporary 0 is the hit flag."""
    rows = record.rows
    temps = {0: [*map(_from_q17, rows[0]), fp32.ONE if record.hit else fp32.ZERO],
             1: [_from_q17(rows[_U][0]), _from_q17(rows[_V][0]), _from_q17(rows[_T][0]),
                 fp32.ZERO],
             9: _pixel_position(record.x, record.y)}
    for temp, index in _ROW_INDEX.items():
        temps[temp] = [*map(_from_q17, rows[index]), fp32.ZERO]
    return temps


def uncovered_temps(x, y):
    """An uncovered lane: temporaries 0-8 zero, temporary 9 = (x, y, 0, 0)."""
    return {9: _pixel_position(x, y)}
