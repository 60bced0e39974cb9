/* uop.h — the lane micro-op layer: prepared programs of every instruction
 * set run as micro-ops over N lanes (16 or 32) of 32-bit values, with lane
 * masks. One fast interpreter (run.h) serves every ISA; each ISA keeps its
 * own reference interpreter and its control flow (branches, delay slots,
 * call and loop stacks), which it implements as micro-ops of its own (the
 * escapes, kinds from GS_UOP_ISA up) handled inside the same loop.
 *
 * THE MACHINE
 *
 * A register file of N-lane vectors of 32-bit words, 64-byte aligned; an
 * operand names a vector by its byte offset in the file (slot × 4N), so a
 * handler adds it to the file's address as it is. Lane masks have bit i for
 * lane i. A micro-op's `cond` picks the lanes it acts on: mask number
 * cond >> 1, inverted when cond & 1, where mask 0 is empty — so cond 0 is
 * "no lane" and cond 1 "every lane". (The VideoCore IV QPU's write
 * conditions never, always, zs, zc, ns, nc, cs, cc are exactly this with
 * masks 1, 2, 3 holding its Z, N and C flags.)
 *
 * Arithmetic kinds compute every lane; a masked result is written back
 * with GS_UOP_MOVE or GS_UOP_SELECT under a condition, or by an escape.
 *
 * FLOATS
 *
 * Float kinds use the host's arithmetic in the environment the ISA sets for
 * the run (core/fpmode.h: the rounding mode and whether denormals are
 * flushed): GS_UOP_FADD, FSUB, FMUL and ITOF are the IEEE operations in
 * that environment, a NaN result always the default quiet NaN 0x7fc00000
 * (the payload the host would pass on depends on how the compiler orders
 * the operands, so every copy of the loop could differ). The kinds ending in _NN follow the no-NaN model of the
 * VideoCore IV (docs/determinism.md, "QPU float model"): inputs and
 * results with a zero exponent are signed zeros, an input with exponent 255
 * is an infinity whatever its mantissa, an invalid operation gives +Inf,
 * 0 × Inf gives a signed 0, ftoi of |x| >= 2^31 gives 0. They expect the
 * environment to flush denormals (the fast path is the host's operation;
 * operands with exponent 255 take the lane functions below, out of line).
 *
 * Integer shifts come in two forms: the count taken modulo 32 (GS_UOP_SHL,
 * SHR, ASR, ROR: the QPU, x86) and the count saturated, 32 or more shifting
 * every bit out (GS_UOP_SHL_SAT, SHR_SAT, ASR_SAT: NVIDIA's SHL/SHR without
 * .W).
 */
#ifndef GS_ISA_UOP_UOP_H
#define GS_ISA_UOP_UOP_H

#include <stdint.h>
#include <string.h>

/* ---- micro-ops ------------------------------------------------------------ */

