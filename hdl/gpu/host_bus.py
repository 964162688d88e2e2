"""The GPU's host port (docs/host-interface.md): its signature and address map.

``HostBus`` is described from the host's side (``valid``, ``write``, ``addr``, ``wdata`` out;
``ready``, ``rvalid``, ``rdata`` in); the GPU has ``In(HostBus())``. Addresses are word
addresses. ``AddressDecoder`` splits an address into its region and the offset inside it; the
Python constants and ``host_address`` give testbenches and drivers the same map.
"""

from enum import IntEnum

from amaranth import Module
from amaranth.lib import wiring, enum
from amaranth.lib.wiring import In, Out

__all__ = ["HostBus", "Region", "REGION_BASE", "Reg", "AddressDecoder", "host_address",
           "STATUS_BUSY", "STATUS_DONE", "STATUS_ERROR", "CTRL_START"]


class HostBus(wiring.Signature):
    def __init__(self):
        super().__init__({
            "valid": Out(1), "write": Out(1), "addr": Out(32), "wdata": Out(32),
            "ready": In(1), "rvalid": In(1), "rdata": In(32),
        })


class Region(enum.Enum, shape=3):
    CONTROL = 0
    CONFIG = 1
    BANDS = 2
    SCENE = 3
    TEXTURE = 4
    USER = 5
    OUTPUT = 6
    NONE = 7          # unmapped: writes are ignored, reads give 0


REGION_BASE = {
    Region.CONTROL: 0x0000_0000,
    Region.CONFIG: 0x0010_0000,
    Region.BANDS: 0x0020_0000,
    Region.SCENE: 0x0100_0000,
    Region.TEXTURE: 0x0200_0000,
    Region.USER: 0x0300_0000,
    Region.OUTPUT: 0x0400_0000,
}
#: regions 0x000x_xxxx are 2^20 words, the others 2^24
_SMALL_REGION_BITS = 20
_LARGE_REGION_BITS = 24


class Reg(IntEnum):
    """Control/status registers (word addresses in region CONTROL)."""
    CTRL = 0
    STATUS = 1
    NUM_TRIANGLES = 2
    NUM_BANDS = 3
    ERROR_INFO = 4
    CORES = 5
    CYCLES = 8
    INSTRUCTIONS = 9
    IO_WAIT_CYCLES = 10
    STALL_CYCLES = 11
    PIXELS = 12


CTRL_START = 1 << 0
STATUS_BUSY, STATUS_DONE, STATUS_ERROR = 1 << 0, 1 << 1, 1 << 2


def host_address(region, offset=0):
    """The word address of ``offset`` in ``region`` (a Region)."""
    return REGION_BASE[region] + offset


class AddressDecoder(wiring.Component):
    """``addr`` -> ``region`` and ``offset`` (the address minus the region's base)."""
    addr: In(32)
    region: Out(Region)
    offset: Out(_LARGE_REGION_BITS)

    def elaborate(self, platform):
        m = Module()
        top = self.addr[_LARGE_REGION_BITS:]
        m.d.comb += self.region.eq(Region.NONE)
        with m.If(top == 0):
            m.d.comb += self.offset.eq(self.addr[:_SMALL_REGION_BITS])
            with m.Switch(self.addr[_SMALL_REGION_BITS:_LARGE_REGION_BITS]):
                for region in (Region.CONTROL, Region.CONFIG, Region.BANDS):
                    with m.Case(REGION_BASE[region] >> _SMALL_REGION_BITS):
                        m.d.comb += self.region.eq(region)
        with m.Else():
            m.d.comb += self.offset.eq(self.addr[:_LARGE_REGION_BITS])
            with m.Switch(top):
                for region in (Region.SCENE, Region.TEXTURE, Region.USER, Region.OUTPUT):
                    with m.Case(REGION_BASE[region] >> _LARGE_REGION_BITS):
                        m.d.comb += self.region.eq(region)
        return m
