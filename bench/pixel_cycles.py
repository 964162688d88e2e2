"""Where a core's cycles go: its routines per pixel, and the instructions of one pixel as issued.

    python -m bench.pixel_cycles [--config ulx3s] [--size 8] [--texture 16] [--scene SCENE]
                                 [--trace N] [--json FILE]

Renders the demo at ``--size`` x ``--size`` pixels with a ``--texture`` x ``--texture``
texture (or SCENE, as ``python -m sim.render`` takes it; keep it small) on a one-core GPU of the
preset (its memories in block RAM) in Amaranth's simulator, watching core 0 every cycle
(``sim.gpu_pysim``'s observers): which state of the per-band sequence its control unit is in
(``hdl.core.control_unit``: a routine's state lasts from its start to its RETURN)
and which instruction it issues. Prints JSON: ``state_cycles`` (cycles per state over the
whole simulation: IDLE includes the host's loads and read-back) and ``state_cycles_per_pixel``, ``tests``, ``pixels``; with ``--trace N`` also ``trace``,
pixel N's instructions from its RGU to the next pixel's as "cycle +gap label+offset:
instruction" (disassembled; the gap is the cycles since the one before: what the pipeline
waited for). The frame is the GPU's frame, checked against
the model by the tests, not here.
"""

import argparse
import json
import sys
import time
from collections import Counter

from hdl.config import PRESET_NAMES, preset
from sim.errors import cli_errors


class CoreWatch:
    """An observer of core 0: the control unit's state each cycle and the issued PCs."""

    def __init__(self):
        self.states = []            # state value per cycle
        self.issues = []            # (cycle, pc)
        self.names = {}

    def __call__(self, gpu):
        shader_core = gpu.shader_cores[0]
        control, core = shader_core.control, shader_core.core

        async def watch(ctx):
            while True:
                await ctx.tick()
                if not hasattr(control, "fsm_state"):
                    continue            # (not elaborated yet)
                self.names = control.fsm_names
                if ctx.get(core.issue.issue):
                    self.issues.append((len(self.states), ctx.get(core.stages.i_pc)))
                self.states.append(ctx.get(control.fsm_state))
        return watch

    def state_cycles(self):
        counts = Counter(self.states)
        return {self.names[value]: n for value, n in sorted(counts.items())}

    def rgu_starts(self):
        rgu = next(value for value, name in self.names.items() if name == "RGU")
        return [i for i, s in enumerate(self.states)
                if s == rgu and (i == 0 or self.states[i - 1] != rgu)]

    def trace(self, pixel):
        """Pixel ``pixel``'s issued instructions (its RGU to the next pixel's), disassembled."""
        from firmware.disasm import disassemble_word
        from firmware.rom import default_rom_program
        program = default_rom_program()
        names = {address: name for name, address in program.labels.items()}
        starts = self.rgu_starts() + [len(self.states)]
        if pixel >= len(starts) - 1:
            raise ValueError(f"--trace {pixel}: the frame has {len(starts) - 1} pixels on core 0")
        first, end = starts[pixel], starts[pixel + 1]
        lines, before = [], first
        for cycle, pc in self.issues:
            if not first <= cycle < end:
                continue
            if pc < len(program.words):
                base = max(address for address in names if address <= pc)
                where = f"{names[base]}+{pc - base}: "
                where += disassemble_word(program.words[pc], pc, names)
            else:
                where = f"user code 0x{pc:04X}"
            lines.append(f"{cycle - first:5d} +{cycle - before:<3d} {where}")
            before = cycle
        return lines


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.pixel_cycles",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="ulx3s", choices=PRESET_NAMES,
                        help="the GPU's preset (one core of it; default ulx3s)")
    parser.add_argument("--size", type=int, default=8,
                        help="the demo's size in pixels (default 8)")
    parser.add_argument("--texture", type=int, default=16, metavar="N",
                        help="the demo's texture is N x N (default 16: the host loads every "
                             "texel a cycle at a time, which the demo's 128 makes minutes)")
    parser.add_argument("--scene", default=None, help="a scene instead of the demo")
    parser.add_argument("--trace", type=int, default=None, metavar="N",
                        help="list pixel N's issued instructions")
    parser.add_argument("--json", default=None, metavar="FILE", help="also write the JSON here")
    args = parser.parse_args(argv)
    if args.size < 2:
        parser.error("--size must be at least 2")
    with cli_errors("bench.pixel_cycles"):
        from firmware.rom import default_rom
        from sim.demo_scene import demo_scene
        from sim.gpu_pysim import render_gpu_pysim
        from sim.scene_loader import load_any_scene
        scene = load_any_scene(args.scene) if args.scene else demo_scene(size=args.size, bands=1,
                                                                      texture_size=args.texture)
        watch = CoreWatch()
        started = time.monotonic()
        # memory=None: the preset's core with its memories in block RAM, as Amaranth's
        # simulator runs it (the core's routines do not change with where the memories are)
        _, stats = render_gpu_pysim(scene, default_rom(),
                                    preset(args.config, cores=1, memory=None), observers=[watch])
        pixels = stats["pixels"]
        states = watch.state_cycles()
        result = {
            "config": args.config, "scene": scene.name, "pixels": pixels,
            "tests": stats["tests"], "cycles": stats["cycles"],
            "cycles_per_pixel": round(stats["cycles"] / pixels, 1),
            "state_cycles": states,
            "state_cycles_per_pixel": {name: round(n / pixels, 1) for name, n in states.items()},
            "wall_s": round(time.monotonic() - started, 1),
        }
        if args.trace is not None:
            result["trace"] = watch.trace(args.trace)
        text = json.dumps(result, indent=2)
        print(text)
        if args.json:
            with open(args.json, "w") as f:
                f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