/* Neutral kinds. Every kind up to GS_UOP_CONST writes register d. */
enum {
  /* float, no-NaN model (flush in and out, exponent 255 is infinity) */
  GS_UOP_FADD_NN, /* d = a + b */
  GS_UOP_FSUB_NN, /* d = a - b */
  GS_UOP_FMUL_NN, /* d = a × b */
  GS_UOP_FMIN_NN, /* d = a < b ? a : b (ties give b) */
  GS_UOP_FMAX_NN, /* d = a > b ? a : b (ties give b) */
  GS_UOP_FMINABS_NN, /* d = min(|a|, |b|) */
  GS_UOP_FMAXABS_NN, /* d = max(|a|, |b|) */
  GS_UOP_FTOI_NN, /* d = (int32) trunc(a); |a| >= 2^31 gives 0 */
  /* float, IEEE in the host environment */
  GS_UOP_FADD,
  GS_UOP_FSUB,
  GS_UOP_FMUL,
  GS_UOP_FMIN, /* IEEE minNum: a NaN operand gives the other; -0 below +0 */
  GS_UOP_FMAX, /* IEEE maxNum: a NaN operand gives the other; +0 above -0 */
  GS_UOP_FTOI_SAT, /* d = (int32) trunc(a), saturated to the int32 range; NaN gives 0 */
  GS_UOP_ITOF, /* d = (float)(int32)a */
  /* integer */
  GS_UOP_IADD,
  GS_UOP_ISUB,
  GS_UOP_SHR, /* logical, count & 31 */
  GS_UOP_ASR, /* arithmetic, count & 31 */
  GS_UOP_ROR, /* rotate right, count & 31 */
  GS_UOP_SHL, /* count & 31 */
  GS_UOP_SHR_SAT, /* logical, counts >= 32 give 0 */
  GS_UOP_ASR_SAT, /* arithmetic, counts >= 32 give the sign in every bit */
  GS_UOP_SHL_SAT, /* counts >= 32 give 0 */
  GS_UOP_IMIN, /* signed */
  GS_UOP_IMAX,
  GS_UOP_UMIN, /* unsigned */
  GS_UOP_UMAX,
  GS_UOP_AND,
  GS_UOP_OR,
  GS_UOP_XOR,
  GS_UOP_NOT, /* d = ~a */
  GS_UOP_CLZ, /* leading zeros, 32 for 0 */
  GS_UOP_MUL24, /* d = (a & 0xffffff) × (b & 0xffffff), low 32 bits */
  GS_UOP_MUL32, /* d = a × b, low 32 bits */
  /* colour packing: d = (b & ~imm) | (u × 0x01010101 & imm), u the float a
   * as an unsigned normalised byte in the no-NaN model (gs_lane_unorm8_nn) */
  GS_UOP_PACK_UNORM8_NN,
  /* data movement */
  GS_UOP_SELECT, /* d = a in the lanes of cond, b in the others */
  GS_UOP_MOVE, /* d = a in the lanes of cond; the others keep d */
  GS_UOP_CONST, /* d = constant vector number imm of the program */
  /* compares: mask d's lanes of cond get the compare; its other lanes are kept */
  GS_UOP_CMP_IEQ, /* a == b */
  GS_UOP_CMP_INE, /* a != b */
  GS_UOP_CMP_ILT, /* signed a < b */
  GS_UOP_CMP_ULT, /* unsigned a < b */
  GS_UOP_CMP_FEQ, /* IEEE a == b (NaN: false) */
  GS_UOP_CMP_FLT, /* IEEE a < b (NaN: false) */
  GS_UOP_END, /* the run ends (gs_uop_run returns 0) */
  GS_UOP_ISA /* first kind an ISA defines for itself (its escapes) */
};

/* Whether a neutral kind writes register d. */
static inline int gs_uop_writes_reg(unsigned kind) { return kind <= GS_UOP_CONST; }
/* Whether a neutral kind writes mask d. */
static inline int gs_uop_writes_mask(unsigned kind) { return kind >= GS_UOP_CMP_IEQ && kind <= GS_UOP_CMP_FLT; }

/* One micro-op (16 bytes). op, side and addr are free for an ISA's
 * escapes; neutral kinds use kind, cond, d, a, b and imm. */
typedef struct gs_uop {
  uint8_t kind;
  uint8_t cond;    /* lanes: mask cond >> 1, inverted when cond & 1 (mask 0 empty) */
  uint8_t op;      /* ISA use */
  uint8_t side;    /* ISA use */
  uint8_t addr;    /* ISA use */
  uint16_t d, a, b; /* register byte offsets (a compare's d: mask number) */
  uint32_t imm;    /* GS_UOP_CONST: constant number; ISA use */
} gs_uop;

/* ---- lane semantics ------------------------------------------------------- */

/* Written once, on 32-bit bit patterns, branch-free so that the compiler
 * vectorises loops over lanes; ISAs' reference interpreters call them too. */

