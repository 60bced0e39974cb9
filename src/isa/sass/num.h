/* num.h — the numeric semantics of NVIDIA Maxwell (SM 5.x) SASS, one lane at
 * a time: float arithmetic with its rounding, denormal and NaN rules,
 * compares and predicate logic, MUFU, conversions and the integer
 * operations. Pure functions of raw 32-bit register values and the small
 * enumerations below (the values are the instruction fields' own, so a
 * decoded field passes straight through); no decoding happens here.
 * The model, every choice where public sources disagree or are silent, and
 * those sources: docs/sass-numerics.md.
 *
 * HOST ENVIRONMENT. Every function expects the host's floating-point
 * environment at its C default: round to nearest, denormals kept (no
 * flush-to-zero or denormals-are-zero). The QPU runs with other settings
 * (core/fpmode.h), so a SASS interpreter sharing a thread with it sets
 * sass_num_env(...) for its run. Nothing here keeps state: every function
 * is safe to call from any number of threads at once. FADD, FMUL and FFMA
 * rounding to nearest are the host's own float operation inline (the flags
 * are a few integer operations around it; FFMA is the C library's fmaf);
 * the other rounding modes and FMUL's scale take an exact software path
 * out of line (num.c), some tens of nanoseconds.
 *
 * NaN. Every float NaN result is 0x7fffffff (SASS_NAN), whatever NaN came
 * in: NVIDIA's CUDA C++ Programming Guide ("Floating-Point Standard": a
 * single-precision operation with NaN inputs returns the quiet NaN
 * 0x7fffffff). Negation and absolute value are sign-bit operations on the
 * operands (also of a NaN), done by the caller with sass_fneg/sass_fabs
 * before the operation, exactly where the instruction's modifier sits.
 */
#ifndef GS_ISA_SASS_NUM_H
#define GS_ISA_SASS_NUM_H

#include <stdint.h>
#include "core/fpmode.h"
#include "isa/uop/uop.h" /* gs_lane_f, gs_lane_u: bits <-> float */

#define SASS_NAN 0x7fffffffu
#define SASS_ONE 0x3f800000u /* 1.0f */

/* ---- host environment ------------------------------------------------------ */

/* Environment e with round to nearest and denormals kept: the one every
 * function here expects (see above). */
static inline gs_fp_env sass_num_env(gs_fp_env e) { return gs_fp_env_c_default(e); }

/* ---- enumerations (the instruction fields' values) -------------------------- */

/* Rounding (2-bit field). F2I and F2F's integer rounding use the same
 * values: ROUND = RN (to nearest even), FLOOR = RM, CEIL = RP, TRUNC = RZ. */
enum { SASS_RND_RN = 0, SASS_RND_RM = 1, SASS_RND_RP = 2, SASS_RND_RZ = 3 };

/* Float compare (FSETP/FSET/FCMP 4-bit field): bit 0 less, bit 1 equal,
 * bit 2 greater, bit 3 true when unordered (a NaN operand). */
enum {
  SASS_FCMP_F, SASS_FCMP_LT, SASS_FCMP_EQ, SASS_FCMP_LE, SASS_FCMP_GT, SASS_FCMP_NE, SASS_FCMP_GE,
  SASS_FCMP_NUM, SASS_FCMP_NAN, SASS_FCMP_LTU, SASS_FCMP_EQU, SASS_FCMP_LEU, SASS_FCMP_GTU,
  SASS_FCMP_NEU, SASS_FCMP_GEU, SASS_FCMP_T
};
/* Integer compare (ISETP/ISET/ICMP 3-bit field), the same bits. */
enum { SASS_ICMP_F, SASS_ICMP_LT, SASS_ICMP_EQ, SASS_ICMP_LE, SASS_ICMP_GT, SASS_ICMP_NE, SASS_ICMP_GE, SASS_ICMP_T };
/* Boolean op combining with a predicate (FSETP/ISETP/PSETP/FSET). */
enum { SASS_BOP_AND = 0, SASS_BOP_OR = 1, SASS_BOP_XOR = 2 };

/* Float flags of FADD/FMUL/FFMA/F2F/F2I/FMNMX (a set of bits, not fields). */
enum {
  SASS_FTZ = 1,  /* .FTZ: denormal inputs and results are signed zeros */
  SASS_FMZ = 2,  /* .FMZ (FMUL/FFMA): .FTZ plus 0 x anything = +0 */
  SASS_SAT = 4,  /* .SAT: result clamped to [+0, 1], NaN gives +0 */
  SASS_ABS = 8,  /* conversions: |B| (applied before SASS_NEG) */
  SASS_NEG = 16, /* conversions: -B */
  SASS_H1 = 32,  /* conversions from F16: take the high half of the register */
  SASS_INT = 64  /* F2F: round to an integral value (ROUND/FLOOR/CEIL/TRUNC) */
};

