/* num.c — the out-of-line half of num.h: float arithmetic in the directed
 * rounding modes and with .FTZ/.FMZ/.SAT, MUFU and the conversions. The
 * model and its sources: docs/sass-numerics.md.
 *
 * Exact rounding without touching the host's rounding mode: every sum and
 * product of binary32 values is formed exactly as a pair of doubles (s, e)
 * with v = s + e (a product of two floats is exact in a double; a sum takes
 * Knuth's TwoSum), then rounded once to binary32 in the requested mode by
 * looking at which side of the nearest float v lies (round_f32). The host
 * stays at round to nearest, so the functions are thread-safe and cost
 * what a few double operations cost.
 */
#include "isa/sass/num.h"

#include <float.h>
#include <math.h>
#include "isa/sass/sass.h"

static inline float fl(uint32_t u) { return gs_lane_f(u); }
static inline uint32_t bits(float f) { return gs_lane_u(f); }
/* The next float up and down (nextafterf without the call): +Inf stays,
 * -0 steps to the smallest denormal. */
static inline float up(float f) {
  uint32_t u = bits(f);
  if (u == 0x7f800000u || sass_is_nan(u)) return f;
  if (u == 0x80000000u) return fl(1);
  return fl((u >> 31) ? u - 1 : u + 1);
}
static inline float down(float f) { return fl(bits(up(fl(bits(f) ^ 0x80000000u))) ^ 0x80000000u); }

/* A float as a double, with ±Inf standing for ±2^128 (the next power of two
 * above FLT_MAX, where rounding treats the overflow threshold). */
static inline double wide(float f) { return isinf(f) ? copysign(0x1p128, (double)f) : (double)f; }

/* v = s + e rounded to binary32 in mode rnd, where s is finite and nonzero
 * or e is, s = v rounded to double and |e| is at most half an ulp of s (e = 0
 * when s is exact). Requires the host to round to nearest. */
static uint32_t round_f32(double s, double e, unsigned rnd) {
  float f = (float)s; /* s to nearest float */
  if (isinf(f)) {     /* |s| >= FLT_MAX + half an ulp */
    int neg = f < 0;
    if (rnd == SASS_RND_RN) /* only the exact halfway point with e back toward FLT_MAX stays finite */
      return (fabs(s) == 0x1.ffffffp127 && (neg ? e > 0 : e < 0)) ? bits(copysignf(FLT_MAX, f)) : bits(f);
    if (rnd == SASS_RND_RZ || rnd == (neg ? SASS_RND_RP : SASS_RND_RM)) return bits(copysignf(FLT_MAX, f));
    return bits(f);
  }
  double d = s - (double)f; /* exact: f is within a factor of 2 of s, or 0 */
  int sg = d > 0 ? 1 : d < 0 ? -1 : (e > 0) - (e < 0); /* the sign of v - f */
  if (sg == 0) return bits(f);
  switch (rnd) {
  case SASS_RND_RN: {
    if (e == 0 || d == 0) return bits(f); /* s itself rounded, or v within a double ulp of the float f */
    float g = d > 0 ? up(f) : down(f);     /* the float on s's other side */
    double m = (wide(f) + wide(g)) * 0.5;  /* exact: 25 bits */
    if (s != m) return bits(f);
    return bits((e > 0) == (wide(g) > wide(f)) ? g : f); /* halfway in double: e decides */
  }
  case SASS_RND_RM: return bits(sg < 0 ? down(f) : f);
  case SASS_RND_RP: return bits(sg > 0 ? up(f) : f);
  default: /* RZ */
    if (s > 0 && sg < 0) return bits(down(f));
    if (s < 0 && sg > 0) return bits(up(f));
    return bits(f);
  }
}

/* The exact zero x + y = 0 (IEEE 754 §6.3): -0 when both are -0, or, in
 * RM, unless both are +0; otherwise +0. sx, sy: the sign bits. */
