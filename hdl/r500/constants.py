"""The R500 core's 256 vec4 constants (r500-us.md §1, §3.2), written by the host between quads.

A constant is the same for the four lanes, so an instruction reads each slot's constant once:
slot n's in the cycle of its lane-op for lane n (lanes 0-2), through one read port for the
.rgb parts and one for the .a parts (``docs/r500-core.md``). A read answers the cycle after.
"""

from amaranth import Module, unsigned
from amaranth.lib import data, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from hdl.isa import R500_CONSTS

__all__ = ["ConstantWrite", "ConstantStore"]

RGB_CHANNELS = 3
ALPHA = 3

#: a host write of one channel of one constant
ConstantWrite = data.StructLayout({"en": 1, "index": 8, "channel": 2, "data": 32})


class ConstantStore(wiring.Component):
    write: In(ConstantWrite)
    rgb_index: In(8)
    alpha_index: In(8)
    rgb: Out(data.ArrayLayout(32, RGB_CHANNELS))
    alpha: Out(32)

    def elaborate(self, platform):
        m = Module()
        write = self.write
        m.submodules.rgb_memory = rgb_memory = Memory(shape=unsigned(32 * RGB_CHANNELS),
                                                      depth=R500_CONSTS, init=[])
        m.submodules.alpha_memory = alpha_memory = Memory(shape=unsigned(32), depth=R500_CONSTS,
                                                          init=[])
        rgb_w = rgb_memory.write_port(granularity=32)
        alpha_w = alpha_memory.write_port()
        rgb_r, alpha_r = rgb_memory.read_port(), alpha_memory.read_port()
        m.d.comb += [
            rgb_w.addr.eq(write.index), rgb_w.data.eq(write.data.replicate(RGB_CHANNELS)),
            rgb_w.en.eq((write.en & (write.channel != ALPHA)) << write.channel),
            alpha_w.addr.eq(write.index), alpha_w.data.eq(write.data),
            alpha_w.en.eq(write.en & (write.channel == ALPHA)),
            rgb_r.addr.eq(self.rgb_index), alpha_r.addr.eq(self.alpha_index),
            self.rgb.eq(rgb_r.data), self.alpha.eq(alpha_r.data),
        ]
        return m
