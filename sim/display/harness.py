"""The display in simulation: a top with a frame to show (``DisplayTestTop``), run in
Amaranth's simulator with its three clocks down to the pins' bits (``run_pysim``), or in one
clock domain on the fast backend with each pixel clock's symbols taken (``run_fast``).

``TINY_MODE``: a 16 x 12 raster with short porches (24 x 17 total), for quick simulations.
"""

import numpy as np
from amaranth import Module, ClockDomain
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out
from amaranth.sim import Simulator

from hdl.display.formats import TmdsSymbols, config_layout
from hdl.display.mode import VideoMode
from hdl.display.pipeline import DisplayPipeline
from hdl.display.unit import DisplayUnit
from sim.display.frame_server import FrameServer, frame_words

__all__ = ["TINY_MODE", "DisplayTestTop", "run_pysim", "run_fast", "fast_design"]

TINY_MODE = VideoMode("16x12 test", h_active=16, h_front=2, h_sync=3, h_back=3,
                      v_active=12, v_front=1, v_sync=2, v_back=2)


class DisplayTestTop(wiring.Component):
    """The display unit of ``mode`` fed by a ``FrameServer`` of ``words`` (``width`` x
    ``height``, 0xRRGGBB). ``serialise``: the whole ``DisplayUnit`` (domains sync, pixel,
    tmds; ``data``/``clock`` bit pairs out); else ``DisplayPipeline`` with every domain the
    one ``sync`` clock (``symbols`` out, ``symbols_valid`` always 1, for a monitor)."""

    def __init__(self, mode, words, width, height, serialise=False):
        self.mode, self.serialise = mode, serialise
        self.words, self.width, self.height = list(words), width, height
        members = {"config": In(stream.Signature(config_layout(mode))),
                   "vblank": Out(1), "underrun": Out(1)}
        if serialise:
            unit = DisplayUnit(mode)
            members.update(data=Out(unit.data.shape()), clock=Out(unit.clock.shape()),
                           underflow=Out(1))
        else:
            members.update(symbols=Out(TmdsSymbols), symbols_valid=Out(1))
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        if self.serialise:
            m.submodules.display = display = DisplayUnit(self.mode)
            m.d.comb += [self.data.eq(display.data), self.clock.eq(display.clock),
                         self.underflow.eq(display.underflow)]
        else:
            m.submodules.display = display = DisplayPipeline(self.mode, pixel_domain="sync")
            m.d.comb += [self.symbols.eq(display.symbols), self.symbols_valid.eq(1)]
        m.submodules.server = server = FrameServer(self.words, self.width, self.height,
                                                   range(self.mode.v_active))
        wiring.connect(m, wiring.flipped(self.config), display.config)
        wiring.connect(m, display.line_req, server.line_req)
        wiring.connect(m, server.pixels, display.pixels)
        m.d.comb += [self.vblank.eq(display.vblank), self.underrun.eq(display.underrun)]
        return m


def run_pysim(mode, frame, frames, config_at_frame=0.0, sync_mhz=75.0, pixel_mhz=25.0,
              tmds_mhz=None, tmds_phase_ns=0.0, show=True):
    """Run the whole display (``serialise=True``) for ``frames`` frame times; the frame
    (``frame``: (H, W, 3)) is configured ``config_at_frame`` frame times after the start.
    Returns (bits: (4, N) 0/1 per lane as sent, lanes 0-2 and the clock lane; {"vblank": the
    pulses the sync domain saw, "underrun", "underflow": whether they were ever seen})."""
    frame = np.asarray(frame)
    height, width = frame.shape[:2]
    top = DisplayTestTop(mode, frame_words(frame), width, height, serialise=True)
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
        async for _, _, data, clock in ctx.tick("tmds").sample(top.data, top.clock):
            pairs.append([*(int(data[0]) >> k & 1 for k in range(3)), int(clock[0]),
                          *(int(data[1]) >> k & 1 for k in range(3)), int(clock[1])])

    sim.add_testbench(host)
    sim.add_process(status)
    sim.add_process(pins)
    sim.run_until(frames * frame_ns * 1e-9)
    pairs = np.array(pairs, dtype=np.uint8).reshape(-1, 2, 4)       # (tick, half, lane)
    bits = pairs.transpose(2, 0, 1).reshape(4, -1)
    return bits, seen


def fast_design(mode, frame):
    """The single-clock ``DisplayTestTop`` as a ``sim.fast.Design``."""
    from sim.fast.build import Design
    frame = np.asarray(frame)
    return Design(DisplayTestTop, mode, frame_words(frame), frame.shape[1], frame.shape[0])


def run_fast(mode, frame, frames, backend=None, log=None):
    """Run the single-clock display on the fast backend for ``frames`` frame times with
    ``frame`` configured at once; returns ((3, N) symbols, the FastSim)."""
    from sim.fast.driver import FastSim
    frame = np.asarray(frame)
    sim = FastSim(fast_design(mode, frame), backend=backend, log=log)
    sim.reset()
    config = config_layout(mode).const({"width": frame.shape[1], "height": frame.shape[0],
                                        "show": 1})
    sim.set("config__payload", config.as_bits())
    sim.set("config__valid", 1)
    sim.run_until("config__ready", 100)
    sim.step()
    sim.set("config__valid", 0)
    monitor = sim.add_write_monitor("symbols_valid", "symbols", "symbols")
    sim.step(int(frames * mode.h_total * mode.v_total))
    words, _ = sim.take_writes(monitor)
    words = words.astype(np.int64)
    return np.stack([words & 0x3FF, words >> 10 & 0x3FF, words >> 20 & 0x3FF]), sim

