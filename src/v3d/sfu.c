/* sfu.c — the SFU's four functions as integer arithmetic on float bit
 * patterns: table lookup and linear interpolation, fitted to outputs
 * measured on Raspberry Pis (VC4C's doc/sfu_accuracy.txt; single recip calls
 * published by Terminus-IMRC). recip and recipsqrt give a 16-bit fixed-point
 * fraction in (1/2, 1]; exp2 and log2 have their own fixed-point forms (the
 * models, the fit and its residuals: docs/v3d-units.md, "SFU"). Integer
 * arithmetic keeps results independent of the host's rounding mode (the
 * interpreters run toward zero) and of its libm.
 */
#include <stdint.h>
#include <string.h>
#include "v3d/sfu.h"

#define F32_SIGN 0x80000000u
#define F32_INF 0x7f800000u

enum { OPERAND_ZERO, OPERAND_NORMAL, OPERAND_INF };

/* Splits x into sign and |x| = mant * 2^exp with mant in [2^23, 2^24).
 * Denormals count as zero and exponent 255 as infinity (the VideoCore IV's
 * float model, RG §3). */
static int unpack(uint32_t x, uint32_t *sign, uint32_t *mant, int *exp) {
  uint32_t e = (x >> 23) & 255;
  *sign = x & F32_SIGN;
  if (e == 0) return OPERAND_ZERO;
  if (e == 255) return OPERAND_INF;
  *mant = (x & 0x7fffffu) | 0x800000u;
  *exp = (int)e - 150;
  return OPERAND_NORMAL;
}

/* floor(sqrt(v)), digit by digit. */
static uint64_t isqrt64(uint64_t v) {
  uint64_t root = 0, bit = UINT64_C(1) << 62;
  while (bit > v) bit >>= 2;
  while (bit) {
    if (v >= root + bit) {
      v -= root + bit;
      root = (root >> 1) + bit;
    } else {
      root >>= 1;
    }
    bit >>= 2;
  }
  return root;
}

/* recip and recipsqrt produce their result as a 16-bit fixed-point fraction
 * r / 2^16 in [1/2, 1): the mantissa of 1/m or of 1/sqrt(m) (m in [1, 2));
 * results below 1 keep 15 fraction bits in the float. Both interpolate a
 * table of 256 segments, picked by the top 8 mantissa bits, with the low 15
 * bits; the entries hold 17 fraction bits, rounded to nearest, plus one unit
 * (2^-17), and are computed, not stored. recip rounds the interpolated value
 * to nearest at 16 bits, recipsqrt rounds it up; both clamp the result at
 * 1 - 2^-14 (RCP_MAX), which the first segment's start exceeds:
 * recipsqrt(4^n) = 2^-n (1 - 2^-14), and recip(x) for a mantissa just above
 * 1 is 1 - 2^-14 times its octave. Powers of two are the exception:
 * recip(2^n) = 2^-n exactly. For an odd exponent recipsqrt multiplies that
 * 16-bit result by 1/sqrt(2) and rounds up. The fit to the published
 * Raspberry Pi measurements and its residuals: docs/v3d-units.md, "SFU". */
#define RCP_SEGS 256u
#define RCP_SEG_SHIFT 15 /* mantissa bits below the segment index */
#define RCP_MAX 0xfffc   /* the largest result, (1 - 2^-14) * 2^16 */

/* round(2^17 / (1 + i/256)) + 1: floor((2 * 2^25 + (256 + i)) / (2 (256 + i))) + 1 */
static int64_t recip_entry(uint32_t i) {
  uint64_t den = RCP_SEGS + i;
  return (int64_t)(((UINT64_C(1) << 26) + den) / (2 * den)) + 1;
}

/* round(2^17 / sqrt(1 + i/256)) + 1: floor(sqrt(16 v^2)) = floor(4v), and
 * (floor(4v) + 2) / 4 is round(v) */
static int64_t recipsqrt_entry(uint32_t i) {
  uint64_t q = isqrt64((UINT64_C(1) << 46) / (RCP_SEGS + i));
  return (int64_t)((q + 2) / 4) + 1;
}

