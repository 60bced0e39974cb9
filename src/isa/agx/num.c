/* num.c — the AGX numeric semantics (num.h; docs/agx-numerics.md). */
#include "isa/agx/num.h"

#include <math.h>
#include <string.h>
#include "core/half.h"
#include "isa/uop/uop.h"

/* f32 bits and back: uop.h's lane helpers */
#define fbits gs_lane_u
#define fval gs_lane_f

double agx_f32_in(uint32_t x) {
  if ((x & 0x7f800000u) == 0) return (x >> 31) ? -0.0 : 0.0;
  return fval(x);
}
double agx_f16_in(uint32_t h) { return gs_half_value(h & 0xffffu); }
double agx_fmod(double v, int abs, int neg) {
  if (abs) v = fabs(v);
  return neg ? -v : v;
}

int agx_minifloat_encode(double v) {
  for (unsigned c = 0; c < 256; c++) {
    double m = agx_minifloat(c);
    if (m == v && signbit(m) == signbit(v)) return (int)c;
  }
  return -1;
}

/* Round to odd: the exact a + b as the double nearest it with its last
 * bit set when inexact (TwoSum gives the error), so that a later rounding
 * to 24 or 11 bits rounds as the exact value would (53 >= 24 + 2). */
static double sum_odd(double a, double b) {
  double s = a + b;
  if (!isfinite(s)) return s;
  double bb = s - a, e = (a - (s - bb)) + (b - bb);
  if (e != 0) {
    uint64_t u;
    memcpy(&u, &s, 8);
    if (!(u & 1)) u += ((e > 0) == (s > 0)) ? 1 : (uint64_t)-1;
    memcpy(&s, &u, 8);
  }
  return s;
}

static uint32_t sat32(uint32_t x) {
  if ((x & 0x7fffffffu) > 0x7f800000u || (x >> 31)) return 0;
  return x > 0x3f800000u ? 0x3f800000u : x;
}
static uint32_t sat16(uint32_t h) {
  if ((h & 0x7fffu) > 0x7c00u || (h >> 15)) return 0;
  return h > 0x3c00u ? 0x3c00u : h;
}

/* f32 bits of v (exact or rounded to odd): below 2^-126 a signed zero. */
static uint32_t round32(double v) {
  if (isnan(v)) return AGX_F32_NAN;
  if (fabs(v) < 0x1p-126) return signbit(v) ? 0x80000000u : 0;
  return fbits((float)v);
}

uint32_t agx_f32_to_f16(uint32_t x) { return gs_half_bits((double)fval(x)); }

uint32_t agx_fresult(double v, agx_fround r, int sat) {
  if (r == AGX_R16) {
    uint32_t h = gs_half_bits(v);
    return sat ? sat16(h) : h;
  }
  uint32_t f = round32(v);
  if (sat) f = sat32(f);
  return r == AGX_R32_16 ? agx_f32_to_f16(f) : f;
}

uint32_t agx_fadd(double a, double b, agx_fround r, int sat) { return agx_fresult(sum_odd(a, b), r, sat); }
/* f16 and f32 products are exact in a double (22 or 48 bits). */
uint32_t agx_fmul(double a, double b, agx_fround r, int sat) { return agx_fresult(a * b, r, sat); }
uint32_t agx_ffma(double a, double b, double c, agx_fround r, int sat) {
  return agx_fresult(sum_odd(a * b, c), r, sat);
}

/* rint with ties to even, without the host's rounding mode. */
static double rint_even(double a) {
  if (!isfinite(a) || fabs(a) >= 0x1p52) return a;
  double f = floor(a), rest = a - f;
  double r = f + ((rest > 0.5 || (rest == 0.5 && fmod(f, 2.0) != 0)) ? 1.0 : 0.0);
  return r == 0 ? copysign(0.0, a) : r;
}

double agx_sin_pt_1(double q) {
  if (!isfinite(q)) return NAN;
  q = fmod(q, 4.0);
  if (q < 0) q += 4.0;
  return q <= 1.0 ? q : q <= 3.0 ? 2.0 - q : q - 4.0;
}
double agx_sin_pt_2(double t) {
  if (!isfinite(t)) return NAN;
  const double half_pi = 1.57079632679489661923;
  return t == 0 ? half_pi : sin(half_pi * t) / t;
}

