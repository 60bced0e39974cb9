jmp_any  -634
csel     r0l, r0l, r2l, r0l, r2l, fltn
csel     r1l, 0.0, r0h, r1l, r0l, fgte
csel     r2h, 1.0, r1l, r1l, r2h, fgte
csel     r6, 0.0, r6, u8, 0, fgte
load     r0_r1_r2_r3, du8, 0, i32, xyzw, a
load     r0_r1, du52, 154, i32, xy, a
load     r2, dr23, r11, i32, x, a
load     r4, dr0, 1, i32, x, a
load     r6, dr8, 2, i32, x, a
load     r8_r9, dr8, 0, i32, xy, a
load     r8_r9_r10_r11, dr6, 0, i32, xyzw, a
load     r8_r9_r10_r11, du0, 4095, lsl 2, i32, xyzw, a
load     r12, dr10, r7, i32, x, b
st_tile  r0_r1_r2, 0, 255, 0, rgb9e5_rtz, xyz
log2     r0l, r0l
rcp      r2l, r2h
rsqrt    r3, r3
iadd     r0, r0.sx, 1
iadd     r0, r5.sx, r5.sx, lsl 1
iadd     r1, r1.sx, u4.sx
iadd     r2, r2.sx, u65.sx
iadd     r3, r0.sx, r4.sx
iadd     r5l, u12h.sx, 2
iadd     r6, r7.sx, r6.sx
iadd     dr6, dr8, dr10
iadd     r8l, u13l.sx, 1
iadd     dr8, dr8, dr10
iadd     r9, r8.sx, r9.sx
iadd     dr10, dr2, dr10
iadd     r12, r6.sx, 1
st_var   r0, r4l
st_var   r2, r4l
st_var   r5, r6l
st_var   r9, 1
st_var   r13, 5
csel     r0l, r6, 5, r0l, 4, ieq
csel     r4, r4, 0, r6, 0, ieq
csel     r6, r7, 1, r7, 1, ugt
csel     r0h, r2, u68, r0h, 0, ult
hmul     r0l, r0l, r3h
hmul     r1l, r1l.abs, r2l.abs
hmul     r1h, r1h, r2h
hmul     r2h, r2l, r2l
hmul     r2h, r5l, r5l
hmul     r3h, r2h, r2h
hmul     r4h, r4h, r2h
fmul     r4, r11, r9
imul     r0, u4.sx, u5.sx
imadd    r3, r1.sx, r1.sx, r3.sx