/* FMUL post-scale (3-bit field). */
enum { SASS_SCALE_NONE, SASS_SCALE_D2, SASS_SCALE_D4, SASS_SCALE_D8, SASS_SCALE_M8, SASS_SCALE_M4, SASS_SCALE_M2 };

/* MUFU function (4-bit field). */
enum {
  SASS_MUFU_COS = 0, SASS_MUFU_SIN = 1, SASS_MUFU_EX2 = 2, SASS_MUFU_LG2 = 3, SASS_MUFU_RCP = 4,
  SASS_MUFU_RSQ = 5, SASS_MUFU_RCP64H = 6, SASS_MUFU_RSQ64H = 7, SASS_MUFU_SQRT = 8
};

/* Conversion formats: log2 of the size in bytes, as the fields hold them.
 * Integers: SASS_I8..SASS_I64 with a separate signed bit; floats: F16, F32
 * (F64 and I64 are not modelled: sass_cvt_supported). */
enum { SASS_I8 = 0, SASS_I16 = 1, SASS_I32 = 2, SASS_I64 = 3 };
enum { SASS_F16 = 1, SASS_F32 = 2, SASS_F64 = 3 };

/* Condition-code flags, as a set: the same bits as exec.h's SASS_CC_*. */
enum { SASS_FL_Z = 1, SASS_FL_S = 2, SASS_FL_C = 4, SASS_FL_O = 8 };

/* Integer flags of IADD/IADD3/ISCADD/XMAD (a set of bits). */
enum {
  SASS_INEG_A = 1,  /* -A (IADD/ISCADD: with SASS_INEG_B as well this is .PO) */
  SASS_INEG_B = 2,  /* -B */
  SASS_INEG_C = 4,  /* -C (IADD3) */
  SASS_IX = 8,      /* .X: carry in from CC.C */
  SASS_ISAT = 16,   /* .SAT: signed saturation (IADD) */
  SASS_XA_SIGNED = 32, SASS_XB_SIGNED = 64, /* XMAD: A, B halves signed */
  SASS_XA_H1 = 128, SASS_XB_H1 = 256,       /* XMAD: high halves */
  SASS_XPSL = 512, SASS_XMRG = 1024         /* XMAD: .PSL, .MRG */
};
/* XMAD C modes (the register form's 3-bit field; the cbuf forms' 2-bit field
 * holds the first four). */
enum { SASS_XMAD_C = 0, SASS_XMAD_CLO = 1, SASS_XMAD_CHI = 2, SASS_XMAD_CSFU = 3, SASS_XMAD_CBCC = 4 };
/* IADD3: operand half select (.H0/.H1, zero-extended) and the shift of A+B. */
enum { SASS_HALF_ALL = 0, SASS_HALF_H0 = 1, SASS_HALF_H1 = 2 };
enum { SASS_IADD3_NONE = 0, SASS_IADD3_RS = 1, SASS_IADD3_LS = 2 };
/* LOP op and predicate output op (LOP, LOP3, LOP32I). */
enum { SASS_LOP_AND = 0, SASS_LOP_OR = 1, SASS_LOP_XOR = 2, SASS_LOP_PASS_B = 3 };
enum { SASS_PRED_F = 0, SASS_PRED_T = 1, SASS_PRED_Z = 2, SASS_PRED_NZ = 3 };

/* ---- float bits ------------------------------------------------------------ */

static inline uint32_t sass_is_nan(uint32_t a) { return (a & 0x7fffffffu) > 0x7f800000u; }
static inline uint32_t sass_fneg(uint32_t a) { return a ^ 0x80000000u; }
static inline uint32_t sass_fabs(uint32_t a) { return a & 0x7fffffffu; }
/* |a| if abs, then negated if neg (the order of every SASS modifier pair). */
static inline uint32_t sass_fmods(uint32_t a, unsigned abs, unsigned neg) {
  a = abs ? a & 0x7fffffffu : a;
  return neg ? a ^ 0x80000000u : a;
}
/* A denormal becomes the zero of its sign. */
static inline uint32_t sass_ftz(uint32_t a) { return (a & 0x7f800000u) ? a : a & 0x80000000u; }
/* .SAT: clamp to [+0, 1]; NaN and -0 give +0. */
static inline uint32_t sass_fsat(uint32_t a) {
  if (a >> 31 || sass_is_nan(a)) return 0; /* negatives, -0, every NaN */
  return a > SASS_ONE ? SASS_ONE : a;      /* non-negative floats order as integers */
}
static inline uint32_t sass_nan_canon(uint32_t r) { return sass_is_nan(r) ? SASS_NAN : r; }

