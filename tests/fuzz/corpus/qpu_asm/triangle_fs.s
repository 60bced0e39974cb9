    fmul r0, vary, ra15         # red: vary x W
    fadd r0, r0, r5             #      + C
    fmul r1, vary, ra15         # green
    fadd r1, r1, r5
    fmul r2, vary, ra15         # blue
    fadd r2, r2, r5
    fmul r3.8a, r0, 1.0         # byte 0 = red x 255 (the MUL unit's colour pack)
    fmul r3.8b, r1, 1.0         # byte 1 = green
    fmul r3.8c, r2, 1.0         # byte 2 = blue
    fmul r3.8d, 1.0, 1.0        # byte 3 = alpha 255
    mov tlb_colour_all, r3      # write the covered pixels of the tile buffer
    thrend
    nop
    sbdone                      # let the next batch touch these pixels
