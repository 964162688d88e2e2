"""Where a texture lookup's texels are (r500-us.md §3.5): ``sim.r500.tex``'s floor, wrap and
address steps.

From two binary32 coordinates (x and y for NEAREST, x - 0.5 and y - 0.5 for BILINEAR: finite and
flushed) the texel indices i = floor(x), j = floor(y) and their neighbours i + 1, j + 1, each
wrapped (REPEAT: mod W, also for huge and negative integers) or clamped to 0 … W-1, and the
word addresses base + 3 (i + j W) of texels (i, j), (i+1, j), (i, j+1), (i+1, j+1). W and H are
powers of two, so i + j W is ``i | j << log2 W`` and mod W is a mask.

``TexelAddresses`` is a pipeline, LATENCY = 5 cycles, one lookup per cycle, never stalls:

1. floor(x) and floor(y) as integers, set up as shifts: the signed significand and the shift
   amount (from the exponent, clamped), with flags for "negative" and "at least 2^bits";
2. the arithmetic right shifts (rounding towards minus infinity: floors), kept modulo 2^bits;
3. wrap or clamp i and j (W - 1 and H - 1 made a stage before), and their neighbours i + 1,
   j + 1;
4. the rows j << log2 W, (j + 1) << log2 W;
5. the four addresses base + 3 (i | row).

A valid sampler (W H 3 words inside the address space) has W <= 2^(addr_bits - 2): indices
have addr_bits - 2 bits. ``o_valid`` is ``i_valid`` delayed; datapath registers have no reset.
"""

from amaranth import Cat, Const, Module, Mux, Signal, signed
from amaranth.lib import data
from amaranth.lib.wiring import In, Out

from hdl.lib.pipeline import register_stage
from hdl.r500.fp32 import BIAS, FRACTION_BITS, PipelinedUnit, fields

__all__ = ["SamplerLayout", "TexelJobLayout", "TexelAddresses", "floor_shift", "size_mask",
           "wrap_index"]

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


def floor_shift(m, x, bits):
    """floor(x) of a finite, flushed binary32 ``x`` as an integer, set up as a shift: (negative,
    beyond, placed, shift) with negative = floor(x) < 0, beyond = floor(x) >= 2^bits and
    floor(x) mod 2^bits the low ``bits`` of the arithmetic shift ``placed >> shift`` (a right
    shift of a two's complement number rounds towards minus infinity: a floor)."""
    sign, exp, frac = fields(x)
    significand = Cat(frac, exp != 0)                 # zero for a zero
    placed = Signal(signed(FRACTION_BITS + 2 + bits))
    m.d.comb += placed.eq(Mux(sign, -significand, significand) << bits)
    # x = significand 2^(exp - 150), so floor(x) 2^bits = placed >> (150 + bits - exp); a
    # negative shift only moves zeros into the low bits (clamped to 0), and from the width on
    # the shift leaves the sign alone (clamped there)
    # (the clamps compare the exponent with constants, beside the subtraction rather than
    # after it: a compare on the difference was a second carry chain in the cycle)
    top = BIAS + FRACTION_BITS + bits
    distance = Signal(range(top + 1))
    m.d.comb += distance.eq(top - exp)
    shift = Signal(range(len(placed)))
    m.d.comb += shift.eq(Mux(exp > top, 0,
                             Mux(exp <= top - len(placed), len(placed) - 1, distance)))
    return sign & (exp != 0), ~sign & (exp >= BIAS + bits), placed, shift


def size_mask(log2_size, bits):
    """size - 1 for a power-of-two size, as a ``bits``-bit mask."""
    return ~(Const((1 << bits) - 1, bits) << log2_size)[:bits]


