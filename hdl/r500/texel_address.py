"""Where a texture lookup's texels are (r500-us.md §3.5): ``sim.r500.tex``'s floor, wrap and
address steps.

From two binary32 coordinates (x and y for NEAREST, x - 0.5 and y - 0.5 for BILINEAR: finite and
flushed) the texel indices i = floor(x), j = floor(y) and their neighbours i + 1, j + 1, each
wrapped (REPEAT: mod W, also for huge and negative integers) or clamped to 0 … W-1, and the
word addresses base + 3 (i + j W) of texels (i, j), (i+1, j), (i, j+1), (i+1, j+1). W and H are
powers of two, so i + j W is ``i | j << log2 W`` and mod W is a mask.

``TexelAddresses`` is a pipeline, LATENCY = 4 cycles, one lookup per cycle, never stalls:

1. floor(x) and floor(y) as integers: the signed significand shifted arithmetically (a right
   shift rounds towards minus infinity: a floor), kept modulo 2^(addr_bits - 2) with flags for
   "negative" and "at least 2^(addr_bits - 2)";
2. wrap or clamp i, i + 1, j, j + 1;
3. the rows j << log2 W, (j + 1) << log2 W;
4. the four addresses base + 3 (i | row).

A valid sampler (W H 3 words inside the address space) has W <= 2^(addr_bits - 2): indices
have addr_bits - 2 bits. ``o_valid`` is ``i_valid`` delayed; datapath registers have no reset.
"""

from amaranth import Cat, Const, Module, Mux, Signal, signed
from amaranth.lib import data
from amaranth.lib.wiring import In, Out

from hdl.lib.pipeline import register_stage
from hdl.r500.fp32 import BIAS, FRACTION_BITS, PipelinedUnit, fields

__all__ = ["SamplerLayout", "TexelJobLayout", "TexelAddresses", "floor_index", "wrap_index"]

#: words (R, G, B) per texel
CHANNELS = 3
#: texels a BILINEAR lookup reads: (i, j), (i+1, j), (i, j+1), (i+1, j+1)
TEXELS = 4
#: the bits of a log2 size
LOG2_BITS = 5


class SamplerLayout(data.StructLayout):
    """A sampler as the host writes it: the texture's first word, log2 of its width and height,
    the filter (1: BILINEAR, 0: NEAREST) and the wrap (1: CLAMP, 0: REPEAT)."""

    def __init__(self, addr_bits):
        super().__init__({
            "base": addr_bits,
            "log2_width": LOG2_BITS,
            "log2_height": LOG2_BITS,
            "bilinear": 1,
            "clamp": 1,
        })


class TexelJobLayout(data.StructLayout):
    """The word addresses of the texels a lookup reads: ``addresses[0]`` only (3 words) for
    NEAREST, all four (12 words) for BILINEAR."""

    def __init__(self, addr_bits):
        super().__init__({
            "addresses": data.ArrayLayout(addr_bits, TEXELS),
            "bilinear": 1,
        })


def index_bits(addr_bits):
    """The bits of a texel index: a valid sampler has 3 W H <= 2^addr_bits words, so
    W <= 2^(addr_bits - 2)."""
    return addr_bits - 2


def floor_index(m, x, bits):
    """floor(x) of a finite, flushed binary32 ``x`` as an integer: (negative, beyond, low) with
    negative = floor(x) < 0, beyond = floor(x) >= 2^bits, low = floor(x) mod 2^bits."""
    sign, exp, frac = fields(x)
    significand = Cat(frac, exp != 0)                 # zero for a zero
    placed = Signal(signed(FRACTION_BITS + 2 + bits))
    m.d.comb += placed.eq(Mux(sign, -significand, significand) << bits)
    # x = significand 2^(exp - 150), so floor(x) 2^bits = placed >> (150 + bits - exp); a
    # negative shift only moves zeros into the low bits (clamped to 0), and from the width on
    # the shift leaves the sign alone (clamped there)
    distance = Signal(signed(10))
    m.d.comb += distance.eq(BIAS + FRACTION_BITS + bits - exp)
    shift = Signal(range(len(placed)))
    m.d.comb += shift.eq(Mux(distance < 0, 0,
                             Mux(distance >= len(placed), len(placed) - 1, distance)))
    low = (placed >> shift)[:bits]
    return sign & (exp != 0), ~sign & (exp >= BIAS + bits), low


