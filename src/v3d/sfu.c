/* sfu.c — the SFU's four functions as integer arithmetic on float bit
 * patterns: each result is computed (nearly) exactly in fixed point, then
 * truncated to SFU_FRAC_BITS fraction bits, a deterministic stand-in for the
 * hardware's ~14-bit approximations (RG §3; VC4C doc/sfu_accuracy.txt; the model is in
 * docs/v3d-units.md). Integer arithmetic keeps results independent of the
 * host's rounding mode (the interpreters run toward zero) and of its libm.
 */
#include <stdint.h>
#include <string.h>
#include "v3d/sfu.h"

#define F32_SIGN 0x80000000u
#define F32_INF 0x7f800000u
#define F32_ONE 0x3f800000u

enum { OPERAND_ZERO, OPERAND_NORMAL, OPERAND_INF };

/* Splits x into sign and |x| = mant * 2^exp with mant in [2^23, 2^24).
 * Denormals count as zero and exponent 255 as infinity (the QPU float
 * model, src/isa/qpu/alu.h). */
static int unpack(uint32_t x, uint32_t *sign, uint32_t *mant, int *exp) {
  uint32_t e = (x >> 23) & 255;
  *sign = x & F32_SIGN;
  if (e == 0) return OPERAND_ZERO;
  if (e == 255) return OPERAND_INF;
  *mant = (x & 0x7fffffu) | 0x800000u;
  *exp = (int)e - 150;
  return OPERAND_NORMAL;
}

static int bit_length(uint64_t v) {
  int n = 0;
  while (v) {
    n++;
    v >>= 1;
  }
  return n;
}

/* The float sign * q * 2^exp (q > 0), truncated toward zero to
 * SFU_FRAC_BITS fraction bits; overflow gives infinity, results below the
 * smallest normal flush to zero. */
static uint32_t pack_truncated(uint32_t sign, uint64_t q, int exp) {
  int n = bit_length(q);
  uint32_t m;
  if (n > 24) {
    m = (uint32_t)(q >> (n - 24));
    exp += n - 24;
  } else {
    m = (uint32_t)(q << (24 - n));
    exp -= 24 - n;
  }
  m &= ~((1u << (23 - SFU_FRAC_BITS)) - 1);
  int biased = exp + 23 + 127;
  if (biased <= 0) return sign;
  if (biased >= 255) return sign | F32_INF;
  return sign | (uint32_t)biased << 23 | (m & 0x7fffffu);
}

/* floor(a * b / 2^62) for a, b < 2^63, via 32-bit halves (C11 has no
 * 128-bit integer). */
