"""The R500 core's texture unit: ``sim.r500.tex`` bit for bit (r500-us.md §3.5, docs/r500-core.md
"The texture unit", docs/r500-rtl.md).

A request is one lane's TEX instruction: the coordinates s, t, r, q as stored, the opcode, the
UNSCALED bit, the sampler's fields and a tag. LD, LODBIAS, LOD and DXDY sample at (s, t), PROJ
at (s RCP(q), t RCP(q)); TEXKILL answers only its kill bit (the sign bit of any of s, t, r, q).
Answers come out in request order, with the tag.

Three parts:

* the **front** takes one lane at a time through a fixed schedule of binary32 operations
  (the steps below): PROJ's RCP and products, the scaling (by a power of two: an exponent add,
  with the model's inf/NaN -> 0), and for BILINEAR x - 0.5, its floor, a = x' - floor(x'), 1 - a,
  likewise for y, and the four weights. It starts the texel addresses (``TexelAddresses``) and
  hands the lane to the back through a queue;
* the **fetch** (``TexelFetch``) requests the texels' words back to back and buffers the
  answers, converted from Q14.17;
* the **back** takes the lanes and their words in order: NEAREST's three words are the answer;
  BILINEAR's twelve are multiplied by their texel's weight and summed per channel in the model's
  order, ((T00 w00 + T10 w10) + T01 w01) + T11 w11.

One ``FpAdd``, one ``FpMul`` (and an RCP-only ``SpecialFunctionUnit`` for the front) serve both
ends, taking turns by cycle: the front issues products on even cycles and sums on odd ones,
the back the other way round (its words are multiplied on odd cycles, which puts their sums
MUL cycles later on even ones). So the front of one lane runs while the back filters the
previous one, with no arbitration: each end keeps to its own cycles. The back's products of a
texel follow each other every other cycle, so the sum of a channel is out of the adder before
the next texel's sum of that channel is issued. Each unit's operands pass through an issue
register (a multiplexer of several sources before the unit's first stage would lengthen it),
so an operation issued at step k has its result on the unit's output at step k + ADD (k + MUL).

A BILINEAR lane keeps its weights in the back's own registers, loaded at the hand-over (the
front then computes the next lane's); the running sums of texels 0-2 are apart from the answer
register, so the next lane's first products do not wait for the last sums of the previous one.
"""

import functools
import operator

from amaranth import Cat, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.fifo import SyncFIFO
from amaranth.lib.wiring import In, Out

from hdl.isa import TexOp
from hdl.lib.pipeline import delay, register_stage
from hdl.lib.select import one_hot_select
from hdl.r500.fp32 import HALF, ONE, SIGN, fields
from hdl.r500.fp_add import FpAdd
from hdl.r500.fp_frc import fp_floor
from hdl.r500.fp_mul import FpMul
from hdl.r500.sfu import SfuOp, SpecialFunctionUnit
from hdl.r500.texel_address import (CHANNELS, TEXELS, SamplerLayout, TexelAddresses,
                                    TexelJobLayout)
from hdl.r500.texel_fetch import TexelFetch, count_words

__all__ = ["SamplerLayout", "TextureRequestLayout", "TextureResponseLayout", "TextureUnit",
           "scaled_coordinate"]

#: s, t, r, q; a texel's r, g, b, a
COMPONENTS = 4

# --- the shared units' turns and the front's schedule ----------------------------------------

#: from an operation's issue to its result on the unit's output (the issue register, then the
#: unit); the SFU, the front's alone, reads the request register directly
ADD = 1 + FpAdd.LATENCY
MUL = 1 + FpMul.LATENCY
RCP = SpecialFunctionUnit.LATENCY

