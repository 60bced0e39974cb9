/* alu.h — the lane semantics of the QPU's ADD and MUL ALUs, pack and unpack,
 * as small branch-free inline functions on 32-bit bit patterns. Both the
 * reference interpreter (one lane at a time) and the fast interpreter (16-lane
 * loops the compiler vectorises) call these, so an operation's meaning is
 * written once. Facts: RG §3, vc4asm's addendum, VC4C; choices where the
 * hardware is undocumented: docs/determinism.md.
 *
 * Float model (docs/determinism.md): inputs and outputs are flushed to zero
 * when denormal; an input with exponent 255 is an infinity whatever its
 * mantissa (the hardware has no NaN); an invalid operation (Inf - Inf) gives
 * +Inf; 0 * Inf gives 0. fadd, fsub, fmul and itof round in the host's current
 * rounding mode, which the run loop sets to the context's choice (toward zero
 * by default, as results from hardware show: the JayStation posts, VC4C's
 * tests; docs/determinism.md).
 */
#ifndef GS_QPU_ALU_H
#define GS_QPU_ALU_H

#include <stdint.h>
#include <string.h>
#include "isa/qpu/table.h"
#include "isa/uop/uop.h"

/* The ALU operations the lane micro-op layer shares with other ISAs are
 * its lane functions (src/isa/uop/uop.h: the no-NaN float model is the
 * QPU's); the names below are the QPU's. */
static inline float qf_f(uint32_t u) { return gs_lane_f(u); }
static inline uint32_t qf_u(float f) { return gs_lane_u(f); }
/* Input canonicalisation: denormal -> signed zero, NaN -> signed infinity. */
static inline uint32_t qf_in(uint32_t x) { return gs_lane_nn_in(x); }
/* Output canonicalisation: denormal -> signed zero, NaN -> +Inf. */
static inline uint32_t qf_out(uint32_t r) { return gs_lane_nn_out(r); }

/* ---- ADD ALU ------------------------------------------------------------ */
static inline uint32_t qpu_fadd(uint32_t a, uint32_t b) { return gs_lane_fadd_nn(a, b); }
static inline uint32_t qpu_fsub(uint32_t a, uint32_t b) { return gs_lane_fsub_nn(a, b); }
/* Ties (including -0 vs +0) return operand B (vc4asm's addendum, VC4C). */
static inline uint32_t qpu_fmin(uint32_t a, uint32_t b) { return gs_lane_fmin_nn(a, b); }
static inline uint32_t qpu_fmax(uint32_t a, uint32_t b) { return gs_lane_fmax_nn(a, b); }
static inline uint32_t qpu_fminabs(uint32_t a, uint32_t b) { return gs_lane_fminabs_nn(a, b); }
static inline uint32_t qpu_fmaxabs(uint32_t a, uint32_t b) { return gs_lane_fmaxabs_nn(a, b); }
/* Truncation toward zero; |x| >= 2^31 (and infinities) give 0. */
static inline uint32_t qpu_ftoi(uint32_t a) { return gs_lane_ftoi_nn(a); }
static inline uint32_t qpu_itof(uint32_t a) { return gs_lane_itof(a); }
/* Shift and rotate counts are taken modulo 32. */
static inline uint32_t qpu_shr(uint32_t a, uint32_t b) { return gs_lane_shr(a, b); }
static inline uint32_t qpu_asr(uint32_t a, uint32_t b) { return gs_lane_asr(a, b); }
static inline uint32_t qpu_ror(uint32_t a, uint32_t b) { return gs_lane_ror(a, b); }
static inline uint32_t qpu_shl(uint32_t a, uint32_t b) { return gs_lane_shl(a, b); }
static inline uint32_t qpu_min(uint32_t a, uint32_t b) { return gs_lane_imin(a, b); }
static inline uint32_t qpu_max(uint32_t a, uint32_t b) { return gs_lane_imax(a, b); }
static inline uint32_t qpu_clz(uint32_t a) { return gs_lane_clz(a); }

