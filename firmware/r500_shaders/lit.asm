-- lit.asm: Lambert diffuse and Blinn-Phong specular lighting of THEIA's hits (r500-us.md §4.2).
--
--   N = normalise(E1_LAST × E2_LAST), turned towards the camera   (temporaries 5, 6)
--   V = −normalise(RAY_DIRECTION), towards the camera              (temporary 8)
--   L = normalise(c0.rgb), towards the light
--   H = normalise(L + V)
--   diffuse  = clamp(N·L)
--   specular = clamp(N·H) ^ c3.a where diffuse > 0, else 0
--   colour   = TEXTURE_COLOR · (c2 + c1 · diffuse) + c1 · c3 · specular
--
-- A pixel that hit no triangle (temporary 0 .a = 0) gets TEXTURE_COLOR unchanged, THEIA's
-- background, as the default PIXELSHADER would write it.
--
-- Constants read:
--   c0.rgb  the direction towards the light, in scene coordinates (any length)
--   c1.rgb  the light's colour
--   c2.rgb  the ambient colour (it multiplies the texture colour too)
--   c3.rgb  the specular colour; c3.a the shininess exponent (e.g. 32)
-- Temporaries 10-19 are scratch.

-- N = E1 × E2 = E1.gbr · E2.brg − E1.brg · E2.gbr
src0.rgb = temp[5], src1.rgb = temp[6] :
  temp[10].rgb = MAD src0.gbr src1.brg src0.000 ;
src0.rgb = temp[5], src1.rgb = temp[6], src2.rgb = temp[10] :
  temp[10].rgb = MAD -src0.brg src1.gbr src2.rgb ;

-- the squared lengths of N, RAY_DIRECTION and c0, each followed by its 1/sqrt
src0.rgb = temp[10] :
  temp[11].r = DP3 src0.rgb src0.rgb ;
src0.rgb = temp[8], src1.rgb = temp[11] :
  temp[11].g = DP3 src0.rgb src0.rgb ,
  temp[10].a = RSQ src1.r ;
src0.rgb = const[0], src1.rgb = temp[11] :
  temp[11].b = DP3 src0.rgb src0.rgb ,
  temp[12].a = RSQ src1.g ;
src0.rgb = temp[10], src0.a = temp[10], src1.rgb = temp[11] :
  temp[10].rgb = MAD src0.rgb src0.aaa src0.000 ,          -- N normalised
  temp[14].a = RSQ src1.b ;
src0.rgb = temp[8], src0.a = temp[12] :
  temp[12].rgb = MAD -src0.rgb src0.aaa src0.000 ;          -- V
src0.rgb = const[0], src0.a = temp[14] :
  temp[14].rgb = MAD src0.rgb src0.aaa src0.000 ;           -- L

-- the side of the surface the camera sees: N = N·V >= 0 ? N : −N
src0.rgb = temp[10], src1.rgb = temp[12] :
  temp[13].rgb = DP3 src0.rgb src1.rgb ;
src0.rgb = temp[10], src1.rgb = temp[13] :
  temp[10].rgb = CMP src0.rgb -src0.rgb src1.rgb ;

-- H = normalise(L + V)
src0.rgb = temp[14], src1.rgb = temp[12] :
  temp[15].rgb = MAD src0.rgb src0.111 src1.rgb ;
src0.rgb = temp[15] :
  temp[11].r = DP3 src0.rgb src0.rgb ;
src0.rgb = temp[11] :
  temp[15].a = RSQ src0.r ;
src0.rgb = temp[15], src0.a = temp[15] :
  temp[15].rgb = MAD src0.rgb src0.aaa src0.000 ;

-- diffuse = clamp(N·L) in temporary 17, clamp(N·H) in 16
RGB_CLAMP src0.rgb = temp[10], src1.rgb = temp[14] :
  temp[17].rgb = DP3 src0.rgb src1.rgb ;
RGB_CLAMP src0.rgb = temp[10], src1.rgb = temp[15] :
  temp[16].rgb = DP3 src0.rgb src1.rgb ;

-- specular = 2 ^ (c3.a · log2 clamp(N·H)), 0 where diffuse is 0 (the light is behind the
-- surface); log2 0 = −inf, and 2 ^ −inf = 0
src0.rgb = temp[16] :
  temp[16].a = LN2 src0.r ;
src0.a = temp[16], src1.a = const[3] :
  temp[16].a = MAD src0.a src1.a src0.0 ;
src0.a = temp[16] :
  temp[16].a = EX2 src0.a ;
src0.a = temp[16], src1.rgb = temp[17], src2.rgb = const[2], src0.rgb = const[1] :
  temp[19].rgb = MAD src0.rgb src1.rgb src2.rgb ,           -- c1 · diffuse + c2
  temp[16].a = CMP src0.0 src0.a -src1.r ;

-- colour = TEXTURE_COLOR · (c1 · diffuse + c2) + c1 · c3 · specular
src0.rgb = const[1], src1.rgb = const[3], src0.a = temp[16] :
  temp[18].rgb = MAD src0.rgb src1.rgb src0.000 ;
src0.rgb = temp[18], src0.a = temp[16] :
  temp[18].rgb = MAD src0.rgb src0.aaa src0.000 ;
src0.rgb = temp[0], src1.rgb = temp[19], src2.rgb = temp[18] :
  temp[19].rgb = MAD src0.rgb src1.rgb src2.rgb ;

-- a hit gets the lit colour, any other pixel TEXTURE_COLOR: −t0.a is −1 or −0 (>= 0)
OUT src0.rgb = temp[0], src0.a = temp[0], src1.rgb = temp[19] :
  out[0].rgb = CMP src0.rgb src1.rgb -src0.aaa ;
