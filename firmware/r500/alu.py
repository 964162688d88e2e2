"""ALU and OUT instructions: ``tags decls : op [, op] ;`` (r500-us.md §5.2-5.4, and the
project's extensions: ``aL+`` relative addresses, ``pred[cmp]`` destinations, ``NOOMOD``, the
``RGB``/``ALPHA`` unit marks and an empty operation list)."""

from dataclasses import dataclass, field

from hdl.isa import R500_CONSTS, R500_TEMPS, InstType
from firmware.r500.errors import Problem
from firmware.r500.names import (
    ALPHA_MASKS, ALPHA_ONLY, ALU_OPCODES, COMPARES, DECL_WORDS, INPUT_FIELDS, NOOMOD, OMODS,
    RGB_MASKS, RGB_ONLY, SELS, SRCP_OPS, SWIZZLE_CHARS, UNIT_FIELDS,
)
from firmware.r500.stream import Instruction, describe, parse_number

__all__ = ["parse_alu", "parse_address", "OUT_TARGETS"]

OUT_TARGETS = 4
_ALL_OPCODES = ALU_OPCODES["rgb"].keys() | ALU_OPCODES["alpha"].keys()
_UNIT_MARKS = {"RGB": "rgb", "ALPHA": "alpha"}
_ADDRESS_LIMITS = {"TEMP": R500_TEMPS, "CONST": R500_CONSTS, "FLOAT": 128}


def parse_address(stream, kind, open_char="[", close_char="]"):
    """``[N]`` or ``[aL+N]`` (``aL`` alone means ``aL+0``) -> (N, rel)."""
    stream.punct(open_char, f"after {kind.lower()}")
    rel = stream.at_word("AL")
    if rel:
        stream.next()
        if not stream.at_punct(close_char):
            stream.punct("+", "after aL")
    value = 0
    if not (rel and stream.at_punct(close_char)):
        value = parse_number(stream.next(), _ADDRESS_LIMITS[kind], f"{kind.lower()} address")
    stream.punct(close_char, f"after the {kind.lower()} address")
    return value, int(rel)


@dataclass
class _Operand:
    sel: object          # the srcN token
    swizzle: object      # the swizzle token
    mod: int


@dataclass
class _Op:
    token: object                                   # the first token (for errors)
    mark: str = None                                # "rgb"/"alpha" from RGB/ALPHA
    dests: list = field(default_factory=list)       # (kind, index, rel, mask token)
    omod: int = 0
    opcode: object = None
    operands: list = field(default_factory=list)


def _parse_decls(stream, inst):
    declared = set()
    while not stream.at_punct(":"):
        sel = stream.word("a declaration (src0/src1/src2/srcp.rgb|a = …) or ':'", *map(
            str.upper, SELS))
        stream.punct(".", f"after {sel.text}")
        grp = stream.word("rgb or a", "RGB", "A")
        key = (sel.text.lower(), grp.text.lower())
        if key in declared:
            raise Problem(f"{key[0]}.{key[1]} is declared twice", sel)
        declared.add(key)
        stream.punct("=", f"after {key[0]}.{key[1]}")
        k = DECL_WORDS[key[1]]
        if key[0] == "srcp":
            op = stream.word("a srcp operation (neg2, sub, add, neg)", *map(str.upper, SRCP_OPS))
            inst.put(k, "SRCP_OP", SRCP_OPS[op.text.lower()])
        else:
            _parse_slot(stream, inst, k, int(key[0][3]))
        if not stream.at_punct(":"):
            stream.punct(",", "or ':' after a declaration")


def _parse_slot(stream, inst, k, n):
    kind = stream.word("temp[N], const[N] or float(N)", "TEMP", "CONST", "FLOAT").text.upper()
    if kind == "FLOAT":
        value, rel = parse_address(stream, kind, "(", ")")
        value |= 0x80
    else:
        value, rel = parse_address(stream, kind)
    inst.put(k, f"ADDR{n}", value)
    inst.put(k, f"ADDR{n}_CONST", int(kind == "CONST"))
    inst.put(k, f"ADDR{n}_REL", rel)


def _at_omod(stream):
    if stream.at_word(NOOMOD):
        return True
    return (stream.peek().kind == "word" and stream.peek(1).is_punct(".")
            and stream.peek(2).kind == "word" and stream.peek(3).is_punct("*"))