/* ---- FADD, FMUL, FFMA ---------------------------------------------------------
 * a, b, c: the operands after their negate/abs modifiers (FMUL's and FFMA's
 * "negate the product" is sass_fneg(a)); rnd: SASS_RND_RN..SASS_RND_RZ; flags:
 * SASS_FTZ, SASS_FMZ, SASS_SAT. One rounding, in the mode rnd; FFMA is fused
 * (a·b + c rounded once). .FTZ flushes denormal inputs before and denormal
 * results after rounding. .FMZ is .FTZ and, when a or b is ±0 after
 * flushing, makes the product +0 even against Inf or NaN: FMUL then gives
 * +0 and FFMA gives c (after flushing). .SAT clamps the result (sass_fsat).
 * A NaN result is SASS_NAN. FMUL's scale (SASS_SCALE_*) multiplies the
 * exact product by 2^-1..2^-3 or 2^3..2^1 before its one rounding. */
uint32_t sass_fadd_slow(uint32_t a, uint32_t b, unsigned rnd, unsigned flags);
uint32_t sass_fmul_slow(uint32_t a, uint32_t b, unsigned rnd, unsigned flags, unsigned scale);
uint32_t sass_ffma_slow(uint32_t a, uint32_t b, uint32_t c, unsigned rnd, unsigned flags);

/* Round to nearest is the host's own operation, with the flags applied
 * around it; the other modes take the software path. */
static inline uint32_t sass_fadd(uint32_t a, uint32_t b, unsigned rnd, unsigned flags) {
  if (rnd) return sass_fadd_slow(a, b, rnd, flags);
  if (!flags) return sass_nan_canon(gs_lane_u(gs_lane_f(a) + gs_lane_f(b)));
  unsigned ftz = flags & (SASS_FTZ | SASS_FMZ);
  if (ftz) a = sass_ftz(a), b = sass_ftz(b);
  uint32_t r = sass_nan_canon(gs_lane_u(gs_lane_f(a) + gs_lane_f(b)));
  if (ftz) r = sass_ftz(r);
  return (flags & SASS_SAT) ? sass_fsat(r) : r;
}
static inline uint32_t sass_fmul(uint32_t a, uint32_t b, unsigned rnd, unsigned flags, unsigned scale) {
  if (rnd | scale) return sass_fmul_slow(a, b, rnd, flags, scale);
  if (!flags) return sass_nan_canon(gs_lane_u(gs_lane_f(a) * gs_lane_f(b)));
  unsigned ftz = flags & (SASS_FTZ | SASS_FMZ);
  if (ftz) a = sass_ftz(a), b = sass_ftz(b);
  uint32_t r = sass_nan_canon(gs_lane_u(gs_lane_f(a) * gs_lane_f(b)));
  if ((flags & SASS_FMZ) && (!(a & 0x7fffffffu) || !(b & 0x7fffffffu))) r = 0;
  if (ftz) r = sass_ftz(r);
  return (flags & SASS_SAT) ? sass_fsat(r) : r;
}
uint32_t sass_fma_rn(uint32_t a, uint32_t b, uint32_t c); /* fmaf, NaN canonical */
static inline uint32_t sass_ffma(uint32_t a, uint32_t b, uint32_t c, unsigned rnd, unsigned flags) {
  if (rnd) return sass_ffma_slow(a, b, c, rnd, flags);
  if (!flags) return sass_fma_rn(a, b, c);
  unsigned ftz = flags & (SASS_FTZ | SASS_FMZ);
  if (ftz) a = sass_ftz(a), b = sass_ftz(b), c = sass_ftz(c);
  uint32_t r = ((flags & SASS_FMZ) && (!(a & 0x7fffffffu) || !(b & 0x7fffffffu))) ? sass_nan_canon(c)
                                                                                 : sass_fma_rn(a, b, c);
  if (ftz) r = sass_ftz(r);
  return (flags & SASS_SAT) ? sass_fsat(r) : r;
}

/* ---- float compares, min/max, FSET, FCMP ---------------------------------------
 * sass_fcmp: 1 when compare cmp (SASS_FCMP_*) holds for a and b (after their
 * modifiers); with ftz (.FTZ) denormals compare as zeros. -0 equals +0. */
