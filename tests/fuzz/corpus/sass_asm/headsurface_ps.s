// The pixel program of NVIDIA's headsurface blob (Maxwell), as gpusim's
// disassembler prints it; the first group keeps a scheduling annotation.
        MOV R12, c[0x4][0x0] ;          /* [B------:R-:W-:Y:S01:U0] */
        IPA.PASS R11, a[0x7c] ;         // 1/w
        MOV R10, c[0x4][0x4] ;
        IPA.PASS R6, a[0x310] ;
        IPA.PASS R0, a[0x314] ;
        IPA.PASS R4, a[0x320] ;
        IPA.PASS R5, a[0x324] ;
        MUFU.RCP R11, R11 ;
        FMUL.FTZ.RZ R6, R11, R6 ;
        FMUL.FTZ.RZ R7, R11, R0 ;
        FMUL.FTZ.RZ R4, R11, R4 ;
        TEX.B.NODEP R12, R6, R12, 0x0, 2D, 0x7 ;
        FMUL.FTZ.RZ R5, R11, R5 ;
        TEX.B.NODEP R0, R4, R10, 0x0, 2D, 0xf ;
        FFMA.FTZ R9, R3, -R12, R12 ;
        FFMA.FTZ R8, R3, -R13, R13 ;
        FFMA.FTZ R3, R3, -R14, R14 ;
        FADD.FTZ R0, R0, R9 ;
        FADD.FTZ R1, R1, R8 ;
        FADD.FTZ R2, R2, R3 ;
done:   EXIT ;
        BRA done ;
