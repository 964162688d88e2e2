"""Random R500 programs: jobs to hold the RTL core to the model (r500-us.md §2-§4).

* ``random_job(seed_or_rng, temporaries=128)``: a ``sim.r500.job.Job`` with a random program
  (every ALU, OUT and TEX form, the flow-control constructs of §2 with lanes that diverge), edge-
  heavy lane temporaries and constants, samplers over a small texture; a few jobs stop with an
  error on purpose. The same seed gives the same job.

Which features a set of jobs exercised is ``sim.r500.coverage``'s; ``sim.r500.compare`` lists
the differences between the model's and the RTL core's results.

A program is a structured program of ``sim.fc_programs`` (IF/ELSE, LOOP/REP with BREAK and
CONTINUE, CALL, plain conditional JUMPs) whose ``Alu`` nodes are R500 ALU, OUT and TEX
instructions, compiled by ``compile_program`` (Mesa's mapping, §2) and laid out between junk
instructions that never execute. Its size is bounded so that a quad executes a few hundred
instructions at most (the RTL is simulated).
"""

import random
from dataclasses import dataclass, field

from hdl.isa import (US_CMN_INST, US_TEX_ADDR_DXDY, US_FC_INST, US_INT_CONST, InstType,
                     FcOp as FcOpcode, BranchOp, PredSel, JumpFunc, RgbOp, AlphaOp, TexOp, Mod,
                     Sel, Omod, Compare, AluResultSel, R500_TEMPS, R500_MAX_INSTRUCTIONS)
from sim.fc_model import (FcAddr, fc_inst, fc_jump, fc_ret, fc_endloop, fc_endrep, fc_break,
                          fc_continue, int_const, sext8)
from sim.fc_programs import (FcOp, AluOp, Cond, Alu, If, Loop, Break, Continue, Call, Jump,
                             Fc, Program, compile_program)
from sim.r500 import fp32
from sim.r500.errors import QuadErrorCode
from sim.r500.job import Job
from sim.r500.quad import LANES, LaneInput
from sim.r500.tex import Sampler, FILTERS, WRAPS, CHANNELS as TEXEL_WORDS
from sim.r500.words import alu_words, tex_words, fc_words

__all__ = ["random_job", "random_value", "ERROR_KINDS", "ERROR_EVERY", "MAX_EXECUTED"]

#: a bound on the instructions a quad of a (clean) random program executes
MAX_EXECUTED = 300
#: with an int seed, seeds ``ERROR_EVERY - 1`` (mod ERROR_EVERY) plant an error; a generator
#: (random.Random) plants one with probability 1 / ERROR_EVERY
ERROR_EVERY = 16
#: every error of §4.3, in the order the seeds plant them
ERROR_KINDS = tuple(QuadErrorCode)

_MAX_FINITE = 0x7F7F_FFFF
_EDGE_VALUES = (
    fp32.ZERO, fp32.NEG_ZERO, fp32.ONE, fp32.ONE | fp32.SIGN, fp32.HALF, fp32.HALF | fp32.SIGN,
    fp32.ONE - 1, fp32.ONE + 1, fp32.HALF - 1, fp32.HALF + 1, fp32.TWO, 0x4040_0000,
    fp32.MIN_NORMAL, fp32.MIN_NORMAL | fp32.SIGN, fp32.MIN_NORMAL + 1, 0x0000_0001, 0x007F_FFFF,
    0x8000_0001, 0x807F_FFFF, _MAX_FINITE, _MAX_FINITE | fp32.SIGN, fp32.POS_INF, fp32.NEG_INF,
    fp32.CANONICAL_NAN, fp32.CANONICAL_NAN | fp32.SIGN, 0x7F80_0001, 0xFFFF_FFFF, 0x7FC1_2345,
    0xFF80_4321, 0x4B00_0000, 0x4B00_0001, 0x3E80_0000, 0x3F40_0000,
)


def random_value(rng):
    """A binary32 pattern, edge-heavy: ±0, subnormals, 2^-126, 0.5, 1.0 and neighbours, max
    finite, ±inf, NaNs of both signs with payloads; moderate numbers; huge and tiny values;
    uniform patterns."""
    roll = rng.random()
    if roll < 0.35:
        return rng.choice(_EDGE_VALUES)
    if roll < 0.65:             # moderate values: texture coordinates, loop-ish numbers
        scale = rng.choice((1, 1, 2, 8, 64))
        return fp32.from_float(rng.uniform(-scale, scale))
    if roll < 0.75:             # small integers and halves
        return fp32.from_float(rng.randint(-8, 8) / rng.choice((1, 2, 4)))
    if roll < 0.85:             # huge or tiny magnitudes
        exponent = rng.choice((rng.randint(1, 12), rng.randint(240, 254)))
        return rng.getrandbits(1) << 31 | exponent << 23 | rng.getrandbits(23)
    if roll < 0.93:
        return rng.getrandbits(32)
    return (rng.choice(_EDGE_VALUES) + rng.randint(-3, 3)) & 0xFFFF_FFFF


