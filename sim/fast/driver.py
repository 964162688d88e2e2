"""Driving a compiled top (sim/fast/build.py) from Python through ctypes.

``FastSim(top)`` builds (or finds in the cache) the model of an Amaranth component and loads it.
Ports are named as Verilog names them (``tm_req__payload``); the clock and reset are implicit.

    sim = FastSim(Design(Core, rom))               # or FastSim(Core(rom)), FastSim(lambda: ...)
    sim.reset()
    sim.set("start", 1); sim.step(); sim.set("start", 0)
    cycles = sim.run_until(["done", "error"], max_cycles=10_000_000)
    counters = sim.get_fields("counters")           # data.Const of the view's layout

Texture/output style memories can be served inside the C++ loop (``serve_reads``,
``serve_writes``), and a 32-bit host bus (docs/host-interface.md) is driven by ``bus_write``,
``bus_read`` and ``bus_poll``, each performing the handshakes cycle by cycle in C++. A serial
line (8N1) on a top's rx/tx pins is driven and decoded bit by bit in C++ (``uart_attach``,
``uart_send``, ``uart_run``, ``uart_take``), and ``add_write_monitor`` records what a port
pair carries at the edges its ``valid`` is high. Streams are fed and drained in C++
(``add_stream_source``/``stream_push``, ``add_stream_sink``/``stream_take``,
``run_streams``), and a chip on the top's pins can be a Python model called only in the
cycles where something happens (``attach_pin_model``).
"""

import ctypes
import os
import time

import numpy as np
from amaranth.lib import wiring

from sim.fast.build import build, Design, DEFAULT_BACKEND, BACKENDS

__all__ = ["FastSim", "FastSimError", "Design"]

_u32p = ctypes.POINTER(ctypes.c_uint32)
_u8p = ctypes.POINTER(ctypes.c_uint8)
_u64p = ctypes.POINTER(ctypes.c_uint64)
_libraries = {}                 # path -> CDLL (a library is loaded once per process)
#: the pin model's callback: (cycle, packed pins) -> schedule entries, or -1 to stop
_PIN_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_uint64, ctypes.c_uint64)


class FastSimError(Exception):
    pass