/* Per-byte unsigned saturating add / subtract, min, max, multiply. */
static inline uint32_t qpu_v8adds(uint32_t a, uint32_t b) {
  uint32_t r = 0;
  for (int i = 0; i < 32; i += 8) {
    uint32_t s = ((a >> i) & 255) + ((b >> i) & 255);
    r |= (s > 255 ? 255 : s) << i;
  }
  return r;
}
static inline uint32_t qpu_v8subs(uint32_t a, uint32_t b) {
  uint32_t r = 0;
  for (int i = 0; i < 32; i += 8) {
    uint32_t x = (a >> i) & 255, y = (b >> i) & 255;
    r |= (x > y ? x - y : 0) << i;
  }
  return r;
}
static inline uint32_t qpu_v8min(uint32_t a, uint32_t b) {
  uint32_t r = 0;
  for (int i = 0; i < 32; i += 8) {
    uint32_t x = (a >> i) & 255, y = (b >> i) & 255;
    r |= (x < y ? x : y) << i;
  }
  return r;
}
static inline uint32_t qpu_v8max(uint32_t a, uint32_t b) {
  uint32_t r = 0;
  for (int i = 0; i < 32; i += 8) {
    uint32_t x = (a >> i) & 255, y = (b >> i) & 255;
    r |= (x > y ? x : y) << i;
  }
  return r;
}
/* round(x*y/255) as (x*y + 127) / 255 (RG §3). */
static inline uint32_t qpu_v8muld(uint32_t a, uint32_t b) {
  uint32_t r = 0;
  for (int i = 0; i < 32; i += 8) {
    uint32_t p = ((a >> i) & 255) * ((b >> i) & 255);
    r |= ((p + 127) / 255) << i;
  }
  return r;
}

/* ---- MUL ALU -------------------------------------------------------------- */
/* 0 × anything is a signed 0 (Inf included). */
static inline uint32_t qpu_fmul(uint32_t a, uint32_t b) { return gs_lane_fmul_nn(a, b); }
static inline uint32_t qpu_mul24(uint32_t a, uint32_t b) { return gs_lane_mul24(a, b); }

/* Result of ADD opcode op (any code; reserved codes and nop give 0). */
static inline uint32_t qpu_add_op(unsigned op, uint32_t a, uint32_t b) {
  switch (op) {
  case QPU_A_FADD: return qpu_fadd(a, b);
  case QPU_A_FSUB: return qpu_fsub(a, b);
  case QPU_A_FMIN: return qpu_fmin(a, b);
  case QPU_A_FMAX: return qpu_fmax(a, b);
  case QPU_A_FMINABS: return qpu_fminabs(a, b);
  case QPU_A_FMAXABS: return qpu_fmaxabs(a, b);
  case QPU_A_FTOI: return qpu_ftoi(a);
  case QPU_A_ITOF: return qpu_itof(a);
  case QPU_A_ADD: return a + b;
  case QPU_A_SUB: return a - b;
  case QPU_A_SHR: return qpu_shr(a, b);
  case QPU_A_ASR: return qpu_asr(a, b);
  case QPU_A_ROR: return qpu_ror(a, b);
  case QPU_A_SHL: return qpu_shl(a, b);
  case QPU_A_MIN: return qpu_min(a, b);
  case QPU_A_MAX: return qpu_max(a, b);
  case QPU_A_AND: return a & b;
  case QPU_A_OR: return a | b;
  case QPU_A_XOR: return a ^ b;
  case QPU_A_NOT: return ~a;
  case QPU_A_CLZ: return qpu_clz(a);
  case QPU_A_V8ADDS: return qpu_v8adds(a, b);
  case QPU_A_V8SUBS: return qpu_v8subs(a, b);
  default: return 0;
  }
}

/* The C flag an ADD opcode sets (RG §3), given its operands
 * and result. */
