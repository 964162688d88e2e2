"""The built-in firmware: ``default.s`` assembled into the ROM image the model and the RTL run."""

from functools import lru_cache
from pathlib import Path

FIRMWARE_SOURCE = Path(__file__).with_name("default.s")


@lru_cache(maxsize=None)
def default_rom_program():
    """The assembled default firmware (a ``firmware.asm.Program`` at origin 0). Its R500
    export routine is where the control unit starts it (``hdl.isa.R500_EXPORT_PC``)."""
    from firmware.asm import assemble_file
    from hdl.isa import R500_EXPORT_PC
    program = assemble_file(FIRMWARE_SOURCE, rom=True)
    assert program.labels["R500_EXPORT"] == R500_EXPORT_PC, "R500_EXPORT must come first"
    return program


def default_rom():
    """The ROM words: the 12-entry table at words 0-11, then the code."""
    return list(default_rom_program().words)
