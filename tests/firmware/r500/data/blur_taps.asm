-- the six neighbour taps of blur.asm: two sample points per coordinate temporary
TEX temp[4].rgba = LD tex[0].rgba temp[1].rgaa ;
TEX temp[5].rgba = LD tex[0].rgba temp[1].baaa ;
TEX temp[6].rgba = LD tex[0].rgba temp[2].rgaa ;
TEX temp[7].rgba = LD tex[0].rgba temp[2].baaa ;
TEX temp[8].rgba = LD tex[0].rgba temp[3].rgaa ;
TEX temp[9].rgba = LD tex[0].rgba temp[3].baaa ;
