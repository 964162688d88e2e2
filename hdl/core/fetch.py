"""Stages F and D of the core: the code memories, the fetch address and the start of routines.

F presents the code address to the firmware ROM (from address 0) and the user instruction RAM
(from 0x8000); in D the word arrives (from a block RAM late in the cycle, and from wherever the
placer put it) and is only registered into A, with the fetch check (an address outside both
memories).

A routine starts from ``start_pc`` (``start_direct``) or from its entry-table index. The entry
is cached per index after its first use: the cached entry of ``start_entry`` is looked up a
cycle ahead into registers (the control unit shows the entry it will start before it starts
it), so the path done -> control unit -> start -> fetch address has no lookup on it; a start of
another known entry launches a cycle later from the cache. An unknown entry reads both tables'
words (registered as they arrive), resolves the entry (a user entry below 0x8000 means the
built-in routine) and caches it in the next cycle, and launches from the cache in the one after
(only an entry's first start after a user-code change: an ``imem`` write forgets the cache).

F reads the launch address whenever nothing it would fetch otherwise can be needed (no routine
runs, or a RETURN that ends it is in I: ``f_launch``, from flip-flops): so a launch, which
follows from start / done, reaches only valid bits and the fetch counter, never the code
memories' address. The address after the launch address is kept too: no adder after a start.
"""

from amaranth import Array, Module, Mux, Signal, unsigned
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from hdl.isa import InstructionLayout, NUM_ENTRIES, USER_CODE_BASE

__all__ = ["Fetch"]


