-- A 7-tap horizontal blur. const[0], const[1]: x offsets (pairs in .rg and .ba);
-- const[2]: the weights (centre in .r). Written in lower case on purpose: keywords,
-- opcodes and ALU swizzles ignore case.

-- three temporaries each hold two sample points (x + offset, y) in .rg and .ba
src0.rgb = temp[0], src1.rgb = const[0] :
  temp[1].a = mad src0.g src0.1 src1.0, temp[1].rgb = mad src0.rgr src0.111 src1.r0g ;
src0.rgb = temp[0], src1.rgb = const[0] :
  temp[2].a = mad src0.g src0.1 src1.0, temp[2].rgb = mad src0.rgr src0.111 src1.b0a ;
src0.rgb = temp[0], src1.rgb = const[1] :
  temp[3].a = mad src0.g src0.1 src1.0, temp[3].rgb = mad src0.rgr src0.111 src1.r0g ;

#include "blur_taps.asm"
TEX TEX_SEM_WAIT TEX_SEM_ACQUIRE temp[0].rgba = LD tex[0].rgba temp[0].rgaa ;   -- the centre

-- accumulate the weighted taps in temp[0]
tex_sem_wait src0.rgb = temp[0], src1.rgb = const[2], src2.rgb = temp[0] :
  temp[0].rgb = MAD src0.rgb src1.RRR src2.000 ;
src0.rgb = temp[4], src1.rgb = const[2], src2.rgb = temp[0] : temp[0].rgb = MAD src0.rgb src1.ggg src2.rgb ;
src0.rgb = temp[5], src1.rgb = const[2], src2.rgb = temp[0] : temp[0].rgb = MAD src0.rgb src1.ggg src2.rgb ;
src0.rgb = temp[6], src1.rgb = const[2], src2.rgb = temp[0] : temp[0].rgb = MAD src0.rgb src1.bbb src2.rgb ;
src0.rgb = temp[7], src1.rgb = const[2], src2.rgb = temp[0] : temp[0].rgb = MAD src0.rgb src1.bbb src2.rgb ;
src0.rgb = temp[8], src1.a = const[2], src2.rgb = temp[0] : temp[0].rgb = MAD src0.rgb src1.aaa src2.rgb ;
OUT TEX_SEM_WAIT
src0.rgb = temp[9], src1.a = const[2], src2.rgb = temp[0] :
  out[0].rgb = MAD src0.rgb src1.aaa src2.rgb,
  out[0].a = MAD src0.0 src0.0 src0.1 ;     -- alpha 1
