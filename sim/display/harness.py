"""The display in simulation: a top with pixels to show (``DisplayTestTop``), run in
Amaranth's simulator with its three clocks down to the pins' bits (``run_pysim``), or in one
clock domain on the fast backend with each pixel clock's symbols taken (``FastDisplay``).

``TINY_MODE``: a 16 x 12 raster with short porches (24 x 17 total), for quick simulations.
"""

import numpy as np
from amaranth import Module, ClockDomain
from amaranth.lib import data, wiring
from amaranth.lib.wiring import Out
from amaranth.sim import Simulator

from hdl.display.formats import TmdsSymbols, config_layout
from hdl.display.mode import VideoMode
from hdl.display.pipeline import DisplayPipeline, gpu_side
from hdl.display.unit import DisplayUnit
from sim.display.frame_server import FrameServer, frame_words

__all__ = ["TINY_MODE", "DisplayTestTop", "run_pysim", "run_one_clock", "FastDisplay"]

TINY_MODE = VideoMode(h_active=16, h_front=2, h_sync=3, h_back=3,
                      v_active=12, v_front=1, v_sync=2, v_back=2, name="16x12 test")


class DisplayTestTop(wiring.Component):
    """The display unit of ``mode`` fed by a ``FrameServer`` of ``words`` (0xRRGGBB; None: the
    server's computed pattern). ``serialise``: the whole ``DisplayUnit`` (domains sync, pixel,
    tmds; ``data``/``clock`` bit pairs out); else ``DisplayPipeline`` with every domain the
    one ``sync`` clock, the pixel side clocked every ``pixel_every`` cycles (``symbols`` out,
    with ``symbols_valid``, for a monitor)."""

    def __init__(self, mode: VideoMode, words, serialise=False, pixel_every=1):
        self.mode, self.serialise, self.pixel_every = mode, serialise, pixel_every
        self.words = None if words is None else list(words)
        members = {"config": gpu_side(mode)["config"], "vblank": Out(1), "underrun": Out(1)}
        if serialise:
            members.update(data=Out(data.ArrayLayout(3, 2)), clock=Out(data.ArrayLayout(1, 2)),
                           underflow=Out(1))
        else:
            members.update(symbols=Out(TmdsSymbols), symbols_valid=Out(1))
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        mode = self.mode
        if self.serialise:
            m.submodules.display = display = DisplayUnit(mode)
            m.d.comb += [self.data.eq(display.data), self.clock.eq(display.clock),
                         self.underflow.eq(display.underflow)]
        else:
            m.submodules.display = display = DisplayPipeline(mode, pixel_domain="sync",
                                                             pixel_every=self.pixel_every)
            m.d.comb += [self.symbols.eq(display.symbols),
                         self.symbols_valid.eq(display.symbols_valid)]
        m.submodules.server = server = FrameServer(self.words, mode)
        wiring.connect(m, wiring.flipped(self.config), display.config)
        wiring.connect(m, display.line_req, server.line_req)
        wiring.connect(m, server.pixels, display.pixels)
        m.d.comb += [self.vblank.eq(display.vblank),
                     self.underrun.eq(display.underrun)]
        return m


