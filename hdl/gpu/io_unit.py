"""The IO unit of one shader core: everything theia-system.md §2 asks of "the IO side".

* Configuration broadcast: while idle, a host configuration row (``config`` stream: register
  row and value) is written into the core's configuration bank.
* Band setup: a band (``band`` stream: its two position rows and output word base) is taken
  only while idle; rows 6 and 7 are written, ``omem_base`` is set and ``band_start`` pulses.
* Triangle streaming: for each pixel, ahead of the core, ``BinFetch`` (hdl/gpu/bin_fetch.py)
  finds the pixel's bin (docs/binning.md; without bins, every triangle) and reads the scene
  memory: the bin's table and list rows (meta reads, answered to it) and its triangles' rows
  (``scene_req``: the row's address ``triangle * SLOT_ROWS + row``; ``scene_resp``: the 96-bit
  row, a cycle or more after the read is taken, in request order). How many triangles each
  pixel tests goes to the core on ``pixel_triangles`` (a FIFO of a few pixels). Rows arrive in
  a small queue (``ROW_QUEUE`` rows, LUT RAM); a row read is only made while the queue has room
  for its answer counting the reads in flight, so answers are never refused. The unit writes
  the rows from the queue into the IO copy of the swap bank (registers 44-50), one per cycle
  the core's write port is free (``io_ready``). When all 7 are in (the core takes rows into a
  buffer: ``io_idle`` says they have landed), ``tri_ready`` goes high; the control unit flips
  the copies (``tri_flip``) and MAIN runs on triangle k while the next one is written. The flip
  is the only synchronisation.

Prefetch: reads go on while ``tri_ready`` waits for the flip, until the queue (8 rows: a whole
triangle and a row) is full. So after a flip only the 7 register writes remain (``tri_ready``
8 cycles after ``tri_flip`` with a free write port), and the scene memory sees 7 reads per
triangle per core, and a meta read per pixel and per four of its triangles. The first triangle
of a band is read as soon as the band is taken (during rows 6/7) and written during INITIAL ..
RGU.

Why rows and not whole triangles: a scene memory one triangle (672 bits) wide, read into a
672-bit buffer per unit, puts 672 x 4 wires on the 4-core ULX3S top, all leaving the scene
memory's block-RAM row: the most congested spot of the chip, where the router does not
converge. A 96-bit row per read is a seventh of the wires, and the memory is 6 block RAMs
instead of 20 on the ULX3S (``hdl/gpu/gpu.py``).

The band ends at ``band_done`` or when the core stops with an error (``core_error``: then
``error`` pulses once); the unit is idle again (once the reads in flight are answered) and
drops their rows and those in its queue, and the counts of pixels fetched ahead.
"""

from amaranth import Module, Signal, Mux, ResetInserter, unsigned
from amaranth.lib import wiring, data, stream
from amaranth.lib.fifo import SyncFIFO
from amaranth.lib.wiring import In, Out

from hdl.core.core import IoRow
from hdl.gpu.bin_fetch import BinFetch
from hdl.gpu.scene_layout import GRID_AXIS_BITS, ROWS_PER_TRIANGLE, SLOT_ROWS
from hdl.isa import VectorLayout, reg

__all__ = ["IoUnit", "BandEntry", "TRIANGLE_FIRST_REG", "ROWS_PER_TRIANGLE", "SLOT_ROWS",
           "ROW_QUEUE", "COUNT_QUEUE"]

