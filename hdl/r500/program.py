"""What an R500 program's words say about it before it runs."""

from hdl.isa import US_CMN_INST, US_ALU_ADDR, US_TEX_ADDR, InstType, R500_TEMPS

__all__ = ["temporaries_read"]

INLINE_BIT = 0x80


def temporaries_read(words):
    """The temporaries a program can read, as a mask (bit t for temporary t): every source
    address of an ALU/OUT instruction that names a temporary, whether the instruction uses the
    slot or not, and every TEX instruction's source; a relative address counts as all."""
    everything = (1 << R500_TEMPS) - 1
    mask = 0
    for i in range(0, len(words) - 5, 6):
        kind = US_CMN_INST.unpack(words[i])["TYPE"]
        addresses = []
        if kind in (InstType.ALU, InstType.OUT):
            for word in words[i + 1:i + 3]:
                fields = US_ALU_ADDR.unpack(word)
                for n in range(3):
                    addr = fields[f"ADDR{n}"]
                    if not fields[f"ADDR{n}_CONST"] and not addr & INLINE_BIT:
                        addresses.append((addr, fields[f"ADDR{n}_REL"]))
        elif kind == InstType.TEX:
            fields = US_TEX_ADDR.unpack(words[i + 2])
            addresses.append((fields["SRC_ADDR"], fields["SRC_ADDR_REL"]))
        for addr, rel in addresses:
            mask |= everything if rel else 1 << addr
    return mask
