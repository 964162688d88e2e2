"""From one THEIA core's pixels to R500 quads (r500-us.md §4.1-4.2).

With an R500 program the core runs the firmware's export routine in place of PIXELSHADER: it
OMWRITEs ``hdl.isa.R500_EXPORT_REGISTERS`` (36 words a pixel, x, y, z each; the addresses are
the pixel's three output words) to ``export``, with ``pixel_hit`` beside them. A quad is the
pixels (2i, 2j), (2i+1, 2j), (2i, 2j+1), (2i+1, 2j+1), lanes 0-3; a band walks rows in order,
so the upper pixels (even rows) wait here in a row buffer, one row of them, until their lower
neighbours come:

* an upper pixel's record goes into the row buffer (``row_words`` words): a header (x, y, hit),
  its three output addresses, and of the words that become temporaries 0-8 only those the
  program reads (``inputs``, a bit per temporary: the host works it out from the program);
* a lower pixel with even x claims a context of the R500 core (``context_req`` ->
  ``context_grant``), loads lanes 0 and 1 from the row buffer and itself as lane 2; the next
  pixel is lane 3; then the quad is launched (``launch``: its coverage and where its lanes'
  colours go). A lane beyond the image's right edge (``width``) is uncovered;
* when the band ends (``band_done``) with upper pixels left (an odd image height), each pair
  of them becomes a quad whose lower lanes are uncovered.

Loads leave as words (``load``): THEIA's Q14.17 words to convert, the hit flag (temporary 0
.a) and the pixel's position (temporary 9) as x · 2^17 and y · 2^17, to convert too. Temporaries
the program does not read, and every .a but temporary 0's, stay unwritten: they read 0.

Bands must cover whole row pairs (the host checks it): a lower pixel without its upper
neighbour at the head of the row buffer is an ``error``.
"""

from amaranth import Cat, Module, Mux, Signal, unsigned
from amaranth.lib import data, stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from hdl.core.ports import OutputWrite
from hdl.isa import SCALE
from hdl.r500.fp32 import ONE

__all__ = ["INPUT_TEMPS", "EXPORT_WORDS", "load_word_layout", "quad_launch_layout",
           "QuadFormer", "ADDR_BITS"]

LANES = 4
#: temporaries 0-8 come from the pixel's registers (temporary 9 is its position)
INPUT_TEMPS = 9
POSITION_TEMP = 9
#: words a pixel's export routine writes: 12 registers of x, y, z
EXPORT_WORDS = 36
#: output word addresses
ADDR_BITS = 24
HEADER_WORDS = 4            # x | y << 16 | hit << 31, then the three output addresses


#: the pixel being exported: its position, hit flag and output addresses
_PIXEL = data.StructLayout({"x": 16, "y": 16, "hit": 1, "addrs": data.ArrayLayout(ADDR_BITS, 3)})
#: the lane whose header-derived words go out
_HEADER = data.StructLayout({"lane": 2, "x": 16, "y": 16, "hit": 1})
#: the row buffer's record being popped into a lane: header words still to read, the export
#: word the next kept one is, the header's fields
_POPPING = data.StructLayout({"lane": 2, "word": range(HEADER_WORDS + 1),
                             "k": range(EXPORT_WORDS + 1), "x": 16, "y": 16, "hit": 1})