def _vec4(rng):
    return [random_value(rng) for _ in range(4)]


# --- the generator ---------------------------------------------------------------------------

#: the random loops' INT_CONSTs; the others are left for the planted errors' loops
_LOOP_INT_CONSTS = 22


@dataclass(frozen=True)
class _Context:
    """Where a statement is generated: the values aL can have there, how many more loops and IFs
    may open, whether a loop is open (BREAK/CONTINUE allowed), the functions it may call."""
    al: frozenset = frozenset({0})
    loops: int = 2
    ifs: int = 3
    in_loop: bool = False
    callees: tuple = ()
    nested: bool = False


@dataclass
class _Data:
    """A job's data besides the program."""
    temporaries: int
    work: list                  # temporaries the program reads and writes
    kill: int                   # TEXKILL's usual source (mostly positive values, some -0)
    split: int                  # per-lane signs that differ (a planted counter overflow)
    constants: dict = field(default_factory=dict)
    int_consts: dict = field(default_factory=dict)
    samplers: dict = field(default_factory=dict)
    texture: list = field(default_factory=list)
    bools: int = 0


class _Generator:
    def __init__(self, rng, temporaries):
        self.rng = rng
        self.insts = []         # words of the non-FC instructions; Alu(id) names one
        self.last_ok = True     # LAST may be set on instructions inside blocks
        self.call_al = {}       # function -> aL values at its call sites
        self.data = self._data(temporaries)

    # --- data ----------------------------------------------------------------------------------

    def _data(self, temporaries):
        rng = self.rng
        picks = rng.sample(range(temporaries), min(temporaries, rng.randint(8, 14)))
        data = _Data(temporaries, sorted(picks[2:]), picks[0], picks[1])
        data.bools = rng.getrandbits(32)
        pool = sorted(rng.sample(range(256), rng.randint(6, 14)))
        data.constants = {i: _vec4(rng) for i in pool}
        for _ in range(rng.randint(1, 3)):
            width, height = 1 << rng.randint(0, 3), 1 << rng.randint(0, 3)
            base = len(data.texture) + rng.randint(0, 4)
            data.texture += [self._texel_word() for _ in range(base - len(data.texture))]
            data.texture += [self._texel_word() for _ in range(TEXEL_WORDS * width * height)]
            data.samplers[rng.choice([i for i in range(16) if i not in data.samplers])] = \
                Sampler(base, width, height, rng.choice(FILTERS), rng.choice(WRAPS))
        return data

    def _texel_word(self):
        """Q14.17: mostly 8-bit colours (k << 9), sometimes any word."""
        if self.rng.random() < 0.8:
            return self.rng.randrange(256) << 9
        return self.rng.getrandbits(32)

    def lanes(self):
        """Four lanes: the working temporaries edge-heavy and different per lane (sometimes one
        value for all), TEXKILL's source mostly positive with -0 and negatives here and there,
        at least one lane covered."""
        rng, data = self.rng, self.data
        temps = [{} for _ in range(LANES)]
        for index in data.work:
            shared = _vec4(rng) if rng.random() < 0.2 else None
            for lane in temps:
                lane[index] = list(shared) if shared else _vec4(rng)
        for lane in temps:
            kill = [fp32.from_float(rng.uniform(0, 2)) for _ in range(4)]
            bad = rng.random()
            if bad < 0.5:
                kill[rng.randrange(4)] = rng.choice((fp32.NEG_ZERO, 0x8000_0001)) \
                    if bad < 0.3 else rng.choice((fp32.from_float(-1.5), 0xFFC0_0000))
            lane[data.kill] = kill
        signs = rng.choice([s for s in range(1, 15)])      # neither all + nor all -
        for i, lane in enumerate(temps):
            lane[data.split] = [fp32.ONE | (signs >> i & 1) << 31] * 4
        covered = [True] * LANES
        if rng.random() < 0.2:
            mask = rng.randrange(1, 15)
            covered = [bool(mask >> i & 1) for i in range(LANES)]
        return [LaneInput(t, c) for t, c in zip(temps, covered)]

    def new_int_const(self, count, below=32):
        """A free INT_CONST index below ``below`` set to ``count`` iterations, a random initial
        aL and step; an index in use (whatever its count) when none is free."""
        rng = self.rng
        free = [i for i in range(below) if i not in self.data.int_consts]
        if not free:
            return rng.choice(sorted(i for i in self.data.int_consts if i < below))
        index = rng.choice(free)
        self.data.int_consts[index] = int_const(count, rng.randrange(256), rng.randint(-12, 12))
        return index

    # --- operands ------------------------------------------------------------------------------

    def temp(self, ctx, rel_rate=0.3, avoid=()):
        """(address, REL) of a working temporary; with REL only where every aL of the context
        keeps the address inside the build's temporaries."""
        rng, count = self.rng, self.data.temporaries
        target = rng.choice([t for t in self.data.work if t not in avoid] or self.data.work)
        if rng.random() < rel_rate:
            addr = (target - rng.choice(sorted(ctx.al))) % R500_TEMPS
            if all((addr + a) % R500_TEMPS < count for a in ctx.al):
                return addr, 1
        return target, 0

    def source(self, ctx):
        """US_ALU_ADDR fields of one slot: a temporary, a constant (REL adds aL mod 256) or an
        inline constant (whose REL bit does nothing)."""
        rng = self.rng
        roll = rng.random()
        if roll < 0.55:
            addr, rel = self.temp(ctx)
            return {"ADDR": addr, "CONST": 0, "REL": rel}
        if roll < 0.8:
            target = rng.choice(sorted(self.data.constants)) if rng.random() < 0.85 \
                else rng.randrange(256)
            rel = int(rng.random() < 0.3)
            addr = (target - rng.choice(sorted(ctx.al))) % 256 if rel else target
            return {"ADDR": addr, "CONST": 1, "REL": rel}
        return {"ADDR": 0x80 | rng.randrange(128), "CONST": 0, "REL": int(rng.random() < 0.1)}

    def addr_fields(self, ctx):
        fields = {"SRCP_OP": self.rng.randrange(4)}
        for n in range(3):
            for key, value in self.source(ctx).items():
                fields[f"ADDR{n}" if key == "ADDR" else f"ADDR{n}_{key}"] = value
        return fields

    def swizzle(self):
        return self.rng.randrange(4) if self.rng.random() < 0.75 else self.rng.randrange(8)

    def mod(self):
        return self.rng.choice((Mod.NOP, Mod.NOP, Mod.NEG, Mod.ABS, Mod.NAB))

    def omod(self):
        return self.rng.choice((Omod.MUL1, Omod.MUL1, Omod.MUL1, Omod.DISABLE) + tuple(Omod))

    def pred_sel(self):
        return self.rng.choice((PredSel.NONE,) * 6 + tuple(PredSel))

    # --- instructions --------------------------------------------------------------------------

    def cmn(self, ctx, **fields):
        """US_CMN_INST fields every non-FC type shares: predication, WRITE_INACTIVE, clamps, the
        hints (which change nothing), LAST now and then inside blocks."""
        rng = self.rng
        cmn = {"RGB_PRED_SEL": self.pred_sel(), "RGB_PRED_INV": rng.getrandbits(1),
               "ALPHA_PRED_SEL": self.pred_sel(), "ALPHA_PRED_INV": rng.getrandbits(1),
               "WRITE_INACTIVE": int(rng.random() < 0.1),
               "RGB_CLAMP": int(rng.random() < 0.3), "ALPHA_CLAMP": int(rng.random() < 0.3),
               "RGB_WMASK": rng.randrange(8), "ALPHA_WMASK": int(rng.random() < 0.7),
               "TEX_SEM_WAIT": int(rng.random() < 0.1), "NOP": int(rng.random() < 0.1),
               "ALU_WAIT": int(rng.random() < 0.1),
               "STAT_WE": rng.randrange(16) if rng.random() < 0.1 else 0,
               "LAST": int(self.last_ok and ctx.nested and rng.random() < 0.03)}
        cmn.update(fields)
        return cmn

    def ops(self):
        rng = self.rng
        rgb = rng.choice(list(RgbOp))
        if rgb == RgbOp.DP4 or rgb == RgbOp.DP3 and rng.random() < 0.5:
            return rgb, AlphaOp.DP
        return rgb, rng.choice([op for op in AlphaOp if op != AlphaOp.DP])

    def alu_fields(self, ctx, out=None):
        """The six words' fields of a random ALU or OUT instruction."""
        rng = self.rng
        out = rng.random() < 0.3 if out is None else out
        rgb_op, alpha_op = self.ops()
        cmn = self.cmn(ctx, TYPE=InstType.OUT if out else InstType.ALU,
                       RGB_OMASK=rng.randrange(8) if out or rng.random() < 0.3 else 0,
                       ALPHA_OMASK=int(rng.random() < (0.6 if out else 0.3)),
                       ALU_RESULT_SEL=rng.randrange(2), ALU_RESULT_OP=rng.randrange(4))
        rgb = {"OMOD": self.omod(), "TARGET": rng.randrange(4),
               "ALU_WMASK": int(rng.random() < 0.25)}
        alpha = {"ALPHA_OP": alpha_op, "OMOD": self.omod(), "TARGET": rng.randrange(4),
                 "W_OMASK": int(rng.random() < 0.2)}
        rgba = {"RGB_OP": rgb_op}
        for x, fields in (("A", rgb), ("B", rgb), ("C", rgba)):
            fields[f"RGB_SEL_{x}"] = rng.randrange(4)
            fields[f"RGB_MOD_{x}"] = self.mod()
            for channel in ("RED", "GREEN", "BLUE"):
                fields[f"{channel}_SWIZ_{x}"] = self.swizzle()
        for x, fields in (("A", alpha), ("B", alpha), ("C", rgba)):
            fields[f"ALPHA_SEL_{x}"] = rng.randrange(4)
            fields[f"ALPHA_SWIZ_{x}"] = self.swizzle()
            fields[f"ALPHA_MOD_{x}"] = self.mod()
        rgba["RGB_ADDRD"], rgba["RGB_ADDRD_REL"] = self.temp(ctx, 0.2, avoid=(self.data.kill,))
        alpha["ALPHA_ADDRD"], alpha["ALPHA_ADDRD_REL"] = self.temp(ctx, 0.2,
                                                                   avoid=(self.data.kill,))
        return [cmn, self.addr_fields(ctx), self.addr_fields(ctx), rgb, alpha, rgba]

    def alu(self, ctx, out=None):
        return self.store(alu_words(*self.alu_fields(ctx, out)))

    def store(self, words):
        self.insts.append(words)
        return Alu(len(self.insts) - 1)

    def condition(self, ctx, source):
        """An ALU instruction that sets alu_result ("alu") or predicate bits ("pred") from lane
        data: slot 0 a working temporary, the RGB unit's A reading it."""
        rng = self.rng
        fields = self.alu_fields(ctx, out=False if source == "pred" else None)
        cmn, rgb_addr, _, rgb, alpha, rgba = fields
        rgb_addr.update(ADDR0=self.temp(ctx, rel_rate=0)[0], ADDR0_CONST=0, ADDR0_REL=0)
        rgb.update(RGB_SEL_A=Sel.SRC0, RED_SWIZ_A=rng.randrange(4))
        if source == "alu":
            rgb["ALU_WMASK"] = 1
        else:
            cmn.update(RGB_OMASK=rng.randrange(1, 8), ALPHA_OMASK=rng.getrandbits(1))
        return self.store(alu_words(*fields))

    def tex(self, ctx, op=None, tex_id=None):
        rng = self.rng
        op = op if op is not None else rng.choice(
            (TexOp.LD, TexOp.LD, TexOp.PROJ, TexOp.LODBIAS, TexOp.LOD, TexOp.DXDY, TexOp.NOP))
        if tex_id is None:
            tex_id = rng.choice(sorted(self.data.samplers))
        src, src_rel = self.temp(ctx, 0.2)
        dst, dst_rel = self.temp(ctx, 0.2, avoid=(self.data.kill,))
        tex_addr = {"SRC_ADDR": src, "SRC_ADDR_REL": src_rel, "DST_ADDR": dst,
                    "DST_ADDR_REL": dst_rel}
        for x in "STRQ":
            tex_addr[f"SRC_{x}_SWIZ"] = rng.randrange(4)
        for x in "RGBA":
            tex_addr[f"DST_{x}_SWIZ"] = rng.randrange(4)
        tex = {"TEX_ID": tex_id, "INST": op, "UNSCALED": int(rng.random() < 0.3),
               "IGNORE_UNCOVERED": rng.getrandbits(1), "TEX_SEM_ACQUIRE": rng.getrandbits(1)}
        return [self.cmn(ctx), tex, tex_addr, US_TEX_ADDR_DXDY.unpack(rng.getrandbits(32))]

    def texkill(self, ctx):
        """TEXKILL, mostly of the kill temporary (any sampler id: it needs none)."""
        rng = self.rng
        cmn, tex, tex_addr, dxdy = self.tex(ctx, TexOp.TEXKILL, rng.randrange(16))
        if rng.random() < 0.8:
            tex_addr.update(SRC_ADDR=self.data.kill, SRC_ADDR_REL=0)
        return self.store(tex_words(cmn, tex, tex_addr, dxdy))

    def instruction(self, ctx):
        roll = self.rng.random()
        if roll < 0.72:
            return self.alu(ctx)
        if roll < 0.93:
            return self.store(tex_words(*self.tex(ctx)))
        return self.texkill(ctx)

    # --- structure -----------------------------------------------------------------------------

    def cond(self, ctx):
        """(nodes that set the condition, Cond)."""
        rng = self.rng
        roll = rng.random()
        inv = rng.random() < 0.3
        if roll < 0.5:
            return [self.condition(ctx, "alu")], Cond("alu", inv)
        if roll < 0.9:
            sel = rng.choice((PredSel.RGBA, PredSel.RRRR, PredSel.GGGG, PredSel.BBBB,
                              PredSel.AAAA, PredSel.RGBA, PredSel.NONE))
            return [self.condition(ctx, "pred")], Cond("pred", inv, sel)
        return [], Cond("bool", inv, bool_addr=rng.randrange(32))

    def block(self, ctx, size):
        rng = self.rng
        nodes = []
        for _ in range(size):
            roll = rng.random()
            inner = _Context(ctx.al, ctx.loops, ctx.ifs - 1, ctx.in_loop, ctx.callees, True)
            if roll < 0.5:
                nodes.append(self.instruction(ctx))
            elif roll < 0.66 and ctx.ifs > 0:
                setup, cond = self.cond(ctx)
                then = self.block(inner, rng.randint(1, 3))
                else_ = self.block(inner, rng.randint(1, 3)) if rng.random() < 0.5 else None
                nodes += setup + [If(cond, then, else_)]
            elif roll < 0.78 and ctx.loops > 0:
                nodes.append(self.loop(ctx))
            elif roll < 0.88 and ctx.in_loop:
                nodes += self.leave(ctx, inner)
            elif roll < 0.94 and ctx.ifs > 0:
                nodes += self.jump(ctx, inner)
            elif ctx.callees:
                name = rng.choice(ctx.callees)
                self.call_al[name] = self.call_al.get(name, frozenset()) | ctx.al
                nodes.append(Call(name))
            else:
                nodes.append(self.instruction(ctx))
        return nodes

    def loop(self, ctx):
        rng = self.rng
        rep = rng.random() < 0.45
        count = rng.choice((0, 1, 2, 3, 3, 4))
        index = self.new_int_const(count, below=_LOOP_INT_CONSTS)
        k = US_INT_CONST.unpack(self.data.int_consts[index])
        if rep:
            al = ctx.al
        else:       # aL in iteration i (a LOOP of count 0 pushes KG and runs nothing)
            al = frozenset((k["KG"] + i * sext8(k["KB"])) & 0xFF for i in range(max(k["KR"], 1)))
        inner = _Context(al, ctx.loops - 1, ctx.ifs, True, ctx.callees, True)
        return Loop(index, self.block(inner, rng.randint(1, 4)), rep)

    def leave(self, ctx, inner):
        """BREAK or CONTINUE: conditional through JUMP_FUNC, or unconditional inside an IF."""
        rng = self.rng
        kind = Break if rng.random() < 0.5 else Continue
        setup, cond = self.cond(ctx)
        if rng.random() < 0.5 or ctx.ifs <= 0:
            return setup + [kind(cond)]
        return setup + [If(cond, self.block(inner, rng.randint(0, 1)) + [kind()])]

    def jump(self, ctx, inner):
        """A plain conditional JUMP over a block (ANY or ALL of the voters), any JUMP_FUNC."""
        rng = self.rng
        setup, cond = self.cond(ctx)
        jump_func = cond.jump_func(True) if rng.random() < 0.6 else rng.randrange(256)
        return setup + [Jump(self.block(inner, rng.randint(1, 3)), jump_func,
                             rng.random() < 0.5, cond.fc_fields(), cond.bool_addr,
                             rng.random() < 0.5)]

    def program(self):
        """main and up to two functions (f0 may call f1); loops and IFs nest a little."""
        rng = self.rng
        names = [f"f{i}" for i in range(rng.choice((0, 0, 1, 1, 2)))]
        main = self.block(_Context(loops=2, ifs=3, callees=tuple(names)), rng.randint(5, 12))
        functions = {}
        for i, name in enumerate(names):
            ctx = _Context(self.call_al.get(name, frozenset({0})), loops=1, ifs=2,
                           callees=tuple(names[i + 1:]), nested=True)
            functions[name] = self.block(ctx, rng.randint(1, 4))
        return main, functions


