"""The register banks of one core (theia-isa.md §7, §8).

One memory of 96-bit rows, kept twice so that the pipeline has two read ports, A and B (each
copy: one read, one write port). Rows (``register_row``):

* 0-127: register r in row r: configuration 0-41 (EXE writes are dropped; the IO side writes
  them) and constants, user and internal registers 64-127 (rows 42-63 are unused).
* 128-191: the swap bank (registers 42-63) twice: register r of swap copy c in row
  128 + 32 c + (r mod 32). ``swap_sel`` says which copy EXE sees; the IO side writes the other
  one. ``flip`` exchanges them; the core flips only between routines, with no swap write in
  flight.

A register's row is its number but for two bits (bit 5 = the copy, bit 7 = "swap bank":
registers 42-63 all have bit 5 set and bit 6 clear), so no adder is on the way to the
memory's address. On the ECP5 a copy is three 512 x 36 block RAMs, which hold 128 rows as
easily as 192: the swap bank costs no memory (in LUT RAM beside the block RAMs it would take
about 600 LUTs a core, and its read multiplexers and ~2,000 write pins would be long routes).

Registers 128-131 (output) have no storage: reads give 0; the writer never writes them.

The IO side writes only in the cycles the writer gives it (``io_slot``: no writeback lands
then; the core works it out a cycle ahead from its write-port reservations, so ``io_ready``,
which enables the IO side's skid buffer, is a flip-flop): each copy's one write port serves
the IO side in those cycles and EXE in the others.
Read data appears one cycle after the address; an EXE write in the same cycle as the read is
seen (transparent read ports; the IO side writes configuration rows only while no routine runs
and swap rows into the copy EXE does not see, so its writes need no bypass). The bypass is
built here rather than by Yosys (whose emulation would sit behind the write port's
multiplexers, on the read data's path), and registered: in the data's cycle the block-RAM word
(5.6 ns clock-to-out on ECP5) passes one multiplexer (``early``/``use_ram``).
"""

from amaranth import Module, Signal, Mux, Cat, unsigned
from amaranth.lib import data, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from hdl.isa import VectorLayout, BANK_SWAP, BANK_OUTPUT, LANE_WMASK_BITS
from hdl.lib.synthesis import READ_COLLISION_UNDEFINED

__all__ = ["RegisterFile", "RegisterRead", "SwapWrite", "swap_write",
           "in_swap_bank", "register_row", "ROWS"]

ROWS = 192
# the swap bank's registers share bits 7:5 (001), so a swap row keeps bits 4:0 of the number
assert BANK_SWAP.first >= 32 and BANK_SWAP.last < 64


def in_swap_bank(addr):
    # written as "one of these addresses", not as two compares: synthesis maps the compares
    # onto carry chains, slow on the IO side's path from its state to the write ports
    return Cat(addr == r for r in range(BANK_SWAP.first, BANK_SWAP.last + 1)).any()


def _row(addr, swap, copy):
    """Row of register ``addr`` (``swap``: it is in the swap bank) in swap copy ``copy``."""
    return Cat(addr[:5], Mux(swap, copy, addr[5]), addr[6] if len(addr) > 6 else 0, swap)


def register_row(addr, copy):
    """The row of register ``addr`` (0-127), swap registers in swap copy ``copy``."""
    return _row(addr, in_swap_bank(addr), copy)


class SwapWrite(data.Struct):
    """Whether a write lands in the swap bank, worked out by the writer a cycle or more ahead
    (the row's two top bits follow from it: no register-number compare on the write port's
    address path)."""
    hit: 1              # the register is in the swap bank


def swap_write(addr):
    """The ``SwapWrite`` of a write to register ``addr``."""
    return in_swap_bank(addr)


class RegisterRead(data.Struct):
    """A read port's answer: lane l of the register is ``ram``'s where ``use_ram`` bit l (bit 2
    = x .. bit 0 = z) is set, else ``early``'s (a write landing in the read's cycle, or 0 for
    an output register). ``early`` and ``use_ram`` come from flip-flops; ``ram`` is the block
    RAM's word, late in the cycle (5.6 ns clock-to-out on ECP5)."""
    ram: VectorLayout
    early: VectorLayout
    use_ram: 3


