// THEIA default firmware: the built-in routines of the GPU.
//
// Written for this project from theia-system.md §3 (what each routine must compute) and
// theia-isa.md (what each instruction does). The order of the fixed-point operations below is
// the order of the reference renderer: results are bit exact only in this order.
//
// Register conventions: R1-R7 are scratch inside a routine (user shaders may use them too;
// nothing here keeps a value in them from one routine to the next). CREG_ZERO is 0 in all lanes, CREG_3 = (3, 3, 3) and
// CREG_012 = (0, 1, 2) are plain integers set once per band by INITIAL.

// ---------------------------------------------------------------------------------------------
// R500_EXPORT: in place of PIXELSHADER when an R500 program shades the hits (r500-us.md §4.2):
// the pixel's registers go to the R500 stage, which takes this routine's OMWRITEs instead of
// the output memory (their addresses are the pixel's output words). It must be the ROM's
// first routine and write hdl.isa.R500_EXPORT_REGISTERS in that order; it writes no register.
R500_EXPORT:
    OMWRITE VOID CREG_CURRENT_OUTPUT_PIXEL CREG_PIXEL_2D_POSITION
    OMWRITE VOID CREG_CURRENT_OUTPUT_PIXEL CREG_TEXTURE_COLOR
    OMWRITE VOID CREG_CURRENT_OUTPUT_PIXEL CREG_LAST_u
    OMWRITE VOID CREG_CURRENT_OUTPUT_PIXEL CREG_LAST_v
    OMWRITE VOID CREG_CURRENT_OUTPUT_PIXEL CREG_LAST_t
    OMWRITE VOID CREG_CURRENT_OUTPUT_PIXEL CREG_UV0_LAST
    OMWRITE VOID CREG_CURRENT_OUTPUT_PIXEL CREG_UV1_LAST
    OMWRITE VOID CREG_CURRENT_OUTPUT_PIXEL CREG_UV2_LAST
    OMWRITE VOID CREG_CURRENT_OUTPUT_PIXEL CREG_E1_LAST
    OMWRITE VOID CREG_CURRENT_OUTPUT_PIXEL CREG_E2_LAST
    OMWRITE VOID CREG_CURRENT_OUTPUT_PIXEL CREG_TRI_DIFFUSE_LAST
    OMWRITE VOID CREG_CURRENT_OUTPUT_PIXEL CREG_RAY_DIRECTION
    RETURN RT_TRUE

// ---------------------------------------------------------------------------------------------
// INITIAL: once per band, before anything else.
ENTRYPOINT_ADRR_INITIAL:
    ZERO CREG_LAST_t VOID VOID
    SETX CREG_LAST_t 250.0                  // farther than anything a scene holds
    COPY CREG_PIXEL_2D_POSITION CREG_PIXEL_2D_INITIAL_POSITION VOID
    SETX CREG_3 3
    SETY CREG_3 3
    SETZ CREG_3 3
    SETX CREG_012 0
    SETY CREG_012 1
    SETZ CREG_012 2
    COPY CREG_CURRENT_OUTPUT_PIXEL CREG_012 VOID   // pixel 0 = output words 0, 1, 2
    ZERO CREG_TEXTURE_COLOR VOID VOID       // the band's first pixel is black if it hits nothing
    ZERO CREG_ZERO VOID VOID
    ZERO R1 VOID VOID
    ZERO R2 VOID VOID
    ZERO R3 VOID VOID
    ZERO R4 VOID VOID
    ZERO R5 VOID VOID
    ZERO R99 VOID VOID
    RETURN RT_TRUE

// ---------------------------------------------------------------------------------------------
// CPPU: the size of one pixel on the projection window. The z lane is 0/0 = 0x0FFFFFFF, which
// RGU multiplies by PIXEL_2D_POSITION.z = 0.
ENTRYPOINT_ADRR_CPPU:
    SUB CREG_PROJECTION_WINDOW_SCALE CREG_PROJECTION_WINDOW_MAX CREG_PROJECTION_WINDOW_MIN
    DIV CREG_PROJECTION_WINDOW_SCALE CREG_PROJECTION_WINDOW_SCALE CREG_RESOLUTION
    RETURN RT_FALSE

// ---------------------------------------------------------------------------------------------
// RGU: the ray of the current pixel, from the camera through the pixel's point on the window.
ENTRYPOINT_ADRR_RGU:
    MUL CREG_UNNORMALIZED_DIRECTION CREG_PIXEL_2D_POSITION CREG_PROJECTION_WINDOW_SCALE
    DEC CREG_LAST_COL CREG_PIXEL_2D_FINAL_POSITION VOID   // (issued while the ADD waits)
    SETX CREG_LAST_t 250.0                  // forget the previous pixel's nearest hit
    ADD CREG_UNNORMALIZED_DIRECTION CREG_UNNORMALIZED_DIRECTION CREG_PROJECTION_WINDOW_MIN
    SUB CREG_UNNORMALIZED_DIRECTION CREG_UNNORMALIZED_DIRECTION CREG_CAMERA_POSITION
    MAG CREG_RAY_DIRECTION CREG_UNNORMALIZED_DIRECTION VOID
    DIV CREG_RAY_DIRECTION CREG_UNNORMALIZED_DIRECTION CREG_RAY_DIRECTION
    RETURN RT_FALSE

