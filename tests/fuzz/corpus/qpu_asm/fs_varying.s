    fmul r0, vary, ra15      # VP x W; r5 = C from here on
    fadd r0, r0, r5          # + C: the varying at this pixel
    mov tlb_colour_all, r0
    thrend
    nop
    nop