static inline unsigned sass_fcmp(unsigned cmp, uint32_t a, uint32_t b, unsigned ftz) {
  if (ftz) a = sass_ftz(a), b = sass_ftz(b);
  if (sass_is_nan(a) || sass_is_nan(b)) return (cmp >> 3) & 1;
  float x = gs_lane_f(a), y = gs_lane_f(b);
  unsigned k = x < y ? 0 : x == y ? 1 : 2;
  return (cmp >> k) & 1;
}
/* x BOP y for predicates (0/1). */
static inline unsigned sass_bop(unsigned bop, unsigned x, unsigned y) {
  return bop == SASS_BOP_AND ? (x & y) : bop == SASS_BOP_OR ? (x | y) : bop == SASS_BOP_XOR ? (x ^ y) : 0;
}
/* FSETP/ISETP: bit 0 = the first destination (r BOP pc), bit 1 = the second
 * ((!r) BOP pc). r is the compare, pc the (possibly negated) predicate. */
static inline unsigned sass_setp(unsigned bop, unsigned r, unsigned pc) {
  return sass_bop(bop, r, pc) | sass_bop(bop, !r, pc) << 1;
}
/* PSETP: bit 0 = (pa BOP1 pb) BOP2 pc, bit 1 = ((!pa) BOP1 pb) BOP2 pc
 * (operands after their negations). */
static inline unsigned sass_psetp(unsigned bop1, unsigned bop2, unsigned pa, unsigned pb, unsigned pc) {
  return sass_bop(bop2, sass_bop(bop1, pa, pb), pc) | sass_bop(bop2, sass_bop(bop1, !pa, pb), pc) << 1;
}
/* FSET (and PSET/ISET's value): t = (compare BOP pc); .BF gives 1.0f for
 * true, else 0xffffffff; false gives 0. */
static inline uint32_t sass_fset(unsigned t, unsigned bf) { return t ? (bf ? SASS_ONE : 0xffffffffu) : 0; }
/* FSET's .CC flags on its result r: Z = (r == 0), S = !Z unless .BF, C = O = 0. */
static inline unsigned sass_fset_cc(uint32_t r, unsigned bf) {
  return r == 0 ? SASS_FL_Z : (bf ? 0 : SASS_FL_S);
}
/* FCMP: (c cmp 0.0) ? a : b, bits passed through unchanged. */
static inline uint32_t sass_fcmp_sel(unsigned cmp, uint32_t a, uint32_t b, uint32_t c, unsigned ftz) {
  return sass_fcmp(cmp, c, 0, ftz) ? a : b;
}
/* FMNMX: IEEE minNum (min != 0) or maxNum: a NaN operand gives the other,
 * two NaNs SASS_NAN; -0 orders below +0; with ftz denormals are flushed
 * first (and the result is the flushed operand). */
static inline uint32_t sass_fmnmx(uint32_t a, uint32_t b, unsigned min, unsigned ftz) {
  if (ftz) a = sass_ftz(a), b = sass_ftz(b);
  if (sass_is_nan(a)) return sass_is_nan(b) ? SASS_NAN : b;
  if (sass_is_nan(b)) return a;
  float x = gs_lane_f(a), y = gs_lane_f(b);
  if (x == y) /* equal, or -0 and +0: the negative one for min */
    return min ? ((a >> 31) ? a : b) : ((a >> 31) ? b : a);
  return (x < y) == (min != 0) ? a : b;
}

/* ---- MUFU and RRO --------------------------------------------------------------
 * sass_mufu: function op (SASS_MUFU_*) of a (after |a| and -a). The value is
 * the exact function rounded to the nearest float, computed in double with
 * the C library and rounded once; where the double result lies within a few
 * double ulps of a halfway point between two floats the even one is taken,
 * so results are the same on every machine and C library (docs/
 * sass-numerics.md, "MUFU"). Denormal inputs and results are signed zeros.
 * SIN and COS take radians (RRO is the identity). Special values: RCP(±0) =
 * ±Inf, RCP(±Inf) = ±0, RSQ(+0) = +Inf, RSQ(-0) = -Inf, RSQ(x<0) = NaN,
 * SQRT(x<0) = NaN, SQRT(-0) = -0, LG2(±0) = -Inf, LG2(x<0) = NaN,
 * EX2(-Inf) = +0, EX2(+Inf) = +Inf, SIN/COS(±Inf) = NaN; NaN in gives
 * SASS_NAN. RCP64H and RSQ64H take the high word of a double (low word 0)
 * and return the high word of the double result. An op outside 0-8 gives
 * SASS_NAN (the decoder refuses it). .SAT is the caller's sass_fsat. */
uint32_t sass_mufu(unsigned op, uint32_t a);
/* MUFU's rounding of a finite double d to float bits (the nearest, or the
 * even one of two when d is within 8 double ulps of their halfway point);
 * exposed for tests. */
