"""One quad from a JSON job (r500-us.md §4.3): reading the job, the answer's JSON.

``load_job`` checks every field and raises ``JobError`` (one line naming the job file and the
field) for anything malformed; ``answer`` turns a QuadResult into the answer's JSON object.
"""

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from firmware.program import AsmError
from firmware.r500asm import load_program
from hdl.isa import R500_TEMPS, R500_CONSTS, R500_MAX_INSTRUCTIONS, R500_WORDS_PER_INSTRUCTION
from sim.r500 import fp32
from sim.r500.quad import LANES, LaneInput, Quad
from sim.r500.tex import FILTERS, WRAPS, Sampler

__all__ = ["JobError", "Job", "load_job", "parse_job", "run_job", "answer"]

WORD_LIMIT = 1 << 32
BOOLS = 32
INT_CONSTS = 32
SAMPLERS = 16
TOP_KEYS = {"program", "constants", "bools", "int_consts", "samplers", "texture", "lanes",
            "max_instructions"}
PROGRAM_KEYS = {"path", "words", "start", "end"}
SAMPLER_KEYS = {"base", "width", "height", "filter", "wrap"}
LANE_KEYS = {"temps", "covered"}
PROGRAM_SUFFIXES = {".asm", ".inc", ".hex", ".bin"}


class JobError(Exception):
    """A malformed job: ``str()`` is one line, ``job: field: problem``."""

    def __init__(self, job, where, problem):
        problem = " ".join(str(problem).split())        # one line, whatever the cause said
        super().__init__(f"{job}: {where}: {problem}" if where else f"{job}: {problem}")


@dataclass
class Job:
    """The arguments of ``run_quad`` a job gives (``temporaries``: the build's count, which a
    JSON job leaves at the full R500's 128)."""
    program: list
    start: int = 0
    end: int = None
    constants: dict = field(default_factory=dict)
    bools: int = 0
    int_consts: dict = field(default_factory=dict)
    samplers: dict = field(default_factory=dict)
    texture: list = field(default_factory=list)
    lanes: list = field(default_factory=lambda: [LaneInput() for _ in range(LANES)])
    max_instructions: int = 100_000
    temporaries: int = R500_TEMPS

    def quad(self):
        """The job's Quad, not yet started (``Quad.run(lanes)`` or ``reset`` and ``step``)."""
        return Quad(self.program, self.constants, self.bools, self.int_consts, self.samplers,
                    self.texture, self.start, self.end, self.max_instructions, self.temporaries)

    def run(self):
        return self.quad().run(self.lanes)


class ValueReader:
    """Checks the values of one job; every failure names the job file and the field."""

    def __init__(self, job_name):
        self.job = job_name

    def fail(self, where, problem):
        raise JobError(self.job, where, problem)

    def object(self, value, where, keys):
        if not isinstance(value, dict):
            self.fail(where, "expected an object")
        unknown = sorted(set(value) - keys)
        if unknown:
            self.fail(where, f"unknown key {unknown[0]!r} (known: {', '.join(sorted(keys))})")
        return value

    def list(self, value, where, length=None):
        if not isinstance(value, list):
            self.fail(where, "expected a list")
        if length is not None and len(value) != length:
            self.fail(where, f"expected {length} values, got {len(value)}")
        return value

    def integer(self, value, where, low, high):
        """An integer in low ... high - 1 (JSON number or "0x…" string)."""
        if isinstance(value, str):
            value = self.hex(value, where)
        elif not isinstance(value, int) or isinstance(value, bool):
            self.fail(where, "expected an integer")
        if not low <= value < high:
            self.fail(where, f"{value} is outside {low} … {high - 1}")
        return value

    def word(self, value, where):
        return self.integer(value, where, 0, WORD_LIMIT)

    def hex(self, text, where):
        if not text.lower().startswith("0x"):
            self.fail(where, f"{text!r} is neither a number nor a \"0x…\" string")
        try:
            return int(text[2:], 16)
        except ValueError:
            self.fail(where, f"{text!r} is not a hexadecimal number")

    def value(self, value, where):
        """A binary32 pattern: a number rounded to the nearest fp32 and flushed, or "0x…"."""
        if isinstance(value, str):
            return self.word(value, where)
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            self.fail(where, "expected a number or a \"0x…\" string")
        try:
            number = float(value)
        except OverflowError:           # an integer beyond binary64: an infinity
            number = math.inf if value > 0 else -math.inf
        return fp32.flush(fp32.from_float(number))

    def vec4(self, value, where):
        return [self.value(v, f"{where}[{i}]") for i, v in enumerate(self.list(value, where, 4))]

    def index_map(self, value, where, count, read):
        """{"index": x} with 0 <= index < count, each x read by ``read(x, where)``."""
        if not isinstance(value, dict):
            self.fail(where, "expected an object")
        result = {}
        for key, item in value.items():
            at = f"{where}[{json.dumps(key)}]"
            if not key.isdigit() or not 0 <= int(key) < count:
                self.fail(at, f"the index must be 0 … {count - 1}")
            result[int(key)] = read(item, at)
        return result


