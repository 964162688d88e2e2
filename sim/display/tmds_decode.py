"""A monitor's TMDS receiver, as a model: three lanes of 10-bit symbols -> the picture and its
timing, with the stream's rules checked on the way.

    screen = read_frame(lanes, VGA_640X480)      # lanes: (3, N) symbols, lane 0 = blue
    screen.picture                               # (480, 640, 3) uint8, RGB
    screen.timing                                # the Raster measured from the stream

Everything comes from the symbols themselves: a control symbol on every lane is blanking
(data enable low) and carries hsync (C0) and vsync (C1) on lane 0; the sync levels hold
through the data periods, as a receiver's outputs do. A sync's asserted level is the one it
holds less often (its polarity). Lines are counted from hsync leading edge to hsync leading
edge, the frame from a vsync leading edge to the next one; the data-enable periods of that
frame give the active area.

Checked (``TmdsStreamError`` names the rule and the place: frame line and column from the
vsync and hsync leading edges, and the symbol's index in the capture):

* every symbol is a TMDS code: a control symbol or one of the 460 data codes;
* the lanes agree on data enable; lanes 1 and 2 send C1C0 = 00 in blanking;
* every line is as long, every hsync pulse as wide, the vsync pulse whole lines that begin
  and end at hsync leading edges, and a whole frame between two vsync leading edges;
* data symbols only inside the active area (a rectangle, the same on every active line),
  control symbols only outside it;
* the running disparity, followed from the symbols (it starts at 0 after each control
  period), stays within the encoder's bound (+-8), and each data symbol is the one DVI 1.0
  §3.2.3 sends for its byte at that disparity (``strict``);
* (with ``mode``) the measured timing and polarities are the mode's.

``symbols_from_bits`` turns serial bit streams (as a serialiser sends them, least significant
bit first) into symbols, finding the word boundary from the control symbols as a receiver
does.
"""

from dataclasses import dataclass

import numpy as np

from hdl.display.mode import Raster
from sim.display.tmds import CNT_BOUND, CONTROL, tables

__all__ = ["TmdsStreamError", "Screen", "read_frame", "symbols_from_bits"]

LANE_NAMES = ("0 (blue)", "1 (green)", "2 (red)")


class TmdsStreamError(ValueError):
    """A TMDS stream breaks a rule; str() names the rule and where."""


@dataclass(frozen=True)
class Screen:
    picture: np.ndarray        # (v_active, h_active, 3) uint8, RGB
    timing: Raster             # as measured from the stream
    start: int                 # index of the frame's first symbol (its vsync leading edge)


class _Places:
    """Where a symbol index is, once the raster is known."""

    def __init__(self):
        self.origin = None
        self.h_total = None

    def __call__(self, index):
        if self.origin is None:
            return f"symbol {index}"
        line, column = divmod(index - self.origin, self.h_total)
        return f"frame line {line}, column {column} (symbol {index})"


def _fail(rule, detail, where):
    raise TmdsStreamError(f"TMDS stream, {rule}: {detail} at {where}")


def _rising(level):
    """Indices where a 0/1 array goes 0 -> 1 (not index 0)."""
    return np.flatnonzero(level[1:] & ~level[:-1]) + 1


def _held(values, keep):
    """``values`` where ``keep``, elsewhere the last kept value before (the first kept value
    before the first one)."""
    kept = np.flatnonzero(keep)
    last = np.where(keep, np.arange(len(values)), 0)
    np.maximum.accumulate(last, out=last)
    last[:kept[0]] = kept[0]
    return values[last]


def _run_length(row, start):
    """How many elements from ``start`` on are true."""
    after = np.flatnonzero(~row[start:])
    return len(row) - start if len(after) == 0 else int(after[0])


def _most_common(values):
    values, counts = np.unique(values, return_counts=True)
    return int(values[np.argmax(counts)])


def _check_codes(lanes, control, data, where):
    bad = np.argwhere((control < 0) & (data < 0))
    if len(bad):
        lane, index = bad[np.argmin(bad[:, 1])]
        _fail("not a TMDS code", f"symbol {lanes[lane, index]:#012b} on lane "
              f"{LANE_NAMES[lane]}", where(index))
    enable = data >= 0
    for lane in (1, 2):
        differ = np.flatnonzero(enable[lane] != enable[0])
        if len(differ):
            _fail("lanes disagree on data enable", f"lane {LANE_NAMES[lane]} sends "
                  f"{'data' if enable[lane, differ[0]] else 'control'}, lane 0 the other",
                  where(differ[0]))
        ctl = np.flatnonzero(control[lane] > 0)
        if len(ctl):
            _fail("CTL bits set in blanking", f"lane {LANE_NAMES[lane]} sends C1C0 = "
                  f"{control[lane, ctl[0]]:02b} (DVI: 00)", where(ctl[0]))
    return enable[0]


