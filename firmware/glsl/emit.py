"""Assembly text (r500-us.md §5, docs/r500-asm.md) from the allocated program, with comments
naming the GLSL source lines."""

from firmware.glsl.machine import ConstReg, FcItem, Inline, VReg
from firmware.glsl.slots import assign, presub_side, requirements

__all__ = ["emit_program"]

_CH = "rgba"
_SRCP = {0: "neg2", 1: "sub", 2: "add", 3: "neg"}
_OMOD = {1: "2.0 * ", 2: "4.0 * ", 3: "8.0 * ", 4: "0.5 * ", 5: "0.25 * ", 6: "0.125 * ",
         7: "NOOMOD "}
_RGB_MASKS = ("none", "r", "g", "rg", "b", "rb", "gb", "rgb")
_ALPHA_OPCODE = {"DP4": "DP"}


def _key(base):
    if isinstance(base, VReg):
        return ("temp", base.temp)
    if isinstance(base, ConstReg):
        return ("const", base.index)
    return ("float", base.code)


def _address(base):
    kind, n = _key(base)
    return f"float({n})" if kind == "float" else f"{kind}[{n}]"


def _channel(base, comp, side):
    if isinstance(base, Inline):
        return "a" if side == "alpha" else "r"
    if isinstance(base, ConstReg):
        return _CH[comp]
    return _CH[base.channels[comp]]


def _mask(channels):
    code = sum(1 << c for c in channels if c < 3)
    return _RGB_MASKS[code]


class _InstrText:
    def __init__(self, instr):
        self.instr = instr
        self.units = []
        if instr.rgb is not None and instr.rgb is instr.alpha:
            self.units = [(instr.rgb, "both")]
        else:
            self.units = [(m, u) for m, u in ((instr.rgb, "rgb"), (instr.alpha, "alpha"))
                          if m is not None]
        self.needs, self.srcp = requirements(self.units)
        self.slots = assign(self.needs, _key)
        assert self.slots is not None, f"slots do not fit: {instr}"
        self.slot_of = {}
        for need, n in zip(self.needs, self.slots):
            self.slot_of[need.what] = n

    def declarations(self):
        decls = {}
        for need, n in zip(self.needs, self.slots):
            for side, base in need.sides.items():
                decls[(n, side)] = _address(base)
        parts = [f"src{n}.{'a' if side == 'alpha' else 'rgb'} = {addr}"
                 for (n, side), addr in sorted(decls.items())]
        for side, code in sorted(self.srcp.items()):
            parts.append(f"srcp.{'a' if side == 'alpha' else 'rgb'} = {_SRCP[code]}")
        return parts

    def operand(self, mop, unit, k, lanes_to_positions, width):
        """Text of input k of ``mop`` on ``unit``: ``lanes_to_positions`` maps each lane to the
        swizzle position (0-2 for rgb, 0 for alpha) it feeds."""
        op = mop.srcs[k]
        chars = ["_"] * width
        if op is None:
            return None
        if op.base == "srcp":
            sel = "srcp"
        elif op.base is None:
            sel = "src0"
        else:
            n = self.slot_of.get((mop, unit, k))
            sel = f"src{n if n is not None else 0}"
        for lane, pos in lanes_to_positions:
            s = op.sel[lane]
            if isinstance(s, str):
                chars[pos] = s
            elif op.base == "srcp":
                chars[pos] = self._srcp_channel(mop, s)
            else:
                side = "alpha" if unit == "alpha" else "rgb"
                chars[pos] = _channel(op.base, s, side)
        fill = chars_fill(chars)
        text = f"{sel}.{''.join(c if c != '_' else fill for c in chars)}"
        if op.mod == 1:
            return "-" + text
        if op.mod == 2:
            return f"|{text}|"
        if op.mod == 3:
            return f"-|{text}|"
        return text

    def _srcp_channel(self, mop, lane):
        _, p0, p1 = mop.presub
        for p in (p0, p1):
            if p is not None and not isinstance(p.base, Inline):
                return _CH[_channel_index(p.base, p.sel[lane])]
        return "a" if presub_side(mop, lane) == "alpha" else "r"

    def text(self):
        tags, ops = [], []
        for mop, unit in self.units:
            if mop.out is not None:
                tags.append("OUT")
            if mop.clamp:
                tags.append("RGB_CLAMP" if unit == "rgb" else "ALPHA_CLAMP")
            if mop.alu_result:
                tags += ["ALU_WMASK", f"ALU_RESULT_SEL({'alpha' if unit == 'alpha' else 'red'})",
                         f"ALU_RESULT_OP({mop.alu_result})"]
            ops.extend(self.op_texts(mop, unit))
        tags = list(dict.fromkeys(tags))
        decls = ", ".join(self.declarations())
        head = " ".join(tags + [decls]).strip() if decls else " ".join(tags)
        return f"{head} :\n  " + " ,\n  ".join(ops) + " ;" if ops else f"{head} : ;"

    def op_texts(self, mop, unit):
        if unit == "both":
            return [self.one_op(mop, "rgb"), self.one_op(mop, "alpha")]
        return [self.one_op(mop, unit)]

    def one_op(self, mop, unit):
        opcode = mop.opcode
        dests = []
        if unit == "alpha":
            opcode = _ALPHA_OPCODE.get(opcode, opcode)
        alpha_dst = mop.dst is not None and not mop.nowrite and \
            any(mop.dst.channels[c] == 3 for c in mop.comps)
        rgb_dst = mop.dst is not None and not mop.nowrite and \
            any(mop.dst.channels[c] != 3 for c in mop.comps)
        if unit == "alpha" and alpha_dst:
            dests.append(f"temp[{mop.dst.temp}].a")
        if unit == "rgb" and rgb_dst and mop.opcode != "DP4":
            chans = [mop.dst.channels[c] for c in mop.comps]
            dests.append(f"temp[{mop.dst.temp}].{_mask(chans)}")
        if mop.out is not None:
            chans = [mop.dst.channels[c] for c in mop.comps]
            if unit == "alpha" and 3 in chans:
                dests.append(f"out[{mop.out}].a")
            elif unit == "rgb":
                dests.append(f"out[{mop.out}].{_mask(chans)}")
        omod = _OMOD.get(mop.omod, "")
        mark = "" if dests or opcode in ("DP4", "DP", "RCP", "RSQ", "EX2", "LN2", "SIN",
                                         "COS", "DP3") else ("ALPHA " if unit == "alpha"
                                                             else "RGB ")
        operands = self.operands(mop, unit)
        head = "".join(d + " = " for d in dests)
        return f"{mark}{head}{omod}{opcode} {' '.join(operands)}".rstrip()

    def operands(self, mop, unit):
        count = {"FRC": 1, "RCP": 1, "RSQ": 1, "EX2": 1, "LN2": 1, "SIN": 1,
                 "COS": 1}.get(mop.opcode, 2 if mop.opcode in ("MIN", "MAX", "DP3", "DP4")
                                else 3)
        texts = []
        for k in range(count):
            if mop.opcode in ("DP3", "DP4"):
                positions = [(i, i) for i in range(3)] if unit == "rgb" else [(3, 0)]
            elif unit == "alpha":
                lane = next(i for i, c in enumerate(mop.comps)
                            if mop.dst is None or mop.dst.channels[c] == 3) \
                    if mop.comps else 0
                positions = [(lane, 0)]
            else:
                positions = []
                for i, c in enumerate(mop.comps):
                    ch = mop.dst.channels[c] if mop.dst is not None else 0
                    positions.append((i, ch if ch is not None else 0))
            t = self.operand(mop, unit, k, positions, 1 if unit == "alpha" else 3)
            texts.append(t if t is not None else ("src0.0" if unit == "alpha"
                                                   else "src0.000"))
        return texts


