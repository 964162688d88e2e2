"""Seeded random THEIA programs (assembly text) that always terminate, for RTL-vs-model tests.

    python -m sim.random_program SEED [--tmem-words N] [--omem-words N]

prints the program of one seed, so that a failing seed of
``tests/hdl/core/test_core_random.py`` can be looked at (and run with ``python -m sim.exec``).

What a program contains (``random_program(seed)``):

* seed values: SETX/SETY/SETZ of random 32-bit words and interesting ones (0, 1.0, -1.0,
  0x80000000, 0x7FFFFFFF, small integers, ...) into a small pool of registers;
* every ALU-kind opcode of ``hdl.isa`` (all 22 SWIZZLE3D selectors), as single instructions, dense
  dependency chains over the pool (forwarding and RAW/WAW hazards) and runs of independent ones;
* conditional jumps of all 18 kinds, forward only, plus bounded loops whose back edge is a
  conditional jump on a counter register that nothing else writes; JMP forward over code that is
  never executed (sometimes an illegal word, which must not fault: it is on the wrong path);
* nested CALL/RET: subroutines after the main RETURN, subroutine i calls only j > i, so there is
  no recursion and the call depth is at most ``MAX_SUBROUTINES`` = 8; RET with a DST (DST.x = IMM)
  or VOID;
* NOP, DEBUG_PRINT, LEA, TMREAD and OMWRITE with addresses below ``tmem_words``/``omem_words``
  built with SETX/SETY/SETZ right before the access.

Destinations are mostly registers 42-127 (swap, constants, user, internal), sometimes the
configuration bank (the write is dropped), the output bank (dropped) or VOID; sources are any of
0-131. Fields an opcode does not read as a register sometimes hold a random 16-bit number.
"""

import argparse
import random
import sys

from hdl.isa import (OPS, Kind, Op, SWIZZLES, BANK_CONFIG, BANK_OUTPUT, ONE, MASK32, NUM_REGS)

__all__ = ["random_program", "ALU_OPCODES", "BRANCH_OPCODES", "INTERESTING_VALUES",
           "COUNTER_REGISTERS", "MAX_SUBROUTINES"]

ALU_OPCODES = tuple(op for op, info in OPS.items() if info.kind == Kind.ALU)
BRANCH_OPCODES = tuple(op for op, info in OPS.items() if info.kind == Kind.BRANCH)
_TYPE1_ALU = tuple(op for op in ALU_OPCODES if not OPS[op].type2)
_SLOW = {Op.DIV, Op.MAG}
#: one producer of every latency class, for results consumed right behind them
_PRODUCERS = (Op.ADD, Op.SETY, Op.MUL, Op.MULP, Op.DOT, Op.CROSS, Op.DIV, Op.MAG, Op.SWIZZLE3D)

INTERESTING_VALUES = (
    0, ONE, (-ONE) & MASK32, 0x8000_0000, 0x7FFF_FFFF, 0xFFFF_FFFF, 1, 2, 3, 5, 7,
    ONE // 2, 2 * ONE, 3 * ONE, (-3 * ONE) & MASK32, 256 * ONE, 0x0FFF_FFFF, 0x0002_0001,
)

#: loop counters: one per loop, never written by anything but the loop's own DEC/INC
COUNTER_REGISTERS = (124, 125, 126, 127)
#: subroutines i call only j > i: 8 of them nest at most 8 deep (the return stack's depth)
MAX_SUBROUTINES = 8
_WRITABLE = tuple(r for r in range(BANK_CONFIG.last + 1, BANK_OUTPUT.first)
                  if r not in COUNTER_REGISTERS)
_OUTPUT = tuple(range(BANK_OUTPUT.first, BANK_OUTPUT.last + 1))
_LANE = "XYZ"