// ---------------------------------------------------------------------------------------------
// MAIN (and BIU): once per triangle. The ray/triangle test (BIU, Moller-Trumbore with the ray
// starting at the camera) is inline rather than CALLed: that saves a CALL, a RET and a test of
// its result on the path almost every triangle takes, the miss. TCC is CALLed directly. So
// entries 4 and 7 of a user entry table do not change what MAIN does (as in the original).
// BIU below is the same test as a subroutine, for user code that wants it.
// There is no test for t > 0 and none for DELTA = 0 (a division by zero gives +-0x0FFFFFFF),
// as in the original.
//
// The order of independent instructions is chosen for the pipeline (each result is needed as
// late as possible; the GPU's simple operations take two cycles, Gpu(simple_latency=2)); the
// order of the fixed-point operations of every value is the reference's.
ENTRYPOINT_ADRR_MAIN:
    SUB CREG_E2 CREG_V2 CREG_V0
    SUB CREG_E1 CREG_V1 CREG_V0
    CROSS CREG_P CREG_RAY_DIRECTION CREG_E2
    SUB CREG_T CREG_CAMERA_POSITION CREG_V0
    CROSS CREG_Q CREG_T CREG_E1
    SETX R2 1.0                             // (issued while the DOT below waits for P)
    DOT CREG_DELTA CREG_P CREG_E1
    DOT CREG_H2 CREG_P CREG_T
    DOT CREG_H1 CREG_Q CREG_E2
    DOT CREG_H3 CREG_Q CREG_RAY_DIRECTION
    // Each test follows its DIV at once: the core decides a jump that compares a quotient in
    // flight with 0 from the quotient's sign, known a cycle after the DIV issues (half of all
    // triangles are rejected by u < 0 alone, a third by v < 0).
    DIV CREG_u CREG_H2 CREG_DELTA
    JLX MAIN_MISS CREG_u CREG_ZERO
    DIV CREG_v CREG_H3 CREG_DELTA
    JLX MAIN_MISS CREG_v CREG_ZERO
    DIV CREG_t CREG_H1 CREG_DELTA
    // u + v > 1, with R2 = 1.0: one simple operation less on this path than (u + v) - 1 > 0
    ADD R1 CREG_u CREG_v
    JGX MAIN_MISS R1 R2
    JGEX MAIN_HIT CREG_t CREG_LAST_t
    // (what TCC reads first is copied first)
    COPY CREG_LAST_t CREG_t VOID
    COPY CREG_UV0_LAST CREG_UV0 VOID
    COPY CREG_UV1_LAST CREG_UV1 VOID
    COPY CREG_UV2_LAST CREG_UV2 VOID
    COPY CREG_LAST_u CREG_u VOID
    COPY CREG_LAST_v CREG_v VOID
    COPY CREG_E1_LAST CREG_E1 VOID
    COPY CREG_E2_LAST CREG_E2 VOID
    COPY CREG_TRI_DIFFUSE_LAST CREG_TRI_DIFFUSE VOID
MAIN_HIT:
    CALL ENTRYPOINT_ADRR_TCC
    RETURN RT_TRUE
MAIN_MISS:
    RETURN RT_FALSE

// ---------------------------------------------------------------------------------------------
// BIU: MAIN's ray/triangle test as a subroutine (CALL it; it does not run TCC): RET R99 1 on a
// hit (recorded in the *_LAST registers if nearest), RET R99 0 on a miss. MAIN does not call it
// (see MAIN); the sequence never runs it on its own.
ENTRYPOINT_ADRR_BIU:
    SUB CREG_E2 CREG_V2 CREG_V0
    CROSS CREG_P CREG_RAY_DIRECTION CREG_E2
    SUB CREG_E1 CREG_V1 CREG_V0
    SUB CREG_T CREG_CAMERA_POSITION CREG_V0
    CROSS CREG_Q CREG_T CREG_E1
    DOT CREG_DELTA CREG_P CREG_E1
    DOT CREG_H2 CREG_P CREG_T
    DOT CREG_H1 CREG_Q CREG_E2
    DOT CREG_H3 CREG_Q CREG_RAY_DIRECTION
    DIV CREG_u CREG_H2 CREG_DELTA
    JLX BIU_MISS CREG_u CREG_ZERO
    DIV CREG_v CREG_H3 CREG_DELTA
    JLX BIU_MISS CREG_v CREG_ZERO
    DIV CREG_t CREG_H1 CREG_DELTA
    ADD R1 CREG_u CREG_v
    DEC R1 R1 VOID
    JGX BIU_MISS R1 CREG_ZERO
    JGEX BIU_HIT CREG_t CREG_LAST_t
    COPY CREG_LAST_t CREG_t VOID
    COPY CREG_LAST_u CREG_u VOID
    COPY CREG_LAST_v CREG_v VOID
    COPY CREG_E1_LAST CREG_E1 VOID
    COPY CREG_E2_LAST CREG_E2 VOID
    COPY CREG_UV0_LAST CREG_UV0 VOID
    COPY CREG_UV1_LAST CREG_UV1 VOID
    COPY CREG_UV2_LAST CREG_UV2 VOID
    COPY CREG_TRI_DIFFUSE_LAST CREG_TRI_DIFFUSE VOID
