csel     r0l, 0.0, r0l, 0, r0l, fgtn
csel     r0h, 0.0, r0h, 0, r0h, fgtn
csel     r1l, r0h.abs, r0l.abs, r1h, r1l, feq
csel     r3l, 0.0, r0h, r0l, r1l, fgte
csel     r6, r6, r7, r6, r7, fltn
load     r0, du64, 0, i32, x, a
load     r1, du4, r2, i32, x, a
load     r4, dr0, 0, i32, x, b
load     r4, dr10, 3, i32, x, a
load     r6, dr8, 4, i32, x, a
load     r8_r9_r10, du0, r0, i32, xyz, a
load     r8_r9, dr6, 0, i32, xy, b
load     r10, dr8, 3, i32, x, a
st_tile  r0_r1_r2_r3, 0, 255, 0, u8norm, xyzw
st_tile  r4l_r4h_r5l_r5h, 0, 255, 0, u8norm, xyzw
exp2     r0l, r0l
rcp      r2h, r1l
rsqrt    r3h, r3h
iadd     r0, r0.sx, r1.sx
iadd     dr0, dr0, dr4
iadd     r1, r1.sx, r4.sx
iadd     r2, r2.sx, u5.sx
iadd     r3, r2.sx, u3.sx
iadd     r5l, u12h.sx, 3
iadd     dr6, dr6, dr10
iadd     dr6, dr8, dr6
iadd     dr8, dr2, 8
iadd     dr8, dr8, 8
iadd     r10, 0, r6.sx, lsl 4
iadd     dr10, dr2, 8
iadd     r12, r12.sx, 1
st_var   r0, 2
st_var   r3, r4l
st_var   r5, r8l
st_var   r11, 3
st_var   r14, 6
csel     r0, r0, 1, r0, 1, ugt
csel     r6, r4, 0, r6, 0, ieq
csel     r13, r10, r12, r10, r12, ugt
hmul     r0l, $r0h, 0.234375
hmul     r0h, r0h, r3h
hmul     r1l, r1l, r3h
hmul     r2l, r1l, r1h
hmul     r2h, r3l, r2l
hmul     r3l, r3l, r2h
hmul     r3h, r5l, r2h
hmul     r5l, r5l, 2.0
fmul     r9, r11, r9
imadd    r1, r1.sx, u69.sx, r2.sx
imadd    r3, r2.sx, r2.sx, r3.sx
