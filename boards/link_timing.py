"""What the host of the UART link waits for (docs/host-link.md): for the host tool
(boards/host.py) and the simulated lines it is tested on (boards/sim_uart.py)."""

from dataclasses import dataclass

from boards.host_link import LINK_TIMEOUT_S

__all__ = ["LinkTiming"]


@dataclass(frozen=True)
class LinkTiming:
    """What the host waits for. ``byte_s``: a byte on the line (10 bits); ``board_timeout_s``:
    the silence after which the board ends a command (LINK_TIMEOUT_S); ``latency_s``: the
    turnaround of the host's port (USB frames, the FTDI latency timer, the OS)."""
    byte_s: float
    board_timeout_s: float = LINK_TIMEOUT_S
    latency_s: float = 0.05

    @classmethod
    def for_baud(cls, baud, **changes):
        return cls(byte_s=10 / baud, **changes)

    def answer_timeout(self, sent, expected):
        """An answer of ``expected`` bytes to a command of ``sent`` bytes, with 50 % margin."""
        return 1.5 * (sent + expected + 4) * self.byte_s + self.latency_s

    @property
    def quiet_s(self):
        """Silence that proves the board idle: its timeout, then its NAK, and margin."""
        return 1.5 * self.board_timeout_s + 16 * self.byte_s + self.latency_s