static inline float gs_lane_f(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static inline uint32_t gs_lane_u(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

/* No-NaN model: input canonicalisation (zero exponent -> signed zero,
 * exponent 255 -> signed infinity) and output canonicalisation (zero
 * exponent -> signed zero, NaN -> +Inf). */
static inline uint32_t gs_lane_nn_in(uint32_t x) {
  uint32_t e = x & 0x7f800000u;
  uint32_t z = x & 0x80000000u;
  uint32_t inf = x & 0xff800000u;
  return e == 0 ? z : (e == 0x7f800000u ? inf : x);
}
static inline uint32_t gs_lane_nn_out(uint32_t r) {
  uint32_t e = r & 0x7f800000u;
  uint32_t z = r & 0x80000000u;
  uint32_t nan = (e == 0x7f800000u) && (r & 0x007fffffu);
  return e == 0 ? z : (nan ? 0x7f800000u : r);
}
static inline uint32_t gs_lane_fadd_nn(uint32_t a, uint32_t b) {
  return gs_lane_nn_out(gs_lane_u(gs_lane_f(gs_lane_nn_in(a)) + gs_lane_f(gs_lane_nn_in(b))));
}
static inline uint32_t gs_lane_fsub_nn(uint32_t a, uint32_t b) {
  return gs_lane_nn_out(gs_lane_u(gs_lane_f(gs_lane_nn_in(a)) - gs_lane_f(gs_lane_nn_in(b))));
}
static inline uint32_t gs_lane_fmul_nn(uint32_t a, uint32_t b) {
  a = gs_lane_nn_in(a);
  b = gs_lane_nn_in(b);
  uint32_t r = gs_lane_nn_out(gs_lane_u(gs_lane_f(a) * gs_lane_f(b)));
  /* 0 × anything is a signed 0 (Inf included). Two separate selects: GCC 12
   * does not vectorise the loop when both tests are or-ed into one. */
  uint32_t za = (a & 0x7fffffffu) == 0, zb = (b & 0x7fffffffu) == 0;
  uint32_t s = (a ^ b) & 0x80000000u;
  r = za ? s : r;
  return zb ? s : r;
}
static inline uint32_t gs_lane_fmin_nn(uint32_t a, uint32_t b) {
  a = gs_lane_nn_in(a);
  b = gs_lane_nn_in(b);
  return gs_lane_f(a) < gs_lane_f(b) ? a : b;
}
static inline uint32_t gs_lane_fmax_nn(uint32_t a, uint32_t b) {
  a = gs_lane_nn_in(a);
  b = gs_lane_nn_in(b);
  return gs_lane_f(a) > gs_lane_f(b) ? a : b;
}
static inline uint32_t gs_lane_fminabs_nn(uint32_t a, uint32_t b) {
  a = gs_lane_nn_in(a) & 0x7fffffffu;
  b = gs_lane_nn_in(b) & 0x7fffffffu;
  return a < b ? a : b; /* non-negative floats order as integers */
}
static inline uint32_t gs_lane_fmaxabs_nn(uint32_t a, uint32_t b) {
  a = gs_lane_nn_in(a) & 0x7fffffffu;
  b = gs_lane_nn_in(b) & 0x7fffffffu;
  return a > b ? a : b;
}
static inline uint32_t gs_lane_ftoi_nn(uint32_t a) {
  float x = gs_lane_f(gs_lane_nn_in(a));
  float c = (x >= -2147483648.0f && x < 2147483648.0f) ? x : 0.0f;
  return (uint32_t)(int32_t)c;
}

/* IEEE in the host environment, every NaN result the default quiet NaN:
 * which operand's payload the host passes on depends on the order the
 * compiler gives a commutative operation's operands, so it is not kept. */
#define GS_LANE_DEFAULT_NAN 0x7fc00000u
static inline uint32_t gs_lane_nan_default(uint32_t r) {
  return (r & 0x7fffffffu) > 0x7f800000u ? GS_LANE_DEFAULT_NAN : r;
}
static inline uint32_t gs_lane_fadd(uint32_t a, uint32_t b) {
  return gs_lane_nan_default(gs_lane_u(gs_lane_f(a) + gs_lane_f(b)));
}
static inline uint32_t gs_lane_fsub(uint32_t a, uint32_t b) {
  return gs_lane_nan_default(gs_lane_u(gs_lane_f(a) - gs_lane_f(b)));
}
static inline uint32_t gs_lane_fmul(uint32_t a, uint32_t b) {
  return gs_lane_nan_default(gs_lane_u(gs_lane_f(a) * gs_lane_f(b)));
}
static inline uint32_t gs_lane_is_nan(uint32_t a) { return (a & 0x7fffffffu) > 0x7f800000u; }
static inline uint32_t gs_lane_fmin(uint32_t a, uint32_t b) {
  float x = gs_lane_f(a), y = gs_lane_f(b);
  uint32_t r = x < y ? a : y < x ? b : (a >> 31) ? a : b; /* equal: the negative one */
  r = gs_lane_is_nan(b) ? a : r;
  r = gs_lane_is_nan(a) ? b : r;
  return gs_lane_nan_default(r);
}
static inline uint32_t gs_lane_fmax(uint32_t a, uint32_t b) {
  float x = gs_lane_f(a), y = gs_lane_f(b);
  uint32_t r = x > y ? a : y > x ? b : (a >> 31) ? b : a; /* equal: the positive one */
  r = gs_lane_is_nan(b) ? a : r;
  r = gs_lane_is_nan(a) ? b : r;
  return gs_lane_nan_default(r);
}
static inline uint32_t gs_lane_ftoi_sat(uint32_t a) {
  float x = gs_lane_f(a);
  float c = (x >= -2147483648.0f && x < 2147483648.0f) ? x : 0.0f;
  uint32_t r = (uint32_t)(int32_t)c;
  r = x >= 2147483648.0f ? 0x7fffffffu : r;
  return x < -2147483648.0f ? 0x80000000u : r; /* NaN fails every compare: 0 */
}
static inline uint32_t gs_lane_itof(uint32_t a) { return gs_lane_u((float)(int32_t)a); }

/* Integer. */
static inline uint32_t gs_lane_iadd(uint32_t a, uint32_t b) { return a + b; }
static inline uint32_t gs_lane_isub(uint32_t a, uint32_t b) { return a - b; }
static inline uint32_t gs_lane_shr(uint32_t a, uint32_t b) { return a >> (b & 31); }
static inline uint32_t gs_lane_asr(uint32_t a, uint32_t b) {
  /* without relying on implementation-defined >> of negatives */
  uint32_t s = b & 31, sign = 0u - (a >> 31);
  return (a >> s) | (s ? sign << (32 - s) : 0);
}
static inline uint32_t gs_lane_ror(uint32_t a, uint32_t b) {
  uint32_t s = b & 31;
  return s ? (a >> s) | (a << (32 - s)) : a;
}
static inline uint32_t gs_lane_shl(uint32_t a, uint32_t b) { return a << (b & 31); }
static inline uint32_t gs_lane_shr_sat(uint32_t a, uint32_t b) { return b > 31 ? 0 : a >> b; }
static inline uint32_t gs_lane_asr_sat(uint32_t a, uint32_t b) { return gs_lane_asr(a, b > 31 ? 31 : b); }
static inline uint32_t gs_lane_shl_sat(uint32_t a, uint32_t b) { return b > 31 ? 0 : a << b; }
static inline uint32_t gs_lane_imin(uint32_t a, uint32_t b) { return (int32_t)a < (int32_t)b ? a : b; }
static inline uint32_t gs_lane_imax(uint32_t a, uint32_t b) { return (int32_t)a > (int32_t)b ? a : b; }
static inline uint32_t gs_lane_umin(uint32_t a, uint32_t b) { return a < b ? a : b; }
static inline uint32_t gs_lane_umax(uint32_t a, uint32_t b) { return a > b ? a : b; }
static inline uint32_t gs_lane_and(uint32_t a, uint32_t b) { return a & b; }
static inline uint32_t gs_lane_or(uint32_t a, uint32_t b) { return a | b; }
static inline uint32_t gs_lane_xor(uint32_t a, uint32_t b) { return a ^ b; }
static inline uint32_t gs_lane_not(uint32_t a) { return ~a; }
static inline uint32_t gs_lane_clz(uint32_t a) { return a ? (uint32_t)__builtin_clz(a) : 32u; }
static inline uint32_t gs_lane_mul24(uint32_t a, uint32_t b) { return (a & 0xffffffu) * (b & 0xffffffu); }
static inline uint32_t gs_lane_mul32(uint32_t a, uint32_t b) { return a * b; }

/* A float as an unsigned normalised byte, round(clamp(a, 0, 1) × 255) with
 * ties rounded up, in the no-NaN model: zero-exponent inputs are 0, exponent
 * 255 is an infinity of a's sign whatever the mantissa (+ gives 255, - 0),
 * negative inputs 0, 1.0 and above 255 (the VideoCore IV's MUL colour pack,
 * Broadcom's VideoCore IV 3D Architecture Reference Guide, "Pack/unpack").
 * In integers, so that no rounding mode matters: a = m × 2^(e - 150) with m
 * the 24-bit significand, so a × 255 + 1/2 rounded down is
 * ((m × 255 >> (149 - e)) + 1) >> 1, where m × 255 < 2^32; below 2^-9
 * (e < 118) the result is 0. */
static inline uint32_t gs_lane_unorm8_nn(uint32_t a) {
  uint32_t e = (a >> 23) & 255, x = ((a & 0x007fffffu) | 0x00800000u) * 255u;
  uint32_t r = ((x >> ((149u - e) & 31)) + 1) >> 1;
  r = e < 118 ? 0 : r;
  r = e > 126 ? 255 : r;
  return (a >> 31) ? 0 : r;
}
static inline uint32_t gs_lane_pack_unorm8_nn(uint32_t a, uint32_t b, uint32_t bytes) {
  return (b & ~bytes) | (gs_lane_unorm8_nn(a) * 0x01010101u & bytes);
}

/* Compares: 1 or 0. */
static inline uint32_t gs_lane_ieq(uint32_t a, uint32_t b) { return a == b; }
static inline uint32_t gs_lane_ine(uint32_t a, uint32_t b) { return a != b; }
static inline uint32_t gs_lane_ilt(uint32_t a, uint32_t b) { return (int32_t)a < (int32_t)b; }
static inline uint32_t gs_lane_ult(uint32_t a, uint32_t b) { return a < b; }
static inline uint32_t gs_lane_feq(uint32_t a, uint32_t b) { return gs_lane_f(a) == gs_lane_f(b); }
static inline uint32_t gs_lane_flt(uint32_t a, uint32_t b) { return gs_lane_f(a) < gs_lane_f(b); }

/* ---- the generic runner (exec.c) --------------------------------------------- */

/* A machine for gs_uop_run16/32: the register file (64-byte aligned, 64 or
 * 128 bytes a register), the masks (bit i: lane i; masks[0] must stay 0),
 * the program's constants (vectors like the registers) and the ISA's
 * escape, called for every kind from GS_UOP_ISA up: it returns a negative
 * error (the run returns it), 0 (go on with the next micro-op) or a
 * positive value (the run returns it). */
#define GS_UOP_MASKS 8
typedef struct gs_uop_machine {
  void *regs;
  uint32_t masks[GS_UOP_MASKS];
  const void *consts;
  int (*escape)(void *ctx, struct gs_uop_machine *m, const gs_uop *u);
  void *ctx;
} gs_uop_machine;

/* Runs the micro-ops from prog[0] until GS_UOP_END (returns 0) or an
 * escape stops it, over 16 or 32 lanes, in the caller's floating-point
 * environment. The fast interpreter of an ISA that wants its escapes
 * inlined includes run.h instead (src/isa/qpu/exec.c). */
int gs_uop_run16(gs_uop_machine *m, const gs_uop *prog);
int gs_uop_run32(gs_uop_machine *m, const gs_uop *prog);
/* Whether the generic runner takes its AVX2 copy (1) or the build's own
 * (0); on = 1 makes it take the build's own from now on, 0 lets it choose
 * again, -1 only asks. For tests, which check both copies. */
int gs_uop_portable(int on);

#endif