def read_program_file(reader, path, where):
    """(words, END_ADDR) of an assembly or word file."""
    if path.suffix.lower() not in PROGRAM_SUFFIXES:
        reader.fail(where, f"{str(path)!r}: a program file is .asm, .inc, .hex or .bin")
    if not path.is_file():
        reader.fail(where, f"no file {str(path)!r}")
    try:
        program = load_program(path)
    except AsmError as error:
        lines = str(error).splitlines() or ["assembly error"]
        more = f" (and {len(lines) - 1} more)" if len(lines) > 1 else ""
        reader.fail(where, lines[0] + more)
    return list(program.words), program.end_addr


def _program(reader, value, base):
    """(words, start, end) of the job's ``program``; ``end`` defaults to the program's
    END_ADDR (a word list's last instruction)."""
    start = end = None
    where = "program"
    if isinstance(value, dict):
        reader.object(value, where, PROGRAM_KEYS)
        if ("path" in value) == ("words" in value):
            reader.fail(where, "give one of \"path\" and \"words\"")
        if "start" in value:
            start = reader.integer(value["start"], "program.start", 0, R500_MAX_INSTRUCTIONS)
        if "end" in value:
            end = reader.integer(value["end"], "program.end", 0, R500_MAX_INSTRUCTIONS)
        where = "program.path" if "path" in value else "program.words"
        value = value.get("path", value.get("words"))
    if isinstance(value, str):
        words, end_addr = read_program_file(reader, base / value, where)
    elif isinstance(value, list):
        words = [reader.word(w, f"{where}[{i}]") for i, w in enumerate(value)]
        end_addr = len(words) // R500_WORDS_PER_INSTRUCTION - 1
    else:
        reader.fail(where, "expected a path, a list of words or an object")
    count, rest = divmod(len(words), R500_WORDS_PER_INSTRUCTION)
    if rest or not 0 < count <= R500_MAX_INSTRUCTIONS:
        reader.fail(where, f"{len(words)} words: a program is 1 … {R500_MAX_INSTRUCTIONS} "
                           f"instructions of {R500_WORDS_PER_INSTRUCTION} words")
    start = 0 if start is None else start
    end = end_addr if end is None else end
    if not start <= end < count:
        reader.fail("program", f"start {start} and end {end} must satisfy start <= end < "
                               f"{count} (the program's instructions)")
    return words, start, end


def read_sampler(reader, value, where, texture_words):
    """A sampler the hardware can set up over a texture memory of ``texture_words`` words
    (r500-us.md §3.5): a known filter and wrap, power-of-two width and height, every texel
    inside the memory. A file that states a sampler means one that works, so anything else
    fails, naming the field. (A program that samples a sampler no file set up still stops
    with the quad error "sampler not set up".)"""
    reader.object(value, where, SAMPLER_KEYS)
    for key in ("width", "height"):
        if key not in value:
            reader.fail(where, f"missing {key!r}")
    base = reader.integer(value.get("base", 0), f"{where}.base", 0, WORD_LIMIT)
    sizes = {}
    for key in ("width", "height"):
        sizes[key] = size = reader.integer(value[key], f"{where}.{key}", 1, WORD_LIMIT)
        if size & (size - 1):
            reader.fail(f"{where}.{key}", f"{size} is not a power of two")
    names = {}
    for key, default, known in (("filter", "nearest", FILTERS), ("wrap", "repeat", WRAPS)):
        names[key] = value.get(key, default)
        if not isinstance(names[key], str):
            reader.fail(f"{where}.{key}", "expected a string")
        if names[key] not in known:
            reader.fail(f"{where}.{key}", f"{names[key]!r} is not one of {', '.join(known)}")
    sampler = Sampler(base, **sizes, **names)
    if not sampler.is_set_up(texture_words):
        words = 3 * sizes["width"] * sizes["height"]
        reader.fail(where, f"its texels, words {base} to {base + words - 1} ({sizes['width']} x "
                           f"{sizes['height']} of 3), lie outside the texture's "
                           f"{texture_words} words")
    return sampler


