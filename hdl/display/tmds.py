"""The TMDS encoder of DVI 1.0 §3.2.3: 8 data bits or 2 control bits -> a 10-bit symbol.

Data (``active`` high, the data enable): the byte becomes a 9-bit transition-minimised word
``q_m`` (each bit the XOR, or the XNOR, of the one before and the next data bit; XNOR when the
byte has more than four ones, or exactly four and bit 0 clear; bit 8 says which: 1 for XOR),
then the running disparity ``cnt`` (ones minus zeros sent since the last blanking) decides
whether ``q_m[0:8]`` goes out inverted (bit 9 says so), so that the line stays DC balanced.
Blanking (``active`` low): one of four control symbols for C0, C1, and ``cnt`` returns to 0.
From ``cnt = 0`` the algorithm keeps ``cnt`` within -8 ... +8 (even values only).

Three register stages, so that each holds little logic at the pixel clock: (1) the byte's
population count, (2) ``q_m`` and its balance, (3) the disparity decision, ``cnt`` and the
symbol.
"""

from amaranth import Module, Signal, Mux, Cat, Array
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from hdl.lib.pipeline import register_stage

__all__ = ["TmdsInput", "TmdsEncoder", "CONTROL_SYMBOLS", "SYMBOL_BITS"]

SYMBOL_BITS = 10

#: the control symbols q_out[9:0] by C1C0 (DVI 1.0 §3.2.3): on channel 0 C0 is hsync and C1
#: vsync; channels 1 and 2 send C1C0 = 00
CONTROL_SYMBOLS = (0b1101010100, 0b0010101011, 0b0101010100, 0b1010101011)

#: what a channel's encoder takes each pixel clock; ``control`` is C1C0
TmdsInput = data.StructLayout({"data": 8, "control": 2, "active": 1})


def _popcount(m, bits):
    count = Signal(range(len(bits) + 1))
    m.d.comb += count.eq(sum(bits[i] for i in range(len(bits))))
    return count


class TmdsEncoder(wiring.Component):
    """``i`` each cycle, its symbol on ``o`` ``LATENCY`` cycles later."""

    LATENCY = 3

    def __init__(self):
        super().__init__({"i": In(TmdsInput), "o": Out(SYMBOL_BITS)})

    def elaborate(self, platform):
        m = Module()
        # (1) the byte and its ones
        s1 = register_stage(m, 1, {"i": self.i, "ones": _popcount(m, self.i.data)})
        d = s1["i"].data

        # (2) the transition-minimised word: XNOR when it makes fewer transitions
        use_xnor = (s1["ones"] > 4) | ((s1["ones"] == 4) & ~d[0])
        q_m = [d[0]]
        for k in range(1, 8):
            q_m.append(q_m[k - 1] ^ d[k] ^ use_xnor)
        word = Cat(*q_m)
        balance = Signal(range(-4, 5))          # half the ones-minus-zeros of q_m[0:8]
        m.d.comb += balance.eq(_popcount(m, word) - 4)
        s2 = register_stage(m, 2, {"control": s1["i"].control, "active": s1["i"].active,
                                   "word": word, "xor": ~use_xnor, "balance": balance})

        # (3) the running disparity and the symbol
        cnt = Signal(range(-16, 16))
        symbol = Signal(SYMBOL_BITS, init=CONTROL_SYMBOLS[0])
        word, xor, balance = s2["word"], s2["xor"], s2["balance"].as_signed()
        disparity = balance * 2                              # N1 - N0 of q_m[0:8]
        with m.If(~s2["active"]):
            m.d.sync += [symbol.eq(Array(CONTROL_SYMBOLS)[s2["control"]]), cnt.eq(0)]
        with m.Elif((cnt == 0) | (balance == 0)):
            m.d.sync += [symbol.eq(Cat(Mux(xor, word, ~word), xor, ~xor)),
                         cnt.eq(Mux(xor, cnt + disparity, cnt - disparity))]
        with m.Elif((~cnt[-1] & (balance > 0)) | (cnt[-1] & (balance < 0))):
            # the word leans the way the line already leans: send it inverted
            m.d.sync += [symbol.eq(Cat(~word, xor, 1)),
                         cnt.eq(cnt + Mux(xor, 2, 0) - disparity)]
        with m.Else():
            m.d.sync += [symbol.eq(Cat(word, xor, 0)),
                         cnt.eq(cnt - Mux(xor, 0, 2) + disparity)]
        m.d.comb += self.o.eq(symbol)
        return m
