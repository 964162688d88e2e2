"""R500 fragment-shader disassembler: instruction words back to assembly that re-assembles to
the same words (``docs/r500-asm.md``).

    python -m firmware.r500disasm FILE        (FILE: .inc, .hex or .bin)

Instructions print in the base syntax where it can say them and with the project's extensions
(tags, ``aL+``, ``pred[]``, ``NOOMOD``, ``FC``) where it cannot. Each instruction's text is
assembled again before it is printed; one that does not give back its words exactly (a reserved
opcode or bit, a nonzero unused word) prints as ``WORDS w0 … w5 ;``. FC targets inside the
program become labels ``L<n>:``.
"""

import argparse
import sys

from hdl.isa import (
    AlphaOp, FcOp, InstType, R500_WORDS_PER_INSTRUCTION, RgbOp, TexOp,
)
from firmware.r500.errors import R500AsmError
from firmware.r500.names import (
    ALPHA_MASKS, ALPHA_ONLY, COMPARES, DECL_WORDS, FIELD_ENUMS, INPUT_FIELDS, NOOMOD, OMODS,
    RGB_MASKS, RGB_ONLY, SELS, SRCP_OPS, SWIZZLE_CHARS, TAG_FIELDS, TEX_SWIZZLE_CHARS,
    UNIT_FIELDS, format_of,
)
from firmware.r500.wordfile import read_words
from firmware.r500asm import assemble

__all__ = ["disassemble", "disassemble_instruction", "read_words", "main"]

_N = R500_WORDS_PER_INSTRUCTION
_OMOD_NAMES = {code: name for name, code in OMODS.items()}
_COMPARE_NAMES = {code: name for name, code in COMPARES.items()}
_SRCP_NAMES = {code: name for name, code in SRCP_OPS.items()}
_OPCODES = {"rgb": RgbOp, "alpha": AlphaOp}


#: operands an opcode reads (A, B, C in order), printed even when they are the zero default
_ARITY = {"SOP": 0, "DP": 0, "FRC": 1, "EX2": 1, "LN2": 1, "RCP": 1, "RSQ": 1, "SIN": 1,
          "COS": 1, "DP3": 2, "DP4": 2, "MIN": 2, "MAX": 2}


class _Unprintable(Exception):
    """The words hold something no assembly text says (they print as WORDS)."""


def _fields(words, inst_type):
    """{(word index, field name): value} of the instruction's formatted words."""
    out = {}
    for k in range(_N):
        fmt = format_of(inst_type, k)
        if fmt is not None:
            out.update({(k, name): v for name, v in fmt.unpack(words[k]).items()})
    return out


def _tags(f, inst_type, target_name):
    parts = []
    for name, (k, fmt) in TAG_FIELDS[inst_type].items():
        value = f[k, name]
        if not value:
            continue
        if fmt.fields[name][1] == 1:
            parts.append(name)
            continue
        names = FIELD_ENUMS.get(name)
        if name == "JUMP_ADDR":
            spelled = target_name(value)
        elif names is not None and value in names._value2member_map_:
            spelled = names(value).name.lower()
        else:
            spelled = f"0x{value:02x}" if name == "JUMP_FUNC" else str(value)
        parts.append(f"{name}({spelled})")
    return parts


def _address(kind, value, rel):
    inner = f"aL+{value}" if rel else str(value)
    return f"float({inner})" if kind == "float" else f"{kind}[{inner}]"


# --- ALU / OUT -------------------------------------------------------------------------------

