"""The control unit: the per-band sequence of theia-system.md §2 around one execution core.

For a band whose position rows (config 6, 7) the IO side has written::

    INITIAL, CPPU, USERCONSTANTS
    per pixel:  hit = FALSE; RGU
                for each of the pixel's triangles (``pixel_triangles``: how many):
                    wait until the IO side reports the next triangle loaded (``tri_ready``),
                    flip the swap bank (``tri_flip``), run MAIN; hit |= its return value
                PSU2 if hit; PIXELSHADER; NPG -> next pixel while it returns TRUE

With ``r500`` set (an R500 program shades the hits, r500-us.md §4.2), the firmware's R500
export routine runs in place of PIXELSHADER (``core_start_direct``): ``exporting`` tells the
shader core to send its OMWRITEs to the R500 stage, ``pixel_hit`` whether the pixel hit.

Interface towards the IO side (``hdl.gpu.io_unit.IoUnit``, through the shader core):

* ``band_start`` (strobe, while not ``busy``) begins a band; ``band_done`` pulses at its end.
* ``tri_ready``: the IO copy of the swap bank holds the next triangle. ``tri_flip`` pulses in
  the cycle the copies are exchanged; from then on the IO side may write the following triangle
  into the (new) IO copy. The flip is the only synchronisation between loading and computing.
* ``pixel_triangles``: how many triangles the next pixel tests (its bin's, docs/binning.md),
  taken when its RGU is done (0: no MAIN). The IO side finds them ahead of the core.

Towards the core it drives ``start``/``start_entry``, ``chain`` and ``flip`` and watches
``done``, ``result`` and ``error``. MAIN follows MAIN without a pause: in the cycle a MAIN
returns, the next triangle (when loaded) is flipped in and MAIN starts again - started by the
core itself, told in advance by ``core_chain`` (registered state), so that the path RETURN ->
next fetch address stays inside the core. It also watches
``error``: a core error stops the band (``error``; the core keeps its code/PC).
Counters: ``io_wait_cycles`` (MAIN could start but the next triangle was not loaded yet, or
the pixel's count was not there yet), ``pixels`` and ``tests`` (MAINs run: ray/triangle tests).
"""

from amaranth import Module, Signal, unsigned
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hdl.isa import ENTRY_INDEX

__all__ = ["ControlUnit"]