uint32_t sass_round_guarded(double d);
/* RRO (.SINCOS and .EX2): the identity on B after its modifiers; see the
 * doc for why this reproduces RRO + MUFU. */
static inline uint32_t sass_rro(uint32_t b) { return b; }

/* ---- conversions --------------------------------------------------------------
 * b: the source register (for F16 sources, the half SASS_H1 selects; for
 * 8- and 16-bit integer sources, the byte that byte_sel 0-3 selects).
 * Abs and neg (SASS_ABS, SASS_NEG in flags) apply to the source value. */
/* F2I: b rounded to an integer by rnd (ROUND/FLOOR/CEIL/TRUNC), saturated to
 * the destination's range (I16 or I32, signed or not; a signed 16-bit
 * result is sign-extended in the register); NaN gives 0. Flags: SASS_FTZ,
 * SASS_H1, SASS_ABS, SASS_NEG. */
uint32_t sass_f2i(uint32_t b, unsigned src_fmt, unsigned dst_fmt, unsigned dst_signed, unsigned rnd, unsigned flags);
/* I2F: the integer (I8, I16, I32; signed or not; byte_sel) after |x| and -x
 * (exact, in 64 bits), rounded by rnd to F32, or to F16 in the low half
 * (high half 0). Flags: SASS_ABS, SASS_NEG. */
uint32_t sass_i2f(uint32_t b, unsigned src_fmt, unsigned src_signed, unsigned byte_sel, unsigned dst_fmt, unsigned rnd,
                  unsigned flags);
/* F2F between F16 and F32: F32->F32 with SASS_INT rounds to an integral value
 * by rnd (ROUND/FLOOR/CEIL/TRUNC), without it is a move; F16->F32 is exact;
 * F32->F16 rounds by rnd (result in the low half, high half 0). Flags:
 * SASS_FTZ (inputs and results), SASS_SAT, SASS_ABS, SASS_NEG, SASS_H1, SASS_INT.
 * NaN gives SASS_NAN (F32) or 0x7fff (F16). */
uint32_t sass_f2f(uint32_t b, unsigned src_fmt, unsigned dst_fmt, unsigned rnd, unsigned flags);
/* I2I: the integer (I8, I16, I32; signed or not; byte_sel) after |x| and -x
 * (32-bit wrapping); with SASS_SAT clamped to the destination's range (an
 * unsigned source is never below 0), without it the destination width's low
 * bits; a signed destination is sign-extended in the register, an
 * unsigned one zero-extended. Flags: SASS_ABS, SASS_NEG, SASS_SAT. */
uint32_t sass_i2i(uint32_t b, unsigned src_fmt, unsigned src_signed, unsigned byte_sel, unsigned dst_fmt,
                  unsigned dst_signed, unsigned flags);
/* Whether conversion op (SASS_OP_F2I, SASS_OP_I2F, SASS_OP_F2F, SASS_OP_I2I
 * of sass.h) from src_fmt to dst_fmt is modelled: F64 and I64 are not, and
 * F2I has no 8-bit destination (its field's 0 is not a format). */
int sass_cvt_supported(unsigned op, unsigned src_fmt, unsigned dst_fmt);
/* IEEE half <-> float bits, exact (half -> float) or rounded by rnd. */
uint32_t sass_h2f(uint32_t h);
uint32_t sass_f2h(uint32_t f, unsigned rnd);

/* ---- integer ------------------------------------------------------------------
 * Flags are SASS_FL_* sets. *cc receives Z, S, C, O of the operation (the
 * caller stores them when the instruction has .CC); cc_in is the current
 * flags (.X reads CC.C). */

/* Z and S of a result, C = O = 0 (the .CC of logic, shift and move ops). */
static inline unsigned sass_flags_zs(uint32_t r) { return (r == 0 ? SASS_FL_Z : 0) | (r >> 31 ? SASS_FL_S : 0); }

/* The adder every IADD-like op uses: x + y + cin over 33 bits. C is bit 32,
 * O the signed overflow (x, y taken as signed, cin as 0..2). */
static inline uint32_t sass_add33(uint32_t x, uint32_t y, unsigned cin, unsigned *cc) {
  uint64_t s = (uint64_t)x + y + cin;
  int64_t v = (int64_t)(int32_t)x + (int32_t)y + (int64_t)cin;
  uint32_t r = (uint32_t)s;
  *cc = sass_flags_zs(r) | (s >> 32 ? SASS_FL_C : 0) | (v != (int32_t)r ? SASS_FL_O : 0);
  return r;
}

