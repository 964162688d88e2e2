"""The R500 core's outputs per lane and context: render targets 0-3 and the depth W
(r500-us.md §3.4, §3.6).

At a quad's start every target channel and W are 0: a ``written`` bit per channel (and one for
W), cleared for a whole context at once, masks what a read returns. OUT instructions write
channels of one target per unit (``rgb_target`` for .rgb, ``alpha_target`` for .a) and W.
A read (``read``) answers the cycle after: the four channels of a target, which of them were
written, and W.
"""

from amaranth import Cat, Const, Module, Mux, Signal, unsigned
from amaranth.lib import data, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out
from amaranth.utils import ceil_log2

from hdl.isa import R500_RENDER_TARGETS

__all__ = ["CHANNELS", "target_write_layout", "target_read_layout", "RenderTargets"]

LANES = 4
CHANNELS = 4
ALPHA = 3


def _lane(contexts):
    return {"context": range(max(contexts, 2)), "lane": 2}


def target_write_layout(contexts):
    """One lane's OUT writes: channels ``en`` (r, g, b to ``rgb_target``, a to
    ``alpha_target``) and W (``w_en``, the alpha value)."""
    return data.StructLayout({**_lane(contexts), "rgb_target": 2, "alpha_target": 2,
                              "en": CHANNELS, "w_en": 1, "value": data.ArrayLayout(32, CHANNELS)})


def target_read_layout(contexts):
    return data.StructLayout({**_lane(contexts), "target": 2})


class RenderTargets(wiring.Component):
    def __init__(self, contexts):
        self.contexts = contexts
        super().__init__({
            "write": In(target_write_layout(contexts)),
            "clear": In(1), "clear_context": In(range(max(contexts, 2))),
            "read": In(target_read_layout(contexts)),
            "data": Out(data.ArrayLayout(32, CHANNELS)),
            "written": Out(CHANNELS),
            "w": Out(32),
        })

    def elaborate(self, platform):
        m = Module()
        lanes = 1 << (ceil_log2(max(self.contexts, 2)) + 2)     # (contexts padded: as
                                                                # Temporaries' rows)
        cells = lanes * R500_RENDER_TARGETS            # (context, lane, target)
        write, read = self.write, self.read
        lane_row = Cat(write.lane, write.context)
        read_lane = Cat(read.lane, read.context)

        # one memory per channel: .rgb and .a may go to different targets
        written = Signal(cells * CHANNELS)
        w_written = Signal(lanes)
        read_written = Signal(CHANNELS)
        read_cell = Cat(read.target, read_lane)
        for c in range(CHANNELS):
            target = write.alpha_target if c == ALPHA else write.rgb_target
            cell = Cat(target, lane_row)
            memory = Memory(shape=unsigned(32), depth=cells, init=[])
            m.submodules[f"channel{c}"] = memory
            wp = memory.write_port()
            rp = memory.read_port()
            m.d.comb += [wp.addr.eq(cell), wp.data.eq(write.value[c]), wp.en.eq(write.en[c]),
                         rp.addr.eq(read_cell)]
            with m.If(write.en[c]):
                m.d.sync += written.bit_select(Cat(Const(c, 2), cell), 1).eq(1)
            m.d.sync += read_written[c].eq(written.bit_select(Cat(Const(c, 2), read_cell), 1))
            m.d.comb += self.data[c].eq(Mux(read_written[c], rp.data, 0))
        m.d.comb += self.written.eq(read_written)

        w_memory = Memory(shape=unsigned(32), depth=lanes, init=[])
        m.submodules.w = w_memory
        wp, rp = w_memory.write_port(), w_memory.read_port()
        read_w_written = Signal()
        m.d.comb += [wp.addr.eq(lane_row), wp.data.eq(write.value[ALPHA]), wp.en.eq(write.w_en),
                     rp.addr.eq(read_lane), self.w.eq(Mux(read_w_written, rp.data, 0))]
        m.d.sync += read_w_written.eq(w_written.bit_select(read_lane, 1))
        with m.If(write.w_en):
            m.d.sync += w_written.bit_select(lane_row, 1).eq(1)

        with m.If(self.clear):
            m.d.sync += [
                written.word_select(self.clear_context, LANES * R500_RENDER_TARGETS * CHANNELS)
                .eq(0),
                w_written.word_select(self.clear_context, LANES).eq(0),
            ]
        return m
