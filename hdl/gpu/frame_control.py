"""When frames start: the host's requests (CTRL START, RUN, STOP: docs/host-interface.md) and
the frame buffers' (``may_start``).

* START asks for one frame. It starts at once, or, when ``may_start`` is low (the back buffer
  holds a finished frame the display has not shown yet: hdl/gpu/memory_system.py), as soon as
  it rises; meanwhile the frame counts as under way (``busy``) and not yet ``done``.
* RUN renders frame after frame (``running``): each frame is asked for as the one before it
  finishes, and starts when it may (with two frame buffers, after the display's vertical
  blanking swapped them). STOP ends that after the frame under way; an error ends it too.
* ``finished`` (a pulse) says a frame ended without an error; ``frames`` counts them.

With the stores in block RAM ``may_start`` is always high and a START starts the frame in the
cycle it arrives, as before.
"""

from amaranth import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

__all__ = ["FrameControl"]


class FrameControl(wiring.Component):
    """In: ``start_request``, ``run_request``, ``stop_request`` (pulses from the host port),
    ``may_start``, ``frame_busy``, ``frame_done``, ``frame_error`` (the frame itself). Out:
    ``start`` (a pulse: the frame begins), ``busy``, ``done`` (what STATUS says), ``running``,
    ``finished``, ``frames``."""
    start_request: In(1)
    run_request: In(1)
    stop_request: In(1)
    may_start: In(1)
    frame_busy: In(1)
    frame_done: In(1)
    frame_error: In(1)
    start: Out(1)
    busy: Out(1)
    done: Out(1)
    running: Out(1)
    finished: Out(1)
    frames: Out(32)

    def elaborate(self, platform):
        m = Module()
        waiting = Signal()                  # a frame is asked for and has not started
        was_done = Signal(init=1)           # (no frame finishes at reset)
        m.d.sync += was_done.eq(self.frame_done)
        m.d.comb += self.finished.eq(self.frame_done & ~was_done)
        wanted = self.start_request | self.run_request | waiting
        m.d.comb += [self.start.eq(wanted & self.may_start & ~self.frame_busy),
                     self.busy.eq(self.frame_busy | waiting),
                     self.done.eq(self.frame_done & ~waiting)]
        m.d.sync += waiting.eq(wanted & ~self.start)
        with m.If(self.finished):
            m.d.sync += self.frames.eq(self.frames + 1)
            with m.If(self.running & ~self.stop_request):
                m.d.sync += waiting.eq(1)
        with m.If(self.run_request):
            m.d.sync += self.running.eq(1)
        with m.If(self.stop_request | self.frame_error):
            m.d.sync += self.running.eq(0)
        with m.If(self.stop_request & ~self.frame_busy):
            m.d.sync += waiting.eq(0)
        return m
