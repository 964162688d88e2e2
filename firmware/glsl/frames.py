"""What the lowering keeps for the constructs it is inside: functions being inlined and loops,
and the exits (return, break, continue) lanes take out of them."""

__all__ = ["Exit", "FunctionFrame", "LoopFrame"]


class Exit:
    """Lanes leaving a construct: ``kind`` return, break or continue; ``frame`` the construct
    it leaves; ``cond`` the lanes (a bool component, None for all); ``env`` their values."""

    def __init__(self, kind, frame, cond, env):
        self.kind, self.frame, self.cond, self.env = kind, frame, cond, env


class FunctionFrame:
    def __init__(self, fn, ret_var):
        self.fn, self.ret_var = fn, ret_var
        self.exits = []             # returns
        self.real = None


class LoopFrame:
    def __init__(self, real=None):
        self.breaks = []            # exits of an unrolled loop
        self.continues = []         # continue exits of the current iteration
        self.real = real            # the ir.Loop of a loop on the engine
        self.exit_values = {}       # real: Variable -> value made of exit phis
        self.flag = None            # real: the exit phi component "left by return"
        self.break_items = []       # real: its Break items