def wrap_index(m, low, negative, beyond, log2_size, clamp):
    """(i, next): the index of the integer (``low``: it modulo 2^bits, ``negative``, ``beyond``
    = at least 2^bits) in 0 … size-1, REPEAT keeping it mod size and CLAMP saturating it, and
    the index of the integer + 1 likewise. ``next`` follows from ``i``: REPEAT (i + 1) mod size;
    CLAMP i + 1, or i itself at either end (a negative integer + 1 is at most 0)."""
    bits = len(low)
    last = Signal(bits)                               # size - 1, a mask
    m.d.comb += last.eq(~(Const((1 << bits) - 1, bits) << log2_size))
    to_last, to_zero = Signal(), Signal()
    m.d.comb += [to_last.eq(clamp & (beyond | ((low & ~last) != 0))),
                 to_zero.eq(clamp & negative)]
    # REPEAT: low mod size; CLAMP: low itself when inside, 0 or size - 1 outside
    index = Signal(bits)
    m.d.comb += index.eq((low | to_last.replicate(bits)) & last & ~to_zero.replicate(bits))
    stay = clamp & (negative | (index == last))
    return index, ((index + ~stay) & last)[:bits]


class TexelAddresses(PipelinedUnit):
    """``o_job``: the texel addresses of the lookup at (``i_x``, ``i_y``) through
    ``i_sampler``, LATENCY cycles after ``i_valid``."""

    LATENCY = 4

    def __init__(self, addr_bits):
        self.addr_bits = addr_bits
        self.index_bits = index_bits(addr_bits)
        super().__init__({
            "i_valid": In(1),
            "i_x": In(32),
            "i_y": In(32),
            "i_sampler": In(SamplerLayout(addr_bits)),
            "o_valid": Out(1),
            "o_job": Out(TexelJobLayout(addr_bits)),
        })

    def elaborate(self, platform):
        m = Module()
        bits = self.index_bits

        # stage 1: the integer floors
        x_negative, x_beyond, x_low = floor_index(m, self.i_x, bits)
        y_negative, y_beyond, y_low = floor_index(m, self.i_y, bits)
        s1 = register_stage(m, 1, {
            "valid": self.i_valid, "sampler": self.i_sampler.as_value(),
            "x_negative": x_negative, "x_beyond": x_beyond, "x_low": x_low,
            "y_negative": y_negative, "y_beyond": y_beyond, "y_low": y_low,
        })

        # stage 2: wrap or clamp each index and its neighbour
        sampler1 = SamplerLayout(self.addr_bits)(s1["sampler"])
        i0, i1 = wrap_index(m, s1["x_low"], s1["x_negative"], s1["x_beyond"],
                            sampler1.log2_width, sampler1.clamp)
        j0, j1 = wrap_index(m, s1["y_low"], s1["y_negative"], s1["y_beyond"],
                            sampler1.log2_height, sampler1.clamp)
        s2 = register_stage(m, 2, {"valid": s1["valid"], "sampler": s1["sampler"],
                                   "i0": i0, "i1": i1, "j0": j0, "j1": j1})

        # stage 3: the rows
        sampler2 = SamplerLayout(self.addr_bits)(s2["sampler"])
        s3 = register_stage(m, 3, {
            "valid": s2["valid"], "sampler": s2["sampler"], "i0": s2["i0"], "i1": s2["i1"],
            "row0": (s2["j0"] << sampler2.log2_width)[:self.addr_bits],
            "row1": (s2["j1"] << sampler2.log2_width)[:self.addr_bits],
        })

        # stage 4: the addresses, texel order (i, j), (i+1, j), (i, j+1), (i+1, j+1)
        sampler3 = SamplerLayout(self.addr_bits)(s3["sampler"])
        job = Signal(TexelJobLayout(self.addr_bits))
        for texel, (row, column) in enumerate([(r, c) for r in ("row0", "row1")
                                               for c in ("i0", "i1")]):
            index = s3[column] | s3[row]
            m.d.comb += job.addresses[texel].eq(sampler3.base + index + (index << 1))
        m.d.comb += job.bilinear.eq(sampler3.bilinear)
        s4 = register_stage(m, 4, {"valid": s3["valid"], "job": job.as_value()})
        m.d.comb += [self.o_valid.eq(s4["valid"]), self.o_job.eq(s4["job"])]
        return m
