"""The register banks of one core (theia-isa.md §7, §8).

All banks live in one physical memory of 96-bit rows (so one FPGA block RAM group serves them),
kept twice so that the pipeline has two read ports, A and B (each copy: one read, one write).

Physical rows::

      0 -  41   configuration (EXE writes are dropped; the IO side writes them)
     64 -  85   swap bank, copy 0  (registers 42-63)
     96 - 117   swap bank, copy 1
    128 - 191   constants, user and internal registers (64-127)

Registers 128-131 (output) have no storage: EXE writes are dropped and reads give 0.
``swap_sel`` says which swap copy EXE sees; the IO side writes the other one. ``flip`` exchanges
them; the core flips only between routines, when nothing is in flight.

The single write port is shared: the pipeline's writeback always wins (its slot was reserved
when the instruction issued), the IO side waits (``io_ready``) for a cycle without one.
Read data appears one cycle after the address; a write in the same cycle as the read is seen
(transparent read ports).
"""

from amaranth import Module, Signal, Mux, unsigned
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from hdl.isa import VectorLayout, BANK_CONFIG, BANK_SWAP, BANK_OUTPUT

__all__ = ["RegisterFile", "physical_row", "ROWS"]

ROWS = 192
_SWAP_BASE = 64
_GENERAL_OFFSET = 64      # registers 64-127 live at rows 128-191


def physical_row(addr, swap_copy):
    """Python version of the address map (for testbenches reading the memory)."""
    if addr in BANK_SWAP:
        return _SWAP_BASE + 32 * swap_copy + (addr - BANK_SWAP.first)
    if addr >= 64:
        return addr + _GENERAL_OFFSET
    return addr


class RegisterFile(wiring.Component):
    """Ports (addresses are register numbers 0-131):

    * ``ra_addr``/``ra_data``, ``rb_addr``/``rb_data``: read ports; data one cycle later.
    * ``w_en``, ``w_addr``, ``w_mask`` (bit 2 = x .. bit 0 = z), ``w_data``: EXE writeback; the
      bank rules (config and output read-only to EXE) are applied here.
    * ``io_valid``, ``io_addr`` (0-63), ``io_data``, ``io_ready``: the IO side writes a config row
      or a row of the swap copy EXE does not see.
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
    io_valid: In(1)
    io_addr: In(6)
    io_data: In(VectorLayout)
    io_ready: Out(1)
    flip: In(1)
    swap_sel: Out(1)

    def __init__(self):
        super().__init__()
        self.copies = [Memory(shape=unsigned(96), depth=ROWS, init=[]) for _ in "AB"]

    @staticmethod
    def _row(m, addr, copy, name):
        """The physical row of register ``addr`` in swap copy ``copy`` (an 8-bit signal)."""
        row = Signal(8, name=name)
        with m.If((addr >= BANK_SWAP.first) & (addr <= BANK_SWAP.last)):
            m.d.comb += row.eq(_SWAP_BASE + (copy << 5) + (addr - BANK_SWAP.first))
        with m.Elif(addr >= 64):
            m.d.comb += row.eq(addr + _GENERAL_OFFSET)
        with m.Else():
            m.d.comb += row.eq(addr)
        return row

    def elaborate(self, platform):
        m = Module()
        m.submodules.copy_a, m.submodules.copy_b = self.copies

        swap_sel = Signal()
        m.d.comb += self.swap_sel.eq(swap_sel)
        with m.If(self.flip):
            m.d.sync += swap_sel.eq(~swap_sel)

        # One write port per copy, both driven by the same (arbitrated) write.
        exe_writable = ((self.w_addr > BANK_CONFIG.last) & (self.w_addr < BANK_OUTPUT.first))
        exe_we = self.w_en & exe_writable & (self.w_mask != 0)
        exe_row = self._row(m, self.w_addr, swap_sel, "exe_row")
        io_row = self._row(m, self.io_addr, ~swap_sel, "io_row")
        m.d.comb += self.io_ready.eq(~exe_we)

        write_ports = []
        for mem in self.copies:
            wp = mem.write_port(granularity=32)
            write_ports.append(wp)
            with m.If(exe_we):
                m.d.comb += [wp.addr.eq(exe_row), wp.data.eq(self.w_data), wp.en.eq(self.w_mask)]
            with m.Elif(self.io_valid):
                m.d.comb += [wp.addr.eq(io_row), wp.data.eq(self.io_data), wp.en.eq(0b111)]

        for mem, wp, addr, out, name in ((self.copies[0], write_ports[0], self.ra_addr,
                                          self.ra_data, "a"),
                                         (self.copies[1], write_ports[1], self.rb_addr,
                                          self.rb_data, "b")):
            rp = mem.read_port(transparent_for=(wp,))
            reads_zero = Signal(name=f"{name}_reads_output_bank")
            m.d.comb += rp.addr.eq(self._row(m, addr, swap_sel, f"{name}_row"))
            m.d.sync += reads_zero.eq(addr >= BANK_OUTPUT.first)
            m.d.comb += out.eq(Mux(reads_zero, 0, rp.data))
        return m