#: the cycles' phase (a bit toggling every cycle) on which the front issues products and sums;
#: the back multiplies on the other phase, and its sums, MUL cycles later, fall on the phase the
#: front does not add on
FRONT_MUL_PHASE = 0
FRONT_ADD_PHASE = 1
BACK_MUL_PHASE = 1 - FRONT_MUL_PHASE
assert (BACK_MUL_PHASE + MUL) % 2 != FRONT_ADD_PHASE
#: the back's products every other cycle: a channel's sum is back in its register (ADD cycles,
#: plus the write) before the next texel's sum of that channel reads it
assert 2 * CHANNELS > ADD


def first_on(phase, step):
    """The first step from ``step`` on that falls on ``phase`` (a lane's step k runs on phase
    k mod 2)."""
    return step + (step + phase) % 2


#: The front's steps, counted from the request's acceptance. PROJ computes RCP(q) twice (so
#: both products read it from the SFU's output), then s RCP(q) and t RCP(q); x and y are in
#: registers at COORDS_READY. Other lanes start at HALF_X (or a step earlier, to keep the
#: phase).
RCP_S = first_on((FRONT_MUL_PHASE - RCP) % 2, 1)
RCP_T = RCP_S + 2
PROJ_S, PROJ_T = RCP_S + RCP, RCP_T + RCP
COORDS_READY = PROJ_T + MUL + 1
#: BILINEAR: x' = x - 0.5 and y' (each then registered, with its floor); a = x' - floor(x'), b
#: likewise (each registered); 1 - a, 1 - b; the weights as soon as their factors are out (a
#: factor that leaves the adder on a product step is read there): w11 = a b, w01 = (1-a) b,
#: w00 = (1-a)(1-b), w10 = a (1-b)
HALF_X = first_on(FRONT_ADD_PHASE, COORDS_READY)
HALF_Y = HALF_X + 2
FRAC_X = first_on(FRONT_ADD_PHASE, HALF_X + ADD + 1)
FRAC_Y = FRAC_X + 2
ONE_MINUS_A = first_on(FRONT_ADD_PHASE, FRAC_X + ADD + 1)
ONE_MINUS_B = ONE_MINUS_A + 2
W11 = FRAC_Y + ADD                    # b on the adder's output
W01 = ONE_MINUS_A + ADD               # 1 - a on the adder's output
W00 = ONE_MINUS_B + ADD               # 1 - b on the adder's output
W10 = W00 + 2
assert all(step % 2 == FRONT_MUL_PHASE for step in (PROJ_S, PROJ_T, W11, W01, W00, W10))
#: every weight in its register: the lane goes to the back
FILTER = W10 + MUL + 1
#: x' and y' in registers: the texel addresses can start
BILINEAR_ADDRESS = HALF_Y + ADD + 1

#: the weights' steps in texel order (i,j) w00, (i+1,j) w10, (i,j+1) w01, (i+1,j+1) w11
WEIGHT_STEPS = (W00, W10, W01, W11)
#: texel jobs started and not yet taken by the fetch; lanes handed to the back and not done:
#: room for NEAREST lanes to follow each other at the memory's pace (three words a lane) while
#: others are in the address pipeline, the memory and the buffer (about 10 cycles of latency)
JOB_QUEUE = 4
LANE_QUEUE = 8

NEG_HALF = HALF | SIGN


class TextureRequestLayout(data.StructLayout):
    """One lane's TEX request: the coordinates s, t, r, q as stored (unflushed), ``op``
    (``hdl.isa.TexOp``, never NOP), UNSCALED, the sampler, an opaque tag."""

    def __init__(self, addr_bits, tag_bits):
        super().__init__({
            "coords": data.ArrayLayout(32, COMPONENTS),
            "op": 3,
            "unscaled": 1,
            "sampler": SamplerLayout(addr_bits),
            "tag": tag_bits,
        })


class TextureResponseLayout(data.StructLayout):
    """One lane's answer: the texel r, g, b, a (a = 1.0; meaningless for TEXKILL), TEXKILL's
    kill bit (0 for the other ops), the request's tag."""

    def __init__(self, tag_bits):
        super().__init__({
            "texel": data.ArrayLayout(32, COMPONENTS),
            "kill": 1,
            "tag": tag_bits,
        })