def _decls(f):
    decls = []
    for n in range(3):
        for grp, k in DECL_WORDS.items():
            addr, const, rel = f[k, f"ADDR{n}"], f[k, f"ADDR{n}_CONST"], f[k, f"ADDR{n}_REL"]
            if (addr, const, rel) == (0x80, 0, 0):
                continue                            # undeclared: the assembler's default
            if const:
                decls.append(f"src{n}.{grp} = {_address('const', addr, rel)}")
            elif addr & 0x80:
                decls.append(f"src{n}.{grp} = {_address('float', addr & 0x7F, rel)}")
            else:
                decls.append(f"src{n}.{grp} = {_address('temp', addr, rel)}")
    for grp, k in DECL_WORDS.items():
        if f[k, "SRCP_OP"]:
            decls.append(f"srcp.{grp} = {_SRCP_NAMES[f[k, 'SRCP_OP']]}")
    return decls


def _unit_used(f, unit):
    return any(f[kf] for kf in UNIT_FIELDS[unit].values()) or any(
        f[k, sel] or f[k, mod] or any(f[k, s] for s in swiz)
        for k, sel, swiz, mod in INPUT_FIELDS[unit])


def _dests(f, unit, out_type):
    u = {part: f[kf] for part, kf in UNIT_FIELDS[unit].items()}
    masks = ALPHA_MASKS if unit == "alpha" else RGB_MASKS
    dests = []
    if u["wmask"] or u["addrd"] or u["rel"]:
        dests.append(f"{_address('temp', u['addrd'], u['rel'])}.{masks[u['wmask']]}")
    if u["omask"] or u["target"]:
        where = f"out[{u['target']}]" if out_type else f"pred[{_COMPARE_NAMES[u['target']]}]"
        dests.append(f"{where}.{masks[u['omask']]}")
    return dests, bool(u["wmask"] or u["omask"])


def _operands(f, unit, arity):
    texts = []
    for k, sel, swiz, mod in INPUT_FIELDS[unit]:
        body = f"{SELS[f[k, sel]]}.{''.join(SWIZZLE_CHARS[f[k, s]] for s in swiz)}"
        texts.append(("", "-", "", "-")[f[k, mod]] + (f"|{body}|" if f[k, mod] & 2 else body))
        texts[-1] = (texts[-1], bool(f[k, sel] or f[k, mod] or any(f[k, s] for s in swiz)))
    while len(texts) > arity and not texts[-1][1]:
        texts.pop()
    return [text for text, _ in texts]


def _op(f, unit, out_type):
    code = f[UNIT_FIELDS[unit]["op"]]
    if code not in _OPCODES[unit]._value2member_map_:
        raise _Unprintable
    name = _OPCODES[unit](code).name
    dests, masked = _dests(f, unit, out_type)
    omod = f[UNIT_FIELDS[unit]["omod"]]
    parts = [f"{d} =" for d in dests]
    parts += [NOOMOD] if omod == 7 else [f"{_OMOD_NAMES[omod]} *"] if omod else []
    parts += [name] + _operands(f, unit, _ARITY.get(name, 3))
    decided = name in ALPHA_ONLY or name in RGB_ONLY or masked
    return parts, decided


def _alu(f, inst_type):
    out_type = inst_type == InstType.OUT
    ops = {unit: _op(f, unit, out_type) for unit in ("alpha", "rgb") if _unit_used(f, unit)}
    lines = []
    for unit, (parts, decided) in ops.items():
        others = [d for u, (_, d) in ops.items() if u != unit]
        if not decided and not any(others):
            parts.insert(0, unit.upper())           # a mark only where §5.3 leaves it open
        lines.append("  " + " ".join(parts))
    tags = (["OUT"] if out_type else []) + _tags(f, inst_type, str)
    decls = _decls(f)
    head = [" ".join(tags)] if tags else []
    head += [d + (" ," if i < len(decls) - 1 else " :") for i, d in enumerate(decls)] or [":"]
    return "\n".join(head + [" ,\n".join(lines) + " ;" if lines else "  ;"])


# --- TEX and FC ------------------------------------------------------------------------------

def _register(f, k, prefix, channels="STRQ"):
    swizzle = "".join(TEX_SWIZZLE_CHARS[f[k, f"{prefix}_{c}_SWIZ"]] for c in channels)
    return f"{_address('temp', f[k, f'{prefix}_ADDR'], f[k, f'{prefix}_ADDR_REL'])}.{swizzle}"


