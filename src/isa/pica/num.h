/* num.h — the numeric semantics of the PICA200 (Nintendo 3DS) vertex and
 * geometry shader unit, one lane at a time: float24 storage, the ALU
 * operations with their special values, the transcendentals, FLR, MOVA's
 * conversion, SGE/SLT and CMP's compares into the two condition flags.
 * Pure functions of raw 32-bit values; no decoding happens here, and
 * swizzles and source negation are the caller's (a negation is a flip of
 * bit 31 of the f32 carrier, done before the call). The model, every choice
 * where public sources disagree or are silent, and those sources:
 * docs/pica-numerics.md.
 *
 * CARRIER. A register component travels as the bits of an IEEE binary32
 * ("f32"). Two numeric modes (issue 10's context option):
 *  - PICA_NUM_F24 (the default): the hardware's 1.7.16 float24. Every f24
 *    value is exactly an f32 (the mantissa's low 7 bits zero; f24
 *    subnormals, 2^-78..2^-62, are f32 normals). Arithmetic flushes
 *    subnormal inputs and results to +0, truncates its exact result toward
 *    zero to 17 significant bits, turns magnitudes of 2^64 and above into
 *    infinity and never produces -0. MAX, MIN, SGE, SLT and CMP compare the
 *    raw values (no flush), as the hardware does.
 *  - PICA_NUM_F32: what Citra/azahar compute: IEEE binary32 round to
 *    nearest, subnormals and -0 kept, only MUL's 0 x inf = 0 rule added.
 * In both modes every NaN an operation produces is PICA_NAN; RCP and RSQ
 * of -0 are +inf (the hardware has no -0). Inputs need not be float24
 * values: any binary32 is taken at its value (after F24's flush).
 *
 * HOST ENVIRONMENT. PICA_NUM_F32 results are the host's binary32
 * arithmetic and expect the C default floating-point environment (round to
 * nearest, no flush-to-zero; the QPU's differs, see core/fpmode.h).
 * PICA_NUM_F24 computes in double on values far from the double subnormal
 * range, so it is unaffected by the denormal flags (not by the rounding
 * mode). Nothing keeps state: any number of threads may call at once.
 */
#ifndef GS_ISA_PICA_NUM_H
#define GS_ISA_PICA_NUM_H

#include <stdint.h>
#include <string.h>
#include "isa/uop/uop.h"

typedef enum { PICA_NUM_F24 = 0, PICA_NUM_F32 = 1 } pica_num_mode;

#define PICA_NAN 0x7fc00000u /* every NaN result (f24 0x7F8000) */
#define PICA_ONE 0x3f800000u /* 1.0 */

/* ---- float24 <-> f32 ------------------------------------------------------ */

/* The f32 value of the 24-bit word w (bits 24-31 ignored). Exact for every
 * word: normals and subnormals keep their value, the sign of zero is kept
 * (0x800000 -> -0.0), exponent 127 gives +-inf (mantissa 0) or a NaN with
 * the mantissa shifted into the f32's (0x7F8000 -> 0x7FC00000). */
uint32_t pica_f24_to_f32(uint32_t w);

/* The float24 word of f32 x as 3DS tools (picasso, nihstro) encode
 * constants: mantissa truncated to 16 bits, exponent re-biased, results
 * below 2^-62 flushed to the zero of x's sign, 2^64 and above to +-inf,
 * NaN stays NaN (sign and quiet bit kept, 0x7F8000 for 0x7FC00000). */
uint32_t pica_f32_to_f24(uint32_t x);

/* The value a register holds when f32 x is loaded from outside (an
 * attribute, a uniform given as a float): in PICA_NUM_F24
 * pica_f24_to_f32(pica_f32_to_f24(x)); in PICA_NUM_F32 x itself. */
uint32_t pica_num_load(uint32_t x, pica_num_mode m);

/* ---- arithmetic (ADD MUL MAD DP3 DP4 DPH DST FLR) -------------------------- */

