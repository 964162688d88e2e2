"""Several requesters sharing the SDRAM controller's bus: fixed priorities, no starvation.

``SdramArbiter(chip, max_words, ports)`` has ``ports`` request buses (``ports[k]``:
In(SdramBus), hdl/mem/sdram_bus.py) and one towards the controller (``memory``). Port 0 has the
highest priority, then 1, and so on: on the GPU board the scan-out, then texture fills, frame
writes and the host (``PORT_ORDER``). A request is passed whole (its words are never
interleaved with another port's: the controller serves requests in order), and the arbiter
routes each write request's words from its port and each read request's words back to its
port, by two FIFOs of granted requests (port, words) kept in grant order.

Starvation: a port that stayed waiting while ``patience`` requests of others were granted is
promoted, and goes before every port that is not (promoted ports by index). So any port is
served after at most ``patience`` requests of others, while port 0 loses at most one request
per promoted port in turn. (With the scan-out's demand alone — at most a third of the peak for
640x480 at 60 Hz — the lower ports are not starved in practice; the bound holds whatever the
demand.)

``grant_valid``/``grant_port``: a request of port ``grant_port`` passes to ``memory`` this
cycle (for monitors and statistics).

Ports must take their read words when offered (the words come back in grant order: a port
that stalls its ``rdata`` stalls every port's reads behind it), and must send a write's words
without waiting for anything the memory does.
"""

from amaranth import Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.fifo import SyncFIFOBuffered
from amaranth.lib.wiring import In, Out

from hdl.mem.sdram_bus import SdramBus

__all__ = ["SdramArbiter", "PORT_ORDER"]

#: the ports of the GPU board's arbiter, highest priority first
PORT_ORDER = ("scanout", "texture", "frame", "host")


class SdramArbiter(wiring.Component):
    def __init__(self, chip, max_words, ports=len(PORT_ORDER), *, patience=8, routes=16):
        if ports < 1:
            raise ValueError(f"an arbiter needs at least one port, got {ports}")
        self.chip = chip
        self.max_words = max_words
        self.n = ports
        self.patience = patience
        self.routes = routes
        bus = SdramBus(chip, max_words)
        super().__init__({
            "ports": In(bus).array(ports),
            "memory": Out(bus),
            "grant_valid": Out(1),
            "grant_port": Out(range(max(ports, 2))),
        })

    def _route_layout(self):
        return data.StructLayout({"port": range(max(self.n, 2)),
                                  "words_minus_one": len(self.memory.cmd.payload.words_minus_one)})

    def elaborate(self, platform):
        m = Module()
        n, ports, memory = self.n, self.ports, self.memory
        route = self._route_layout()
        m.submodules.write_routes = write_routes = SyncFIFOBuffered(width=route.size,
                                                                    depth=self.routes)
        m.submodules.read_routes = read_routes = SyncFIFOBuffered(width=route.size,
                                                                  depth=self.routes)

        # --- which request goes: promoted ports first, then by index ------------------------
        eligible = Signal(n)
        for k in range(n):
            cmd = ports[k].cmd
            room = Mux(cmd.payload.write, write_routes.w_rdy, read_routes.w_rdy)
            m.d.comb += eligible[k].eq(cmd.valid & room)
        promoted = Signal(n)
        first = eligible & promoted
        choice = Signal(range(max(n, 2)))
        for k in reversed(range(n)):            # the last assignment wins: lowest index
            with m.If(eligible[k]):
                m.d.comb += choice.eq(k)
        for k in reversed(range(n)):
            with m.If(first[k]):
                m.d.comb += choice.eq(k)
        with m.Switch(choice):
            for k in range(n):
                with m.Case(k):
                    m.d.comb += memory.cmd.payload.eq(ports[k].cmd.payload)
        granted = Signal()
        m.d.comb += [memory.cmd.valid.eq(eligible.any()),
                     granted.eq(eligible.any() & memory.cmd.ready),
                     self.grant_valid.eq(granted), self.grant_port.eq(choice)]
        for k in range(n):
            m.d.comb += ports[k].cmd.ready.eq(granted & (choice == k))

        # patience: grants to others while a port waits
        for k in range(n):
            waited = Signal(range(self.patience + 1), name=f"waited{k}")
            with m.If(granted & (choice == k)):
                m.d.sync += [waited.eq(0), promoted[k].eq(0)]
            with m.Elif(granted & ports[k].cmd.valid & (waited != self.patience)):
                m.d.sync += waited.eq(waited + 1)
                with m.If(waited == self.patience - 1):
                    m.d.sync += promoted[k].eq(1)

        # --- routes of the granted requests ---------------------------------------------------
        entry = data.View(route, Signal(route.size))
        m.d.comb += [entry.port.eq(choice),
                     entry.words_minus_one.eq(memory.cmd.payload.words_minus_one),
                     write_routes.w_data.eq(entry.as_value()),
                     read_routes.w_data.eq(entry.as_value()),
                     write_routes.w_en.eq(granted & memory.cmd.payload.write),
                     read_routes.w_en.eq(granted & ~memory.cmd.payload.write)]
        self._route_writes(m, write_routes, route)
        self._route_reads(m, read_routes, route)
        return m

    def _route_writes(self, m, routes, layout):
        """The words of the write at the head of ``routes``, from its port to the memory."""
        head = data.View(layout, routes.r_data)
        with m.Switch(head.port):
            for k in range(self.n):
                with m.Case(k):
                    wdata = self.ports[k].wdata
                    m.d.comb += [self.memory.wdata.valid.eq(routes.r_rdy & wdata.valid),
                                 self.memory.wdata.payload.eq(wdata.payload),
                                 wdata.ready.eq(routes.r_rdy & self.memory.wdata.ready)]
        self._count_words(m, routes, head, self.memory.wdata, "write")

    def _route_reads(self, m, routes, layout):
        """The words of the read at the head of ``routes``, from the memory to its port."""
        head = data.View(layout, routes.r_data)
        rdata = self.memory.rdata
        with m.Switch(head.port):
            for k in range(self.n):
                with m.Case(k):
                    m.d.comb += [self.ports[k].rdata.valid.eq(routes.r_rdy & rdata.valid),
                                 rdata.ready.eq(routes.r_rdy & self.ports[k].rdata.ready)]
        for port in self.ports:
            m.d.comb += port.rdata.payload.eq(rdata.payload)
        self._count_words(m, routes, head, rdata, "read")

    @staticmethod
    def _count_words(m, routes, head, stream, name):
        """Pop the head route after its last word has passed ``stream``."""
        count = Signal.like(head.words_minus_one, name=f"{name}_count")
        with m.If(stream.valid & stream.ready):
            with m.If(count == head.words_minus_one):
                m.d.comb += routes.r_en.eq(1)
                m.d.sync += count.eq(0)
            with m.Else():
                m.d.sync += count.eq(count + 1)
