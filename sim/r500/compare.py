"""Two runs of one quad side by side: ``compare`` lists where two ``QuadResult``s differ (the
model's and the RTL core's), in the terms of the job's answer (r500-us.md §4.3)."""

__all__ = ["compare"]

def _error_text(error):
    return "none" if error is None else f"{error.code.value} at PC {error.pc}"


def compare(model_result, rtl_result, names=("model", "rtl")):
    """The differences between two QuadResults as texts (empty: they agree): the error's code
    and PC (not its detail), the instruction count, and per lane kill state, every temporary,
    and, for a lane that is not killed, the render targets written and W."""
    a, b = model_result, rtl_result
    na, nb = names
    diffs = []

    def differ(what, x, y, show=str):
        if x != y:
            diffs.append(f"{what}: {na} {show(x)}, {nb} {show(y)}")

    def word(x):
        return "none" if x is None else f"0x{x:08x}"

    differ("error", _error_text(a.error), _error_text(b.error))
    differ("instructions", a.instructions, b.instructions)
    for lane, (x, y) in enumerate(zip(a.lanes, b.lanes)):
        differ(f"lane {lane} killed", x.killed, y.killed)
        differ(f"lane {lane} temporaries", len(x.temps), len(y.temps))
        for index, (tx, ty) in enumerate(zip(x.temps, y.temps)):
            for c, (vx, vy) in enumerate(zip(tx, ty)):
                differ(f"lane {lane} temp[{index}].{'rgba'[c]}", vx, vy, word)
        if x.killed or y.killed:
            continue                # a killed lane leaves no output
        differ(f"lane {lane} render targets", sorted(x.outputs), sorted(y.outputs))
        for target in sorted(set(x.outputs) & set(y.outputs)):
            for c, (vx, vy) in enumerate(zip(x.outputs[target], y.outputs[target])):
                differ(f"lane {lane} out[{target}].{'rgba'[c]}", vx, vy, word)
        differ(f"lane {lane} w", x.w, y.w, word)
    if len(a.lanes) != len(b.lanes):
        differ("lanes", len(a.lanes), len(b.lanes))
    return diffs
