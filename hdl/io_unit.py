"""The IO unit of one shader core: everything theia-system.md §2 asks of "the IO side".

* Configuration broadcast: while idle, a host configuration row (``config`` stream: register
  row and value) is written into the core's configuration bank.
* Band setup: a band (``band`` stream: its two position rows and output word base) is taken
  only while idle; rows 6 and 7 are written, ``omem_base`` is set and ``band_start`` pulses.
* Triangle streaming: the scene memory returns a whole triangle (7 rows, ``TriangleLayout``)
  per read (``scene_req``: triangle index, ``scene_resp`` a cycle or more after the read is
  taken; one read at a time).
  The unit keeps one triangle in a buffer and writes its 7 rows into the IO copy of the swap
  bank (registers 44-50), one per cycle the core's write port is free (``io_ready``). When all
  7 are in (the core takes rows into a buffer: ``io_idle`` says they have landed),
  ``tri_ready`` goes high; the control unit flips the copies (``tri_flip``) and MAIN
  runs on triangle k while triangle k+1 (after the last one: triangle 0, for the next pixel)
  is written. The flip is the only synchronisation.

Prefetch: the buffer is refilled with the next triangle as soon as its rows have been written,
i.e. while ``tri_ready`` waits for the flip. So after a flip only the 7 register writes remain
(``tri_ready`` 8 cycles after ``tri_flip`` with a free write port), and the shared scene
memory sees one read per triangle per core, which 8 cores with a ~20-cycle MAIN share easily.
The first triangle of a band is read as soon as the band is taken (during rows 6/7) and written
during INITIAL .. RGU.

The buffer only loads (its flip-flops' enables, no logic in front of them); the row going out is
picked by ``copy_rows`` (rows already in the copy), a registered select of a 7:1 multiplexer on
96 bits. (It used to shift down a row per write: a 2:1 choice in front of each of its 672
flip-flops: the unit was 1,049 LUT4 with it, 858 now, Yosys synth_ecp5.)

The band ends at ``band_done`` or when the core stops with an error (``core_error``: then
``error`` pulses once); the unit is idle again and drops the answer of a read still in flight.
"""

from amaranth import Module, Signal, Mux
from amaranth.lib import wiring, data, stream
from amaranth.lib.wiring import In, Out

from hdl.core import IoRow
from hdl.isa import VectorLayout, reg

__all__ = ["IoUnit", "BandEntry", "TriangleLayout", "TRIANGLE_FIRST_REG",
           "ROWS_PER_TRIANGLE", "SLOT_ROWS"]

#: register of a triangle's first row (V0); its 7 rows are consecutive registers
TRIANGLE_FIRST_REG = reg("CREG_V0")
ROWS_PER_TRIANGLE = 7
#: host address rows per triangle slot (7 used, a power of two for cheap addressing)
SLOT_ROWS = 8
#: one scene memory word: a triangle's rows V0 UV0 V1 UV1 V2 UV2 DIFFUSE (row 0 lowest)
TriangleLayout = data.ArrayLayout(VectorLayout, ROWS_PER_TRIANGLE)
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


