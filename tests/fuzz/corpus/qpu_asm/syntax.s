# every kind of line the assembler reads (docs/qpu.md)
.set ROWS, 3
.set STEP, (ROWS * 4 + 1) - ~0
start: again:
    ldi vr_setup, 0x1a341ac0 + ROWS    # read rows of the VPM
    ldi r0, 1.5 ; ldi.zs rb1
    ldi.pes r0, [0, 1, -2, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]
    ldi.peu ra3, [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3]
    srel 3
    sacq 15
loop:
    or ra0, vpm, -                    // ra0 = next VPM row
    add.setf r0, ra0, -1
    fadd.ifz ra1.8a, ra2.16b, r1 ; fmul rb2, r1, r2 >> 3
    itof r0, rb15 ; mov sfu_recip, ra15
    v8adds r2, r3, r1 ; v8min r1, r0, r0 >> r5
    nop ; nop ; loadc
    brr.anynz loop
    bra.allz ra4, start + 8
    brr ra4, +0xb0
    bra ra5, ra1, 16
    .word 0x15C27DF7, 0x10020027
    .dword 0x100009e7009e7000
    mov tlb_colour_all, r0 ; sbdone
    or r0, ra1, rb1 {mul_a=6, mul_b=7}
    thrend
    nop
    nop
