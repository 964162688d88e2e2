"""A shader core: the execution core (hdl/core/core.py) with its control unit (hdl/core/control_unit.py).

This is the unit the GPU replicates. It renders the bands it is given: the IO side writes the
configuration rows (0-7) and streams triangles into the swap bank's IO copy, texture and output
memory answer TMREAD and OMWRITE. Ports are the two parts' outward ports, unchanged:

* band control: ``band_start``, ``band_done``, ``busy``, ``error`` (+ ``error_code``,
  ``error_pc`` of the core), ``pixel_triangles`` (how many triangles each pixel tests, a
  stream), ``omem_base`` (the band's output word offset);
* triangle streaming: ``tri_ready``, ``tri_flip``, and the register write port ``io_valid``,
  ``io_addr``, ``io_data``, ``io_ready``, ``io_idle``;
* user code: ``imem_we``, ``imem_addr``, ``imem_data``;
* memories: ``tm_req``/``tm_resp`` (texture words), ``om_req`` (output words);
* ``counters`` (the core's) and ``io_wait_cycles``, ``pixels``, ``tests`` (the control unit's);
* R500 shading: with ``r500`` set the firmware's R500 export routine runs in place of
  PIXELSHADER and its OMWRITEs leave on ``export`` (``pixel_hit`` beside them), not ``om_req``.
"""

from amaranth import Module, Mux
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from hdl.core.core import Core
from hdl.core.control_unit import ControlUnit
from hdl.core.ports import OutputWrite
from hdl.isa import R500_EXPORT_PC

__all__ = ["ShaderCore"]


class ShaderCore(wiring.Component):
    def __init__(self, rom, config, *, tmem_words, omem_words):
        self.core = Core(rom, config, tmem_words=tmem_words, omem_words=omem_words)
        self.control = ControlUnit()
        core_sig = self.core.signature.members
        members = {name: core_sig[name] for name in (
            "error_code", "error_pc", "io_valid", "io_addr", "io_data", "io_ready", "io_idle",
            "imem_we", "imem_addr", "imem_data", "omem_base", "tm_req", "tm_resp", "om_req",
            "counters", "swap_sel") + (("div",) if "div" in core_sig else ())}
        ctl_sig = self.control.signature.members
        members.update({name: ctl_sig[name] for name in (
            "band_start", "band_done", "busy", "error", "pixel_triangles", "tri_ready",
            "tri_flip", "io_wait_cycles", "pixels", "tests")})
        members.update({"r500": In(1), "export": Out(stream.Signature(OutputWrite)),
                        "pixel_hit": Out(1)})
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        m.submodules.core = core = self.core
        m.submodules.control = ctl = self.control
        m.d.comb += [
            core.start.eq(ctl.core_start),
            core.start_chain.eq(ctl.core_chain),
            core.start_direct.eq(ctl.core_start_direct),
            core.start_pc.eq(R500_EXPORT_PC),
            ctl.r500.eq(self.r500), self.pixel_hit.eq(ctl.pixel_hit),
            core.start_entry.eq(ctl.core_start_entry),
            core.flip.eq(ctl.core_flip),
            ctl.core_busy.eq(core.busy),
            ctl.core_done.eq(core.done),
            ctl.core_result.eq(core.result),
            ctl.core_error.eq(core.error),
        ]
        for name in ("band_start", "tri_ready"):
            m.d.comb += getattr(ctl, name).eq(getattr(self, name))
        wiring.connect(m, wiring.flipped(self.pixel_triangles), ctl.pixel_triangles)
        for name in ("band_done", "busy", "error", "tri_flip", "io_wait_cycles", "pixels",
                     "tests"):
            m.d.comb += getattr(self, name).eq(getattr(ctl, name))
        for name in ("io_valid", "io_addr", "io_data", "imem_we", "imem_addr", "imem_data",
                     "omem_base"):
            m.d.comb += getattr(core, name).eq(getattr(self, name))
        for name in ("error_code", "error_pc", "io_ready", "io_idle", "counters", "swap_sel"):
            m.d.comb += getattr(self, name).eq(getattr(core, name))
        wiring.connect(m, wiring.flipped(self.tm_req), core.tm_req)
        wiring.connect(m, core.tm_resp, wiring.flipped(self.tm_resp))
        # the core's output writes: to the output memory, or while the R500 export routine
        # runs to the R500 stage
        exporting = ctl.exporting
        m.d.comb += [self.om_req.payload.eq(core.om_req.payload),
                     self.export.payload.eq(core.om_req.payload),
                     self.om_req.valid.eq(core.om_req.valid & ~exporting),
                     self.export.valid.eq(core.om_req.valid & exporting),
                     core.om_req.ready.eq(Mux(exporting, self.export.ready, self.om_req.ready))]
        if "div" in self.signature.members:
            wiring.connect(m, core.div, wiring.flipped(self.div))
        return m
