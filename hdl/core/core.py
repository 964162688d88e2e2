"""The THEIA execution core: a pipeline that issues one instruction per cycle.

Stages (ports and signals are prefixed by the stage they belong to)::

    F  fetch      the code address is presented to the firmware ROM and the user RAM
    D  word       the word arrives and is registered (the block RAM's clock-to-out and the
                  route from wherever the placer put it end here)
    A  address    the word's register addresses go to the register file's read ports A and
                  B; the word is decoded (hdl/core/decode.py)
    O  operands   the register file's data arrive (the write landing now is forwarded into
                  them) and are registered: the block RAMs' clock-to-out stays out of I
    I  issue      operands (forwarded from the writeback bus when a write lands now), hazards
                  are checked, control transfers are decided by the flow-control stack engine,
                  memory instructions talk to texture/output memory, everything else enters
                  the vector ALU
    X  execute    the vector ALU's fixed-latency pipelines (hdl/alu/valu.py)
    W  writeback  the ALU's result is written with its lane mask (the register file's only
                  write port; the IO side gets the cycles EXE leaves free)

Hazards are invisible to programs: a scoreboard counts the writes in flight to each register;
a reader (RAW) waits until the last of them lands (the write landing in the same cycle is
forwarded into the operands), and a second writer (WAW) may issue only if it lands later than
the one in flight (a latency at least as long), so writes to a register land in program order.
One exception saves most of a DIV's latency where it matters: for a DIV in flight the
scoreboard also holds the outlook of lane x of its result (sign and zero-ness,
hdl/core/div_outlook.py), and a conditional jump on lane x that compares that register with an
operand whose x is 0 decides from the outlook without waiting for the divider (the outlook
is worked out in the cycle after the DIV issues, from its registered operands). Writes to
different registers complete out of order, so at issue every instruction reserves the one
cycle its result will use the write port in (``wb_slots``).

A taken jump costs four bubbles (F, D, A and O are on the wrong path): the decision is
registered before fetch is redirected, which keeps the operand-to-fetch path short for the
clock. TMREAD and OMWRITE check their addresses in the cycle after their first cycle without a
hazard, from the operand registers, and send requests from the next (a registered check keeps
operand values out of the issue decision), each lane's request from registers loaded the cycle
before; TMREAD's words are registered as they arrive, before they are sorted into its lanes.
``omem_base`` (the band's output offset) must be stable from a routine's start (OMWRITE's range
check compares with a register worked out from it).
RETURN ends the routine at once (``done`` with the return value) unless a write to the swap
bank is still in flight; other writes land while the next routine runs, the scoreboard keeps
them invisible. ``settled`` says
the core is idle with nothing in flight (what a testbench waits for before reading registers).
The next routine may start in the cycle of ``done``; its first word is fetched at once when the
entry was shown on ``start_entry`` the cycle before (the control unit always shows the routine
it will start next), a cycle later otherwise; the entry table is looked up only the first time
an entry is used (an ``imem`` write forgets the cached entries).

An illegal instruction, a return-stack error, a fetch outside the code memories or a texture /
output memory address out of range stops the core: ``error`` goes high with ``error_code``
(``CoreError``) and ``error_pc``, and the core stays stopped until the next ``start``.
"""

from enum import IntEnum

from amaranth import Module, Signal, Mux, Cat, Const, Array, unsigned, signed
from amaranth.lib import wiring, data, stream
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from hdl.isa import (Op, Kind, InstructionLayout, VectorLayout, USER_CODE_BASE, NUM_REGS,
                     BANKS, BANK_SWAP, NUM_ENTRIES, US_FC_INST, FcOp,
                     AddrOp, JumpFunc, LANE_WMASK_BITS)
from hdl.core.decode import Decoder, Decoded, b_address, LATENCY_RANK_BITS
from hdl.core.regfile import RegisterFile, SwapWrite, swap_write, in_swap_bank, register_row
from hdl.alu.valu import (VectorALU, MULTIPLIER_OPS, SimpleControl, simple_control, OpClass,
                       op_class)
from hdl.core.fc_engine import FlowControlEngine
from hdl.core.div_outlook import DivOutlook, magnitude
from hdl.lib.skid_buffer import SkidBuffer
from hdl.lib.synthesis import KEEP, REGISTER_COPY

__all__ = ["Core", "CoreError", "OutputWrite", "IoRow"]

# (KEEP on the issue decision and the scoreboard's candidate views keeps the decision the
# last multiplexer before the views' registers; unkept, ABC folded the decision into the
# view logic, ~8 levels before the register: ``bench.paths``)


class CoreError(IntEnum):
    NONE = 0
    ILLEGAL_INSTRUCTION = 1
    STACK = 2
    MEMORY = 3           # TMREAD / OMWRITE address outside the memory
    FETCH = 4            # code address outside the firmware ROM / user RAM


class OutputWrite(data.Struct):
    addr: 32
    data: 32


class IoRow(data.Struct):
    """A register row the IO side writes (config or swap bank; also the Gpu's configuration
    broadcast to the IO units)."""
    addr: 6
    data: VectorLayout


class WritebackTag(data.Struct):
    """Where an operation's result goes (kept with the write-port reservations)."""
    addr: 8
    wmask: 3
    swap: SwapWrite       # (for the register file's write port)


class IoWrite(data.Struct):
    """An IO row on its way to the register file, with its ``io_swap``."""
    row: IoRow
    swap: SwapWrite


class ScoreboardView(data.Struct):
    """What the scoreboard says about the registers of the instruction in I (kept in flip-flops:
    looked up while the instruction is in O)."""
    a_count: 2            # writes in flight to SRC1, B and DST (including one landing now)
    b_count: 2
    dst_count: 2
    a_hit: 1              # a write to SRC1 / B / DST lands now
    b_hit: 1
    dst_hit: 1
    lands_after: 1        # a write of this latency to DST lands after the latest in flight
    slot_taken: 1         # the write port is reserved for the cycle this (register) result
                          # would land
    known: 1              # SRC1's DIV outlook (lane x): known, negative, zero
    negative: 1
    zero: 1
    # what follows from the above for the instruction (hazard: it must wait; early_jump: a
    # conditional jump decided from the outlook)
    hazard: 1
    early_jump: 1
    blocked: 1            # hazard or slot_taken: the instruction cannot issue
    settling_a: 1         # SRC1 / B landed last cycle (the jump compare from I's registers
    settling_b: 1         # is a cycle behind)


class PlaneView(data.Struct):
    """What the scoreboard's planes say about the registers of the instruction in O (looked
    up while it is in A, then kept up to date with the planes' updates)."""
    a_count: 2            # writes in flight to SRC1, B and DST
    b_count: 2
    dst_count: 2
    dst_rank: LATENCY_RANK_BITS   # latency rank of the latest write to DST
    outlook: 3            # SRC1's outlook: known, negative, zero


class IssueClass(data.Struct):
    """What kind of instruction is in I, as one-hot flags (registered when it enters I): at
    most one is set; all but ``fetch_fault`` and ``illegal`` mean a legal instruction fetched
    without a fault."""
    fetch_fault: 1
    illegal: 1
    returns: 1            # RETURN
    plain: 1              # NOP, DEBUG
    alu: 1                # ALU-kind
    div: 1                # (with alu) DIV
    mag: 1                # (with alu) MAG
    mul: 1                # (with alu) an opcode of MULTIPLIER_OPS
    flow: 1               # BRANCH, JUMP, CALL, RET
    call: 1               # (with flow)
    ret: 1                # (with flow)
    tm: 1                 # TMREAD
    om: 1                 # OMWRITE


def issue_class(dec, fetch_fault):
    """The IssueClass value of decoded instruction ``dec``."""
    fine = dec.legal & ~fetch_fault
    kind = dec.kind
    return Cat(fetch_fault, ~dec.legal & ~fetch_fault,
               fine & (kind == Kind.RETURN),
               fine & ((kind == Kind.NOP) | (kind == Kind.DEBUG)),
               fine & (kind == Kind.ALU),
               fine & (kind == Kind.ALU) & (dec.opcode == Op.DIV),
               fine & (kind == Kind.ALU) & (dec.opcode == Op.MAG),
               fine & (kind == Kind.ALU) & Cat(dec.opcode == op for op in MULTIPLIER_OPS).any(),
               fine & ((kind == Kind.BRANCH) | (kind == Kind.JUMP) | (kind == Kind.CALL)
                       | (kind == Kind.RET)),
               fine & (kind == Kind.CALL),
               fine & (kind == Kind.RET),
               fine & (kind == Kind.TMREAD),
               fine & (kind == Kind.OMWRITE))


class StageValid(data.Struct):
    """The valid bits of the stages D, A, O, I."""
    d: 1
    a: 1
    o: 1
    i: 1


class Counters(data.Struct):
    cycles: 32
    retired: 32
    stall_operand: 32     # RAW/WAW: waiting for a write in flight
    stall_writeback: 32   # the write port is taken in the cycle the result would need it
                          # (or the shared divider / serial square root is still busy)
    stall_memory: 32      # TMREAD / OMWRITE waiting for memory
    bubbles: 32           # no instruction in issue (after jumps and at routine start)
    drain: 32             # RETURN waiting for the writes in flight


