// discard.frag: a round window onto the scene, the GLSL form of discard.asm.
//
//   d = (pixel - centre) * inverseRadius     theia_Pixel: the pixel's integer x, y
//   a pixel with |d| > 1 is discarded        it keeps what the output memory holds (black)
//   a hit:      TEXTURE_COLOR * (1 - vignette * |d|^2)     darker towards the rim
//   no hit:     missColor                                  in place of THEIA's background
//
// Uniforms (discard.asm's constants, by name; --interface says where each one goes):
//   centre          c0.rg   the circle's centre in pixels
//   inverseRadius   c0.b    1 / its radius in pixels
//   vignette        c0.a    the vignette's strength (0 none, 1 black at the rim)
//   missColor       c1.rgb  the colour of pixels inside the circle that hit no triangle

uniform vec2 centre;
uniform float inverseRadius;
uniform float vignette;
uniform vec3 missColor;

void main()
{
    vec2 d = (theia_Pixel - centre) * inverseRadius;
    float r2 = dot(d, d);
    if (1.0 - r2 < 0.0)
        discard;
    gl_FragColor.rgb = theia_Hit ? theia_TextureColor * (1.0 - vignette * r2) : missColor;
}