class RegisterFile(wiring.Component):
    """Ports (addresses are register numbers 0-131):

    * ``ra_addr``/``ra_data``, ``rb_addr``/``rb_data``: read ports; data one cycle later, as a
      ``RegisterRead`` (the block RAM's word, what replaces it, and which lanes take it), so
      that a reader picking among more values can keep the late word for its last
      multiplexers.
      ``ra_row``/``rb_row``: the register's row, ``register_row(addr, swap_sel)``, worked out by
      the reader a cycle ahead (the memory's address comes from flip-flops).
    * ``w_en``, ``w_addr``, ``w_mask`` (bit 2 = x .. bit 0 = z), ``w_data``: EXE writeback. The
      writer applies the bank rules: ``w_mask`` is 0 for a register EXE may not write
      (configuration, output; the core's writeback tags are: ``Decoded.writes_reg``), so that
      no address compare is on the write enables' path. ``w_swap``: ``swap_write(w_addr)``,
      worked out by the writer a cycle or more ahead.
    * ``io_valid``, ``io_addr`` (0-63), ``io_data``, ``io_ready``: the IO side writes a config row
      (only while nothing reads registers: a read in the cycle of the write would not see it)
      or a row of the swap copy EXE does not see; ``io_swap`` likewise; ``io_ready`` =
      ``io_slot``: the caller promises no EXE write in that cycle, so ``io_slot`` (a flip-flop)
      alone chooses which side a write port serves.
    * ``flip``: exchange the swap copies. ``swap_sel``: the copy EXE sees.
    """
    ra_addr: In(8)
    ra_row: In(8)
    ra_data: Out(RegisterRead)
    rb_addr: In(8)
    rb_row: In(8)
    rb_data: Out(RegisterRead)
    w_en: In(1)
    w_addr: In(8)
    w_mask: In(3)
    w_data: In(VectorLayout)
    w_swap: In(SwapWrite)
    io_valid: In(1)
    io_addr: In(6)
    io_data: In(VectorLayout)
    io_swap: In(SwapWrite)
    io_slot: In(1)
    io_ready: Out(1)
    flip: In(1)
    swap_sel: Out(1)

    def __init__(self):
        super().__init__()
        # (a read in the cycle its row is written is answered by the bypass below: the memory's
        # own answer does not matter, hdl/lib/synthesis.py)
        self.copies = [Memory(shape=unsigned(96), depth=ROWS, init=[],
                              attrs=READ_COLLISION_UNDEFINED) for _ in "AB"]

    def storage(self, addr, swap_copy):
        """(the A and B copies of the memory, row) holding register ``addr`` (testbenches)."""
        row = addr
        if addr in BANK_SWAP:
            row = 128 + 32 * swap_copy + addr % 32
        return self.copies, row

    def elaborate(self, platform):
        m = Module()
        m.submodules.copy_a, m.submodules.copy_b = self.copies

        swap_sel = Signal()
        m.d.comb += self.swap_sel.eq(swap_sel)
        with m.If(self.flip):
            m.d.sync += swap_sel.eq(~swap_sel)

        exe_we = self.w_en & (self.w_mask != 0)
        io_slot = self.io_slot
        m.d.comb += self.io_ready.eq(io_slot)
        exe_row = Signal(8)
        io_row = Signal(8)
        m.d.comb += [exe_row.eq(_row(self.w_addr, self.w_swap.hit, swap_sel)),
                     io_row.eq(_row(self.io_addr, self.io_swap.hit, ~swap_sel))]
        for memory in self.copies:
            port = memory.write_port(granularity=32)
            # the port serves the IO side in io_slot cycles and EXE in the others: the address
            # and data multiplexers are chosen by a flip-flop, not by the writes' enables
            with m.If(io_slot):
                m.d.comb += [port.addr.eq(io_row), port.data.eq(self.io_data),
                             port.en.eq(Mux(self.io_valid, 0b111, 0))]
            with m.Else():
                m.d.comb += [port.addr.eq(exe_row), port.data.eq(self.w_data),
                             port.en.eq(Mux(self.w_en, self.w_mask, 0))]

        # The write landing in the cycle a register is read: which lanes, and their values.
        # Only EXE's writes: the IO side writes configuration rows only while no routine runs
        # (nothing reads then) and swap rows into the copy EXE does not see
        for memory, addr, row, out, name in ((self.copies[0], self.ra_addr, self.ra_row,
                                              self.ra_data, "a"),
                                             (self.copies[1], self.rb_addr, self.rb_row,
                                              self.rb_data, "b")):
            read = memory.read_port()
            m.d.comb += read.addr.eq(row)
            exe_hit = exe_we & (self.w_addr == addr)
            reads_zero = addr >= BANK_OUTPUT.first
            # Everything but the memory's word is known in the address's cycle and registered
            # (``early``: the landing write's data, or 0 for an output register), with which
            # lanes take the block RAM's word (``use_ram``): the word, late in the next cycle,
            # passes one multiplexer. (``early`` takes the write data whether it hits or not:
            # no compare on its path.)
            early = Signal(VectorLayout, name=f"{name}_early", reset_less=True)
            use_ram = Signal(3, name=f"{name}_use_ram", reset_less=True)
            m.d.sync += early.eq(Mux(reads_zero, 0, self.w_data.as_value()))
            for lane, bit in LANE_WMASK_BITS:
                m.d.sync += use_ram[bit].eq(~(exe_hit & self.w_mask[bit]) & ~reads_zero)
            m.d.comb += [out.ram.eq(read.data), out.early.eq(early), out.use_ram.eq(use_ram)]
        return m
