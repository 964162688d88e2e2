"""TMREAD and OMWRITE: the core's requests to the texture and output memories, lane by lane.

A memory instruction's addresses are checked in the cycle after its first cycle without a
hazard (``settled``), from I's operand registers (the operands are final then: the range checks'
carry chains are not behind the forwarding), and the check is registered (no operand value
reaches the issue decision). Then a small sequencer sends lanes x, y, z in order; TMREAD
collects the three responses (registered as they arrive from the shared texture port across the
chip, a cycle more, then sorted into ``tm_data``'s lanes).

Each lane's request (address, with the band's base for OMWRITE, and data) is worked out into
registers the cycle before it is sent (lane x while the addresses are checked, the next lane as
one is taken), so a request leaves the core from flip-flops. OMWRITE's words are base + v
(33 bits) < omem_words, i.e. v < omem_words - base: that room is registered from ``omem_base``
(the band's base, stable from a routine's start), so no adder is in front of the compares.
"""

from amaranth import Cat, Module, Mux, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hdl.core.ports import OutputWrite
from hdl.isa import VectorLayout

__all__ = ["MemoryAccess"]


class MemoryAccess(wiring.Component):
    """Parameters: ``tmem_words``, ``omem_words`` (the address ranges checked).

    In: ``i_valid``, ``error``, ``i_ready`` (I's instruction has no hazard), ``i_tm``/``i_om``
    (it is a TMREAD / OMWRITE), its operands ``i_a``/``i_b``, ``issue`` (it leaves I),
    ``running``, ``omem_base``; the ``tm_req``/``tm_resp``/``om_req`` streams. Out:
    ``checked``, ``bad`` (an address is out of range), ``done`` (every lane sent, and for
    TMREAD answered), ``tm_data`` (TMREAD's vector)."""

    def __init__(self, tmem_words, omem_words):
        self.tmem_words = tmem_words
        self.omem_words = omem_words
        super().__init__({
            "i_valid": In(1), "error": In(1), "i_ready": In(1), "i_tm": In(1), "i_om": In(1),
            "i_a": In(VectorLayout), "i_b": In(VectorLayout), "issue": In(1), "running": In(1),
            "omem_base": In(32),
            "tm_req": Out(stream.Signature(32)),                      # texture word address
            "tm_resp": In(stream.Signature(32, always_ready=True)),   # its data, in order
            "om_req": Out(stream.Signature(OutputWrite)),
            "checked": Out(1), "bad": Out(1), "done": Out(1), "tm_data": Out(VectorLayout),
        })

    def elaborate(self, platform):
        m = Module()
        is_tm, is_om = self.i_tm, self.i_om
        a_lanes = [self.i_a.x, self.i_a.y, self.i_a.z]
        settled = Signal()              # the TMREAD/OMWRITE in I has its final operands
        checked = Signal()              # its addresses are checked
        bad = Signal()                  # ... and one is out of range
        req_lane = Signal(2)
        resp_lane = Signal(2)
        tm_data = Signal(VectorLayout, reset_less=True)
        m.d.comb += [self.checked.eq(checked), self.bad.eq(bad), self.tm_data.eq(tm_data)]

        om_room = Signal(33, reset_less=True)
        m.d.sync += om_room.eq(Mux(self.omem_base > self.omem_words, 0,
                                   self.omem_words - self.omem_base))
        out_of_range = Signal()
        m.d.comb += out_of_range.eq(Mux(
            is_tm, Cat(v >= self.tmem_words for v in a_lanes).any(),
            Cat(v >= om_room for v in a_lanes).any()))
        with m.If(self.i_ready & (is_tm | is_om)):
            m.d.sync += settled.eq(1)
        with m.If(settled & ~checked):
            m.d.sync += [checked.eq(1), bad.eq(out_of_range)]

        go = self.i_valid & ~self.error & checked & ~bad
        req_addr = Signal(32, reset_less=True)
        req_data = Signal(32, reset_less=True)
        reqs_left = req_lane < 3
        m.d.comb += [
            self.tm_req.valid.eq(go & is_tm & reqs_left),
            self.tm_req.payload.eq(req_addr),
            self.om_req.valid.eq(go & is_om & reqs_left),
            self.om_req.payload.addr.eq(req_addr),
            self.om_req.payload.data.eq(req_data),
        ]
        req_accepted = (self.tm_req.valid & self.tm_req.ready) | \
                       (self.om_req.valid & self.om_req.ready)

        def load_request(lane):
            address = getattr(self.i_a, lane)
            m.d.sync += [req_addr.eq(Mux(is_om, self.omem_base + address, address)[:32]),
                         req_data.eq(getattr(self.i_b, lane))]
        with m.If(settled & ~checked):
            load_request("x")
        with m.Elif(req_accepted):
            with m.Switch(req_lane):
                for n, lane in enumerate(("y", "z")):
                    with m.Case(n):
                        load_request(lane)
        # (the third request sent, the third response in: flip-flops set as the count reaches
        # 3, so that the issue decision does not compare the counts)
        reqs_done = Signal()
        resps_done = Signal()
        with m.If(req_accepted):
            m.d.sync += [req_lane.eq(req_lane + 1), reqs_done.eq(req_lane == 2)]
        tm_resp_valid = Signal()
        tm_resp_word = Signal(32, reset_less=True)
        m.d.sync += [tm_resp_valid.eq(self.tm_resp.valid), tm_resp_word.eq(self.tm_resp.payload)]
        with m.If(tm_resp_valid):
            with m.Switch(resp_lane):
                for n, lane in enumerate(("x", "y", "z")):
                    with m.Case(n):
                        m.d.sync += getattr(tm_data, lane).eq(tm_resp_word)
            m.d.sync += [resp_lane.eq(resp_lane + 1), resps_done.eq(resp_lane == 2)]
        m.d.comb += self.done.eq(Mux(is_tm, resps_done, reqs_done))
        with m.If(self.issue | ~self.running):
            m.d.sync += [req_lane.eq(0), resp_lane.eq(0), settled.eq(0), checked.eq(0),
                         bad.eq(0), reqs_done.eq(0), resps_done.eq(0)]
        return m
