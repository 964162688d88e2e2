"""Flow-control instructions: raw ``FC OP tags ;`` and the structured words (IF/ELSE/ENDIF,
LOOP/REP … BREAK/CONTINUE … ENDLOOP/ENDREP, CALL/RET), which expand to the rows of
r500-us.md §2's table with their targets and pop counts computed."""

from dataclasses import dataclass, field

from hdl.isa import AddrOp, BranchOp, FcOp, InstType, JumpFunc, PredSel
from firmware.r500.errors import Problem
from firmware.r500.names import FC_OPCODES
from firmware.r500.stream import Instruction, Tag, describe, parse_number

__all__ = ["parse_fc", "parse_structured", "Structured", "expand"]

_BOOLS = 32
#: a condition's JUMP_FUNC when the jump is taken where it holds; NOT complements it
_CONDITIONS = {"ALU": JumpFunc.ALU, "PRED": JumpFunc.PRED, "BOOL": JumpFunc.BOOL}
_PRED_SELS = {sel.name: sel.value for sel in PredSel if sel != PredSel.NONE}


def _trailing_tags(stream, tag_names):
    tags = []
    while stream.at_word(*tag_names):
        tags.append(Tag.parse(stream))
    return tags


def parse_fc(stream, first, tags, tag_names):
    """``FC OP {tag} ;`` (after the leading tags and ``FC``) -> :class:`Instruction`."""
    inst = Instruction(InstType.FC, first)
    inst.put(0, "TYPE", int(InstType.FC))
    opcode = stream.word(f"an FC opcode ({', '.join(FC_OPCODES)})", *FC_OPCODES)
    inst.put(2, "OP", FC_OPCODES[opcode.text.upper()])
    tags = tags + _trailing_tags(stream, tag_names)
    stream.end_statement("a field (NAME or NAME(value)) or ';'")
    for tag in tags:
        inst.apply_tag(tag)
    return inst


@dataclass
class Structured:
    """A structured flow-control word before its targets are known."""
    keyword: object                     # the IF/ELSE/… token
    tags: list
    func: int = JumpFunc.ALWAYS         # JUMP_FUNC of its condition (IF: where it holds)
    bool_addr: int = 0
    pred_sel: int = 0
    callee: object = None               # CALL's label or address token
    #: set by :func:`expand`
    fields: dict = field(default_factory=dict)
    target: int = 0

    @property
    def name(self):
        return self.keyword.text.upper()

    @property
    def token(self):
        return self.keyword


def _parse_condition(stream, item, required):
    negate = stream.at_word("NOT")
    if negate:
        stream.next()
    if not stream.at_word(*_CONDITIONS):
        if required or negate:
            raise Problem(f"{item.name} expects a condition: [NOT] alu, pred[.rrrr], "
                          f"bool(N); got {describe(stream.peek())}", stream.peek())
        return
    cond = stream.next().text.upper()
    item.func = _CONDITIONS[cond] ^ (0xFF if negate else 0)
    if cond == "BOOL":
        item.bool_addr = stream.number_in("(", ")", _BOOLS, "boolean constant")
    elif cond == "PRED" and stream.at_punct("."):
        stream.next()
        sel = stream.word(f"a predicate ({', '.join(s.lower() for s in _PRED_SELS)})",
                          *_PRED_SELS)
        item.pred_sel = _PRED_SELS[sel.text.upper()]


def parse_structured(stream, tags, tag_names):
    """``{tag} KEYWORD [condition | callee] {tag} ;`` -> :class:`Structured`."""
    item = Structured(stream.next(), tags)
    if item.name in ("IF", "BREAK", "CONTINUE"):
        _parse_condition(stream, item, required=item.name == "IF")
        if item.name == "IF":
            item.func ^= 0xFF           # IF jumps over its body where the condition fails
    elif item.name == "CALL":
        item.callee = stream.next()
        if item.callee.kind != "word":
            raise Problem(f"CALL expects a label or an address, got {describe(item.callee)}",
                          item.callee)
    item.tags = tags + _trailing_tags(stream, tag_names)
    stream.end_statement("a field (NAME or NAME(value)) or ';'")
    return item


# --- expansion (r500-us.md §2, "How structured code maps onto it") --------------------------

def _row(op, func, any_=0, b_else=0, op0=BranchOp.NONE, op1=BranchOp.NONE, pop=0, ign=0,
         a_op=AddrOp.NONE):
    return {"OP": op, "JUMP_FUNC": func, "JUMP_ANY": any_, "B_ELSE": b_else, "B_OP0": op0,
            "B_OP1": op1, "B_POP_CNT": pop, "IGNORE_UNCOVERED": ign, "A_OP": a_op}


_LOOP_OPS = {"LOOP": (FcOp.LOOP, FcOp.ENDLOOP, FcOp.BREAKLOOP),
             "REP": (FcOp.REP, FcOp.ENDREP, FcOp.BREAKREP)}
_CLOSERS = {"ENDIF": ("IF",), "ENDLOOP": ("LOOP",), "ENDREP": ("REP",)}


@dataclass
class _Open:
    item: Structured
    index: int
    else_index: int = None
    else_item: Structured = None
    exits: list = field(default_factory=list)       # (item, is_break) inside a loop


