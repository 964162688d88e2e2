"""A helper for fixed-latency datapath pipelines (divider, square root)."""

from amaranth import Signal

__all__ = ["register_stage"]


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
