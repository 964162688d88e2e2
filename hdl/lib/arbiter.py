"""Sharing one memory port between several requesters.

* ``RoundRobinArbiter`` merges ``n`` valid/ready request streams into one. The requester after
  the one granted last has priority, so a requester that keeps ``valid`` high is served within
  ``n`` transfers whatever the others do (no starvation). ``grant`` (the index of the requester
  whose payload is on ``o``) travels beside the output.
* ``SharedReadPort`` puts such an arbiter in front of a synchronous memory read port (data one
  cycle after the address) and routes each word back to the requester that asked for it. A
  request granted in cycle t is answered in cycle t + 1 on that requester's ``resp`` stream, so
  answers come in request order; responses cannot be refused (``always_ready``), like the core's
  ``tm_resp``.

Both are combinational from ``valid`` to ``ready`` (one small priority choice), with the choice
registered only through the round-robin pointer: cheap on an FPGA for a handful of requesters.

(The Gpu puts a ``hdl.lib.skid_buffer.SkidBuffer`` in front of each requester: its requests
and the ready it sees end in flip-flops.)
"""

from amaranth import Module, Mux, Signal
from amaranth.lib import wiring, stream
from amaranth.lib.wiring import In, Out

__all__ = ["RoundRobinArbiter", "SlotArbiter", "SharedReadPort"]


class _Arbiter(wiring.Component):
    """The ports of an arbiter: ``i[k]``: request streams (payload ``shape``); ``o``: the
    granted one; ``grant``: its index (meaningful while ``o.valid``)."""

    def __init__(self, n, shape):
        if n < 1:
            raise ValueError(f"an arbiter needs at least one requester, got {n}")
        self.n = n
        self.shape = shape
        super().__init__({
            "i": In(stream.Signature(shape)).array(n),
            "o": Out(stream.Signature(shape)),
            "grant": Out(range(max(n, 2))),
        })


class RoundRobinArbiter(_Arbiter):
    """Round robin over ``n`` requesters (the ports: ``_Arbiter``)."""

    def elaborate(self, platform):
        m = Module()
        n = self.n
        last = Signal(range(max(n, 2)), init=n - 1)   # granted last: lowest priority now
        choice = Signal(range(max(n, 2)))
        any_valid = Signal()
        # Scan the requesters in priority order starting after ``last``; the first valid one
        # wins. Written as "for each possible ``last``, a fixed priority order" so it maps to
        # a small mux of priority encoders.
        with m.Switch(last):
            for start in range(n):
                with m.Case(start):
                    order = [(start + 1 + k) % n for k in range(n)]
                    for k in reversed(order):           # the last assignment wins
                        with m.If(self.i[k].valid):
                            m.d.comb += [choice.eq(k), any_valid.eq(1)]
        with m.Switch(choice):
            for k in range(n):
                with m.Case(k):
                    m.d.comb += self.o.payload.eq(self.i[k].payload)
                    m.d.comb += self.i[k].ready.eq(self.o.ready & any_valid)
        m.d.comb += [self.o.valid.eq(any_valid), self.grant.eq(choice)]
        with m.If(self.o.valid & self.o.ready):
            m.d.sync += last.eq(choice)
        return m


class SlotArbiter(_Arbiter):
    """The ports of ``RoundRobinArbiter``, served in fixed turns: requester ``k`` may pass a
    request in the cycles t with t mod n = k, whoever else waits. Nothing combines the
    requesters' ``valid``: a requester's ``ready`` is its slot (a flip-flop of a one-hot ring)
    and ``o``'s payload is picked by the slot. For requesters spread over the chip (skid
    buffers by the cores), where the round-robin choice from every ``valid`` to every
    ``ready``, and its payload multiplexer, would be routes across the chip and back. A request
    waits up to n - 1 cycles more."""

    def elaborate(self, platform):
        m = Module()
        n = self.n
        slot = Signal(n, init=1)                    # one-hot: whose turn it is
        turn = Signal(range(max(n, 2)))             # ... as a number (the grant)
        m.d.sync += [slot.eq(slot.rotate_left(1)), turn.eq(Mux(turn == n - 1, 0, turn + 1))]
        for k in range(n):
            with m.If(slot[k]):
                m.d.comb += [self.o.valid.eq(self.i[k].valid),
                             self.o.payload.eq(self.i[k].payload)]
            m.d.comb += self.i[k].ready.eq(slot[k] & self.o.ready)
        m.d.comb += self.grant.eq(turn)
        return m


class SharedReadPort(wiring.Component):
    """``n`` requesters sharing one synchronous read port.

    ``req[k]``: addresses (``addr_shape``), ``resp[k]``: the words (``data_shape``),
    ``memory_latency`` cycles after the request is taken, or one more with ``registered``: the
    memory's data are registered before they are handed out. Towards the memory: ``mem_addr``,
    ``mem_en`` (a request is taken this cycle) and ``mem_data`` (the read port's data,
    ``memory_latency`` cycles after the address). ``slotted``: the requesters take turns
    (``SlotArbiter``) instead of round robin.
    """

    def __init__(self, n, addr_shape, data_shape, *, memory_latency=1, registered=False,
                 slotted=False):
        if memory_latency < 1:
            raise ValueError(f"a synchronous read port has a latency >= 1, got {memory_latency}")
        self.n = n
        self.memory_latency = memory_latency
        self.registered = registered
        self.arbiter = (SlotArbiter if slotted else RoundRobinArbiter)(n, addr_shape)
        super().__init__({
            "req": In(stream.Signature(addr_shape)).array(n),
            "resp": Out(stream.Signature(data_shape, always_ready=True)).array(n),
            "mem_addr": Out(addr_shape),
            "mem_en": Out(1),
            "mem_data": In(data_shape),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.arbiter = arb = self.arbiter
        for k in range(self.n):
            wiring.connect(m, wiring.flipped(self.req[k]), arb.i[k])
        taken = Signal()
        m.d.comb += [arb.o.ready.eq(1), taken.eq(arb.o.valid),
                     self.mem_addr.eq(arb.o.payload), self.mem_en.eq(taken)]
        # the grant travels as long as the word: finally a word for ``answer_to`` is on ``data``
        answer, answer_to = taken, arb.grant
        for _ in range(self.memory_latency + self.registered):
            answer_q = Signal()
            answer_to_q = Signal.like(arb.grant)
            m.d.sync += [answer_q.eq(answer), answer_to_q.eq(answer_to)]
            answer, answer_to = answer_q, answer_to_q
        data = self.mem_data
        if self.registered:
            data = Signal.like(self.mem_data, reset_less=True)
            m.d.sync += data.eq(self.mem_data)
        for k in range(self.n):
            m.d.comb += [self.resp[k].valid.eq(answer & (answer_to == k)),
                         self.resp[k].payload.eq(data)]
        return m
