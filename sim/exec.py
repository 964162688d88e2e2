"""Run one program as a routine: ``python -m sim.exec PROGRAM.s --engine model --json``.

PROGRAM is assembled as user code (first instruction at 0x800C) and run from its first
instruction with every register 0 until RETURN; the built-in firmware ROM is present, so a
program may CALL its routines. The JSON result is
``{"regs": {"0": [x, y, z], ..., "131": [...]}, "instructions": N, "cycles": null, "error": null}``
with unsigned 32-bit values. On an error ``"error"`` says what and where and the exit status is 1.
"""

import argparse
import json
import sys

from hdl.config import PRESET_NAMES
from hdl.isa import USER_CODE_START, NUM_REGS


def run_program_model(program, max_instructions=10_000_000, tmem=None):
    """Run an assembled user ``program`` on the reference model; return the JSON-ready dict."""
    from firmware.rom import default_rom
    from sim.model import Core, TheiaError
    core = Core(default_rom(), program.words, tmem=tmem, omem=[0] * 4096,
                max_routine_steps=max_instructions)
    error = None
    try:
        core.run(USER_CODE_START, "program")
    except TheiaError as e:
        error = str(e)
    return {
        "regs": {str(a): list(core.regs[a]) for a in range(NUM_REGS)},
        "instructions": core.stats.instructions,
        "cycles": None,
        "error": error,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m sim.exec", description=__doc__.splitlines()[0])
    parser.add_argument("program", help="THEIA assembly file")
    parser.add_argument("--engine", default="model", choices=["model", "rtl"])
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--max-instructions", type=int, default=10_000_000)
    parser.add_argument("--config", default="default", choices=PRESET_NAMES,
                        help="rtl engine: whose core (a preset of hdl/config.py; default "
                             "'default')")
    args = parser.parse_args(argv)
    from firmware.asm import assemble_file, AsmError
    try:
        program = assemble_file(args.program)
    except (AsmError, OSError) as e:
        result = {"regs": {}, "instructions": 0, "cycles": None, "error": str(e)}
    else:
        if args.engine == "model":
            result = run_program_model(program, args.max_instructions)
        else:
            from hdl.config import preset
            from sim.core_pysim import run_program_rtl
            result = run_program_rtl(program, preset(args.config).core, args.max_instructions)
    if args.json:
        print(json.dumps(result))
    else:
        if result["error"]:
            print(f"error: {result['error']}")
        for addr, value in result["regs"].items():
            if any(value):
                print(f"{int(addr):3d}: " + " ".join(f"{v:08X}" for v in value))
        print(f"instructions: {result['instructions']}  cycles: {result['cycles']}")
    return 1 if result["error"] else 0


if __name__ == "__main__":
    sys.exit(main())