def _parse_op(stream):
    op = _Op(stream.peek())
    if stream.at_word(*_UNIT_MARKS) and not stream.peek(1).is_punct("["):
        op.mark = _UNIT_MARKS[stream.next().text.upper()]
    while not (stream.at_word(*_ALL_OPCODES) or _at_omod(stream)):
        if stream.peek().kind == "word" and not stream.peek(1).is_punct("["):
            raise Problem(f"unknown opcode {stream.peek().text!r}", stream.peek())
        op.dests.append(_parse_dest(stream))
    if stream.at_word(NOOMOD):
        stream.next()
        op.omod = 7
    elif _at_omod(stream):
        first = stream.next()
        stream.next()
        spelled = f"{first.text}.{stream.next().text}"
        stream.next()
        if spelled not in OMODS:
            raise Problem(f"bad output modifier {spelled!r} (expected one of "
                          f"{', '.join(OMODS)} or NOOMOD)", first)
        op.omod = OMODS[spelled]
    op.opcode = stream.next()
    if not op.opcode.is_word(*_ALL_OPCODES):
        raise Problem(f"unknown opcode {describe(op.opcode)}", op.opcode)
    while not (stream.at_punct(",") or stream.at_punct(";")):
        if not _at_operand(stream):
            raise stream.unexpected("an operand, ',' or ';'")
        if len(op.operands) == 3:
            raise Problem(f"{op.opcode.text} has more than 3 operands", stream.peek())
        op.operands.append(_parse_operand(stream))
    return op


def _at_operand(stream):
    token = stream.peek()
    if token.kind == "neg" or token.is_punct("|"):
        return True
    # ``srcN.x =`` is the next instruction's declaration (a missing ';')
    return token.is_word(*map(str.upper, SELS)) and not stream.peek(3).is_punct("=")


def _parse_dest(stream):
    kind = stream.word("a destination (temp[N].mask, out[N].mask, pred[cmp].mask) or an "
                       "opcode", "TEMP", "OUT", "PRED")
    upper = kind.text.upper()
    if upper == "TEMP":
        index, rel = parse_address(stream, "TEMP")
    else:
        stream.punct("[", f"after {kind.text}")
        token = stream.next()
        if upper == "PRED" and token.text.lower() in COMPARES:
            index = COMPARES[token.text.lower()]
        else:
            what = "comparison (eq, lt, ge, ne)" if upper == "PRED" else "out target"
            index = parse_number(token, OUT_TARGETS, what)
        rel = 0
        stream.punct("]", f"after the {kind.text} index")
    stream.punct(".", "before the write mask")
    mask = stream.next()
    if mask.kind != "word" or mask.text.lower() not in RGB_MASKS + ALPHA_MASKS:
        raise Problem(f"bad write mask {describe(mask)} (expected one of "
                      f"{', '.join(RGB_MASKS)} or a)", mask)
    stream.punct("=", "after a destination")
    return upper, index, rel, mask


def _parse_operand(stream):
    neg = stream.peek().kind == "neg"
    if neg:
        stream.next()
    bar = stream.at_punct("|")
    if bar:
        stream.next()
        if stream.peek().kind == "neg":
            raise Problem("|-x| is not an operand modifier (write -|x| or |x|)", stream.peek())
    sel = stream.word("an operand (src0, src1, src2 or srcp)", *map(str.upper, SELS))
    stream.punct(".", f"after {sel.text}")
    swizzle = stream.next()
    if swizzle.kind != "word":
        raise Problem(f"bad swizzle {describe(swizzle)}", swizzle)
    if bar:
        stream.punct("|", "closing |x|")
    return _Operand(sel, swizzle, neg | bar << 1)


def _unit_of(op):
    """§5.3 rules 1-2 and the unit mark: "rgb", "alpha" or None (still open)."""
    name = op.opcode.text.upper()
    by_opcode = "alpha" if name in ALPHA_ONLY else "rgb" if name in RGB_ONLY else None
    masks = {d[3].text.lower() for d in op.dests} - {"none"}
    by_mask = None
    if masks:
        by_mask = "alpha" if masks == {"a"} else "rgb"
        if "a" in masks and by_mask == "rgb":
            raise Problem("an operation cannot write both .a and .rgb channels", op.token)
    for what, unit in (("write mask", by_mask), ("unit mark", op.mark)):
        if by_opcode and unit and unit != by_opcode:
            raise Problem(f"{name} runs on the {by_opcode} unit; its {what} says {unit}",
                          op.opcode)
    if by_mask and op.mark and by_mask != op.mark:
        raise Problem(f"the unit mark says {op.mark}; the write mask says {by_mask}", op.token)
    return by_opcode or by_mask or op.mark


