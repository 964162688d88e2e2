"""The port a host sequence talks to, and running a sequence on a synchronous host.

The sequences (``host.frame``, ``host.r500_job``) are ``async`` and talk to a *port*:

    async write(addr, words)        ``words`` to ``addr``, ``addr + 1``, ...
    async read(addr, count)         -> the ``count`` words from ``addr`` on, a list
    async read_bytes(addr, count)   -> bits 7:0 of those words, bytes (``output="bytes"`` only)
    async wait_frame()              -> STATUS once it has DONE or ERROR set, waited for as
                                       suits the transport (which raises its own timeout)

An Amaranth testbench awaits a sequence itself (sim/gpu_pysim.py). A synchronous host (the
fast simulator's bus, the UART link) has plain methods of those names: its methods are awaited
through ``BlockingPort`` and the coroutine, which then never suspends, is run by
``run_blocking``.
"""

__all__ = ["BlockingPort", "run_blocking"]


class BlockingPort:
    """The port of a synchronous ``host``: its plain ``write``, ``read``, ``read_bytes`` and
    ``wait_frame``, awaitable (an await of them never suspends)."""

    def __init__(self, host):
        self.host = host

    async def write(self, addr, words):
        self.host.write(addr, words)

    async def read(self, addr, count):
        return self.host.read(addr, count)

    async def read_bytes(self, addr, count):
        return self.host.read_bytes(addr, count)

    async def wait_frame(self):
        return self.host.wait_frame()


def run_blocking(coroutine):
    """Run ``coroutine``, which must never suspend (it awaits only a BlockingPort), to its end;
    return its result."""
    try:
        coroutine.send(None)
    except StopIteration as end:
        return end.value
    coroutine.close()
    raise RuntimeError("the frame sequence suspended: its port is not a blocking one")
