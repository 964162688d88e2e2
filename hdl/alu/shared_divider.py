"""One lane divider (``hdl.alu.divider.Divider``) for the DIVs of several vector ALUs, in time
slots.

The divider is a large part of a core's logic (a pipelined 49-step divider, ~1.8k
LUT4-equivalents and 2k flip-flops on ECP5) and MAIN issues three DIVs per ray-triangle test of
~30 cycles, so two cores can share one: the GPU's default (``Gpu(shared_dividers=True)``),
what makes room for four cores on the ULX3S-85F.

**Slots.** The divider takes one lane per cycle, from its clients in turn: with ``slots`` = S,
client ``k`` may send a DIV in the cycles t with t mod S = k (its *slot*), the lane enters the
divider in the next cycle (from the client's request register). A DIV of **uniform operands**
(a.x = a.y = a.z and b.x = b.y = b.z: every DIV of MAIN) is one pass, its quotient goes to all
three lanes. Any other DIV sends lanes y and z through in the client's next two slots, which
the client then cannot use: ``ready`` is low in them.

So whether a client may send depends on nothing but its own slot count and its own DIVs: its
``ready`` is a flip-flop worked out from those a cycle ahead, next to the client (it feeds the
core's issue decision; what another core issued never reaches it), and its request register
loads in every slot it is ready in, DIV or not (the enable is that flip-flop, not the issue).

A DIV sent in cycle t comes back to its client only (``result_valid``), in cycle
t + ``latency`` = t + 1 (request register) + the divider's latency + 2 S (lane z enters 2 S
cycles after lane x; lanes x and y wait for it in a delay line), whatever its operands: the
issuer's write-port reservation holds. ``latency`` depends on S, not on how many clients are
connected (``shared_divider_latency``): every vector ALU of a GPU has the same DIV latency.

``divider_link()`` is the signature of one client's connection, from the client's side (the
vector ALU: ``VectorALU(dividers=0)``, through ``Core`` and ``ShaderCore`` as their ``div``).
"""

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from hdl.alu.divider import Divider, divider_latency
from hdl.isa import VectorLayout

__all__ = ["SharedDivider", "divider_link", "shared_divider_latency", "uniform_operands",
           "DIVIDER_SLOTS"]

#: slots of the GPU's shared dividers: two cores share one
DIVIDER_SLOTS = 2


def uniform_operands(a, b):
    """A DIV of operand lanes ``a``, ``b`` ((x, y, z): integers or Amaranth values) is one
    pass: a.x = a.y = a.z and b.x = b.y = b.z."""
    return (a[0] == a[1]) & (a[0] == a[2]) & (b[0] == b[1]) & (b[0] == b[2])


def shared_divider_latency(bits_per_stage, slots=DIVIDER_SLOTS):
    """Cycles from a client's DIV to its quotient: the request register, the divider, and
    the 2 S cycles lane z enters after lane x."""
    return 1 + divider_latency(bits_per_stage) + 2 * slots


def divider_link():
    """A vector ALU's connection to a shared divider (the ALU's side)."""
    return wiring.Signature({
        "valid": Out(1), "a": Out(VectorLayout), "b": Out(VectorLayout),   # a DIV is sent
        "ready": In(1),                         # ... may be sent in this cycle
        "result_valid": In(1), "result": In(VectorLayout),                # its quotient
    })


