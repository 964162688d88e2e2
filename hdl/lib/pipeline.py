"""Helpers for fixed-latency datapath pipelines (divider, square root, the R500 units)."""

from amaranth import Signal

__all__ = ["register_stage", "delay"]


def register_stage(m, stage, values):
    """Register every value of ``values`` (name -> value) into pipeline stage ``stage``.

    ``valid`` gets a reset; datapath values do not (they are meaningless while ``valid`` is 0,
    and reset-less flip-flops are cheaper). Returns name -> the new registers.
    """
    regs = {}
    for name, value in values.items():
        if name == "valid":
            reg = Signal(name=f"s{stage}_valid")
        else:
            reg = Signal(len(value), name=f"s{stage}_{name}", reset_less=True)
        m.d.sync += reg.eq(value)
        regs[name] = reg
    return regs


def delay(m, name, values, cycles):
    """``values`` (name -> value) delayed by ``cycles`` registers, as ``register_stage`` makes them
    (``valid`` with a reset, the rest without), beside a fixed-latency unit they describe.
    Returns name -> the last registers."""
    for stage in range(1, cycles + 1):
        values = register_stage(m, f"{name}{stage}", values)
    return values
