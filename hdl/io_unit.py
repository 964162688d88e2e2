"""The IO unit of one shader core: everything theia-system.md §2 asks of "the IO side".

* Configuration broadcast: while idle, a host configuration row (``config`` stream: register
  row and value) is written into the core's configuration bank.
* Band setup: a band (``band`` stream: its two position rows and output word base) is taken
  only while idle; rows 6 and 7 are written, ``omem_base`` is set and ``band_start`` pulses.
* Triangle streaming: from band start on, triangle k's 7 rows are read from scene memory
  (``scene_req``/``scene_resp``, word address ``k*8 + row``) and written into the IO copy of
  the swap bank (registers 44-50). When all 7 are in, ``tri_ready`` goes high; the control unit
  flips the copies (``tri_flip``) and MAIN runs on triangle k while triangle k+1 (after the last
  one: triangle 0, for the next pixel) streams in. The flip is the only synchronisation.

A triangle streams at one row per cycle when the core's write port is free (a 3-deep buffer
covers the scene memory's one-cycle read latency), so 7 rows take about 9 cycles: far less
than one MAIN, and during INITIAL .. RGU for the first triangle of a band.

The band ends at ``band_done`` or when the core stops with an error (``core_error``: then
``error`` pulses once); the unit is idle again and answers leftover reads by dropping them.
"""

from amaranth import Module, Signal, Mux
from amaranth.lib import wiring, data, stream
from amaranth.lib.fifo import SyncFIFO
from amaranth.lib.wiring import In, Out

from hdl.isa import VectorLayout, reg

__all__ = ["IoUnit", "BandEntry", "ConfigWrite", "TRIANGLE_FIRST_REG", "ROWS_PER_TRIANGLE",
           "SLOT_ROWS"]

#: register of a triangle's first row (V0); its 7 rows are consecutive registers
TRIANGLE_FIRST_REG = reg("CREG_V0")
ROWS_PER_TRIANGLE = 7
#: scene memory rows per triangle slot (7 used, a power of two for cheap addressing)
SLOT_ROWS = 8
_INITIAL_ROW = reg("CREG_PIXEL_2D_INITIAL_POSITION")
_FINAL_ROW = reg("CREG_PIXEL_2D_FINAL_POSITION")
assert [reg(n) for n in ("CREG_V0", "CREG_UV0", "CREG_V1", "CREG_UV1", "CREG_V2", "CREG_UV2",
                         "CREG_TRI_DIFFUSE")] == list(range(TRIANGLE_FIRST_REG,
                                                            TRIANGLE_FIRST_REG + 7))


class BandEntry(data.Struct):
    """One band table entry."""
    initial: VectorLayout       # PIXEL_2D_INITIAL_POSITION (config row 6)
    final: VectorLayout         # PIXEL_2D_FINAL_POSITION (config row 7)
    base: 32                    # the band's output word base


class ConfigWrite(data.Struct):
    row: 6
    data: VectorLayout


class IoUnit(wiring.Component):
    """Parameter: ``scene_rows`` (scene memory depth in rows, a multiple of 8)."""

    def __init__(self, scene_rows):
        self.scene_rows = scene_rows
        super().__init__({
            "band": In(stream.Signature(BandEntry)),
            "config": In(stream.Signature(ConfigWrite)),
            "num_triangles": In(16),
            "idle": Out(1),
            "error": Out(1),
            "scene_req": Out(stream.Signature(range(scene_rows))),
            "scene_resp": In(stream.Signature(VectorLayout, always_ready=True)),
            # towards the shader core
            "io_valid": Out(1), "io_addr": Out(6), "io_data": Out(VectorLayout), "io_ready": In(1),
            "omem_base": Out(32),
            "band_start": Out(1), "band_done": In(1), "core_error": In(1),
            "tri_ready": Out(1), "tri_flip": In(1),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.buffer = buffer = SyncFIFO(width=VectorLayout.as_shape().size, depth=3)

        entry = Signal(BandEntry)
        m.d.comb += self.omem_base.eq(entry.base)

        triangle = Signal(16)           # the triangle being streamed
        req_row = Signal(range(8))      # next row to read from scene memory
        wr_row = Signal(range(8))       # next row to write into the core
        in_flight = Signal()            # a read was taken last cycle: its word arrives now
        streaming = Signal()

        # scene memory reads, at most 3 rows ahead of the writes (the buffer's room)
        m.d.comb += [
            self.scene_req.valid.eq(streaming & (self.num_triangles != 0)
                                    & (req_row < ROWS_PER_TRIANGLE)
                                    & (buffer.level + in_flight < buffer.depth)),
            self.scene_req.payload.eq(triangle * SLOT_ROWS + req_row),
        ]
        taken = self.scene_req.valid & self.scene_req.ready
        m.d.sync += in_flight.eq(taken)
        with m.If(taken):
            m.d.sync += req_row.eq(req_row + 1)
        m.d.comb += [buffer.w_en.eq(self.scene_resp.valid),
                     buffer.w_data.eq(self.scene_resp.payload)]

        m.d.comb += self.tri_ready.eq(streaming & (wr_row == ROWS_PER_TRIANGLE))
        with m.If(streaming & self.tri_flip & self.tri_ready):
            last = triangle + 1 >= self.num_triangles
            m.d.sync += [req_row.eq(0), wr_row.eq(0), triangle.eq(Mux(last, 0, triangle + 1))]

        with m.FSM():
            with m.State("IDLE"):
                # drop words of reads a stopped band left behind
                drained = ~buffer.r_rdy & ~in_flight
                m.d.comb += [buffer.r_en.eq(1), self.idle.eq(drained),
                             self.band.ready.eq(drained),
                             self.config.ready.eq(self.io_ready),
                             self.io_valid.eq(self.config.valid),
                             self.io_addr.eq(self.config.payload.row),
                             self.io_data.eq(self.config.payload.data)]
                with m.If(self.band.valid & drained):
                    m.d.sync += [entry.eq(self.band.payload), triangle.eq(0), req_row.eq(0),
                                 wr_row.eq(0)]
                    m.next = "ROW6"
            with m.State("ROW6"):
                m.d.comb += [self.io_valid.eq(1), self.io_addr.eq(_INITIAL_ROW),
                             self.io_data.eq(entry.initial)]
                with m.If(self.io_ready):
                    m.next = "ROW7"
            with m.State("ROW7"):
                m.d.comb += [self.io_valid.eq(1), self.io_addr.eq(_FINAL_ROW),
                             self.io_data.eq(entry.final)]
                with m.If(self.io_ready):
                    m.next = "START"
            with m.State("START"):
                m.d.comb += self.band_start.eq(1)
                m.d.sync += streaming.eq(1)
                m.next = "STREAM"
            with m.State("STREAM"):
                m.d.comb += [self.io_valid.eq(buffer.r_rdy),
                             self.io_addr.eq(TRIANGLE_FIRST_REG + wr_row),
                             self.io_data.eq(buffer.r_data),
                             buffer.r_en.eq(self.io_ready)]
                with m.If(buffer.r_rdy & self.io_ready):
                    m.d.sync += wr_row.eq(wr_row + 1)
                with m.If(self.band_done | self.core_error):
                    m.d.comb += self.error.eq(self.core_error & ~self.band_done)
                    m.d.sync += streaming.eq(0)
                    m.next = "IDLE"
        return m