/* a + b. */
uint32_t pica_add(uint32_t a, uint32_t b, pica_num_mode m);
/* a * b; 0 x +-inf (either order) is +0, NaN x 0 stays NaN. */
uint32_t pica_mul(uint32_t a, uint32_t b, pica_num_mode m);
/* MAD: a * b + c, with MUL's 0 x inf rule. F24: fused (one truncation of
 * the exact a*b + c); F32: the product rounded, then the sum (Citra). */
uint32_t pica_mad(uint32_t a, uint32_t b, uint32_t c, pica_num_mode m);
/* Dot products of the swizzled sources, summed ((p0 + p1) + p2) + p3 with
 * MUL's 0 x inf rule for each product p_i = a[i] * b[i]. F24: products
 * exact, each addition truncated; F32: every step rounded, the sum started
 * from +0 as Citra's (so -0 products give +0). DPH is DP4 with
 * a[3] replaced by 1.0, so it adds b[3] unmultiplied. */
uint32_t pica_dp3(const uint32_t a[4], const uint32_t b[4], pica_num_mode m);
uint32_t pica_dp4(const uint32_t a[4], const uint32_t b[4], pica_num_mode m);
uint32_t pica_dph(const uint32_t a[4], const uint32_t b[4], pica_num_mode m);
/* DST (and DSTI): d = (1.0, a.y * b.y, a.z, b.w); the product follows
 * pica_mul, the copies are not flushed. */
void pica_dst(const uint32_t a[4], const uint32_t b[4], uint32_t d[4], pica_num_mode m);
/* FLR: floor toward -inf; NaN and +-inf come back (NaN as PICA_NAN). F24
 * flushes a subnormal input first (so flr(-2^-70) is 0, not -1). */
uint32_t pica_flr(uint32_t a, pica_num_mode m);

/* ---- selects and compares (no flush, no mode) ----------------------------- */

/* MAX: (a > b) ? a : b; MIN: (a < b) ? a : b, on the raw values. Hence
 * max(0, NaN) = NaN, max(NaN, 0) = 0, and max(0, -inf) = 0 (the choice
 * where 3dbrew's table says -inf; docs/pica-numerics.md). */
uint32_t pica_max(uint32_t a, uint32_t b);
uint32_t pica_min(uint32_t a, uint32_t b);
/* SGE: (a >= b) ? 1.0 : 0.0; SLT: (a < b) ? 1.0 : 0.0; a NaN gives 0.0. */
uint32_t pica_sge(uint32_t a, uint32_t b);
uint32_t pica_slt(uint32_t a, uint32_t b);

/* One of CMP's two flags: a `op` b under IEEE rules (a NaN makes NE true
 * and the others false). op is the 3-bit compare field, pica.h's
 * PICA_CMP_EQ..GE = 0 EQ, 1 NE, 2 LT, 3 LE, 4 GT, 5 GE; 6 and 7 are always
 * true; op is masked to 3 bits. */
int pica_cmp(uint32_t a, uint32_t b, unsigned op);

/* The condition of BREAKC/CALLC/IFC/JMPC from the CONDOP field (pica.h's
 * PICA_COND_*: 0 OR, 1 AND, 2 X only, 3 Y only; masked to 2 bits), the
 * REFX/REFY bits and the flags. */
int pica_cond(unsigned condop, int refx, int refy, int cmpx, int cmpy);

/* LITP: d = (max(s.x, 0), clamp(s.y, -127.99609375, +127.99609375), 0,
 * max(s.w, 0)) and the flags cmp[0] = (s.x >= 0), cmp[1] = (s.w >= 0);
 * selects as pica_max (no flush), a NaN s.y comes back unclamped. */
void pica_litp(const uint32_t s[4], uint32_t d[4], int cmp[2]);

/* MOVA: a0 component <- trunc(a) toward zero. A NaN or a value outside
 * the int32 range gives INT32_MIN (the address rule then ignores it). */
int32_t pica_mova(uint32_t a);

/* ---- transcendentals (of component 0, broadcast by the caller) ----------- */

