"""The reference model of one THEIA core: the executable specification of theia-isa.md.

It runs routines instruction by instruction with the architectural state only: the register
banks (with the swap bank's two copies), the return stack, the code memories (firmware ROM and
user instruction RAM), texture memory and output memory. The per-band sequence of the control
unit lives in ``sim/sequencer.py``. Cycles are not modelled.

Clear before clever: each instruction is decoded once per address (``decode``) and then run by
``Core.run``; the semantics of the ALU-kind opcodes come from ``sim/semantics.py``.
"""

from dataclasses import dataclass, field

from hdl.isa import (
    Op, Kind, op_info, unpack, NUM_REGS, BANKS, BANK_SWAP, SWIZZLES, USER_CODE_BASE,
    ENTRY_NAMES, MASK32, jump_lane, jump_relation, compare, reg_name,
)
from sim.semantics import alu_result, merge_lanes

__all__ = ["TheiaError", "IllegalInstruction", "StackError", "MemoryAccessError",
           "RunawayRoutine", "Core", "Decoded", "decode", "DEFAULT_LIMITS"]


class TheiaError(Exception):
    """A condition that stops a core; ``pc`` is the address of the instruction at fault."""

    def __init__(self, message, pc=None):
        where = f" at {pc:#06x}" if pc is not None else ""
        super().__init__(f"{message}{where}")
        self.pc = pc


class IllegalInstruction(TheiaError):
    pass


class StackError(TheiaError):
    pass


class MemoryAccessError(TheiaError):
    pass


class RunawayRoutine(TheiaError):
    pass


DEFAULT_LIMITS = dict(
    stack_depth=8,                 # return stack entries (theia-isa.md §3 notes: at least 8)
    user_words=1024,               # user instruction RAM
    tmem_words=196_608,            # texture memory (a 256 x 256 RGB texture)
    max_routine_steps=10_000_000,  # a routine still running after this many is an error
)

# Whether an EXE write to an address lands; reads of the output bank give 0, and since no write
# ever lands there the stored (0, 0, 0) is what every read sees.
_WRITABLE = [False] * NUM_REGS
for _bank in BANKS:
    for _addr in range(_bank.first, _bank.last + 1):
        _WRITABLE[_addr] = _bank.exe_write


@dataclass(frozen=True)
class Decoded:
    """One instruction word, decoded once."""
    word: int
    op: Op
    kind: Kind
    dst: int
    src1: int
    src2: int
    imm: int
    wmask: int
    type2: bool


def decode(word, pc):
    """Decode a 64-bit word at code address ``pc``; raise IllegalInstruction per §2/§6."""
    insn = unpack(word)
    info = op_info(insn.opcode)
    if info is None:
        raise IllegalInstruction(f"illegal instruction {word:016X} (opcode {insn.opcode:#06x})", pc)
    fields = []
    if info.dst_reg:
        fields.append(("DST", insn.dst))
    if info.a_reg and not info.type2:
        fields.append(("SRC1", insn.src1))
    if info.b_reg and not info.type2:
        fields.append(("SRC2", insn.src2))
    for name, value in fields:
        if value >= NUM_REGS:
            raise IllegalInstruction(
                f"illegal instruction {word:016X}: {info.name} {name} register {value} >= {NUM_REGS}", pc)
    if info.op == Op.SWIZZLE3D and insn.imm not in SWIZZLES:
        raise IllegalInstruction(
            f"illegal instruction {word:016X}: SWIZZLE3D selector {insn.imm} is not 0..21", pc)
    # A type I field the opcode does not read as a register (MAG's SRC2, ZERO's SRC1, ...) may
    # hold any 16-bit value; keep 0 there so that Core.run can index the registers with it.
    src1 = insn.src1 if info.a_reg or info.type2 else 0
    src2 = insn.src2 if info.b_reg or info.type2 else 0
    return Decoded(word, info.op, info.kind, insn.dst, src1, src2, insn.imm,
                   info.wmask, info.type2)


@dataclass
class Stats:
    instructions: int = 0
    routines: dict = field(default_factory=dict)   # routine name -> instructions


