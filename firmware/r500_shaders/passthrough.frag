// passthrough.frag: THEIA's default PIXELSHADER, the GLSL form of passthrough.asm: the pixel's
// colour is TEXTURE_COLOR unchanged (a move of the bits: the same image, bit for bit).

void main()
{
    gl_FragColor.rgb = theia_TextureColor;
}