def _find_frame(enable, control0, where):
    """(hsync, vsync pulses as 0/1 arrays, their polarities (True: negative), the first
    whole frame's first and end symbol, h_total)."""
    sync_known = ~enable & (control0 >= 0)
    if not sync_known.any():
        _fail("no blanking", "the capture holds no control symbol", where(0))
    level = _held(control0, sync_known)
    hsync, vsync = (level & 1).astype(bool), (level >> 1 & 1).astype(bool)
    h_negative, v_negative = bool(hsync.mean() > 0.5), bool(vsync.mean() > 0.5)
    hsync ^= h_negative
    vsync ^= v_negative
    v_edges = _rising(vsync)
    if len(v_edges) < 2:
        _fail("no whole frame", "fewer than two vsync leading edges in the capture "
              f"({len(v_edges)})", where(0))
    start, end = int(v_edges[0]), int(v_edges[1])
    h_edges = _rising(hsync)
    h_edges = h_edges[(h_edges >= start) & (h_edges <= end)]
    if len(h_edges) < 2:
        _fail("no lines", "fewer than two hsync leading edges in the frame", where(start))
    h_total = int(h_edges[1] - h_edges[0])
    where.origin, where.h_total = start, h_total
    periods = np.diff(h_edges)
    odd = np.flatnonzero(periods != h_total)
    if len(odd):
        _fail("line length varies", f"a line of {periods[odd[0]]} symbols after lines of "
              f"{h_total}", where(h_edges[odd[0]]))
    for edge in (start, end):
        if edge not in h_edges:
            _fail("vsync position", "the vsync leading edge is not at an hsync leading edge",
                  where(edge))
    return hsync, vsync, h_negative, v_negative, start, end, h_total


def _measure(enable, hsync, vsync, h_total, where):
    """The frame's raster and the active area's (first line, first column); the arrays span
    the frame, ``where`` places an index in it."""
    if len(enable) % h_total:
        _fail("frame length", f"{len(enable)} symbols between vsync leading edges, not whole "
              f"lines of {h_total}", where(len(enable)))
    v_total = len(enable) // h_total
    de, hs, vs = (a.reshape(v_total, h_total) for a in (enable, hsync, vsync))
    h_sync = _run_length(hs[0], 0)
    v_sync = _run_length(vs[:, 0], 0)
    expected_hs = np.zeros(h_total, dtype=bool)
    expected_hs[:h_sync] = True
    for name, got, want in (("hsync width", hs, expected_hs[None, :]),
                            ("vsync width", vs, (np.arange(v_total) < v_sync)[:, None])):
        wrong = np.argwhere(got != want)
        if len(wrong):
            line, column = wrong[0]
            _fail(name, "the sync is " + ("asserted" if got[line, column] else "deasserted")
                  + " where the first pulse says otherwise", where(line * h_total + column))
    rows = np.flatnonzero(de.any(axis=1))
    if len(rows) == 0:
        _fail("no picture", "no data symbol in the frame", where(0))
    # the active area: the longest run of lines with data, and the columns most lines have
    breaks = np.flatnonzero(np.diff(rows) != 1)
    runs = np.split(rows, breaks + 1)
    active_rows = max(runs, key=len)
    first_col = np.array([np.argmax(de[r]) for r in active_rows])
    widths = np.array([_run_length(de[r], c) for r, c in zip(active_rows, first_col)])
    column, h_active = _most_common(first_col), _most_common(widths)
    line, v_active = int(active_rows[0]), len(active_rows)
    inside = np.zeros_like(de)
    inside[line:line + v_active, column:column + h_active] = True
    wrong = np.argwhere(de != inside)
    if len(wrong):
        r, c = wrong[0]
        rule = ("data symbol outside the active area" if de[r, c] else
                "control symbol inside the active area")
        _fail(rule, f"the active area is lines {line}-{line + v_active - 1}, columns "
              f"{column}-{column + h_active - 1}", where(r * h_total + c))
    timing = dict(h_active=h_active, h_sync=h_sync, h_back=column - h_sync,
                  h_front=h_total - column - h_active, v_active=v_active, v_sync=v_sync,
                  v_back=line - v_sync, v_front=v_total - line - v_active)
    for name, value in timing.items():
        if value < 0:
            _fail("sync inside the active area", f"{name} would be {value}", where(0))
    return timing, line, column


