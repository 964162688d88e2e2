"""The texture cache: texture words from SDRAM for the THEIA cores' TMREAD and the R500 stage's
TEX, through block RAM (``GpuConfig.memory``, docs/memory-system.md).

A texture word is an 8-bit colour << 9 (theia-system.md §1), so the SDRAM keeps one byte a
texture word, two to a 16-bit SDRAM word: texture word ``a`` is byte ``a & 1`` of SDRAM word
``base + (a >> 1)``. The cache keeps lines of ``line_bytes`` texture words (``line_bytes / 2``
SDRAM words, one read request of the arbiter's texture port fills one), ``ways`` to a set.

Requests: one stream a client (``req[k]``: a texture word address), answered on ``resp[k]``
(``byte << 9``, 32 bits; always ready: a client takes what it asked for) in the order asked.
An arbiter (fixed turns with ``slotted``, else round robin) puts them into a queue of
``QUEUE`` entries; the pipeline takes them from the queue in order:

    issue:  the queue's entry -> the tag and data RAMs' addresses (registered in the RAMs)
    read:   the RAMs' words and the entry registered
    decide: a tag matches -> the byte, registered on resp[client]  (a hit every cycle)
            no tag matches (a miss) -> fill the line, then issue again from that entry

A request is taken out of the queue only when it is answered. A miss stops the pipeline: what
was issued behind it is dropped and issued again after the fill, so the answers stay in order
whoever asked (a blocking cache; one fill at a time). A fill reads the line's SDRAM words in
order into the data RAM (its ``rdata`` is always taken), then writes the tag. The victim of a
two-way set is picked by a bit that flips with each fill.

Latency: a hit is answered 4 cycles after its request is taken (3 in the queue and pipeline,
1 in the answer's register); a miss 5 more than the SDRAM's read of the line, plus the cycles
the arbiter's higher ports keep it waiting.

``invalidate`` (a pulse; the host wrote texture words) clears every line's valid bit, a set a
cycle (requests wait meanwhile); nothing else keeps the cache coherent: the texture is written
only while no frame runs. Block RAM powers up cleared, so the cache starts empty.

The client ports are streams: with a client in another clock domain, an AsyncFIFO on its
request stream and one on its answers (never full when the client, as the R500 texel fetch
does, asks only for what it has room for) go between.
"""

from amaranth import Cat, Const, Module, Mux, Signal, unsigned
from amaranth.lib import data, stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out
from amaranth.utils import ceil_log2, exact_log2

from hdl.config import TEXTURE_SHIFT
from hdl.lib.arbiter import RoundRobinArbiter, SlotArbiter
from hdl.mem.sdram_bus import SdramBus

__all__ = ["TextureCache", "QUEUE", "HIT_LATENCY"]

#: requests taken and not yet answered: covers the pipeline (issue to answer: 3) and a request
#: a cycle behind it
QUEUE = 8
#: cycles from a request's transfer to its answer when it hits (the queue, the RAMs, the
#: decision, the answer's register)
HIT_LATENCY = 4


