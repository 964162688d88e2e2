// User pixel shader 3 of the `shaders` scene (theia-system.md §5): a two-level threshold on the
// colour's length. Black where |colour| < 0.2 or |colour| >= 0.9, white elsewhere.

// C1.x = 0.2 (0x06666) and C1.y = 0.9 (0x1CCCC) as the original wrote them (both truncated, not
// rounded, so they are spelled as words rather than as 0.2 and 0.9).
ENTRYPOINT_ADRR_USERCONSTANTS:
    SETX C1 0x06666
    SETY C1 0x1CCCC
    RETURN RT_TRUE

// MAG writes m to all three lanes, so m.x is compared with C1.x and m.y with C1.y. Comparisons
// are signed; the original's JLX meant <=, which differs only when m.x is exactly 0x06666.
ENTRYPOINT_ADRR_PIXELSHADER:
    MAG R1 CREG_TEXTURE_COLOR VOID
    JLX SHADER3_BLACK R1 C1
    JGEY SHADER3_BLACK R1 C1
    SETX R2 1.0                             // white: 1.0 in all lanes (255 after conversion)
    SETY R2 1.0
    SETZ R2 1.0
    OMWRITE VOID CREG_CURRENT_OUTPUT_PIXEL R2
    RETURN RT_TRUE
SHADER3_BLACK:
    ZERO R2 VOID VOID
    OMWRITE VOID CREG_CURRENT_OUTPUT_PIXEL R2
    RETURN RT_TRUE