static inline uint32_t zero_sum(unsigned sx, unsigned sy, unsigned rnd) {
  unsigned neg = rnd == SASS_RND_RM ? (sx | sy) : (sx & sy);
  return neg ? 0x80000000u : 0;
}

static inline uint32_t finish(uint32_t r, unsigned flags) {
  if (flags & (SASS_FTZ | SASS_FMZ)) r = sass_ftz(r);
  if (flags & SASS_SAT) r = sass_fsat(r);
  return r;
}

/* x + y rounded by rnd, x and y finite doubles holding floats, or one of
 * them infinite. */
static uint32_t add_exact(double x, double y, unsigned rnd) {
  double s = x + y;
  if (isnan(s)) return SASS_NAN;
  if (isinf(s)) return bits((float)s); /* an infinite operand (finite floats never overflow a double) */
  double bb = s - x;
  double e = (x - (s - bb)) + (y - bb); /* TwoSum: s + e == x + y exactly */
  if (s == 0 && e == 0) return zero_sum(signbit(x) != 0, signbit(y) != 0, rnd);
  return round_f32(s, e, rnd);
}

uint32_t sass_fadd_slow(uint32_t a, uint32_t b, unsigned rnd, unsigned flags) {
  if (flags & (SASS_FTZ | SASS_FMZ)) a = sass_ftz(a), b = sass_ftz(b);
  if (sass_is_nan(a) || sass_is_nan(b)) return finish(SASS_NAN, flags);
  return finish(add_exact(fl(a), fl(b), rnd & 3), flags);
}

static const int scale_exp[8] = {0, -1, -2, -3, 3, 2, 1, 0};

uint32_t sass_fmul_slow(uint32_t a, uint32_t b, unsigned rnd, unsigned flags, unsigned scale) {
  if (flags & (SASS_FTZ | SASS_FMZ)) a = sass_ftz(a), b = sass_ftz(b);
  if ((flags & SASS_FMZ) && (!(a & 0x7fffffffu) || !(b & 0x7fffffffu))) return finish(0, flags);
  if (sass_is_nan(a) || sass_is_nan(b)) return finish(SASS_NAN, flags);
  double p = (double)fl(a) * (double)fl(b); /* exact: 48 bits, far inside double's range */
  if (isnan(p)) return finish(SASS_NAN, flags); /* 0 x Inf */
  if (scale_exp[scale & 7]) p = ldexp(p, scale_exp[scale & 7]); /* exact */
  if (p == 0 || isinf(p)) return finish(bits((float)p), flags);
  return finish(round_f32(p, 0, rnd & 3), flags);
}

uint32_t sass_fma_rn(uint32_t a, uint32_t b, uint32_t c) {
  return sass_nan_canon(bits(fmaf(fl(a), fl(b), fl(c))));
}

uint32_t sass_ffma_slow(uint32_t a, uint32_t b, uint32_t c, unsigned rnd, unsigned flags) {
  if (flags & (SASS_FTZ | SASS_FMZ)) a = sass_ftz(a), b = sass_ftz(b), c = sass_ftz(c);
  if ((flags & SASS_FMZ) && (!(a & 0x7fffffffu) || !(b & 0x7fffffffu))) return finish(sass_nan_canon(c), flags);
  if (sass_is_nan(a) || sass_is_nan(b) || sass_is_nan(c)) return finish(SASS_NAN, flags);
  double p = (double)fl(a) * (double)fl(b); /* exact, or Inf, or NaN for 0 x Inf */
  if (isnan(p)) return finish(SASS_NAN, flags);
  return finish(add_exact(p, fl(c), rnd & 3), flags);
}

/* ---- MUFU ------------------------------------------------------------------- */

/* d (finite) to the nearest float, but where d lies within 8 double ulps of
 * a halfway point between two floats, the one with an even mantissa: the
 * C library's functions differ between machines by an ulp or so of the
 * double, and this keeps the float the same on all of them. */