class Fetch(wiring.Component):
    """Parameters: ``rom`` (64-bit words), ``user_words``, ``lut_code_ram`` (the user RAM in
    LUT RAM: read asynchronously in D from the registered address).

    Ports: ``start`` (a routine starts now: the core's start, when it may), ``start_direct``,
    ``start_entry``, ``start_pc``; ``imem_*`` (user RAM writes); from the pipeline ``running``,
    ``f_launch`` (F reads the launch address), ``f_enable`` (the next word in sequence is
    fetched), ``redirect``/``redirect_pc`` (a taken jump), ``fault``. Out: ``launch`` (the
    routine's first word is fetched now), ``deferred`` (a start that launches later, from the
    entry lookup), ``looking_up`` (an entry lookup is under way), D's ``d_word``, ``d_pc``,
    ``d_fetch_fault``."""

    def __init__(self, rom, user_words, lut_code_ram):
        self.rom_words = list(rom)
        self.user_words = user_words
        self.lut_code_ram = lut_code_ram
        self.rom = Memory(shape=unsigned(64), depth=max(len(self.rom_words), 16),
                          init=self.rom_words)
        self.ram = Memory(shape=unsigned(64), depth=user_words, init=[],
                          attrs={"ram_style": "distributed"} if lut_code_ram else None)
        super().__init__({
            "start": In(1), "start_direct": In(1), "start_entry": In(4), "start_pc": In(16),
            "imem_we": In(1), "imem_addr": In(range(user_words)), "imem_data": In(64),
            "running": In(1), "f_launch": In(1), "f_enable": In(1),
            "redirect": In(1), "redirect_pc": In(16), "fault": In(1),
            "launch": Out(1), "deferred": Out(1), "looking_up": Out(1),
            "d_word": Out(InstructionLayout), "d_pc": Out(16), "d_fetch_fault": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.rom = self.rom
        m.submodules.ram = self.ram
        ram_w = self.ram.write_port()
        m.d.comb += [ram_w.en.eq(self.imem_we), ram_w.addr.eq(self.imem_addr),
                     ram_w.data.eq(self.imem_data)]
        rom_r = self.rom.read_port()
        if self.lut_code_ram:
            # LUT RAM reads asynchronously: read it in D from the registered address (d_pc is
            # f_addr one cycle later) rather than through the fetch-address multiplexer and a
            # flip-flop, which would put the LUT RAM on the path start -> launch -> fetch
            ram_r = self.ram.read_port(domain="comb")
        else:
            ram_r = self.ram.read_port(transparent_for=(ram_w,))

        # (addresses and words have no reset: what a reset must clear is the valid bits)
        f_pc = Signal(16, reset_less=True)  # next code address to fetch
        d_pc = Signal(16, reset_less=True)  # the address fetched last (the word D holds)
        f_addr = Signal(16)             # the address presented this cycle
        f_read = Signal()               # the code memories read f_addr (else their ports hold)
        m.d.comb += [f_read.eq(self.f_enable | self.f_launch),
                     rom_r.addr.eq(f_addr), rom_r.en.eq(f_read)]
        if self.lut_code_ram:
            m.d.comb += ram_r.addr.eq(d_pc[:len(ram_r.addr)])
        else:
            m.d.comb += [ram_r.addr.eq(f_addr[:len(ram_r.addr)]), ram_r.en.eq(f_read)]

        # D: the word, and whether its address is outside the code memories
        d_from_user = d_pc[15]
        m.d.comb += [self.d_pc.eq(d_pc),
                     self.d_word.eq(Mux(d_from_user, ram_r.data, rom_r.data)),
                     self.d_fetch_fault.eq(Mux(d_from_user, d_pc[:15] >= self.user_words,
                                               d_pc >= len(self.rom_words)))]

        launch_pc, launch_after, lookup, entry_index = self._start(m, ram_r, rom_r)
        m.d.comb += f_addr.eq(Mux(lookup, entry_index, Mux(self.f_launch, launch_pc, f_pc)))
        with m.If(f_read):
            m.d.sync += d_pc.eq(f_addr)           # (f_pc, or the launch address)
        with m.If(self.f_launch):
            m.d.sync += f_pc.eq(launch_after)     # right when the launch is now
        with m.Elif(self.running & ~self.fault):
            with m.If(self.redirect):
                m.d.sync += f_pc.eq(self.redirect_pc)
            with m.Elif(self.f_enable):
                m.d.sync += f_pc.eq(f_pc + 1)
        return m

    def _start(self, m, ram_r, rom_r):
        """The entry cache, the lookup of an entry and the launch; returns (launch address,
        the address after it, lookup, the entry index being looked up)."""
        launch_pc = Signal(16)
        launch_after = Signal(16)
        lookup = Signal()               # start by entry: the table words are being read
        lookup_done = Signal()          # ... they arrive (registered as they are)
        lookup_words = Signal()         # ... the entry is resolved from them
        lookup_launch = Signal()        # ... the entry is known: launch from it
        m.d.comb += self.looking_up.eq(lookup | lookup_done | lookup_words | lookup_launch)
        entry_pc = Array(Signal(16, name=f"entry_pc{i}", reset_less=True)
                         for i in range(NUM_ENTRIES))
        entry_known = Signal(NUM_ENTRIES)
        entry_index = Signal(4)
        ahead_entry = Signal(4)
        ahead_pc = Signal(16)
        ahead_known = Signal()
        lookup_pc = Signal(16, reset_less=True)          # where lookup_launch launches from
        # (and the address after each: fetch goes on from there without an adder after start)
        ahead_after = Signal(16)
        lookup_after = Signal(16, reset_less=True)
        m.d.sync += [ahead_entry.eq(self.start_entry), ahead_pc.eq(entry_pc[self.start_entry]),
                     ahead_after.eq(entry_pc[self.start_entry] + 1),
                     ahead_known.eq(entry_known.bit_select(self.start_entry, 1)
                                    & ~self.imem_we)]
        with m.If(lookup_launch):
            m.d.comb += [launch_pc.eq(lookup_pc), launch_after.eq(lookup_after)]
        with m.Elif(self.start_direct):
            m.d.comb += [launch_pc.eq(self.start_pc), launch_after.eq(self.start_pc + 1)]
        with m.Else():
            m.d.comb += [launch_pc.eq(ahead_pc), launch_after.eq(ahead_after)]
        with m.If(self.start):
            with m.If(self.start_direct | (ahead_known & (ahead_entry == self.start_entry))):
                m.d.comb += self.launch.eq(1)
            with m.Elif(entry_known.bit_select(self.start_entry, 1)):
                m.d.comb += self.deferred.eq(1)
                m.d.sync += [lookup_launch.eq(1), lookup_pc.eq(entry_pc[self.start_entry]),
                             lookup_after.eq(entry_pc[self.start_entry] + 1)]
            with m.Else():
                m.d.comb += self.deferred.eq(1)
                m.d.sync += [lookup.eq(1), entry_index.eq(self.start_entry)]
        with m.If(lookup):
            m.d.sync += [lookup.eq(0), lookup_done.eq(1)]
        # the table words come from a block RAM late in the cycle: registered as they are
        user_entry = Signal(16)
        rom_entry = Signal(16)
        with m.If(lookup_done):
            m.d.sync += [lookup_done.eq(0), lookup_words.eq(1), user_entry.eq(ram_r.data[:16]),
                         rom_entry.eq(rom_r.data[:16])]
        with m.If(lookup_words):
            resolved = Mux(user_entry >= USER_CODE_BASE, user_entry, rom_entry)
            m.d.sync += [lookup_words.eq(0), lookup_launch.eq(1), lookup_pc.eq(resolved),
                         lookup_after.eq(resolved + 1),
                         entry_pc[entry_index].eq(resolved),
                         entry_known.bit_select(entry_index, 1).eq(1)]
        with m.If(lookup_launch):
            m.d.comb += self.launch.eq(1)
            m.d.sync += lookup_launch.eq(0)
        with m.If(self.imem_we):                  # user code changed: entries may have too
            m.d.sync += entry_known.eq(0)
        return launch_pc, launch_after, lookup, entry_index