# --- how many instructions a program can execute ---------------------------------------------

def _bound(nodes, functions, int_consts):
    """An upper bound on the instructions ``nodes`` execute (loops at their counts)."""
    total = 0
    for node in nodes:
        if isinstance(node, If):
            total += 2 + _bound(node.then, functions, int_consts)
            if node.else_ is not None:
                total += 1 + _bound(node.else_, functions, int_consts)
        elif isinstance(node, Loop):
            count = int_consts.get(node.int_addr, 0) & 0xFF
            total += 2 + max(count, 1) * (1 + _bound(node.body, functions, int_consts))
        elif isinstance(node, Jump):
            total += 1 + _bound(node.body, functions, int_consts)
        elif isinstance(node, Call):
            total += 2 + _bound(functions[node.func], functions, int_consts)
        else:
            total += 1
    return total


# --- planted errors --------------------------------------------------------------------------

def _error_kinds(temporaries):
    """The errors a job with this many temporaries can plant (no address reaches past 128)."""
    return tuple(k for k in ERROR_KINDS
                 if k != QuadErrorCode.BAD_TEMPORARY or temporaries < R500_TEMPS)


class _Planter:
    """Statements that stop the quad with one error of §4.3 (at the top level of main, where
    they surely execute; ``first`` when they need the lanes as they start)."""

    def __init__(self, gen):
        self.gen, self.rng = gen, gen.rng
        self.functions = {}         # functions the planted statements call
        self.first = False          # the statements must come first in main

    def plant(self, kind):
        """The statements of error ``kind`` (each kind's method is named after it)."""
        return getattr(self, kind.name.lower())(_Context())

    def illegal_instruction(self, ctx):
        gen, rng = self.gen, self.rng
        choice = rng.randrange(9)
        if choice < 6:
            cmn, rgb_addr, alpha_addr, rgb, alpha, rgba = gen.alu_fields(ctx)
            if choice == 0:
                rgba["RGB_OP"] = rng.choice((6, 13, 14, 15))
            elif choice == 1:
                alpha["ALPHA_OP"] = 4
            elif choice == 2:
                rgba["RGB_OP"], alpha["ALPHA_OP"] = RgbOp.MAD, AlphaOp.DP
            elif choice == 3:
                rgba["RGB_OP"], alpha["ALPHA_OP"] = RgbOp.DP4, AlphaOp.MAD
            else:
                cmn["RGB_PRED_SEL" if choice == 4 else "ALPHA_PRED_SEL"] = rng.choice((6, 7))
            return [gen.store(alu_words(cmn, rgb_addr, alpha_addr, rgb, alpha, rgba))]
        if choice == 6:
            cmn, tex, tex_addr, dxdy = gen.tex(ctx)
            if rng.random() < 0.5:
                tex["INST"] = 7
            else:
                cmn[rng.choice(("RGB_PRED_SEL", "ALPHA_PRED_SEL"))] = rng.choice((6, 7))
            return [gen.store(tex_words(cmn, tex, tex_addr, dxdy))]
        if choice == 7:
            return [Fc(fc_jump(0, JumpFunc.NEVER), (rng.choice((6, 7)), 0), "illegal")]
        field_name = rng.choice(("A_OP", "B_OP0", "B_OP1"))
        word = fc_inst(FcOpcode.JUMP, JumpFunc.NEVER) | US_FC_INST.pack(**{field_name: 3})
        return [Fc((word, FcAddr(0)), note="illegal")]

    def bad_temporary(self, ctx):
        gen, rng = self.gen, self.rng
        bad = rng.randrange(gen.data.temporaries, R500_TEMPS)
        if rng.random() < 0.3:
            cmn, tex, tex_addr, dxdy = gen.tex(ctx, rng.choice((TexOp.LD, TexOp.TEXKILL,
                                                                 TexOp.NOP)))
            tex_addr[rng.choice(("SRC_ADDR", "DST_ADDR"))] = bad
            return [gen.store(tex_words(cmn, tex, tex_addr, dxdy))]
        cmn, rgb_addr, alpha_addr, rgb, alpha, rgba = gen.alu_fields(ctx)
        where = rng.randrange(4)
        if where < 3:       # a slot that may not even be read
            rng.choice((rgb_addr, alpha_addr)).update(
                {f"ADDR{where}": bad, f"ADDR{where}_CONST": 0})
        elif rng.random() < 0.5:
            rgba["RGB_ADDRD"] = bad
        else:
            alpha["ALPHA_ADDRD"] = bad
        return [gen.store(alu_words(cmn, rgb_addr, alpha_addr, rgb, alpha, rgba))]

    def sampler_not_set_up(self, ctx):
        gen, rng = self.gen, self.rng
        data = gen.data
        tex_id = rng.choice([i for i in range(16) if i not in data.samplers])
        broken = rng.randrange(5)
        if broken:
            data.samplers[tex_id] = [
                None, Sampler(0, 3, 1), Sampler(0, 1, 0),
                Sampler(len(data.texture), 1, 1), Sampler(0, 1, 1, "trilinear")][broken]
        op = rng.choice((TexOp.LD, TexOp.PROJ, TexOp.LODBIAS, TexOp.LOD, TexOp.DXDY))
        return [gen.store(tex_words(*gen.tex(ctx, op, tex_id)))]

    def pc_outside(self, ctx):
        """A JUMP whose target ``_layout`` chooses outside the program."""
        return [Fc(fc_jump(0, JumpFunc.ALWAYS), note="outside")]

    def instruction_limit(self, ctx):
        return []                   # max_instructions is set once the program has run

    def addr_overflow(self, ctx):
        self.functions["recurse"] = [self.gen.alu(ctx), Call("recurse")]
        return [Call("recurse")]

    def addr_underflow(self, ctx):
        return [Fc(fc_ret(), note="RET outside a call")]

    def loop_overflow(self, ctx):
        self.first = True
        body = [self.gen.alu(ctx)]
        for _ in range(9):
            body = [Loop(self.gen.new_int_const(1), body, self.rng.random() < 0.5)]
        return body

    def loop_underflow(self, ctx):
        built = self.rng.choice((fc_endloop(0, 0), fc_endrep(0, 0), fc_break(0, 0),
                                 fc_break(0, 0, rep=True), fc_continue(0, 0)))
        return [Fc(built, note="outside any loop")]

    def counter_overflow(self, ctx):
        """IF on lane signs that differ, then in both branches 64 JUMPs that INCR the inactive
        lanes' counters."""
        gen = self.gen
        self.first = True
        cmn, rgb_addr, alpha_addr, rgb, alpha, rgba = gen.alu_fields(ctx, out=False)
        rgb_addr.update(ADDR0=gen.data.split, ADDR0_CONST=0, ADDR0_REL=0)
        rgb.update(RGB_SEL_A=Sel.SRC0, RED_SWIZ_A=0, RGB_MOD_A=Mod.NOP, RED_SWIZ_B=6,
                   RGB_SEL_B=Sel.SRC0, RGB_MOD_B=Mod.NOP, OMOD=Omod.MUL1, ALU_WMASK=1)
        rgba.update(RGB_OP=RgbOp.MAD, RED_SWIZ_C=4, RGB_MOD_C=Mod.NOP)
        alpha["ALPHA_OP"] = AlphaOp.MAD
        cmn.update(RGB_CLAMP=0, ALU_RESULT_SEL=AluResultSel.RED, ALU_RESULT_OP=Compare.GE)
        setup = gen.store(alu_words(cmn, rgb_addr, alpha_addr, rgb, alpha, rgba))
        incr = Fc((fc_inst(FcOpcode.JUMP, JumpFunc.NEVER, b_op0=BranchOp.INCR), FcAddr(0)),
                  note="INCR")

        def count_up():
            return [Loop(gen.new_int_const(70), [incr], rep=True)]
        return [setup, If(Cond("alu"), count_up(), count_up())]


