"""The board top as the host tool's simulations see it: the UART pins, the board logic that ships
(boards/ulx3s.py ``BoardLogic``: UART receiver and transmitter, the host-link bridge with its
CRC checker and write buffer) and the GPU, with the GPU's host port brought out as a monitor.

``SimulatedBoard`` is a top for the compiled simulator (sim/fast), described by plain arguments
so its build is cached (``simulated_board_design``); ``gpu_write_*`` show every write the GPU's
host port takes (valid high at the edge that takes it), so a test or the host tool can check
that each one is a write the host meant.

A board whose GPU keeps its memories in SDRAM (``GpuConfig.memory``: the board presets) is
simulated as the board holds it: the ``GpuSystem`` (hdl/gpu/system.py) with the SDRAM's pins
brought out for the chip model (``pins``, sim/sdram/) and the display's TMDS bit pairs
(``data``, ``clock``: ``tmds`` domain) for a monitor's receiver (sim/display/tmds_decode.py).
"""

from amaranth import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from boards.ulx3s import BoardLogic
from hdl.gpu.gpu import Gpu
from hdl.gpu.system import GpuSystem
from hdl.mem.sdram_phy import simulation_pins
from sim.sdram.top import PinLevels, connect_pin_levels

__all__ = ["SimulatedBoard", "simulated_board_design", "simulated_board_config"]


class SimulatedBoard(wiring.Component):
    """Ports: ``rx``, ``tx``, ``gpu_write_*``; with ``config.memory`` also ``pins`` (the
    SDRAM's), ``data``/``clock`` (TMDS bit pairs), ``initialised``, ``underrun``."""

    def __init__(self, rom, config, divisor, link_timeout):
        members = {"rx": In(1, init=1), "tx": Out(1, init=1), "gpu_write_valid": Out(1),
                   "gpu_write_addr": Out(32), "gpu_write_data": Out(32)}
        if config.memory is None:
            self.gpu = Gpu(rom, config)
            self.system = None
        else:
            self.sim_pins = simulation_pins(config.memory.chip)
            self.gpu = self.system = GpuSystem(rom, config, self.sim_pins)
            system_members = self.system.signature.members
            members.update({name: system_members[name]
                            for name in ("data", "clock", "initialised", "underrun")},
                           pins=Out(PinLevels(config.memory.chip)))
        self.logic = BoardLogic(self.gpu, divisor, link_timeout=link_timeout)
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        m.submodules.logic = logic = self.logic
        host = self.gpu.host
        m.d.comb += [logic.rx.eq(self.rx), self.tx.eq(logic.tx),
                     self.gpu_write_valid.eq(host.valid & host.ready & host.write),
                     self.gpu_write_addr.eq(host.addr), self.gpu_write_data.eq(host.wdata)]
        if self.system is not None:
            system = self.system
            m.d.comb += [self.data.eq(system.data), self.clock.eq(system.clock),
                         self.initialised.eq(system.initialised),
                         self.underrun.eq(system.underrun)]
            connect_pin_levels(m, self.pins, self.sim_pins)
        return m


def _round_up(n, minimum):
    size = minimum
    while size < n:
        size *= 2
    return size


def simulated_board_config(scene, cores=1, name=None):
    """The board's GPU (preset ``name``; default ``ulx3s``, or ``ulx3s-r500`` for a scene with
    an R500 program) with ``cores`` cores and memories for ``scene``, sizes rounded up to powers
    of two so that similar scenes share one compiled model; a board with its memories in SDRAM
    keeps the preset's."""
    from hdl.config import preset
    name = name or ("ulx3s-r500" if scene.shader is not None else "ulx3s")
    board = preset(name)
    board.check_fits(scene)      # what the real board refuses, the simulated one does too
    if board.memory is not None:
        # (textures and frames in SDRAM cost the simulation nothing: every scene runs on the
        # board's memories, one compiled model)
        return preset(name, cores=cores)
    config = preset(
        name, cores=cores,
        max_triangles=_round_up(len(scene.triangles), 16),
        tmem_words=min(board.tmem_words, _round_up(len(scene.texture), 1024)),
        omem_words=min(board.omem_words, _round_up(3 * scene.pixel_count, 1024)),
        max_bands=_round_up(len(scene.bands), 8),
        user_words=max(board.core.user_words, len(scene.user_code or [])))
    config.check_fits(scene)
    return config


def simulated_board_design(rom, config, divisor, link_timeout):
    from sim.fast.build import Design
    return Design(SimulatedBoard, [int(w) for w in rom], config, divisor, link_timeout)

