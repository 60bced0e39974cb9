csel     r0l, r0l, 0.0, r1l, r0h, flt
csel     r0h, 0.0, r0h, r1h, 0, fgte
csel     r2l, r3l.abs, r2h, r2l, r1h, fgte
csel     r3h, 1.0, r1l, 0, r3h, fgte
csel     r8, r6, 0.0, r7, r5, flt
load     r0_r1_r2, du52, 4, i32, xyz, a
load     r2_r3, dr2, 4, i32, xy, a
load     r4, dr2, 0, i32, x, a
load     r6_r7, dr6, 0, i32, xy, a
load     r6_r7, du54, r6, i32, xy, a
load     r8_r9, dr6, 0, i32, xy, a
load     r8, dr6, 2, i32, x, a
load     r12_r13_r14_r15, du54, r0, i32, xyzw, a
st_tile  r0_r1_r2, 0, 255, 0, rg11b10f_rtz, xyz
st_tile  r4_r5_r6_r7, r9l_r9h, 1, 0, explicit_coords, u8norm, xyzw
rcp      r1h, r1h
rsqrt    r2h, r2h
iadd     r0, 0, r14.sx, lsl 4
iadd     r0, r0.sx, r4.sx
iadd     r1, r1.sx, u64.sx
iadd     r2, r1.sx, u2.sx
iadd     dr2, dr2, dr6
iadd     r3, r3.sx, u66.sx
iadd     r6, r6.sx, 1
iadd     dr6, dr6, 12
iadd     r7, 1, r7.sx
iadd     dr8, dr8, 4
iadd     dr8, dr10, dr8
iadd     r10, r10.sx, r8.sx, lsl 4
iadd     dr10, dr8, 24
iadd     r26, 1, $r11, lsl 1
st_var   r1, r3l
st_var   r4, r5l
st_var   r8, 0
st_var   r12, 4
st_var   r15, 7
csel     r0h, r8l, r3l, r8l, r3l, ugt
csel     r6, r6, 1, r6, 1, ugt
csel     r0h, r1, u67, 1, 0, ult
hmul     r0l, r0l, u8h
hmul     r1l, r1l, r2l
hmul     r1h, r0l, r1h
hmul     r2l, r2l, r2h
hmul     r2h, r4l, r2h
hmul     r3h, r1l, r1l
hmul     r4l, r2l, r3h
fmul     r0, $r1, 0.234375
fmul     r11, r9, r9
imadd    r2, r4.sx, u72.sx, r2.sx
imul     r3, r3.sx, r3.sx
