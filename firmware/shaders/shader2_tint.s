// User pixel shader 2 of the `shaders` scene (theia-system.md §5): a blue tint. Red and green
// are multiplied by 1.0 (exact: mul(a, 1.0) = a for every word) and blue by 2.0, which the output
// conversion min(255, w >> 9) clamps at 255.

// C1 = (1.0, 1.0, 2.0): the constant bank keeps it for the whole run, so setting it once per
// band is enough.
ENTRYPOINT_ADRR_USERCONSTANTS:
    SETX C1 1.0
    SETY C1 1.0
    SETZ C1 2.0
    RETURN RT_TRUE

// R1 = TEXTURE_COLOR * C1, lane by lane; TEXTURE_COLOR itself is left alone because NPG and
// PSU2 own it.
ENTRYPOINT_ADRR_PIXELSHADER:
    MUL R1 CREG_TEXTURE_COLOR C1
    OMWRITE VOID CREG_CURRENT_OUTPUT_PIXEL R1
    RETURN RT_TRUE