def wrap_index(m, low, negative, beyond, last, clamp):
    """(i, next): the index of the integer (``low``: it modulo 2^bits, ``negative``, ``beyond``
    = at least 2^bits) in 0 … size-1 (``last`` = size - 1), REPEAT keeping it mod size and
    CLAMP saturating it, and the index of the integer + 1 likewise: REPEAT (low + 1) mod size;
    CLAMP low + 1 inside, else i itself (a negative integer + 1 is at most 0)."""
    bits = len(low)
    over, to_last, to_zero = Signal(), Signal(), Signal()
    m.d.comb += [over.eq(beyond | ((low & ~last) != 0)),             # at least size
                 to_last.eq(clamp & over), to_zero.eq(clamp & negative)]
    # REPEAT: low mod size; CLAMP: low itself when inside, 0 or size - 1 outside
    index = Signal(bits)
    m.d.comb += index.eq((low | to_last.replicate(bits)) & last & ~to_zero.replicate(bits))
    stay = clamp & (negative | over | (low == last))
    return index, Mux(stay, index, (low + 1) & last)[:bits]


class TexelAddresses(PipelinedUnit):
    """``o_job``: the texel addresses of the lookup at (``i_x``, ``i_y``) through
    ``i_sampler``, LATENCY cycles after ``i_valid``."""

    LATENCY = 5

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

        def sampler(stage):
            return SamplerLayout(self.addr_bits)(stage["sampler"])

        # stage 1: the integer floors as shifts
        stage = {"valid": self.i_valid, "sampler": self.i_sampler.as_value()}
        for axis, coordinate in (("x", self.i_x), ("y", self.i_y)):
            negative, beyond, placed, shift = floor_shift(m, coordinate, bits)
            stage.update({f"{axis}_negative": negative, f"{axis}_beyond": beyond,
                          f"{axis}_placed": placed, f"{axis}_shift": shift})
        s1 = register_stage(m, 1, stage)

        # stage 2: the shifts; W - 1 and H - 1
        s2 = register_stage(m, 2, {
            "valid": s1["valid"], "sampler": s1["sampler"],
            "x_last": size_mask(sampler(s1).log2_width, bits),
            "y_last": size_mask(sampler(s1).log2_height, bits),
            **{f"{axis}_{flag}": s1[f"{axis}_{flag}"] for axis in "xy"
               for flag in ("negative", "beyond")},
            **{f"{axis}_low": (s1[f"{axis}_placed"].as_signed() >> s1[f"{axis}_shift"])[:bits]
               for axis in "xy"},
        })

        # stage 3: wrap or clamp each index and its neighbour
        i0, i1, j0, j1 = (index for axis in "xy" for index in wrap_index(
            m, s2[f"{axis}_low"], s2[f"{axis}_negative"], s2[f"{axis}_beyond"],
            s2[f"{axis}_last"], sampler(s2).clamp))
        s3 = register_stage(m, 3, {"valid": s2["valid"], "sampler": s2["sampler"],
                                   "i0": i0, "i1": i1, "j0": j0, "j1": j1})

        # stage 4: the rows
        s4 = register_stage(m, 4, {
            "valid": s3["valid"], "sampler": s3["sampler"], "i0": s3["i0"], "i1": s3["i1"],
            "row0": (s3["j0"] << sampler(s3).log2_width)[:self.addr_bits],
            "row1": (s3["j1"] << sampler(s3).log2_width)[:self.addr_bits],
        })

        # stage 5: the addresses, texel order (i, j), (i+1, j), (i, j+1), (i+1, j+1)
        job = Signal(TexelJobLayout(self.addr_bits))
        for texel, (row, column) in enumerate([(r, c) for r in ("row0", "row1")
                                               for c in ("i0", "i1")]):
            index = s4[column] | s4[row]
            m.d.comb += job.addresses[texel].eq(sampler(s4).base + index + (index << 1))
        m.d.comb += job.bilinear.eq(sampler(s4).bilinear)
        s5 = register_stage(m, 5, {"valid": s4["valid"], "job": job.as_value()})
        m.d.comb += [self.o_valid.eq(s5["valid"]), self.o_job.eq(s5["job"])]
        return m
