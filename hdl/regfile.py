"""The register banks of one core (theia-isa.md §7, §8).

Two physical memories of 96-bit rows, each kept twice so that the pipeline has two read ports,
A and B (each copy: one read, one write port):

* ``copies`` (the general memory), row = register number: configuration 0-41 (EXE writes are
  dropped; the IO side writes them) and constants, user and internal registers 64-127.
* ``swap_copies`` (the swap memory): the swap bank (registers 42-63) twice, copy 0 in rows
  0-21 and copy 1 in rows 24-45 (48 rows: three 16-row banks of LUT RAM with
  ``swap_in_luts``). ``swap_sel`` says which copy EXE sees; the IO side writes the other one. ``flip`` exchanges them; the core flips only between routines, with no swap write
  in flight.

Registers 128-131 (output) have no storage: EXE writes are dropped and reads give 0.

Each memory has its own write port, so the IO side streaming a triangle into the swap memory
does not compete with the pipeline's writebacks, which go almost all to the general memory.
The IO side writes only in the cycles the writer gives it (``io_slot``: no writeback lands
then; the core works it out a cycle ahead from its write-port reservations, so ``io_ready``,
which enables the IO side's skid buffer, is a flip-flop).
Read data appears one cycle after the address; a write in the same cycle as the read is seen
(transparent read ports; the general memory's bypass is built here, from the EXE and IO
writes side by side: Yosys' own, behind the write port's multiplexers, was the 1-core top's
longest path in ``bench.paths``' estimate).
"""

from amaranth import Module, Signal, Mux, Cat, unsigned
from amaranth.lib import data, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from hdl.isa import VectorLayout, BANK_CONFIG, BANK_SWAP, BANK_OUTPUT, LANE_WMASK_BITS

__all__ = ["RegisterFile", "SwapWrite", "swap_write", "in_swap_bank"]

GENERAL_ROWS = 128
SWAP_ROWS = 48
_COPY_STRIDE = 24          # row of swap register r in copy c: c * 24 + (r - 42)


def in_swap_bank(addr):
    # written as "one of these addresses", not as two compares: synthesis maps the compares
    # onto carry chains, slow on the IO side's path from its state to the write ports
    return Cat(addr == r for r in range(BANK_SWAP.first, BANK_SWAP.last + 1)).any()


class SwapWrite(data.Struct):
    """Where a write lands in the swap memory, worked out by the writer a cycle or more ahead
    (the swap memory's write pins reach ~150 LUT RAMs: their address and enables come from
    flip-flops through a gate or two, not through the register-number arithmetic)."""
    hit: 1              # the register is in the swap bank
    offset: 5           # register - 42: the row in either copy is this plus the copy's base


def swap_write(addr):
    """The ``SwapWrite`` of a write to register ``addr``."""
    return Cat(in_swap_bank(addr), (addr - BANK_SWAP.first)[:5])


