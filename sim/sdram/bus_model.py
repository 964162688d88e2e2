"""A stand-in for the SDRAM behind one request port (hdl/mem/sdram_bus.py), for testing the
port's users in Amaranth's simulator: the memory is a numpy array of words, requests are served
in order after a random wait, read words come back with random gaps, write words are taken as
they are offered (masked by their byte enables), all as the real arbiter and controller may.

    memory = np.zeros(1 << 16, dtype=np.uint16)
    sim.add_process(serve_bus(dut.sdram, memory, random.Random(1)))

``requests`` (if given) collects every request taken: (address, write, words).
"""

__all__ = ["serve_bus"]


def serve_bus(bus, memory, rng, *, wait=(0, 12), gap=0.3, requests=None):
    """An async process serving ``bus`` (a requester's ``SdramBus`` port) from ``memory``:
    each request waits ``wait`` (a range of cycles) before its first word; a read word is
    withheld a cycle with probability ``gap``."""
    width = bus.rdata.payload.shape().width
    mask = (1 << width) - 1

    async def process(ctx):
        ctx.set(bus.cmd.ready, 1)
        while True:
            _, _, valid, request = await ctx.tick().sample(bus.cmd.valid, bus.cmd.payload)
            if not valid:
                continue
            addr, write = int(request.addr), bool(request.write)
            words = int(request.words_minus_one) + 1
            if requests is not None:
                requests.append((addr, write, words))
            ctx.set(bus.cmd.ready, 0)
            for _ in range(rng.randint(*wait)):
                await ctx.tick()
            if write:
                ctx.set(bus.wdata.ready, 1)
                for k in range(words):
                    while True:
                        _, _, word_valid, word = await ctx.tick().sample(bus.wdata.valid,
                                                                         bus.wdata.payload)
                        if word_valid:
                            break
                    keep = 0
                    for byte in range(width // 8):
                        if not int(word.byte_enable) >> byte & 1:
                            keep |= 0xFF << 8 * byte
                    at = (addr + k) % len(memory)
                    memory[at] = (int(memory[at]) & keep) | (int(word.data) & ~keep & mask)
                ctx.set(bus.wdata.ready, 0)
            else:
                k = 0
                while k < words:
                    if rng.random() < gap:
                        ctx.set(bus.rdata.valid, 0)
                    else:
                        ctx.set(bus.rdata.payload, int(memory[(addr + k) % len(memory)]))
                        ctx.set(bus.rdata.valid, 1)
                    _, _, ready, valid = await ctx.tick().sample(bus.rdata.ready,
                                                                 bus.rdata.valid)
                    if ready and valid:
                        k += 1
                ctx.set(bus.rdata.valid, 0)
            ctx.set(bus.cmd.ready, 1)

    return process