/* IADD (and IADD32I): flags SASS_INEG_A, SASS_INEG_B (both: .PO, A + B + 1),
 * SASS_IX, SASS_ISAT. A negated operand enters the adder inverted and adds
 * 1 to the carry in, which .X replaces by CC.C (so `IADD.CC lo, a, -b;
 * IADD.X hi, c, -d` subtracts 64-bit values). .SAT clamps a signed
 * overflow to 0x7fffffff or 0x80000000. */
static inline uint32_t sass_iadd(uint32_t a, uint32_t b, unsigned flags, unsigned cc_in, unsigned *cc) {
  unsigned po = (flags & (SASS_INEG_A | SASS_INEG_B)) == (SASS_INEG_A | SASS_INEG_B);
  unsigned cin;
  if (po) {
    cin = 1 + ((flags & SASS_IX) ? (cc_in & SASS_FL_C ? 1 : 0) : 0);
  } else {
    if (flags & SASS_INEG_A) a = ~a;
    if (flags & SASS_INEG_B) b = ~b;
    cin = (flags & SASS_IX) ? (cc_in & SASS_FL_C ? 1 : 0) : (flags & (SASS_INEG_A | SASS_INEG_B) ? 1 : 0);
  }
  uint32_t r = sass_add33(a, b, cin, cc);
  if ((flags & SASS_ISAT) && (*cc & SASS_FL_O)) {
    r = (a >> 31) ? 0x80000000u : 0x7fffffffu; /* overflow: both operands had this sign */
    *cc = (*cc & ~(unsigned)(SASS_FL_Z | SASS_FL_S)) | sass_flags_zs(r);
  }
  return r;
}
/* IADD3: A' + B' + C' with each operand's half select already applied
 * (sass_half) and SASS_INEG_A/B/C negating it (two's complement); .X adds
 * CC.C to A' + B'; shift RS takes the 33-bit A' + B' >> 16, LS A' + B' << 16,
 * before C' is added. Flags: C = carry of the final addition, O = signed
 * overflow of either addition. */
static inline uint32_t sass_half(uint32_t v, unsigned sel) {
  return sel == SASS_HALF_H0 ? (v & 0xffffu) : sel == SASS_HALF_H1 ? (v >> 16) : v;
}
static inline uint32_t sass_iadd3(uint32_t a, uint32_t b, uint32_t c, unsigned flags, unsigned shift, unsigned cc_in,
                                  unsigned *cc) {
  unsigned f1, f2;
  if (flags & SASS_INEG_A) a = 0u - a;
  if (flags & SASS_INEG_B) b = 0u - b;
  if (flags & SASS_INEG_C) c = 0u - c;
  uint64_t s = (uint64_t)a + b + ((flags & SASS_IX) && (cc_in & SASS_FL_C) ? 1 : 0);
  uint32_t ab = sass_add33(a, b, (flags & SASS_IX) && (cc_in & SASS_FL_C) ? 1 : 0, &f1);
  if (shift == SASS_IADD3_RS) ab = (uint32_t)(s >> 16);
  else if (shift == SASS_IADD3_LS) ab <<= 16;
  uint32_t r = sass_add33(ab, c, 0, &f2);
  *cc = (f2 & ~(unsigned)SASS_FL_O) | ((f1 | f2) & SASS_FL_O);
  return r;
}
/* ISCADD: (A' << shift) + B' (shift 0-31). -A and -B negate (two's
 * complement) unless both are set, which is .PO: (A << shift) + B + 1. */
static inline uint32_t sass_iscadd(uint32_t a, uint32_t b, unsigned shift, unsigned flags, unsigned *cc) {
  unsigned po = (flags & (SASS_INEG_A | SASS_INEG_B)) == (SASS_INEG_A | SASS_INEG_B);
  if (!po && (flags & SASS_INEG_A)) a = 0u - a;
  if (po) return sass_add33(a << (shift & 31), b, 1, cc);
  if (flags & SASS_INEG_B) return sass_add33(a << (shift & 31), ~b, 1, cc);
  return sass_add33(a << (shift & 31), b, 0, cc);
}
/* IMUL: the low (hi = 0) or high 32 bits of the 64-bit product, each
 * operand signed or not. */
