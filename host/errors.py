"""What went wrong in a frame, as one line of text: a core's error, ERROR_INFO, an R500 quad's
fault."""

from hdl.isa import QUAD_FAULT_TEXT, CoreError, QuadFault

__all__ = ["core_error_message", "error_info_message", "FrameError", "CoreStopped",
           "R500Stopped"]


_CORE_ERRORS = {
    CoreError.ILLEGAL_INSTRUCTION: "illegal instruction",
    CoreError.STACK: "return stack error (CALL on a full stack or RET on an empty one)",
    CoreError.MEMORY: "texture/output memory address out of range",
    CoreError.FETCH: "fetch outside the code memories",
}


def core_error_message(code, pc):
    """A core's error (``CoreError`` code, PC) as text: '<what> at 0xPPPP'."""
    return f"{_CORE_ERRORS.get(code, f'error {code}')} at {pc:#06x}"


def error_info_message(info):
    """ERROR_INFO as text: 'core K: <what> at 0xPPPP'."""
    return f"core {info >> 24}: " + core_error_message((info >> 16) & 7, info & 0xFFFF)


class FrameError(RuntimeError):
    """The GPU did not render the frame; str() says why in one line."""


class CoreStopped(FrameError):
    """A core stopped with an error; ``info`` is ERROR_INFO."""

    def __init__(self, info):
        super().__init__(error_info_message(info))
        self.info = info


class R500Stopped(FrameError):
    """A quad of the R500 stage stopped with a fault; str() names the pixel and the PC."""

    def __init__(self, source, fault, fault_pixel):
        code, pc = QuadFault(fault & 0xFFFF), fault >> 16
        x, y = fault_pixel & 0xFFFF, fault_pixel >> 16
        super().__init__(f"{source}: the quad of pixel ({x}, {y}) stopped: "
                         f"{QUAD_FAULT_TEXT[code]} at PC {pc}")
        self.fault, self.pc, self.pixel = code, pc, (x, y)