class SharedDivider(wiring.Component):
    """Parameters: ``clients`` (1 .. ``slots``), ``slots`` (2 or more, default ``DIVIDER_SLOTS``),
    ``bits_per_stage`` (the divider's). Ports: ``client[k]`` (``In(divider_link())``)."""

    def __init__(self, clients, slots=DIVIDER_SLOTS, bits_per_stage=2):
        # (two slots at least: a client's slot is never the cycle its DIV's lane x enters, in
        # which the DIV is found to take three passes)
        if slots < 2:
            raise ValueError(f"a shared divider has two slots or more, got {slots}")
        if not 1 <= clients <= slots:
            raise ValueError(f"clients must be 1 .. slots ({slots}), got {clients}")
        self.clients = clients
        self.slots = slots
        self.client_bits = (slots - 1).bit_length()
        # the divider's tag: the client and "uniform" (its quotient goes to all three lanes)
        self.unit = Divider(tag_width=self.client_bits + 1, bits_per_stage=bits_per_stage)
        self.latency = shared_divider_latency(bits_per_stage, slots)
        super().__init__({"client": In(divider_link()).array(clients)})

    def elaborate(self, platform):
        m = Module()
        m.submodules.unit = unit = self.unit
        slots = self.slots
        lanes_in = []           # per client: (lane valid, a lane, b lane, uniform)
        for k, client in enumerate(self.client):
            lanes_in.append(self._request_register(m, k, client))

        # the client whose lane enters now: the one whose slot was last cycle
        entering = Signal(range(slots), init=slots - 1)
        m.d.sync += entering.eq(Mux(entering == slots - 1, 0, entering + 1))
        for k, (fresh, a_lane, b_lane, uniform) in enumerate(lanes_in):
            with m.If(entering == k):
                m.d.comb += [unit.i_valid.eq(fresh), unit.i_a.eq(a_lane), unit.i_b.eq(b_lane),
                             unit.i_tag.eq(Cat(Const(k, self.client_bits), uniform))]

        # lane x (or the broadcast quotient) leaves 2 S cycles before lane z, lane y S cycles
        # before it: a delay line of 2 S stages holds them (lanes y and z leave with valid 0)
        valid_line, line = [unit.o_valid], [Cat(unit.o_q, unit.o_tag)]
        for n in range(1, 2 * slots + 1):
            valid_line.append(Signal(name=f"leaving{n}_valid"))
            line.append(Signal(len(line[0]), name=f"leaving{n}", reset_less=True))
            m.d.sync += [valid_line[n].eq(valid_line[n - 1]), line[n].eq(line[n - 1])]
        valid = valid_line[2 * slots]
        q_x, client_of = line[2 * slots][:32], line[2 * slots][32:32 + self.client_bits]
        broadcast = line[2 * slots][-1]
        q_y, q_z = line[slots][:32], line[0][:32]
        for k, client in enumerate(self.client):
            m.d.comb += [client.result_valid.eq(valid & (client_of == k)),
                         client.result.x.eq(q_x),
                         client.result.y.eq(Mux(broadcast, q_x, q_y)),
                         client.result.z.eq(Mux(broadcast, q_x, q_z))]
        return m

    def _request_register(self, m, k, client):
        """Client ``k``'s ready, request register and lane sequence; returns what it offers
        the divider in the cycle its lane enters: (a DIV's first lane, the a and b lanes,
        uniform)."""
        slots = self.slots
        # phase 0: the client's slot. Counted per client (its ready is worked out beside it);
        # the counters start apart, so synthesis keeps them apart
        phase = Signal(range(slots), name=f"phase{k}", init=(-k) % slots)
        phase_next = Mux(phase == slots - 1, 0, phase + 1)
        m.d.sync += phase.eq(phase_next)
        own_slot = phase == 0
        enter_slot = phase == 1              # the cycle after: its lane enters the divider
        lanes_owed = Signal(2, name=f"lanes_owed{k}")   # own slots lanes y, z still take
        ready = Signal(name=f"ready{k}", init=int(k == 0))
        fresh = Signal(name=f"fresh{k}")                # the register holds a new DIV
        a = Signal(VectorLayout, name=f"request{k}_a", reset_less=True)
        b = Signal(VectorLayout, name=f"request{k}_b", reset_less=True)
        # whether the DIV is one pass is found from the register as its lane x enters (not
        # from the client's operands, whose compares would follow the route from the core in
        # front of lanes_owed's enable); its lanes y and z then owe the client's next two slots
        uniform = Signal(name=f"uniform{k}")
        m.d.comb += uniform.eq(uniform_operands((a.x, a.y, a.z), (b.x, b.y, b.z)))
        lanes_owed_next = Signal(2, name=f"lanes_owed{k}_next")
        m.d.comb += lanes_owed_next.eq(lanes_owed)
        with m.If(own_slot & (lanes_owed != 0)):
            m.d.comb += lanes_owed_next.eq(lanes_owed - 1)
        with m.If(enter_slot & fresh & ~uniform):
            m.d.comb += lanes_owed_next.eq(2)
        m.d.sync += lanes_owed.eq(lanes_owed_next)
        # ready next cycle: its slot, no lanes owed (from flip-flops: the client's DIV of this
        # cycle, if any, reaches only ``fresh``)
        m.d.sync += ready.eq((phase_next == 0) & (lanes_owed_next == 0))
        m.d.comb += client.ready.eq(ready)
        # the register loads in every slot the client is ready in (sent or not: the enable is
        # a flip-flop), and moves lane y, then z, down into lane x after each lane entered
        with m.If(own_slot & ready):
            m.d.sync += [a.eq(client.a), b.eq(client.b), fresh.eq(client.valid)]
        with m.Elif(enter_slot):
            m.d.sync += [a.x.eq(a.y), a.y.eq(a.z), b.x.eq(b.y), b.y.eq(b.z), fresh.eq(0)]
        return fresh, a.x, b.x, uniform