def _close(opener, closer, end):
    """Targets of a finished construct; ``end`` is the closing word's index."""
    if opener.item.name == "IF":
        has_else = opener.else_index is not None
        opener.item.target = (opener.else_index if has_else else end) + 1
        opener.item.fields["B_OP1"] = BranchOp.INCR if has_else else BranchOp.NONE
        if has_else:
            opener.else_item.target = end + 1
        closer.target = end + 1
        return
    opener.item.target = end
    closer.target = opener.index + 1
    for item, is_break in opener.exits:
        item.target = end + 1 if is_break else end


def _int_addr(item):
    """The INT_ADDR a LOOP/REP names with a tag (its ENDLOOP/ENDREP reads the same one)."""
    for tag in item.tags:
        if tag.name.is_word("INT_ADDR") and tag.arg is not None:
            return parse_number(tag.arg, 32, "INT_ADDR value", hex_ok=True)
    return 0


def _expand_one(item, index, stack):
    name = item.name
    if name == "IF":
        item.fields = _row(FcOp.JUMP, item.func, op0=BranchOp.INCR, ign=1)
        stack.append(_Open(item, index))
    elif name == "ELSE":
        item.fields = _row(FcOp.JUMP, JumpFunc.NEVER, b_else=1, op1=BranchOp.DECR, pop=1)
        if not stack or stack[-1].item.name != "IF" or stack[-1].else_index is not None:
            raise Problem("ELSE without an open IF", item.keyword)
        stack[-1].else_index, stack[-1].else_item = index, item
    elif name == "ENDIF":
        item.fields = _row(FcOp.JUMP, JumpFunc.NEVER, any_=1, op0=BranchOp.DECR, pop=1)
    elif name in _LOOP_OPS:
        item.fields = _row(_LOOP_OPS[name][0], JumpFunc.NEVER, ign=1)
        item.fields["INT_ADDR"] = _int_addr(item)
        stack.append(_Open(item, index))
    elif name in ("ENDLOOP", "ENDREP"):
        item.fields = _row(_LOOP_OPS[_CLOSERS[name][0]][1], JumpFunc.ALWAYS, any_=1, ign=1)
    elif name in ("BREAK", "CONTINUE"):
        loops = [i for i, o in enumerate(stack) if o.item.name in _LOOP_OPS]
        if not loops:
            raise Problem(f"{name} outside a LOOP or REP", item.keyword)
        loop = stack[loops[-1]]
        depth = len(stack) - 1 - loops[-1]          # IFs open inside the loop
        op = _LOOP_OPS[loop.item.name][2] if name == "BREAK" else FcOp.CONTINUE
        item.fields = _row(op, item.func, op1=BranchOp.DECR, pop=depth, ign=1)
        loop.exits.append((item, name == "BREAK"))
    elif name == "CALL":
        item.fields = _row(FcOp.JUMP, JumpFunc.ALWAYS, a_op=AddrOp.PUSH)
    elif name == "RET":
        item.fields = _row(FcOp.JUMP, JumpFunc.ALWAYS, a_op=AddrOp.POP)
    if name in _CLOSERS:
        if not stack or stack[-1].item.name not in _CLOSERS[name]:
            open_ = f" (the open {stack[-1].item.name} is at line {stack[-1].item.keyword.line})" \
                if stack else ""
            raise Problem(f"{name} without an open {_CLOSERS[name][0]}{open_}", item.keyword)
        opener = stack.pop()
        if name != "ENDIF":
            item.fields["INT_ADDR"] = opener.item.fields["INT_ADDR"]
        _close(opener, item, index)


def expand(items, labels, problems):
    """Turn every :class:`Structured` of ``items`` into an FC :class:`Instruction` and resolve
    every label target. Problems are appended to ``problems`` (a list of :class:`Problem`)."""
    stack = []
    for index, item in enumerate(items):
        if isinstance(item, Structured):
            try:
                _expand_one(item, index, stack)
            except Problem as e:
                problems.append(e)
    for opener in stack:
        problems.append(Problem(f"{opener.item.name} is never closed", opener.item.keyword))
    out = []
    for item in items:
        try:
            out.append(_to_instruction(item, labels) if isinstance(item, Structured)
                       else _resolve(item, labels))
        except Problem as e:
            problems.append(e)
            out.append(item if isinstance(item, Instruction) else None)
    return out


def _lookup(token, labels):
    if token.text[:1].isdigit():
        return parse_number(token, 1 << 9, "jump address", hex_ok=True)
    if token.text not in labels:
        raise Problem(f"undefined label {token.text!r}", token)
    return labels[token.text]


def _resolve(inst, labels):
    if inst.target is not None:
        inst.put(3, "JUMP_ADDR", _lookup(inst.target, labels), inst.target)
    return inst


def _to_instruction(item, labels):
    inst = Instruction(InstType.FC, item.keyword)
    inst.put(0, "TYPE", int(InstType.FC))
    inst.put(0, "ALU_WAIT", 1)                      # as Mesa emits every FC instruction
    inst.put(0, "RGB_PRED_SEL", item.pred_sel)
    for name, value in item.fields.items():
        inst.put(3 if name == "INT_ADDR" else 2, name, int(value))
    inst.put(3, "BOOL_ADDR", item.bool_addr)
    target = _lookup(item.callee, labels) if item.callee is not None else item.target
    inst.put(3, "JUMP_ADDR", target, item.keyword)
    for tag in item.tags:
        inst.apply_tag(tag)
    return _resolve(inst, labels)