static inline uint32_t sass_imul(uint32_t a, uint32_t b, unsigned a_signed, unsigned b_signed, unsigned hi) {
  uint64_t p;
  if (!a_signed && !b_signed) {
    p = (uint64_t)a * b;
  } else {
    int64_t x = a_signed ? (int64_t)(int32_t)a : (int64_t)a;
    int64_t y = b_signed ? (int64_t)(int32_t)b : (int64_t)b;
    p = (uint64_t)(x * y); /* |x|, |y| <= 2^32 and not both 2^32: fits */
  }
  return hi ? (uint32_t)(p >> 32) : (uint32_t)p;
}
/* XMAD: a16 = A's half (SASS_XA_H1: bits 16-31) sign- or zero-extended
 * (SASS_XA_SIGNED), b16 likewise; p = a16 * b16 (32 bits), << 16 with
 * .PSL; c' by mode (SASS_XMAD_*): C, C & 0xffff, C >> 16, C - ((a16 >> 31)
 * << 16) - ((b16 >> 31) << 16) (CSFU), C + (B << 16) (CBCC, B raw);
 * r = p + c' (+ CC.C with .X); flags of that addition; .MRG then gives
 * (r & 0xffff) | (B << 16), B raw. For the immediate form B is the 16-bit
 * immediate. */
static inline uint32_t sass_xmad(uint32_t a, uint32_t b, uint32_t c, unsigned flags, unsigned mode, unsigned cc_in,
                                 unsigned *cc) {
  uint32_t ah = (flags & SASS_XA_H1) ? a >> 16 : a & 0xffffu;
  uint32_t bh = (flags & SASS_XB_H1) ? b >> 16 : b & 0xffffu;
  if (flags & SASS_XA_SIGNED) ah = (uint32_t)(int32_t)(int16_t)(uint16_t)ah;
  if (flags & SASS_XB_SIGNED) bh = (uint32_t)(int32_t)(int16_t)(uint16_t)bh;
  uint32_t p = ah * bh;
  if (flags & SASS_XPSL) p <<= 16;
  switch (mode) {
  case SASS_XMAD_CLO: c &= 0xffffu; break;
  case SASS_XMAD_CHI: c >>= 16; break;
  case SASS_XMAD_CSFU: c -= ((ah >> 31) << 16) + ((bh >> 31) << 16); break;
  case SASS_XMAD_CBCC: c += b << 16; break;
  default: break;
  }
  uint32_t r = sass_add33(p, c, (flags & SASS_IX) && (cc_in & SASS_FL_C) ? 1 : 0, cc);
  return (flags & SASS_XMRG) ? (r & 0xffffu) | (b << 16) : r;
}
/* SHL: without .W (wrap = 0) a shift of 32 or more gives 0; with .W the
 * count is taken modulo 32. */
static inline uint32_t sass_shl(uint32_t a, uint32_t s, unsigned wrap) {
  if (wrap) s &= 31;
  return s > 31 ? 0 : a << s;
}
static inline uint32_t sass_brev(uint32_t a) {
  a = (a >> 1 & 0x55555555u) | (a & 0x55555555u) << 1;
  a = (a >> 2 & 0x33333333u) | (a & 0x33333333u) << 2;
  a = (a >> 4 & 0x0f0f0f0fu) | (a & 0x0f0f0f0fu) << 4;
  a = (a >> 8 & 0x00ff00ffu) | (a & 0x00ff00ffu) << 8;
  return a >> 16 | a << 16;
}
/* SHR: arithmetic when is_signed, else logical; .BREV reverses A first;
 * without .W a count of 32 or more gives 0 (logical) or the sign in every
 * bit (arithmetic); with .W the count is taken modulo 32. */
static inline uint32_t sass_shr(uint32_t a, uint32_t s, unsigned is_signed, unsigned wrap, unsigned brev) {
  if (brev) a = sass_brev(a);
  if (wrap) s &= 31;
  if (is_signed) return gs_lane_asr(a, s > 31 ? 31 : s);
  return s > 31 ? 0 : a >> s;
}
/* LOP: A (inverted if inv_a) op B (inverted if inv_b). */
static inline uint32_t sass_lop(uint32_t a, uint32_t b, unsigned op, unsigned inv_a, unsigned inv_b) {
  if (inv_a) a = ~a;
  if (inv_b) b = ~b;
  return op == SASS_LOP_AND ? a & b : op == SASS_LOP_OR ? a | b : op == SASS_LOP_XOR ? a ^ b : b;
}
/* LOP3: bit i of the result is bit (a_i << 2 | b_i << 1 | c_i) of lut. */
static inline uint32_t sass_lop3(uint32_t a, uint32_t b, uint32_t c, unsigned lut) {
  uint32_t r = 0;
  for (unsigned k = 0; k < 8; k++) {
    if (!(lut >> k & 1)) continue;
    uint32_t m = (k & 4 ? a : ~a) & (k & 2 ? b : ~b) & (k & 1 ? c : ~c);
    r |= m;
  }
  return r;
}
/* The predicate output of LOP/LOP3 (SASS_PRED_*) for result r. */
static inline unsigned sass_lop_pred(unsigned pop, uint32_t r) {
  return pop == SASS_PRED_T ? 1 : pop == SASS_PRED_Z ? r == 0 : pop == SASS_PRED_NZ ? r != 0 : 0;
}
/* BFE: B holds the position (bits 0-7) and length (bits 8-15). The field
 * is A's bits [pos, min(pos + len, 32)) (A bit-reversed first with .BREV),
 * zero-extended, or sign-extended from its top bit when is_signed; length
 * 0 gives 0; a position of 32 or more gives 0 (unsigned) or A's sign in
 * every bit (signed). */
