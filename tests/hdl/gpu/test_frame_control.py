"""The frame control (hdl/gpu/frame_control.py): START, RUN and STOP against a stand-in frame
(done a few cycles after it starts) and frame buffers that allow the next frame only some
time after one finished (a stand-in for the swap at the display's vertical blanking)."""

from amaranth import Module, Signal
from amaranth.sim import Simulator

from hdl.gpu.frame_control import FrameControl

FRAME_CYCLES = 5
SWAP_CYCLES = 7


class _Frames:
    """FrameControl with a frame that lasts FRAME_CYCLES and a swap SWAP_CYCLES after each
    finished frame (``may_start`` low until then)."""

    def __init__(self):
        self.control = FrameControl()
        self.m = m = Module()
        m.submodules.control = control = self.control
        left = Signal(range(FRAME_CYCLES + 1))
        swap_in = Signal(range(SWAP_CYCLES + 1))
        self.open = open_ = Signal()
        m.d.comb += [control.frame_busy.eq(open_), control.frame_done.eq(~open_),
                     control.may_start.eq(swap_in == 0), control.frame_error.eq(0)]
        with m.If(control.start):
            m.d.sync += [open_.eq(1), left.eq(FRAME_CYCLES - 1)]
        with m.Elif(open_ & (left == 0)):
            m.d.sync += open_.eq(0)
        with m.Elif(open_):
            m.d.sync += left.eq(left - 1)
        with m.If(control.finished):
            m.d.sync += swap_in.eq(SWAP_CYCLES)
        with m.Elif(swap_in != 0):
            m.d.sync += swap_in.eq(swap_in - 1)


def _run(testbench):
    frames = _Frames()
    sim = Simulator(frames.m)
    sim.add_clock(1e-8)

    async def bench(ctx):
        await testbench(ctx, frames.control, frames.open)

    sim.add_testbench(bench)
    sim.run()


async def _pulse(ctx, signal, control=None):
    """Pulse ``signal`` for a cycle; returns whether ``control`` started a frame in it."""
    ctx.set(signal, 1)
    started = control is not None and ctx.get(control.start)
    await ctx.tick()
    ctx.set(signal, 0)
    return started


async def _count_starts(ctx, control, cycles):
    starts = 0
    for _ in range(cycles):
        starts += ctx.get(control.start)
        assert not (ctx.get(control.start) and ctx.get(control.frame_busy))
        await ctx.tick()
    return starts


def test_start_renders_one_frame_and_waits_for_the_swap():
    async def bench(ctx, control, open_):
        await ctx.tick().repeat(3)
        assert await _pulse(ctx, control.start_request, control)
        while not ctx.get(control.finished):
            assert not ctx.get(control.start) and ctx.get(control.busy)
            await ctx.tick()
        await ctx.tick()
        assert ctx.get(control.frames) == 1 and ctx.get(control.done)
        assert not ctx.get(control.running)
        # a START right after the frame finished waits for the swap; meanwhile it is busy
        assert not await _pulse(ctx, control.start_request, control)
        assert not await _pulse(ctx, control.start_request, control)    # (another waits)
        assert ctx.get(control.busy) and not ctx.get(control.done)
        assert await _count_starts(ctx, control, 40) == 1
        assert ctx.get(control.frames) == 2 and not ctx.get(control.busy)

    _run(bench)


def test_run_renders_frame_after_frame_and_stop_ends_it_after_the_frame_under_way():
    async def bench(ctx, control, open_):
        await ctx.tick()
        await _pulse(ctx, control.run_request)
        assert ctx.get(control.running)
        period = FRAME_CYCLES + SWAP_CYCLES + 4
        starts = await _count_starts(ctx, control, 10 * period)
        assert starts >= 6 and ctx.get(control.frames) >= starts - 1
        while not ctx.get(open_):
            await ctx.tick()
        await _pulse(ctx, control.stop_request)     # (during a frame: it finishes)
        assert not ctx.get(control.running)
        frames = ctx.get(control.frames)
        assert await _count_starts(ctx, control, 5 * period) == 0
        assert ctx.get(control.frames) == frames + 1
        assert ctx.get(control.done) and not ctx.get(control.busy)
        # RUN again, STOP while the next frame waits for the swap: none starts
        await _pulse(ctx, control.run_request)
        while not ctx.get(control.finished):
            await ctx.tick()
        await ctx.tick()
        assert ctx.get(control.busy) and not ctx.get(open_)
        await _pulse(ctx, control.stop_request)
        assert await _count_starts(ctx, control, 5 * period) == 0
        assert not ctx.get(control.busy) and ctx.get(control.done)

    _run(bench)