class LaneLayout(data.StructLayout):
    """A lane as the back sees it: its filter, whether it is TEXKILL and its kill bit, its
    tag."""

    def __init__(self, tag_bits):
        super().__init__({"bilinear": 1, "kill_op": 1, "kill": 1, "tag": tag_bits})


def scaled_coordinate(m, v, log2_size, unscaled):
    """The model's ``_coordinate``: v flushed, an infinity or NaN read as +0, then (unless
    ``unscaled``) v 2^log2_size, which is exact (an exponent add: binary32 multiplication by a
    power of two) unless it overflows to infinity, read as +0 again. (Masks rather than
    multiplexers of whole words: a zero result clears every field, a zero input its fraction,
    and only the exponent field has two sources.)"""
    sign, exp, fraction = fields(v)
    zero, scale, cleared = Signal(), Signal(), Signal()
    scaled_exp = exp + log2_size
    m.d.comb += [
        zero.eq(exp == 0),                            # a zero or subnormal: flushed
        scale.eq(~unscaled & ~zero),
        cleared.eq((exp == 0xFF) | (scale & (scaled_exp >= 0xFF))),
    ]
    return Cat(fraction & (~zero & ~cleared).replicate(len(fraction)),
               Mux(scale, scaled_exp[:8], exp) & (~cleared).replicate(8),
               sign & ~cleared)


def issue(m, name, unit, operations):
    """Drive ``unit`` (``i_valid``, ``i_a``, ``i_b``) through an issue register from
    ``operations``, a list of (when, a, b); the schedule makes at most one ``when`` true in a
    cycle."""
    latched = register_stage(m, name, {
        "valid": functools.reduce(operator.or_, (when for when, _, _ in operations)),
        "a": one_hot_select(m, [(when, a) for when, a, _ in operations], 32),
        "b": one_hot_select(m, [(when, b) for when, _, b in operations], 32),
    })
    m.d.comb += [unit.i_valid.eq(latched["valid"]), unit.i_a.eq(latched["a"]),
                 unit.i_b.eq(latched["b"])]


def write(m, index, registers, value):
    """``registers[index] <= value``."""
    with m.Switch(index):
        for k, register in enumerate(registers):
            with m.Case(k):
                m.d.sync += register.eq(value)


