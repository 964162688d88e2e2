"""Operands and a stream driver for the arithmetic units' tests (tests/hdl/alu/)."""

from amaranth.sim import Simulator

from hdl.isa import MASK32

TAG_WIDTH = 16
#: corner words of the multiplier (and every unit after it)
EDGES = [0, 1, 2, 0xFFFF_FFFF, 0x8000_0000, 0x7FFF_FFFF, 0x8000_0001, 0x0002_0000, 0xFFFE_0000,
         0x0001_FFFF, 0xFFFF_0000, 0x0000_FFFF, 0x0001_0000, 0x1234_5678, 0xFEDC_BA98]
#: ... and those of the divider
DIV_EDGES = EDGES + [3, 7, 0x0000_8000, 0x0000_4000, 0xFFFF_FFFD, 0x4000_0000, 0xC000_0000,
                     0x0000_0100, 0x7FFF_0000]


def random_word(rng):
    """Uniform words hit only huge magnitudes; mix in small and mid-sized ones, both signs."""
    bits = rng.choice([32, 32, 24, 18, 12, 4])
    value = rng.getrandbits(bits)
    return (-value) & 0xFFFF_FFFF if rng.random() < 0.5 else value


def pack(vector):
    """(x, y, z) as the 96-bit word of a vector port."""
    x, y, z = vector
    return (x << 64) | (y << 32) | z


def unpack(word):
    return ((word >> 64) & MASK32, (word >> 32) & MASK32, word & MASK32)


def stream(dut, operations, check_output):
    """Feed ``operations`` (tuples of input port values) one per cycle; hand every result to
    ``check_output(index, outputs)``; assert each comes out exactly ``dut.latency`` cycles after
    it went in, in order."""
    results = []

    async def testbench(ctx):
        total = len(operations)
        for cycle in range(total + dut.latency + 1):
            if cycle < total:
                ctx.set(dut.i_valid, 1)
                ctx.set(dut.i_tag, cycle % (1 << TAG_WIDTH))
                for port, value in operations[cycle]:
                    ctx.set(port, value)
            else:
                ctx.set(dut.i_valid, 0)
            await ctx.tick()
            if ctx.get(dut.o_valid):
                index = cycle + 1 - dut.latency
                assert ctx.get(dut.o_tag) == index % (1 << TAG_WIDTH), f"tag at cycle {cycle}"
                results.append(index)
                check_output(index, ctx)

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(testbench)
    sim.run()
    assert results == list(range(len(operations))), "every operation comes out once, in order"