/* RCP 1/a, RSQ 1/sqrt(a), EX2 2^a, LG2 log2(a). F32: in float as Citra's
 * interpreter writes them (1.0f / a, 1.0f / sqrtf(a), exp2f, log2f). F24:
 * computed in double, then truncated like every result (within one f24 ulp
 * of the exact value; docs/pica-numerics.md).
 * Special values: rcp(+-0) = +inf, rcp(+-inf) = +0, rsq(+-0) = +inf,
 * rsq(+inf) = +0, rsq(x < 0) = NaN, ex2(-inf) = +0, ex2(+inf) = +inf,
 * lg2(+-0) = -inf, lg2(x < 0) = NaN, lg2(+inf) = +inf; NaN in, NaN out. */
uint32_t pica_rcp(uint32_t a, pica_num_mode m);
uint32_t pica_rsq(uint32_t a, pica_num_mode m);
uint32_t pica_ex2(uint32_t a, pica_num_mode m);
uint32_t pica_lg2(uint32_t a, pica_num_mode m);

/* ---- lane forms --------------------------------------------------------------
 *
 * The arithmetic above, per mode, inline and without branches, so that a
 * loop over lanes calling them vectorises (the batch interpreter,
 * exec_fast.c); the functions above are these. */

/* The carrier's float and back are uop.h's gs_lane_f and gs_lane_u; a
 * double's bits and back: */
static inline uint64_t pica_dbits_(double d) {
  uint64_t u;
  memcpy(&u, &d, 8);
  return u;
}
static inline double pica_dval_(uint64_t u) {
  double d;
  memcpy(&d, &u, 8);
  return d;
}
static inline double pica_dabs_(double d) { return pica_dval_(pica_dbits_(d) & ~(UINT64_C(1) << 63)); }

/* An F24 arithmetic input: subnormals (below 2^-62) are +0. */
static inline double pica_in24(uint32_t u) {
  double d = gs_lane_f(u);
  return pica_dabs_(d) < 0x1p-62 ? 0.0 : d;
}

/* The F24 result of the exact value s + e (s the double nearest it, e the
 * error, |e| <= half an ulp of s, 0 when s is exact, so 0 when s is 0; any
 * value when s is not finite): NaN -> PICA_NAN, truncated toward zero to
 * 17 significant bits, |.| >= 2^64 -> inf, < 2^-62 -> +0. Every finite
 * double here is normal or zero (the smallest, a product of two 2^-62s, is
 * 2^-124), so clearing the low 36 of its 52 fraction bits truncates it, and
 * one less in the bits is the next double toward zero: when s lies on the
 * 17-bit grid while the exact value lies just inside it, the truncation is
 * the grid point below |s|. (An infinite s may so step to the largest
 * double, which is 2^64 and above all the same.) */
static inline uint32_t pica_out24(double s, double e) {
  const uint64_t low36 = (UINT64_C(1) << 36) - 1;
  uint64_t u = pica_dbits_(s);
  uint64_t inward = (e != 0) & ((e < 0) != (s < 0)) & ((u & low36) == 0);
  u -= inward;
  double a = pica_dabs_(pica_dval_(u));
  uint32_t r = gs_lane_u((float)pica_dval_(u & ~low36)); /* exact when it is kept: 17 bits, in range */
  r = a < 0x1p-62 ? 0 : r;
  r = a >= 0x1p64 ? (uint32_t)(pica_dbits_(s) >> 32 & 0x80000000u) | 0x7f800000u : r;
  return s != s ? PICA_NAN : r;
}

/* The exact sum of two F24 inputs (Knuth's TwoSum: s + e == a + b for
 * finite a and b; e is 0 when s is), then pica_out24. */
static inline uint32_t pica_add24_(double a, double b) {
  double s = a + b, bb = s - a;
  double e = (a - (s - bb)) + (b - bb);
  return pica_out24(s, e);
}
/* The exact product with MUL's 0 x inf = 0 rule (F24 inputs): a NaN
 * product of two numbers is +0 (as masks, which GCC vectorises). */
