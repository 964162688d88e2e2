"""bench.alu_random: the vector ALU's random-operand sweep, end to end."""

import json

from bench import alu_random


def test_bench_pysim_backend_smoke(capsys):
    """bench.alu_random end to end on the Python simulator (a few operations, two opcodes)."""
    assert alu_random.main(["--ops", "20", "--only", "div,swizzle3d"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["DIV"]["checked"] == 20 and report["SWIZZLE3D"]["mismatches"] == 0
    assert report["_total"]["checked"] == 40
