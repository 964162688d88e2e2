"""What every instruction parser shares: the token cursor, numbers, the words being built, and
tags (``NAME`` / ``NAME(value)``, a field of the instruction's words by its register name)."""

from dataclasses import dataclass, field

from hdl.isa import InstType, R500_WORDS_PER_INSTRUCTION
from firmware.r500.errors import Problem
from firmware.r500.names import FIELD_ENUMS, TAG_FIELDS, format_of

__all__ = ["TokenStream", "Instruction", "Tag", "parse_number", "describe"]


def describe(token):
    return "end of file" if token.kind == "eof" else repr(token.text)


def parse_number(token, limit, what, hex_ok=False):
    """A number token in ``0 … limit-1``: decimal (the base), or ``0x…`` where ``hex_ok``."""
    text = token.text if token.kind == "word" else ""
    try:
        if hex_ok and text[:2].lower() == "0x":
            value = int(text[2:], 16)
        elif text.isdigit():
            value = int(text, 10)
        else:
            raise ValueError
    except ValueError:
        raise Problem(f"expected {what} (a number), got {describe(token)}", token) from None
    if value >= limit:
        raise Problem(f"{what} {value} out of range (0..{limit - 1})", token)
    return value


class TokenStream:
    """A cursor over the tokens of one program."""

    def __init__(self, tokens):
        self.tokens = tokens
        self.pos = 0

    def peek(self, ahead=0):
        return self.tokens[min(self.pos + ahead, len(self.tokens) - 1)]

    def next(self):
        token = self.peek()
        if token.kind != "eof":
            self.pos += 1
        return token

    def at_punct(self, char):
        return self.peek().is_punct(char)

    def at_word(self, *keywords):
        return self.peek().is_word(*keywords)

    def punct(self, char, context=""):
        token = self.next()
        if not token.is_punct(char):
            where = f" {context}" if context else ""
            raise Problem(f"expected '{char}'{where}, got {describe(token)}", token)
        return token

    def word(self, what, *keywords):
        token = self.next()
        if not token.is_word(*keywords):
            raise Problem(f"expected {what}, got {describe(token)}", token)
        return token

    def number_in(self, open_char, close_char, limit, what, hex_ok=False):
        """``open N close`` -> N."""
        self.punct(open_char, f"before {what}")
        value = parse_number(self.next(), limit, what, hex_ok)
        self.punct(close_char, f"after {what}")
        return value

    def end_statement(self, expected="';'"):
        """Consume the ``;`` that ends an instruction, or say it is missing."""
        if self.at_punct(";"):
            return self.next()
        raise self.unexpected(expected)

    def unexpected(self, expected):
        """The problem at the next token; a token on a later line than the one before it
        most likely starts the next instruction, so the ``;`` is what is missing."""
        token, before = self.peek(), self.tokens[max(self.pos - 1, 0)]
        if self.pos and (token.kind == "eof" or (token.file, token.line) != (before.file,
                                                                               before.line)):
            return Problem(f"missing ';' after {describe(before)}", before)
        return Problem(f"expected {expected}, got {describe(token)}", token)

    def skip_statement(self):
        """After an error: skip to just past the next ``;`` (or to the end)."""
        while self.peek().kind != "eof":
            if self.next().is_punct(";"):
                return


@dataclass
class Tag:
    """``NAME`` or ``NAME(arg)`` before (or, in FC and TEX instructions, after) the opcode."""
    name: object             # the word token
    arg: object = None       # the argument token, or None for a bare flag

    @classmethod
    def parse(cls, stream):
        name = stream.next()
        if not stream.at_punct("("):
            return cls(name)
        stream.next()
        arg = stream.next()
        stream.punct(")", f"after {name.text}'s value")
        return cls(name, arg)


@dataclass
class Instruction:
    """One instruction being built: its type, six words, and where it came from."""
    inst_type: InstType
    token: object                                   # its first token (file and line)
    words: list = field(default_factory=lambda: [0] * R500_WORDS_PER_INSTRUCTION)
    #: the JUMP_ADDR argument token, when it names a label (resolved once all are known)
    target: object = None

    def put(self, k, name, value, token=None):
        """Set field ``name`` of word ``k`` (the type's format of that word)."""
        fmt = format_of(self.inst_type, k)
        lo, width = fmt.fields[name]
        if not 0 <= value < 1 << width:
            raise Problem(f"{name} = {value} does not fit in {width} bits", token)
        self.words[k] = self.words[k] & ~(((1 << width) - 1) << lo) | value << lo

    def get(self, k, name):
        return format_of(self.inst_type, k).unpack(self.words[k])[name]

    def apply_tag(self, tag):
        """Set the field a tag names (``TAG_FIELDS`` of this instruction's type)."""
        fields = TAG_FIELDS[self.inst_type]
        name = tag.name.text.upper()
        if name not in fields:
            kind = "an ALU or OUT" if self.inst_type in (InstType.ALU, InstType.OUT) else \
                f"a {self.inst_type.name}"
            raise Problem(f"unknown tag {tag.name.text!r} for {kind} instruction", tag.name)
        k, fmt = fields[name]
        width = fmt.fields[name][1]
        if tag.arg is None:
            if width != 1:
                raise Problem(f"{name} needs a value: {name}(N)", tag.name)
            value = 1
        elif name == "JUMP_ADDR" and not tag.arg.text[:1].isdigit():
            self.target = tag.arg       # a label
            value = 0
        else:
            value = self._tag_value(name, tag.arg, width)
        self.put(k, name, value, tag.name)

    @staticmethod
    def _tag_value(name, token, width):
        names = FIELD_ENUMS.get(name)
        if names is not None and token.kind == "word" and token.text.upper() in names.__members__:
            return names[token.text.upper()].value
        if names is not None and not token.text[:1].isdigit():
            spelled = ", ".join(m.lower() for m in names.__members__)
            raise Problem(f"bad {name} value {token.text!r} (expected {spelled} or a number)",
                          token)
        return parse_number(token, 1 << width, f"{name} value", hex_ok=True)
