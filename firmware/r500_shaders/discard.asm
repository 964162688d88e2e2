-- discard.asm: a round window onto the scene (r500-us.md §4.2, §3.5 TEXKILL).
--
--   d = (pixel − c0.rg) · c0.b         temporary 9 holds the pixel's x, y
--   a pixel with |d| > 1 is killed     it keeps what the output memory holds (black)
--   a hit:      TEXTURE_COLOR · (1 − c0.a · |d|²)    darker towards the rim: a vignette
--   no hit:     c1.rgb                              in place of THEIA's background
--
-- Constants read:
--   c0.rg  the circle's centre in pixels; c0.b 1 / its radius in pixels; c0.a the vignette's
--          strength (0 none, 1 black at the rim)
--   c1.rgb the colour of pixels inside the circle that hit no triangle
-- Temporaries 10-12 are scratch.

-- d = (xy − centre) / radius, and |d|² in every channel of temporary 11
src0.rgb = const[0], src1.rgb = temp[9], srcp.rgb = sub :
  temp[10].rgb = MAD srcp.rg0 src0.bb0 src0.000 ;
src0.rgb = temp[10] :
  temp[11].rgb = DP3 src0.rgb src0.rgb ;
-- 1 − |d|² is negative outside the circle: TEXKILL kills on its sign bit
src0.rgb = temp[11] :
  temp[11].a = MAD -src0.r src0.1 src0.1 ;
TEX temp[11].none = TEXKILL tex[0].rgba temp[11].aaaa ;

-- alu_result: did the pixel hit a triangle (t0.a != 0)?
ALU_WMASK ALU_RESULT_SEL(alpha) ALU_RESULT_OP(ne) src0.a = temp[0] :
  ALPHA MAX src0.a src0.a ;
IF alu ;
  src0.rgb = temp[11], src0.a = const[0] :
    temp[11].a = MAD -src0.r src0.a src0.1 ;              -- 1 − c0.a · |d|²
  src0.rgb = temp[0], src0.a = temp[11] :
    temp[12].rgb = MAD src0.rgb src0.aaa src0.000 ;
ELSE ;
  src0.rgb = const[1] :
    temp[12].rgb = MAX src0.rgb src0.rgb ;
ENDIF ;
-- (the colour is written after ENDIF: an ELSE jumps past its ENDIF, which must therefore not
-- be the program's last instruction)
OUT src0.rgb = temp[12] :
  out[0].rgb = MAX src0.rgb src0.rgb ;