class Core(wiring.Component):
    """One THEIA core (without the per-band sequencer: see hdl/core/control_unit.py).

    Parameters: ``rom`` (64-bit words from address 0: the assembled firmware), ``user_words``
    (instruction RAM size), ``tmem_words``/``omem_words`` (address ranges checked by TMREAD /
    OMWRITE), ``stack_depth``, ``div_bits_per_stage``, ``dividers`` and ``serial_sqrt`` (the
    vector ALU's: 3 lane dividers, 1 shared by the lanes - hdl/alu/serial_divider.py - or 0: the
    ``div`` port to a divider shared with other cores, hdl/alu/shared_divider.py; the
    pipelined square root, or one root bit per cycle - hdl/alu/serial_sqrt.py), ``cross_passes``
    (the vector ALU's: CROSS on six multipliers, or in two passes over three),
    ``simple_latency`` (the vector ALU's SIMPLE class: 1, or 2 with its adders' operands
    registered), ``alu_forwarding`` (the write landing in a cycle is forwarded into the
    operands of an ALU instruction issuing in that cycle; without, the ALU takes I's operand
    registers only and a reader of the landing register issues a cycle later: the ALU's
    operand registers are then off the path result -> forwarding), ``lut_memories``
    (user RAM and swap memories in LUT RAM instead of block RAM).

    Routine control: pulse ``start`` with ``start_entry`` (entry-table index) or, with
    ``start_direct``, ``start_pc`` (a code address); ``busy`` until the routine ends; then
    ``done`` pulses with ``result`` (the RETURN value). While ``start_chain`` is high, the
    routine of ``start_entry`` starts again in the cycle this one returns, without a ``start``
    (the control unit's MAIN -> MAIN): it comes from flip-flops, so the path from the RETURN
    to the next fetch address does not leave the core. ``flip`` (only while not busy, or with
    ``done``) exchanges the swap copies. ``io_*`` write configuration rows (only while no
    routine runs: the IO unit's band rows and the host's broadcast are written then) and swap
    rows (see RegisterFile; a row lands a cycle or more after ``io_valid & io_ready``,
    ``io_idle`` says all have); ``imem_*`` writes the user instruction RAM (word index from 0x8000).
    """

    def __init__(self, rom, *, user_words=1024, tmem_words=196_608, omem_words=3 * 256 * 256,
                 stack_depth=8, div_bits_per_stage=2, dividers=3, serial_sqrt=False,
                 cross_passes=1, simple_latency=1, alu_forwarding=True, lut_memories=False):
        self.rom_words = list(rom)
        self.user_words = user_words
        self.tmem_words = tmem_words
        self.omem_words = omem_words
        self.stack_depth = stack_depth
        self.alu_forwarding = alu_forwarding
        # no tag travels through the ALU: where a result goes is kept with the write-port
        # reservations, which know it a cycle ahead
        self.valu = VectorALU(tag_width=0, div_bits_per_stage=div_bits_per_stage,
                              dividers=dividers, serial_sqrt=serial_sqrt,
                              cross_passes=cross_passes, predecoded=True,
                              simple_latency=simple_latency)
        self.max_latency = self.valu.max_latency
        members = {
            "start": In(1), "start_chain": In(1), "start_direct": In(1), "start_entry": In(4),
            "start_pc": In(16),
            "busy": Out(1), "done": Out(1), "result": Out(1), "settled": Out(1),
            "error": Out(1), "error_code": Out(3), "error_pc": Out(16),
            "flip": In(1), "swap_sel": Out(1),
            "io_valid": In(1), "io_addr": In(6), "io_data": In(VectorLayout), "io_ready": Out(1),
            "io_idle": Out(1),
            "imem_we": In(1), "imem_addr": In(range(user_words)), "imem_data": In(64),
            "omem_base": In(32),
            "tm_req": Out(stream.Signature(32)),                      # texture word address
            "tm_resp": In(stream.Signature(32, always_ready=True)),   # its data, in order
            "om_req": Out(stream.Signature(OutputWrite)),
            "counters": Out(Counters),
        }
        if dividers == 0:                       # the vector ALU's link to a shared divider
            members["div"] = self.valu.signature.members["div"]
        super().__init__(members)
        self.rom = Memory(shape=unsigned(64), depth=max(len(self.rom_words), 16),
                          init=self.rom_words)
        # lut_memories: the user RAM and the swap memories in LUT RAM (an FPGA build that runs
        # out of block RAMs: four cores on the ULX3S-85F)
        self.lut_memories = lut_memories
        self.ram = Memory(shape=unsigned(64), depth=user_words, init=[],
                          attrs={"ram_style": "distributed"} if lut_memories else None)
        self.regfile = RegisterFile()
        self.fc = FlowControlEngine(lanes=1, addr_depth=stack_depth, jump_addr_bits=16)

    def elaborate(self, platform):
        m = Module()
        m.submodules.rom = self.rom
        m.submodules.ram = self.ram
        m.submodules.regfile = rf = self.regfile
        m.submodules.valu = valu = self.valu
        if "div" in self.signature.members:
            wiring.connect(m, valu.div, wiring.flipped(self.div))
        m.submodules.fc = fc = self.fc
        m.submodules.decoder = decoder = Decoder(valu.latency)

        running = Signal()           # a routine is executing
        error = Signal()
        routine_end = Signal()
        can_start = Signal()         # a new routine may start (also in the cycle of ``done``)
        fc_start = Signal()
        m.d.comb += [self.busy.eq(running), self.error.eq(error), self.swap_sel.eq(rf.swap_sel),
                     rf.flip.eq(self.flip & can_start)]

        # --- IO side: register rows and user code ----------------------------------------
        # The IO side's row writes pass a skid buffer: the IO unit sits elsewhere on the chip
        # (by the scene memory), and its state -> write address -> the register file's write
        # ports, with the port's ready back, was the worst path of the 4-core top. A row lands
        # a cycle or more after it was taken; ``io_idle``: every row taken has landed.
        m.submodules.io_rows = io_rows = SkidBuffer(IoWrite)
        m.d.comb += [io_rows.i.valid.eq(self.io_valid), io_rows.i.payload.row.addr.eq(self.io_addr),
                     io_rows.i.payload.row.data.eq(self.io_data),
                     io_rows.i.payload.swap.eq(swap_write(self.io_addr)),
                     self.io_ready.eq(io_rows.i.ready),
                     rf.io_valid.eq(io_rows.o.valid), rf.io_addr.eq(io_rows.o.payload.row.addr),
                     rf.io_data.eq(io_rows.o.payload.row.data),
                     rf.io_swap.eq(io_rows.o.payload.swap), io_rows.o.ready.eq(rf.io_ready),
                     self.io_idle.eq(io_rows.empty)]
        # The IO side writes in the cycles no EXE result lands in (``io_slot``): worked out a
        # cycle ahead from the write-port reservations and the instruction in I (a result of
        # latency 1 issued now lands next cycle), a flip-flop: it enables the skid buffer's
        # ~200 flip-flops by the IO unit (from the writeback tag through the register file's
        # port multiplexers to there was the routed 4-core top's critical path)
        io_slot = Signal()
        m.d.comb += rf.io_slot.eq(io_slot)
        ram_w = self.ram.write_port()
        m.d.comb += [ram_w.en.eq(self.imem_we), ram_w.addr.eq(self.imem_addr),
                     ram_w.data.eq(self.imem_data)]

        # --- F: fetch ------------------------------------------------------------------------
        rom_r = self.rom.read_port()
        if self.lut_memories:
            # LUT RAM reads asynchronously: read it in D from the registered address (d_pc is
            # f_addr one cycle later) rather than through the fetch-address multiplexer and a
            # flip-flop, which put the LUT RAM on the path start -> launch -> fetch
            ram_r = self.ram.read_port(domain="comb")
        else:
            ram_r = self.ram.read_port(transparent_for=(ram_w,))
        # Datapath registers (addresses, words, operands, tags, and what counts or valid bits
        # gate) have no reset: the reset reached 11,390 flip-flops of the 4-core top, and its
        # route held a routed critical path (18.6 ns). What a reset must clear (valid bits,
        # counts, outlook_known, reservations, state) keeps it.
        f_pc = Signal(16, reset_less=True)  # next code address to fetch
        d_pc = Signal(16, reset_less=True)  # the address fetched last (the word D holds)
        f_addr = Signal(16)             # the address presented this cycle
        f_enable = Signal()             # the next word in sequence is fetched this cycle
        f_read = Signal()               # the code memories read f_addr (else their ports hold)
        lookup = Signal()               # start by entry: the table words are being read
        lookup_done = Signal()          # ... they arrive (registered as they are)
        lookup_words = Signal()         # ... the entry is resolved from them
        lookup_launch = Signal()        # ... the entry is known: launch from it
        m.d.comb += [rom_r.addr.eq(f_addr), rom_r.en.eq(f_read)]
        if self.lut_memories:
            m.d.comb += ram_r.addr.eq(d_pc[:len(ram_r.addr)])
        else:
            m.d.comb += [ram_r.addr.eq(f_addr[:len(ram_r.addr)]), ram_r.en.eq(f_read)]

        # --- D: the word arrives ---------------------------------------------------------------
        # from a block RAM late in the cycle (5.6 ns clock-to-out on ECP5), and from a block
        # RAM placed anywhere on the chip: D only registers it (with the fetch check).
        d_valid = Signal()
        d_word = Signal(InstructionLayout, reset_less=True)
        d_from_user = Signal()
        m.d.comb += [d_from_user.eq(d_pc[15]),
                     d_word.eq(Mux(d_from_user, ram_r.data, rom_r.data))]
        d_fetch_fault = Signal()
        m.d.comb += d_fetch_fault.eq(Mux(d_from_user, d_pc[:15] >= self.user_words,
                                         d_pc >= len(self.rom_words)))

        # --- A: register addresses and decode ---------------------------------------------------
        a_valid = Signal()
        a_pc = Signal(16, reset_less=True)
        a_word = Signal(InstructionLayout, reset_less=True)
        a_fetch_fault = Signal()
        m.d.comb += decoder.word.eq(a_word)
        # A's register addresses (SRC1, B, DST) once more, for the scoreboard planes' lookups:
        # a_word's address bits also reach the register file and the decoder, and their
        # fan-out into the planes' multiplexers was a routed 4-core top's critical path (7.3 ns
        # of routing in one net). Three copies (``REGISTER_COPY``), each for a group of loads
        # (each bit of one copy selected among 64 pairs of bits in five planes, and a 5.9 ns
        # route to them was a routed 4-core top's critical path): the count planes' lookups;
        # the latency and outlook planes' (DST, SRC1); the register file's addresses.
        def lookup_copy(use, names=("src1", "b", "dst")):
            return [Signal(8, name=f"a_{use}_{name}", reset_less=True, attrs=REGISTER_COPY)
                    for name in names]
        a_lookup = lookup_copy("lookup")
        a_lookup_more = lookup_copy("lookup_more", ("src1", "dst"))
        a_rf_addr = lookup_copy("rf", ("src1", "b"))
        # The register file's copy addresses it, rows and bypass compares: from these
        # flip-flops through the two gates of ``register_row`` (and the compares), not through
        # the decode of a_word (B's address picked by the instruction type: the routed 4-core
        # top's failing path into the bypass registers)
        m.d.comb += [rf.ra_addr.eq(a_rf_addr[0]), rf.rb_addr.eq(a_rf_addr[1]),
                     rf.ra_row.eq(register_row(a_rf_addr[0], rf.swap_sel)),
                     rf.rb_row.eq(register_row(a_rf_addr[1], rf.swap_sel))]

        # --- O: operands (the register file's data arrive) ------------------------------------
        o_valid = Signal()
        o_pc = Signal(16, reset_less=True)
        o_dec = Signal(Decoded, reset_less=True)
        o_fetch_fault = Signal()
        o_first = Signal()                      # first cycle in O: operands come from the RF
        o_a_hold = Signal(VectorLayout, reset_less=True)
        o_b_hold = Signal(VectorLayout, reset_less=True)

        # --- I: issue ------------------------------------------------------------------------
        i_valid = Signal()
        i_pc = Signal(16, reset_less=True)
        i_dec = Signal(Decoded, reset_less=True)
        i_class = Signal(IssueClass)
        # the vector ALU's SIMPLE-class control, decoded while the instruction is in O: the
        # opcode's decode is then not on the ALU's forwarding loop (result -> forwarding ->
        # operand select -> adder -> result)
        i_simple = Signal(SimpleControl, reset_less=True)
        i_op_class = Signal(OpClass, reset_less=True)    # (likewise the ALU's unit flags)
        # I's operands come from flip-flops (loaded from O, then kept up to date by the
        # forwarding): a block RAM's clock-to-out (5.6 ns on ECP5) is not on the issue path.
        # Two register pairs are used in turn (``i_pair``: the one holding I's operands): the
        # other loads O's operands every cycle, and I taking O's instruction flips ``i_pair``.
        # So the issue decision reaches one flip-flop, not the enables of 192 (I's operand
        # registers' enables, then their inputs, were the most failing endpoints of the routed
        # 4-core top); the multiplexer picking the pair is in front of registers or the ALU.
        # ``i_pair`` is kept in several flip-flops, one for each group of its loads (kept
        # apart: synthesis would merge them): the pairs' loading (per operand: ~200 loads each),
        # the multiplexers picking A and B (96 each), and the selects made after a
        # computation on both pairs (``late``: a few)
        pair_copies = {use: Signal(name=f"i_pair_{use}", attrs=REGISTER_COPY)
                       for use in ("load_a", "load_b", "a", "b", "late")}
        i_pair_late = pair_copies["late"]
        operand_pairs = [(Signal(VectorLayout, name=f"i_a_pair{k}", reset_less=True),
                          Signal(VectorLayout, name=f"i_b_pair{k}", reset_less=True))
                         for k in range(2)]
        i_a_held = Signal(VectorLayout)         # I's operands (the pair in use)
        i_b_held = Signal(VectorLayout)
        (a0, b0), (a1, b1) = operand_pairs
        m.d.comb += [i_a_held.eq(Mux(pair_copies["a"], a1, a0)),
                     i_b_held.eq(Mux(pair_copies["b"], b1, b0))]

        # the writeback bus (W): what lands in the register file this cycle
        # Write-port reservations: wb_slots[k] = a result lands k cycles from now; its tag is
        # kept until then. What lands in a cycle is thus known from registers (the vector ALU's
        # latencies are exact), and the hazard logic does not wait for the ALU's output
        # valid/tag: that path (ALU valid -> forwarding hit -> hazard -> issue) was the start
        # of the critical path on ECP5.
        # The tags live in a small ring indexed by the cycle (``wb_now``): a reservation writes
        # entry now + latency, and the tag landing in two cycles is read from entry now + 2
        # into a register (``next_tag``; one write and one read per cycle, rather than
        # shifting every entry), which then moves into ``w_tag``. The registers keep the
        # ring's LUT-RAM read and multiplexers off the forwarding path and the scoreboard's
        # view of next cycle. Results of latency 1 and 2 bypass the ring into them.
        # Every reservation is a write that lands (``i_writes``: a writable register).
        wb_slots = Signal(self.max_latency + 1)
        wb_ring = Memory(shape=WritebackTag, depth=1 << self.max_latency.bit_length(), init=[])
        m.submodules.wb_ring = wb_ring
        wb_now = Signal(range(wb_ring.depth))
        wb_later = Signal(range(wb_ring.depth), init=2)    # wb_now + 2, without an adder
        m.d.sync += [wb_now.eq(wb_now + 1), wb_later.eq(wb_later + 1)]
        wb_ring_r = wb_ring.read_port(domain="comb")
        m.d.comb += wb_ring_r.addr.eq(wb_later)
        next_tag = Signal(WritebackTag, reset_less=True)  # what lands next cycle, if reserved
        w_valid = wb_slots[0]
        w_tag = Signal(WritebackTag, reset_less=True)     # what lands now
        w_lands = Signal()
        m.d.comb += w_lands.eq(w_valid & (w_tag.wmask != 0))
        m.d.comb += [rf.w_en.eq(w_valid), rf.w_addr.eq(w_tag.addr), rf.w_mask.eq(w_tag.wmask),
                     rf.w_swap.eq(w_tag.swap), rf.w_data.eq(valu.o_result)]

        def lands_now(addr):
            """The write landing this cycle is to register ``addr``."""
            return w_lands & (w_tag.addr == addr[:8])

        def forwarded(raw, hit, name):
            """Operand value with this cycle's landing write forwarded lane by lane, when
            ``hit`` (the write is to the operand's register)."""
            value = Signal(VectorLayout, name=name)
            raw_vector = Signal(VectorLayout, name=f"{name}_raw")
            m.d.comb += raw_vector.eq(raw)
            for lane, bit in LANE_WMASK_BITS:
                m.d.comb += getattr(value, lane).eq(
                    Mux(hit & w_tag.wmask[bit], getattr(valu.o_result, lane),
                        getattr(raw_vector, lane)))
            return value

        class OperandInO:
            """O's operand: in its first cycle the register file's (``read``), later what it
            holds (``hold``), with the write landing now forwarded (``forward_for(name)``: a
            new 3-bit signal, the lanes to forward, from flip-flops of its own). A lane is the
            block RAM's word (``ram``) in O's first cycle where the register file says so and
            nothing is forwarded, else ``rest``'s. Every register that loads it has the block
            RAM's word (the late input: the block RAM's clock-to-output) in its last
            multiplexer: ``load`` keeps what else it loads (``other``) apart, so synthesis
            does not fold the word into that logic, and picks it by a select of its own (I's
            operand registers' inputs were the failing path groups of the routed 4-core tops:
            one select's 96 loads)."""
            def __init__(self, read, hold, forward_for, name):
                self.name = name
                self.read = read
                self.forward_for = forward_for
                self.rest = Signal(VectorLayout, name=f"{name}_rest")
                forward = forward_for(f"{name}_rest")
                for lane, bit in LANE_WMASK_BITS:
                    m.d.comb += getattr(self.rest, lane).eq(Mux(
                        forward[bit], getattr(valu.o_result, lane),
                        Mux(o_first, getattr(read.early, lane), getattr(hold, lane))))

            def load(self, register, takes=Const(1), other=None):
                """``register`` loads the operand when ``takes``, else ``other`` (a
                VectorLayout value; by default it keeps its value)."""
                name = f"{register.as_value().name}_from_{self.name}"
                kept = Signal(VectorLayout, name=f"{name}_other", attrs=KEEP)
                m.d.comb += kept.eq(Mux(takes, self.rest,
                                        register if other is None else other))
                forward = self.forward_for(name)
                for lane, bit in LANE_WMASK_BITS:
                    take_ram = Signal(name=f"{name}_ram_{lane}")
                    m.d.comb += take_ram.eq(takes & o_first & self.read.use_ram[bit]
                                            & ~forward[bit])
                    m.d.sync += getattr(register, lane).eq(
                        Mux(take_ram, getattr(self.read.ram, lane), getattr(kept, lane)))

        # scoreboard: per register, how many writes are in flight (0-3) and the latency rank of
        # the latest (the WAW rule compares latencies only); a register is pending while any
        # is, and the landing write is the one a reader waits for only when it is the last.
        # Kept as bit planes (one bit per register in each vector), so that lookups are bit
        # selects and the update a few wide operations.
        count_lo = Signal(NUM_REGS)
        count_hi = Signal(NUM_REGS)
        latency_planes = [Signal(NUM_REGS, name=f"last_latency_rank_bit{k}", reset_less=True)
                          for k in range(LATENCY_RANK_BITS)]
        pending = Signal(NUM_REGS)
        m.d.comb += pending.eq(count_lo | count_hi)
        swap_idle = Signal(init=1)      # no write to the swap bank in flight (registered)
        outlook_known = Signal(NUM_REGS)
        outlook_negative = Signal(NUM_REGS, reset_less=True)
        outlook_zero = Signal(NUM_REGS, reset_less=True)
        m.submodules.div_outlook = outlook = DivOutlook()
        # only a DIV writing lane x leaves an outlook; any other write forgets it. The outlook
        # is worked out in the cycle after the DIV issues, from its registered lane-x operands
        # (its two carry chains behind the forwarding were the critical path): until then
        # the register's outlook is unknown
        is_div_x = Signal()
        m.d.comb += is_div_x.eq(i_class.div & i_dec.wmask[2])
        # The planes take a cycle's issue a cycle late, from registers (the event, ``ev_*``):
        # the issue decision then drives a dozen flip-flops instead of every plane bit (its
        # fan-out to the 8 planes of 86 bits was the largest failing group of the routed
        # 4-core top).
        # A view looked up meanwhile adds the event to what the planes say. Likewise an outlook
        # reaches its planes a cycle after it is worked out (``od_*``).
        ev_valid = Signal()             # a write issued last cycle ...
        ev_dst = Signal(8)              # ... to this register
        ev_rank = Signal(LATENCY_RANK_BITS)
        ev_div_x = Signal()             # ... by a DIV writing lane x: its outlook is due now
        od_valid = Signal()             # an outlook worked out last cycle ...
        od_dst = Signal(8)              # ... of this register
        od_outlook = Signal(3)          # known, negative, zero
        outlook_due = ev_valid & ev_div_x
        outlook_dst = ev_dst

        # What the scoreboard says about the registers of the instruction in I is looked up
        # while it is in O and kept in registers (``ScoreboardView``), brought up to date
        # with the cycle's events: the issue decision then starts from flip-flops instead of
        # 132-way multiplexers. Events of a cycle: the write issued (``issued_write``, to
        # ``dst``) and the write landing (``w_lands``, to ``w_tag.addr``); next cycle's landing
        # is read from the ring one cycle early (or is the 1-cycle result issued now).
        i_sb = Signal(ScoreboardView)
        issued_write = Signal(attrs=KEEP)
        dst = i_dec.dst[:8]
        # The views of next cycle are worked out for both outcomes of this cycle's issue
        # (``issues``: a write issues now, a Python bool) and picked by it last: the issue
        # decision then meets the view logic in one multiplexer, not at its start.

        def lands_next(addr, issues):
            from_ring = wb_slots[1] & (next_tag.wmask != 0) & (next_tag.addr == addr)
            if not issues:
                return from_ring
            bypass = i_dec.latency == 1
            return Mux(bypass, (dst == addr) & (i_dec.wmask != 0), from_ring)

        # I's write: its tag, and whether it lands next cycle (latency 1, issued now: it then
        # bypasses the ring into w_tag)
        tag = Signal(WritebackTag)
        m.d.comb += [tag.addr.eq(i_dec.dst[:8]),
                     tag.wmask.eq(Mux(i_dec.writes_reg, i_dec.wmask, 0)),
                     tag.swap.eq(swap_write(i_dec.dst[:8]))]
        lands_next_cycle = issued_write & (i_dec.latency == 1)
        w_from_i = Signal()                 # w_tag is the tag I issued last cycle
        m.d.sync += w_from_i.eq(lands_next_cycle)

        # O's forwarding compares (``lands_now`` of O's registers) from registers: the
        # register numbers of next cycle's landing write (I's, issued now with latency 1, or
        # ``next_tag``'s) against next cycle's O's (A's, or O's own), all four compared a cycle
        # early and picked by registered flags. The compare was in front of the choice of the
        # block RAM's word: on the path into I's operand registers.

        def forwarding_in_o(from_a, held):
            """A function of a name making the lanes (3 bits) the write landing now writes
            to O's register (``lands_now(held) & w_tag.wmask``), where O's register number is
            ``from_a`` when it came from A last cycle (``o_first``), else ``held``: each
            call's own flip-flops (``REGISTER_COPY``) hold the four candidates, picked by
            registered flags."""
            ring_mask = Mux(wb_slots[1], next_tag.wmask, 0)

            def forward_for(name):
                lanes = {}
                for o_side, o_addr in (("a", from_a), ("o", held)):
                    for w_side, w_addr, w_mask in (("i", tag.addr, tag.wmask),
                                                   ("ring", next_tag.addr, ring_mask)):
                        lanes[o_side, w_side] = candidate = Signal(
                            3, name=f"{name}_fwd_{o_side}_{w_side}", attrs=REGISTER_COPY)
                        m.d.sync += candidate.eq(Mux(w_addr == o_addr[:8], w_mask, 0))
                forward = Signal(3, name=f"{name}_fwd")
                m.d.comb += forward.eq(Mux(
                    o_first, Mux(w_from_i, lanes["a", "i"], lanes["a", "ring"]),
                    Mux(w_from_i, lanes["o", "i"], lanes["o", "ring"])))
                return forward
            return forward_for

        o_a = OperandInO(rf.ra_data, o_a_hold,
                         forwarding_in_o(decoder.decoded.src1, o_dec.src1), "o_a")
        o_b = OperandInO(rf.rb_data, o_b_hold,
                         forwarding_in_o(decoder.decoded.b_addr, o_dec.b_addr), "o_b")
        o_a.load(o_a_hold)
        o_b.load(o_b_hold)

        def event_to(addr):
            """Last cycle's write issued to register ``addr`` (not in the planes yet)."""
            return ev_valid & (ev_dst == addr)

        def count_step(count, addr):
            """``count`` (what the planes say of ``addr``) after this cycle's plane update:
            the event in, the landing write out."""
            return (count + event_to(addr) - lands_now(addr))[:2]

        def count_next(count, addr, issues_to):
            """The number of writes in flight to ``addr`` after this cycle (``count``: what
            the planes say), with the write issued now (``issues_to``)."""
            return (count_step(count, addr) + issues_to)[:2]

        def outlook_for(addr):
            """The outlook worked out this cycle is that of register ``addr``."""
            return outlook_due & (outlook_dst == addr)

        def outlook_known_of(addr, from_planes):
            """(known, negative, zero) of ``addr``'s outlook from what the planes say
            (``from_planes``) and the events not in them yet: last cycle's issue (forgets it,
            unless a DIV whose outlook is worked out now) and last cycle's outlook."""
            from_od = Mux(od_valid & (od_dst == addr), od_outlook, from_planes)
            now = Cat(outlook.known, outlook.negative, outlook.zero)
            return Mux(event_to(addr), Mux(ev_div_x, now, 0), from_od)

        def is_pending(count, hit):
            """A reader waits unless the landing write is the last one in flight."""
            return (count > 1) | ((count == 1) & ~hit)

        def decide(view, dec, bx_zero, entering):
            """The view's ``hazard``, ``early_jump`` and ``blocked`` for instruction ``dec``
            (``bx_zero``: its B operand's x is 0; ``entering``: its first cycle in I), from the
            view's other fields."""
            a_waits = dec.reads_a & is_pending(view.a_count, view.a_hit)
            b_waits = dec.reads_b & is_pending(view.b_count, view.b_hit)
            if not self.alu_forwarding:
                # the ALU and the jump compare take I's operand registers only: they wait for
                # the cycle after the landing
                from_registers = (dec.kind == Kind.ALU) | (dec.kind == Kind.BRANCH)
                a_waits = dec.reads_a & Mux(from_registers, view.a_count != 0,
                                            is_pending(view.a_count, view.a_hit))
                b_waits = dec.reads_b & Mux(from_registers, view.b_count != 0,
                                            is_pending(view.b_count, view.b_hit))
            is_branch = dec.kind == Kind.BRANCH
            # DIV outlook: a lane-x jump against B.x = 0 decided from the outlook of SRC1's DIV
            # (a B landing that cycle makes the jump wait the usual way)
            early_jump = (is_branch & (dec.opcode[3:5] == 0b01) & a_waits & view.known
                          & ~b_waits & ~view.b_hit & bx_zero)
            # WAW: a second write to a register may be in flight as long as it lands later (it
            # issues later with a latency at least as long), so results land in program order
            waw = (dec.writes_reg & is_pending(view.dst_count, view.dst_hit)
                   & ~(view.lands_after & (view.dst_count != 3)))
            # A conditional jump decides from a compare registered in the cycle before: it waits
            # in its first cycle in I, and in a cycle an operand lands (the path ALU result ->
            # forwarding -> compare -> flow control -> redirect was the longest once the DIV
            # outlook was registered)
            if self.alu_forwarding:
                branch_waits = is_branch & ((Const(entering) & ~early_jump)
                                            | (dec.reads_a & view.a_hit & ~early_jump)
                                            | (dec.reads_b & view.b_hit))
            else:
                branch_waits = is_branch & (((Const(entering) | view.settling_a) & ~early_jump)
                                            | view.settling_b)
            hazard = (a_waits & ~early_jump) | b_waits | waw | branch_waits
            m.d.comb += [view.hazard.eq(hazard), view.early_jump.eq(early_jump),
                         view.blocked.eq(hazard | view.slot_taken)]

        # What the planes say about O's registers is looked up while the instruction is in A
        # (the 86-way plane multiplexers then end in registers, not in the view logic) and
        # brought up to date with every cycle's plane update while it is in O.
        o_planes = Signal(PlaneView)

        def planes_of(src1, b_addr, dst_addr, more_src1, more_dst):
            """The planes' PlaneView of the registers of an instruction (``more_``: copies of
            SRC1's and DST's numbers for the latency and outlook planes)."""
            def count(addr):
                return Cat(count_lo.bit_select(addr, 1), count_hi.bit_select(addr, 1))
            return Cat(count(src1), count(b_addr), count(dst_addr),
                       Cat(plane.bit_select(more_dst, 1) for plane in latency_planes),
                       Cat(plane.bit_select(more_src1, 1)
                           for plane in (outlook_known, outlook_negative, outlook_zero)))

        def planes_step(view, src1, b_addr, dst_addr):
            """``view`` (a PlaneView) after this cycle's plane update (the event, the write
            landing, the outlook due: the same rules as the planes' below)."""
            view = PlaneView(view)
            stepped = Signal(PlaneView)
            od_to = od_valid & (od_dst == src1)
            m.d.comb += [
                stepped.a_count.eq(count_step(view.a_count, src1)),
                stepped.b_count.eq(count_step(view.b_count, b_addr)),
                stepped.dst_count.eq(count_step(view.dst_count, dst_addr)),
                stepped.dst_rank.eq(Mux(event_to(dst_addr), ev_rank, view.dst_rank)),
                stepped.outlook.eq(Mux(od_to, od_outlook, view.outlook)),
            ]
            with m.If(event_to(src1)):
                m.d.comb += stepped.outlook[0].eq(0)
            return stepped

        def view_of_o(issues):
            """I's view of O's instruction for next cycle (O moves into I), if a write issues
            now (``issues``) or not."""
            view = Signal(ScoreboardView, name=f"o_sb_{'issue' if issues else 'none'}",
                          attrs=KEEP)
            src1, b_addr, o_dst = o_dec.src1[:8], o_dec.b_addr[:8], o_dec.dst[:8]
            to_src1, to_b, to_dst = ((dst == r) if issues else Const(0)
                                     for r in (src1, b_addr, o_dst))
            o_last = Mux(event_to(o_dst), ev_rank, o_planes.dst_rank)
            src1_outlook = outlook_known_of(src1, o_planes.outlook)
            m.d.comb += [
                view.a_count.eq(count_next(o_planes.a_count, src1, to_src1)),
                view.b_count.eq(count_next(o_planes.b_count, b_addr, to_b)),
                view.dst_count.eq(count_next(o_planes.dst_count, o_dst, to_dst)),
                view.a_hit.eq(lands_next(src1, issues)),
                view.b_hit.eq(lands_next(b_addr, issues)),
                view.dst_hit.eq(lands_next(o_dst, issues)),
                view.lands_after.eq(Mux(to_dst, o_dec.latency_rank >= i_dec.latency_rank,
                                        o_dec.latency_rank >= o_last)),
                view.slot_taken.eq(o_dec.writes_reg
                                   & (wb_slots.bit_select(o_dec.latency + 1, 1)
                                      | (Const(issues) & (i_dec.latency == o_dec.latency + 1)))),
                view.known.eq(~to_src1 & src1_outlook[0]),
                view.negative.eq(src1_outlook[1]),
                view.zero.eq(src1_outlook[2]),
            ]
            # (B.x = 0 is not looked at here: O's operands come from the register file's
            # block RAM late in the cycle; a jump right behind its DIV waits a cycle for the
            # outlook anyway, and decides early from I's view next cycle)
            decide(view, o_dec, 0, entering=True)
            return view

        def view_of_i():
            """I's view of its own instruction for next cycle (it stays: nothing issues, so
            no write does: ``lands_next(..., False)``)."""
            view = Signal(ScoreboardView, name="i_sb_next", attrs=KEEP)
            m.d.comb += [
                view.eq(i_sb),
                view.a_count.eq(i_sb.a_count - i_sb.a_hit),
                view.b_count.eq(i_sb.b_count - i_sb.b_hit),
                view.dst_count.eq(i_sb.dst_count - i_sb.dst_hit),
                view.a_hit.eq(lands_next(i_dec.src1[:8], False)),
                view.b_hit.eq(lands_next(i_dec.b_addr[:8], False)),
                view.dst_hit.eq(lands_next(dst, False)),
                view.slot_taken.eq(i_dec.writes_reg & wb_slots.bit_select(i_dec.latency + 1, 1)),
                view.settling_a.eq(i_dec.reads_a & i_sb.a_hit),
                view.settling_b.eq(i_dec.reads_b & i_sb.b_hit),
            ]
            with m.If(outlook_for(i_dec.src1[:8])):
                m.d.comb += [view.known.eq(outlook.known), view.negative.eq(outlook.negative),
                             view.zero.eq(outlook.zero)]
            if self.alu_forwarding:
                bx_zero = i_b.x == 0
            else:                               # (per pair, as the compare)
                bx_zero = Mux(i_pair_late, b1.x == 0, b0.x == 0)
            decide(view, i_dec, bx_zero, entering=False)
            return view

        i_a = forwarded(i_a_held, i_sb.a_hit, "i_a")
        i_b = forwarded(i_b_held, i_sb.b_hit, "i_b")
        # I's view is chosen a cycle late: the three candidates (I keeps its instruction; O's
        # moves in with a write issued, or without) are registered as they are, with what
        # happened (``sb_took``: I took O's instruction, ``sb_wrote``: a write issued), and
        # picked from flip-flops. Picked before the registers, the issue decision led a
        # multiplexer tree synthesis built around it into every view bit (the routed 4-core
        # top's critical path: 8 ns from ``i_takes`` to ``i_sb.blocked``).
        sb_stay = Signal(ScoreboardView)
        sb_issue = Signal(ScoreboardView)
        sb_none = Signal(ScoreboardView)
        sb_took = Signal()
        sb_wrote = Signal()
        m.d.comb += i_sb.eq(Mux(sb_took, Mux(sb_wrote, sb_issue, sb_none), sb_stay))
        m.d.sync += [sb_stay.eq(view_of_i()), sb_issue.eq(view_of_o(True)),
                     sb_none.eq(view_of_o(False)), sb_wrote.eq(issued_write)]

        # the outlook's operands: the magnitudes and signs of I's lane-x operands, registered
        # every cycle (the DIV's when it issues)
        outlook_in = [Signal(32, name="outlook_mag_a", reset_less=True),
                      Signal(32, name="outlook_mag_b", reset_less=True),
                      Signal(name="outlook_negative_a", reset_less=True),
                      Signal(name="outlook_negative_b", reset_less=True)]
        # (a DIV issues with its operands in I's registers unless forwarded into)
        div_a, div_b = (i_a.x, i_b.x) if self.alu_forwarding else (i_a_held.x, i_b_held.x)
        m.d.sync += [reg.eq(value) for reg, value in
                     zip(outlook_in, (magnitude(div_a), magnitude(div_b), div_a[31], div_b[31]))]
        m.d.comb += [port.eq(reg) for port, reg in
                     zip((outlook.mag_a, outlook.mag_b, outlook.negative_a, outlook.negative_b),
                         outlook_in)]

        i_writes = i_dec.writes_reg     # this instruction writes a register (through the ALU)
        hazard = i_sb.hazard
        early_jump = i_sb.early_jump
        slot_taken = i_sb.slot_taken

        # a shared divider (dividers=1) still busy with the lanes of the previous DIV, the
        # serial square root with the previous MAG, or the multipliers with a CROSS's second
        # pass
        unit_busy = Signal()
        m.d.comb += unit_busy.eq((i_class.div & ~valu.div_ready)
                                 | (i_class.mag & ~valu.mag_ready)
                                 | (i_class.mul & ~valu.mul_ready))

        kind = i_dec.kind
        i_issue = Signal(attrs=KEEP)    # the instruction in I leaves I this cycle
        alu_go = Signal()               # ... into the vector ALU
        redirect = Signal(attrs=KEEP)
        redirect_pc = Signal(16)
        fault = Signal()
        fault_code = Signal(3)

        # memory instructions: the addresses are checked in the cycle after their first cycle
        # without a hazard, from the operand registers (the operands are final then: the
        # range checks' carry chains behind the forwarding were the 4-core top's worst path),
        # and the check is registered (no operand value reaches the issue decision); then a
        # small sequencer runs over the three lanes
        mem_settled = Signal()          # the TMREAD/OMWRITE in I has its final operands
        mem_checked = Signal()          # its addresses are checked
        mem_bad = Signal()              # ... and one is out of range
        req_lane = Signal(2)
        resp_lane = Signal(2)
        tm_data = Signal(VectorLayout, reset_less=True)
        mem_done = Signal()

        ready = i_valid & ~hazard & ~error
        # RETURN reads and writes nothing, so no hazard applies; deciding it from flip-flops
        # (``i_class.returns``: a legal RETURN fetched without a fault) keeps done -> (control
        # unit) -> start -> fetch, the path that chains routines, short. A swap write must land
        # in this copy before the next flip.
        m.d.comb += routine_end.eq(i_valid & ~error & i_class.returns & swap_idle)
        is_tm = i_class.tm
        is_om = i_class.om
        a_lanes = [i_a_held.x, i_a_held.y, i_a_held.z]

        # The issue decision as one sum of products of flip-flops (the class flags, the
        # scoreboard view, the stack and memory sequencer state): it drives the enables of
        # every stage behind I, so it is kept a few gates deep.
        # Each class's own condition is a kept wire of a few flip-flops (unkept, ABC chained
        # the ~25 inputs six LUTs deep, ``bench.paths``), ORed last.
        c = i_class
        ok = i_valid & ~error
        free = ok & ~i_sb.blocked               # (no hazard, the write port free if needed)
        go_alu = Signal(attrs=KEEP)             # an ALU operation whose unit is free
        # the only FC errors THEIA code can raise are those of CALL and RET, which always jump:
        # known from the stack state alone, so the compare of a conditional jump reaches only
        # the redirect, not the issue
        go_flow = c.flow
        stack_fault = (c.call & fc.addr_full) | (c.ret & fc.addr_empty)
        go_jump = Signal(attrs=KEEP)            # a flow-control instruction without a fault
        mem_fault = (c.tm | c.om) & mem_checked & mem_bad
        go_mem = Signal(attrs=KEEP)             # a memory instruction whose lanes are done
        m.d.comb += [go_alu.eq(c.alu & ~unit_busy), go_jump.eq(go_flow & ~stack_fault),
                     go_mem.eq(mem_checked & ~mem_bad & mem_done & (c.om | c.tm))]
        m.d.comb += [
            i_issue.eq((ok & c.returns & swap_idle)
                       | (free & (c.plain | go_alu | go_jump | go_mem))),
            # (without a fault: the class flags are 0 for a fetch fault or an illegal word,
            # go_jump excludes a RET's stack fault and go_mem a bad address)
            alu_go.eq(free & (go_alu | (go_jump & c.ret) | (go_mem & c.tm))),
            fc.valid.eq(free & go_flow),
            fault.eq(ok & (c.fetch_fault | c.illegal
                           | (~i_sb.blocked & ((go_flow & stack_fault) | mem_fault)))),
            fault_code.eq(Mux(c.fetch_fault, CoreError.FETCH,
                              Mux(c.illegal, CoreError.ILLEGAL_INSTRUCTION,
                                  Mux(c.flow, CoreError.STACK, CoreError.MEMORY)))),
            redirect.eq(free & go_jump & fc.jump),
            redirect_pc.eq(fc.next_pc),
        ]

        # memory lanes: requests x, y, z in order; TMREAD collects the three responses
        # OMWRITE's words are base + v (33 bits) < omem_words, i.e. v < omem_words - base: the
        # room above the band's base, registered (``omem_base`` changes only between routines,
        # a band's base), so that no adder is in front of the compares
        om_room = Signal(33, reset_less=True)
        m.d.sync += om_room.eq(Mux(self.omem_base > self.omem_words, 0,
                                   self.omem_words - self.omem_base))
        out_of_range = Signal()
        m.d.comb += out_of_range.eq(Mux(
            is_tm, Cat(v >= self.tmem_words for v in a_lanes).any(),
            Cat(v >= om_room for v in a_lanes).any()))
        with m.If(ready & (is_tm | is_om)):
            m.d.sync += mem_settled.eq(1)
        with m.If(mem_settled & ~mem_checked):
            m.d.sync += [mem_checked.eq(1), mem_bad.eq(out_of_range)]
        # once checked the operands are final (nothing is in flight to them any more): each
        # lane's request (address, with the band's base for OMWRITE, and data) is worked out
        # into registers the cycle before it is sent (lane x while the addresses are checked,
        # the next lane as one is taken), so that the request leaves the core from flip-flops
        # (operands -> lane select -> base adder -> the skid buffer by the core was a failing
        # path of the routed 4-core top)
        mem_go = i_valid & ~error & mem_checked & ~mem_bad
        req_addr = Signal(32, reset_less=True)
        req_data = Signal(32, reset_less=True)
        reqs_left = req_lane < 3
        m.d.comb += [
            self.tm_req.valid.eq(mem_go & is_tm & reqs_left),
            self.tm_req.payload.eq(req_addr),
            self.om_req.valid.eq(mem_go & is_om & reqs_left),
            self.om_req.payload.addr.eq(req_addr),
            self.om_req.payload.data.eq(req_data),
        ]
        req_accepted = (self.tm_req.valid & self.tm_req.ready) | \
                       (self.om_req.valid & self.om_req.ready)

        def load_request(lane):
            address = getattr(i_a_held, lane)
            m.d.sync += [req_addr.eq(Mux(is_om, self.omem_base + address, address)[:32]),
                         req_data.eq(getattr(i_b_held, lane))]
        with m.If(mem_settled & ~mem_checked):
            load_request("x")
        with m.Elif(req_accepted):
            with m.Switch(req_lane):
                for n, lane in enumerate(("y", "z")):
                    with m.Case(n):
                        load_request(lane)
        # (the third request sent, the third response in: flip-flops set as the count reaches
        # 3, so that the issue decision does not compare the counts)
        reqs_done = Signal()
        resps_done = Signal()
        with m.If(req_accepted):
            m.d.sync += [req_lane.eq(req_lane + 1), reqs_done.eq(req_lane == 2)]
        # texture words are registered as they arrive (from the shared texture port, across
        # the chip) before they are sorted into the lanes (a cycle more per TMREAD)
        tm_resp_valid = Signal()
        tm_resp_word = Signal(32, reset_less=True)
        m.d.sync += [tm_resp_valid.eq(self.tm_resp.valid), tm_resp_word.eq(self.tm_resp.payload)]
        with m.If(tm_resp_valid):
            with m.Switch(resp_lane):
                for n, lane in enumerate(("x", "y", "z")):
                    with m.Case(n):
                        m.d.sync += getattr(tm_data, lane).eq(tm_resp_word)
            m.d.sync += [resp_lane.eq(resp_lane + 1), resps_done.eq(resp_lane == 2)]
        m.d.comb += mem_done.eq(Mux(is_tm, resps_done, reqs_done))
        with m.If(i_issue | ~running):
            m.d.sync += [req_lane.eq(0), resp_lane.eq(0), mem_settled.eq(0), mem_checked.eq(0),
                         mem_bad.eq(0), reqs_done.eq(0), resps_done.eq(0)]

        # --- the flow-control stack engine decides every control transfer ----------------
        # A conditional jump compares I's operands, but from a flip-flop (``compare_reg``)
        # loaded in the cycle before: every lane's "less" and "equal" of the forwarded
        # operands, the jump's lane and relation picked last. So a conditional jump spends its
        # first cycle in I waiting (``decide``), and the compare's carry chains stay off the
        # path to the redirect. (MAIN's jumps wait for an operand in flight anyway.)
        def relation(less, equal, name):
            """The jump's relation (opcode bits 2:0: >, <, ==, !=, >=, <=) from A < B, A == B."""
            value = Signal(name=name)
            with m.Switch(i_dec.opcode[:3]):
                for rel, holds in ((0, ~less & ~equal), (1, less), (2, equal), (3, ~equal),
                                   (4, ~less), (5, less | equal)):
                    with m.Case(rel):
                        m.d.comb += value.eq(holds)
            return value
        def compare_of(a, b, name):
            """The jump's relation of operand vectors ``a``, ``b`` (its lane, signed)."""
            lane_less = Signal(3, name=f"{name}_less")      # bit 2 = x ... bit 0 = z
            lane_equal = Signal(3, name=f"{name}_equal")
            for lane, bit in LANE_WMASK_BITS:
                difference = Signal(signed(33), name=f"{name}_{lane}")
                a_lane, b_lane = getattr(a, lane).as_signed(), getattr(b, lane).as_signed()
                m.d.comb += [difference.eq(a_lane - b_lane), lane_less[bit].eq(difference[32]),
                             lane_equal[bit].eq(a_lane == b_lane)]
            less = Signal(name=f"{name}_lane_less")
            equal = Signal(name=f"{name}_lane_equal")
            with m.Switch(i_dec.opcode[3:5]):                # 01 x, 10 y, 11 z
                for sel, bit in ((1, 2), (2, 1), (3, 0)):
                    with m.Case(sel):
                        m.d.comb += [less.eq(lane_less[bit]), equal.eq(lane_equal[bit])]
            return relation(less, equal, name)

        compare_reg = Signal()
        if self.alu_forwarding:
            m.d.sync += compare_reg.eq(compare_of(i_a, i_b, "compare"))
        else:
            # both operand pairs compared, the pair in use picked last (by a copy of
            # ``i_pair`` of its own): the pair multiplexers and i_pair's fan-out are not in
            # front of the compare's carry chains
            m.d.sync += compare_reg.eq(Mux(i_pair_late,
                                           compare_of(a1, b1, "compare_pair1"),
                                           compare_of(a0, b0, "compare_pair0")))
        # A vs 0 from the outlook: A < 0 is "negative", A == 0 is "zero"
        early = relation(i_sb.negative, i_sb.zero, "early_compare")
        compare = Mux(early_jump, early, compare_reg)
        fc_inst = Signal(US_FC_INST.layout)
        m.d.comb += [
            fc_inst.OP.eq(FcOp.JUMP),
            fc_inst.JUMP_FUNC.eq(Mux(kind == Kind.BRANCH, JumpFunc.ALU, JumpFunc.ALWAYS)),
            fc_inst.A_OP.eq(Mux(kind == Kind.CALL, AddrOp.PUSH,
                                Mux(kind == Kind.RET, AddrOp.POP, AddrOp.NONE))),
            fc.start.eq(fc_start),
            fc.pc.eq(i_pc),
            fc.inst.eq(fc_inst),
            fc.addr.jump_addr.eq(i_dec.dst),
            fc.addr.jump_global.eq(1),             # THEIA code addresses are absolute
            fc.alu_result_we.eq(kind == Kind.BRANCH),
            fc.alu_result.eq(compare),
        ]

        # --- into the vector ALU ---------------------------------------------------------------
        type2_a = Signal(VectorLayout)
        m.d.comb += type2_a.x.eq(i_dec.imm)
        # A as the ALU sees it: the forwarding multiplexer comes last (after the choice of
        # TMREAD's loaded vector / type II's immediate, made from registers), one level less
        # on the path ALU result -> forwarding -> SIMPLE adder -> ALU result
        a_is_register = (kind != Kind.TMREAD) & ~i_dec.type2
        alu_a = Mux(a_is_register, i_a_held.as_value(),
                    Mux(i_dec.type2, type2_a.as_value(), tm_data.as_value()))
        alu_b = i_b_held
        if self.alu_forwarding:
            alu_a = forwarded(alu_a, a_is_register & i_sb.a_hit, "alu_a")
            alu_b = i_b
        m.d.comb += [
            valu.i_valid.eq(alu_go & i_writes),   # results nobody keeps stay out
            valu.i_op.eq(i_dec.alu_op),
            valu.i_simple.eq(i_simple),
            valu.i_class.eq(i_op_class),
            valu.i_a.eq(alu_a),
            valu.i_b.eq(alu_b),
            valu.i_imm.eq(i_dec.imm),
            valu.i_pc.eq(i_pc),
        ]

        # scoreboard and write-port reservations
        m.d.comb += issued_write.eq(valu.i_valid & i_writes)
        issued = Signal(NUM_REGS)                 # one-hot: the register a write issued to
                                                  # last cycle (the event)
        landed = Signal(NUM_REGS)                 # one-hot: the register a write lands in
        # only registers EXE writes are ever in flight: the planes' other bits (configuration
        # and output banks, a third of them) stay 0, and synthesis drops their flip-flops
        exe_written = Const(sum(((1 << bank.size) - 1) << bank.first
                                for bank in BANKS if bank.exe_write), NUM_REGS)
        m.d.sync += [ev_valid.eq(issued_write), ev_dst.eq(dst), ev_rank.eq(i_dec.latency_rank),
                     ev_div_x.eq(is_div_x)]
        m.d.comb += [issued.eq(Mux(ev_valid, Const(1, NUM_REGS) << ev_dst, 0) & exe_written),
                     landed.eq(Mux(w_lands, Const(1, NUM_REGS) << w_tag.addr, 0) & exe_written)]
        toggle = issued ^ landed                  # counts that change (+1 or -1)
        next_lo = count_lo ^ toggle
        next_hi = count_hi ^ (toggle & ((issued & count_lo) | (landed & ~count_lo)))
        m.d.sync += [count_lo.eq(next_lo), count_hi.eq(next_hi)]
        # swap_idle from this cycle's counts, event and issue (not the next counts, which wait
        # for the issue decision and the count update): a write landing now keeps it low a
        # cycle longer, never too short
        swap_written = (count_lo | count_hi)[BANK_SWAP.first:BANK_SWAP.last + 1] != 0
        m.d.sync += swap_idle.eq(~swap_written & ~(ev_valid & in_swap_bank(ev_dst))
                                 & ~(issued_write & tag.swap.hit))
        for bit, plane in enumerate(latency_planes):
            m.d.sync += plane.eq(Mux(ev_rank[bit], plane | issued, plane & ~issued))
        m.d.sync += [od_valid.eq(outlook_due), od_dst.eq(outlook_dst),
                     od_outlook.eq(Cat(outlook.known, outlook.negative, outlook.zero))]
        due = Signal(NUM_REGS)                    # one-hot: the register last cycle's outlook
        m.d.comb += due.eq(Mux(od_valid, Const(1, NUM_REGS) << od_dst, 0) & exe_written)
        # a write issued after the DIV makes its register's outlook unknown (the event of
        # the DIV itself comes a cycle before its outlook; a later write's wins over it)
        for k, (plane, forget) in enumerate(((outlook_known, issued), (outlook_negative, 0),
                                             (outlook_zero, 0))):
            m.d.sync += plane.eq(((plane & ~due) | Mux(od_outlook[k], due, 0)) & ~forget)
        reserve = Signal(self.max_latency + 1)
        with m.If(issued_write):
            m.d.comb += reserve.eq(1 << i_dec.latency)
        m.d.sync += wb_slots.eq((wb_slots | reserve) >> 1)
        m.d.sync += io_slot.eq(~wb_slots[1] & ~(i_valid & i_writes & (i_dec.latency == 1)))
        wb_ring_w = wb_ring.write_port()
        m.d.comb += [wb_ring_w.addr.eq(wb_now + i_dec.latency), wb_ring_w.data.eq(tag),
                     wb_ring_w.en.eq(issued_write)]
        # a result issued now lands next cycle (latency 1) or the cycle after: its tag
        # bypasses the ring
        m.d.sync += [w_tag.eq(Mux(lands_next_cycle, tag, next_tag)),
                     next_tag.eq(Mux(issued_write & (i_dec.latency == 2), tag, wb_ring_r.data))]

        # --- pipeline advance, redirects, start and end of routines ------------------------
        launch = Signal()                         # a routine's first word is fetched now
        # Where a launch would fetch from, and whether F reads there: F reads the launch
        # address whenever nothing it would fetch otherwise can be needed (no routine runs,
        # or a RETURN that ends it is in I), decided from flip-flops. So a launch, which
        # follows from start / done (the issue of the RETURN, chained by the control unit),
        # reaches only valid bits and the fetch counter, never the code memories' address.
        launch_pc = Signal(16)
        launch_after = Signal(16)                 # the address after it (no adder on start)
        fetch_launch = Signal()
        # Which stage can take the instruction of the one before it this cycle: i_issue (late)
        # meets "a stage from here to I is empty" in one gate. Those are flip-flops of their
        # own (``hole_*``): as ORs of the valid bits, synthesis chained them (o_takes ->
        # a_takes -> fetch enable), the longest path. The stages' next valid bits are the
        # advance (``advanced``) unless the stages are emptied (``flush``: a redirect, the end
        # or start of a routine, a fault); a flush reaches the holes through one last OR.
        flush = Signal(attrs=KEEP)
        advanced = Signal(StageValid)
        hole_o = Signal(init=1)         # O or I is empty
        hole_a = Signal(init=1)         # A, O or I is empty
        hole_f = Signal(init=1)         # D, A, O or I is empty
        i_takes = Signal(attrs=KEEP)
        m.d.comb += i_takes.eq(~i_valid | i_issue)
        m.d.sync += sb_took.eq(i_takes)
        o_takes = hole_o | i_issue
        a_takes = hole_a | i_issue
        # (a lookup and a launch from it happen while not running: fetch_launch covers them)
        m.d.comb += [f_enable.eq(running & (hole_f | i_issue)),
                     fetch_launch.eq(~running | (i_valid & i_class.returns)),
                     f_read.eq(f_enable | fetch_launch)]
        # (all four valid bits are 0 while not running)
        m.d.comb += [advanced.i.eq(Mux(i_takes, o_valid, i_valid)),
                     advanced.o.eq(Mux(o_takes, a_valid, o_valid)),
                     advanced.a.eq(Mux(a_takes, d_valid, a_valid)),
                     advanced.d.eq(d_valid | (running & f_enable))]
        m.d.sync += [d_valid.eq(launch | (~flush & advanced.d)), a_valid.eq(~flush & advanced.a),
                     o_valid.eq(~flush & advanced.o), i_valid.eq(~flush & advanced.i),
                     hole_o.eq(flush | ~advanced.o | ~advanced.i),
                     hole_a.eq(flush | ~advanced.a | ~advanced.o | ~advanced.i),
                     hole_f.eq(flush | ~advanced.as_value().all())]

        # The stage registers load whenever the next stage takes, whatever else happens: only
        # the valid bits depend on redirects and faults (the late signals), which keeps those
        # off the enables of a few hundred flip-flops.
        # I's operand pair in use takes the landing write, the other one O's operands
        m.d.sync += [copy.eq(copy ^ i_takes) for copy in pair_copies.values()]
        for k, pair in enumerate(operand_pairs):
            for held, from_o, hit, in_use in zip(pair, (o_a, o_b), (i_sb.a_hit, i_sb.b_hit),
                                                 (pair_copies["load_a"], pair_copies["load_b"])):
                kept = Signal(VectorLayout, name=f"{held.as_value().name}_kept")
                for lane, bit in LANE_WMASK_BITS:
                    m.d.comb += getattr(kept, lane).eq(
                        Mux(hit & w_tag.wmask[bit], getattr(valu.o_result, lane),
                            getattr(held, lane)))
                from_o.load(held, takes=in_use != k, other=kept)
        with m.If(i_takes):
            m.d.sync += [i_class.eq(issue_class(o_dec, o_fetch_fault)),
                         i_simple.eq(simple_control(m, o_dec.alu_op, o_dec.imm)),
                         i_op_class.eq(op_class(o_dec.alu_op)),
                         i_pc.eq(o_pc), i_dec.eq(o_dec)]
        o_addrs = [o_dec.src1[:8], o_dec.b_addr[:8], o_dec.dst[:8]]
        m.d.sync += o_planes.eq(Mux(o_takes, planes_step(planes_of(*a_lookup, *a_lookup_more),
                                                             *a_lookup),
                                    planes_step(o_planes, *o_addrs)))
        with m.If(o_takes):
            m.d.sync += [o_pc.eq(a_pc), o_dec.eq(decoder.decoded),
                         o_fetch_fault.eq(a_fetch_fault)]
        with m.If(a_takes):
            m.d.sync += [a_pc.eq(d_pc), a_word.eq(d_word), a_fetch_fault.eq(d_fetch_fault)]
            d_src1, d_b, d_dst = (addr[:8] for addr in
                                  (d_word.src1, b_address(d_word), d_word.dst))
            m.d.sync += [copy.eq(addr) for copies, addrs in
                         ((a_lookup, (d_src1, d_b, d_dst)), (a_lookup_more, (d_src1, d_dst)),
                          (a_rf_addr, (d_src1, d_b)))
                         for copy, addr in zip(copies, addrs)]
        m.d.sync += o_first.eq(o_takes)
        with m.If(f_read):
            m.d.sync += d_pc.eq(f_addr)           # (f_pc, or the launch address)
        with m.If(fetch_launch):
            m.d.sync += f_pc.eq(launch_after)     # right when the launch is now
        with m.Elif(running & ~fault):
            with m.If(redirect):
                # discard what F, D, A and O hold: they are on the wrong path (``flush``)
                m.d.sync += f_pc.eq(redirect_pc)
            with m.Elif(f_enable):
                m.d.sync += f_pc.eq(f_pc + 1)
        with m.If(running & ~fault & routine_end):
            m.d.sync += running.eq(0)

        # (routine_end excludes every fault of the RETURN itself)
        m.d.comb += [self.done.eq(routine_end), self.result.eq(i_dec.imm[0]),
                     self.settled.eq(~running & ~lookup & ~lookup_done & ~lookup_words
                                     & ~lookup_launch & (pending == 0) & ~ev_valid)]

        with m.If(fault):
            m.d.sync += [error.eq(1), self.error_code.eq(fault_code), self.error_pc.eq(i_pc),
                         running.eq(0)]

        # start: from start_pc, from the cached entry, or after reading both tables' word.
        # The cached entry of ``start_entry`` is looked up a cycle ahead into registers (the
        # control unit shows the entry it will start before it starts it), so that the path
        # done -> control unit -> start -> fetch address has no lookup on it; a start of
        # another known entry launches a cycle later from the cache.
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
        m.d.comb += can_start.eq((~running | routine_end) & ~lookup & ~lookup_done
                                 & ~lookup_words & ~lookup_launch)
        # The FC stacks are emptied one cycle after the start (the routine's first instruction
        # reaches issue four cycles after it at the earliest); registering it keeps the path
        # done -> start (chained routines) free of a loop through the engine's error output.
        start = Signal()
        m.d.comb += start.eq(self.start | (routine_end & self.start_chain))
        m.d.sync += fc_start.eq(start & can_start)
        with m.If(lookup_launch):
            m.d.comb += [launch_pc.eq(lookup_pc), launch_after.eq(lookup_after)]
        with m.Elif(self.start_direct):
            m.d.comb += [launch_pc.eq(self.start_pc), launch_after.eq(self.start_pc + 1)]
        with m.Else():
            m.d.comb += [launch_pc.eq(ahead_pc), launch_after.eq(ahead_after)]
        with m.If(start & can_start):
            m.d.sync += [error.eq(0), self.error_code.eq(0)]
            with m.If(self.start_direct | (ahead_known & (ahead_entry == self.start_entry))):
                m.d.comb += launch.eq(1)
            with m.Elif(entry_known.bit_select(self.start_entry, 1)):
                m.d.sync += [lookup_launch.eq(1), lookup_pc.eq(entry_pc[self.start_entry]),
                             lookup_after.eq(entry_pc[self.start_entry] + 1), running.eq(0)]
            with m.Else():
                m.d.sync += [lookup.eq(1), entry_index.eq(self.start_entry), running.eq(0)]
        m.d.comb += f_addr.eq(Mux(lookup, entry_index, Mux(fetch_launch, launch_pc, f_pc)))
        with m.If(lookup):
            m.d.sync += [lookup.eq(0), lookup_done.eq(1)]
        # the table words come from a block RAM late in the cycle: they are registered as they
        # are, the entry resolved from them and cached in the next cycle, and launched from
        # the cache in the one after (only an entry's first start after a user-code change)
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
            m.d.comb += launch.eq(1)
            m.d.sync += lookup_launch.eq(0)
        with m.If(launch):
            m.d.sync += running.eq(1)
        # (a launch fills D: d_valid above)
        m.d.comb += flush.eq(fault | (running & (redirect | routine_end)) | (start & can_start)
                             | launch)
        with m.If(self.imem_we):                  # user code changed: entries may have too
            m.d.sync += entry_known.eq(0)

        # --- performance counters ------------------------------------------------------------
        # Which counter a cycle counts is registered before it is counted: the counters are
        # summed over the cores (hdl/gpu/gpu.py), so they sit apart from the issue decision that
        # picks one (issue -> counter enables crossed the chip on the 4-core ULX3S top). They
        # run a cycle behind.
        c = self.counters
        counters = Signal(Counters)
        m.d.comb += c.eq(counters)
        counts = {name: Signal(name=f"counts_{name}") for name, _ in Counters.as_shape()}
        m.d.sync += [flag.eq(0) for flag in counts.values()]
        with m.If(running):
            m.d.sync += counts["cycles"].eq(1)
            with m.If(i_issue):
                m.d.sync += counts["retired"].eq(1)
            with m.Elif(~i_valid):
                m.d.sync += counts["bubbles"].eq(1)
            with m.Elif(hazard):
                m.d.sync += counts["stall_operand"].eq(1)
            with m.Elif(kind == Kind.RETURN):
                m.d.sync += counts["drain"].eq(1)
            with m.Elif(is_tm | is_om):
                m.d.sync += counts["stall_memory"].eq(1)
            with m.Elif(slot_taken | unit_busy):
                m.d.sync += counts["stall_writeback"].eq(1)
        for name, flag in counts.items():
            counter = getattr(counters, name)
            with m.If(flag):
                m.d.sync += counter.eq(counter + 1)
        return m
