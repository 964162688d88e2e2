"""The board top as the host tool's simulations see it: the UART pins, the board logic that ships
(boards/ulx3s.py ``BoardLogic``: UART receiver and transmitter, the host-link bridge with its
CRC checker and write buffer) and the GPU, with the GPU's host port brought out as a monitor.

``SimulatedBoard`` is a top for the compiled simulator (sim/fast), described by plain arguments
so its build is cached (``simulated_board_design``); ``gpu_write_*`` show every write the GPU's
host port takes (valid high at the edge that takes it), so a test or the host tool can check
that each one is a write the host meant.
"""

from amaranth import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from boards.ulx3s import BoardLogic
from hdl.gpu.gpu import Gpu

__all__ = ["SimulatedBoard", "simulated_board_design", "simulated_board_config"]


class SimulatedBoard(wiring.Component):
    rx: In(1, init=1)
    tx: Out(1, init=1)
    gpu_write_valid: Out(1)
    gpu_write_addr: Out(32)
    gpu_write_data: Out(32)

    def __init__(self, rom, config, divisor, link_timeout):
        self.gpu = Gpu(rom, config)
        self.logic = BoardLogic(self.gpu, divisor, link_timeout=link_timeout)
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        m.submodules.logic = logic = self.logic
        host = self.gpu.host
        m.d.comb += [logic.rx.eq(self.rx), self.tx.eq(logic.tx),
                     self.gpu_write_valid.eq(host.valid & host.ready & host.write),
                     self.gpu_write_addr.eq(host.addr), self.gpu_write_data.eq(host.wdata)]
        return m


def _round_up(n, minimum):
    size = minimum
    while size < n:
        size *= 2
    return size


def simulated_board_config(scene, cores=1, name=None):
    """The board's GPU (preset ``name``; default ``ulx3s``, or ``ulx3s-r500`` for a scene with
    an R500 program) with ``cores`` cores and memories for ``scene``, sizes rounded up to powers
    of two so that similar scenes share one compiled model."""
    from hdl.config import preset
    name = name or ("ulx3s-r500" if scene.shader is not None else "ulx3s")
    board = preset(name)
    board.check_fits(scene)      # what the real board refuses, the simulated one does too
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
