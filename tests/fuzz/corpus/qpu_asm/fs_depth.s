    mov tlb_z, rb15          # Z test: failing lanes drop out of MS_FLAGS
    mov r0, unif             # this draw's colour
    mov tlb_colour_all, r0   # written where the test passed
    thrend
    nop
    nop