static inline uint32_t qpu_add_carry(unsigned op, uint32_t a, uint32_t b, uint32_t r) {
  uint32_t s = b & 31;
  switch (op) {
  case QPU_A_FADD:
  case QPU_A_FSUB: return (int32_t)r > 0;
  case QPU_A_FMIN:
  case QPU_A_FMAX: return qf_f(qf_in(a)) > qf_f(qf_in(b));
  case QPU_A_FMINABS:
  case QPU_A_FMAXABS: return (qf_in(a) & 0x7fffffffu) > (qf_in(b) & 0x7fffffffu);
  case QPU_A_ADD: return r < a;
  case QPU_A_SUB: return a < b;
  case QPU_A_SHR:
  case QPU_A_ASR: return s ? (a >> (s - 1)) & 1 : 0;
  case QPU_A_SHL: return s ? (a >> (32 - s)) & 1 : 0;
  case QPU_A_MIN:
  case QPU_A_MAX: return (int32_t)a > (int32_t)b;
  default: return 0;
  }
}

/* Signed overflow of an ADD opcode, used by the saturating 32-bit pack. */
static inline uint32_t qpu_add_overflow(unsigned op, uint32_t a, uint32_t b, uint32_t r) {
  if (op == QPU_A_ADD) return ((a ^ r) & (b ^ r)) >> 31;
  if (op == QPU_A_SUB) return ((a ^ b) & (a ^ r)) >> 31;
  return 0;
}

static inline uint32_t qpu_mul_op(unsigned op, uint32_t a, uint32_t b) {
  switch (op) {
  case QPU_M_FMUL: return qpu_fmul(a, b);
  case QPU_M_MUL24: return qpu_mul24(a, b);
  case QPU_M_V8MULD: return qpu_v8muld(a, b);
  case QPU_M_V8MIN: return qpu_v8min(a, b);
  case QPU_M_V8MAX: return qpu_v8max(a, b);
  case QPU_M_V8ADDS: return qpu_v8adds(a, b);
  case QPU_M_V8SUBS: return qpu_v8subs(a, b);
  default: return 0;
  }
}

/* C from a MUL opcode: only mul24 sets it (48-bit product > 2^32 - 1). */
static inline uint32_t qpu_mul_carry(unsigned op, uint32_t a, uint32_t b) {
  if (op != QPU_M_MUL24) return 0;
  uint64_t p = (uint64_t)(a & 0xffffffu) * (b & 0xffffffu);
  return p > 0xffffffffu;
}

/* ---- Unpack (RG Tables 6-9) -------------------------------------- */
/* float16 -> float32 bits; half denormals flush to zero, exponent 31 -> Inf. */
static inline uint32_t qpu_f16_to_f32(uint32_t h) {
  uint32_t s = (h & 0x8000u) << 16, e = (h >> 10) & 31, m = h & 0x3ffu;
  if (e == 0) return s;
  if (e == 31) return s | 0x7f800000u;
  return s | ((e + 112) << 23) | (m << 13);
}
/* float32 -> float16, truncating; results below the half range flush to +0
 * or -0, overflow gives Inf; ±0 gives +0 (RG Tables 6-9). */