def _export_temp(k):
    """(temporary, channel) export word k (3-35) becomes, or None: TEXTURE_COLOR's x, y, z are
    temporary 0; LAST_u.x, LAST_v.x, LAST_t.x temporary 1; then UV0 ... RAY_DIRECTION's rows are
    temporaries 2-8 (r500-us.md §4.2; the export order is R500_EXPORT_REGISTERS')."""
    if 3 <= k < 6:
        return 0, k - 3
    if 6 <= k < 15:
        return (1, (k - 6) // 3) if (k - 6) % 3 == 0 else None
    return 2 + (k - 15) // 3, (k - 15) % 3


def load_word_layout(contexts):
    """One word of a lane's temporary for the R500 core's load port."""
    return data.StructLayout({"context": range(max(contexts, 2)), "lane": 2, "temp": 4,
                              "channel": 2, "word": 32, "convert": 1})


def quad_launch_layout(contexts):
    """A loaded quad: its context, covered lanes, the position of lane 0 and each lane's three
    output words."""
    return data.StructLayout({
        "context": range(max(contexts, 2)), "covered": LANES, "x": 16, "y": 16,
        "outputs": data.ArrayLayout(data.ArrayLayout(ADDR_BITS, 3), LANES),
    })


class RowBuffer(wiring.Component):
    """A ring of ``depth`` 32-bit words: ``push`` writes ``w_data`` at the tail, ``pop`` takes
    the word at the head, which ``head`` shows (the read address is where the head will be);
    ``level`` words are in."""

    def __init__(self, depth):
        self.depth = depth
        super().__init__({"push": In(1), "w_data": In(32), "pop": In(1), "head": Out(32),
                          "level": Out(range(depth + 1))})

    def elaborate(self, platform):
        m = Module()
        depth = self.depth
        ring = m.submodules.ring = Memory(shape=unsigned(32), depth=depth, init=[])
        ring_w = ring.write_port()
        ring_r = ring.read_port(transparent_for=(ring_w,))
        head = Signal(range(depth))          # next word to read
        tail = Signal(range(depth))          # next word to write
        push, pop = self.push, self.pop
        m.d.comb += [ring_w.addr.eq(tail), ring_w.en.eq(push), ring_w.data.eq(self.w_data),
                     ring_r.addr.eq(Mux(pop, Mux(head == depth - 1, 0, head + 1), head)),
                     self.head.eq(ring_r.data)]
        with m.If(push):
            m.d.sync += tail.eq(Mux(tail == depth - 1, 0, tail + 1))
        with m.If(pop):
            m.d.sync += head.eq(Mux(head == depth - 1, 0, head + 1))
        m.d.sync += self.level.eq(self.level + push - pop)
        return m


class QuadFormer(wiring.Component):
    """Parameters: ``contexts`` (the R500 core's), ``row_words`` (the row buffer's size: the
    widest row's upper pixels' records)."""

    def __init__(self, contexts, row_words):
        self.contexts = contexts
        self.row_words = row_words
        context = range(max(contexts, 2))
        super().__init__({
            "export": In(stream.Signature(OutputWrite)),
            "pixel_hit": In(1), "band_done": In(1),
            "inputs": In(INPUT_TEMPS), "width": In(16),
            "context_req": Out(1), "context_grant": In(1), "context": In(context),
            "load": Out(stream.Signature(load_word_layout(contexts))),
            "launch": Out(stream.Signature(quad_launch_layout(contexts))),
            "idle": Out(1), "error": Out(1),
        })

    def _export_word(self, m, k):
        """(kept, temporary, channel) of export word ``k``: whether the program reads the
        temporary it becomes, and which channel of which one it is."""
        kept, temp, channel = Signal(), Signal(4), Signal(2)
        with m.Switch(k):
            for word in range(3, EXPORT_WORDS):
                target = _export_temp(word)
                if target is not None:
                    with m.Case(word):
                        m.d.comb += [kept.eq(self.inputs[target[0]]), temp.eq(target[0]),
                                     channel.eq(target[1])]
        return kept, temp, channel

    def elaborate(self, platform):
        m = Module()
        export, load, launch = self.export, self.load, self.launch
        inputs = self.inputs

        # --- the row buffer: the upper pixels' records ------------------------------------
        row = m.submodules.row = RowBuffer(self.row_words)
        level = row.level

        # --- the export word: which pixel word, kept for which temporary --------------------
        k = Signal(range(EXPORT_WORDS))               # the export word expected next
        kept, k_temp, k_channel = self._export_word(m, k)

        # --- the pixel being exported --------------------------------------------------------
        pixel = Signal(_PIXEL)
        x, y, hit, addrs = pixel.x, pixel.y, pixel.hit, pixel.addrs
        lower = y[0]
        lane = Cat(x[0], 1)                           # a lower pixel's lane: 2 or 3

        # --- the quad being formed ---------------------------------------------------------
        quad = Signal(quad_launch_layout(self.contexts))
        context, covered, outputs = quad.context, quad.covered, quad.outputs
        quad_x, quad_y = quad.x, quad.y
        right_edge = quad_x + 1 >= self.width         # lanes 1 and 3 lie outside the image
        m.d.comb += launch.payload.eq(quad)

        # a load word (the payload's context is the quad's)
        m.d.comb += load.payload.context.eq(context)

        def emit(lane_index, temp, channel, word, convert):
            m.d.comb += [load.valid.eq(1), load.payload.lane.eq(lane_index),
                         load.payload.temp.eq(temp), load.payload.channel.eq(channel),
                         load.payload.word.eq(word), load.payload.convert.eq(convert)]

        # header-derived words of a lane: 0 .a = hit (covered lanes), 9 .r, .g = x, y
        extra = Signal(2)                             # which of them is next
        header = Signal(_HEADER)                      # whose
        extra_lane, extra_x, extra_y, extra_hit = header.lane, header.x, header.y, header.hit

        def emit_extra(after):
            """Emit the header words of ``extra_lane``; ``after()`` when done."""
            with m.Switch(extra):
                with m.Case(0):
                    emit(extra_lane, 0, 3, Mux(extra_hit, ONE, 0), 0)
                with m.Case(1):
                    emit(extra_lane, POSITION_TEMP, 0, extra_x.as_signed() << SCALE, 1)
                with m.Case(2):
                    emit(extra_lane, POSITION_TEMP, 1, extra_y.as_signed() << SCALE, 1)
            with m.If(load.ready):
                with m.If(extra == 2):
                    m.d.sync += extra.eq(0)
                    after()
                with m.Else():
                    m.d.sync += extra.eq(extra + 1)

        def start_extra(lane_index, px, py, phit, pcovered):
            m.d.sync += [extra_lane.eq(lane_index), extra_x.eq(px), extra_y.eq(py),
                         extra_hit.eq(phit), extra.eq(Mux(pcovered, 0, 1))]

        band_ended = Signal()                         # flush what is left once idle
        with m.If(self.band_done):
            m.d.sync += band_ended.eq(1)

        # popping one record of the row buffer into a lane: its header, then its kept words
        popping = Signal(_POPPING)
        pop_lane, pop_word, pop_k = popping.lane, popping.word, popping.k
        pop_x, pop_y, pop_hit = popping.x, popping.y, popping.hit
        p_kept, p_temp, p_channel = self._export_word(m, pop_k)

        flushing = Signal()

        with m.FSM() as fsm:
            with m.State("STREAM"):
                with m.If((k == 0) & band_ended):
                    # the band ended: its last upper pixels, if any, become quads first
                    m.d.sync += band_ended.eq(0)
                    with m.If(level != 0):
                        m.d.sync += flushing.eq(1)
                        m.next = "CLAIM"
                with m.Elif(export.valid):
                    with m.If(k < 3):
                        # the position (PIXEL_2D_POSITION) and the output addresses
                        m.d.comb += export.ready.eq(1)
                        m.d.sync += addrs[k].eq(export.payload.addr)
                        with m.If(k == 0):
                            m.d.sync += [x.eq(export.payload.data[SCALE:]), hit.eq(self.pixel_hit)]
                        with m.If(k == 1):
                            m.d.sync += y.eq(export.payload.data[SCALE:])
                        with m.If(k == 2):
                            m.d.sync += pop_word.eq(0)
                            m.next = "HEADER"
                        m.d.sync += k.eq(k + 1)
                    with m.Elif(~kept):
                        m.d.comb += export.ready.eq(1)
                        m.d.sync += k.eq(k + 1)
                    with m.Elif(~lower):
                        # an upper pixel's word waits in the row buffer
                        m.d.comb += [export.ready.eq(level < self.row_words),
                                     row.push.eq(level < self.row_words),
                                     row.w_data.eq(export.payload.data)]
                        with m.If(level < self.row_words):
                            m.d.sync += k.eq(k + 1)
                    with m.Else():
                        emit(lane, k_temp, k_channel, export.payload.data, 1)
                        m.d.comb += export.ready.eq(load.ready)
                        with m.If(load.ready):
                            m.d.sync += k.eq(k + 1)
                    with m.If(export.ready & (k == EXPORT_WORDS - 1)):
                        m.d.sync += k.eq(0)
                        with m.If(lower):
                            m.next = "LOWER_DONE"

            with m.State("HEADER"):
                with m.If(~lower):
                    # an upper pixel: its header into the row buffer, word by word
                    header = Cat(x, y[:15], hit)
                    word = Signal(32)
                    with m.Switch(pop_word):
                        with m.Case(0):
                            m.d.comb += word.eq(header)
                        for n in range(3):
                            with m.Case(n + 1):
                                m.d.comb += word.eq(addrs[n])
                    m.d.comb += [row.push.eq(level < self.row_words), row.w_data.eq(word)]
                    with m.If(level < self.row_words):
                        m.d.sync += pop_word.eq(pop_word + 1)
                        with m.If(pop_word == HEADER_WORDS - 1):
                            m.d.sync += pop_word.eq(0)
                            m.next = "STREAM"
                with m.Elif(~x[0]):
                    # lane 2: a new quad over the two upper pixels at the buffer's head
                    m.next = "CLAIM"
                with m.Else():
                    m.d.sync += [outputs[3].eq(addrs), covered[3].eq(1)]
                    m.next = "STREAM"

            with m.State("CLAIM"):
                m.d.comb += self.context_req.eq(1)
                with m.If(self.context_grant):
                    m.d.sync += [context.eq(self.context), covered.eq(0), pop_lane.eq(0),
                                 pop_word.eq(0), pop_k.eq(3)]
                    with m.If(level == 0):
                        m.next = "ERROR"
                    with m.Else():
                        m.next = "POP"

            with m.State("POP"):
                # the record at the head: header words into registers, kept words loaded
                data_word = row.head
                with m.If(pop_word < HEADER_WORDS):
                    m.d.comb += row.pop.eq(1)
                    m.d.sync += pop_word.eq(pop_word + 1)
                    with m.Switch(pop_word):
                        with m.Case(0):
                            m.d.sync += [pop_x.eq(data_word[:16]), pop_y.eq(data_word[16:31]),
                                         pop_hit.eq(data_word[31])]
                            with m.If(pop_lane == 0):
                                m.d.sync += [quad_x.eq(data_word[:16]),
                                             quad_y.eq(data_word[16:31])]
                            # the upper neighbours of the lower pixel, in the buffer's order
                            expected = Cat((x + pop_lane)[:16], (y - 1)[:15])
                            with m.If(~flushing & (data_word[:31] != expected)):
                                m.next = "ERROR"
                        for n in range(3):
                            with m.Case(n + 1):
                                m.d.sync += outputs[pop_lane][n].eq(data_word)
                with m.Elif(pop_k == EXPORT_WORDS):
                    m.d.sync += covered.bit_select(pop_lane, 1).eq(1)
                    start_extra(pop_lane, pop_x, pop_y, pop_hit, 1)
                    m.next = "POP_EXTRA"
                with m.Elif(~p_kept):
                    m.d.sync += pop_k.eq(pop_k + 1)
                with m.Else():
                    emit(pop_lane, p_temp, p_channel, data_word, 1)
                    m.d.comb += row.pop.eq(load.ready)
                    with m.If(load.ready):
                        m.d.sync += pop_k.eq(pop_k + 1)

            with m.State("POP_EXTRA"):
                def after_pop():
                    with m.If(pop_lane == 0):
                        with m.If(right_edge):
                            # lane 1 lies outside: only its position
                            start_extra(1, quad_x + 1, quad_y, 0, 0)
                            m.next = "UNCOVERED"
                        with m.Else():
                            m.d.sync += [pop_lane.eq(1), pop_word.eq(0), pop_k.eq(3)]
                            m.next = "POP"
                    with m.Else():
                        m.next = "UPPER_DONE"
                emit_extra(after_pop)

            with m.State("UNCOVERED"):
                # the position of a lane outside the image (lane 1, or lanes 2-3 of a flush)
                def after_uncovered():
                    with m.If(extra_lane == 1):
                        m.next = "UPPER_DONE"
                    with m.Elif(extra_lane == 2):
                        start_extra(3, quad_x + 1, quad_y + 1, 0, 0)
                    with m.Else():
                        m.next = "LAUNCH"
                emit_extra(after_uncovered)

            with m.State("UPPER_DONE"):
                # lanes 0-1 loaded: a flush's lower lanes lie outside the image; otherwise
                # the lower pixel streams in as lane 2
                with m.If(flushing):
                    start_extra(2, quad_x, quad_y + 1, 0, 0)
                    m.next = "UNCOVERED"
                with m.Else():
                    m.d.sync += [outputs[2].eq(addrs), covered[2].eq(1)]
                    m.next = "STREAM"

            with m.State("LOWER_DONE"):
                # the lower pixel's header words; a quad is complete after lane 3 (or after
                # lane 2 at the right edge)
                start_extra(lane, x, y, hit, 1)
                m.next = "LOWER_EXTRA"

            with m.State("LOWER_EXTRA"):
                def after_lower():
                    with m.If(extra_lane == 3):
                        m.next = "LAUNCH"
                    with m.Elif(right_edge):
                        start_extra(3, quad_x + 1, quad_y + 1, 0, 0)
                        m.next = "UNCOVERED"
                    with m.Else():
                        m.next = "STREAM"
                emit_extra(after_lower)

            with m.State("LAUNCH"):
                m.d.comb += launch.valid.eq(1)
                with m.If(launch.ready):
                    with m.If(flushing & (level != 0)):
                        m.next = "CLAIM"
                    with m.Else():
                        m.d.sync += flushing.eq(0)
                        m.next = "STREAM"

            with m.State("ERROR"):
                m.d.comb += self.error.eq(1)

        m.d.comb += self.idle.eq(fsm.ongoing("STREAM") & (k == 0) & (level == 0)
                                 & ~band_ended)
        self.probe = {"state": fsm.state, "k": k, "level": level, "x": x, "y": y,
                      "band_ended": band_ended}
        return m
