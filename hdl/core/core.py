"""The THEIA execution core: a pipeline that issues one instruction per cycle.

Stages (ports and signals are prefixed by the stage they belong to), and the unit of each::

    F  fetch      the code address is presented to the firmware ROM and the user RAM
                  (hdl/core/fetch.py, which also starts routines)
    D  word       the word arrives and is registered into A (fetch.py)
    A  address    the word's register addresses go to the register file's read ports and
                  the scoreboard's lookups; the word is decoded (hdl/core/stages.py)
    O  operands   the register file's data arrive, with the write landing now forwarded into
                  them, and are registered (hdl/core/operands.py)
    I  issue      hazards are checked (hdl/core/scoreboard.py), control transfers decided by
                  the flow-control stack engine (hdl/core/issue.py), memory instructions talk
                  to texture/output memory (hdl/core/memory.py), everything else enters the
                  vector ALU
    X  execute    the vector ALU's fixed-latency pipelines (hdl/alu/valu.py)
    W  writeback  the ALU's result is written with its lane mask (hdl/core/writeback.py: the
                  register file's only write port, reserved at issue; the IO side gets the
                  cycles EXE leaves free)

This module is the glue: it connects the units and keeps the pipeline's valid bits and the
routine's state. Which stage can take the instruction of the one before it follows from
``i_issue`` and "a stage from here to I is empty", flip-flops of their own (``hole_*``): as
ORs of the valid bits, synthesis chains them into the longest path. The stage registers load
whenever the next stage takes; only the valid bits see redirects, faults and the start or end
of a routine (``flush``), which keeps those late signals off the enables of a few hundred
flip-flops. A taken jump costs four bubbles (F, D, A and O are on the wrong path).

Routine control: pulse ``start`` with ``start_entry`` (entry-table index) or, with
``start_direct``, ``start_pc`` (a code address); ``busy`` until the routine ends; then ``done``
pulses with ``result`` (the RETURN value). While ``start_chain`` is high, the routine of
``start_entry`` starts again in the cycle this one returns, without a ``start`` (the control
unit's MAIN -> MAIN): it comes from flip-flops, so the path from the RETURN to the next fetch
address does not leave the core. RETURN ends the routine at once unless a write to the swap bank
is still in flight; other writes land while the next routine runs, the scoreboard keeps them
invisible. ``settled``: idle with nothing in flight (what a testbench waits for before reading
registers). ``flip`` (only while not busy, or with ``done``) exchanges the swap copies. ``io_*``
write configuration rows (only while no routine runs) and swap rows (a row lands a cycle or
more after ``io_valid & io_ready``; ``io_idle`` says all have); ``imem_*`` writes the user
instruction RAM (word index from 0x8000). ``omem_base`` (the band's output offset) must be
stable from a routine's start.

An illegal instruction, a return-stack error, a fetch outside the code memories or a texture /
output memory address out of range stops the core: ``error`` goes high with ``error_code``
(``CoreError``) and ``error_pc``, and the core stays stopped until the next ``start``.
"""

from amaranth import Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from hdl.alu.valu import VectorALU
from hdl.core.counters import PerformanceCounters
from hdl.core.fetch import Fetch
from hdl.core.issue import Issue
from hdl.core.memory import MemoryAccess
from hdl.core.operands import Operands
from hdl.core.ports import CoreError, Counters, IoRow, OutputWrite
from hdl.core.regfile import RegisterFile, SwapWrite, swap_write
from hdl.core.scoreboard import Scoreboard
from hdl.core.stages import InstructionStages
from hdl.core.writeback import Writeback
from hdl.config import DividerSharing
from hdl.isa import Kind, VectorLayout
from hdl.lib.skid_buffer import SkidBuffer
from hdl.lib.synthesis import KEEP

__all__ = ["Core", "CoreError", "OutputWrite", "IoRow", "Counters"]


class _IoWrite(data.Struct):
    """An IO row on its way to the register file, with its ``io_swap``."""
    row: IoRow
    swap: SwapWrite


class _StageValid(data.Struct):
    """The valid bits of the stages D, A, O, I."""
    d: 1
    a: 1
    o: 1
    i: 1