def _load(path):
    path = str(path)
    if path in _libraries:
        return _libraries[path]
    lib = ctypes.CDLL(path)
    c = ctypes
    for name, restype, argtypes in (
            ("theia_num_ports", c.c_int, []),
            ("theia_port_name", c.c_char_p, [c.c_int]),
            ("theia_port_width", c.c_int, [c.c_int]),
            ("theia_port_dir", c.c_int, [c.c_int]),
            ("theia_create", c.c_void_p, []),
            ("theia_destroy", None, [c.c_void_p]),
            ("theia_error", c.c_char_p, [c.c_void_p]),
            ("theia_cycles", c.c_uint64, [c.c_void_p]),
            ("theia_get", c.c_uint64, [c.c_void_p, c.c_int]),
            ("theia_set", None, [c.c_void_p, c.c_int, c.c_uint64]),
            ("theia_get_words", None, [c.c_void_p, c.c_int, _u32p]),
            ("theia_set_words", None, [c.c_void_p, c.c_int, _u32p]),
            ("theia_step", None, [c.c_void_p, c.c_uint64]),
            ("theia_reset", None, [c.c_void_p, c.c_uint64]),
            ("theia_run_until", c.c_uint64, [c.c_void_p, c.POINTER(c.c_int), c.c_int,
                                             c.c_uint64]),
            ("theia_add_read_server", c.c_int, [c.c_void_p] + [c.c_int] * 5
             + [_u32p, c.c_uint64]),
            ("theia_add_write_server", c.c_int, [c.c_void_p] + [c.c_int] * 3
             + [_u32p, c.c_uint64]),
            ("theia_set_bus", None, [c.c_void_p] + [c.c_int] * 7),
            ("theia_bus_write", c.c_int64, [c.c_void_p, c.c_uint32, _u32p, c.c_uint64, c.c_int,
                                            c.c_uint64]),
            ("theia_bus_write_scatter", c.c_int64, [c.c_void_p, _u32p, _u32p, c.c_uint64,
                                                    c.c_uint64]),
            ("theia_bus_read", c.c_int64, [c.c_void_p, c.c_uint32, _u32p, c.c_uint64,
                                           c.c_uint64]),
            ("theia_bus_poll", c.c_int64, [c.c_void_p, c.c_uint32, c.c_uint32, c.c_uint64,
                                           c.c_uint64, _u32p]),
            ("theia_add_write_monitor", c.c_int, [c.c_void_p, c.c_int, c.c_int, c.c_int]),
            ("theia_take_writes", c.c_uint64, [c.c_void_p, c.c_int, _u32p, _u32p, c.c_uint64]),
            ("theia_uart_attach", None, [c.c_void_p, c.c_int, c.c_int, c.c_uint64]),
            ("theia_uart_send", None, [c.c_void_p, _u8p, _u64p, c.c_uint64]),
            ("theia_uart_pending", c.c_uint64, [c.c_void_p]),
            ("theia_uart_framing_errors", c.c_uint64, [c.c_void_p]),
            ("theia_uart_run", c.c_uint64, [c.c_void_p, c.c_uint64, c.c_uint64, c.c_int]),
            ("theia_uart_take", c.c_uint64, [c.c_void_p, _u8p, _u64p, c.c_uint64]),
            ("theia_add_stream_source", c.c_int, [c.c_void_p, c.c_int, c.c_int, c.c_int]),
            ("theia_stream_push", None, [c.c_void_p, c.c_int, _u64p, _u64p, c.c_uint64]),
            ("theia_stream_pending", c.c_uint64, [c.c_void_p, c.c_int]),
            ("theia_add_stream_sink", c.c_int, [c.c_void_p, c.c_int, c.c_int, c.c_int,
                                                c.c_uint32, c.c_uint64]),
            ("theia_stream_expect", None, [c.c_void_p, c.c_int, c.c_uint64]),
            ("theia_stream_take", c.c_uint64, [c.c_void_p, c.c_int, _u64p, c.c_uint64]),
            ("theia_run_streams", c.c_uint64, [c.c_void_p, c.c_uint64]),
            ("theia_pin_model", None, [c.c_void_p, c.POINTER(c.c_int), c.POINTER(c.c_int),
                                       c.c_int, _u64p, c.c_int, c.c_int, _PIN_CALLBACK, _u64p,
                                       c.c_uint64]),
            ("theia_pin_model_calls", c.c_uint64, [c.c_void_p]),
            ("theia_num_clocks", c.c_int, [c.c_void_p]),
            ("theia_clock_name", c.c_char_p, [c.c_void_p, c.c_int]),
            ("theia_set_clocks", None, [c.c_void_p, c.c_uint64, _u64p, _u64p]),
            ("theia_clock_edges", c.c_uint64, [c.c_void_p, c.c_int]),
            ("theia_add_clock_monitor", c.c_int, [c.c_void_p, c.c_int, c.POINTER(c.c_int),
                                                  c.POINTER(c.c_int), c.c_int]),
            ("theia_arm_clock_monitor", None, [c.c_void_p, c.c_int, c.c_uint64]),
            ("theia_clock_monitor_remaining", c.c_uint64, [c.c_void_p, c.c_int]),
            ("theia_run_clock_monitor", c.c_uint64, [c.c_void_p, c.c_int, c.c_uint64]),
            ("theia_take_clock_monitor", c.c_uint64, [c.c_void_p, c.c_int, _u64p, c.c_uint64]),
    ):
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
    _libraries[path] = lib
    return lib


def _lcm_of_denominators(fractions):
    import math
    lcm = 1
    for f in fractions:
        lcm = lcm * f.denominator // math.gcd(lcm, f.denominator)
    return lcm


def _words(array):
    """A C-contiguous uint32 numpy array and its pointer (the array must be kept alive)."""
    array = np.ascontiguousarray(array, dtype=np.uint32)
    return array, array.ctypes.data_as(_u32p)