# --- layout ------------------------------------------------------------------------------------

def _junk(rng):
    """An instruction that never executes (before the start, past the end): any words."""
    return [rng.getrandbits(32) for _ in range(6)]


def _fc_cmn(rng, op):
    """inst0 of an FC instruction: its predicate select, hints, ALPHA_PRED_SEL (which FC
    ignores); a random RGB_PRED_SEL where the JUMP_FUNC does not read the predicate."""
    f = US_FC_INST.unpack(op.inst)
    jump_func = f["JUMP_FUNC"]
    reads_p = any((jump_func >> i & 1) != (jump_func >> (i ^ 2) & 1) for i in range(8))
    pred_sel, pred_inv = op.pred_sel, op.pred_inv
    if not reads_p and not pred_sel and rng.random() < 0.3:
        pred_sel, pred_inv = rng.randrange(6), rng.getrandbits(1)
    return {"RGB_PRED_SEL": pred_sel, "RGB_PRED_INV": pred_inv,
            "ALPHA_PRED_SEL": rng.randrange(8) if rng.random() < 0.2 else 0,
            "ALU_WAIT": int(rng.random() < 0.8), "TEX_SEM_WAIT": int(rng.random() < 0.1),
            "NOP": int(rng.random() < 0.05)}


def _layout(gen, main, functions, planter):
    """The program's words, start and end: junk, then main, a JUMP past the functions (if any)
    to the last instruction, the functions, the last instruction (END_ADDR), junk. With
    functions, main's last instruction sometimes has LAST (the quad then ends there when every
    unkilled lane is ACTIVE)."""
    rng = gen.rng
    start = rng.choice((0, 0, rng.randint(1, 6)))
    relative = rng.random() < 0.7
    last = gen.alu(_Context(), out=True)
    all_functions = {**functions, **planter.functions}
    program = Program(main, all_functions)
    flat = compile_program(program, base=start, relative=relative)
    code = list(flat.code)
    placeholder = flat.end - start
    end = start + len(code) if all_functions else flat.end
    if all_functions:           # jump over the functions to the last instruction
        target = end - start if relative else end
        built = fc_jump(target, JumpFunc.ALWAYS)
        if relative:
            built = (built[0], built[1]._replace(jump_global=0))
        code[placeholder] = FcOp(*built, note="past the functions")
        code.append(AluOp(last.id))
        if gen.last_ok and main and isinstance(main[-1], Alu) and rng.random() < 0.5:
            gen.insts[main[-1].id][0] |= US_CMN_INST.pack(LAST=1)
    else:
        code[placeholder] = AluOp(last.id)
    words = []
    for _ in range(start):
        words += _junk(rng)
    for op in code:
        if isinstance(op, AluOp):
            words += gen.insts[op.id]
            continue
        built = (op.inst, op.addr)
        if op.note == "outside":
            outside = [a for a in range(R500_MAX_INSTRUCTIONS) if not start <= a <= end]
            target = rng.choice(outside)
            built = (op.inst, FcAddr(target, jump_global=1))
        words += fc_words(built, **_fc_cmn(rng, op))
    for _ in range(rng.randint(0, 2)):
        words += _junk(rng)
    return words, start, end