class Core(wiring.Component):
    """One THEIA core (without the per-band sequencer: see hdl/core/control_unit.py).

    Parameters: ``rom`` (64-bit words from address 0: the assembled firmware), ``config`` (a
    ``hdl.config.CoreConfig``), ``tmem_words``/``omem_words`` (the address ranges TMREAD /
    OMWRITE check). With ``DividerSharing.PAIR`` the core has a ``div`` port to the divider it
    shares (hdl/alu/shared_divider.py)."""

    def __init__(self, rom, config, *, tmem_words, omem_words):
        self.config = config
        # no tag travels through the ALU: where a result goes is kept with the write-port
        # reservations, which know it a cycle ahead
        self.valu = VectorALU(config)
        self.max_latency = self.valu.max_latency
        self.fetch = Fetch(rom, config.user_words, config.lut_code_ram)
        self.regfile = RegisterFile()
        members = {
            "start": In(1), "start_chain": In(1), "start_direct": In(1), "start_entry": In(4),
            "start_pc": In(16),
            "busy": Out(1), "done": Out(1), "result": Out(1), "settled": Out(1),
            "error": Out(1), "error_code": Out(3), "error_pc": Out(16),
            "flip": In(1), "swap_sel": Out(1),
            "io_valid": In(1), "io_addr": In(6), "io_data": In(VectorLayout), "io_ready": Out(1),
            "io_idle": Out(1),
            "imem_we": In(1), "imem_addr": In(range(config.user_words)), "imem_data": In(64),
            "omem_base": In(32),
            "tm_req": Out(stream.Signature(32)),                      # texture word address
            "tm_resp": In(stream.Signature(32, always_ready=True)),   # its data, in order
            "om_req": Out(stream.Signature(OutputWrite)),
            "counters": Out(Counters),
        }
        if config.divider == DividerSharing.PAIR:
            members["div"] = self.valu.signature.members["div"]
        super().__init__(members)
        self.stages = InstructionStages(self.valu.latency)
        self.operands = Operands(config.alu_forwarding)
        self.writeback = Writeback(self.max_latency)
        self.scoreboard = Scoreboard(self.max_latency, config.alu_forwarding)
        self.issue = Issue(config.stack_depth)
        self.memory = MemoryAccess(tmem_words, omem_words)

    @property
    def ram(self):
        """The user instruction RAM (testbenches write it through their backdoor)."""
        return self.fetch.ram

    def elaborate(self, platform):
        m = Module()
        for name in ("fetch", "regfile", "valu", "stages", "operands", "writeback",
                     "scoreboard", "issue", "memory"):
            m.submodules[name] = getattr(self, name)
        m.submodules.counters = counters = PerformanceCounters()
        if "div" in self.signature.members:
            wiring.connect(m, self.valu.div, wiring.flipped(self.div))
        fetch, stages, rf, ops = self.fetch, self.stages, self.regfile, self.operands
        wb, sb, issue, mem, valu = (self.writeback, self.scoreboard, self.issue, self.memory,
                                    self.valu)

        running = Signal()           # a routine is executing
        error = Signal()
        d_valid, a_valid, o_valid, i_valid = (Signal(name=f"{s}_valid") for s in "daoi")
        i_takes = Signal(attrs=KEEP)
        o_takes = Signal()
        a_takes = Signal()
        issued_write = Signal(attrs=KEEP)
        i_dec, i_class = stages.i_dec, stages.i_class
        m.d.comb += [i_takes.eq(~i_valid | issue.issue), issued_write.eq(issue.alu_valid)]

        self._io_side(m)
        m.d.comb += [
            # F, D
            fetch.running.eq(running), fetch.fault.eq(issue.fault),
            fetch.redirect.eq(issue.redirect), fetch.redirect_pc.eq(issue.redirect_pc),
            fetch.imem_we.eq(self.imem_we), fetch.imem_addr.eq(self.imem_addr),
            fetch.imem_data.eq(self.imem_data),
            fetch.start_direct.eq(self.start_direct), fetch.start_entry.eq(self.start_entry),
            fetch.start_pc.eq(self.start_pc),
            # A, O, I
            stages.d_word.eq(fetch.d_word), stages.d_pc.eq(fetch.d_pc),
            stages.d_fetch_fault.eq(fetch.d_fetch_fault),
            stages.a_takes.eq(a_takes), stages.o_takes.eq(o_takes), stages.i_takes.eq(i_takes),
            # operands
            ops.a_rf_src1.eq(stages.a_rf_src1), ops.a_rf_b.eq(stages.a_rf_b),
            ops.a_src1.eq(stages.a_decoded.src1), ops.a_b_addr.eq(stages.a_decoded.b_addr),
            ops.o_src1.eq(stages.o_dec.src1), ops.o_b_addr.eq(stages.o_dec.b_addr),
            ops.o_takes.eq(o_takes), ops.i_takes.eq(i_takes), ops.swap_sel.eq(rf.swap_sel),
            ops.ra_data.eq(rf.ra_data), ops.rb_data.eq(rf.rb_data),
            rf.ra_addr.eq(ops.ra_addr), rf.ra_row.eq(ops.ra_row),
            rf.rb_addr.eq(ops.rb_addr), rf.rb_row.eq(ops.rb_row),
            ops.result.eq(valu.o_result), ops.w_tag.eq(wb.w_tag), ops.w_slot1.eq(wb.slots[1]),
            ops.next_tag.eq(wb.next_tag), ops.i_tag.eq(wb.i_tag), ops.w_from_i.eq(wb.w_from_i),
            ops.i_dec.eq(i_dec), ops.i_sb.eq(sb.i_sb), ops.tm_data.eq(mem.tm_data),
            # W
            wb.i_valid.eq(i_valid), wb.i_dec.eq(i_dec), wb.issued_write.eq(issued_write),
            rf.w_en.eq(wb.w_valid), rf.w_addr.eq(wb.w_tag.addr), rf.w_mask.eq(wb.w_tag.wmask),
            rf.w_swap.eq(wb.w_tag.swap), rf.w_data.eq(valu.o_result),
            # the scoreboard
            sb.a_lookup_src1.eq(stages.a_lookup_src1), sb.a_lookup_b.eq(stages.a_lookup_b),
            sb.a_lookup_dst.eq(stages.a_lookup_dst),
            sb.a_lookup_more_src1.eq(stages.a_lookup_more_src1),
            sb.a_lookup_more_dst.eq(stages.a_lookup_more_dst),
            sb.o_dec.eq(stages.o_dec), sb.o_takes.eq(o_takes), sb.i_dec.eq(i_dec),
            sb.i_div.eq(i_class.div), sb.i_takes.eq(i_takes), sb.issued_write.eq(issued_write),
            sb.w_lands.eq(wb.w_lands), sb.w_tag.eq(wb.w_tag), sb.w_slots.eq(wb.slots),
            sb.next_tag.eq(wb.next_tag), sb.i_tag.eq(wb.i_tag),
            sb.outlook_mag_a.eq(ops.outlook_mag_a), sb.outlook_mag_b.eq(ops.outlook_mag_b),
            sb.outlook_negative_a.eq(ops.outlook_negative_a),
            sb.outlook_negative_b.eq(ops.outlook_negative_b), sb.bx_zero.eq(ops.bx_zero),
            # I
            issue.i_valid.eq(i_valid), issue.i_class.eq(i_class), issue.i_dec.eq(i_dec),
            issue.i_pc.eq(stages.i_pc), issue.i_sb.eq(sb.i_sb), issue.error.eq(error),
            issue.swap_idle.eq(sb.swap_idle), issue.div_ready.eq(valu.div_ready),
            issue.mag_ready.eq(valu.mag_ready), issue.mul_ready.eq(valu.mul_ready),
            issue.mem_checked.eq(mem.checked), issue.mem_bad.eq(mem.bad),
            issue.mem_done.eq(mem.done), issue.condition.eq(ops.condition),
            mem.i_valid.eq(i_valid), mem.error.eq(error),
            mem.i_ready.eq(i_valid & ~sb.i_sb.hazard & ~error),
            mem.i_tm.eq(i_class.tm), mem.i_om.eq(i_class.om),
            mem.i_a.eq(ops.i_a_held), mem.i_b.eq(ops.i_b_held), mem.issue.eq(issue.issue),
            mem.running.eq(running), mem.omem_base.eq(self.omem_base),
            # X
            valu.i_valid.eq(issue.alu_valid), valu.i_simple.eq(stages.i_simple),
            valu.i_class.eq(stages.i_op_class), valu.i_a.eq(ops.alu_a), valu.i_b.eq(ops.alu_b),
            valu.i_imm.eq(i_dec.imm), valu.i_pc.eq(stages.i_pc),
            # counters
            counters.running.eq(running), counters.issue.eq(issue.issue),
            counters.i_valid.eq(i_valid), counters.hazard.eq(sb.i_sb.hazard),
            counters.draining.eq(i_dec.kind == Kind.RETURN),
            counters.memory.eq(i_class.tm | i_class.om),
            counters.waiting.eq(sb.i_sb.slot_taken | issue.unit_busy),
            self.counters.eq(counters.counters),
        ]
        wiring.connect(m, wiring.flipped(self.tm_req), mem.tm_req)
        wiring.connect(m, mem.tm_resp, wiring.flipped(self.tm_resp))
        wiring.connect(m, wiring.flipped(self.om_req), mem.om_req)

        # --- the start and end of routines -------------------------------------------------
        routine_end = issue.routine_end
        can_start = Signal()         # a new routine may start (also in the cycle of ``done``)
        start = Signal()
        m.d.comb += [can_start.eq((~running | routine_end) & ~fetch.looking_up),
                     start.eq((self.start | (routine_end & self.start_chain)) & can_start),
                     fetch.start.eq(start), rf.flip.eq(self.flip & can_start)]
        # The FC stacks are emptied one cycle after the start (the routine's first instruction
        # reaches issue four cycles after it at the earliest); registering it keeps the path
        # done -> start (chained routines) free of a loop through the engine's error output.
        fc_start = Signal()
        m.d.sync += fc_start.eq(start)
        m.d.comb += issue.fc_start.eq(fc_start)
        with m.If(running & ~issue.fault & routine_end):
            m.d.sync += running.eq(0)
        with m.If(issue.fault):
            m.d.sync += [error.eq(1), self.error_code.eq(issue.fault_code),
                         self.error_pc.eq(stages.i_pc), running.eq(0)]
        with m.If(start):
            m.d.sync += [error.eq(0), self.error_code.eq(0)]
        with m.If(fetch.deferred):
            m.d.sync += running.eq(0)
        with m.If(fetch.launch):
            m.d.sync += running.eq(1)
        # (routine_end excludes every fault of the RETURN itself)
        m.d.comb += [self.busy.eq(running), self.error.eq(error), self.swap_sel.eq(rf.swap_sel),
                     self.done.eq(routine_end), self.result.eq(i_dec.imm[0]),
                     self.settled.eq(~running & ~fetch.looking_up & ~sb.pending & ~sb.event)]

        # --- pipeline advance ----------------------------------------------------------------
        flush = Signal(attrs=KEEP)
        advanced = Signal(_StageValid)
        hole_o = Signal(init=1)         # O or I is empty
        hole_a = Signal(init=1)         # A, O or I is empty
        hole_f = Signal(init=1)         # D, A, O or I is empty
        i_issue = issue.issue
        m.d.comb += [o_takes.eq(hole_o | i_issue), a_takes.eq(hole_a | i_issue),
                     fetch.f_enable.eq(running & (hole_f | i_issue)),
                     # (a lookup and a launch from it happen while not running)
                     fetch.f_launch.eq(~running | (i_valid & i_class.returns)),
                     flush.eq(issue.fault | (running & (issue.redirect | routine_end)) | start
                              | fetch.launch)]
        # (all four valid bits are 0 while not running)
        m.d.comb += [advanced.i.eq(Mux(i_takes, o_valid, i_valid)),
                     advanced.o.eq(Mux(o_takes, a_valid, o_valid)),
                     advanced.a.eq(Mux(a_takes, d_valid, a_valid)),
                     advanced.d.eq(d_valid | (running & fetch.f_enable))]
        m.d.sync += [d_valid.eq(fetch.launch | (~flush & advanced.d)),
                     a_valid.eq(~flush & advanced.a),
                     o_valid.eq(~flush & advanced.o), i_valid.eq(~flush & advanced.i),
                     hole_o.eq(flush | ~advanced.o | ~advanced.i),
                     hole_a.eq(flush | ~advanced.a | ~advanced.o | ~advanced.i),
                     hole_f.eq(flush | ~advanced.as_value().all())]
        return m

    def _io_side(self, m):
        """The IO side's row writes pass a skid buffer: the IO unit sits elsewhere on the chip
        (by the scene memory), and its state -> write address -> the register file's write
        ports, with the port's ready back, is a long path. A row lands a cycle or more after
        it was taken, in the cycles no result lands in (the writeback's ``io_slot``);
        ``io_idle``: every row taken has landed."""
        rf = self.regfile
        m.submodules.io_rows = io_rows = SkidBuffer(_IoWrite)
        m.d.comb += [io_rows.i.valid.eq(self.io_valid), io_rows.i.payload.row.addr.eq(self.io_addr),
                     io_rows.i.payload.row.data.eq(self.io_data),
                     io_rows.i.payload.swap.eq(swap_write(self.io_addr)),
                     self.io_ready.eq(io_rows.i.ready),
                     rf.io_valid.eq(io_rows.o.valid), rf.io_addr.eq(io_rows.o.payload.row.addr),
                     rf.io_data.eq(io_rows.o.payload.row.data),
                     rf.io_swap.eq(io_rows.o.payload.swap), io_rows.o.ready.eq(rf.io_ready),
                     self.io_idle.eq(io_rows.empty), rf.io_slot.eq(self.writeback.io_slot)]