static inline uint32_t qpu_f32_to_f16(uint32_t f) {
  f = qf_in(f);
  uint32_t s = (f >> 16) & 0x8000u;
  int32_t e = (int32_t)((f >> 23) & 255) - 112;
  uint32_t m = (f >> 13) & 0x3ffu;
  if ((f & 0x7fffffffu) == 0) return 0;
  if (e <= 0) return s;
  if (e >= 31) return s | 0x7c00u;
  return s | ((uint32_t)e << 10) | m;
}
/* byte/255 as float (computed in the current rounding mode). */
static inline uint32_t qpu_unorm8_to_f32(uint32_t byte) {
  return qf_u((float)((double)(byte & 255) / 255.0));
}
/* Regfile-A unpack (pm=0) for a consumer that takes integer input. */
static inline uint32_t qpu_unpack_int(unsigned mode, uint32_t x) {
  switch (mode) {
  case 1: return (uint32_t)(int32_t)(int16_t)(x & 0xffffu);
  case 2: return (uint32_t)(int32_t)(int16_t)(x >> 16);
  case 3: return (x >> 24) * 0x01010101u;
  case 4: return x & 255;
  case 5: return (x >> 8) & 255;
  case 6: return (x >> 16) & 255;
  case 7: return x >> 24;
  default: return x;
  }
}
/* Regfile-A unpack for a float consumer, and the r4 unpack (pm=1). */
static inline uint32_t qpu_unpack_float(unsigned mode, uint32_t x) {
  switch (mode) {
  case 1: return qpu_f16_to_f32(x & 0xffffu);
  case 2: return qpu_f16_to_f32(x >> 16);
  case 3: return (x >> 24) * 0x01010101u;
  case 4: return qpu_unorm8_to_f32(x);
  case 5: return qpu_unorm8_to_f32(x >> 8);
  case 6: return qpu_unorm8_to_f32(x >> 16);
  case 7: return qpu_unorm8_to_f32(x >> 24);
  default: return x;
  }
}

/* ---- Pack (RG Tables 6-9) ---------------------------------------- */
/* Bits of the destination a regfile-A pack (pm=0) writes. */
static inline uint32_t qpu_pack_bytes(unsigned pack) {
  switch (pack & 7) {
  case 1: return 0x0000ffffu;
  case 2: return 0xffff0000u;
  case 4: return 0x000000ffu;
  case 5: return 0x0000ff00u;
  case 6: return 0x00ff0000u;
  case 7: return 0xff000000u;
  default: return 0xffffffffu; /* none, 8888, 32 sat */
  }
}
static inline uint32_t qpu_sat_s16(uint32_t x) {
  int32_t v = (int32_t)x;
  return (uint32_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v) & 0xffffu;
}
static inline uint32_t qpu_sat_u8(uint32_t x) {
  int32_t v = (int32_t)x;
  return (uint32_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}
/* Regfile-A pack of result r; is_float: the producing op returns float;
 * overflow: the op's signed overflow (for 32s). The value is positioned, to
 * be merged under qpu_pack_bytes(pack). */
static inline uint32_t qpu_pack_a(unsigned pack, uint32_t r, int is_float, uint32_t overflow) {
  switch (pack) {
  case 0: return r;
  case 1: return is_float ? qpu_f32_to_f16(r) : (r & 0xffffu);
  case 2: return (is_float ? qpu_f32_to_f16(r) : (r & 0xffffu)) << 16;
  case 3: return (r & 255) * 0x01010101u;
  case 4: case 5: case 6: case 7: return (r & 255) << (8 * (pack - 4));
  case 8: return (is_float || !overflow) ? r : ((r >> 31) ? 0x7fffffffu : 0x80000000u);
  case 9: return is_float ? qpu_f32_to_f16(r) : qpu_sat_s16(r);
  case 10: return (is_float ? qpu_f32_to_f16(r) : qpu_sat_s16(r)) << 16;
  case 11: return qpu_sat_u8(r) * 0x01010101u;
  default: return qpu_sat_u8(r) << (8 * (pack - 12));
  }
}
/* MUL colour pack (pm=1): r is read as a float, c = clamp(round(f*255)). */
static inline uint32_t qpu_colour8(uint32_t r) {
  float f = qf_f(qf_in(r));
  if (!(f > 0.0f)) return 0;
  if (f >= 1.0f) return 255;
  return (uint32_t)((double)f * 255.0 + 0.5); /* exact in double */
}
static inline uint32_t qpu_pack_mul(unsigned pack, uint32_t r) {
  uint32_t c = qpu_colour8(r);
  return pack == 3 ? c * 0x01010101u : c << (8 * (pack - 4));
}
static inline uint32_t qpu_mul_pack_bytes(unsigned pack) {
  return pack == 3 ? 0xffffffffu : 0xffu << (8 * (pack - 4));
}

#endif