def run_pysim(mode, frame, frames, config_at_frame=0.0, sync_mhz=75.0, pixel_mhz=25.0,
              tmds_mhz=None, tmds_phase_ns=0.0, show=True):
    """Run the whole display (``serialise=True``) for ``frames`` frame times; ``frame`` ((H, W,
    3) RGB) is configured ``config_at_frame`` frame times after the start. Returns (bits: (4,
    N) 0/1 per lane as sent, lanes 0-2 and the clock lane; {"vblank": the pulses the sync
    domain saw, "underrun", "underflow": whether they were ever seen})."""
    frame = np.asarray(frame)
    height, width = frame.shape[:2]
    top = DisplayTestTop(mode, frame_words(frame), serialise=True)
    m = Module()
    for name in ("sync", "pixel", "tmds"):
        m.domains += ClockDomain(name)
    m.submodules.top = top
    tmds_mhz = tmds_mhz or 5 * pixel_mhz
    frame_ns = mode.h_total * mode.v_total * 1e3 / pixel_mhz
    sim = Simulator(m)
    sim.add_clock(1e-6 / sync_mhz, domain="sync")
    sim.add_clock(1e-6 / pixel_mhz, domain="pixel")
    sim.add_clock(1e-6 / tmds_mhz, domain="tmds", phase=tmds_phase_ns * 1e-9)
    pairs, seen = [], {"vblank": 0, "underrun": 0, "underflow": 0}

    async def host(ctx):
        await ctx.delay(config_at_frame * frame_ns * 1e-9)
        await ctx.tick("sync")
        ctx.set(top.config.payload, {"width": width, "height": height, "show": int(show)})
        ctx.set(top.config.valid, 1)
        await ctx.tick("sync").until(top.config.ready)
        ctx.set(top.config.valid, 0)

    async def status(ctx):
        async for _, _, vblank, underrun, underflow in ctx.tick("sync").sample(
                top.vblank, top.underrun, top.underflow):
            seen["vblank"] += vblank
            seen["underrun"] |= underrun
            seen["underflow"] |= underflow

    async def pins(ctx):
        async for _, _, lanes, clock in ctx.tick("tmds").sample(top.data, top.clock):
            pairs.append([*(int(lanes[0]) >> k & 1 for k in range(3)), int(clock[0]),
                          *(int(lanes[1]) >> k & 1 for k in range(3)), int(clock[1])])

    sim.add_testbench(host)
    sim.add_process(status)
    sim.add_process(pins)
    sim.run_until(frames * frame_ns * 1e-9)
    pairs = np.array(pairs, dtype=np.uint8).reshape(-1, 2, 4)       # (tick, half, lane)
    return pairs.transpose(2, 0, 1).reshape(4, -1), seen


def run_one_clock(mode, words, schedule, frames, pixel_every=1):
    """The single-clock display (``serialise=False``) in Amaranth's simulator for ``frames``
    frame times; ``schedule``: [(frame time, (width, height, show))] configurations, in time
    order. Returns ((3, N) symbols, underrun at the end)."""
    top = DisplayTestTop(mode, words, pixel_every=pixel_every)
    frame_pixels = mode.h_total * mode.v_total
    pending = [(int(when * frame_pixels), config) for when, config in schedule]
    out = []

    async def testbench(ctx):
        async for _, _, ready, valid, symbols in ctx.tick().sample(
                top.config.ready, top.symbols_valid, top.symbols):
            if ready:
                ctx.set(top.config.valid, 0)
            if pending and len(out) >= pending[0][0]:
                width, height, show = pending.pop(0)[1]
                ctx.set(top.config.payload, {"width": width, "height": height, "show": show})
                ctx.set(top.config.valid, 1)
            if valid:
                out.append(symbols.as_bits())
            if len(out) == int(frames * frame_pixels):
                break
        out.append(ctx.get(top.underrun))

    sim = Simulator(top)
    sim.add_clock(1e-6)
    sim.add_testbench(testbench)
    sim.run()
    words = np.array(out[:-1], dtype=np.int64)
    return np.stack([words & 0x3FF, words >> 10 & 0x3FF, words >> 20 & 0x3FF]), bool(out[-1])


class FastDisplay:
    """The single-clock ``DisplayTestTop`` of ``mode`` with ``words`` (None: the frame server's
    pattern) on the fast backend: ``configure`` a frame size, ``run`` frame times and get each
    pixel clock's symbols."""

    def __init__(self, mode, words=None, pixel_every=1, backend=None, log=None):
        from sim.fast.build import Design
        from sim.fast.driver import FastSim
        self.mode, self.pixel_every = mode, pixel_every
        words = None if words is None else [int(w) for w in words]
        self.sim = FastSim(Design(DisplayTestTop, mode, words, pixel_every=pixel_every),
                           backend=backend, log=log)
        self.sim.reset()
        self.monitor = self.sim.add_write_monitor("symbols_valid", "symbols", "symbols")

    def configure(self, width, height, show=True):
        sim = self.sim
        config = config_layout(self.mode).const({"width": width, "height": height,
                                                 "show": int(show)})
        sim.set("config__payload", config.as_bits())
        sim.set("config__valid", 1)
        sim.run_until("config__ready", 100)
        sim.step()
        sim.set("config__valid", 0)

    def run(self, frames):
        """(3, N) symbols of the next ``frames`` frame times (lane 0 blue, 1 green, 2 red)."""
        self.sim.take_writes(self.monitor)
        self.sim.step(int(frames * self.mode.h_total * self.mode.v_total * self.pixel_every))
        words, _ = self.sim.take_writes(self.monitor)
        words = words.astype(np.int64)
        return np.stack([words & 0x3FF, words >> 10 & 0x3FF, words >> 20 & 0x3FF])

    def underrun(self):
        return bool(self.sim.get("underrun"))