BIU_HIT:
    RET R99 RT_TRUE
BIU_MISS:
    RET R99 RT_FALSE

// ---------------------------------------------------------------------------------------------
// TCC: texture coordinates of the nearest hit so far and the four bilinear weights.
// S = TEXTURE_SIZE = (s, s, 0); only square textures are addressed correctly, as in the original.
ENTRYPOINT_ADRR_TCC:
    JGX TCC_DONE CREG_t CREG_LAST_t
    SUB R1 CREG_UV1_LAST CREG_UV0_LAST
    SUB R2 CREG_UV2_LAST CREG_UV0_LAST
    UNSCALE R4 CREG_TEXTURE_SIZE VOID       // (W, H, 0)
    MUL R1 CREG_LAST_u R1
    MUL R2 CREG_LAST_v R2
    ADD R1 R1 R2
    ADD R1 R1 CREG_UV0_LAST                 // c: the interpolated (u, v)
    MUL R1 R1 CREG_TEXTURE_SIZE             // f = (fu, fv, 0) in texels
    // From f on, two independent chains, interleaved: the texel addresses (R2-R5,
    // TEX_COORD1/2) and the weights (R1, R6, R7, TEXWEIGHT1-4; TEXWEIGHT4 holds a, then a b).
    MOD R2 R1 CREG_TEXTURE_SIZE             // i1 = (u1, v1, 0): texel, still x1.0, wrapped
    FRAC R6 R1 VOID                         // (a, b, 0): where in the texel the hit is
    INC R3 R2 VOID
    NEG R7 R6 VOID                          // 1 - x is computed as -x + 1 as in the reference
    UNSCALE R2 R2 VOID                      // (U1, V1, 0) as integers
    COPY CREG_TEXWEIGHT4 R6 VOID
    MOD R3 R3 CREG_TEXTURE_SIZE             // i2 = (u2, v2, .): the neighbours, wrapped
    INC R7 R7 VOID                          // (1 - a, 1 - b, 1)
    SWIZZLE3D CREG_TEXWEIGHT4 SWIZZLE_XXX   // a
    SWIZZLE3D R6 SWIZZLE_YYY                // b
    UNSCALE R3 R3 VOID                      // (U2, V2, .)
    COPY R1 R7 VOID
    SWIZZLE3D R7 SWIZZLE_XXX                // 1 - a
    // row offsets (V2 * W, V1 * H, 0) in R5, shared by both coordinate pairs; column pairs
    // (U1, U2) and (U2, U1)
    COPY R5 R3 VOID
    COPY CREG_TEX_COORD2 R3 VOID
    SWIZZLE3D R1 SWIZZLE_YYY                // 1 - b
    SWIZZLE3D R5 SWIZZLE_YXZ                // (V2, U2, .)
    SWIZZLE3D CREG_TEX_COORD2 SWIZZLE_XXZ   // (U2, U2, .)
    MUL CREG_TEXWEIGHT1 R1 R7               // (1 - b)(1 - a)
    XCHANGEY R5 R5 R2                       // (V2, V1, .)
    XCHANGEY CREG_TEX_COORD1 R2 CREG_TEX_COORD2   // (U1, U2, 0)
    MUL CREG_TEXWEIGHT2 CREG_TEXWEIGHT4 R1  // a (1 - b)
    IMUL R5 R5 R4                           // (V2*W, V1*H, 0)
    COPY CREG_TEX_COORD2 CREG_TEX_COORD1 VOID
    MUL CREG_TEXWEIGHT3 R6 R7               // b (1 - a)
    MUL CREG_TEXWEIGHT4 CREG_TEXWEIGHT4 R6  // a b
    SWIZZLE3D CREG_TEX_COORD2 SWIZZLE_YXZ   // (U2, U1, 0)
    ADD CREG_TEX_COORD1 CREG_TEX_COORD1 R5
    ADD CREG_TEX_COORD2 CREG_TEX_COORD2 R5
    IMUL CREG_TEX_COORD1 CREG_TEX_COORD1 CREG_3   // word addresses: 3 words per texel
    IMUL CREG_TEX_COORD2 CREG_TEX_COORD2 CREG_3
