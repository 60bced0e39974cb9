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

#endif