double agx_funop_value(unsigned op, double a) {
  switch (op) {
    case AGX_FU_FLOOR: return floor(a);
    case AGX_FU_CEIL: return ceil(a);
    case AGX_FU_TRUNC: return trunc(a);
    case AGX_FU_RINT: return rint_even(a);
    case AGX_FU_RCP: return 1.0 / a;
    case AGX_FU_RSQRT: return a == 0 ? copysign(INFINITY, a) : 1.0 / sqrt(a);
    case AGX_FU_SRSQRT:
      if (a == 0) return 0.0;
      if (isinf(a) && a > 0) return INFINITY;
      return 1.0 / sqrt(a);
    case AGX_FU_LOG2: return a == 0 ? -INFINITY : log2(a);
    case AGX_FU_EXP2: return exp2(a);
    case AGX_FU_SIN_PT_1: return agx_sin_pt_1(a);
    case AGX_FU_SIN_PT_2: return agx_sin_pt_2(a);
    default: return NAN;
  }
}
uint32_t agx_funop(unsigned op, double a, agx_fround r, int sat) {
  return agx_fresult(agx_funop_value(op, a), r == AGX_R16 ? AGX_R32_16 : r, sat);
}

int agx_fcmp(unsigned cond, double a, double b) {
  int na = isnan(a), nb = isnan(b), t;
  switch (cond & 7) {
    case 0: t = a == b; break;
    case 1: t = a < b; break;
    case 2: t = a > b; break;
    case 3: t = a < b || (nb && !na); break;
    case 5: t = a >= b; break;
    case 6: t = a <= b; break;
    case 7: t = a > b || (nb && !na); break;
    default: return -1;
  }
  return (cond & 8) ? !t : t;
}

uint64_t agx_iext(uint64_t x, unsigned bits, int sx) {
  if (bits >= 64) return x;
  uint64_t m = (UINT64_C(1) << bits) - 1;
  x &= m;
  if (sx && (x >> (bits - 1) & 1)) x |= ~m;
  return x;
}

int agx_icmp(unsigned cond, uint64_t a, unsigned abits, uint64_t b, unsigned bbits) {
  int sx = (cond >> 2) & 1, t;
  a = agx_iext(a, abits, sx), b = agx_iext(b, bbits, sx);
  switch (cond & 7) {
    case 0: case 4: t = a == b; break;
    case 1: t = a < b; break;
    case 2: t = a > b; break;
    case 5: t = (int64_t)a < (int64_t)b; break;
    case 6: t = (int64_t)a > (int64_t)b; break;
    default: return -1;
  }
  return (cond & 8) ? !t : t;
}

/* The exact v (|v| < 2^63) clamped to a dbits-wide range. */
static uint64_t clamp_int(int64_t v, unsigned dbits, int sgn) {
  int64_t lo = sgn ? -(INT64_C(1) << (dbits - 1)) : 0;
  int64_t hi = sgn ? (INT64_C(1) << (dbits - 1)) - 1 : (INT64_C(1) << dbits) - 1;
  v = v < lo ? lo : v > hi ? hi : v;
  return agx_iext((uint64_t)v, dbits, 0);
}
/* The term (+-x) << shift; shifts of 5 and more give 0. */
static uint64_t term(uint64_t x, int neg, unsigned shift) {
  if (shift >= 5) return 0;
  return (neg ? (uint64_t)0 - x : x) << shift;
}

uint64_t agx_iadd(uint64_t a, uint64_t b, int neg, unsigned shift, unsigned dbits, int sat, int sgn) {
  if (sat && dbits <= 32) {
    /* a and b are extended 32-bit values: the sum is exact in 64 bits
     * (formed unsigned, so that other values wrap instead of overflowing) */
    return clamp_int((int64_t)(a + term(b, neg, shift)), dbits, sgn);
  }
  return agx_iext(a + term(b, neg, shift), dbits, 0);
}