# --- jobs ----------------------------------------------------------------------------------------

def _planned_error(seed_or_rng, rng, temporaries):
    kinds = _error_kinds(temporaries)
    if isinstance(seed_or_rng, random.Random):
        return rng.choice(kinds) if rng.random() < 1 / ERROR_EVERY else None
    if seed_or_rng % ERROR_EVERY == ERROR_EVERY - 1:
        return kinds[seed_or_rng // ERROR_EVERY % len(kinds)]
    return None


def random_job(seed_or_rng, *, temporaries=R500_TEMPS, error="seeded"):
    """A random job (``sim.r500.job.Job``) for a core of ``temporaries`` temporaries (4 … 128).

    ``seed_or_rng``: an int seed (the same seed, the same job) or a ``random.Random`` to draw
    from. ``error``: ``"seeded"`` plants an error of §4.3 in one job in ``ERROR_EVERY`` (with an
    int seed, in the seeds ``ERROR_EVERY - 1`` mod ``ERROR_EVERY``, going through
    ``ERROR_KINDS`` in turn; "bad temporary address" needs fewer than 128 temporaries), a
    ``QuadErrorCode`` plants that one, None none. A job without a planted error runs to its end.
    """
    if not 4 <= temporaries <= R500_TEMPS:
        raise ValueError(f"temporaries must be 4 to {R500_TEMPS}")
    rng = seed_or_rng if isinstance(seed_or_rng, random.Random) else random.Random(seed_or_rng)
    kind = _planned_error(seed_or_rng, rng, temporaries) if error == "seeded" else error
    if kind is not None and kind not in _error_kinds(temporaries):
        raise ValueError(f"cannot plant {kind} with {temporaries} temporaries")
    while True:
        gen = _Generator(rng, temporaries)
        gen.last_ok = kind is None          # a planted error must not be cut short by LAST
        main, functions = gen.program()
        if _bound(main, functions, gen.data.int_consts) <= MAX_EXECUTED:
            break
    planter = _Planter(gen)
    if kind is not None:
        planted = planter.plant(kind)
        at = 0 if planter.first else rng.randint(0, len(main))
        main[at:at] = planted
    words, start, end = _layout(gen, main, functions, planter)
    data = gen.data
    job = Job(words, start, end, data.constants, data.bools, data.int_consts,
              data.samplers, data.texture, gen.lanes(), temporaries=temporaries)
    if kind == QuadErrorCode.INSTRUCTION_LIMIT:
        job.max_instructions = rng.randrange(job.run().instructions)
    elif kind is None and rng.random() < 0.05:
        job.max_instructions = job.run().instructions       # exactly enough: no error
    return job
