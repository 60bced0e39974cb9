    ldi vr_setup, 0x00401a00 # VPM read: 4 rows from Y = 0
    ldi vw_setup, 0x00001a00 # VPM write: rows from Y = 0
    mov r0, vpm              # x
    mov r1, vpm              # y
    mov r2, vpm              # z
    mov r3, vpm              # v (read: every loaded row is consumed)
    fmul r3, r0, 16.0
    ftoi ra0.16a, r3         # Xs, 12.4
    fmul r3, r1, 16.0
    ftoi ra0.16b, r3         # Ys, 12.4
    mov vpm, r0              # row 0 Xc
    mov vpm, r1              # row 1 Yc
    mov vpm, r2              # row 2 Zc
    mov vpm, 1.0             # row 3 Wc
    mov vpm, ra0             # row 4 Ys | Xs
    mov vpm, r2              # row 5 Zs
    mov vpm, 1.0             # row 6 1/Wc
    thrend
    nop
    nop
