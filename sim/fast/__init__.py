"""Fast simulation of the exported RTL: Verilator or CXXRTL models driven through ctypes.

* ``sim.fast.build``: top -> Verilog -> shared library, cached by design hash;
* ``sim.fast.driver.FastSim``: ports, stepping, C++-served memories and host bus;
* ``sim.fast.gpu.render_gpu_fast``: a whole frame on hdl/gpu.py's Gpu through its host bus.
"""

from sim.fast.build import BACKENDS, DEFAULT_BACKEND, BuildError, check_tools
from sim.fast.driver import FastSim, FastSimError
from sim.fast.gpu import render_gpu_fast

__all__ = ["BACKENDS", "DEFAULT_BACKEND", "BuildError", "check_tools", "FastSim", "FastSimError",
           "render_gpu_fast"]
