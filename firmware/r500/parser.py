"""A whole program: statements one after another (labels, ``WORDS``, ``END_ADDR``, ALU, TEX,
FC and structured flow control), then flow-control expansion, label targets and limits."""

from dataclasses import dataclass, field
import re

from hdl.isa import InstType, R500_MAX_INSTRUCTIONS, R500_WORDS_PER_INSTRUCTION
from firmware.r500.alu import parse_alu
from firmware.r500.errors import Diagnostic, Problem, R500AsmError
from firmware.r500.flow import Structured, expand, parse_fc, parse_structured
from firmware.r500.names import SELS, STRUCTURED, TAG_FIELDS
from firmware.r500.stream import Instruction, Tag, TokenStream, describe, parse_number
from firmware.r500.tex import parse_tex

__all__ = ["R500Program", "parse_program", "MAX_ERRORS", "KEYWORDS"]

#: errors reported at most per run (the rest would mostly be consequences)
MAX_ERRORS = 20
_TAGS = {t: frozenset(fields) for t, fields in TAG_FIELDS.items()}
_LEADING_TAGS = frozenset().union(*_TAGS.values(), {"OUT"})
_TEX_TAGS = _TAGS[InstType.TEX] | {"OUT"}
#: words that cannot name a label
KEYWORDS = _LEADING_TAGS | STRUCTURED | {"TEX", "FC", "WORDS", "END_ADDR", "TEMP", "CONST",
                                         "FLOAT", "PRED", "NOT", "ALU", "BOOL"} | \
    {s.upper() for s in SELS}
_LABEL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


@dataclass
class R500Program:
    """An assembled program: six ``words`` per instruction, loaded at instruction 0."""
    words: list
    #: US_CODE_ADDR.END_ADDR: the last instruction unless the program says ``END_ADDR(…)``
    end_addr: int
    labels: dict = field(default_factory=dict)
    #: per instruction, the (file, line) it came from
    lines: list = field(default_factory=list)

    @property
    def instructions(self):
        return len(self.words) // R500_WORDS_PER_INSTRUCTION


class _Parser:
    def __init__(self, tokens):
        self.stream = TokenStream(tokens)
        self.items = []                 # Instruction | Structured, one per instruction
        self.labels = {}
        self.end_addr = None            # the END_ADDR(…) argument token
        self.problems = []

    def run(self):
        stream = self.stream
        while stream.peek().kind != "eof":
            start = stream.pos
            try:
                self.statement()
            except Problem as e:
                self.problems.append(e if e.token else Problem(str(e), stream.tokens[start]))
                if len(self.problems) >= MAX_ERRORS:
                    break
                if stream.pos == start or not stream.tokens[stream.pos - 1].is_punct(";"):
                    stream.skip_statement()

    def statement(self):
        stream = self.stream
        first = stream.peek()
        if first.kind == "word" and stream.peek(1).is_punct(":") \
                and first.text.upper() not in KEYWORDS:
            return self.label(stream.next(), stream.next())
        if first.is_word("WORDS"):
            return self.raw_words(stream.next())
        if first.is_word("END_ADDR"):
            stream.next()
            stream.punct("(", "after END_ADDR")
            self.end_addr = stream.next()
            stream.punct(")", "after END_ADDR's value")
            return stream.end_statement()
        tags = self.tags(_LEADING_TAGS)
        if stream.at_word("TEX"):
            stream.next()
            item = parse_tex(stream, first, tags + self.tags(_TEX_TAGS))
        elif stream.at_word("FC"):
            stream.next()
            item = parse_fc(stream, first, tags, _TAGS[InstType.FC])
        elif stream.at_word(*STRUCTURED):
            item = parse_structured(stream, tags, _TAGS[InstType.FC])
        else:
            out = [t for t in tags if t.name.is_word("OUT")]
            if any(t.arg is not None for t in out):
                raise Problem("OUT takes no value", out[0].name)
            item = parse_alu(stream, first, [t for t in tags if t not in out], bool(out))
        self.items.append(item)

    def tags(self, names):
        tags, seen = [], set()
        while self.stream.at_word(*names):
            tag = Tag.parse(self.stream)
            name = tag.name.text.upper()
            if name in seen:
                raise Problem(f"tag {name} given twice", tag.name)
            seen.add(name)
            tags.append(tag)
        return tags

    def label(self, name, colon):
        if not _LABEL.match(name.text):
            raise Problem(f"bad label name {name.text!r} (letters, digits and _, not starting "
                          f"with a digit)", name)
        if name.text in self.labels:
            raise Problem(f"label {name.text!r} defined twice", name)
        self.labels[name.text] = len(self.items)

    def raw_words(self, first):
        inst = Instruction(InstType.ALU, first)
        for k in range(R500_WORDS_PER_INSTRUCTION):
            inst.words[k] = parse_number(self.stream.next(), 1 << 32, f"word {k} of WORDS",
                                         hex_ok=True)
        self.stream.end_statement()
        inst.inst_type = InstType(inst.words[0] & 3)
        self.items.append(inst)


def parse_program(tokens):
    """Tokens -> :class:`R500Program`; raises :class:`R500AsmError` listing the problems."""
    parser = _Parser(tokens)
    parser.run()
    problems = parser.problems
    items = expand(parser.items, parser.labels, problems) if len(problems) < MAX_ERRORS else []
    count = len(parser.items)
    if count > R500_MAX_INSTRUCTIONS:
        problems.append(Problem(f"more than {R500_MAX_INSTRUCTIONS} instructions",
                                parser.items[R500_MAX_INSTRUCTIONS].token))
    end_addr = count - 1
    if parser.end_addr is not None:
        try:
            end_addr = _end_addr(parser.end_addr, parser.labels, count)
        except Problem as e:
            problems.append(e)
    problems += _jumps_past_the_end(parser.items, end_addr)
    if not count and not problems:
        file = tokens[-1].file
        raise R500AsmError([Diagnostic(file, None, "the program has no instructions")])
    if problems:
        raise R500AsmError([Diagnostic(p.token.file, p.token.line, str(p))
                            for p in problems[:MAX_ERRORS]])
    words = [w for inst in items for w in inst.words]
    return R500Program(words, end_addr, dict(parser.labels),
                       [(inst.token.file, inst.token.line) for inst in items])


def _jumps_past_the_end(items, end_addr):
    """A structured word whose target lies past END_ADDR (an ELSE or IF whose ENDIF is the last
    instruction, a BREAK whose ENDLOOP is): the quad would stop with "PC outside the program"
    whenever the group takes that jump (r500-us.md §3.6), so say so here."""
    return [Problem(f"{item.name} would jump to instruction {item.target}, past the program's "
                    f"end ({end_addr}): put an instruction after its construct's last word",
                    item.keyword)
            for item in items if isinstance(item, Structured) and item.target > end_addr
            and _may_jump(item.fields)]


def _may_jump(fields):
    # JUMP_FUNC "never" with JUMP_ANY never jumps (an ENDIF); without JUMP_ANY it jumps when no
    # lane votes (an ELSE after an IF every lane took)
    return not (fields["JUMP_FUNC"] == 0 and fields["JUMP_ANY"])


def _end_addr(token, labels, count):
    if token.text in labels:
        value = labels[token.text]
    elif token.text[:1].isdigit():
        value = parse_number(token, count, "END_ADDR", hex_ok=True)
    else:
        raise Problem(f"END_ADDR expects a label or an instruction number, got "
                      f"{describe(token)}", token)
    if value >= count:
        raise Problem(f"END_ADDR {value} is past the last instruction ({count - 1})", token)
    return value