class Core:
    """One THEIA core: registers, return stack, memories; runs routines until RETURN.

    ``rom`` and ``user`` are lists of 64-bit words from code address 0 and USER_CODE_BASE, each
    with its 12-word entry table first. ``tmem`` is a list of 32-bit texture words; ``omem`` a
    bytearray-like list of 32-bit output words that may be shared by several cores, written at
    ``omem_base + address``.
    """

    def __init__(self, rom, user=None, tmem=None, omem=None, omem_base=0, trace=None,
                 **limits):
        self.limits = {**DEFAULT_LIMITS, **limits}
        if user is not None and len(user) > self.limits["user_words"]:
            raise ValueError(f"user program has {len(user)} words; the instruction RAM holds "
                             f"{self.limits['user_words']}")
        self.rom = list(rom)
        self.user = list(user) if user is not None else []
        self.tmem = tmem if tmem is not None else [0] * self.limits["tmem_words"]
        self.omem = omem if omem is not None else []
        self.omem_base = omem_base
        self.regs = [(0, 0, 0)] * NUM_REGS
        self.swap_io = [(0, 0, 0)] * BANK_SWAP.size     # the copy the IO side writes
        self.stack = []
        self.stats = Stats()
        self.trace = trace                              # callable(pc, decoded) or None
        self.debug_log = []
        self._decoded = {}

    # --- the IO side ---------------------------------------------------------------------

    def write_config(self, addr, value):
        """IO writes a configuration row (EXE cannot)."""
        assert 0 <= addr < BANKS[0].size
        self.regs[addr] = tuple(v & MASK32 for v in value)

    def write_swap(self, addr, value):
        """IO writes a row of the swap bank's IO copy; EXE sees it after the next flip."""
        self.swap_io[addr - BANK_SWAP.first] = tuple(v & MASK32 for v in value)

    def flip(self):
        """Exchange the swap bank's two copies."""
        first, last = BANK_SWAP.first, BANK_SWAP.last + 1
        self.regs[first:last], self.swap_io = self.swap_io, self.regs[first:last]

    # --- code memory ---------------------------------------------------------------------

    def fetch(self, pc):
        if pc >= USER_CODE_BASE:
            index, memory, name = pc - USER_CODE_BASE, self.user, "user instruction RAM"
            size = self.limits["user_words"]
        else:
            index, memory, name = pc, self.rom, "firmware ROM"
            size = len(self.rom)
        if index >= size:
            raise MemoryAccessError(f"fetch outside the {name} ({size} words)", pc)
        return memory[index] if index < len(memory) else 0

    def entry_address(self, index):
        """The code address routine ``index`` starts at (theia-isa.md §8)."""
        user_entry = (self.user[index] & 0xFFFF) if index < len(self.user) else 0
        if user_entry >= USER_CODE_BASE:
            return user_entry
        return self.rom[index] & 0xFFFF

    def decoded(self, pc):
        d = self._decoded.get(pc)
        if d is None:
            d = self._decoded[pc] = decode(self.fetch(pc), pc)
        return d

    def invalidate_code(self):
        self._decoded.clear()

    # --- execution -----------------------------------------------------------------------

    def run_routine(self, index):
        """Run routine ``index`` (0..11) of the entry table; return its RETURN value."""
        name = ENTRY_NAMES[index]
        before = self.stats.instructions
        result = self.run(self.entry_address(index), name)
        self.stats.routines[name] = self.stats.routines.get(name, 0) + \
            self.stats.instructions - before
        return result

    def run(self, pc, name="routine"):
        """Run from code address ``pc`` until RETURN; return its value (True/False)."""
        regs, stack = self.regs, self.stack
        stack.clear()                     # the return stack is emptied whenever a routine starts
        depth = self.limits["stack_depth"]
        steps_left = self.limits["max_routine_steps"]
        executed = 0
        try:
            while True:
                here = pc
                d = self.decoded(pc)
                if self.trace is not None:
                    self.trace(pc, d)
                executed += 1
                kind = d.kind
                if kind == Kind.ALU:
                    if d.type2:
                        a, b = (d.imm, 0, 0), regs[d.dst]
                    else:
                        a, b = regs[d.src1], regs[d.src2]
                    result = alu_result(d.op, a, b, d.imm, pc)
                    self.write(d.dst, result, d.wmask)
                    pc += 1
                elif kind == Kind.BRANCH:
                    lane = jump_lane(d.op)
                    if compare(jump_relation(d.op), regs[d.src1][lane], regs[d.src2][lane]):
                        pc = d.dst
                    else:
                        pc += 1
                elif kind == Kind.RETURN:
                    return bool(d.imm & 1)
                elif kind == Kind.JUMP:
                    pc = d.dst
                elif kind == Kind.CALL:
                    if len(stack) >= depth:
                        raise StackError(f"CALL with the return stack full ({depth} entries)", pc)
                    stack.append(pc + 1)
                    pc = d.dst
                elif kind == Kind.RET:
                    if not stack:
                        raise StackError("RET with an empty return stack", pc)
                    self.write(d.dst, (d.imm, 0, 0), d.wmask)
                    pc = stack.pop()
                elif kind == Kind.TMREAD:
                    self.write(d.dst, tuple(self.tmem_read(addr, pc) for addr in regs[d.src1]), 0b111)
                    pc += 1
                elif kind == Kind.OMWRITE:
                    # all three addresses are checked before any word is written
                    writes = [(self.omem_index(addr, pc), value)
                              for addr, value in zip(regs[d.src1], regs[d.src2])]
                    for where, value in writes:
                        self.omem[where] = value
                    pc += 1
                elif kind == Kind.DEBUG:
                    self.debug_log.append((pc, regs[d.src1]))
                    pc += 1
                else:                                     # NOP
                    pc += 1
                if executed >= steps_left:
                    raise RunawayRoutine(f"{name} did not RETURN within {steps_left} instructions",
                                         here)
        finally:
            self.stats.instructions += executed

    def write(self, addr, value, wmask):
        if _WRITABLE[addr]:
            self.regs[addr] = value if wmask == 0b111 else merge_lanes(self.regs[addr], value, wmask)

    def tmem_read(self, addr, pc):
        if addr >= len(self.tmem):
            raise MemoryAccessError(
                f"TMREAD of texture word {addr:#x} outside texture memory ({len(self.tmem)} words)", pc)
        return self.tmem[addr]

    def omem_index(self, addr, pc):
        """Where output word ``addr`` of the running band lives (MemoryAccessError if nowhere)."""
        where = self.omem_base + addr
        if where >= len(self.omem):
            raise MemoryAccessError(
                f"OMWRITE to output word {addr:#x} (+ band base {self.omem_base:#x}) outside output "
                f"memory ({len(self.omem)} words)", pc)
        return where

    # --- inspection ----------------------------------------------------------------------

    def register_dump(self):
        """{address: (x, y, z)} for all 132 registers as EXE sees them."""
        return {addr: self.regs[addr] for addr in range(NUM_REGS)}

    def describe(self, addr):
        return f"{reg_name(addr)} = " + ", ".join(f"{v:08X}" for v in self.regs[addr])
