"""The built-in firmware: ``default.s`` assembled into the ROM image the model and the RTL run."""

from functools import lru_cache
from pathlib import Path

FIRMWARE_SOURCE = Path(__file__).with_name("default.s")


@lru_cache(maxsize=None)
def default_rom_program():
    """The assembled default firmware (a ``firmware.asm.Program`` at origin 0)."""
    from firmware.asm import assemble_file
    return assemble_file(FIRMWARE_SOURCE, rom=True)


def default_rom():
    """The ROM words: the 12-entry table at words 0-11, then the code."""
    return list(default_rom_program().words)
