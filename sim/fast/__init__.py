"""Fast simulation of the exported RTL: Verilator or CXXRTL models driven through ctypes.

* ``sim.fast.build``: top -> Verilog -> shared library, cached by design hash;
* ``sim.fast.driver.FastSim``: ports, stepping, C++-served memories and host bus;
* ``sim.fast.gpu.render_gpu_fast``: a whole frame on hdl/gpu.py's Gpu through its host bus.

Measured here (2-core shared machine, per CPU-second of the simulating process; wall-clock rates
were 2-4x lower while other jobs ran), ``python -m bench.fast_sim``:

| design / workload                      | Verilator 5.006       | CXXRTL (Yosys 0.70, -O6) |
|----------------------------------------|-----------------------|--------------------------|
| hdl.core.Core, ALU/DIV loop            | ~930k cycles/s        | ~72k cycles/s            |
| build (cold, -j 2, busy machine)       | 45-65 s               | 185-245 s                |
| Gpu, 1 core, demo scene 32x32          | ~740k cycles/s (incl. bus load/readback) | not built |

Verilator is the default (12x faster and 3-4x quicker to build); CXXRTL stays selectable with
``backend="cxxrtl"``. A cached model is found again in a few seconds (elaboration + RTLIL).
"""

from sim.fast.build import BACKENDS, DEFAULT_BACKEND, BuildError, check_tools
from sim.fast.driver import FastSim, FastSimError
from sim.fast.gpu import render_gpu_fast

__all__ = ["BACKENDS", "DEFAULT_BACKEND", "BuildError", "check_tools", "FastSim", "FastSimError",
           "render_gpu_fast"]