uint64_t agx_imad(uint64_t a, uint64_t b, uint64_t c, int neg, unsigned shift, unsigned dbits, int sat, int sgn) {
  if (sat && dbits <= 32) {
    /* |a|, |b| < 2^32 as extended 32-bit values; the product's magnitude
     * is clamped to 2^40, far beyond any 32-bit range, so the sum stays
     * exact where it matters */
    int64_t sa = (int64_t)a, sb = (int64_t)b;
    uint64_t ma = sa < 0 ? (uint64_t)0 - (uint64_t)sa : (uint64_t)sa;
    uint64_t mb = sb < 0 ? (uint64_t)0 - (uint64_t)sb : (uint64_t)sb;
    uint64_t mp = ma * mb;
    if (mp > (UINT64_C(1) << 40)) mp = UINT64_C(1) << 40;
    int64_t p = ((sa < 0) != (sb < 0)) ? -(int64_t)mp : (int64_t)mp;
    return clamp_int((int64_t)((uint64_t)p + term(c, neg, shift)), dbits, sgn);
  }
  return agx_iext(a * b + term(c, neg, shift), dbits, 0);
}

static uint64_t shl64(uint64_t x, unsigned s) { return s >= 64 ? 0 : x << s; }
static uint64_t shr64(uint64_t x, unsigned s) { return s >= 64 ? 0 : x >> s; }
/* Arithmetic shift right of the 64-bit x, counts of 64 and more giving
 * the sign in every bit. */
static uint64_t asr64(uint64_t x, unsigned s) {
  uint64_t sign = (uint64_t)0 - (x >> 63);
  return s >= 64 ? sign : shr64(x, s) | shl64(sign, 64 - s);
}

int agx_shift_op(unsigned op, uint32_t a, uint32_t b, uint32_t c, unsigned m, uint32_t *d) {
  uint64_t mask = m ? (UINT64_C(1) << m) - 1 : 0xffffffffu;
  unsigned s = c & 0x7f, sb = b & 0x7f;
  switch (op) {
    case AGX_SH_BFI: *d = (uint32_t)((a & ~shl64(mask, s)) | shl64(b & mask, s)); return 0;
    case AGX_SH_BFEIL: *d = (uint32_t)((a & ~mask) | (shr64(b, s) & mask)); return 0;
    case AGX_SH_EXTR: *d = (uint32_t)(shr64(((uint64_t)b << 32) | a, s) & mask); return 0;
    case AGX_SH_ASR: *d = (uint32_t)asr64(agx_iext(a, 32, 1), sb); return 0;
    /* (sign_extend(a) << 32) >> amount, the low 32 bits */
    case AGX_SH_ASRH: *d = (uint32_t)asr64((uint64_t)a << 32, sb); return 0;
    default: return -1;
  }
}

uint32_t agx_bitop(unsigned tt, uint32_t a, uint32_t b) {
  uint32_t r = 0;
  if (tt & 1) r |= ~a & ~b;
  if (tt & 2) r |= a & ~b;
  if (tt & 4) r |= ~a & b;
  if (tt & 8) r |= a & b;
  return r;
}

/* v rounded to an integer by mode (0 trunc, 1 even, 2 floor, 3 ceil). */
static double round_int(double v, unsigned round) {
  switch (round & 3) {
    case 0: return trunc(v);
    case 1: return rint_even(v);
    case 2: return floor(v);
    default: return ceil(v);
  }
}
/* The integer v (exact in a double) as f32 or f16 bits rounded by mode. */
static uint32_t int_to_float(double v, unsigned round, int dst16) {
  if (dst16) {
    /* h - 1 is the next half toward zero (sign and magnitude), h + 1 the
     * next away from it */
    uint32_t h = gs_half_bits(v);
    double hv = gs_half_value(h);
    if (round == 0 && fabs(hv) > fabs(v)) return h - 1;
    if (round == 2 && hv > v) return hv > 0 ? h - 1 : h + 1;
    if (round == 3 && hv < v) return hv < 0 ? h - 1 : h + 1;
    return h;
  }
  float f = (float)v;
  if ((round == 0 && fabs((double)f) > fabs(v)) || (round == 2 && f > v)) f = nextafterf(f, round == 0 ? 0.0f : -INFINITY);
  else if (round == 3 && f < v) f = nextafterf(f, INFINITY);
  return fbits(f);
}