def chars_fill(chars):
    """A filler for swizzle positions no lane uses: repeat a used one (reads nothing new)."""
    for c in chars:
        if c != "_":
            return c
    return "0"


def _channel_index(base, comp):
    if isinstance(base, ConstReg):
        return comp
    return base.channels[comp]


def _tex_text(mop):
    src = mop.srcs[0]
    swz = "".join(_CH[src.base.channels[s]] for s in src.sel)
    if mop.kind == "kill":
        return f"TEX temp[{src.base.temp}].none = TEXKILL tex[0].rgba temp[{src.base.temp}]" \
               f".{swz} ;"
    sampler, op = mop.tex
    dst = mop.dst
    chans = [dst.channels[c] for c in mop.comps]
    dst_swz = ["r", "g", "b", "a"]
    for c, ch in zip(mop.comps, chans):
        dst_swz[ch] = _CH[c]
    mask = _mask(chans) + ("a" if 3 in chans else "")
    return f"TEX temp[{dst.temp}].{mask} = {op} tex[{sampler}].{''.join(dst_swz)} " \
           f"temp[{src.base.temp}].{swz} ;"


def _fc_text(fc):
    if fc.kind == "BREAK":
        return "BREAK alu ;" if fc.conditional else "BREAK ;"
    return f"{fc.kind} ;"


def emit_program(items, source_lines, header=()):
    """The assembly text; ``source_lines`` the shader's lines for comments."""
    out = [f"-- {h}" for h in header]
    last_line = None
    count, last_fc = 0, False
    for it in items:
        if isinstance(it, FcItem):
            out.append(_fc_text(it))
            count += 1
            last_fc = True
            continue
        for instr in it.instrs:
            line = next((m.pos.line for m in instr.mops() if m.pos is not None), None)
            if line is not None and line != last_line and 0 < line <= len(source_lines):
                out.append(f"-- {line}: {source_lines[line - 1].strip()}")
                last_line = line
            if instr.tex is not None:
                out.append(_tex_text(instr.tex))
            else:
                out.append(_InstrText(instr).text())
            count += 1
            last_fc = False
    if count == 0 or last_fc:
        out.append(": ;                -- (a program does not end with a jump)")
    return "\n".join(out) + "\n"
