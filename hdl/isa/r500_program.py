"""What an R500 program's words say about it before it runs (from the fields of ``r500``'s
tables; for the presets' checks, the hosts and the tools): which temporaries, constants,
integer constants and samplers it can read, the highest temporary it names. Every instruction
word counts, whether it can execute or not."""

from hdl.isa.r500 import (US_CMN_INST, US_ALU_ADDR, US_ALU_ALPHA_INST, US_ALU_RGBA_INST,
                          US_FC_ADDR, US_TEX_ADDR, US_TEX_INST, InstType, R500_CONSTS,
                          R500_TEMPS)

__all__ = ["temporaries_read", "highest_temporary", "constants_read", "int_consts_read",
           "samplers_read", "INPUT_TEMPORARIES", "program_inputs"]

INLINE_BIT = 0x80


def _temporary_addresses(words, destinations):
    """(address, relative) of every temporary the instructions name as a source (an ALU/OUT
    source address that names a temporary, used or not; a TEX source) and, with
    ``destinations``, as a destination."""
    for i in range(0, len(words) - 5, 6):
        kind = US_CMN_INST.unpack(words[i])["TYPE"]
        if kind in (InstType.ALU, InstType.OUT):
            for word in words[i + 1:i + 3]:
                fields = US_ALU_ADDR.unpack(word)
                for n in range(3):
                    addr = fields[f"ADDR{n}"]
                    if not fields[f"ADDR{n}_CONST"] and not addr & INLINE_BIT:
                        yield addr, fields[f"ADDR{n}_REL"]
            if destinations:
                alpha = US_ALU_ALPHA_INST.unpack(words[i + 4])
                rgba = US_ALU_RGBA_INST.unpack(words[i + 5])
                yield rgba["RGB_ADDRD"], rgba["RGB_ADDRD_REL"]
                yield alpha["ALPHA_ADDRD"], alpha["ALPHA_ADDRD_REL"]
        elif kind == InstType.TEX:
            fields = US_TEX_ADDR.unpack(words[i + 2])
            yield fields["SRC_ADDR"], fields["SRC_ADDR_REL"]
            if destinations:
                yield fields["DST_ADDR"], fields["DST_ADDR_REL"]


def temporaries_read(words):
    """The temporaries a program can read, as a mask (bit t for temporary t); a relative
    address counts as all of them."""
    mask = 0
    for addr, rel in _temporary_addresses(words, destinations=False):
        mask |= (1 << R500_TEMPS) - 1 if rel else 1 << addr
    return mask


#: a shaded pixel's inputs are temporaries 0-8 (r500-us.md §4.2)
INPUT_TEMPORARIES = 9


def program_inputs(words):
    """Which of the pixel's input temporaries a program can read: bit t for temporary t."""
    return temporaries_read(words) & ((1 << INPUT_TEMPORARIES) - 1)


def highest_temporary(words):
    """The highest temporary a program names, or -1 if none; None if it addresses one
    relatively (the highest then depends on aL)."""
    highest = -1
    for addr, rel in _temporary_addresses(words, destinations=True):
        if rel:
            return None
        highest = max(highest, addr)
    return highest


def constants_read(words):
    """The constants a program can read, as a sorted list of indices: every constant an ALU/OUT
    source address names, used or not; all of them if one is addressed relatively."""
    named = set()
    for i in range(0, len(words) - 5, 6):
        if US_CMN_INST.unpack(words[i])["TYPE"] not in (InstType.ALU, InstType.OUT):
            continue
        for word in words[i + 1:i + 3]:
            fields = US_ALU_ADDR.unpack(word)
            for n in range(3):
                if fields[f"ADDR{n}_CONST"]:
                    if fields[f"ADDR{n}_REL"]:
                        return list(range(R500_CONSTS))
                    named.add(fields[f"ADDR{n}"])
    return sorted(named)


def int_consts_read(words):
    """The integer constants a program's FC instructions name (INT_ADDR), sorted."""
    return sorted({US_FC_ADDR.unpack(words[i + 3])["INT_ADDR"]
                   for i in range(0, len(words) - 5, 6)
                   if US_CMN_INST.unpack(words[i])["TYPE"] == InstType.FC})


def samplers_read(words):
    """The samplers a program's TEX instructions name (TEX_ID), sorted."""
    return sorted({US_TEX_INST.unpack(words[i + 1])["TEX_ID"]
                   for i in range(0, len(words) - 5, 6)
                   if US_CMN_INST.unpack(words[i])["TYPE"] == InstType.TEX})