uint32_t sass_round_guarded(double d) {
  float f = (float)d;
  double fd = wide(f);
  if (d == 0 || fd == d) return bits(f);
  float g = d > fd ? up(f) : down(f);
  double m = (fd + wide(g)) * 0.5;
  if (fabs(d - m) <= ldexp(fabs(m), -49)) return (bits(f) & 1) ? bits(g) : bits(f);
  return bits(f);
}

static inline double dbl_of_hi(uint32_t hi) {
  uint64_t u = (uint64_t)hi << 32;
  double d;
  memcpy(&d, &u, 8);
  return d;
}
static inline uint32_t hi_of_dbl(double d) {
  uint64_t u;
  memcpy(&u, &d, 8);
  return (uint32_t)(u >> 32);
}

uint32_t sass_mufu(unsigned op, uint32_t a) {
  if (op == SASS_MUFU_RCP64H || op == SASS_MUFU_RSQ64H) {
    double x = dbl_of_hi(a);
    if (isnan(x)) return SASS_NAN;
    if (op == SASS_MUFU_RCP64H) return hi_of_dbl(1.0 / x); /* ±0 -> ±Inf, ±Inf -> ±0 */
    if (x == 0) return hi_of_dbl(copysign(INFINITY, x));
    if (x < 0) return SASS_NAN;
    return hi_of_dbl(1.0 / sqrt(x)); /* +Inf -> +0 */
  }
  a = sass_ftz(a);
  if (sass_is_nan(a)) return SASS_NAN;
  double x = fl(a), d;
  switch (op) {
  case SASS_MUFU_COS:
  case SASS_MUFU_SIN:
    if (isinf(x)) return SASS_NAN;
    if (x == 0) return op == SASS_MUFU_SIN ? a : SASS_ONE;
    d = op == SASS_MUFU_SIN ? sin(x) : cos(x);
    break;
  case SASS_MUFU_EX2:
    if (isinf(x)) return x < 0 ? 0 : a;
    d = exp2(x);
    if (isinf(d)) return 0x7f800000u;
    break;
  case SASS_MUFU_LG2:
    if (x == 0) return 0xff800000u;
    if (x < 0) return SASS_NAN;
    if (isinf(x)) return a;
    d = log2(x);
    break;
  case SASS_MUFU_RCP:
    if (x == 0) return (a & 0x80000000u) | 0x7f800000u;
    if (isinf(x)) return a & 0x80000000u;
    d = 1.0 / x;
    break;
  case SASS_MUFU_RSQ:
    if (x == 0) return (a & 0x80000000u) | 0x7f800000u;
    if (x < 0) return SASS_NAN;
    if (isinf(x)) return 0;
    d = 1.0 / sqrt(x);
    break;
  case SASS_MUFU_SQRT:
    if (x == 0) return a;
    if (x < 0) return SASS_NAN;
    if (isinf(x)) return a;
    d = sqrt(x);
    break;
  default: return SASS_NAN;
  }
  return sass_ftz(sass_round_guarded(d));
}

/* ---- conversions ----------------------------------------------------------- */

/* v rounded to an integral value by rnd (ties to even for RN), whatever the
 * host's mode; the sign of a zero result is v's. */
static double round_integral(double v, unsigned rnd) {
  double r;
  switch (rnd & 3) {
  case SASS_RND_RM: r = floor(v); break;
  case SASS_RND_RP: r = ceil(v); break;
  case SASS_RND_RZ: r = trunc(v); break;
  default: {
    double t = trunc(v), f = fabs(v - t); /* exact */
    r = t;
    if (f > 0.5 || (f == 0.5 && fmod(t, 2.0) != 0)) r = t + copysign(1.0, v);
  }
  }
  return r == 0 ? copysign(0.0, v) : r;
}

uint32_t sass_h2f(uint32_t h) {
  uint32_t s = (h & 0x8000u) << 16, e = (h >> 10) & 31, m = h & 0x3ffu;
  if (e == 31) return s | 0x7f800000u | (m << 13);
  if (e == 0) return s | bits((float)m * 0x1p-24f); /* exact */
  return s | ((e - 15 + 127) << 23) | (m << 13);
}