def _lane(reader, value, where):
    reader.object(value, where, LANE_KEYS)
    temps = reader.index_map(value.get("temps", {}), f"{where}.temps", R500_TEMPS, reader.vec4)
    covered = value.get("covered", True)
    if not isinstance(covered, bool):
        reader.fail(f"{where}.covered", "expected true or false")
    return LaneInput(temps, covered)


def parse_job(data, job_name="job", base=Path(".")):
    """A Job from the decoded JSON ``data``; program paths are relative to ``base``."""
    r = ValueReader(job_name)
    r.object(data, "", TOP_KEYS)
    if "program" not in data:
        r.fail("program", "missing")
    words, start, end = _program(r, data["program"], base)
    lanes = [LaneInput() for _ in range(LANES)]
    if "lanes" in data:
        lanes = [_lane(r, lane, f"lanes[{i}]")
                 for i, lane in enumerate(r.list(data["lanes"], "lanes", LANES))]
    texture = [r.word(w, f"texture[{i}]")
               for i, w in enumerate(r.list(data.get("texture", []), "texture"))]
    return Job(
        program=words, start=start, end=end,
        constants=r.index_map(data.get("constants", {}), "constants", R500_CONSTS, r.vec4),
        bools=r.word(data.get("bools", 0), "bools"),
        int_consts=r.index_map(data.get("int_consts", {}), "int_consts", INT_CONSTS, r.word),
        samplers=r.index_map(data.get("samplers", {}), "samplers", SAMPLERS,
                             lambda v, at: read_sampler(r, v, at, len(texture))),
        texture=texture,
        lanes=lanes,
        max_instructions=r.integer(data.get("max_instructions", 100_000), "max_instructions",
                                   0, WORD_LIMIT))


def load_job(path):
    """The Job of a JSON job file."""
    path = Path(path)
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as error:
        raise JobError(path, "", getattr(error, "strerror", None) or error) from None
    try:
        data = json.loads(text)
    except ValueError as error:
        raise JobError(path, "", f"not JSON: {error}") from None
    return parse_job(data, path, path.parent)


def _hex(word):
    return f"0x{word:08x}"


def _lane_answer(lane):
    temps = {str(i): [_hex(v) for v in t] for i, t in enumerate(lane.temps) if any(t)}
    # an uncovered lane writes no render target and no W (its W stays 0); a killed one leaves
    # no output at all
    out = {str(t): [_hex(v) for v in values] for t, values in lane.outputs.items()}
    w = None if lane.killed else _hex(lane.w)
    if lane.killed or not lane.covered:
        out = {}
    return {"temps": temps, "out": out, "w": w, "killed": lane.killed}


def answer(result, cycles=None):
    """The answer's JSON object of a QuadResult (``cycles``: the RTL's, null on the model)."""
    return {"lanes": [_lane_answer(lane) for lane in result.lanes],
            "instructions": result.instructions, "cycles": cycles,
            "error": None if result.error is None else str(result.error)}


def run_job(path, engine="model", backend="fast", vcd=None):
    """(answer, exit status) of a job file on the model or the RTL (``backend`` fast or pysim,
    ``vcd`` a waveform file with pysim); raises JobError."""
    job = load_job(path)
    cycles = None
    if engine == "rtl":
        from sim.r500.rtl import RtlJobError, run_job_rtl
        try:
            result, cycles = run_job_rtl(job, backend, vcd)
        except RtlJobError as error:
            raise JobError(path, "", error) from None
    else:
        result = job.run()
    return answer(result, cycles), 0 if result.error is None else 1