class IoUnit(wiring.Component):
    """Parameter: ``max_triangles`` (scene memory depth in triangles)."""

    def __init__(self, max_triangles):
        if max_triangles < 1:
            raise ValueError(f"max_triangles must be at least 1, got {max_triangles}")
        self.max_triangles = max_triangles
        super().__init__({
            "band": In(stream.Signature(BandEntry)),
            "config": In(stream.Signature(IoRow)),
            "num_triangles": In(16),
            "idle": Out(1),
            "error": Out(1),
            "scene_req": Out(stream.Signature(range(max_triangles))),
            "scene_resp": In(stream.Signature(TriangleLayout, always_ready=True)),
            # towards the shader core
            "io_valid": Out(1), "io_addr": Out(6), "io_data": Out(VectorLayout), "io_ready": In(1),
            "io_idle": In(1),
            "omem_base": Out(32),
            "band_start": Out(1), "band_done": In(1), "core_error": In(1),
            "tri_ready": Out(1), "tri_flip": In(1),
        })

    def elaborate(self, platform):
        m = Module()
        entry = Signal(BandEntry)
        m.d.comb += self.omem_base.eq(entry.base)

        fetching = Signal()             # a band runs: keep the buffer filled
        writing = Signal()              # rows 6/7 are written: the write port is the buffer's
        next_triangle = Signal(16)      # the triangle the next read fetches
        in_flight = Signal()            # a read was taken, its triangle has not arrived yet
        buffer = Signal(TriangleLayout)
        buffer_rows = Signal(range(ROWS_PER_TRIANGLE + 1))   # rows of ``buffer`` not yet written
        copy_rows = Signal(range(ROWS_PER_TRIANGLE + 1))     # rows in the IO copy

        # one read per triangle, whenever the buffer is empty
        m.d.comb += [
            self.scene_req.valid.eq(fetching & (self.num_triangles != 0)
                                    & (buffer_rows == 0) & ~in_flight),
            self.scene_req.payload.eq(next_triangle),
        ]
        taken = self.scene_req.valid & self.scene_req.ready
        # (answered a cycle or more later: the Gpu registers the request on its way)
        with m.If(taken):
            m.d.sync += in_flight.eq(1)
        with m.Elif(self.scene_resp.valid):
            m.d.sync += in_flight.eq(0)
        with m.If(taken):
            m.d.sync += next_triangle.eq(Mux(next_triangle + 1 >= self.num_triangles, 0,
                                             next_triangle + 1))

        # buffer -> IO copy, row 0 first: row ``copy_rows`` goes out (when a row is written,
        # copy_rows + buffer_rows = 7)
        row_write = Signal()
        m.d.comb += row_write.eq(writing & (buffer_rows != 0)
                                 & (copy_rows != ROWS_PER_TRIANGLE))
        with m.If(self.scene_resp.valid & fetching):
            m.d.sync += [buffer.eq(self.scene_resp.payload), buffer_rows.eq(ROWS_PER_TRIANGLE)]
        with m.Elif(row_write & self.io_ready):
            m.d.sync += buffer_rows.eq(buffer_rows - 1)

        # (the core's rows land a cycle or more after they are taken: ``io_idle``)
        m.d.comb += self.tri_ready.eq(writing & (copy_rows == ROWS_PER_TRIANGLE) & self.io_idle)
        with m.If(self.tri_ready & self.tri_flip):
            m.d.sync += copy_rows.eq(0)
        with m.Elif(row_write & self.io_ready):
            m.d.sync += copy_rows.eq(copy_rows + 1)

        with m.FSM():
            with m.State("IDLE"):
                m.d.comb += [self.idle.eq(~in_flight), self.band.ready.eq(~in_flight),
                             self.config.ready.eq(self.io_ready),
                             self.io_valid.eq(self.config.valid),
                             self.io_addr.eq(self.config.payload.addr),
                             self.io_data.eq(self.config.payload.data)]
                with m.If(self.band.valid & ~in_flight):
                    m.d.sync += [entry.eq(self.band.payload), next_triangle.eq(0),
                                 buffer_rows.eq(0), copy_rows.eq(0), fetching.eq(1)]
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
            with m.State("START"):               # (once rows 6 and 7 have landed)
                with m.If(self.io_idle):
                    m.d.comb += self.band_start.eq(1)
                    m.d.sync += writing.eq(1)
                    m.next = "STREAM"
            with m.State("STREAM"):
                m.d.comb += [self.io_valid.eq(row_write),
                             self.io_addr.eq(TRIANGLE_FIRST_REG + copy_rows),
                             self.io_data.eq(buffer[copy_rows])]
                with m.If(self.band_done | self.core_error):
                    m.d.comb += self.error.eq(self.core_error & ~self.band_done)
                    m.d.sync += [fetching.eq(0), writing.eq(0)]
                    m.next = "IDLE"
        return m
