"""A quad: four lanes running an R500 fragment program in lock-step (r500-us.md §3, §4.1).

``run_quad`` is the model's entry point: the program's words, each lane's temporaries and
coverage, the host's constants, booleans, integer constants, samplers and texture memory in; each
lane's temporaries, render targets, W and kill state, the number of instructions and the error
(if any) out. Flow control is ``sim/fc_model.py``'s engine at four lanes.
"""

from dataclasses import dataclass, field

from hdl.isa import (InstType, PredSel, TexOp, Compare, AluResultSel, R500_TEMPS, R500_CONSTS,
                     R500_MAX_INSTRUCTIONS, R500_WORDS_PER_INSTRUCTION)
from sim.fc_model import FlowControl, FlowControlError
from sim.r500 import fp32
from sim.r500.alu import unit_results, compare_with_zero
from sim.r500.decode import decode
from sim.r500.errors import QuadError, QuadErrorCode
from sim.r500.operands import resolve_sources, temp_address, lane_operands
from sim.r500.tex import sample, project, would_kill

__all__ = ["LANES", "RENDER_TARGETS", "LaneInput", "LaneResult", "QuadResult", "Quad",
           "run_quad"]

LANES = 4
RENDER_TARGETS = 4
CHANNELS = 4
ALPHA = 3                       # channel index of .a (and the predicate bit A)

# the full R500 of §4.3
FC_PARAMS = dict(loop_depth=8, addr_depth=8, counter_bits=6, jump_addr_bits=9)


@dataclass
class LaneInput:
    """A lane's start: temporaries as {index: [r, g, b, a] words} (others 0) and coverage."""
    temps: dict = field(default_factory=dict)
    covered: bool = True


@dataclass
class LaneResult:
    temps: list                 # per temporary, [r, g, b, a] words
    outputs: dict               # render target -> [r, g, b, a], the targets written
    w: int                      # the depth output (0 if never written)
    killed: bool
    covered: bool


@dataclass
class QuadResult:
    lanes: list                 # four LaneResults (the state where the quad stopped)
    instructions: int           # instructions executed, flow control included
    error: QuadError = None


def _zeros(n):
    return [[0] * CHANNELS for _ in range(n)]


def _predicate_enable(sel, inv, pred, channel):
    """Predication of one channel: NONE writes; RGBA reads the channel's own bit, RRRR...AAAA
    one bit; PRED_INV inverts (not for NONE)."""
    if sel == PredSel.NONE:
        return True
    bit = channel if sel == PredSel.RGBA else sel - PredSel.RRRR
    return bool((pred >> bit & 1) ^ inv)


def _channel_enables(cmn, pred):
    rgb = [_predicate_enable(cmn["RGB_PRED_SEL"], cmn["RGB_PRED_INV"], pred, c) for c in range(3)]
    return rgb + [_predicate_enable(cmn["ALPHA_PRED_SEL"], cmn["ALPHA_PRED_INV"], pred, ALPHA)]


def _write_mask(cmn, rgb_field, alpha_field):
    return cmn[rgb_field] | cmn[alpha_field] << ALPHA


