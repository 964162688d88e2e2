"""Choosing one of several values by conditions that are never true together."""

import functools
import operator

from amaranth import Const, Signal, Value

__all__ = ["one_hot_select"]


def one_hot_select(m, choices, width):
    """The ``width``-bit value of the (condition, value) pair whose condition holds, 0 if none;
    at most one condition may hold in a cycle. An AND-OR: each value masked by its condition,
    the masks ORed (a priority chain of ``m.If`` would cost several times the LUTs). A value
    that appears more than once (the same Python object, or the same integer) is masked once,
    by the OR of its conditions."""
    terms = {}
    for condition, value in choices:
        key = ("const", value) if isinstance(value, int) else id(value)
        if key in terms:
            condition = terms[key][0] | condition
        terms[key] = (condition, value)
    masked = []
    for condition, value in terms.values():
        # a signal, so that the mask's copies share one condition in the netlist
        chosen = Signal()
        m.d.comb += chosen.eq(condition)
        masked.append(Value.cast(Const(value, width) if isinstance(value, int) else value)
                      & chosen.replicate(width))
    return functools.reduce(operator.or_, masked, Const(0, width))[:width]