class FastSim:
    """A compiled simulation of ``top``: a ``sim.fast.build.Design`` (preferred: a cached build
    is found without elaborating), a wiring.Component or a callable returning one.

    ``backend``: "verilator" (default) or "cxxrtl". The build is cached (see build.py);
    ``build_info`` tells whether this one came from the cache and how long it took to make.
    """

    def __init__(self, top, backend=None, jobs=2, log=None):
        backend = backend or DEFAULT_BACKEND
        if backend not in BACKENDS:
            raise FastSimError(f"unknown backend {backend!r}; choose from {', '.join(BACKENDS)}")
        if callable(top) and not isinstance(getattr(top, "signature", None), wiring.Signature):
            top = top()             # a factory (or a component class)
        start = time.monotonic()
        self.build_info = build(top, backend, jobs=jobs, log=log)
        self.prepare_s = round(time.monotonic() - start, 2)
        self.backend = backend
        self._lib = _load(self.build_info.library)
        self.ports = {p.name: p for p in self.build_info.ports}
        self._index = {p.name: i for i, p in enumerate(self.build_info.ports)}
        lib = self._lib
        names = [lib.theia_port_name(i).decode() for i in range(lib.theia_num_ports())]
        if names != [p.name for p in self.build_info.ports]:
            raise FastSimError(f"{self.build_info.library}: port table does not match the design")
        self._handle = lib.theia_create()
        # a process forked from this one (the model's worker pool) has a copy of the handle but
        # none of the simulator's threads: destroying it there would wait for them forever
        self._owner_pid = os.getpid()
        self._keep = []                      # arrays the C++ side points into
        self._bus = False
        self._pin_error = None               # what stopped the pin model (attach_pin_model)

    def close(self):
        if self._handle:
            if os.getpid() == self._owner_pid:
                self._lib.theia_destroy(self._handle)
            self._handle = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # --- ports ------------------------------------------------------------------------------

    def index(self, name):
        try:
            return self._index[name]
        except KeyError:
            raise FastSimError(f"the design has no port {name!r} (ports: "
                               f"{', '.join(self._index)})") from None

    def set(self, name, value):
        i = self.index(name)
        port = self.ports[name]
        if port.direction != "in":
            raise FastSimError(f"port {name!r} is an output")
        value = int(value) & ((1 << port.width) - 1)
        if port.width <= 64:
            self._lib.theia_set(self._handle, i, value)
        else:
            n = (port.width + 31) // 32
            buf = (ctypes.c_uint32 * n)(*((value >> (32 * k)) & 0xFFFF_FFFF for k in range(n)))
            self._lib.theia_set_words(self._handle, i, buf)

    def get(self, name):
        i = self.index(name)
        width = self.ports[name].width
        if width <= 64:
            return self._lib.theia_get(self._handle, i)
        n = (width + 31) // 32
        buf = (ctypes.c_uint32 * n)()
        self._lib.theia_get_words(self._handle, i, buf)
        return sum(int(w) << (32 * k) for k, w in enumerate(buf))

    def get_fields(self, name):
        """A struct port's value as a lib.data.Const of its layout (fields as attributes)."""
        layout = self.ports[name].layout
        if layout is None:
            raise FastSimError(f"port {name!r} is not a data view")
        return layout.from_bits(self.get(name))

    # --- time -------------------------------------------------------------------------------

    @property
    def cycles(self):
        """Rising edges since creation."""
        return self._lib.theia_cycles(self._handle)

    def step(self, n=1):
        self._lib.theia_step(self._handle, n)
        self.check_pin_model()

    def reset(self, cycles=1):
        """Hold the clock domains' resets for ``cycles`` edges (of each running clock). (The
        model starts in its reset state without this; memories keep their contents.)"""
        self._lib.theia_reset(self._handle, cycles)

    def start_program(self, words, pc=None):
        """Core tops: write ``words`` into the user instruction RAM through ``imem_*`` (one per
        cycle) and start a routine at ``pc`` (default: the first user instruction)."""
        from hdl.isa import USER_CODE_START
        for i, word in enumerate(words):
            self.set("imem_we", 1)
            self.set("imem_addr", i)
            self.set("imem_data", word)
            self.step()
        self.set("imem_we", 0)
        self.set("start", 1)
        self.set("start_direct", 1)
        self.set("start_pc", USER_CODE_START if pc is None else pc)
        self.step()
        self.set("start", 0)

    def run_until(self, names, max_cycles):
        """Step until any port of ``names`` (a name or a list) is non-zero, checked before each
        edge, or ``max_cycles`` edges; return the edges taken."""
        if isinstance(names, str):
            names = [names]
        idx = (ctypes.c_int * len(names))(*(self.index(n) for n in names))
        cycles = self._lib.theia_run_until(self._handle, idx, len(names), max_cycles)
        self.check_pin_model()
        return cycles

    # --- other clock domains ----------------------------------------------------------------

    @property
    def clocks(self):
        """The clock domains besides ``sync`` (the top's ``<name>_clk`` inputs)."""
        lib = self._lib
        return [lib.theia_clock_name(self._handle, i).decode()
                for i in range(lib.theia_num_clocks(self._handle))]

    def set_clocks(self, sync_hz, clocks):
        """Run the other domains' clocks beside the sync clock (``sync_hz``): ``clocks`` maps
        a domain to its frequency, or to (frequency, phase): its first rising edge comes that
        fraction of its period after the sync clock's next one. A domain left out stays stopped. The cycles of
        ``step``, ``run_until`` etc. stay the sync clock's; the edges of the others come in
        time order between them (clocks from one PLL at phase 0 rise together)."""
        from fractions import Fraction
        names = self.clocks
        unknown = set(clocks) - set(names)
        if unknown:
            raise FastSimError(f"the design has no clock domain {sorted(unknown)} (it has "
                               f"{', '.join(names) or 'none besides sync'})")
        spec = {name: value if isinstance(value, tuple) else (value, 0)
                for name, value in clocks.items()}
        def exact(x):           # 125e6 / 3 as a float is 125000000/3
            return Fraction(x).limit_denominator(1 << 20)

        # time in ticks: every period (and phase) a whole number of them
        times = [1 / exact(sync_hz)] + [t for hz, phase in spec.values()
                                        for t in (1 / exact(hz), exact(phase) / exact(hz))]
        unit = Fraction(1, _lcm_of_denominators(times))
        ticks = {name: (int(1 / exact(hz) / unit), int(exact(phase) / exact(hz) / unit))
                 for name, (hz, phase) in spec.items()}
        periods = np.array([ticks.get(n, (0, 0))[0] for n in names] or [0], dtype=np.uint64)
        phases = np.array([ticks.get(n, (0, 0))[1] for n in names] or [0], dtype=np.uint64)
        self._lib.theia_set_clocks(self._handle, int(times[0] / unit),
                                   periods.ctypes.data_as(_u64p), phases.ctypes.data_as(_u64p))

    def clock_edges(self, name=None):
        """Rising edges of domain ``name``'s clock (None: the sync clock's, ``cycles``)."""
        index = -1 if name is None else self._clock_index(name)
        return self._lib.theia_clock_edges(self._handle, index)

    def _clock_index(self, name):
        names = self.clocks
        if name not in names:
            raise FastSimError(f"the design has no clock domain {name!r}")
        return names.index(name)

    def _packing(self, ports):
        """Where each of ``ports`` (names) goes in a 64-bit word, lowest bits first."""
        shifts, at = [], 0
        for name in ports:
            shifts.append(at)
            at += self.ports[name].width
        if at > 64:
            raise FastSimError(f"the ports {ports} are {at} bits; at most 64 pack into a word")
        return shifts

    def add_clock_monitor(self, clock, ports):
        """Record the levels of ``ports`` (names, packed lowest bits first, at most 64 bits)
        just before each rising edge of domain ``clock``'s clock (None: the sync clock) once
        armed (``arm_clock_monitor``); returns its handle."""
        shifts = self._packing(ports)
        index = -1 if clock is None else self._clock_index(clock)
        port_array = (ctypes.c_int * len(ports))(*(self.index(n) for n in ports))
        shift_array = (ctypes.c_int * len(ports))(*shifts)
        return self._lib.theia_add_clock_monitor(self._handle, index, port_array, shift_array,
                                                 len(ports))

    def arm_clock_monitor(self, monitor, edges):
        """Record the next ``edges`` edges."""
        self._lib.theia_arm_clock_monitor(self._handle, monitor, edges)

    def run_clock_monitor(self, monitor, max_cycles):
        """Step until the monitor has recorded what it is armed for (or ``max_cycles``);
        returns the cycles run."""
        cycles = self._lib.theia_run_clock_monitor(self._handle, monitor, max_cycles)
        self.check_pin_model()
        return cycles

    def take_clock_monitor(self, monitor):
        """The words a clock monitor recorded since the last call (uint64 array)."""
        chunks = []
        while True:
            out = np.zeros(1 << 20, dtype=np.uint64)
            n = self._lib.theia_take_clock_monitor(self._handle, monitor,
                                                   out.ctypes.data_as(_u64p), len(out))
            chunks.append(out[:n])
            if n < len(out):
                return np.concatenate(chunks)

    # --- memories served in C++ ---------------------------------------------------------------

    def serve_reads(self, req, resp, words):
        """Answer the request stream ``req`` (payload = word address) on stream ``resp`` from
        ``words`` (uint32 array; addresses past its end read 0): ``req.ready`` is held high,
        the word is on ``resp`` from the second edge after the request, one per cycle, in order
        (as sim.core_pysim.serve_memories does). Returns the array the model reads."""
        array, ptr = _words(words)
        self._keep.append(array)
        r = self._lib.theia_add_read_server(
            self._handle, self.index(f"{req}__valid"), self.index(f"{req}__ready"),
            self.index(f"{req}__payload"), self.index(f"{resp}__valid"),
            self.index(f"{resp}__payload"), ptr, len(array))
        if r:
            raise FastSimError("at most 4 read servers")
        return array

    def serve_writes(self, req, words):
        """Accept the stream ``req`` (payload = {addr[31:0], data[63:32]}) at once, storing data
        into ``words`` (uint32 array, modified in place; addresses past its end are dropped)."""
        array, ptr = _words(words)
        self._keep.append(array)
        self._lib.theia_add_write_server(
            self._handle, self.index(f"{req}__valid"), self.index(f"{req}__ready"),
            self.index(f"{req}__payload"), ptr, len(array))
        return array

    # --- host bus (docs/host-interface.md) ----------------------------------------------------

    def attach_bus(self, prefix=None):
        """Use the ports ``<prefix>__valid`` ... ``<prefix>__rdata`` (``valid`` ... when the
        prefix is "") as the host bus; by default the one prefix that has all seven. Returns
        the prefix."""
        fields = ("valid", "write", "addr", "wdata", "ready", "rvalid", "rdata")

        def name(prefix, field):
            return f"{prefix}__{field}" if prefix else field

        if prefix is None:
            candidates = {""} | {n.rsplit("__", 1)[0] for n in self._index if "__" in n}
            candidates = sorted(c for c in candidates
                                if all(name(c, f) in self._index for f in fields))
            if len(candidates) != 1:
                found = candidates or "no valid/write/addr/wdata/ready/rvalid/rdata"
                raise FastSimError(f"cannot tell which ports are the host bus: {found}")
            prefix = candidates[0]
        self._lib.theia_set_bus(self._handle, *(self.index(name(prefix, f)) for f in fields))
        self._bus = True
        return prefix

    def _need_bus(self):
        if not self._bus:
            self.attach_bus()

    def _check(self, result, what):
        if result < 0:
            raise FastSimError(f"{what}: {self._lib.theia_error(self._handle).decode()}")
        return result

    def bus_write(self, addr, words, same_addr=False, timeout=100_000):
        """Write ``words`` to ``addr``, ``addr + 1``, ... (all to ``addr`` if ``same_addr``);
        returns the cycles taken."""
        self._need_bus()
        array, ptr = _words(words)
        if len(array) == 0:
            return 0
        return self._check(self._lib.theia_bus_write(self._handle, addr, ptr, len(array),
                                                     int(same_addr), timeout),
                           f"bus write at {addr:#x}")

    def bus_write_scatter(self, addrs, words, timeout=100_000):
        """Write ``words[i]`` to ``addrs[i]`` for every i, in order; returns the cycles taken."""
        self._need_bus()
        addr_array, addr_ptr = _words(addrs)
        word_array, word_ptr = _words(words)
        if len(addr_array) != len(word_array):
            raise FastSimError("bus_write_scatter: addrs and words differ in length")
        if len(addr_array) == 0:
            return 0
        return self._check(self._lib.theia_bus_write_scatter(self._handle, addr_ptr, word_ptr,
                                                             len(addr_array), timeout),
                           "bus write")

    def bus_read(self, addr, n, timeout=100_000):
        """Read ``n`` words from ``addr`` ...; returns a uint32 numpy array."""
        self._need_bus()
        out = np.zeros(n, dtype=np.uint32)
        if n:
            self._check(self._lib.theia_bus_read(self._handle, addr, out.ctypes.data_as(_u32p),
                                                 n, timeout), f"bus read at {addr:#x}")
        return out

    def bus_poll(self, addr, mask, max_cycles, interval=64):
        """Read ``addr`` every ``interval`` cycles until ``word & mask``; returns (cycles, last
        word). cycles >= max_cycles means the bits were not seen."""
        self._need_bus()
        last = ctypes.c_uint32()
        cycles = self._check(self._lib.theia_bus_poll(self._handle, addr, mask, max_cycles,
                                                      max(int(interval), 1),
                                                      ctypes.byref(last)),
                             f"bus poll of {addr:#x}")
        return cycles, last.value

    # --- monitors and a serial line, in C++ ---------------------------------------------------

    def add_write_monitor(self, valid, addr, data):
        """Record (addr, data) at every edge where port ``valid`` is high; returns a handle for
        ``take_writes``."""
        return self._lib.theia_add_write_monitor(self._handle, self.index(valid),
                                                 self.index(addr), self.index(data))

    def take_writes(self, monitor):
        """The (addr, data) pairs a monitor recorded since the last call, as two uint32
        arrays."""
        addrs, words = [], []
        chunk = 1 << 16
        while True:
            a = np.zeros(chunk, dtype=np.uint32)
            w = np.zeros(chunk, dtype=np.uint32)
            n = self._lib.theia_take_writes(self._handle, monitor, a.ctypes.data_as(_u32p),
                                            w.ctypes.data_as(_u32p), chunk)
            addrs.append(a[:n])
            words.append(w[:n])
            if n < chunk:
                return np.concatenate(addrs), np.concatenate(words)

    def uart_attach(self, rx, tx, divisor):
        """Drive input ``rx`` and decode output ``tx`` as an 8N1 line, ``divisor`` cycles per
        bit (from now on ``uart_run`` steps the model)."""
        self._lib.theia_uart_attach(self._handle, self.index(rx), self.index(tx), divisor)

    def uart_send(self, data, gaps=None):
        """Queue ``data`` (bytes) to send, byte ``i`` after ``gaps[i]`` idle cycles."""
        array = np.frombuffer(bytes(data), dtype=np.uint8).copy()
        gap_array = np.zeros(len(array), dtype=np.uint64) if gaps is None else \
            np.ascontiguousarray(gaps, dtype=np.uint64)
        if len(array):
            self._lib.theia_uart_send(self._handle, array.ctypes.data_as(_u8p),
                                      gap_array.ctypes.data_as(_u64p), len(array))

    def uart_pending(self):
        """Queued bytes not yet sent to the end of their stop bit."""
        return self._lib.theia_uart_pending(self._handle)

    def uart_framing_errors(self):
        return self._lib.theia_uart_framing_errors(self._handle)

    def uart_run(self, max_cycles, stop_bytes=0, flush=False):
        """Step up to ``max_cycles``, sending and receiving; stop early once ``stop_bytes``
        (> 0) received bytes wait to be taken, or (``flush``) once all queued bytes are sent.
        Returns the cycles run."""
        return self._lib.theia_uart_run(self._handle, max_cycles, stop_bytes, int(flush))

    def uart_take(self):
        """The bytes received since the last call and the cycle each one ended."""
        n = 1 << 16
        data = np.zeros(n, dtype=np.uint8)
        cycles = np.zeros(n, dtype=np.uint64)
        got = self._lib.theia_uart_take(self._handle, data.ctypes.data_as(_u8p),
                                        cycles.ctypes.data_as(_u64p), n)
        return bytes(data[:got]), [int(c) for c in cycles[:got]]

    # --- streams fed and drained in C++ -------------------------------------------------------

    def add_stream_source(self, prefix):
        """Feed the stream ``<prefix>__valid/ready/payload`` (payload <= 64 bits) from a queue
        (``stream_push``); returns its handle."""
        return self._lib.theia_add_stream_source(
            self._handle, self.index(f"{prefix}__valid"), self.index(f"{prefix}__ready"),
            self.index(f"{prefix}__payload"))

    def stream_push(self, source, payloads, gaps=None):
        """Queue ``payloads`` on a source, payload i offered ``gaps[i]`` idle cycles after the
        one before it was taken (default 0)."""
        values = np.ascontiguousarray(payloads, dtype=np.uint64)
        if not len(values):
            return
        gap_values = None if gaps is None else np.ascontiguousarray(gaps, dtype=np.uint64)
        self._lib.theia_stream_push(self._handle, source, values.ctypes.data_as(_u64p),
                                    None if gap_values is None
                                    else gap_values.ctypes.data_as(_u64p), len(values))

    def stream_pending(self, source):
        return self._lib.theia_stream_pending(self._handle, source)

    def add_stream_sink(self, prefix, ready_share=1.0, seed=1):
        """Drain the stream ``<prefix>__valid/ready/payload``, ready in a ``ready_share`` of
        the cycles (pseudo-random, ``seed``); returns its handle."""
        share = 0xFFFF_FFFF if ready_share >= 1 else int(ready_share * (1 << 32))
        return self._lib.theia_add_stream_sink(
            self._handle, self.index(f"{prefix}__valid"), self.index(f"{prefix}__ready"),
            self.index(f"{prefix}__payload"), share, seed)

    def stream_expect(self, sink, count):
        """``run_streams`` waits until the sink has taken ``count`` payloads (since the last
        ``stream_take``)."""
        self._lib.theia_stream_expect(self._handle, sink, count)

    def stream_take(self, sink):
        """The payloads the sink took since the last call (uint64 array)."""
        chunks = []
        while True:
            out = np.zeros(1 << 16, dtype=np.uint64)
            n = self._lib.theia_stream_take(self._handle, sink, out.ctypes.data_as(_u64p),
                                            len(out))
            chunks.append(out[:n])
            if n < len(out):
                return np.concatenate(chunks)

    def run_streams(self, max_cycles):
        """Step until every source is empty and every sink has its expected count (or the pin
        model stops the run, or ``max_cycles``); returns the cycles run. Raises the pin
        model's exception if it stopped the run."""
        cycles = self._lib.theia_run_streams(self._handle, max_cycles)
        self.check_pin_model()
        return cycles

    # --- a chip model in Python on the pins -------------------------------------------------

    def attach_pin_model(self, pins, idle_patterns, drive, callback, capacity=64):
        """Call ``callback(cycle, word)`` after every edge whose pins are not idle: ``word``
        packs the ports ``pins`` (names, lowest bits first), idle when ``word & mask ==
        value`` for a (mask, value) of ``idle_patterns``. It returns the (cycle, value) pairs
        to drive on port ``drive`` from then on (replacing the earlier ones, at most
        ``capacity``); an exception it raises stops the run (``theia_step``, ``run_until``,
        ``run_streams``) and is raised again by ``check_pin_model``."""
        shifts = self._packing(pins)
        schedule = np.zeros(2 * capacity, dtype=np.uint64)

        def trampoline(cycle, word):
            try:
                entries = callback(cycle, word)
                if len(entries) > capacity:
                    raise FastSimError(f"the pin model scheduled {len(entries)} values "
                                       f"(at most {capacity})")
                for i, (when, value) in enumerate(entries):
                    schedule[2 * i] = when
                    schedule[2 * i + 1] = value
                return len(entries)
            except BaseException as e:          # ctypes would print and drop it
                self._pin_error = e
                return -1

        c_callback = _PIN_CALLBACK(trampoline)
        pin_array = (ctypes.c_int * len(pins))(*(self.index(n) for n in pins))
        shift_array = (ctypes.c_int * len(pins))(*shifts)
        idle = np.ascontiguousarray([v for pair in idle_patterns for v in pair],
                                    dtype=np.uint64)
        self._keep += [schedule, idle, c_callback, pin_array, shift_array]
        self._lib.theia_pin_model(self._handle, pin_array, shift_array, len(pins),
                                  idle.ctypes.data_as(_u64p), len(idle_patterns),
                                  self.index(drive), c_callback,
                                  schedule.ctypes.data_as(_u64p), capacity)

    def pin_model_calls(self):
        """How many cycles the pin model was shown."""
        return self._lib.theia_pin_model_calls(self._handle)

    def check_pin_model(self):
        """Raise the exception the pin model stopped the run with, if any."""
        if self._pin_error is not None:
            raise self._pin_error
