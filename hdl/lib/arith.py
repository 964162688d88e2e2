"""Adders whose add/subtract choice is a signal: one carry chain on ECP5.

``a + b`` or ``a - b`` picked by a signal (``Mux(subtract, a - b, a + b)``) is two adders and a
multiplexer after Yosys (its ``opt_share`` does not merge an add with a subtract): twice the
carry-chain logic, and a LUT level after the chains. On the ECP5 one chain does both: each
CCU2C half computes a xor (b xor subtract) in its LUT and takes ``subtract`` as the chain's
carry in, a + (b xor s) + s (what Yosys makes of its own ``$alu`` cell with a variable
``BI``/``CI``, which Amaranth cannot write). ``add_sub`` builds that chain from CCU2C
primitives when the platform is an ECP5, and the plain expression otherwise (simulation, the
Verilog export): ``tests/hdl/lib/test_arith.py`` proves the two equal with Yosys.

On the chain the control is a LUT input of every bit (fan-out = the width), after the first
bit not on the carry path: a late ``subtract`` (the divider's non-restoring steps take it from
the sign of the step before) costs one LUT delay, not a LUT level and a route.
"""

from amaranth import Cat, Const, Instance, Mux, Signal

__all__ = ["add_sub", "ecp5_carry"]

#: CCU2C LUT for a + (b xor c) with d = 1 (what Yosys' ECP5 ``$alu`` mapping uses): the
#: propagate a ^ b ^ c where d = 1, and in INIT[3:0] (d = 0, c = 0) the generate term a
CCU2C_ADD_SUB_INIT = 0b1001_0110_1010_1010


def ecp5_carry(platform):
    """The platform has ECP5 carry chains (CCU2C)."""
    return getattr(platform, "family", None) == "ecp5"


def add_sub(m, a, b, subtract, *, platform, name):
    """``a - b`` if ``subtract`` else ``a + b``, modulo 2**width, for ``a`` and ``b`` of one
    width (extend them first). Returns a Signal named ``name``."""
    width = len(a)
    if len(b) != width:
        raise ValueError(f"add_sub: operands of {width} and {len(b)} bits")
    result = Signal(width, name=name)
    if not ecp5_carry(platform):
        m.d.comb += result.eq(Mux(subtract, a - b, a + b))
        return result
    pairs = (width + 1) // 2
    a_bits = Cat(a, Const(0, 2 * pairs - width))
    b_bits = Cat(b, Const(0, 2 * pairs - width))
    sums = Signal(2 * pairs, name=f"{name}_sums")
    carry = subtract
    for k in range(pairs):
        carry_out = Signal(name=f"{name}_carry{k}")
        m.submodules[f"{name}_ccu{k}"] = Instance(
            "CCU2C", p_INIT0=CCU2C_ADD_SUB_INIT, p_INIT1=CCU2C_ADD_SUB_INIT,
            p_INJECT1_0="NO", p_INJECT1_1="NO",
            i_CIN=carry,
            i_A0=a_bits[2 * k], i_B0=b_bits[2 * k], i_C0=subtract, i_D0=1,
            i_A1=a_bits[2 * k + 1], i_B1=b_bits[2 * k + 1], i_C1=subtract, i_D1=1,
            o_S0=sums[2 * k], o_S1=sums[2 * k + 1], o_COUT=carry_out)
        carry = carry_out
    m.d.comb += result.eq(sums[:width])
    return result