static inline double pica_mul24_(double a, double b) {
  double p = a * b;
  uint64_t zero = (0 - (uint64_t)(p != p)) & (0 - (uint64_t)(a == a)) & (0 - (uint64_t)(b == b));
  return pica_dval_(pica_dbits_(p) & ~zero);
}
/* F32: the same rule. */
static inline float pica_mul32_(float a, float b) {
  float p = a * b;
  uint32_t zero = (0 - (uint32_t)(p != p)) & (0 - (uint32_t)(a == a)) & (0 - (uint32_t)(b == b));
  return gs_lane_f(gs_lane_u(p) & ~zero);
}
static inline uint32_t pica_out32(float f) { return f != f ? PICA_NAN : gs_lane_u(f); }

static inline uint32_t pica_add_f24(uint32_t a, uint32_t b) { return pica_add24_(pica_in24(a), pica_in24(b)); }
static inline uint32_t pica_add_f32(uint32_t a, uint32_t b) { return pica_out32(gs_lane_f(a) + gs_lane_f(b)); }
static inline uint32_t pica_mul_f24(uint32_t a, uint32_t b) { return pica_out24(pica_mul24_(pica_in24(a), pica_in24(b)), 0); }
static inline uint32_t pica_mul_f32(uint32_t a, uint32_t b) { return pica_out32(pica_mul32_(gs_lane_f(a), gs_lane_f(b))); }
static inline uint32_t pica_mad_f24(uint32_t a, uint32_t b, uint32_t c) {
  return pica_add24_(pica_mul24_(pica_in24(a), pica_in24(b)), pica_in24(c));
}
static inline uint32_t pica_mad_f32(uint32_t a, uint32_t b, uint32_t c) {
  return pica_out32(pica_mul32_(gs_lane_f(a), gs_lane_f(b)) + gs_lane_f(c));
}

/* Dot products ((p0 + p1) + p2) + p3 of n = 3 or 4 products, the last
 * b3 itself when dph. F24: products exact, each addition truncated; F32:
 * every step rounded, the sum started from +0 as Citra's (so -0 products
 * give +0). */
static inline uint32_t pica_dot_f24(uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3, uint32_t b0, uint32_t b1,
                                    uint32_t b2, uint32_t b3, int n, int dph) {
  uint32_t r = pica_add24_(pica_mul24_(pica_in24(a0), pica_in24(b0)), pica_mul24_(pica_in24(a1), pica_in24(b1)));
  r = pica_add24_(gs_lane_f(r), pica_mul24_(pica_in24(a2), pica_in24(b2)));
  if (n == 4) r = pica_add24_(gs_lane_f(r), dph ? pica_in24(b3) : pica_mul24_(pica_in24(a3), pica_in24(b3)));
  return r;
}
static inline uint32_t pica_dot_f32(uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3, uint32_t b0, uint32_t b1,
                                    uint32_t b2, uint32_t b3, int n, int dph) {
  float t = 0.0f;
  t += pica_mul32_(gs_lane_f(a0), gs_lane_f(b0));
  t += pica_mul32_(gs_lane_f(a1), gs_lane_f(b1));
  t += pica_mul32_(gs_lane_f(a2), gs_lane_f(b2));
  if (n == 4) t += dph ? gs_lane_f(b3) : pica_mul32_(gs_lane_f(a3), gs_lane_f(b3));
  return pica_out32(t);
}

/* MAX, MIN, SGE, SLT (the functions above). */
static inline uint32_t pica_max_l(uint32_t a, uint32_t b) { return gs_lane_f(a) > gs_lane_f(b) ? a : b; }
static inline uint32_t pica_min_l(uint32_t a, uint32_t b) { return gs_lane_f(a) < gs_lane_f(b) ? a : b; }
static inline uint32_t pica_sge_l(uint32_t a, uint32_t b) { return gs_lane_f(a) >= gs_lane_f(b) ? PICA_ONE : 0; }
static inline uint32_t pica_slt_l(uint32_t a, uint32_t b) { return gs_lane_f(a) < gs_lane_f(b) ? PICA_ONE : 0; }

#endif