class _Generator:
    def __init__(self, seed, tmem_words, omem_words, max_blocks, memory_heavy):
        self.rng = random.Random(seed)
        self.seed = seed
        self.tmem_words = tmem_words
        self.omem_words = omem_words
        self.max_blocks = max_blocks
        self.memory_heavy = memory_heavy
        self.labels = 0
        self.counters_left = list(COUNTER_REGISTERS)
        rng = self.rng
        # a small pool makes dense dependencies; mix in swap-bank registers on purpose
        self.pool = rng.sample(range(42, 64), 2) + rng.sample(_WRITABLE, rng.randint(3, 6))
        self.pool = [r for r in dict.fromkeys(self.pool)]
        self.subroutines = rng.randint(0, MAX_SUBROUTINES)
        # a quarter of the programs nest their subroutines as deep as the return stack goes
        self.call_chain = self.subroutines == MAX_SUBROUTINES or rng.random() < 0.25
        self.sub_may_call = False

    # --- operands --------------------------------------------------------------------------

    def label(self, stem):
        self.labels += 1
        return f"{stem}{self.labels}"

    def value(self):
        rng = self.rng
        pick = rng.random()
        if pick < 0.4:
            return rng.choice(INTERESTING_VALUES)
        if pick < 0.6:                         # small fixed-point values
            return (rng.randint(-8 * ONE, 8 * ONE)) & MASK32
        return rng.getrandbits(32)

    def dst(self):
        rng = self.rng
        pick = rng.random()
        if pick < 0.70:
            return rng.choice(self.pool)
        if pick < 0.86:
            return rng.choice(_WRITABLE)
        if pick < 0.92:
            return rng.randint(1, BANK_CONFIG.last)   # config: the write is dropped
        if pick < 0.96:
            return rng.choice(_OUTPUT)                # output: dropped
        return 0                                      # VOID

    def src(self):
        rng = self.rng
        return rng.choice(self.pool) if rng.random() < 0.75 else rng.randrange(NUM_REGS)

    def unused_field(self):
        """A field the opcode does not read as a register: VOID or any 16-bit number."""
        return "VOID" if self.rng.random() < 0.8 else str(self.rng.randrange(0x10000))

    # --- single instructions ---------------------------------------------------------------

    def alu(self, op=None, dst=None, a=None, b=None):
        rng = self.rng
        if op is None:
            op = rng.choice(ALU_OPCODES)
            if op in _SLOW and rng.random() < 0.6:    # keep the long latencies a minority
                op = rng.choice(_TYPE1_ALU)
        info = OPS[op]
        dst = self.dst() if dst is None else dst
        if op in (Op.SETX, Op.SETY, Op.SETZ):
            return [f"{op.name} {dst} 0x{self.value():08X}"]
        if op == Op.SWIZZLE3D:
            sel = rng.randrange(len(SWIZZLES))
            imm = f"SWIZZLE_{SWIZZLES[sel][0]}" if rng.random() < 0.7 else str(sel)
            return [f"SWIZZLE3D {dst} {imm}"]
        a = (self.src() if a is None else a) if info.a_reg else self.unused_field()
        b = (self.src() if b is None else b) if info.b_reg else self.unused_field()
        return [f"{op.name} {dst} {a} {b}"]

    def set_vector(self, reg, lanes):
        lines = []
        for lane, value in zip(_LANE, lanes):
            lines.append(f"SET{lane} {reg} {value}")
        self.rng.shuffle(lines)
        return lines

    # --- blocks ----------------------------------------------------------------------------

    def chain(self):
        """Each instruction reads the previous one's result: every latency class back to back."""
        rng = self.rng
        reg = rng.choice(self.pool)
        lines = []
        for _ in range(rng.randint(2, 5)):
            op = rng.choice(ALU_OPCODES)
            nxt = rng.choice(self.pool)
            if OPS[op].type2:
                lines += self.alu(op, dst=reg)
            elif rng.random() < 0.5:
                lines += self.alu(op, dst=nxt, a=reg)
                reg = nxt
            else:
                lines += self.alu(op, dst=nxt, b=reg)
                reg = nxt
        return lines

    def independent(self):
        """A run of instructions with no dependencies between them (full issue rate)."""
        rng = self.rng
        dsts = rng.sample(_WRITABLE, rng.randint(2, 6))
        srcs = [r for r in range(NUM_REGS) if r not in dsts]
        return [line for d in dsts for line in self.alu(dst=d, a=rng.choice(srcs),
                                                        b=rng.choice(srcs))]

    def forward_branch(self, depth, in_sub):
        rng = self.rng
        op = rng.choice(BRANCH_OPCODES)
        target = self.label("F")
        a = self.src()
        b = a if rng.random() < 0.15 else self.src()
        lines = []
        if rng.random() < 0.4:                 # compare a result that is still being computed
            fresh = rng.choice(self.pool)
            lines += self.alu(rng.choice(_PRODUCERS), dst=fresh)
            if rng.random() < 0.5:
                a = fresh
            else:
                b = fresh
        lines.append(f"{op.name} {target} {a} {b}")
        if rng.random() > 0.1:                 # sometimes the target is the next instruction
            lines += self.blocks(rng.randint(1, 3), depth + 1, in_sub)
        return lines + [f"{target}:"]

    def forward_jump(self, depth, in_sub):
        rng = self.rng
        target = self.label("J")
        lines = [f"JMP {target}"]
        for _ in range(rng.randint(0, 3)):     # never executed: may even be illegal
            if rng.random() < 0.3:
                lines.append(f".word 0x{rng.choice((0xFFFF, 0x7F, 0x06, 0x2E)):04X}"
                             f"{rng.getrandbits(48):012X}")
            else:
                lines += self.alu()
        return lines + [f"{target}:"]

    def loop(self, depth, in_sub):
        """A bounded loop: counter c counts N iterations whatever the body does."""
        rng = self.rng
        c = self.counters_left.pop()
        lane = rng.choice(_LANE)
        zero = rng.choice(_OUTPUT)             # output registers read 0
        n = rng.randint(1, 3)
        top, done = self.label("L"), self.label("E")
        style = rng.choice(("G", "L", "NE", "GE", "LE", "EQ", "UP"))
        start = {"GE": n - 1, "LE": n - 1, "UP": -n}.get(style, n)
        lines = [f"SET{lane} {c} 0x{(start * ONE) & MASK32:08X}", f"{top}:"]
        may_call = self.sub_may_call
        self.sub_may_call = False
        lines += self.blocks(rng.randint(1, 4), depth + 1, in_sub)
        self.sub_may_call = may_call
        lines.append(f"{'INC' if style == 'UP' else 'DEC'} {c} {c} VOID")
        lines += {
            "G": [f"JG{lane} {top} {c} {zero}"],           # while c > 0
            "L": [f"JL{lane} {top} {zero} {c}"],           # while 0 < c
            "NE": [f"JNE{lane} {top} {c} {zero}"],         # while c != 0
            "GE": [f"JGE{lane} {top} {c} {zero}"],         # while c >= 0
            "LE": [f"JLE{lane} {top} {zero} {c}"],         # while 0 <= c
            "EQ": [f"JEQ{lane} {done} {c} {zero}", f"JMP {top}", f"{done}:"],
            "UP": [f"JL{lane} {top} {c} {zero}"],          # while c < 0
        }[style]
        return lines

    def call(self, in_sub):
        """Main calls any subroutine; subroutine i at most one j > i, outside its loops, so
        that the dynamic instruction count stays small."""
        first = 0 if in_sub is None else in_sub + 1
        if first >= self.subroutines or (in_sub is not None and not self.sub_may_call):
            return self.alu()
        if in_sub is not None:
            self.sub_may_call = False
        return [f"CALL SUB{self.rng.randrange(first, self.subroutines)}"]

    def tmread(self):
        rng = self.rng
        addr = rng.choice(self.pool)
        lines = self.set_vector(addr, [rng.randrange(self.tmem_words) for _ in range(3)])
        dst = addr if rng.random() < 0.3 else self.dst()
        return lines + [f"TMREAD {dst} {addr} {self.unused_field()}"]

    def omwrite(self):
        rng = self.rng
        addr = rng.choice(self.pool)
        lines = self.set_vector(addr, [rng.randrange(self.omem_words) for _ in range(3)])
        data = self.src()
        if rng.random() < 0.4:                 # store a result that is still being computed
            data = rng.choice([r for r in self.pool if r != addr] or [addr])
            lines.insert(rng.randint(0, len(lines)),
                         self.alu(rng.choice(_PRODUCERS), dst=data)[0])
        return lines + [f"OMWRITE {self.unused_field()} {addr} {data}"]

    def block(self, depth, in_sub):
        rng = self.rng
        kinds = ["alu"] * 6 + ["chain"] * 4 + ["independent"] * 2 + ["branch"] * 3 + \
                ["jmp", "call", "call", "tmread", "omwrite", "misc"]
        if self.memory_heavy:
            kinds += ["tmread", "omwrite"] * 6
        if depth < 2 and self.counters_left:
            kinds += ["loop"]
        kind = rng.choice(kinds)
        if kind in ("branch", "jmp", "loop") and depth >= 3:
            kind = "alu"
        if kind == "alu":
            return self.alu()
        if kind == "chain":
            return self.chain()
        if kind == "independent":
            return self.independent()
        if kind == "branch":
            return self.forward_branch(depth, in_sub)
        if kind == "jmp":
            return self.forward_jump(depth, in_sub)
        if kind == "loop":
            return self.loop(depth, in_sub)
        if kind == "call":
            return self.call(in_sub)
        if kind == "tmread":
            return self.tmread()
        if kind == "omwrite":
            return self.omwrite()
        return [rng.choice(("NOP", f"DEBUG_PRINT {self.unused_field()} {self.src()} "
                                   f"{self.unused_field()}",
                            f"LEA {self.dst()} {self.unused_field()} {self.unused_field()}"))]

    def blocks(self, count, depth, in_sub):
        lines = []
        for _ in range(count):
            lines += self.block(depth, in_sub)
        return lines

    # --- the whole program -----------------------------------------------------------------

    def program(self):
        rng = self.rng
        out = [f"// random program, seed {self.seed}"]
        main = []
        for reg in self.pool:
            main += self.set_vector(reg, [f"0x{self.value():08X}" for _ in range(3)])
        main += self.blocks(self.max_blocks // 2 + rng.randint(0, self.max_blocks // 2), 0, None)
        main.append(f"RETURN {rng.choice(('RT_TRUE', 'RT_FALSE'))}")
        if self.call_chain and self.subroutines:
            main.insert(len(main) - 1, "CALL SUB0")
        out += _indent(main)
        for i in range(self.subroutines):
            self.sub_may_call = not self.call_chain
            body = self.blocks(rng.randint(0, 4), 1, i)
            if self.call_chain and i + 1 < self.subroutines:
                # first or last, never inside one of the body's loops
                body.insert(rng.choice((0, len(body))), f"CALL SUB{i + 1}")
            if rng.random() < 0.6:
                body.append(f"RET {self.dst()} 0x{self.value():08X}")
            else:
                body.append(f"RET VOID {rng.choice(('RT_TRUE', 'RT_FALSE'))}")
            out.append(f"SUB{i}:")
            out += _indent(body)
        return "\n".join(out) + "\n"


def _indent(lines):
    return [line if line.endswith(":") else "    " + line for line in lines]


def random_program(seed, *, tmem_words=64, omem_words=64, max_blocks=24, memory_heavy=False):
    """The assembly text of random program ``seed``: terminates, no error on a correct core.

    TMREAD addresses stay below ``tmem_words`` and OMWRITE addresses below ``omem_words``;
    ``memory_heavy`` makes TMREAD/OMWRITE blocks about half of all blocks.
    """
    return _Generator(seed, tmem_words, omem_words, max_blocks, memory_heavy).program()


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m sim.random_program",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("seed", type=int)
    parser.add_argument("--tmem-words", type=int, default=64)
    parser.add_argument("--omem-words", type=int, default=64)
    parser.add_argument("--memory-heavy", action="store_true")
    args = parser.parse_args(argv)
    sys.stdout.write(random_program(args.seed, tmem_words=args.tmem_words,
                                    omem_words=args.omem_words,
                                    memory_heavy=args.memory_heavy))
    return 0


if __name__ == "__main__":
    sys.exit(main())
