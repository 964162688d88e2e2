// lit.frag: Lambert diffuse and Blinn-Phong specular lighting of THEIA's hits, the GLSL form
// of lit.asm (python -m firmware.glsl lit.frag -o lit.inc --interface lit.json).
//
// Uniforms (lit-demo.toml's constants, by name; --interface says where each one goes):
//   lightDirection  c0.rgb  the direction towards the light, in scene coordinates (any length)
//   lightColor      c1.rgb  the light's colour
//   ambient         c2.rgb  the ambient colour (it multiplies the texture colour too)
//   specularColor   c3.rgb  the specular colour
//   shininess       c3.a    the shininess exponent (e.g. 12)
//
// A pixel that hit no triangle keeps THEIA's background, TEXTURE_COLOR, as lit.asm does.

uniform vec3 lightDirection;
uniform vec3 lightColor;
uniform vec3 ambient;
uniform vec3 specularColor;
uniform float shininess;

void main()
{
    vec3 N = normalize(cross(theia_E1, theia_E2));     // the hit triangle's normal
    vec3 V = -normalize(theia_RayDirection);            // towards the camera
    vec3 L = normalize(lightDirection);
    N = dot(N, V) >= 0.0 ? N : -N;                      // the side the camera sees
    vec3 H = normalize(L + V);

    float diffuse = clamp(dot(N, L), 0.0, 1.0);
    float specular = diffuse > 0.0 ? pow(clamp(dot(N, H), 0.0, 1.0), shininess) : 0.0;
    vec3 colour = theia_TextureColor * (lightColor * diffuse + ambient)
                + lightColor * specularColor * specular;

    gl_FragColor.rgb = theia_Hit ? colour : theia_TextureColor;
}
