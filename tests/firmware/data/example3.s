// The user program of scenes/theia-2010/example3 (and example1): a pixel shader that writes
// the texture colour to the output pixel.
ENTRYPOINT_ADRR_PIXELSHADER:
    OMWRITE OREG_PIXEL_COLOR CREG_CURRENT_OUTPUT_PIXEL CREG_TEXTURE_COLOR
    RETURN RT_TRUE