def _assign_units(ops, token):
    units = [_unit_of(op) for op in ops]
    if len(ops) == 2:
        if units[0] is not None and units[0] == units[1]:
            raise Problem(f"both operations are on the {units[0]} unit", ops[1].opcode)
        other = {"rgb": "alpha", "alpha": "rgb"}
        if units[0] is None and units[1] is None:
            raise Problem("cannot tell which operation is rgb and which alpha (give one a "
                          "destination mask, or mark it RGB or ALPHA)", ops[0].opcode)
        units = [u or other[units[1 - i]] for i, u in enumerate(units)]
    elif len(ops) == 1 and units[0] is None:
        raise Problem(f"cannot tell which unit runs {ops[0].opcode.text} (give it a "
                      f"destination mask, or mark it RGB or ALPHA)", ops[0].opcode)
    return units


def _encode_op(inst, unit, op):
    fields = UNIT_FIELDS[unit]
    name = op.opcode.text.upper()
    if name not in ALU_OPCODES[unit]:
        raise Problem(f"{name} is not an opcode of the {unit} unit", op.opcode)
    inst.put(*fields["op"], ALU_OPCODES[unit][name])
    inst.put(*fields["omod"], op.omod)
    seen = set()
    for kind, index, rel, mask in op.dests:
        slot = "temp" if kind == "TEMP" else "out"
        if slot in seen:
            raise Problem(f"an operation has at most one {kind.lower()} destination"
                          if kind == "TEMP" else "an operation has at most one out[] or "
                          "pred[] destination", mask)
        seen.add(slot)
        if kind == "PRED" and inst.inst_type == InstType.OUT:
            raise Problem("pred[] destinations update predicates: not in an OUT instruction "
                          "(there out[N] writes render target N)", mask)
        masks = ALPHA_MASKS if unit == "alpha" else RGB_MASKS
        code = masks.index(mask.text.lower())
        if slot == "temp":
            inst.put(*fields["addrd"], index)
            inst.put(*fields["rel"], rel)
            inst.put(*fields["wmask"], code)
        else:
            inst.put(*fields["target"], index)
            inst.put(*fields["omask"], code)
    width = 1 if unit == "alpha" else 3
    for (k, sel_field, swiz_fields, mod_field), operand in zip(INPUT_FIELDS[unit], op.operands):
        text = operand.swizzle.text.lower()
        if len(text) != width or any(c not in SWIZZLE_CHARS for c in text):
            raise Problem(f"bad {unit} swizzle {operand.swizzle.text!r} (expected {width} of "
                          f"{', '.join(SWIZZLE_CHARS)})", operand.swizzle)
        inst.put(k, sel_field, SELS.index(operand.sel.text.lower()))
        for swiz_field, c in zip(swiz_fields, text):
            inst.put(k, swiz_field, SWIZZLE_CHARS.index(c))
        inst.put(k, mod_field, operand.mod)


def parse_alu(stream, first, tags, out):
    """The rest of an ALU/OUT instruction (after its leading tags) -> :class:`Instruction`."""
    inst = Instruction(InstType.OUT if out else InstType.ALU, first)
    inst.put(0, "TYPE", int(inst.inst_type))
    for slot in range(3):
        for k in DECL_WORDS.values():
            inst.put(k, f"ADDR{slot}", 0x80)        # an undeclared slot reads float(0)
    _parse_decls(stream, inst)
    stream.punct(":")
    ops = []
    while not stream.at_punct(";"):
        if len(ops) == 2:
            raise Problem("an instruction has at most two operations (one per unit)",
                          stream.peek())
        ops.append(_parse_op(stream))
        if stream.at_punct(","):
            stream.next()
    stream.end_statement()
    for unit, op in zip(_assign_units(ops, first), ops):
        _encode_op(inst, unit, op)
    for tag in tags:
        inst.apply_tag(tag)
    return inst
