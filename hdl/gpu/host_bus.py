"""The GPU's host port in the RTL (docs/host-interface.md): its signature and address decoder.

``HostBus`` is described from the host's side (``valid``, ``write``, ``addr``, ``wdata`` out;
``ready``, ``rvalid``, ``rdata`` in); the GPU has ``In(HostBus())``. Addresses are word
addresses. ``AddressDecoder`` splits an address into its region and the offset inside it. The
map itself (regions, registers, their bits, ``host_address``) is hdl/gpu/address_map.py's,
re-exported here for the RTL.
"""

from amaranth import Module
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from hdl.gpu.address_map import (Region, REGION_BASE, SMALL_REGION_BITS, LARGE_REGION_BITS, Reg,
                                 host_address, CTRL_START, STATUS_BUSY, STATUS_DONE,
                                 STATUS_ERROR)

__all__ = ["HostBus", "HostRequest", "Region", "REGION_BASE", "Reg", "AddressDecoder", "host_address",
           "STATUS_BUSY", "STATUS_DONE", "STATUS_ERROR", "CTRL_START"]


class HostBus(wiring.Signature):
    def __init__(self):
        super().__init__({
            "valid": Out(1), "write": Out(1), "addr": Out(32), "wdata": Out(32),
            "ready": In(1), "rvalid": In(1), "rdata": In(32),
        })


class HostRequest(data.Struct):
    """A host bus request without its handshake (for a register slice on the way)."""
    write: 1
    addr: 32
    wdata: 32


class AddressDecoder(wiring.Component):
    """``addr`` -> ``region`` and ``offset`` (the address minus the region's base)."""
    addr: In(32)
    region: Out(Region)
    offset: Out(LARGE_REGION_BITS)

    def elaborate(self, platform):
        m = Module()
        top = self.addr[LARGE_REGION_BITS:]
        m.d.comb += self.region.eq(Region.NONE)
        with m.If(top == 0):
            m.d.comb += self.offset.eq(self.addr[:SMALL_REGION_BITS])
            with m.Switch(self.addr[SMALL_REGION_BITS:LARGE_REGION_BITS]):
                for region in (Region.CONTROL, Region.CONFIG, Region.BANDS):
                    with m.Case(REGION_BASE[region] >> SMALL_REGION_BITS):
                        m.d.comb += self.region.eq(region)
        with m.Else():
            m.d.comb += self.offset.eq(self.addr[:LARGE_REGION_BITS])
            with m.Switch(top):
                for region in (Region.SCENE, Region.TEXTURE, Region.USER, Region.OUTPUT,
                               Region.R500):
                    with m.Case(REGION_BASE[region] >> LARGE_REGION_BITS):
                        m.d.comb += self.region.eq(region)
        return m