static uint64_t mul_q62(uint64_t a, uint64_t b) {
  uint64_t al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;
  uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
  uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
  uint64_t lo = (ll & 0xffffffffu) | (mid << 32);
  uint64_t hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
  return (hi << 2) | (lo >> 62);
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

uint32_t sfu_recip(uint32_t x) {
  uint32_t sign, mant;
  int exp;
  switch (unpack(x, &sign, &mant, &exp)) {
  case OPERAND_ZERO: return sign | F32_INF;
  case OPERAND_INF: return sign;
  default: break;
  }
  /* 1/(mant * 2^exp) = (2^62 / mant) * 2^(-62-exp); the quotient has >= 38
   * bits, and truncating its floor again is the floor of the exact value. */
  return pack_truncated(sign, (UINT64_C(1) << 62) / mant, -62 - exp);
}

uint32_t sfu_recipsqrt(uint32_t x) {
  uint32_t sign, mant;
  int exp;
  switch (unpack(x, &sign, &mant, &exp)) {
  case OPERAND_ZERO: return F32_INF;
  case OPERAND_INF: return 0;
  default: break;
  }
  uint64_t m = mant;
  if (exp % 2 != 0) { /* make the exponent even so that it halves exactly */
    m <<= 1;
    exp -= 1;
  }
  /* 1/sqrt(m * 2^exp) = floor(sqrt(2^62 / m)) * 2^(-31 - exp/2), with >= 18
   * bits in the root (floor(sqrt(floor(y))) = floor(sqrt(y))). */
  return pack_truncated(0, isqrt64((UINT64_C(1) << 62) / m), -31 - exp / 2);
}

/* 2^(2^-k) for k = 1..32 in Q62 (rounded down), computed with 80-digit
 * decimal arithmetic. */
static const uint64_t exp2_table[32] = {
    UINT64_C(0x5a827999fcef3242), UINT64_C(0x4c1bf828c6dc54b7), UINT64_C(0x45cae0f1f545eb73),
    UINT64_C(0x42d561b3e6243d8a), UINT64_C(0x4166c34c5615d0eb), UINT64_C(0x40b268f9de0183b9),
    UINT64_C(0x4058f6a7ecccd5b6), UINT64_C(0x402c6be96af2fb58), UINT64_C(0x4016321b687027a8),
    UINT64_C(0x400b18178ba33b14), UINT64_C(0x40058bce410147e8), UINT64_C(0x4002c5d7bff71dae),
    UINT64_C(0x400162e807ee7e5b), UINT64_C(0x4000b1730df6a524), UINT64_C(0x400058b9497b8151),
    UINT64_C(0x40002c5c955dd701), UINT64_C(0x4000162e46d6f26b), UINT64_C(0x40000b1722757b1b),
    UINT64_C(0x4000058b90fd3e0c), UINT64_C(0x400002c5c86f3f26), UINT64_C(0x40000162e433c79b),
    UINT64_C(0x400000b17218edcf), UINT64_C(0x40000058b90c3968), UINT64_C(0x4000002c5c860d54),
    UINT64_C(0x400000162e4302d2), UINT64_C(0x4000000b17218073), UINT64_C(0x400000058b90bffc),
    UINT64_C(0x40000002c5c85fee), UINT64_C(0x4000000162e42ff3), UINT64_C(0x40000000b17217f8),
    UINT64_C(0x4000000058b90bfc), UINT64_C(0x400000002c5c85fe),
};

#define EXP2_FRAC 32 /* fraction bits of the argument that are used */

/* floor(x * 2^EXP2_FRAC) for |x| = mant * 2^exp < 256. */
static int64_t exp2_fixed_arg(uint32_t sign, uint32_t mant, int exp) {
  int shift = exp + EXP2_FRAC;
  uint64_t mag;
  int inexact = 0;
  if (shift >= 0) {
    mag = (uint64_t)mant << shift;
  } else if (shift > -40) {
    mag = (uint64_t)mant >> -shift; /* shifts up to 39: widen first */
    inexact = (mant & ((UINT64_C(1) << -shift) - 1)) != 0;
  } else {
    mag = 0;
    inexact = 1;
  }
  /* floor of a negative value rounds its magnitude up */
  return sign ? -(int64_t)(mag + (uint64_t)inexact) : (int64_t)mag;
}

uint32_t sfu_exp2(uint32_t x) {
  uint32_t sign, mant;
  int exp;
  switch (unpack(x, &sign, &mant, &exp)) {
  case OPERAND_ZERO: return F32_ONE;
  case OPERAND_INF: return sign ? 0 : F32_INF;
  default: break;
  }
  if (exp >= 8 - 23) /* |x| >= 256: far beyond the float range either way */
    return sign ? 0 : F32_INF;
  int64_t fixed = exp2_fixed_arg(sign, mant, exp);
  int64_t whole = fixed >= 0 ? fixed / (INT64_C(1) << EXP2_FRAC)
                             : -((-fixed + (INT64_C(1) << EXP2_FRAC) - 1) / (INT64_C(1) << EXP2_FRAC));
  uint64_t frac = (uint64_t)(fixed - whole * (INT64_C(1) << EXP2_FRAC)); /* in [0, 2^32) */
  /* 2^frac as the product of 2^(2^-k) over the set bits of frac, in Q62 */
  uint64_t p = UINT64_C(1) << 62;
  for (int k = 1; k <= EXP2_FRAC; k++)
    if (frac >> (EXP2_FRAC - k) & 1) p = mul_q62(p, exp2_table[k - 1]);
  return pack_truncated(0, p, (int)whole - 62);
}

uint32_t sfu_log2(uint32_t x) {
  uint32_t sign, mant;
  int exp;
  switch (unpack(x, &sign, &mant, &exp)) {
  case OPERAND_ZERO: return F32_SIGN | F32_INF;
  case OPERAND_INF: return F32_INF;
  default: break;
  }
  /* log2(|x|) = (exp + 23) + log2(y), y = mant / 2^23 in [1, 2). The bits
   * of log2(y) come one at a time: squaring y doubles its logarithm, and
   * the integer part that appears (y >= 2) is the next bit. */
  uint64_t y = (uint64_t)mant << 39; /* Q62 */
  int32_t frac = 0;
  for (int k = 0; k < SFU_FRAC_BITS; k++) {
    y = mul_q62(y, y);
    frac <<= 1;
    if (y >> 63) {
      frac |= 1;
      y >>= 1;
    }
  }
  int32_t fixed = (exp + 23) * (1 << SFU_FRAC_BITS) + frac; /* |fixed| < 2^22 */
  /* exact conversion: the rounding mode cannot matter */
  float f = (float)fixed / (float)(1 << SFU_FRAC_BITS);
  uint32_t r;
  memcpy(&r, &f, sizeof r);
  return r;
}
