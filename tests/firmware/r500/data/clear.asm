-- out[0] = (0, 0, 0, 1): a constant colour from swizzle constants alone
OUT TEX_SEM_WAIT
 :
  out[0].a   = MAX src0.1   src0.1 ,
  out[0].rgb = MAX src0.000 src0.000 ;