/* An exact double v rounded by rnd to binary16 bits. */
static uint32_t round_f16(double v, unsigned rnd) {
  uint32_t s = signbit(v) ? 0x8000u : 0;
  double x = fabs(v);
  if (x == 0) return s;
  int ex;
  frexp(x, &ex); /* x in [2^(ex-1), 2^ex) */
  int qe = ex - 11 < -24 ? -24 : ex - 11; /* the quantum: 11 significant bits, or 2^-24 below 2^-14 */
  unsigned mode = rnd & 3;
  if (s && (mode == SASS_RND_RM || mode == SASS_RND_RP)) mode ^= 3; /* round |v|: RM <-> RP */
  double n = round_integral(ldexp(x, -qe), mode);       /* exact */
  double r = ldexp(n, qe);
  if (r > 65504.0) /* overflow: Inf, or the largest finite toward zero */
    return s | ((mode == SASS_RND_RZ || mode == SASS_RND_RM) ? 0x7bffu : 0x7c00u);
  if (r < 0x1p-14) return s | (uint32_t)(r * 0x1p24); /* subnormal (or the smallest normal reached) */
  int re;
  double fr = frexp(r, &re); /* r = fr * 2^re, fr in [0.5, 1) */
  uint32_t mant = (uint32_t)(fr * 2048.0) & 0x3ffu;
  return s | (uint32_t)(re - 1 + 15) << 10 | mant;
}

uint32_t sass_f2h(uint32_t f, unsigned rnd) {
  if (sass_is_nan(f)) return 0x7fffu;
  if ((f & 0x7fffffffu) == 0x7f800000u) return (f >> 16 & 0x8000u) | 0x7c00u;
  return round_f16(fl(f), rnd);
}

static inline uint32_t half_ftz(uint32_t h) { return (h & 0x7c00u) ? h : h & 0x8000u; }

/* The float value of a float source: an F16 half (SASS_H1 picks it, flushed
 * with SASS_FTZ) or the F32 register, after |x| and -x. */
static uint32_t float_source(uint32_t b, unsigned src_fmt, unsigned flags) {
  uint32_t x;
  if (src_fmt == SASS_F16) {
    uint32_t h = (flags & SASS_H1) ? b >> 16 : b & 0xffffu;
    x = sass_h2f((flags & SASS_FTZ) ? half_ftz(h) : h);
  } else {
    x = (flags & SASS_FTZ) ? sass_ftz(b) : b;
  }
  return sass_fmods(x, flags & SASS_ABS, flags & SASS_NEG);
}

/* The integer value of an integer source: I8, I16 or I32, at byte byte_sel,
 * sign- or zero-extended. */
static int64_t int_source(uint32_t b, unsigned fmt, unsigned is_signed, unsigned byte_sel) {
  if (fmt == SASS_I32) return is_signed ? (int64_t)(int32_t)b : (int64_t)b;
  unsigned w = fmt == SASS_I8 ? 8 : 16;
  uint32_t v = (b >> ((byte_sel & 3) * 8)) & ((1u << w) - 1);
  if (is_signed && (v >> (w - 1))) return (int64_t)v - ((int64_t)1 << w);
  return v;
}

static void int_range(unsigned fmt, unsigned is_signed, int64_t *lo, int64_t *hi) {
  unsigned w = fmt == SASS_I8 ? 8 : fmt == SASS_I16 ? 16 : 32;
  *lo = is_signed ? -((int64_t)1 << (w - 1)) : 0;
  *hi = is_signed ? ((int64_t)1 << (w - 1)) - 1 : ((int64_t)1 << w) - 1;
}

