"""The display's data formats: a pixel, the frame configuration, a pixel clock's symbols."""

from amaranth.lib import data

from hdl.display.tmds import SYMBOL_BITS

__all__ = ["Rgb888", "TmdsSymbols", "config_layout", "line_request_layout", "PLAIN_BACKGROUND",
           "PLAIN_BORDER"]

#: a pixel; as a 24-bit number 0xRRGGBB
Rgb888 = data.StructLayout({"b": 8, "g": 8, "r": 8})

#: the three data lanes' symbols of one pixel clock: [0] blue (carries the syncs), [1] green,
#: [2] red
TmdsSymbols = data.ArrayLayout(SYMBOL_BITS, 3)

#: the plain screen shown until a frame is configured (and when ``show`` is 0): dark blue with
#: a one-pixel light grey border at the edges of the active area, which also shows whether a
#: monitor displays all of it
PLAIN_BACKGROUND = 0x002060
PLAIN_BORDER = 0xC0C0C0


def config_layout(mode):
    """The frame a display shows: ``width`` x ``height`` (1 ... the mode's active size, each
    scaled by the largest integer that fits), ``show`` (0: the plain screen)."""
    return data.StructLayout({"width": range(mode.h_active + 1),
                              "height": range(mode.v_active + 1), "show": 1})


def line_request_layout(mode):
    """A request for a frame row: send ``width`` pixels (the frame's width as the display
    has it configured) of row ``row`` (0 = top)."""
    return data.StructLayout({"row": range(mode.v_active), "width": range(mode.h_active + 1)})