def _check_disparity(lanes, enable, data, strict, where):
    """Follow each lane's running disparity from its first control symbol on."""
    t = tables()
    control_at = np.flatnonzero(~enable)
    first = int(control_at[0])
    for lane in range(3):
        symbols = lanes[lane, first:]
        de = enable[first:]
        step = np.where(de, t["disparity"][symbols], 0).astype(np.int32)
        total = np.cumsum(step)
        base = _held(total, ~de)                 # the sum at the last control symbol
        after = total - base
        before = after - step
        over = np.abs(after) > CNT_BOUND
        byte = np.where(de, data[lane, first:], 0)
        expected = t["expected"][np.clip(before, -CNT_BOUND, CNT_BOUND) + CNT_BOUND, byte]
        wrong = de & (expected != symbols) & strict
        bad = np.flatnonzero(over | wrong)
        if len(bad) == 0:
            continue
        i = bad[0]
        if wrong[i] and not over[i]:
            _fail("symbol choice", f"lane {LANE_NAMES[lane]} sends {symbols[i]:#012b} for byte "
                  f"{byte[i]:#04x} at running disparity {before[i]:+d}; DVI 1.0 §3.2.3 sends "
                  f"{expected[i]:#012b}", where(first + i))
        _fail("running disparity", f"{after[i]:+d} on lane {LANE_NAMES[lane]} exceeds the "
              f"encoder's bound +-{CNT_BOUND}", where(first + i))


def read_frame(lanes, mode=None, strict=True):
    """The first whole frame of ``lanes`` ((3, N) 10-bit symbols: blue, green, red), from
    a vsync leading edge to the next, as a ``Screen``; what comes before the first vsync
    leading edge (a receiver not yet locked) is not checked. ``mode``: a ``VideoMode`` the
    timing must match (None: any). ``strict``: each data symbol must be the one the encoder
    sends at the running disparity."""
    lanes = np.asarray(lanes, dtype=np.int64)
    if lanes.ndim != 2 or lanes.shape[0] != 3:
        raise ValueError(f"read_frame: lanes must be a (3, N) array, not {lanes.shape}")
    if ((lanes < 0) | (lanes > 1023)).any():
        raise ValueError("read_frame: symbols are 10-bit values")
    t = tables()
    control, data = t["control"][lanes], t["data"][lanes]
    where = _Places()
    try:
        hsync, vsync, h_negative, v_negative, start, end, h_total = _find_frame(
            data[0] >= 0, control[0], where)
    except TmdsStreamError:
        _check_codes(lanes, control, data, where)      # a bad symbol is the better answer
        raise
    span = slice(start, end)
    enable = _check_codes(lanes[:, span], control[:, span], data[:, span],
                          lambda i: where(start + i))
    raster, line, column = _measure(enable, hsync[span], vsync[span], h_total,
                                    lambda i: where(start + i))
    _check_disparity(lanes[:, span], enable, data[:, span], strict, lambda i: where(start + i))
    timing = Raster(**raster, h_sync_negative=h_negative, v_sync_negative=v_negative)
    if mode is not None:
        differ = timing.differences(mode)
        if differ:
            name, got, want = differ[0]
            _fail("timing", f"{name} is {got}, {mode.name} has {want}", where(start))
    first = start + line * h_total + column
    rows = first + np.arange(timing.v_active)[:, None] * h_total + np.arange(timing.h_active)
    picture = np.stack([data[2][rows], data[1][rows], data[0][rows]], axis=-1).astype(np.uint8)
    return Screen(picture, timing, start)


def symbols_from_bits(bits):
    """(3 or 4, N) serial bits (least significant first, as sent) -> (lanes, N // 10) symbols
    and the word boundary found: the bit offset (0-9) at which the most symbols of the data
    lanes (the first three) are control symbols."""
    bits = np.asarray(bits, dtype=np.int64)
    weights = 1 << np.arange(10)
    best = None
    for offset in range(10):
        count = (len(bits[0]) - offset) // 10
        words = bits[:, offset:offset + 10 * count].reshape(len(bits), count, 10) @ weights
        hits = int(np.isin(words[:3], CONTROL).sum())
        if best is None or hits > best[0]:
            best = (hits, offset, words)
    if best[0] == 0:
        raise TmdsStreamError("TMDS stream, no word boundary: no control symbol at any of the "
                              "10 bit offsets")
    return best[2], best[1]