class RegisterFile(wiring.Component):
    """Ports (addresses are register numbers 0-131):

    * ``ra_addr``/``ra_data``, ``rb_addr``/``rb_data``: read ports; data one cycle later.
    * ``w_en``, ``w_addr``, ``w_mask`` (bit 2 = x .. bit 0 = z), ``w_data``: EXE writeback; the
      bank rules (config and output read-only to EXE) are applied here. ``w_swap``:
      ``swap_write(w_addr)``, worked out by the writer a cycle or more ahead.
    * ``io_valid``, ``io_addr`` (0-63), ``io_data``, ``io_ready``: the IO side writes a config row
      or a row of the swap copy EXE does not see; ``io_swap`` likewise; ``io_ready`` =
      ``io_slot``: the caller promises no EXE write in that cycle, so ``io_slot`` (a flip-flop)
      alone chooses which side a write port serves.
    * ``flip``: exchange the swap copies. ``swap_sel``: the copy EXE sees.
    """
    ra_addr: In(8)
    ra_data: Out(VectorLayout)
    rb_addr: In(8)
    rb_data: Out(VectorLayout)
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

    def __init__(self, swap_in_luts=False):
        super().__init__()
        self.copies = [Memory(shape=unsigned(96), depth=GENERAL_ROWS, init=[]) for _ in "AB"]
        # swap_in_luts: the swap memories in LUT RAM (an FPGA build short of block RAMs:
        # each copy takes 3 block RAMs for 44 used rows otherwise)
        attrs = {"ram_style": "distributed"} if swap_in_luts else None
        self.swap_copies = [Memory(shape=unsigned(96), depth=SWAP_ROWS, init=[], attrs=attrs)
                            for _ in "AB"]

    def storage(self, addr, swap_copy):
        """(the A and B copies of the memory, row) holding register ``addr`` (testbenches)."""
        if addr in BANK_SWAP:
            return self.swap_copies, swap_copy * _COPY_STRIDE + addr - BANK_SWAP.first
        return self.copies, addr

    @staticmethod
    def _swap_row(m, offset, copy, name):
        """The row of the register ``offset`` past the swap bank's first in copy ``copy``."""
        # the copy's base (24 = 3 << 3) only adds to offset bits 4:3 (0-21: at most 2): one
        # LUT per row bit from the offset's flip-flops
        assert _COPY_STRIDE == 3 << 3
        row = Signal(6, name=name)
        m.d.comb += row.eq(Cat(offset[:3], offset[3:5] + Mux(copy, 3, 0)))
        return row

    def elaborate(self, platform):
        m = Module()
        m.submodules.general_a, m.submodules.general_b = self.copies
        m.submodules.swap_a, m.submodules.swap_b = self.swap_copies

        swap_sel = Signal()
        m.d.comb += self.swap_sel.eq(swap_sel)
        with m.If(self.flip):
            m.d.sync += swap_sel.eq(~swap_sel)

        exe_writable = (self.w_addr > BANK_CONFIG.last) & (self.w_addr < BANK_OUTPUT.first)
        exe_we = self.w_en & exe_writable & (self.w_mask != 0)
        exe_swap = self.w_swap.hit
        io_swap = self.io_swap.hit
        exe_swap_row = self._swap_row(m, self.w_swap.offset, swap_sel, "exe_swap_row")
        io_swap_row = self._swap_row(m, self.io_swap.offset, ~swap_sel, "io_swap_row")
        io_slot = self.io_slot
        io_fire = self.io_valid & io_slot
        m.d.comb += self.io_ready.eq(io_slot)
        exe_general = exe_we & ~exe_swap
        io_general = io_fire & ~io_swap

        general_ports, swap_ports = [], []
        for general, swap in zip(self.copies, self.swap_copies):
            gp = general.write_port(granularity=32)
            sp = swap.write_port(granularity=32)
            general_ports.append(gp)
            swap_ports.append(sp)
            # each port serves the IO side in io_slot cycles and EXE in the others: the
            # address and data multiplexers are chosen by a flip-flop, not by the writes'
            # enables
            with m.If(io_slot):
                m.d.comb += [gp.addr.eq(self.io_addr), gp.data.eq(self.io_data),
                             gp.en.eq(Mux(self.io_valid & ~io_swap, 0b111, 0)),
                             sp.addr.eq(io_swap_row), sp.data.eq(self.io_data),
                             sp.en.eq(Mux(self.io_valid & io_swap, 0b111, 0))]
            with m.Else():
                m.d.comb += [gp.addr.eq(self.w_addr), gp.data.eq(self.w_data),
                             gp.en.eq(Mux(exe_general, self.w_mask, 0)),
                             sp.addr.eq(exe_swap_row), sp.data.eq(self.w_data),
                             sp.en.eq(Mux(self.w_en & exe_swap, self.w_mask, 0))]

        for copy, addr, out, name in ((0, self.ra_addr, self.ra_data, "a"),
                                      (1, self.rb_addr, self.rb_data, "b")):
            general_rp = self.copies[copy].read_port()
            swap_rp = self.swap_copies[copy].read_port(transparent_for=(swap_ports[copy],))
            # the general row written in the cycle it is read: which lanes, and their values
            bypass_lanes = Signal(3, name=f"{name}_bypass_lanes")
            bypass_row = Signal(VectorLayout, name=f"{name}_bypass_row", reset_less=True)
            exe_hit = exe_general & (self.w_addr[:7] == addr[:7])
            io_hit = io_general & (self.io_addr == addr[:7])
            m.d.sync += [bypass_lanes.eq(Mux(exe_hit, self.w_mask, Mux(io_hit, 0b111, 0))),
                         bypass_row.eq(Mux(exe_general, self.w_data, self.io_data))]
            general = Signal(VectorLayout, name=f"{name}_general")
            for lane, bit in LANE_WMASK_BITS:
                m.d.comb += getattr(general, lane).eq(
                    Mux(bypass_lanes[bit], getattr(bypass_row, lane),
                        general_rp.data[32 * bit:32 * (bit + 1)]))
            m.d.comb += [general_rp.addr.eq(addr[:7]),
                         swap_rp.addr.eq(self._swap_row(m, (addr - BANK_SWAP.first)[:5], swap_sel,
                                                        f"{name}_swap_row"))]
            from_swap = Signal(name=f"{name}_from_swap")
            reads_zero = Signal(name=f"{name}_reads_output_bank")
            m.d.sync += [from_swap.eq(in_swap_bank(addr)), reads_zero.eq(addr >= BANK_OUTPUT.first)]
            m.d.comb += out.eq(Mux(reads_zero, 0, Mux(from_swap, swap_rp.data, general)))
        return m