/* The table's value at the 23-bit mantissa fraction f, with 32 fraction bits */
static int64_t rcp_interpolate(int64_t (*entry)(uint32_t), uint32_t f) {
  uint32_t i = f >> RCP_SEG_SHIFT, d = f & ((1u << RCP_SEG_SHIFT) - 1);
  int64_t t0 = entry(i), t1 = entry(i + 1);
  return t0 * (1 << RCP_SEG_SHIFT) + (t1 - t0) * (int64_t)d;
}

/* The float sign * (r / 2^16) * 2^scale, r in [2^15, 2^16): exact; results
 * below the smallest normal flush to zero. */
static uint32_t pack_q16(uint32_t sign, int64_t r, int scale) {
  int biased = scale - 1 + 127;
  if (biased <= 0) return sign;
  if (biased >= 255) return sign | F32_INF;
  return sign | (uint32_t)biased << 23 | ((uint32_t)r - 0x8000u) << 8;
}

uint32_t sfu_recip(uint32_t x) {
  uint32_t sign, mant;
  int exp;
  switch (unpack(x, &sign, &mant, &exp)) {
  case OPERAND_ZERO: return sign | F32_INF;
  case OPERAND_INF: return sign;
  default: break;
  }
  /* a power of two gives the exact power of two (measured: recip(recip(1))
   * = 1); the table would give 2^-n (1 - 2^-14) */
  if (mant == 0x800000u) return pack_q16(sign, 0x8000, -(exp + 23) + 1);
  /* |x| = m * 2^e with m = mant / 2^23; 1/|x| = (1/m) * 2^-e */
  int64_t q = rcp_interpolate(recip_entry, mant & 0x7fffffu); /* > 0 */
  int64_t r = (q + (1 << 15)) >> 16; /* rounded to nearest at 16 bits */
  if (r > RCP_MAX) r = RCP_MAX;
  return pack_q16(sign, r, -(exp + 23));
}

uint32_t sfu_recipsqrt(uint32_t x) {
  uint32_t sign, mant;
  int exp;
  switch (unpack(x, &sign, &mant, &exp)) {
  case OPERAND_ZERO: return F32_INF;
  case OPERAND_INF: return 0;
  default: break;
  }
  /* |x| = m * 2^e = m * 2^odd * 2^(e - odd) with e - odd even */
  int e = exp + 23;
  int odd = e & 1;
  int64_t q = rcp_interpolate(recipsqrt_entry, mant & 0x7fffffu);
  int64_t r = (q + (1 << 16) - 1) >> 16; /* 1/sqrt(m), rounded up at 16 bits */
  if (r > RCP_MAX) r = RCP_MAX;
  if (odd) { /* times 1/sqrt(2), rounded up: the least s with 2 s^2 >= r^2 */
    uint64_t r2 = (uint64_t)r * (uint64_t)r, s = isqrt64(r2 / 2);
    while (2 * s * s < r2) s++;
    r = (int64_t)s;
  }
  return pack_q16(0, r, -(e - odd) / 2);
}

/* exp2 and log2 are table-driven, as hardware function units are, and fitted
 * to the outputs VC4C measured on a Raspberry Pi (docs/v3d-units.md, "SFU").
 *
 * exp2: 2^(i/64) * 2^15 rounded up, plus one unit, for i = 0..64, stored in
 * 16 bits (the last entry, 65537, saturates to 65535). Computed with 40-digit
 * decimal arithmetic. */
static const uint16_t exp2_table[65] = {
    32769, 33126, 33487, 33852, 34220, 34593, 34970, 35350, 35735, 36124, 36518, 36915, 37317,
    37724, 38134, 38550, 38969, 39394, 39823, 40256, 40695, 41138, 41586, 42039, 42496, 42959,
    43427, 43900, 44378, 44861, 45349, 45843, 46342, 46847, 47357, 47873, 48394, 48921, 49454,
    49992, 50537, 51087, 51643, 52206, 52774, 53349, 53930, 54517, 55110, 55711, 56317, 56930,
    57550, 58177, 58811, 59451, 60098, 60753, 61414, 62083, 62759, 63442, 64133, 64832, 65535,
};

