"""Which features a set of R500 jobs exercises: each job runs on the model instruction by
instruction (``trace``) and the features of what executed are counted (``coverage``), e.g.
every opcode, modifier and swizzle, each flow-control construct executed with diverging lanes,
REL addresses executed with several values of aL, TEXKILL killing a lane by −0, each error of
§4.3. ``FEATURES`` lists what a good set of random jobs (``sim.r500.random_program``) covers.
"""

from collections import Counter

from hdl.isa import (US_FC_INST, InstType, FcOp as FcOpcode, AddrOp, BranchOp, PredSel, RgbOp,
                     AlphaOp, TexOp, Mod, Sel, Compare, AluResultSel, LaneState, R500_TEMPS)
from sim.fc_model import FcAddr
from sim.r500 import fp32
from sim.r500.decode import decode
from sim.r500.errors import QuadError, QuadErrorCode
from sim.r500.operands import resolve_sources
from sim.r500.quad import LANES
from sim.r500.tex import FILTERS, WRAPS, would_kill

__all__ = ["FEATURES", "trace", "coverage"]

_FETCHES = (TexOp.LD, TexOp.PROJ, TexOp.LODBIAS, TexOp.LOD, TexOp.DXDY)
_FC_CONSTRUCTS = ("IF", "IF without ELSE", "ELSE", "ENDIF", "LOOP", "ENDLOOP", "REP", "ENDREP",
                  "BREAKLOOP", "BREAKREP", "CONTINUE", "CALL", "RET", "JUMP_ANY", "JUMP_ALL")
_VALUE_CLASSES = ("+0", "-0", "subnormal", "+inf", "-inf", "+NaN", "-NaN")
_REL_KINDS = ("temp", "const", "dest", "tex")


def _pred_names(unit):
    return ([f"{unit}_pred:{s.name}" for s in PredSel]
            + [f"{unit}_pred:{s.name}/inv" for s in PredSel if s != PredSel.NONE])


#: what a good set of random jobs exercises (``coverage`` counts these and a few more)
FEATURES = tuple(
    [f"rgb:{op.name}" for op in RgbOp] + [f"alpha:{op.name}" for op in AlphaOp]
    + [f"mod:{m.name}" for m in Mod] + [f"swizzle:{code}" for code in range(8)]
    + [f"srcp:{code}" for code in range(4)] + [f"omod:{code}" for code in range(8)]
    + ["clamp:rgb", "clamp:alpha"] + _pred_names("rgb") + _pred_names("alpha")
    + [f"pred_update:{c.name}" for c in Compare]
    + [f"alu_result:{s.name}:{c.name}" for s in AluResultSel for c in Compare]
    + [f"out:target{t}" for t in range(4)] + ["out:w", "write_inactive", "inline constant"]
    + [f"rel:{kind}:aL varies" for kind in _REL_KINDS]
    + [f"fc:{c}:diverged" for c in _FC_CONSTRUCTS] + ["fc:IF nested", "ignore_uncovered"]
    + ["last:ended", "last:not ended"]
    + [f"tex:{op.name}" for op in _FETCHES + (TexOp.TEXKILL,)]
    + [f"tex:{name}" for name in FILTERS + WRAPS + ("unscaled",)]
    + ["texkill:killed", "texkill:-0"]
    + [f"value:{c}" for c in _VALUE_CLASSES]
    + [f"error:{kind.name}" for kind in QuadErrorCode])


def _value_class(word):
    if fp32.is_nan(word):
        return "-NaN" if fp32.sign(word) else "+NaN"
    if fp32.is_inf(word):
        return "-inf" if fp32.sign(word) else "+inf"
    if word & fp32.MAGNITUDE == 0:
        return "-0" if word else "+0"
    if word & fp32.EXPONENT == 0:
        return "subnormal"
    return None


def _fc_construct(inst_word):
    f = US_FC_INST.unpack(inst_word)
    op = f["OP"]
    if op != FcOpcode.JUMP:
        return FcOpcode(op).name
    if f["A_OP"] == AddrOp.PUSH:
        return "CALL"
    if f["A_OP"] == AddrOp.POP:
        return "RET"
    if f["B_ELSE"]:
        return "ELSE"
    if f["B_OP0"] == BranchOp.DECR:
        return "ENDIF"
    if f["B_OP0"] == BranchOp.INCR:
        return "IF" if f["B_OP1"] == BranchOp.INCR else "IF without ELSE"
    return "JUMP_ANY" if f["JUMP_ANY"] else "JUMP_ALL"