class TextureCache(wiring.Component):
    """Parameters: ``chip`` (the SDRAM's ``SdramChip``), ``clients``, ``addr_bits`` (a texture
    word address), ``base`` (the SDRAM word of texture words 0 and 1: a multiple of a line),
    ``lines`` (of all ways), ``line_bytes``, ``ways`` (1 or 2), ``slotted`` (the clients take
    fixed turns), ``max_words`` (of the SDRAM bus).

    Ports: ``req[k]``, ``resp[k]``, ``sdram`` (the arbiter's texture port), ``invalidate``,
    ``fills`` (lines filled since reset, for statistics)."""

    def __init__(self, chip, clients, addr_bits, *, base, lines=512, line_bytes=16, ways=1,
                 slotted=False, max_words=16):
        if ways not in (1, 2):
            raise ValueError(f"a texture cache has 1 or 2 ways, not {ways}")
        words = line_bytes // 2
        if line_bytes < 4 or words > max_words or exact_log2(line_bytes) is None:
            raise ValueError(f"a line is a power of two of 4 to {2 * max_words} bytes, "
                             f"not {line_bytes}")
        if lines % ways or exact_log2(lines // ways) is None:
            raise ValueError(f"{lines} lines do not make a power of two of sets of {ways}")
        if base % words:
            raise ValueError(f"the texture's SDRAM address {base:#x} is not a line's")
        self.chip = chip
        self.n = clients
        self.addr_bits = addr_bits
        self.base = base
        self.ways = ways
        self.line_words = words
        self.offset_bits = exact_log2(line_bytes)
        self.set_bits = exact_log2(lines // ways)
        self.tag_bits = max(1, addr_bits - self.offset_bits - self.set_bits)
        self.tag_layout = data.StructLayout({"valid": 1, "tag": self.tag_bits})
        self.entry_layout = data.StructLayout({"addr": addr_bits,
                                               "client": range(max(clients, 2))})
        self.arbiter = (SlotArbiter if slotted else RoundRobinArbiter)(clients, addr_bits)
        super().__init__({
            "req": In(stream.Signature(addr_bits)).array(clients),
            "resp": Out(stream.Signature(32, always_ready=True)).array(clients),
            "sdram": Out(SdramBus(chip, max_words)),
            "invalidate": In(1),
            "fills": Out(32),
        })

    def _fields(self, addr):
        """(set, tag, the data RAM's address) of texture word ``addr``."""
        line = addr[self.offset_bits:]
        return (line[:self.set_bits], line[self.set_bits:][:self.tag_bits],
                addr[1:self.offset_bits + self.set_bits])

    def elaborate(self, platform):
        m = Module()
        ways, sets = self.ways, 1 << self.set_bits
        m.submodules.arbiter = arbiter = self.arbiter
        for k in range(self.n):
            wiring.connect(m, wiring.flipped(self.req[k]), arbiter.i[k])

        m.submodules.queue = queue = Memory(shape=self.entry_layout, depth=QUEUE, init=[])
        m.submodules.tags = tags = Memory(shape=data.ArrayLayout(self.tag_layout, ways),
                                          depth=sets, init=[])
        m.submodules.lines = lines = Memory(shape=unsigned(16 * ways),
                                            depth=sets * self.line_words, init=[])
        q_write, q_read = queue.write_port(), queue.read_port(domain="comb")
        tag_write, tag_read = tags.write_port(), tags.read_port()
        line_write, line_read = lines.write_port(granularity=16), lines.read_port()

        # the queue: taken at ``tail``, issued at ``issue``, answered at ``head`` (pointers
        # one bit wider than an index, so that full and empty differ)
        pointer = ceil_log2(QUEUE) + 1
        head, issue, tail = (Signal(pointer, name=n) for n in ("head", "issue", "tail"))
        full = (tail - head)[:pointer] == QUEUE
        m.d.comb += [arbiter.o.ready.eq(~full),
                     q_write.en.eq(arbiter.o.valid & ~full), q_write.addr.eq(tail[:-1]),
                     q_write.data.addr.eq(arbiter.o.payload), q_write.data.client.eq(arbiter.grant)]
        with m.If(q_write.en):
            m.d.sync += tail.eq(tail + 1)

        running = Signal()              # neither filling nor sweeping
        # issue: the entry addresses the RAMs (they register it)
        issuing = running & (issue != tail)
        entry = q_read.data
        m.d.comb += q_read.addr.eq(issue[:-1])
        entry_set, _, entry_word = self._fields(entry.addr)
        m.d.comb += [tag_read.addr.eq(entry_set), line_read.addr.eq(entry_word)]
        # read: the RAMs' words come out beside the entry
        read_valid = Signal()
        read_entry = Signal(self.entry_layout, reset_less=True)
        m.d.sync += [read_valid.eq(issuing), read_entry.eq(entry)]
        # decide: the words registered (a block RAM's output is late in its cycle)
        valid = Signal()
        held = Signal(self.entry_layout, reset_less=True)
        held_tags = Signal(data.ArrayLayout(self.tag_layout, ways), reset_less=True)
        held_words = Signal(16 * ways, reset_less=True)
        m.d.sync += [valid.eq(read_valid & running), held.eq(read_entry),
                     held_tags.eq(tag_read.data), held_words.eq(line_read.data)]
        held_set, held_tag, _ = self._fields(held.addr)
        matches = Signal(ways)
        m.d.comb += matches.eq(Cat(t.valid & (t.tag == held_tag) for t in held_tags))
        word = Signal(16)
        for way in range(ways):
            with m.If(matches[way]):
                m.d.comb += word.eq(held_words[16 * way:16 * (way + 1)])
        hit = valid & matches.any()
        miss = valid & ~matches.any()

        # the answer, registered
        answer_valid = Signal()
        answer_client = Signal.like(held.client)
        answer = Signal(32, reset_less=True)
        m.d.sync += [answer_valid.eq(hit & running), answer_client.eq(held.client),
                     answer.eq(Cat(Const(0, TEXTURE_SHIFT),
                                   word.word_select(held.addr[0], 8)))]
        for k in range(self.n):
            m.d.comb += [self.resp[k].valid.eq(answer_valid & (answer_client == k)),
                         self.resp[k].payload.eq(answer)]

        # the pointers: an answer retires the head; a miss (or a sweep) drops what was
        # issued behind it and issues again from the entry that missed
        retire = hit & running
        next_head = Mux(retire, head + 1, head)
        m.d.sync += head.eq(next_head)
        restart = Signal()
        with m.If(restart):
            m.d.sync += issue.eq(next_head)
        with m.Elif(issuing):
            m.d.sync += issue.eq(issue + 1)

        self._control(m, running, restart, miss, held, held_tags, held_set, held_tag,
                      tag_write, line_write)
        return m

    def _control(self, m, running, restart, miss, held, held_tags, held_set, held_tag,
                 tag_write, line_write):
        """The fills and the sweep (``running`` outside them), the restarts they make."""
        ways, words = self.ways, self.line_words
        fill_line = Signal(self.addr_bits - self.offset_bits)   # the line being filled
        fill_set = Signal(self.set_bits)
        fill_tags = Signal.like(held_tags)          # the set's tags, the victim's replaced
        fill_way = Signal(range(max(ways, 2)))
        victim = Signal(range(max(ways, 2)))        # flips with each fill (two ways)
        requested = Signal()
        word_count = Signal(range(words))
        sweep_set = Signal(self.set_bits)
        sweep_wanted = Signal()
        with m.If(self.invalidate):
            m.d.sync += sweep_wanted.eq(1)

        bus = self.sdram
        m.d.comb += [bus.cmd.payload.addr.eq(self.base + fill_line * words),
                     bus.cmd.payload.write.eq(0),
                     bus.cmd.payload.words_minus_one.eq(words - 1),
                     bus.rdata.ready.eq(1),
                     bus.wdata.valid.eq(0)]
        m.d.comb += [line_write.addr.eq(Cat(word_count, fill_set)),
                     line_write.data.eq(bus.rdata.payload.replicate(ways)),
                     tag_write.addr.eq(fill_set), tag_write.data.eq(fill_tags)]
        with m.FSM():
            with m.State("RUN"):
                m.d.comb += running.eq(1)
                with m.If(miss):
                    m.d.comb += restart.eq(1)
                    m.d.sync += [fill_line.eq(held.addr[self.offset_bits:]),
                                 fill_set.eq(held_set), fill_way.eq(victim),
                                 fill_tags.eq(held_tags), requested.eq(0),
                                 word_count.eq(0)]
                    for way in range(ways):
                        with m.If(victim == way):
                            m.d.sync += [fill_tags[way].valid.eq(1),
                                         fill_tags[way].tag.eq(held_tag)]
                    if ways > 1:
                        m.d.sync += victim.eq(~victim)
                    m.next = "FILL"
                with m.Elif(sweep_wanted):
                    m.d.comb += restart.eq(1)
                    m.d.sync += sweep_set.eq(0)
                    m.next = "SWEEP"
            with m.State("FILL"):
                m.d.comb += bus.cmd.valid.eq(~requested)
                with m.If(bus.cmd.ready):
                    m.d.sync += requested.eq(1)
                with m.If(bus.rdata.valid):
                    m.d.comb += line_write.en.eq(Cat(fill_way == way for way in range(ways)))
                    m.d.sync += word_count.eq(word_count + 1)
                    with m.If(word_count == words - 1):
                        m.d.comb += tag_write.en.eq(1)
                        m.d.sync += self.fills.eq(self.fills + 1)
                        m.next = "RUN"
            with m.State("SWEEP"):
                m.d.comb += [tag_write.en.eq(1), tag_write.addr.eq(sweep_set),
                             tag_write.data.eq(0)]
                m.d.sync += sweep_set.eq(sweep_set + 1)
                with m.If(sweep_set == (1 << self.set_bits) - 1):
                    m.d.sync += sweep_wanted.eq(self.invalidate)
                    m.next = "RUN"
