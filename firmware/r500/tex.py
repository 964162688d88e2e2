"""TEX instructions: ``TEX tags temp[D].mask = … OP tex[T].swz temp[S].swz [temp[X].swz
temp[Y].swz] ;`` (r500-us.md §5.2, §5.4; the optional DX and DY operands fill US_TEX_ADDR_DXDY,
``temp[aL+N]`` sets the REL bits, and a lone ``a`` mask is the project's)."""

from hdl.isa import InstType
from firmware.r500.alu import parse_address
from firmware.r500.errors import Problem
from firmware.r500.names import RGB_MASKS, TEX_OPCODES, TEX_SWIZZLE_CHARS
from firmware.r500.stream import Instruction, describe

__all__ = ["parse_tex", "TEX_IDS", "TEX_MASKS"]

TEX_IDS = 16
#: mask spelling -> (RGB_WMASK, ALPHA_WMASK)
TEX_MASKS = {name: (code, 0) for code, name in enumerate(RGB_MASKS)}
TEX_MASKS.update({name + "a": (code, 1) for code, name in enumerate(RGB_MASKS) if code})
TEX_MASKS["a"] = (0, 1)
#: which fields of US_TEX_ADDR / US_TEX_ADDR_DXDY each register operand fills (word, prefix)
_REGISTER_OPERANDS = {"src": (2, "SRC", "STRQ"), "dx": (3, "DX", "STRQ"),
                      "dy": (3, "DY", "STRQ")}


def _swizzle4(stream, after):
    stream.punct(".", f"after {after}")
    token = stream.next()
    if (token.kind != "word" or len(token.text) != 4
            or any(c not in TEX_SWIZZLE_CHARS for c in token.text)):
        hint = " (TEX swizzles are lower case)" if token.text.lower() != token.text else ""
        raise Problem(f"bad TEX swizzle {describe(token)}: expected 4 of r, g, b, a{hint}",
                      token)
    return [TEX_SWIZZLE_CHARS.index(c) for c in token.text]


def _register_operand(stream, inst, role):
    """``temp[N].swz4`` into the SRC, DX or DY fields."""
    k, prefix, channels = _REGISTER_OPERANDS[role]
    stream.word(f"the {role} register (temp[N].swizzle)", "TEMP")
    address, rel = parse_address(stream, "TEMP")
    inst.put(k, f"{prefix}_ADDR", address)
    inst.put(k, f"{prefix}_ADDR_REL", rel)
    for channel, code in zip(channels, _swizzle4(stream, f"temp[{address}]")):
        inst.put(k, f"{prefix}_{channel}_SWIZ", code)


def _parse_tdests(stream, inst):
    first = None
    while not stream.at_word(*TEX_OPCODES) or stream.peek(1).is_punct("["):
        stream.word("a TEX tag, a destination temp[N].mask or a TEX opcode", "TEMP")
        address = parse_address(stream, "TEMP")
        if first is not None and address != first:
            raise Problem("the destinations of a TEX instruction must be one temporary",
                          stream.tokens[stream.pos - 1])
        first = address
        stream.punct(".", "before the write mask")
        mask = stream.next()
        if mask.text not in TEX_MASKS:
            hint = " (TEX masks are lower case)" if mask.text.lower() in TEX_MASKS else ""
            raise Problem(f"bad TEX write mask {describe(mask)}{hint}", mask)
        stream.punct("=", "after a destination")
        inst.put(0, "RGB_WMASK", TEX_MASKS[mask.text][0])
        inst.put(0, "ALPHA_WMASK", TEX_MASKS[mask.text][1])
    if first is None:
        raise Problem("a TEX instruction needs a destination temp[N].mask =", stream.peek())
    inst.put(2, "DST_ADDR", first[0])
    inst.put(2, "DST_ADDR_REL", first[1])


def parse_tex(stream, first, tags):
    """The rest of a TEX instruction (after ``TEX`` and its tags) -> :class:`Instruction`."""
    inst = Instruction(InstType.TEX, first)
    inst.put(0, "TYPE", int(InstType.TEX))
    _parse_tdests(stream, inst)
    opcode = stream.next()
    inst.put(1, "INST", TEX_OPCODES[opcode.text.upper()])
    stream.word("tex[T] (the sampler)", "TEX")
    tex_id = stream.number_in("[", "]", TEX_IDS, "tex id")
    inst.put(1, "TEX_ID", tex_id)
    for channel, code in zip("RGBA", _swizzle4(stream, f"tex[{tex_id}]")):
        inst.put(2, f"DST_{channel}_SWIZ", code)
    _register_operand(stream, inst, "src")
    if stream.at_word("TEMP"):
        _register_operand(stream, inst, "dx")
        _register_operand(stream, inst, "dy")
    stream.end_statement()
    for tag in tags:
        if not tag.name.is_word("OUT"):             # accepted on TEX and ignored (§5.4)
            inst.apply_tag(tag)
    return inst