int agx_convert(unsigned mode, unsigned round, uint32_t x, int src16, int dst16, uint32_t *d) {
  double v;
  int64_t lo, hi;
  switch (mode) {
    case 0: v = x & 0xff; break;
    case 1: v = (int8_t)(x & 0xff); break;
    case 6: v = x & 0xffff; break;
    case 7: v = (int16_t)(x & 0xffff); break;
    case 10: v = src16 ? (x & 0xffff) : x; break;
    case 11: v = src16 ? (double)(int16_t)(x & 0xffff) : (double)(int32_t)x; break;
    case 4: lo = 0, hi = 0xffff; goto to_int;
    case 5: lo = -32768, hi = 32767; goto to_int;
    case 8: lo = 0, hi = 0xffffffffll; goto to_int;
    case 9: lo = INT32_MIN, hi = INT32_MAX; goto to_int;
    default: return -1;
  }
  *d = int_to_float(v, round & 3, dst16);
  return 0;
to_int:
  v = src16 ? agx_f16_in(x) : agx_f32_in(x);
  if (isnan(v)) {
    *d = 0;
    return 0;
  }
  v = round_int(v, round);
  int64_t i = v < (double)lo ? lo : v > (double)hi ? hi : (int64_t)v;
  *d = (uint32_t)agx_iext((uint64_t)i, dst16 ? 16 : 32, 0);
  return 0;
}

unsigned agx_fmt_size(unsigned fmt) {
  static const unsigned size[8] = {1, 2, 4, 2, 1, 1, 2, 2};
  return fmt < 8 ? size[fmt] : 0;
}

uint32_t agx_fmt_unpack(unsigned fmt, uint32_t e, int reg16) {
  double v;
  switch (fmt) {
    case AGX_FMT_I8: return e & 0xff;
    case AGX_FMT_I16: return e & 0xffff;
    case AGX_FMT_I32: return reg16 ? e & 0xffff : e;
    case AGX_FMT_F16: return reg16 ? e & 0xffff : fbits((float)gs_half_value(e & 0xffff));
    case AGX_FMT_U8NORM: v = (e & 0xff) / 255.0; break;
    case AGX_FMT_S8NORM: v = fmax((int8_t)(e & 0xff) / 127.0, -1.0); break;
    case AGX_FMT_U16NORM: v = (e & 0xffff) / 65535.0; break;
    case AGX_FMT_S16NORM: v = fmax((int16_t)(e & 0xffff) / 32767.0, -1.0); break;
    default: return 0;
  }
  return reg16 ? gs_half_bits(v) : fbits((float)v);
}

uint32_t agx_fmt_pack(unsigned fmt, uint32_t x, int reg16) {
  double v = reg16 ? agx_f16_in(x) : agx_f32_in(x), scale, lo;
  switch (fmt) {
    case AGX_FMT_I8: return x & 0xff;
    case AGX_FMT_I16: return x & 0xffff;
    case AGX_FMT_I32: return reg16 ? x & 0xffff : x;
    case AGX_FMT_F16: return reg16 ? x & 0xffff : agx_f32_to_f16(x);
    case AGX_FMT_U8NORM: scale = 255, lo = 0; break;
    case AGX_FMT_S8NORM: scale = 127, lo = -1; break;
    case AGX_FMT_U16NORM: scale = 65535, lo = 0; break;
    case AGX_FMT_S16NORM: scale = 32767, lo = -1; break;
    default: return 0;
  }
  if (isnan(v)) v = 0;
  v = v < lo ? lo : v > 1 ? 1 : v;
  int64_t i = (int64_t)rint_even(v * scale);
  return (uint32_t)i & (agx_fmt_size(fmt) == 1 ? 0xffu : 0xffffu);
}
