"""The errors that stop a quad (r500-us.md §3.6), with the texts of §4.3."""

from enum import Enum

from hdl.isa import FcError, QUAD_FAULT_TEXT, QuadFault
from sim.fc_model import ERROR_TEXT, FlowControlError

__all__ = ["QuadErrorCode", "QuadError"]


class QuadErrorCode(Enum):
    """Each code's value is the text an answer's ``"error"`` starts with; the names are the
    RTL's ``hdl.isa.QuadFault``'s."""
    ILLEGAL_INSTRUCTION = QUAD_FAULT_TEXT[QuadFault.ILLEGAL_INSTRUCTION]
    BAD_TEMPORARY = QUAD_FAULT_TEXT[QuadFault.BAD_TEMPORARY]
    SAMPLER_NOT_SET_UP = QUAD_FAULT_TEXT[QuadFault.SAMPLER_NOT_SET_UP]
    PC_OUTSIDE = QUAD_FAULT_TEXT[QuadFault.PC_OUTSIDE]
    INSTRUCTION_LIMIT = QUAD_FAULT_TEXT[QuadFault.INSTRUCTION_LIMIT]
    ADDR_OVERFLOW = QUAD_FAULT_TEXT[QuadFault.ADDR_OVERFLOW]
    ADDR_UNDERFLOW = QUAD_FAULT_TEXT[QuadFault.ADDR_UNDERFLOW]
    LOOP_OVERFLOW = QUAD_FAULT_TEXT[QuadFault.LOOP_OVERFLOW]
    LOOP_UNDERFLOW = QUAD_FAULT_TEXT[QuadFault.LOOP_UNDERFLOW]
    COUNTER_OVERFLOW = QUAD_FAULT_TEXT[QuadFault.COUNTER_OVERFLOW]

    @classmethod
    def from_fc(cls, fc_error):
        return cls(ERROR_TEXT[FcError(fc_error)])


class QuadError(Exception):
    """A quad stopped: ``code`` (QuadErrorCode) at instruction ``pc``. Raised without a PC by
    the parts that execute one instruction; the sequencer adds it (``at``)."""

    def __init__(self, code, pc=None, detail=""):
        self.code = QuadErrorCode(code)
        self.pc = pc
        self.detail = detail
        super().__init__(self.code, pc, detail)     # args rebuild it: copies and pickles work

    def at(self, pc):
        return QuadError(self.code, pc, self.detail)

    @classmethod
    def from_flow_control(cls, error: FlowControlError):
        return cls(QuadErrorCode.from_fc(error.code), error.pc)

    def __str__(self):
        where = "" if self.pc is None else f" at PC {self.pc}"
        return f"{self.code.value}{where}" + (f" ({self.detail})" if self.detail else "")