class TextureUnit(wiring.Component):
    """Parameters: ``addr_bits`` (the texture memory's word address), ``tag_bits``,
    ``buffer_depth`` (texel words the fetch can hold; BILINEAR reads 12). Ports: ``i`` (In
    stream of ``TextureRequestLayout``), ``o`` (Out stream of ``TextureResponseLayout``),
    ``mem_req`` (Out stream of word addresses), ``mem_resp`` (In stream of 32-bit words,
    always ready, in request order)."""

    def __init__(self, addr_bits=24, tag_bits=8, buffer_depth=16):
        self.addr_bits = addr_bits
        self.tag_bits = tag_bits
        self.buffer_depth = buffer_depth
        super().__init__({
            "i": In(stream.Signature(TextureRequestLayout(addr_bits, tag_bits))),
            "o": Out(stream.Signature(TextureResponseLayout(tag_bits))),
            "mem_req": Out(stream.Signature(addr_bits)),
            "mem_resp": In(stream.Signature(32, always_ready=True)),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.add = add = FpAdd()
        m.submodules.mul = mul = FpMul()
        m.submodules.fetch = fetch = TexelFetch(self.addr_bits, self.buffer_depth)
        wiring.connect(m, fetch.mem_req, wiring.flipped(self.mem_req))
        wiring.connect(m, wiring.flipped(self.mem_resp), fetch.mem_resp)
        lane_layout = LaneLayout(self.tag_bits)
        m.submodules.lanes = lanes = SyncFIFO(width=lane_layout.size, depth=LANE_QUEUE)

        phase = Signal()
        m.d.sync += phase.eq(~phase)
        # the back's weights, loaded at a BILINEAR lane's hand-over, in use until its last word
        back_weights = [Signal(32, name=f"back_w{k}", reset_less=True) for k in range(TEXELS)]
        weights_in_use = Signal()

        front_add, front_mul, front_weights, hand_over = self.front(m, add, mul, fetch, lanes,
                                                                    phase, weights_in_use)
        with m.If(hand_over & lane_layout(lanes.w_data).bilinear):
            m.d.sync += [weights_in_use.eq(1),
                         *(mine.eq(given) for mine, given in zip(back_weights, front_weights))]
        back_add, back_mul, weights_done = self.back(m, add, mul, fetch, lanes, phase,
                                                     back_weights)
        with m.If(weights_done):
            m.d.sync += weights_in_use.eq(0)

        issue(m, "add_issue", add, front_add + back_add)
        issue(m, "mul_issue", mul, front_mul + back_mul)
        return m

    def front(self, m, add, mul, fetch, lanes, phase, weights_in_use):
        """The front: returns its (when, a, b) operations for the adder and the multiplier, the
        weight registers, and ``hand_over`` (the lane goes into ``lanes`` this cycle)."""
        m.submodules.rcp = rcp = SpecialFunctionUnit(ops=(SfuOp.RCP,))
        m.submodules.addresses = addresses = TexelAddresses(self.addr_bits)
        job_layout = TexelJobLayout(self.addr_bits)
        m.submodules.jobs = jobs = SyncFIFO(width=job_layout.size, depth=JOB_QUEUE)

        request = Signal(TextureRequestLayout(self.addr_bits, self.tag_bits), reset_less=True)
        busy = Signal()
        step = Signal(range(FILTER + 1))
        sampler = request.sampler
        # the lane's kind, decoded as it is accepted: flags from flip-flops (decoded from the
        # request register, they were the texel addresses' slowest path: op -> BILINEAR ->
        # the x/y choice -> the floor's shift distance)
        is_proj, is_kill, bilinear = (Signal(name=name, reset_less=True)
                                      for name in ("is_proj", "is_kill", "bilinear"))
        s, t, q = request.coords[0], request.coords[1], request.coords[3]

        def at(k, mode=1):
            return busy & (step == k) & mode

        x, y, x_half, y_half, x_floor, y_floor, a, b, one_a, one_b = (
            Signal(32, name=name, reset_less=True)
            for name in ("x", "y", "x_half", "y_half", "x_floor", "y_floor", "a", "b", "one_a",
                         "one_b"))
        weights = [Signal(32, name=f"w{k}", reset_less=True) for k in range(TEXELS)]

        accept = self.i.valid & self.i.ready
        given = self.i.payload
        m.d.comb += self.i.ready.eq(~busy)
        end = Mux(bilinear, FILTER, COORDS_READY)
        with m.If(accept):
            # the first step, or the one before it to keep the phase: step k on phase k mod 2
            start = Mux(given.op == TexOp.PROJ, RCP_S, HALF_X)
            m.d.sync += [request.eq(given), busy.eq(1), step.eq(start - (start[0] ^ ~phase)),
                         is_proj.eq(given.op == TexOp.PROJ),
                         is_kill.eq(given.op == TexOp.TEXKILL),
                         bilinear.eq(given.sampler.bilinear & (given.op != TexOp.TEXKILL))]
        with m.Elif(busy & (step < end)):
            m.d.sync += step.eq(step + 1)

        # PROJ: RCP(q) twice, s RCP(q), t RCP(q)
        m.d.comb += [rcp.i_valid.eq(at(RCP_S, is_proj) | at(RCP_T, is_proj)),
                     rcp.i_op.eq(SfuOp.RCP), rcp.i_a.eq(q)]
        mul_ops = [(at(PROJ_S, is_proj), s, rcp.o_result),
                   (at(PROJ_T, is_proj), t, rcp.o_result)]
        # x and y scaled from the request as it is accepted, or from PROJ's products
        for register, index, log2_size, product_out in [
                (x, 0, "log2_width", PROJ_S + MUL), (y, 1, "log2_height", PROJ_T + MUL)]:
            scaled = scaled_coordinate(
                m, Mux(busy, mul.o_result, given.coords[index]),
                Mux(busy, sampler[log2_size], given.sampler[log2_size]),
                Mux(busy, request.unscaled, given.unscaled))
            with m.If(accept | at(product_out, is_proj)):
                m.d.sync += register.eq(scaled)

        # BILINEAR: the fractions and the weights
        added = add.o_result
        add_ops = [
            (at(HALF_X, bilinear), x, NEG_HALF),
            (at(HALF_Y, bilinear), y, NEG_HALF),
            (at(FRAC_X, bilinear), x_half, x_floor),
            (at(FRAC_Y, bilinear), y_half, y_floor),
            (at(ONE_MINUS_A, bilinear), ONE, a ^ SIGN),
            (at(ONE_MINUS_B, bilinear), ONE, b ^ SIGN),
        ]
        mul_ops += [
            (at(W11, bilinear), a, added),
            (at(W01, bilinear), added, b),
            (at(W00, bilinear), one_a, added),
            (at(W10, bilinear), a, one_b),
        ]
        for register, issued in [(x_half, HALF_X), (y_half, HALF_Y), (a, FRAC_X), (b, FRAC_Y),
                                 (one_a, ONE_MINUS_A), (one_b, ONE_MINUS_B)]:
            with m.If(at(issued + ADD)):
                m.d.sync += register.eq(added)
        # -floor(x') and -floor(y'), taken as x' and y' come out of the adder
        negated_floor = fp_floor(m, added) ^ SIGN
        for register, issued in [(x_floor, HALF_X), (y_floor, HALF_Y)]:
            with m.If(at(issued + ADD)):
                m.d.sync += register.eq(negated_floor)
        for weight, issued in zip(weights, WEIGHT_STEPS):
            with m.If(at(issued + MUL)):
                m.d.sync += weight.eq(mul.o_result)

        # the texel addresses, once the coordinates whose floors they need are in registers
        address_started = Signal()
        jobs_pending = Signal(range(JOB_QUEUE + 1))
        start_address = (busy & ~is_kill & ~address_started
                         & (step >= Mux(bilinear, BILINEAR_ADDRESS, COORDS_READY))
                         & (jobs_pending < JOB_QUEUE))
        m.d.comb += [
            addresses.i_valid.eq(start_address), addresses.i_sampler.eq(sampler),
            addresses.i_x.eq(Mux(bilinear, x_half, x)),
            addresses.i_y.eq(Mux(bilinear, y_half, y)),
            jobs.w_en.eq(addresses.o_valid), jobs.w_data.eq(addresses.o_job),
            fetch.job.valid.eq(jobs.r_rdy), fetch.job.payload.eq(jobs.r_data),
            jobs.r_en.eq(fetch.job.ready),
        ]
        job_taken = fetch.job.valid & fetch.job.ready
        m.d.sync += jobs_pending.eq(jobs_pending + start_address - job_taken)
        with m.If(accept):
            m.d.sync += address_started.eq(0)
        with m.Elif(start_address):
            m.d.sync += address_started.eq(1)

        # the hand-over: a BILINEAR lane's weights go to the back's registers, once free
        hand_over = busy & lanes.w_rdy & (is_kill | (
            (step >= end) & (address_started | start_address) & ~(bilinear & weights_in_use)))
        handed = Signal(LaneLayout(self.tag_bits))
        m.d.comb += [
            handed.bilinear.eq(bilinear), handed.kill_op.eq(is_kill), handed.tag.eq(request.tag),
            handed.kill.eq(Cat(request.coords[k][31] for k in range(COMPONENTS)).any()),
            lanes.w_en.eq(hand_over), lanes.w_data.eq(handed),
        ]
        with m.If(hand_over):
            m.d.sync += busy.eq(0)
        return add_ops, mul_ops, weights, hand_over

    def back(self, m, add, mul, fetch, lanes, phase, weights):
        """The back: returns its (when, a, b) operations for the adder and the multiplier, and
        ``weights_done`` (a BILINEAR lane has taken its last word)."""
        lane = LaneLayout(self.tag_bits)(lanes.r_data)
        lane_valid = lanes.r_rdy
        lane_done = Signal()
        m.d.comb += lanes.r_en.eq(lane_done)

        out_valid, out_kill = Signal(), Signal(reset_less=True)
        out_tag = Signal(self.tag_bits, reset_less=True)
        answer = [Signal(32, name=f"answer{k}", reset_less=True) for k in range(CHANNELS)]
        m.d.comb += [
            self.o.valid.eq(out_valid), self.o.payload.kill.eq(out_kill),
            self.o.payload.tag.eq(out_tag), self.o.payload.texel[CHANNELS].eq(ONE),
            *(self.o.payload.texel[k].eq(answer[k]) for k in range(CHANNELS)),
        ]
        out_free = ~out_valid | self.o.ready
        with m.If(self.o.ready):
            m.d.sync += out_valid.eq(0)
        # a BILINEAR lane's last texel is under way: its sums will be the answer
        claimed = Signal()
        may_answer = out_free & ~claimed

        def answer_with(kill):
            m.d.sync += [out_kill.eq(kill), out_tag.eq(lane.tag)]

        # TEXKILL: the answer, in order
        with m.If(lane_valid & lane.kill_op & may_answer):
            answer_with(lane.kill)
            m.d.sync += out_valid.eq(1)
            m.d.comb += lane_done.eq(1)

        # the words: NEAREST's any time the answer is free; BILINEAR's on the back's product
        # phase, the last texel's first once the answer is free (it claims the answer)
        words = fetch.words
        texel, channel, last_word = count_words(m, words.valid & words.ready, lane.bilinear)
        claim = lane.bilinear & (texel == TEXELS - 1) & (channel == 0)
        m.d.comb += words.ready.eq(lane_valid & ~lane.kill_op & Mux(
            lane.bilinear, (phase == BACK_MUL_PHASE) & (~claim | may_answer), may_answer))
        popped = words.valid & words.ready

        with m.If(popped & ~lane.bilinear):            # NEAREST: the words are the answer
            write(m, channel, answer, words.payload)
            with m.If(last_word):
                answer_with(0)
                m.d.sync += out_valid.eq(1)
                m.d.comb += lane_done.eq(1)
        with m.If(popped & claim):
            answer_with(0)
            m.d.sync += claimed.eq(1)
        weights_done = popped & lane.bilinear & last_word
        with m.If(weights_done):
            m.d.comb += lane_done.eq(1)

        # BILINEAR: word x weight; texel 0's products start the running sums, texel 3's sums
        # are the answer
        sums = [Signal(32, name=f"sum{k}", reset_less=True) for k in range(CHANNELS)]
        multiplying = popped & lane.bilinear
        mul_ops = [(multiplying & (texel == k), words.payload, weight)
                   for k, weight in enumerate(weights)]
        product = delay(m, "product", {
            "valid": multiplying, "channel": channel, "first": texel == 0,
            "final": texel == TEXELS - 1, "last": last_word}, MUL)
        summing = product["valid"] & ~product["first"]
        add_ops = [(summing & (product["channel"] == k), running, mul.o_result)
                   for k, running in enumerate(sums)]
        with m.If(product["valid"] & product["first"]):
            write(m, product["channel"], sums, mul.o_result)
        total = delay(m, "total", {"valid": summing, "channel": product["channel"],
                                   "final": product["final"], "last": product["last"]}, ADD)
        with m.If(total["valid"]):
            with m.If(total["final"]):
                write(m, total["channel"], answer, add.o_result)
            with m.Else():
                write(m, total["channel"], sums, add.o_result)
            with m.If(total["last"]):
                m.d.sync += [out_valid.eq(1), claimed.eq(0)]
        return add_ops, mul_ops, weights_done
