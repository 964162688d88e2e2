-- passthrough.asm: THEIA's default PIXELSHADER on the R500 (r500-us.md §4.2).
--
-- Render target 0 .rgb = TEXTURE_COLOR (temporary 0 .rgb), unchanged: MAX x x returns x, and
-- NOOMOD (OMOD 7) leaves out both the output modifier and the clamp, so the byte conversion of
-- §4.2 sees the very value THEIA's OMWRITE would have stored. Wherever TEXTURE_COLOR is not
-- negative (every reference scene) the image is THEIA's own, bit for bit.
--
-- Constants read: none.

OUT src0.rgb = temp[0] : out[0].rgb = NOOMOD MAX src0.rgb src0.rgb ;
