/* num.c — PICA200 numerics (num.h; the model is docs/pica-numerics.md). */
#include "isa/pica/num.h"

#include <math.h>
#include <stdint.h>
#include <string.h>
#include "isa/uop/uop.h"

/* The carrier's float and back (uop.h's lane helpers). */
static float fl(uint32_t u) { return gs_lane_f(u); }
static uint32_t bits(float f) { return gs_lane_u(f); }

/* ---- float24 <-> f32 -------------------------------------------------------- */

uint32_t pica_f24_to_f32(uint32_t w) {
  uint32_t s = (w & 0x800000u) << 8, e = (w >> 16) & 0x7f, mant = w & 0xffff;
  if (e == 127) return s | 0x7f800000u | (mant << 7);
  if (e == 0) return s | bits(ldexpf((float)mant, -78)); /* subnormal (or zero), exact */
  return s | ((e - 63 + 127) << 23) | (mant << 7);
}

uint32_t pica_f32_to_f24(uint32_t x) {
  uint32_t s = (x >> 8) & 0x800000u, e = (x >> 23) & 0xff, mant = x & 0x7fffff;
  if (e == 255) return s | 0x7f0000u | (mant ? 0x8000u | (mant >> 7) : 0);
  if (e >= 127 + 64) return s | 0x7f0000u;     /* 2^64 and above: infinity */
  if (e <= 127 - 63) return s;                 /* below 2^-62: zero of the sign */
  return s | ((e - 127 + 63) << 16) | (mant >> 7);
}

uint32_t pica_num_load(uint32_t x, pica_num_mode m) {
  return m == PICA_NUM_F32 ? x : pica_f24_to_f32(pica_f32_to_f24(x));
}

/* ---- rounding --------------------------------------------------------------- */

/* The rounding and the F24/F32 steps are num.h's lane forms. */
static double in24(uint32_t u) { return pica_in24(u); }
static uint32_t out24(double s, double e) { return pica_out24(s, e); }
static uint32_t out32(float f) { return pica_out32(f); }

/* ---- arithmetic -------------------------------------------------------------- */

uint32_t pica_add(uint32_t a, uint32_t b, pica_num_mode m) {
  return m == PICA_NUM_F32 ? pica_add_f32(a, b) : pica_add_f24(a, b);
}

uint32_t pica_mul(uint32_t a, uint32_t b, pica_num_mode m) {
  return m == PICA_NUM_F32 ? pica_mul_f32(a, b) : pica_mul_f24(a, b);
}

uint32_t pica_mad(uint32_t a, uint32_t b, uint32_t c, pica_num_mode m) {
  return m == PICA_NUM_F32 ? pica_mad_f32(a, b, c) : pica_mad_f24(a, b, c);
}

static uint32_t dot(const uint32_t a[4], const uint32_t b[4], int n, int dph, pica_num_mode m) {
  return m == PICA_NUM_F32 ? pica_dot_f32(a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3], n, dph)
                           : pica_dot_f24(a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3], n, dph);
}

uint32_t pica_dp3(const uint32_t a[4], const uint32_t b[4], pica_num_mode m) { return dot(a, b, 3, 0, m); }
uint32_t pica_dp4(const uint32_t a[4], const uint32_t b[4], pica_num_mode m) { return dot(a, b, 4, 0, m); }
uint32_t pica_dph(const uint32_t a[4], const uint32_t b[4], pica_num_mode m) { return dot(a, b, 4, 1, m); }

void pica_dst(const uint32_t a[4], const uint32_t b[4], uint32_t d[4], pica_num_mode m) {
  uint32_t y = pica_mul(a[1], b[1], m);
  d[0] = PICA_ONE;
  d[1] = y;
  d[2] = a[2];
  d[3] = b[3];
}

uint32_t pica_flr(uint32_t a, pica_num_mode m) {
  if (m == PICA_NUM_F32) return out32(floorf(fl(a)));
  return out24(floor(in24(a)), 0);
}

/* ---- selects and compares ---------------------------------------------------- */

uint32_t pica_max(uint32_t a, uint32_t b) { return pica_max_l(a, b); }
uint32_t pica_min(uint32_t a, uint32_t b) { return pica_min_l(a, b); }
uint32_t pica_sge(uint32_t a, uint32_t b) { return pica_sge_l(a, b); }
uint32_t pica_slt(uint32_t a, uint32_t b) { return pica_slt_l(a, b); }

int pica_cmp(uint32_t a, uint32_t b, unsigned op) {
  float x = fl(a), y = fl(b);
  switch (op & 7) {
  case 0: return x == y;
  case 1: return x != y;
  case 2: return x < y;
  case 3: return x <= y;
  case 4: return x > y;
  case 5: return x >= y;
  default: return 1;
  }
}

int pica_cond(unsigned condop, int refx, int refy, int cmpx, int cmpy) {
  int x = !cmpx == !refx, y = !cmpy == !refy;
  switch (condop & 3) {
  case 0: return x || y;
  case 1: return x && y;
  case 2: return x;
  default: return y;
  }
}

void pica_litp(const uint32_t s[4], uint32_t d[4], int cmp[2]) {
  const uint32_t lim = 0x42fffe00u; /* 127.99609375 = 0x7FFF / 0x100 */
  uint32_t y = s[1];
  if (fl(y) > fl(lim)) y = lim;
  if (fl(y) < -fl(lim)) y = lim | 0x80000000u;
  cmp[0] = fl(s[0]) >= 0.0f;
  cmp[1] = fl(s[3]) >= 0.0f;
  d[0] = pica_max(s[0], 0);
  d[1] = y;
  d[2] = 0;
  d[3] = pica_max(s[3], 0);
}

int32_t pica_mova(uint32_t a) {
  float f = fl(a);
  if (!(f > -2147483904.0f && f < 2147483648.0f)) return INT32_MIN; /* NaN, out of range */
  return (int32_t)f;
}

/* ---- transcendentals ---------------------------------------------------------- */

/* F24: the input as a double, subnormals flushed, -0 made +0; the result
 * computed in double is truncated like every other. */
static double tin(uint32_t a) {
  double d = in24(a);
  return d == 0 ? 0.0 : d;
}
/* F32: the input as a float, -0 made +0; the operation in float as
 * Citra's interpreter writes it. */
static float tin32(uint32_t a) {
  float f = fl(a);
  return f == 0 ? 0.0f : f;
}

uint32_t pica_rcp(uint32_t a, pica_num_mode m) {
  return m == PICA_NUM_F32 ? out32(1.0f / tin32(a)) : out24(1.0 / tin(a), 0);
}
uint32_t pica_rsq(uint32_t a, pica_num_mode m) {
  return m == PICA_NUM_F32 ? out32(1.0f / sqrtf(tin32(a))) : out24(1.0 / sqrt(tin(a)), 0);
}
uint32_t pica_ex2(uint32_t a, pica_num_mode m) {
  return m == PICA_NUM_F32 ? out32(exp2f(tin32(a))) : out24(exp2(tin(a)), 0);
}
uint32_t pica_lg2(uint32_t a, pica_num_mode m) {
  return m == PICA_NUM_F32 ? out32(log2f(tin32(a))) : out24(log2(tin(a)), 0);
}
