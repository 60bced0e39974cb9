fadd32.sat r11, r8, -0.0
fmadd16 r3l, r0h.neg, r1h, 1.0
icmpsel ult, r0h, r1, u67, 1, 0
if_icmp r0l, nueq, r0h, 0, 1
push_exec r0l, 2
device_load 0, i32, xyzw, r0_r1_r2_r3, u8_u9, 0, signed
get_sr r1, sr80 (thread_position_in_grid.x)
convert u32_to_f, r0, r0, rte
st_var_final 1, r0, 8