class ControlUnit(wiring.Component):
    band_start: In(1)
    band_done: Out(1)
    busy: Out(1)
    error: Out(1)
    pixel_triangles: In(stream.Signature(unsigned(16)))
    tri_ready: In(1)
    tri_flip: Out(1)

    core_start: Out(1)
    core_start_entry: Out(4)
    core_start_direct: Out(1)       # start the R500 export routine (hdl.isa.R500_EXPORT_PC)
    core_chain: Out(1)
    core_flip: Out(1)
    core_busy: In(1)
    core_done: In(1)
    core_result: In(1)
    core_error: In(1)

    io_wait_cycles: Out(32)
    pixels: Out(32)
    tests: Out(32)

    # an R500 program shades the hits: its export routine runs in place of PIXELSHADER
    r500: In(1)
    exporting: Out(1)               # ... now: the core's OMWRITEs go to the R500 stage
    pixel_hit: Out(1)               # ... and the pixel hit a triangle

    def elaborate(self, platform):
        m = Module()
        hit = Signal()
        triangles_left = Signal(16)
        more_triangles = Signal()    # triangles_left > 1, registered (on the MAIN -> MAIN path)
        # triangles_left == 0, registered: its 16-bit compare stays out of the path through
        # the flip to the state's enables
        triangles_done = Signal()
        # MAIN may follow MAIN at once: another triangle is due and loaded. Registered, so that
        # ``core_chain`` is: a flip makes it false for a cycle (the IO side then shows the next
        # triangle's state), and ``tri_ready`` only falls at a flip, so the register is never
        # true too late.
        chain_main = Signal()
        m.d.sync += chain_main.eq(more_triangles & self.tri_ready & ~self.tri_flip)
        launched = Signal()          # the current state's routine has been started
        io_wait = Signal(32)
        pixels = Signal(32)
        tests = Signal(32)
        with m.If(self.tri_flip):
            m.d.sync += tests.eq(tests + 1)
        m.d.comb += [self.io_wait_cycles.eq(io_wait), self.pixels.eq(pixels),
                     self.tests.eq(tests),
                     self.pixel_hit.eq(hit)]

        def run(name, on_done):
            """Start routine ``name`` once, then call ``on_done(result)`` when it returns."""
            m.d.comb += self.core_start_entry.eq(ENTRY_INDEX[name])
            with m.If(~launched):
                m.d.comb += self.core_start.eq(1)
                m.d.sync += launched.eq(1)
            with m.Elif(self.core_error):       # the core stopped: so does the band
                m.d.sync += launched.eq(0)
                m.next = "ERROR"
            with m.Elif(self.core_done):
                m.d.sync += launched.eq(0)
                on_done(self.core_result)

        def _next(state):
            m.next = state

        # core_start_entry shows the entry of the routine the state starts (TRIANGLE: MAIN's)
        # also while it does not start it: the core looks the entry up a cycle ahead
        with m.FSM() as fsm:
            with m.State("IDLE"):
                m.d.comb += self.core_start_entry.eq(ENTRY_INDEX["INITIAL"])
                with m.If(self.band_start):
                    m.next = "INITIAL"
            # routines that simply follow one another
            for name, following in (("INITIAL", "CPPU"), ("CPPU", "USERCONSTANTS"),
                                    ("USERCONSTANTS", "RGU"), ("PSU2", "PIXELSHADER"),
                                    ("PIXELSHADER", "NPG")):
                with m.State(name):
                    if name == "PIXELSHADER":
                        m.d.comb += [self.core_start_direct.eq(self.r500),
                                     self.exporting.eq(self.r500)]
                    run(name, lambda result, following=following: _next(following))
            count = self.pixel_triangles.payload

            def take_count():
                m.d.comb += self.pixel_triangles.ready.eq(1)
                m.d.sync += [hit.eq(0), triangles_left.eq(count),
                             more_triangles.eq(count > 1), triangles_done.eq(count == 0)]
                _next("TRIANGLE")

            with m.State("RGU"):
                def after_rgu(result):
                    with m.If(self.pixel_triangles.valid):
                        take_count()
                    with m.Else():
                        _next("COUNT")
                run("RGU", after_rgu)
            with m.State("COUNT"):           # the IO side has not found the pixel's bin yet
                m.d.comb += self.core_start_entry.eq(ENTRY_INDEX["MAIN"])
                with m.If(self.pixel_triangles.valid):
                    take_count()
                with m.Else():
                    m.d.sync += io_wait.eq(io_wait + 1)
            with m.State("TRIANGLE"):
                m.d.comb += self.core_start_entry.eq(ENTRY_INDEX["MAIN"])
                with m.If(triangles_done):
                    with m.If(hit):
                        m.next = "PSU2"
                    with m.Else():
                        m.next = "PIXELSHADER"
                with m.Elif(self.tri_ready):
                    m.d.comb += [self.tri_flip.eq(1), self.core_flip.eq(1)]
                    m.next = "MAIN"
                with m.Else():
                    m.d.sync += io_wait.eq(io_wait + 1)
            with m.State("MAIN"):
                m.d.comb += self.core_chain.eq(launched & chain_main)
                def after_main(result):
                    m.d.sync += [hit.eq(hit | result), triangles_left.eq(triangles_left - 1),
                                 more_triangles.eq(triangles_left > 2),
                                 triangles_done.eq(triangles_left == 1)]
                    with m.If(chain_main):
                        # the next triangle is loaded: flip; the core starts MAIN again at once
                        # (core_chain)
                        m.d.comb += [self.tri_flip.eq(1), self.core_flip.eq(1)]
                        m.d.sync += launched.eq(1)
                    with m.Else():
                        _next("TRIANGLE")
                run("MAIN", after_main)
            with m.State("NPG"):
                def after_npg(more):
                    m.d.sync += pixels.eq(pixels + 1)
                    with m.If(more):
                        _next("RGU")
                    with m.Else():
                        m.d.comb += self.band_done.eq(1)
                        _next("IDLE")
                run("NPG", after_npg)
            with m.State("ERROR"):
                m.d.comb += self.core_start_entry.eq(ENTRY_INDEX["INITIAL"])
                m.d.comb += self.error.eq(1)
                with m.If(self.band_start):
                    m.next = "INITIAL"
        m.d.comb += self.busy.eq(~fsm.ongoing("IDLE") & ~fsm.ongoing("ERROR"))
        # for testbenches that watch the sequence (bench.pixel_cycles): the state register and
        # its values' names
        self.fsm_state = fsm.state
        self.fsm_names = {value: name for name, value in fsm.encoding.items()}
        return m
