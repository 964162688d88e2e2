"""What the R500 core's units exchange (hdl/r500/core.py is the glue; docs/r500-core.md): a
context's state, the context at D as D sees it, what D does to its context, an FC instruction
for the context's flow-control engine, and the writes that reach a context from I and W.

Below the units: the core's contexts (hdl/r500/contexts.py), F (fetch.py), D
(decode_stage.py), I (issue.py), the texture requests (tex_requests.py) and the write port
(write_port.py) all use them.
"""

from enum import IntEnum

from amaranth import Signal, Value
from amaranth.lib import data
from amaranth.utils import bits_for

from hdl.core.fc_engine import fc_addr_layout
from hdl.isa import US_FC_INST, US_INT_CONST, QuadFault
from hdl.r500.alu import LaneAlu
from hdl.r500.operands import OperandFetch
from hdl.r500.texture import SamplerLayout

__all__ = ["LANES", "CHANNELS", "ALPHA", "PC_BITS", "KILL_WAIT", "ALU_WAIT", "ContextState",
           "write_port", "sampler_entry_layout", "context_layout", "ContextView",
           "FcInstruction", "ContextUpdate", "fc_write_layout", "context_event_layout",
           "lane_event_layout",
           "select"]

LANES = 4
CHANNELS = 4
ALPHA = 3
PC_BITS = 9
#: a context's wait after a TEXKILL (lane 3's kill lands at D + 6: the next D comes then)
KILL_WAIT = 4
#: a context's wait for its ALU writes, counted from D handing its lane-ops to I (lane 3 writes
#: back OperandFetch.LATENCY + LaneAlu.LATENCY cycles after its I, three cycles after lane 0's,
#: which is D + 1; the context's next D comes wait + 1 cycles after this one and must see those
#: writes, and its predicates)
ALU_WAIT = OperandFetch.LATENCY + LaneAlu.LATENCY + LANES - 1


class ContextState(IntEnum):
    FREE = 0
    LOADING = 1
    RUNNING = 2
    DONE = 3


def write_port(fields):
    """A port that writes ``fields`` when ``en``."""
    return data.StructLayout({"en": 1, **fields})


def sampler_entry_layout(addr_bits):
    """A sampler as the host writes it: the texture unit's fields and whether it is set up
    (r500-us.md §3.5: the host decides, knowing the texture memory)."""
    return data.StructLayout({"set_up": 1, "sampler": SamplerLayout(addr_bits)})


def _context_number(contexts):
    return range(max(contexts, 2))


#: one context's state (hdl/r500/contexts.py)
context_layout = data.StructLayout({
    "state": ContextState,
    "pc": PC_BITS,
    "count": 32,                # instructions executed
    # count >= max_instructions, a cycle late: the count changes only when D is done with the
    # context's instruction, and its next D comes two cycles on at the earliest (the 32-bit
    # compare began D's slowest path)
    "at_limit": 1,
    "wait": bits_for(LaneAlu.LATENCY + OperandFetch.LATENCY + 16),   # cycles to its next D
    "tex_pending": 3,           # texture answers to be written
    "covered": LANES,
    "killed": LANES,
    "ending": 1,                # it reached its end: DONE once its writes have landed
    "last_pending": 1,          # it executed LAST: its next instruction ends it if all lanes
    "fault": QuadFault,         # are ACTIVE or killed
    "fault_pc": PC_BITS,
})

#: the context at D, as D reads it: its state and its flow-control engine's outputs
ContextView = data.StructLayout({
    "aL": 8, "active": LANES, "killed": LANES, "covered": LANES, "last_pending": 1,
    "at_limit": 1, "pred": data.ArrayLayout(4, LANES),
    "jump": 1, "next_pc": PC_BITS, "fc_error": 3,
})

#: an FC instruction for the flow-control engine of the context at D (``FlowControlEngine``'s
#: inputs of the same names)
FcInstruction = data.StructLayout({
    "valid": 1, "pc": PC_BITS, "inst": US_FC_INST.layout, "addr": fc_addr_layout(PC_BITS),
    "int_const": US_INT_CONST.layout, "pred_sel": 3, "pred_inv": 1,
})


#: what D does to the context at D once it is ``done`` with its instruction: ``ends`` (the
#: LAST before ended it) or ``fault`` (!= NONE: at ``fault_pc``) make it DONE; else it goes
#: on at ``next_pc``, ``ending`` (it was at the end address) or ``last`` (LAST). ``issue``:
#: its lane-ops go to I, TEX (``tex``, ``tex_lanes`` answers to wait for), TEXKILL (``kill``)
#: or ALU/OUT
ContextUpdate = data.StructLayout({
    "done": 1, "ends": 1, "fault": QuadFault, "fault_pc": PC_BITS, "next_pc": PC_BITS,
    "ending": 1, "last": 1, "issue": 1, "tex": 1, "kill": 1, "tex_lanes": 3,
})


def fc_write_layout(contexts):
    """A lane's ALU results for its context's flow-control engine (``valid``: a lane-op's
    writeback; the engine takes ``alu_result`` with ``alu_result_we``, the predicate bits
    ``pred`` where ``pred_we``)."""
    return data.StructLayout({
        "valid": 1, "context": _context_number(contexts), "lane": 2,
        "alu_result_we": 1, "alu_result": 1, "pred_we": 4, "pred": 4,
    })


def context_event_layout(contexts):
    """Something that happens to a context when ``en`` (a texture answer written)."""
    return write_port({"context": _context_number(contexts)})


def lane_event_layout(contexts):
    """Something that happens to one lane of a context when ``en`` (a TEXKILL's kill)."""
    return write_port({"context": _context_number(contexts), "lane": 2})


def select(m, index, values, name):
    """``values[index]`` as a signal called ``name`` (0 for an index past the values)."""
    result = Signal(len(Value.cast(values[0])), name=name)
    with m.Switch(index):
        for k, value in enumerate(values):
            with m.Case(k):
                m.d.comb += result.eq(value)
    return result