TCC_DONE:
    RET VOID RT_TRUE

// ---------------------------------------------------------------------------------------------
// PSU2: once per pixel that hit something: fetch four texels and blend them. The reference
// pairs weight (1-a)(1-b) with texel (U2, V2) and ab with (U1, V1) (the diagonal weights are
// swapped against textbook bilinear filtering); example3's reference image depends on it.
ENTRYPOINT_ADRR_PSU2:
    // (the four addresses interleaved: each step's result is needed four instructions on)
    COPY R1 CREG_TEX_COORD1 VOID
    COPY R2 CREG_TEX_COORD1 VOID
    COPY R3 CREG_TEX_COORD2 VOID
    COPY R4 CREG_TEX_COORD2 VOID
    SWIZZLE3D R1 SWIZZLE_XXX
    SWIZZLE3D R2 SWIZZLE_YYY
    SWIZZLE3D R3 SWIZZLE_XXX
    SWIZZLE3D R4 SWIZZLE_YYY
    ADD R1 R1 CREG_012                      // the texel's three words
    ADD R2 R2 CREG_012
    ADD R3 R3 CREG_012
    ADD R4 R4 CREG_012
    TMREAD CREG_TEX_COLOR1 R1 VOID          // (U1, V2)
    TMREAD CREG_TEX_COLOR2 R2 VOID          // (U2, V1)
    TMREAD CREG_TEX_COLOR3 R3 VOID          // (U2, V2)
    TMREAD CREG_TEX_COLOR4 R4 VOID          // (U1, V1)
    MUL R1 CREG_TEX_COLOR3 CREG_TEXWEIGHT1
    MUL R2 CREG_TEX_COLOR2 CREG_TEXWEIGHT2
    MUL R3 CREG_TEX_COLOR1 CREG_TEXWEIGHT3
    MUL R4 CREG_TEX_COLOR4 CREG_TEXWEIGHT4
    ADD R1 R1 R2
    ADD R1 R1 R3
    ADD CREG_TEXTURE_COLOR R1 R4
    RETURN RT_TRUE

// ---------------------------------------------------------------------------------------------
// PIXELSHADER (default): write the pixel's colour to the band's output buffer.
ENTRYPOINT_ADRR_PIXELSHADER:
    OMWRITE VOID CREG_CURRENT_OUTPUT_PIXEL CREG_TEXTURE_COLOR
    RETURN RT_TRUE

// ---------------------------------------------------------------------------------------------
// NPG: step to the next pixel of the band; FALSE when the band is done.
ENTRYPOINT_ADRR_NPG:
    ZERO CREG_TEXTURE_COLOR VOID VOID
    ADD CREG_CURRENT_OUTPUT_PIXEL CREG_CURRENT_OUTPUT_PIXEL CREG_3   // (while ZERO lands)
    SETX CREG_TEXTURE_COLOR 3.0             // red background for a pixel that hits nothing
    JGEX NPG_NEXT_ROW CREG_PIXEL_2D_POSITION CREG_LAST_COL
    INCX CREG_PIXEL_2D_POSITION CREG_PIXEL_2D_POSITION VOID
    RETURN RT_TRUE
NPG_NEXT_ROW:
    SETX CREG_PIXEL_2D_POSITION 0
    INCY CREG_PIXEL_2D_POSITION CREG_PIXEL_2D_POSITION VOID
    JGEY NPG_DONE CREG_PIXEL_2D_POSITION CREG_PIXEL_2D_FINAL_POSITION
    RETURN RT_TRUE
NPG_DONE:
    RETURN RT_FALSE

// ---------------------------------------------------------------------------------------------
// USERCONSTANTS: nothing by default; a user program sets its C1-C7 here, once per band.
ENTRYPOINT_ADRR_USERCONSTANTS:
    RETURN RT_TRUE

// ---------------------------------------------------------------------------------------------
// AABBIU and PSU are not run by the sequence (theia-system.md §3); they exist so that every
// entry of the table names a routine. AABBIU reports "the box may be hit"; PSU shades the
// nearest hit with its triangle's flat diffuse colour.
ENTRYPOINT_ADRR_AABBIU:
    RETURN RT_TRUE
ENTRYPOINT_ADRR_PSU:
    COPY CREG_TEXTURE_COLOR CREG_TRI_DIFFUSE_LAST VOID
    RETURN RT_TRUE