uint32_t sass_f2i(uint32_t b, unsigned src_fmt, unsigned dst_fmt, unsigned dst_signed, unsigned rnd, unsigned flags) {
  uint32_t x = float_source(b, src_fmt, flags);
  if (sass_is_nan(x)) return 0;
  int64_t lo, hi;
  int_range(dst_fmt, dst_signed, &lo, &hi);
  double r = round_integral(fl(x), rnd);
  int64_t v = r <= (double)lo ? lo : r >= (double)hi ? hi : (int64_t)r; /* Inf included */
  return (uint32_t)v; /* signed results sign-extended, unsigned zero-extended */
}

uint32_t sass_i2f(uint32_t b, unsigned src_fmt, unsigned src_signed, unsigned byte_sel, unsigned dst_fmt, unsigned rnd,
                  unsigned flags) {
  int64_t v = int_source(b, src_fmt, src_signed, byte_sel);
  if ((flags & SASS_ABS) && v < 0) v = -v;
  if (flags & SASS_NEG) v = -v;
  if (dst_fmt == SASS_F16) return round_f16((double)v, rnd);
  if (v == 0) return 0;
  return round_f32((double)v, 0, rnd & 3); /* |v| <= 2^32: exact in a double */
}

uint32_t sass_f2f(uint32_t b, unsigned src_fmt, unsigned dst_fmt, unsigned rnd, unsigned flags) {
  uint32_t x = float_source(b, src_fmt, flags);
  if (sass_is_nan(x)) {
    if (flags & SASS_SAT) return 0;
    return dst_fmt == SASS_F16 ? 0x7fffu : SASS_NAN;
  }
  if ((flags & SASS_INT) && src_fmt == dst_fmt && !isinf(fl(x))) x = bits((float)round_integral(fl(x), rnd));
  if (flags & SASS_SAT) x = sass_fsat(x);
  if (dst_fmt == SASS_F16) {
    uint32_t h = (src_fmt == SASS_F16) ? round_f16(fl(x), SASS_RND_RN) /* exact */ : sass_f2h(x, rnd);
    return (flags & SASS_FTZ) ? half_ftz(h) : h;
  }
  return (flags & SASS_FTZ) ? sass_ftz(x) : x;
}

uint32_t sass_i2i(uint32_t b, unsigned src_fmt, unsigned src_signed, unsigned byte_sel, unsigned dst_fmt,
                  unsigned dst_signed, unsigned flags) {
  uint32_t v = (uint32_t)int_source(b, src_fmt, src_signed, byte_sel);
  if ((flags & SASS_ABS) && src_signed && (v >> 31)) v = 0u - v; /* 32-bit: |INT32_MIN| wraps */
  if (flags & SASS_NEG) v = 0u - v;
  unsigned w = dst_fmt == SASS_I8 ? 8 : dst_fmt == SASS_I16 ? 16 : 32;
  if (flags & SASS_SAT) {
    int64_t x = src_signed ? (int64_t)(int32_t)v : (int64_t)v, lo, hi;
    int_range(dst_fmt, dst_signed, &lo, &hi);
    return (uint32_t)(x < lo ? lo : x > hi ? hi : x);
  }
  if (w == 32) return v;
  v &= (1u << w) - 1;
  if (dst_signed && (v >> (w - 1))) v |= ~((1u << w) - 1);
  return v;
}

int sass_cvt_supported(unsigned op, unsigned src_fmt, unsigned dst_fmt) {
  int fsrc = src_fmt == SASS_F16 || src_fmt == SASS_F32, fdst = dst_fmt == SASS_F16 || dst_fmt == SASS_F32;
  int isrc = src_fmt <= SASS_I32, idst = dst_fmt <= SASS_I32;
  switch (op) {
  case SASS_OP_F2I: return fsrc && (dst_fmt == SASS_I16 || dst_fmt == SASS_I32); /* no 8-bit form (yuzu, Ryujinx) */
  case SASS_OP_I2F: return isrc && fdst;
  case SASS_OP_F2F: return fsrc && fdst;
  case SASS_OP_I2I: return isrc && idst;
  default: return 0;
  }
}