class _Trace:
    """The features of one job's run, instruction by instruction."""

    def __init__(self, job):
        self.job = job
        self.features = Counter()
        self.rel_al = {}            # (pc, kind) -> the aL values it executed with

    def run(self):
        quad = self.job.quad()
        quad.reset(self.job.lanes)
        error = None
        try:
            while True:
                pc = quad.fc.pc
                try:
                    inst = decode(quad.code[pc])
                except QuadError:
                    inst = None             # step() raises it with the PC
                before = self.before(quad, inst) if inst is not None else None
                done = quad.step()
                if inst is not None:
                    self.after(quad, pc, inst, before, done)
                if done:
                    break
        except QuadError as e:
            error = e
            self.features[f"error:{e.code.name}"] += 1
        for (_, kind), values in self.rel_al.items():
            if len(values) > 1:
                self.features[f"rel:{kind}:aL varies"] += 1
        return quad.result(error)

    def rel(self, pc, kind, aL):
        self.rel_al.setdefault((pc, kind), set()).add(aL)

    def before(self, quad, inst):
        fc = quad.fc
        moving = [bool(fc.active_mask() >> i & 1) for i in range(LANES)]
        states = {fc.lane[i].state for i in range(LANES) if not fc.killed[i]}
        if inst.type == InstType.FC:
            self.flow(quad, inst, moving, states)
        else:
            self.common(inst.cmn, moving)
            if inst.type == InstType.TEX:
                self.texture(quad, inst)
            else:
                self.alu(quad, inst)
        return list(fc.killed)

    def common(self, cmn, moving):
        add = self.features.update
        for unit in ("RGB", "ALPHA"):
            sel, inv = cmn[f"{unit}_PRED_SEL"], cmn[f"{unit}_PRED_INV"]
            name = f"{unit.lower()}_pred:{PredSel(sel).name}"
            add([name + ("/inv" if inv and sel else "")])
        if cmn["RGB_CLAMP"]:
            add(["clamp:rgb"])
        if cmn["ALPHA_CLAMP"]:
            add(["clamp:alpha"])
        if cmn["WRITE_INACTIVE"] and not all(moving):
            add(["write_inactive"])

    def alu(self, quad, inst):
        add = self.features.update
        cmn, rgb, alpha, rgba = inst.cmn, inst.rgb, inst.alpha, inst.rgba
        add([f"rgb:{RgbOp(rgba['RGB_OP']).name}", f"alpha:{AlphaOp(alpha['ALPHA_OP']).name}",
             f"omod:{rgb['OMOD']}", f"omod:{alpha['OMOD']}"])
        inputs = (rgb, rgb, rgba)
        for x, fields in zip("ABC", inputs):
            add([f"mod:{Mod(fields[f'RGB_MOD_{x}']).name}"]
                + [f"swizzle:{fields[f'{ch}_SWIZ_{x}']}" for ch in ("RED", "GREEN", "BLUE")])
        for x, fields in zip("ABC", (alpha, alpha, rgba)):
            add([f"mod:{Mod(fields[f'ALPHA_MOD_{x}']).name}",
                 f"swizzle:{fields[f'ALPHA_SWIZ_{x}']}"])
        if any(f[f"RGB_SEL_{x}"] == Sel.SRCP for x, f in zip("ABC", inputs)):
            add([f"srcp:{inst.rgb_addr['SRCP_OP']}"])
        if any(f[f"ALPHA_SEL_{x}"] == Sel.SRCP for x, f in zip("ABC", (alpha, alpha, rgba))):
            add([f"srcp:{inst.alpha_addr['SRCP_OP']}"])
        out = inst.type == InstType.OUT
        for unit, omask, fields in (("RGB", cmn["RGB_OMASK"], rgb),
                                    ("ALPHA", cmn["ALPHA_OMASK"], alpha)):
            if omask:
                add([f"out:target{fields['TARGET']}" if out
                     else f"pred_update:{Compare(fields['TARGET']).name}"])
        if out and alpha["W_OMASK"]:
            add(["out:w"])
        if rgb["ALU_WMASK"]:
            add([f"alu_result:{AluResultSel(cmn['ALU_RESULT_SEL']).name}:"
                 f"{Compare(cmn['ALU_RESULT_OP']).name}"])
        aL, pc = quad.fc.aL, quad.fc.pc
        for addr in (inst.rgb_addr, inst.alpha_addr):
            for n in range(3):
                inline = not addr[f"ADDR{n}_CONST"] and addr[f"ADDR{n}"] & 0x80
                if inline:
                    add(["inline constant"])
                elif addr[f"ADDR{n}_REL"]:
                    self.rel(pc, "const" if addr[f"ADDR{n}_CONST"] else "temp", aL)
        if rgba["RGB_ADDRD_REL"] or alpha["ALPHA_ADDRD_REL"]:
            self.rel(pc, "dest", aL)
        try:
            sources = [resolve_sources(a, aL, quad.temporaries)
                       for a in (inst.rgb_addr, inst.alpha_addr)]
        except QuadError:
            return
        for lane in range(LANES):
            for source in sources[0] + sources[1]:
                if source.kind != "inline":
                    table = quad.temps[lane] if source.kind == "temp" else quad.constants
                    add(f"value:{c}" for c in map(_value_class, table[source.value]) if c)

    def texture(self, quad, inst):
        add = self.features.update
        tex, addr = inst.tex, inst.tex_addr
        op = TexOp(tex["INST"])
        add([f"tex:{op.name}"])
        if addr["SRC_ADDR_REL"] or addr["DST_ADDR_REL"]:
            self.rel(quad.fc.pc, "tex", quad.fc.aL)
        sampler = quad.samplers.get(tex["TEX_ID"])
        if op in _FETCHES and sampler is not None and sampler.is_set_up(len(quad.texture)):
            add([f"tex:{sampler.filter}", f"tex:{sampler.wrap}"]
                + (["tex:unscaled"] if tex["UNSCALED"] else []))

    def flow(self, quad, inst, moving, states):
        fc = quad.fc
        f = US_FC_INST.unpack(inst.fc_inst)
        addr = FcAddr.from_word(inst.fc_addr)
        construct = _fc_construct(inst.fc_inst)
        voters = [i for i in range(LANES)
                  if moving[i] and (quad.covered[i] or not f["IGNORE_UNCOVERED"])]
        wishes = fc.wishes(f["JUMP_FUNC"], quad.bools >> addr.bool_addr & 1,
                           inst.cmn["RGB_PRED_SEL"], inst.cmn["RGB_PRED_INV"])
        if len({wishes[i] for i in voters}) > 1 or len(states) > 1:
            self.features[f"fc:{construct}:diverged"] += 1
        if construct.startswith("IF") and LaneState.BRANCH_INACTIVE in states:
            self.features["fc:IF nested"] += 1
        if f["IGNORE_UNCOVERED"] and any(m and not c for m, c in zip(moving, quad.covered)):
            self.features["ignore_uncovered"] += 1

    def after(self, quad, pc, inst, killed_before, done):
        if inst.cmn["LAST"] and inst.type != InstType.FC:
            ended = done and pc != quad.end
            self.features["last:ended" if ended else "last:not ended"] += 1
        if inst.type == InstType.TEX and inst.tex["INST"] == TexOp.TEXKILL:
            addr = inst.tex_addr
            for lane in range(LANES):
                if quad.fc.killed[lane] and not killed_before[lane]:
                    self.features["texkill:killed"] += 1
                    src = (addr["SRC_ADDR"] + (quad.fc.aL if addr["SRC_ADDR_REL"] else 0)) \
                        % R500_TEMPS
                    coords = [fp32.flush(quad.temps[lane][src][addr[f"SRC_{x}_SWIZ"]])
                              for x in "STRQ"]
                    if not would_kill([c for c in coords if c != fp32.NEG_ZERO]):
                        self.features["texkill:-0"] += 1


def trace(job):
    """Run ``job`` on the model: (QuadResult, Counter of the features it exercised)."""
    tracer = _Trace(job)
    result = tracer.run()
    return result, tracer.features


def coverage(jobs):
    """How often the jobs exercised each feature: a Counter over ``FEATURES`` (and a few
    more), from a run of the model instruction by instruction. Features about lanes count only
    where the lanes were there: "fc:IF:diverged" is an IF whose voters' wishes differed or whose
    unkilled lanes were in different states, "write_inactive" one with an inactive lane, and
    so on."""
    total = Counter({name: 0 for name in FEATURES})
    for job in jobs:
        total.update(trace(job)[1])
    return total


