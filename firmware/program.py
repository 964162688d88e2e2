"""What the assembler and the disassembler share: the program image, errors, operand forms and
the ``.mem`` file reader.

The per-opcode operand form is derived from ``hdl.isa`` (kind, type II bit, register fields);
there is no opcode table here.
"""

from dataclasses import dataclass, field
from enum import Enum
import re

from hdl.isa import (
    OPS, Kind, Op, OpInfo, NUM_ENTRIES, ENTRY_NAMES, USER_CODE_BASE,
)

__all__ = [
    "AsmError", "Diagnostic", "Program", "Form", "FORMS", "form_of",
    "ENTRY_LABEL_PREFIX", "ROM_ORIGIN", "USER_RAM_WORDS", "address_space_words",
    "read_mem_words", "split_mem_words", "entry_label",
]

ENTRY_LABEL_PREFIX = "ENTRYPOINT_ADRR_"
ROM_ORIGIN = 0
#: user instruction RAM size (theia-isa.md §3 notes: at least 1,024 words, table included)
USER_RAM_WORDS = 1024


def address_space_words(origin):
    """How many words fit between ``origin`` and the end of its code address region."""
    return (USER_CODE_BASE if origin < USER_CODE_BASE else 0x10000) - origin


# --- errors ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Diagnostic:
    """One problem: printed as ``file:line: problem`` (``file: problem`` without a line)."""
    filename: str
    line: int | None
    problem: str

    def __str__(self):
        if self.line is None:
            return f"{self.filename}: {self.problem}"
        return f"{self.filename}:{self.line}: {self.problem}"


class AsmError(Exception):
    """Assembly (or ``.mem`` file) errors; ``str()`` is one ``file:line: problem`` per line.

    ``diagnostics`` holds them as :class:`Diagnostic`; a plain string makes a single one.
    """

    def __init__(self, diagnostics):
        if isinstance(diagnostics, str):
            diagnostics = [Diagnostic("<string>", None, diagnostics)]
        self.diagnostics = list(diagnostics)
        super().__init__("\n".join(str(d) for d in self.diagnostics))

    @property
    def first(self):
        return self.diagnostics[0]


# --- program image ---------------------------------------------------------------------------

@dataclass
class Program:
    """An assembled image: 64-bit ``words`` from ``origin``; words 0..11 are the entry table."""
    origin: int
    words: list[int]
    labels: dict[str, int] = field(default_factory=dict)
    #: routine name -> code address, for the routines the program defines
    entries: dict[str, int] = field(default_factory=dict)
    #: code address -> (file, line) of the statement that produced the word
    lines: dict[int, tuple[str, int]] = field(default_factory=dict)

    def entry_table(self):
        """The 12 entry addresses as the hardware reads them (low 16 bits of each table word)."""
        return [w & 0xFFFF for w in self.words[:NUM_ENTRIES]]

    @property
    def code_start(self):
        return self.origin + NUM_ENTRIES

    @property
    def code(self):
        """The instruction words after the table."""
        return self.words[NUM_ENTRIES:]

    @property
    def rom(self):
        return self.origin < USER_CODE_BASE


# --- operand forms ---------------------------------------------------------------------------

class Form(Enum):
    """The operand syntax of an opcode; the value is how error messages spell it."""
    NOP = ""                             # NOP [RT_FALSE | VOID ...]: encodes as 0
    REGS = "DST SRC1 SRC2"               # type I
    BRANCH = "TARGET SRC1 SRC2"          # conditional jumps: DST holds the code address
    SET = "DST IMM"                      # SETX SETY SETZ RET
    SWIZZLE = "DST SWIZZLE_..."          # SWIZZLE3D, IMM = selector 0..21
    JUMP = "TARGET"                      # JMP CALL (two trailing VOIDs accepted)
    RETURN = "RT_TRUE|RT_FALSE|IMM"      # RETURN


def form_of(info: OpInfo) -> Form:
    if info.kind is Kind.NOP:
        return Form.NOP
    if info.kind is Kind.BRANCH:
        return Form.BRANCH
    if not info.type2:
        return Form.REGS
    if info.kind in (Kind.JUMP, Kind.CALL):
        return Form.JUMP
    if info.kind is Kind.RETURN:
        return Form.RETURN
    if info.op is Op.SWIZZLE3D:
        return Form.SWIZZLE
    assert info.dst_reg, f"type II opcode {info.name} without a form"
    return Form.SET


#: mnemonic -> (OpInfo, Form)
FORMS = {info.name: (info, form_of(info)) for info in OPS.values()}


# --- .mem files ------------------------------------------------------------------------------

_HEX_TOKEN = re.compile(r"[0-9A-Fa-f]+")


def split_mem_words(text, filename="<string>"):
    """``[(token value, token digit count, line)]`` of a ``$readmemh``-style text."""
    tokens = []
    for lineno, line in enumerate(text.splitlines(), 1):
        for token in line.split("//", 1)[0].split():
            if token.startswith("@"):
                raise AsmError([Diagnostic(filename, lineno,
                                           f"address directive {token!r} is not supported")])
            if not _HEX_TOKEN.fullmatch(token):
                raise AsmError([Diagnostic(filename, lineno, f"bad hex word {token!r}")])
            if len(token) > 16:
                raise AsmError([Diagnostic(filename, lineno,
                                           f"hex word {token!r} is wider than 64 bits")])
            tokens.append((int(token, 16), len(token), lineno))
    return tokens


def read_mem_words(path):
    """64-bit words of an ``Instructions.mem`` file or a ROM/hex image (one word per token).

    A file with any token wider than 8 hex digits is a 64-bit image. Otherwise it is the
    original ``Instructions.mem`` format: the first word is a count (ignored; the original tool
    wrote it in decimal, its loader read hex) and the rest are ``hi lo`` pairs.
    """
    filename = str(path)
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError as e:
        raise AsmError([Diagnostic(filename, None, f"cannot read: {e.strerror}")]) from None
    tokens = split_mem_words(text, filename)
    if not tokens:
        raise AsmError([Diagnostic(filename, None, "no words in file")])
    if any(digits > 8 for _, digits, _ in tokens):
        return [value for value, _, _ in tokens]
    pairs = tokens[1:]
    if len(pairs) % 2:
        raise AsmError([Diagnostic(filename, pairs[-1][2],
                                   f"odd number of 32-bit words after the count "
                                   f"({len(pairs)}): the last word has no low half")])
    return [hi << 32 | lo for (hi, _, _), (lo, _, _) in zip(pairs[0::2], pairs[1::2])]


def entry_label(index):
    return ENTRY_LABEL_PREFIX + ENTRY_NAMES[index]