class Quad:
    """One quad's state and the execution of one instruction of each type."""

    def __init__(self, program_words, constants=None, bools=0, int_consts=None, samplers=None,
                 texture=(), start=0, end=None, max_instructions=100_000,
                 temporaries=R500_TEMPS):
        words = list(program_words)
        count, rest = divmod(len(words), R500_WORDS_PER_INSTRUCTION)
        if rest or not 0 < count <= R500_MAX_INSTRUCTIONS:
            raise ValueError(f"a program is 1 to {R500_MAX_INSTRUCTIONS} instructions of "
                             f"{R500_WORDS_PER_INSTRUCTION} words, got {len(words)} words")
        end = count - 1 if end is None else end
        if not 0 <= start <= end < count:
            raise ValueError(f"need 0 <= start ({start}) <= end ({end}) < {count} instructions")
        if not 1 <= temporaries <= R500_TEMPS:
            raise ValueError(f"temporaries must be 1 to {R500_TEMPS}")
        self.code = [words[i:i + R500_WORDS_PER_INSTRUCTION]
                     for i in range(0, len(words), R500_WORDS_PER_INSTRUCTION)]
        self.start, self.end = start, end
        self.max_instructions = max_instructions
        self.temporaries = temporaries
        self.constants = _zeros(R500_CONSTS)
        for index, value in (constants or {}).items():
            self.constants[index] = list(value)
        self.bools = bools
        self.int_consts = int_consts
        self.samplers = samplers or {}
        self.texture = list(texture)
        self.fc = FlowControl(LANES, **FC_PARAMS)

    # --- state -------------------------------------------------------------------------------

    def reset(self, lanes):
        """The start of §3.6 with the lanes' temporaries and coverage (LaneInputs)."""
        if len(lanes) != LANES:
            raise ValueError(f"a quad has {LANES} lanes, got {len(lanes)}")
        self.temps = []
        for lane in lanes:
            temps = _zeros(self.temporaries)
            for index, value in lane.temps.items():
                temps[index] = list(value)
            self.temps.append(temps)
        self.covered = [bool(lane.covered) for lane in lanes]
        self.outputs = [_zeros(RENDER_TARGETS) for _ in range(LANES)]
        self.written = [set() for _ in range(LANES)]
        self.w = [0] * LANES
        self.instructions = 0
        self.fc.start(self.start, self.covered, code_offset=self.start)

    def writers(self, cmn):
        """Lanes that write: ACTIVE (every lane with WRITE_INACTIVE), not killed."""
        active = self.fc.active_mask()
        return [not self.fc.killed[i] and bool(cmn["WRITE_INACTIVE"] or active >> i & 1)
                for i in range(LANES)]

    def result(self, error=None):
        lanes = [LaneResult([list(t) for t in self.temps[i]],
                            {t: list(self.outputs[i][t]) for t in sorted(self.written[i])},
                            self.w[i], bool(self.fc.killed[i]), self.covered[i])
                 for i in range(LANES)]
        return QuadResult(lanes, self.instructions, error)

    # --- running -----------------------------------------------------------------------------

    def run(self, lanes):
        """Run the program from ``start``: a QuadResult, with ``error`` set if it stopped."""
        self.reset(lanes)
        try:
            while not self.step():
                pass
        except QuadError as error:
            return self.result(error)
        return self.result()

    def step(self):
        """Execute the instruction at the PC; True when the program has ended."""
        pc = self.fc.pc
        try:
            if self.instructions >= self.max_instructions:
                raise QuadError(QuadErrorCode.INSTRUCTION_LIMIT,
                                detail=f"{self.max_instructions} instructions")
            inst = decode(self.code[pc])
            if inst.type == InstType.FC:
                jumped = self._flow_control(inst)
            else:
                if inst.type == InstType.TEX:
                    self._texture(inst)
                else:
                    self._alu(inst)
                self.fc.advance()
                jumped = False
        except QuadError as error:
            raise error.at(pc) from None
        self.instructions += 1
        if jumped:
            return False
        return pc == self.end or bool(inst.cmn["LAST"]) and self.fc.all_active()

    def _flow_control(self, inst):
        try:
            jumped, target = self.fc.execute(inst.fc_inst, inst.fc_addr, self.bools,
                                             self.int_consts, inst.cmn["RGB_PRED_SEL"],
                                             inst.cmn["RGB_PRED_INV"])
        except FlowControlError as error:
            raise QuadError.from_flow_control(error) from None
        if jumped and not self.start <= target <= self.end:
            raise QuadError(QuadErrorCode.PC_OUTSIDE, detail=f"a jump to {target}")
        return jumped

    def _write_temp(self, lane, channel, index, value, wmask, enables):
        if wmask >> channel & 1 and enables[channel]:
            self.temps[lane][index][channel] = value

    # --- ALU and OUT -------------------------------------------------------------------------

    def _alu(self, inst):
        aL, count = self.fc.aL, self.temporaries
        rgb_sources = resolve_sources(inst.rgb_addr, aL, count)
        alpha_sources = resolve_sources(inst.alpha_addr, aL, count)
        dest = [temp_address(inst.rgba["RGB_ADDRD"], inst.rgba["RGB_ADDRD_REL"], aL, count)] * 3
        dest.append(temp_address(inst.alpha["ALPHA_ADDRD"], inst.alpha["ALPHA_ADDRD_REL"], aL,
                                 count))
        # every lane reads all its sources before any lane writes (MDH/MDV, dest = source)
        operands = [lane_operands(inst, rgb_sources, alpha_sources, self.temps[i],
                                  self.constants) for i in range(LANES)]
        results = unit_results(inst, operands)
        values = [r.rgb + [r.alpha] for r in results]
        pred_before = list(self.fc.pred)
        out = inst.type == InstType.OUT
        target = [inst.rgb["TARGET"]] * 3 + [inst.alpha["TARGET"]]
        wmask = _write_mask(inst.cmn, "RGB_WMASK", "ALPHA_WMASK")
        omask = _write_mask(inst.cmn, "RGB_OMASK", "ALPHA_OMASK")
        for lane, writes in enumerate(self.writers(inst.cmn)):
            if not writes:
                continue
            enables = _channel_enables(inst.cmn, pred_before[lane])
            for c in range(CHANNELS):
                self._write_temp(lane, c, dest[c], values[lane][c], wmask, enables)
            if out and self.covered[lane]:
                self._write_outputs(lane, inst, values[lane], target, omask, enables)
        if not out:     # OMASK bits name predicate bits, set to result ⟂ 0 by TARGET
            self.fc.set_pred([sum(compare_with_zero(Compare(target[c]), v[c]) << c
                                  for c in range(CHANNELS)) for v in values], omask)
        if inst.rgb["ALU_WMASK"]:
            channel = 0 if inst.cmn["ALU_RESULT_SEL"] == AluResultSel.RED else ALPHA
            self.fc.set_alu_result([compare_with_zero(Compare(inst.cmn["ALU_RESULT_OP"]),
                                                      v[channel]) for v in values])

    def _write_outputs(self, lane, inst, values, target, omask, enables):
        for c in range(CHANNELS):
            if omask >> c & 1 and enables[c]:
                self.outputs[lane][target[c]][c] = values[c]
                self.written[lane].add(target[c])
        if inst.alpha["W_OMASK"] and enables[ALPHA]:
            self.w[lane] = values[ALPHA]

    # --- TEX ---------------------------------------------------------------------------------

    def _texture(self, inst):
        tex, addr = inst.tex, inst.tex_addr
        aL, count = self.fc.aL, self.temporaries
        src = temp_address(addr["SRC_ADDR"], addr["SRC_ADDR_REL"], aL, count)
        dst = temp_address(addr["DST_ADDR"], addr["DST_ADDR_REL"], aL, count)
        op = TexOp(tex["INST"])
        if op == TexOp.NOP:
            return
        writers = self.writers(inst.cmn)
        coords = [[fp32.flush(self.temps[i][src][addr[f"SRC_{x}_SWIZ"]]) for x in "STRQ"]
                  for i in range(LANES)]
        if op == TexOp.TEXKILL:
            self.fc.kill([writers[i] and would_kill(coords[i]) for i in range(LANES)])
            return
        sampler = self.samplers.get(tex["TEX_ID"])
        if sampler is None or not sampler.is_set_up(len(self.texture)):
            raise QuadError(QuadErrorCode.SAMPLER_NOT_SET_UP, detail=f"sampler {tex['TEX_ID']}")
        wmask = _write_mask(inst.cmn, "RGB_WMASK", "ALPHA_WMASK")
        clamps = [inst.cmn["RGB_CLAMP"]] * 3 + [inst.cmn["ALPHA_CLAMP"]]
        for lane, writes in enumerate(writers):
            if not writes:
                continue
            s, t, _, q = coords[lane]
            if op == TexOp.PROJ:
                s, t = project(s, t, q)
            texel = sample(sampler, self.texture, s, t, tex["UNSCALED"])
            enables = _channel_enables(inst.cmn, self.fc.pred[lane])
            for c, x in enumerate("RGBA"):
                value = texel[addr[f"DST_{x}_SWIZ"]]
                value = fp32.clamp(value) if clamps[c] else value
                self._write_temp(lane, c, dst, value, wmask, enables)


def run_quad(program_words, lanes_inputs=None, constants=None, bools=0, int_consts=None,
             samplers=None, texture=(), start=0, end=None, max_instructions=100_000,
             temporaries=R500_TEMPS):
    """Run one quad (§3): ``program_words`` (6 per instruction, loaded at instruction 0),
    ``lanes_inputs`` four LaneInputs (default: all zero, covered), ``constants``
    {index: [r, g, b, a] words}, ``bools`` the 32 static booleans, ``int_consts`` the INT_CONST
    words (a sequence or {index: word}), ``samplers`` {TEX_ID: Sampler}, ``texture`` the
    texture memory's words; the program runs from ``start`` through ``end`` (default: its last
    instruction). Returns a QuadResult; raises ValueError for arguments no quad can start with.
    """
    quad = Quad(program_words, constants, bools, int_consts, samplers, texture, start, end,
                max_instructions, temporaries)
    return quad.run(lanes_inputs or [LaneInput() for _ in range(LANES)])
