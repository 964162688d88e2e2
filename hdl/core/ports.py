"""The data a core exchanges with the GPU around it, and its error codes (``CoreError``, from
the instruction-set table ``hdl.isa``, where the hosts find it too).

Below their users: the core (hdl/core/core.py), the IO unit and the GPU top (hdl/gpu/) use them.
"""

from amaranth.lib import data

from hdl.isa import CoreError, VectorLayout

__all__ = ["CoreError", "OutputWrite", "IoRow", "Counters"]


class OutputWrite(data.Struct):
    """An OMWRITE lane: an output memory word and its address."""
    addr: 32
    data: 32


class IoRow(data.Struct):
    """A register row the IO side writes (config or swap bank; also the Gpu's configuration
    broadcast to the IO units)."""
    addr: 6
    data: VectorLayout


class Counters(data.Struct):
    """A core's performance counters (cycles while a routine runs, and what each was)."""
    cycles: 32
    retired: 32
    stall_operand: 32     # RAW/WAW: waiting for a write in flight
    stall_writeback: 32   # the write port is taken in the cycle the result would need it
                          # (or the shared divider / serial square root is still busy)
    stall_memory: 32      # TMREAD / OMWRITE waiting for memory
    bubbles: 32           # no instruction in issue (after jumps and at routine start)
    drain: 32             # RETURN waiting for the writes in flight