#define EXP2_ARG_FRAC 16 /* fraction bits of the fixed-point argument */
#define EXP2_ARG_BITS 19 /* significant bits kept of its magnitude */

uint32_t sfu_exp2(uint32_t x) {
  uint32_t sign, mant;
  int exp;
  uint32_t mag = 0; /* |x| in fixed point with 16 fraction bits, truncated */
  switch (unpack(x, &sign, &mant, &exp)) {
  case OPERAND_ZERO: sign = 0; break; /* the argument +0 */
  case OPERAND_INF: return sign ? 0 : F32_INF;
  default:
    if (exp >= 8 - 23) /* |x| >= 256: far beyond the float range either way */
      return sign ? 0 : F32_INF;
    if (exp + EXP2_ARG_FRAC > -32) mag = mant >> -(exp + EXP2_ARG_FRAC); /* a right shift: exp <= -16 */
  }
  /* cut to its top 19 significant bits (|x| >= 8 loses fraction bits) */
  int n = 0;
  for (uint32_t t = mag; t; t >>= 1) n++;
  if (n > EXP2_ARG_BITS) mag &= ~((1u << (n - EXP2_ARG_BITS)) - 1);
  /* a negative argument is the ones' complement of its magnitude: -mag - 1 */
  int32_t fixed = sign ? -(int32_t)mag - 1 : (int32_t)mag;
  uint32_t frac = (uint32_t)fixed & 0xffffu;                   /* [0, 1) in Q16 */
  int32_t whole = (fixed - (int32_t)frac) / (1 << EXP2_ARG_FRAC); /* floor */
  /* linear interpolation between table entries on the low 10 bits, truncated:
   * the mantissa 1.m with 15 fraction bits, in [32769, 65534] */
  uint32_t i = frac >> 10, d = frac & 1023;
  uint32_t m15 = (exp2_table[i] * 1024u + (uint32_t)(exp2_table[i + 1] - exp2_table[i]) * d) >> 10;
  int32_t biased = whole + 127;
  if (biased <= 0) return 0; /* below the smallest normal: flushed */
  if (biased >= 255) return F32_INF;
  return (uint32_t)biased << 23 | (m15 - 32768u) << 8;
}

/* log2: log2(1 + i/32) * 2^15 rounded down, for i = 0..32, computed with
 * 40-digit decimal arithmetic. */
static const uint16_t log2_table[33] = {
    0, 1454, 2865, 4236, 5568, 6863, 8124, 9352, 10548, 11716, 12855, 13967, 15054, 16117, 17156,
    18172, 19168, 20142, 21097, 22034, 22952, 23852, 24736, 25603, 26455, 27292, 28114, 28922,
    29716, 30498, 31267, 32023, 32768,
};

uint32_t sfu_log2(uint32_t x) {
  uint32_t sign, mant;
  int exp;
  switch (unpack(x, &sign, &mant, &exp)) {
  case OPERAND_ZERO: return F32_SIGN | F32_INF;
  case OPERAND_INF: return F32_INF;
  default: break;
  }
  /* log2(|x|) = (exp + 23) + log2(1.m): the top 5 bits of m pick a table
   * segment, the low 18 interpolate linearly; the fraction is rounded up to
   * 16 bits (so log2(1.m) is in [0, 1] in Q16) */
  uint32_t m = mant & 0x7fffffu, i = m >> 18, d = m & 0x3ffffu;
  uint64_t q33 = ((uint64_t)log2_table[i] << 18) + (uint64_t)(log2_table[i + 1] - log2_table[i]) * d;
  int32_t frac = (int32_t)((q33 + (1u << 17) - 1) >> 17);
  int32_t fixed = (exp + 23) * 65536 + frac; /* |fixed| < 2^24 */
  /* a negative result comes out as the ones' complement: 1/65536 above */
  if (fixed < 0) fixed += 1;
  /* exact conversion: the rounding mode cannot matter */
  float f = (float)fixed / 65536.0f;
  uint32_t r;
  memcpy(&r, &f, sizeof r);
  return r;
}