#: register of a triangle's first row (V0); its 7 rows are consecutive registers
TRIANGLE_FIRST_REG = reg("CREG_V0")
#: rows the unit can hold: a whole triangle read ahead while MAIN runs, and one more
ROW_QUEUE = 8
#: pixels whose triangle counts the unit can hold ahead of the core
COUNT_QUEUE = 4
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
    """Parameter: ``scene_rows`` (the scene memory's depth in rows)."""

    def __init__(self, scene_rows):
        if scene_rows < SLOT_ROWS:
            raise ValueError(f"scene_rows must be at least {SLOT_ROWS}, got {scene_rows}")
        self.scene_rows = scene_rows
        super().__init__({
            "band": In(stream.Signature(BandEntry)),
            "config": In(stream.Signature(IoRow)),
            "num_triangles": In(16),
            # the bins (hdl/gpu/scene_layout.py: BIN_GRID, BIN_TABLE, BIN_LIST)
            "grid_columns": In(GRID_AXIS_BITS), "grid_rows": In(GRID_AXIS_BITS),
            "table_base": In(range(scene_rows)), "list_base": In(range(scene_rows)),
            "idle": Out(1),
            "error": Out(1),
            "scene_req": Out(stream.Signature(range(scene_rows))),
            "scene_resp": In(stream.Signature(VectorLayout, always_ready=True)),
            # towards the shader core
            "io_valid": Out(1), "io_addr": Out(6), "io_data": Out(VectorLayout), "io_ready": In(1),
            "io_idle": In(1),
            "omem_base": Out(32),
            "band_start": Out(1), "band_done": In(1), "core_error": In(1),
            "tri_ready": Out(1), "tri_flip": In(1),
            "pixel_triangles": Out(stream.Signature(unsigned(16))),
        })

    def elaborate(self, platform):
        m = Module()
        entry = Signal(BandEntry, reset_less=True)     # (a datapath register: no reset)
        m.d.comb += self.omem_base.eq(entry.base)

        fetching = Signal()             # a band runs: keep the queue filled
        writing = Signal()              # rows 6/7 are written: the write port is the queue's
        in_flight = Signal(range(ROW_QUEUE + 2))    # reads taken, not answered yet
        copy_rows = Signal(range(ROWS_PER_TRIANGLE + 1))     # rows in the IO copy

        # (emptied when a band is taken: rows and counts of a band that ended do not reach
        # the next one; the fetch starts its walk again)
        start_band = Signal()
        m.submodules.queue = queue = ResetInserter(start_band)(
            SyncFIFO(width=VectorLayout.as_shape().size, depth=ROW_QUEUE))
        m.submodules.counts = counts = ResetInserter(start_band)(
            SyncFIFO(width=16, depth=COUNT_QUEUE))
        m.submodules.fetch = fetch = ResetInserter(start_band)(BinFetch(self.scene_rows))
        m.d.comb += [fetch.initial_x.eq(entry.initial.x), fetch.initial_y.eq(entry.initial.y),
                     fetch.final_x.eq(entry.final.x), fetch.num_triangles.eq(self.num_triangles),
                     fetch.grid_columns.eq(self.grid_columns), fetch.grid_rows.eq(self.grid_rows),
                     fetch.table_base.eq(self.table_base), fetch.list_base.eq(self.list_base)]
        m.d.comb += [counts.w_en.eq(fetch.count.valid), counts.w_data.eq(fetch.count.payload),
                     fetch.count.ready.eq(counts.w_rdy),
                     self.pixel_triangles.valid.eq(counts.r_rdy & writing),
                     self.pixel_triangles.payload.eq(counts.r_data),
                     counts.r_en.eq(self.pixel_triangles.ready & writing)]

        # a row read only while the queue has room for its answer; a meta read any time
        room = Mux(fetch.read_row, in_flight + queue.level < ROW_QUEUE, in_flight <= ROW_QUEUE)
        m.d.comb += [
            self.scene_req.valid.eq(fetching & fetch.read.valid & room),
            self.scene_req.payload.eq(fetch.read.payload),
            fetch.read.ready.eq(fetching & self.scene_req.ready & room),
        ]
        taken = self.scene_req.valid & self.scene_req.ready
        # (answered a cycle or more later: the Gpu registers the request on its way)
        with m.If(taken & ~self.scene_resp.valid):
            m.d.sync += in_flight.eq(in_flight + 1)
        with m.Elif(~taken & self.scene_resp.valid):
            m.d.sync += in_flight.eq(in_flight - 1)
        # A meta read waits for its answer: the last one outstanding is its. Rows of a band
        # that ended are dropped.
        meta = Signal()
        m.d.comb += [meta.eq(self.scene_resp.valid & fetch.waiting & (in_flight == 1)),
                     fetch.meta.valid.eq(meta & fetching),
                     fetch.meta.payload.eq(self.scene_resp.payload),
                     queue.w_en.eq(self.scene_resp.valid & fetching & ~meta),
                     queue.w_data.eq(self.scene_resp.payload)]

        # queue -> IO copy, row 0 first
        row_write = Signal()
        m.d.comb += row_write.eq(writing & queue.r_rdy & (copy_rows != ROWS_PER_TRIANGLE))
        row_written = row_write & self.io_ready
        m.d.comb += queue.r_en.eq(row_written)

        # (the core's rows land a cycle or more after they are taken: ``io_idle``)
        m.d.comb += self.tri_ready.eq(writing & (copy_rows == ROWS_PER_TRIANGLE) & self.io_idle)
        with m.If(self.tri_ready & self.tri_flip):
            m.d.sync += copy_rows.eq(0)
        with m.Elif(row_written):
            m.d.sync += copy_rows.eq(copy_rows + 1)

        with m.FSM():
            with m.State("IDLE"):
                m.d.comb += [self.idle.eq(in_flight == 0), self.band.ready.eq(in_flight == 0),
                             self.config.ready.eq(self.io_ready),
                             self.io_valid.eq(self.config.valid),
                             self.io_addr.eq(self.config.payload.addr),
                             self.io_data.eq(self.config.payload.data)]
                with m.If(self.band.valid & (in_flight == 0)):
                    m.d.comb += start_band.eq(1)
                    m.d.sync += [entry.eq(self.band.payload), copy_rows.eq(0),
                                 fetching.eq(1)]
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
                             self.io_data.eq(queue.r_data)]
                with m.If(self.band_done | self.core_error):
                    m.d.comb += self.error.eq(self.core_error & ~self.band_done)
                    m.d.sync += [fetching.eq(0), writing.eq(0)]
                    m.next = "IDLE"
        return m