def _tex(f, words):
    if f[1, "INST"] not in TexOp._value2member_map_:
        raise _Unprintable
    rgb, alpha = f[0, "RGB_WMASK"], f[0, "ALPHA_WMASK"]
    mask = ("a" if not rgb else RGB_MASKS[rgb] + "a") if alpha else RGB_MASKS[rgb]
    dest = f"{_address('temp', f[2, 'DST_ADDR'], f[2, 'DST_ADDR_REL'])}.{mask}"
    texel = "".join(TEX_SWIZZLE_CHARS[f[2, f"DST_{c}_SWIZ"]] for c in "RGBA")
    operands = [f"tex[{f[1, 'TEX_ID']}].{texel}", _register(f, 2, "SRC")]
    if words[3]:
        operands += [_register(f, 3, "DX"), _register(f, 3, "DY")]
    head = " ".join(["TEX"] + _tags(f, InstType.TEX, str))
    return f"{head}\n  {dest} = {TexOp(f[1, 'INST']).name} {' '.join(operands)} ;"


def _fc(f, target_name):
    return " ".join(["FC", FcOp(f[2, "OP"]).name] + _tags(f, InstType.FC, target_name)) + " ;"


def _text(words, target_name):
    inst_type = InstType(words[0] & 3)
    f = _fields(words, inst_type)
    if inst_type == InstType.TEX:
        return _tex(f, words)
    if inst_type == InstType.FC:
        return _fc(f, target_name)
    return _alu(f, inst_type)


def _raw(words):
    return "WORDS " + " ".join(f"0x{w:08x}" for w in words) + " ;"


def disassemble_instruction(words, target_name=str):
    """Assembly text for one instruction (six words). ``target_name(n)`` spells an FC
    JUMP_ADDR (default: the number)."""
    words = list(words)
    if len(words) != _N or any(not 0 <= w < 1 << 32 for w in words):
        raise ValueError(f"an instruction is {_N} words of 32 bits")
    try:
        text = _text(words, str)
        if assemble(text).words != words:
            return _raw(words)
    except (_Unprintable, R500AsmError):
        return _raw(words)
    return _text(words, target_name) if target_name is not str else text


def _label_targets(words):
    count = len(words) // _N
    targets = set()
    for i in range(count):
        inst = words[i * _N:(i + 1) * _N]
        if inst[0] & 3 == InstType.FC:
            f = _fields(inst, InstType.FC)
            if f[3, "JUMP_ADDR"] and not f[3, "JUMP_GLOBAL"] and f[3, "JUMP_ADDR"] < count:
                targets.add(f[3, "JUMP_ADDR"])
    return targets


def disassemble(words):
    """Assembly text for a program (a multiple of six words): one instruction per paragraph,
    FC targets inside the program as labels ``L<n>``."""
    words = list(words)
    if len(words) % _N:
        raise ValueError(f"{len(words)} words are not whole instructions ({_N} words each)")
    labels = _label_targets(words)

    def target_name(n):
        return f"L{n}" if n in labels else str(n)

    chunks = []
    for i in range(0, len(words), _N):
        label = f"L{i // _N}:\n" if i // _N in labels else ""
        chunks.append(label + disassemble_instruction(words[i:i + _N], target_name))
    return "\n\n".join(chunks) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m firmware.r500disasm",
                                     description="Disassemble R500 fragment program words.")
    parser.add_argument("file", help="word file: .inc, .hex (hex text) or .bin (little-endian)")
    args = parser.parse_args(argv)
    try:
        words = read_words(args.file)
    except R500AsmError as e:
        print(e, file=sys.stderr)
        return 1
    sys.stdout.write(disassemble(words))
    return 0


if __name__ == "__main__":
    sys.exit(main())
