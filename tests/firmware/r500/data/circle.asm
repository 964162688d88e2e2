-- a circle of radius 0.5 around t0.rg = 0, edge 0.1 wide
src0.rgb = temp[0] :
  temp[0].r    = DP3 src0.rg0 src0.rg0 ;
src0.rgb = temp[0] :
  temp[0].a    = RSQ |src0.r| ;
NOP
src0.a   = temp[0] :
  temp[0].a    = RCP src0.a ;
-- |d - 0.5| - 0.1015625, through the pre-subtract slot
src0.a = float(48),   -- 0.5
src1.a = temp[0],
src2.a = float(29),   -- 0.1015625
srcp.a = sub :        -- src1 - src0
  temp[0].a    = MAD |srcp.a| src0.1 -src2.a ;
OUT TEX_SEM_WAIT
src0.a = temp[0] :
  out[0].a    = MAX src0.1 src0.1 ,
  out[0].rgb  = CMP src0.100 src0.000 src0.a00 ;
