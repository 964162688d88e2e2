"""One DIV unit (``hdl.serial_divider.SerialDivider``) for several vector ALUs, by turns.

The divider is a sixth of a core's logic (a pipelined 49-step divider, ~3k LUT4-equivalents and
2k flip-flops on ECP5) and MAIN issues three DIVs per ray-triangle test of ~27 cycles, so two
cores can share one: the GPU's default (``Gpu(shared_dividers=True)``), what makes room for four
cores on the ULX3S-85F.

Turns: client ``k`` may send a DIV in the cycles where ``turn == k`` (a counter: 0, 1, ...,
clients - 1, 0, ...) and the divider takes one (``ready``: the shared divider's ``o_ready`` -
a DIV of non-uniform operands keeps the next one out for two cycles - and the turn). Both are
flip-flops, so a client's issue decision does not depend on another client's in the same cycle.
A DIV's quotient comes back to its client only (``result_valid``), exactly ``latency`` cycles
after it was sent, like from a divider of its own: the issuer's write-port reservation holds.

The request (valid, operands, client) is registered where it arrives, so the route from a
client in another part of the chip ends in a flip-flop, not in the divider's uniform-operand
check and its ``passes_left``: ``latency`` is the divider's + 1
(``shared_divider_latency``). That check thus happens a cycle after the DIV was sent, so
``ready`` is low for every client in the cycle after any DIV (with two clients taking turns,
that only costs the other client its turn).

``divider_link()`` is the signature of one client's connection, from the client's side (the
vector ALU: ``VectorALU(dividers=0)``, through ``Core`` and ``ShaderCore`` as their ``div``).
"""

from amaranth import Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hdl.isa import VectorLayout
from hdl.serial_divider import SerialDivider, serial_divider_latency

__all__ = ["SharedDivider", "divider_link", "shared_divider_latency"]


def shared_divider_latency(bits_per_stage):
    """Cycles from a client's DIV to its quotient: the request register + the divider."""
    return serial_divider_latency(bits_per_stage) + 1


def divider_link():
    """A vector ALU's connection to a shared divider (the ALU's side)."""
    return wiring.Signature({
        "valid": Out(1), "a": Out(VectorLayout), "b": Out(VectorLayout),   # a DIV is sent
        "ready": In(1),                         # ... may be sent in this cycle
        "result_valid": In(1), "result": In(VectorLayout),                # its quotient
    })


class SharedDivider(wiring.Component):
    """Parameters: ``clients`` (1 or more), ``bits_per_stage`` (the divider's). Ports:
    ``client[k]`` (``In(divider_link())``)."""

    def __init__(self, clients, bits_per_stage=2):
        if clients < 1:
            raise ValueError(f"clients must be at least 1, got {clients}")
        self.clients = clients
        self.unit = SerialDivider(tag_width=(clients - 1).bit_length(),
                                  bits_per_stage=bits_per_stage)
        self.latency = shared_divider_latency(bits_per_stage)
        super().__init__({"client": In(divider_link()).array(clients)})

    def elaborate(self, platform):
        m = Module()
        m.submodules.unit = unit = self.unit
        turn = Signal(range(self.clients))
        turn_next = Mux(turn == self.clients - 1, 0, turn + 1)
        m.d.sync += turn.eq(turn_next)
        # the request of the client whose turn it is, registered (a DIV was sent: valid)
        request_valid = Signal()
        request_a = Signal(VectorLayout, reset_less=True)
        request_b = Signal(VectorLayout, reset_less=True)
        request_tag = Signal.like(unit.i_tag, reset_less=True)
        request_next = Signal()         # the client whose turn it is sends a DIV now
        m.d.sync += request_valid.eq(request_next)
        # A client's ready is a flip-flop of its own, worked out a cycle ahead from what the
        # turn, the request register and the divider's ready will be (it feeds the client's
        # issue decision, in a core elsewhere on the chip): ready = the divider's o_ready, the
        # client's turn and no request in the register (o_ready answers for that request a
        # cycle late).
        for k, client in enumerate(self.client):
            with m.If(turn == k):
                m.d.sync += [request_a.eq(client.a), request_b.eq(client.b), request_tag.eq(k)]
                m.d.comb += request_next.eq(client.valid)
        for k, client in enumerate(self.client):
            ready = Signal(name=f"ready{k}", init=int(k == 0))
            m.d.sync += ready.eq(unit.o_ready_next & (turn_next == k) & ~request_next)
            m.d.comb += [client.ready.eq(ready),
                         client.result_valid.eq(unit.o_valid & (unit.o_tag == k)),
                         client.result.eq(unit.o_q)]
        m.d.comb += [unit.i_valid.eq(request_valid), unit.i_a.eq(request_a),
                     unit.i_b.eq(request_b), unit.i_tag.eq(request_tag)]
        return m
