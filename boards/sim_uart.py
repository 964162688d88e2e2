"""A simulated serial port: the host tool's code talks to a design in Amaranth's simulator.

``SimulatedSerial`` is a ``Transport`` (``write``/``read``) for ``boards.host.HostLinkClient``.
``run(sim, host)`` runs ``host(transport)`` in a thread while two testbenches move the bytes
bit by bit over the design's ``rx`` pin (driven, 8N1) and ``tx`` pin (decoded in the middle of
each bit), ``divisor`` clock cycles per bit. The simulation ends when ``host`` returns.
"""

import queue
import threading

from boards.host import LinkError

__all__ = ["SimulatedSerial"]


class SimulatedSerial:
    def __init__(self, rx_pin, tx_pin, divisor, timeout=900.0):
        self.rx_pin = rx_pin
        self.tx_pin = tx_pin
        self.divisor = divisor
        self.timeout = timeout
        self.to_board = queue.Queue()
        self.from_board = queue.Queue()
        self.framing_errors = 0
        self._done = threading.Event()

    # --- Transport ---------------------------------------------------------------------------
    def write(self, data):
        for byte in data:
            self.to_board.put(byte)

    def read(self, n):
        out = bytearray()
        try:
            for _ in range(n):
                out.append(self.from_board.get(timeout=self.timeout))
        except queue.Empty:
            raise LinkError(f"simulated UART: timed out after {len(out)} of {n} bytes") from None
        return bytes(out)

    def flush_input(self):
        while not self.from_board.empty():
            self.from_board.get_nowait()

    # --- testbenches -------------------------------------------------------------------------
    async def _drive(self, ctx):
        ctx.set(self.rx_pin, 1)
        while True:
            try:
                byte = self.to_board.get_nowait()
            except queue.Empty:
                if self._done.is_set():
                    return
                await ctx.tick().repeat(self.divisor)
                continue
            for bit in [0, *((byte >> i) & 1 for i in range(8)), 1]:
                ctx.set(self.rx_pin, bit)
                await ctx.tick().repeat(self.divisor)

    async def _sample(self, ctx):
        half = self.divisor // 2
        while True:
            while ctx.get(self.tx_pin):
                await ctx.tick()
            await ctx.tick().repeat(half)
            byte = 0
            for i in range(8):
                await ctx.tick().repeat(self.divisor)
                byte |= ctx.get(self.tx_pin) << i
            await ctx.tick().repeat(self.divisor)
            if not ctx.get(self.tx_pin):
                self.framing_errors += 1
            self.from_board.put(byte)

    def run(self, sim, host):
        """Run ``host(self)`` against ``sim`` (an amaranth.sim.Simulator with a clock) and
        return its result; its exception, if any, is raised here."""
        outcome = {}

        def thread_main():
            try:
                outcome["result"] = host(self)
            except BaseException as e:        # handed over to the simulating thread
                outcome["error"] = e
            finally:
                self._done.set()

        sim.add_testbench(self._drive)
        sim.add_testbench(self._sample, background=True)
        thread = threading.Thread(target=thread_main, daemon=True)
        thread.start()
        sim.run()
        thread.join()
        if "error" in outcome:
            raise outcome["error"]
        return outcome.get("result")