static inline uint32_t sass_bfe(uint32_t a, uint32_t b, unsigned is_signed, unsigned brev) {
  uint32_t pos = b & 0xff, len = (b >> 8) & 0xff;
  if (brev) a = sass_brev(a);
  if (len == 0) return 0;
  if (!is_signed) {
    if (pos > 31) return 0;
    a >>= pos;
    return len >= 32 ? a : a & ((1u << len) - 1);
  }
  if (pos > 31) return 0u - (a >> 31);
  a = gs_lane_asr(a, pos);
  if (pos + len >= 32) return a; /* the field reaches bit 31: its sign is A's */
  uint32_t sign = 1u << (len - 1);
  a &= (sign << 1) - 1;
  return (a ^ sign) - sign;
}
/* BFI: A's low len bits inserted into C at pos (B packs them as in BFE);
 * bits past 31 are dropped; a position of 32 or more gives C. */
static inline uint32_t sass_bfi(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t pos = b & 0xff, len = (b >> 8) & 0xff;
  if (pos > 31 || len == 0) return c;
  uint32_t m = (len >= 32 ? 0xffffffffu : (1u << len) - 1) << pos;
  return (c & ~m) | ((a << pos) & m);
}
/* FLO: the bit number of the most significant 1 (unsigned), or for signed
 * the most significant bit that differs from the sign; 0xffffffff when
 * there is none. invert (~) inverts A first; .SH gives 31 - n instead
 * (still 0xffffffff when none). */
static inline uint32_t sass_flo(uint32_t a, unsigned is_signed, unsigned invert, unsigned sh) {
  if (invert) a = ~a;
  if (is_signed && (a >> 31)) a = ~a;
  if (a == 0) return 0xffffffffu;
  uint32_t n = 31 - gs_lane_clz(a);
  return sh ? 31 - n : n;
}
/* POPC: the number of 1 bits of B (inverted first with invert). */
static inline uint32_t sass_popc(uint32_t b, unsigned invert) {
  if (invert) b = ~b;
  b = b - ((b >> 1) & 0x55555555u);
  b = (b & 0x33333333u) + ((b >> 2) & 0x33333333u);
  b = (b + (b >> 4)) & 0x0f0f0f0fu;
  return (b * 0x01010101u) >> 24;
}
/* SEL: p ? a : b. */
static inline uint32_t sass_sel(unsigned p, uint32_t a, uint32_t b) { return p ? a : b; }
/* IMNMX: min (min != 0, the predicate true) or max, signed or not. */
static inline uint32_t sass_imnmx(uint32_t a, uint32_t b, unsigned is_signed, unsigned min) {
  unsigned lt = is_signed ? (int32_t)a < (int32_t)b : a < b;
  return (lt == (min != 0)) ? a : b;
}
/* ISETP/ICMP compare (SASS_ICMP_*), signed or unsigned. */
static inline unsigned sass_icmp(unsigned cmp, uint32_t a, uint32_t b, unsigned is_signed) {
  unsigned lt = is_signed ? (int32_t)a < (int32_t)b : a < b;
  unsigned k = lt ? 0 : a == b ? 1 : 2;
  return (cmp >> k) & 1;
}
/* ISETP.X: the high-word step of a 64-bit compare whose low words set CC
 * with a subtraction (IADD.CC RZ, lo_a, -lo_b: C = no borrow, Z = equal):
 * a:lo_a against b:lo_b, the high words signed or not. */
static inline unsigned sass_icmp_x(unsigned cmp, uint32_t a, uint32_t b, unsigned is_signed, unsigned cc_in) {
  int64_t x = is_signed ? (int64_t)(int32_t)a : (int64_t)a;
  int64_t y = is_signed ? (int64_t)(int32_t)b : (int64_t)b;
  int64_t d = x - y - ((cc_in & SASS_FL_C) ? 0 : 1);
  unsigned k = d < 0 ? 0 : (d == 0 && (cc_in & SASS_FL_Z)) ? 1 : 2;
  return (cmp >> k) & 1;
}

#endif
