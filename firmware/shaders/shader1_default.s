// User pixel shader 1 of the `shaders` scene (theia-system.md §5): the default behaviour written
// as user code. It proves that the entry table reaches user routines: the picture must equal the
// one the built-in PIXELSHADER gives.

// Nothing to set up; the routine still exists so that the table's USERCONSTANTS entry points
// into this program like the other two shaders.
ENTRYPOINT_ADRR_USERCONSTANTS:
    RETURN RT_TRUE

// PSU2 left the blended texel colour in TEXTURE_COLOR (or NPG the red background, or INITIAL
// black for a band's first pixel); CURRENT_OUTPUT_PIXEL holds the pixel's three output words.
ENTRYPOINT_ADRR_PIXELSHADER:
    OMWRITE VOID CREG_CURRENT_OUTPUT_PIXEL CREG_TEXTURE_COLOR
    RETURN RT_TRUE
