/* test_agx_num.c — the AGX numeric semantics (src/isa/agx/num.h) on their
 * own. Expected values are the published ones (the minifloat examples of
 * Mesa's agx_minifloat.h and its test, IEEE binary16/binary32 encodings of
 * familiar constants) or worked out by hand in binary from the model of
 * docs/agx-numerics.md; the comment on each says how. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "isa/agx/num.h"

static uint32_t U(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static double F(uint32_t u) { return agx_f32_in(u); }
static double H(uint32_t h) { return agx_f16_in(h); }

#define ONE 0x3f800000u
#define NZERO 0x80000000u
#define PINF 0x7f800000u
#define NINF 0xff800000u

/* The published minifloat examples; every code decodes to a distinct value
 * that encodes back to it (Mesa's test-minifloat round trip). */
static void test_minifloat(void **state) {
  (void)state;
  static const struct { unsigned code; double v; } t[] = {
      {0x00, 0.0}, {0x0F, 0.234375}, {0x20, 0.5}, {0x30, 1.0}, {0x40, 2.0}, {0x3F, 1.9375},
      {0x7F, 31.0}, {0x19, 0.390625}, {0x87, -0.109375}, {0x10, 0.25}, {0x01, 1.0 / 64}};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) assert_true(agx_minifloat(t[i].code) == t[i].v);
  assert_true(agx_minifloat(0x80) == 0 && signbit(agx_minifloat(0x80)));
  for (unsigned c = 0; c < 256; c++) assert_int_equal(agx_minifloat_encode(agx_minifloat(c)), (int)c);
  assert_int_equal(agx_minifloat_encode(0.3), -1);
  assert_int_equal(agx_minifloat_encode(32.0), -1);
  assert_int_equal(agx_minifloat_encode(-0.0), 0x80);
}

/* f32 subnormal operands flush to a zero of their sign; f16 ones stay. */
static void test_operands(void **state) {
  (void)state;
  assert_true(F(0x00000001u) == 0 && !signbit(F(0x00000001u)));
  assert_true(F(0x807fffffu) == 0 && signbit(F(0x807fffffu)));
  assert_true(F(0x00800000u) == 0x1p-126);
  assert_true(H(0x0001) == 0x1p-24);
  assert_true(H(0x8200) == -0x1p-15);
  /* abs then neg, on the flushed value */
  assert_true(agx_fmod(-2.0, 1, 1) == -2.0 && agx_fmod(-2.0, 1, 0) == 2.0 && agx_fmod(3.0, 0, 1) == -3.0);
  double z = agx_fmod(F(0x80000001u), 1, 0);
  assert_true(z == 0 && !signbit(z));
}

/* Round to nearest even once, ties by hand in binary. */
static void test_f32_rounding(void **state) {
  (void)state;
  /* 1 + 2^-24 is the tie between 1 and 1 + 2^-23: even, 1.0 */
  assert_int_equal(agx_fadd(1.0, 0x1p-24, AGX_R32, 0), ONE);
  assert_int_equal(agx_fadd(1.0, 0x1p-24 + 0x1p-47, AGX_R32, 0), ONE + 1);
  /* 3 x 0x3f000001 = 1.5 + 3 x 2^-24: the tie between 0x3fc00001 and
   * 0x3fc00002 (even) */
  double b = F(0x3f000001u);
  assert_int_equal(agx_fmul(3.0, b, AGX_R32, 0), 0x3fc00002u);
  /* ffma is fused: minus 2^-100 puts the exact value below the tie
   * (0x3fc00001), plus 2^-100 above it; a double-rounded sum (the product
   * plus 2^-100 in a double) would give 0x3fc00002 both times */
  assert_int_equal(agx_ffma(3.0, b, -0x1p-100, AGX_R32, 0), 0x3fc00001u);
  assert_int_equal(agx_ffma(3.0, b, 0x1p-100, AGX_R32, 0), 0x3fc00002u);
  /* (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24, exact only when fused */
  assert_int_equal(agx_ffma(1 + 0x1p-12, 1 + 0x1p-12, -1.0, AGX_R32, 0), U(0x1p-11f + 0x1p-24f));
  /* overflow */
  assert_int_equal(agx_fmul(0x1p127, 2.0, AGX_R32, 0), PINF);
  assert_int_equal(agx_fmul(-0x1p127, 2.0, AGX_R32, 0), NINF);
}

/* Results below 2^-126 become zeros of their sign, judged before rounding. */
static void test_f32_flush(void **state) {
  (void)state;
  assert_int_equal(agx_fmul(0x1p-63, 0x1p-64, AGX_R32, 0), 0);
  assert_int_equal(agx_fmul(-0x1p-63, 0x1p-64, AGX_R32, 0), NZERO);
  assert_int_equal(agx_fmul(0x1p-63, 0x1p-63, AGX_R32, 0), 0x00800000u);
  /* (1 - 2^-24) x 2^-126 would round up to 2^-126 with subnormals; below
   * 2^-126 before rounding, it flushes */
  assert_int_equal(agx_fmul(F(0x3f7fffffu), 0x1p-126, AGX_R32, 0), 0);
  /* 1.5 x 2^-126 - 2^-126 = 2^-127: flushed */
  assert_int_equal(agx_fadd(1.5 * 0x1p-126, -0x1p-126, AGX_R32, 0), 0);
}

/* f16: hadd/hmul round to f16 and keep subnormals; 32-bit ops with a
 * 16-bit destination round twice. */
static void test_f16(void **state) {
  (void)state;
  assert_int_equal(agx_fadd(H(0x3c00), H(0x1000), AGX_R16, 0), 0x3c00); /* 1 + 2^-11: tie, even */
  assert_int_equal(agx_fadd(H(0x3c00), H(0x1400), AGX_R16, 0), 0x3c01); /* 1 + 2^-10 */
  assert_int_equal(agx_fadd(H(0x0001), H(0x0001), AGX_R16, 0), 0x0002);  /* 2^-23 */
  assert_int_equal(agx_fmul(0x1p-12, 0x1p-12, AGX_R16, 0), 0x0001);      /* 2^-24 */
  assert_int_equal(agx_fmul(0x1p-13, 0x1p-12, AGX_R16, 0), 0x0000);      /* 2^-25: tie to 0 */
  assert_int_equal(agx_fmul(0x1p-13, -0x1p-12 * 1.5, AGX_R16, 0), 0x8001); /* -1.5 x 2^-25 */
  assert_int_equal(agx_fmul(256.0, 256.0, AGX_R16, 0), 0x7c00);          /* 65536: inf */
  assert_int_equal(agx_fadd(65504.0, 16.0, AGX_R16, 0), 0x7c00);         /* 65520 rounds up */
  assert_int_equal(agx_fadd(65504.0, 15.0, AGX_R16, 0), 0x7bff);
  /* 1 + 2^-11 + 2^-30: f32 rounding drops 2^-30, leaving the f16 tie
   * (1.0); straight to f16 it is above the tie (0x3c01) */
  double a = F(0x3f801000u), b = F(0x30800000u);
  assert_int_equal(agx_fadd(a, b, AGX_R32_16, 0), 0x3c00);
  assert_int_equal(agx_fadd(a, b, AGX_R16, 0), 0x3c01);
  /* a 32-bit op's subnormal f32 result flushes before it becomes an f16 */
  assert_int_equal(agx_fmul(0x1p-70, 0x1p-70, AGX_R32_16, 0), 0);
  /* hfma fused: 2^-12 x 2^-12 + 1 = 1 + 2^-24 -> 1.0 */
  assert_int_equal(agx_ffma(0x1p-12, 0x1p-12, 1.0, AGX_R16, 0), 0x3c00);
  assert_int_equal(agx_f32_to_f16(ONE), 0x3c00);
  assert_int_equal(agx_f32_to_f16(0x33800000u), 0x0001); /* 2^-24 */
  assert_int_equal(agx_f32_to_f16(0x7f800001u), 0x7e00);
}

/* NaN results are the default NaN; -0 through the fadd move idiom. */
static void test_nan_and_zero(void **state) {
  (void)state;
  assert_int_equal(agx_fadd(INFINITY, -INFINITY, AGX_R32, 0), 0x7fc00000u);
  assert_int_equal(agx_fmul(0.0, INFINITY, AGX_R32, 0), 0x7fc00000u);
  assert_int_equal(agx_ffma(0.0, INFINITY, 1.0, AGX_R32, 0), 0x7fc00000u);
  assert_int_equal(agx_ffma(2.0, INFINITY, -INFINITY, AGX_R32, 0), 0x7fc00000u);
  assert_int_equal(agx_fadd(F(0xff800001u), 1.0, AGX_R32, 0), 0x7fc00000u); /* a signalling NaN */
  assert_int_equal(agx_fadd(H(0x7d00), 1.0, AGX_R16, 0), 0x7e00);
  assert_int_equal(agx_fadd(NAN, 1.0, AGX_R32_16, 0), 0x7e00);
  /* fmov/fneg as fadd x, -0.0 keep -0 */
  assert_int_equal(agx_fadd(-0.0, -0.0, AGX_R32, 0), NZERO);
  assert_int_equal(agx_fadd(agx_fmod(0.0, 0, 1), -0.0, AGX_R32, 0), NZERO);
  assert_int_equal(agx_fadd(0.0, -0.0, AGX_R32, 0), 0);
  assert_int_equal(agx_fadd(1.0, -1.0, AGX_R32, 0), 0); /* exact cancellation: +0 */
  assert_int_equal(agx_fadd(F(0x12345678u), -0.0, AGX_R32, 0), 0x12345678u);
}

static void test_sat(void **state) {
  (void)state;
  assert_int_equal(agx_fadd(0.75, 0.5, AGX_R32, 1), ONE);
  assert_int_equal(agx_fadd(0.25, 0.25, AGX_R32, 1), 0x3f000000u);
  assert_int_equal(agx_fadd(-0.0, -0.0, AGX_R32, 1), 0);
  assert_int_equal(agx_fadd(-2.0, 0.0, AGX_R32, 1), 0);
  assert_int_equal(agx_fadd(NAN, 0.0, AGX_R32, 1), 0);
  assert_int_equal(agx_fadd(INFINITY, 0.0, AGX_R32, 1), ONE);
  assert_int_equal(agx_fadd(1.5, 0.0, AGX_R16, 1), 0x3c00);
  assert_int_equal(agx_fadd(-1.5, 0.0, AGX_R16, 1), 0);
  assert_int_equal(agx_fadd(NAN, 0.0, AGX_R32_16, 1), 0);
}

static uint32_t fu(unsigned op, double a) { return agx_funop(op, a, AGX_R32, 0); }

/* The rounding ops exactly, and every special value of num.h. */
static void test_funop(void **state) {
  (void)state;
  assert_int_equal(fu(AGX_FU_FLOOR, -0.5), 0xbf800000u);
  assert_int_equal(fu(AGX_FU_FLOOR, F(0x80000001u)), NZERO); /* flushed first: floor(-0) */
  assert_int_equal(fu(AGX_FU_CEIL, -0.5), NZERO);
  assert_int_equal(fu(AGX_FU_CEIL, 1.25), 0x40000000u);
  assert_int_equal(fu(AGX_FU_TRUNC, -1.5), 0xbf800000u);
  assert_int_equal(fu(AGX_FU_TRUNC, -0.5), NZERO);
  assert_int_equal(fu(AGX_FU_RINT, 0.5), 0);
  assert_int_equal(fu(AGX_FU_RINT, 1.5), 0x40000000u);
  assert_int_equal(fu(AGX_FU_RINT, 2.5), 0x40000000u);
  assert_int_equal(fu(AGX_FU_RINT, -0.5), NZERO);
  assert_int_equal(fu(AGX_FU_RINT, -2.5), 0xc0000000u);
  assert_int_equal(fu(AGX_FU_RINT, 2.5000002384185791), 0x40400000u);
  assert_int_equal(fu(AGX_FU_RINT, 0x1p30 + 0.5), U(0x1p30f));
  assert_int_equal(fu(AGX_FU_FLOOR, INFINITY), PINF);
  assert_int_equal(fu(AGX_FU_FLOOR, NAN), 0x7fc00000u);
  /* rcp */
  assert_int_equal(fu(AGX_FU_RCP, 2.0), 0x3f000000u);
  assert_int_equal(fu(AGX_FU_RCP, 3.0), 0x3eaaaaabu); /* 1/3 in binary32 */
  assert_int_equal(fu(AGX_FU_RCP, 0.0), PINF);
  assert_int_equal(fu(AGX_FU_RCP, -0.0), NINF);
  assert_int_equal(fu(AGX_FU_RCP, INFINITY), 0);
  assert_int_equal(fu(AGX_FU_RCP, -INFINITY), NZERO);
  assert_int_equal(fu(AGX_FU_RCP, 0x1p127), 0); /* 2^-127 flushes */
  assert_int_equal(agx_funop(AGX_FU_RCP, 3.0, AGX_R32_16, 0), 0x3555); /* 1/3 in binary16 */
  /* rsqrt and srsqrt */
  assert_int_equal(fu(AGX_FU_RSQRT, 4.0), 0x3f000000u);
  assert_int_equal(fu(AGX_FU_RSQRT, 0.0), PINF);
  assert_int_equal(fu(AGX_FU_RSQRT, -0.0), NINF);
  assert_int_equal(fu(AGX_FU_RSQRT, -1.0), 0x7fc00000u);
  assert_int_equal(fu(AGX_FU_RSQRT, INFINITY), 0);
  assert_int_equal(fu(AGX_FU_RSQRT, 2.0), 0x3f3504f3u); /* 1/sqrt(2) in binary32 */
  assert_int_equal(fu(AGX_FU_SRSQRT, 4.0), 0x3f000000u);
  assert_int_equal(fu(AGX_FU_SRSQRT, 0.0), 0);
  assert_int_equal(fu(AGX_FU_SRSQRT, -0.0), 0);
  assert_int_equal(fu(AGX_FU_SRSQRT, INFINITY), PINF);
  assert_int_equal(fu(AGX_FU_SRSQRT, -4.0), 0x7fc00000u);
  /* sqrt(x) = x * srsqrt(x) at 0 and inf */
  assert_int_equal(agx_fmul(0.0, F(fu(AGX_FU_SRSQRT, 0.0)), AGX_R32, 0), 0);
  assert_int_equal(agx_fmul(INFINITY, F(fu(AGX_FU_SRSQRT, INFINITY)), AGX_R32, 0), PINF);
  /* log2, exp2 */
  assert_int_equal(fu(AGX_FU_LOG2, 8.0), 0x40400000u);
  assert_int_equal(fu(AGX_FU_LOG2, 1.0), 0);
  assert_int_equal(fu(AGX_FU_LOG2, 0.0), NINF);
  assert_int_equal(fu(AGX_FU_LOG2, -0.0), NINF);
  assert_int_equal(fu(AGX_FU_LOG2, -1.0), 0x7fc00000u);
  assert_int_equal(fu(AGX_FU_LOG2, INFINITY), PINF);
  assert_int_equal(fu(AGX_FU_EXP2, 10.0), 0x44800000u);
  assert_int_equal(fu(AGX_FU_EXP2, -1.0), 0x3f000000u);
  assert_int_equal(fu(AGX_FU_EXP2, -INFINITY), 0);
  assert_int_equal(fu(AGX_FU_EXP2, INFINITY), PINF);
  assert_int_equal(fu(AGX_FU_EXP2, 128.0), PINF);
  assert_int_equal(fu(AGX_FU_EXP2, -126.0), 0x00800000u);
  assert_int_equal(fu(AGX_FU_EXP2, -127.0), 0); /* subnormal: flushed */
  /* sat on a special op */
  assert_int_equal(agx_funop(AGX_FU_EXP2, 1.0, AGX_R32, 1), ONE);
  /* dfdx is not a lane function */
  assert_true(isnan(agx_funop_value(AGX_FU_DFDX, 1.0)));
}

/* The sine steps: sin(2 pi x) = sin_pt_2(t) * t with t = sin_pt_1(4 fract(x)). */
static void test_sine(void **state) {
  (void)state;
  assert_true(agx_sin_pt_1(0.5) == 0.5 && agx_sin_pt_1(1.0) == 1.0 && agx_sin_pt_1(1.5) == 0.5);
  assert_true(agx_sin_pt_1(3.0) == -1.0 && agx_sin_pt_1(3.5) == -0.5 && agx_sin_pt_1(4.5) == 0.5);
  assert_true(agx_sin_pt_1(-0.5) == -0.5); /* -0.5 mod 4 = 3.5 */
  assert_true(isnan(agx_sin_pt_1(INFINITY)) && isnan(agx_sin_pt_2(NAN)));
  assert_true(fabs(agx_sin_pt_2(0.0) - 1.5707963267948966) < 1e-15);
  assert_true(agx_sin_pt_2(1.0) == 1.0);
  /* whole turns: q = 0.5 (45 degrees), 3.5 (315), 2 (180), 1 (90) */
  static const struct { double q, sin; } t[] = {
      {0.5, 0.70710678118654752}, {3.5, -0.70710678118654752}, {2.0, 0.0}, {1.0, 1.0}, {3.0, -1.0}};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    double s1 = F(fu(AGX_FU_SIN_PT_1, t[i].q));
    double s2 = F(fu(AGX_FU_SIN_PT_2, s1));
    assert_true(fabs(s1 * s2 - t[i].sin) < 1e-7);
  }
}

static void test_fcmp(void **state) {
  (void)state;
  assert_int_equal(agx_fcmp(0, -0.0, 0.0), 1);   /* feq: -0 == +0 */
  assert_int_equal(agx_fcmp(0, NAN, NAN), 0);
  assert_int_equal(agx_fcmp(8, NAN, NAN), 1);    /* fneq */
  assert_int_equal(agx_fcmp(1, 1.0, 2.0), 1);
  assert_int_equal(agx_fcmp(1, 1.0, NAN), 0);    /* flt: false on NaN */
  assert_int_equal(agx_fcmp(9, 1.0, NAN), 1);    /* fnlt */
  assert_int_equal(agx_fcmp(3, 1.0, NAN), 1);    /* fltn: the NaN loses */
  assert_int_equal(agx_fcmp(3, NAN, 1.0), 0);
  assert_int_equal(agx_fcmp(3, NAN, NAN), 0);
  assert_int_equal(agx_fcmp(3, -0.0, 0.0), 0);
  assert_int_equal(agx_fcmp(7, 1.0, NAN), 1);    /* fgtn */
  assert_int_equal(agx_fcmp(7, NAN, 1.0), 0);
  assert_int_equal(agx_fcmp(7, 2.0, 1.0), 1);
  assert_int_equal(agx_fcmp(2, 2.0, 1.0), 1);
  assert_int_equal(agx_fcmp(5, 1.0, 1.0), 1);    /* fgte */
  assert_int_equal(agx_fcmp(6, 2.0, 1.0), 0);    /* flte */
  assert_int_equal(agx_fcmp(13, NAN, 1.0), 1);   /* fngte */
  assert_int_equal(agx_fcmp(4, 1.0, 1.0), -1);
  assert_int_equal(agx_fcmp(12, 1.0, 1.0), -1);
}

static void test_icmp(void **state) {
  (void)state;
  assert_int_equal(agx_icmp(0, 0xffff, 16, 0xffffffffu, 32), 0); /* ieq zero-extends */
  assert_int_equal(agx_icmp(4, 0xffff, 16, 0xffffffffu, 32), 1); /* seq sign-extends */
  assert_int_equal(agx_icmp(1, 0xffff, 16, 1, 32), 0);           /* ult: 65535 < 1 */
  assert_int_equal(agx_icmp(5, 0xffff, 16, 1, 32), 1);           /* slt: -1 < 1 */
  assert_int_equal(agx_icmp(2, 0x80000000u, 32, 1, 32), 1);      /* ugt */
  assert_int_equal(agx_icmp(6, 0x80000000u, 32, 1, 32), 0);      /* sgt */
  assert_int_equal(agx_icmp(8, 3, 32, 3, 32), 0);                /* ine */
  assert_int_equal(agx_icmp(9, 3, 32, 3, 32), 1);                /* ugte */
  assert_int_equal(agx_icmp(10, 4, 32, 3, 32), 0);               /* ulte */
  assert_int_equal(agx_icmp(13, 0xfffffffeu, 32, 0xffffffffu, 32), 0); /* sgte: -2 >= -1 */
  assert_int_equal(agx_icmp(14, 0xfffffffeu, 32, 0xffffffffu, 32), 1); /* slte */
  assert_int_equal(agx_icmp(1, UINT64_C(0x100000000), 64, 1, 32), 0);
  assert_int_equal(agx_icmp(3, 0, 32, 0, 32), -1);
  assert_int_equal(agx_icmp(15, 0, 32, 0, 32), -1);
}

static void test_iadd(void **state) {
  (void)state;
  assert_int_equal(agx_iext(0xffff, 16, 1), UINT64_C(0xffffffffffffffff));
  assert_int_equal(agx_iext(0x18000, 16, 0), 0x8000);
  assert_int_equal(agx_iadd(0xffffffffu, 1, 0, 0, 32, 0, 0), 0);
  assert_int_equal(agx_iadd(0xffffffffu, 1, 0, 0, 32, 1, 0), 0xffffffffu);           /* unsigned sat */
  assert_int_equal(agx_iadd(0x7fffffffu, 1, 0, 0, 32, 1, 1), 0x7fffffffu);           /* signed sat */
  assert_int_equal(agx_iadd(agx_iext(0x80000000u, 32, 1), 1, 1, 0, 32, 1, 1), 0x80000000u);
  assert_int_equal(agx_iadd(1, 2, 1, 0, 32, 1, 0), 0);                                /* isub unsigned sat */
  assert_int_equal(agx_iadd(1, 2, 1, 0, 32, 0, 0), 0xffffffffu);                      /* wraps */
  assert_int_equal(agx_iadd(agx_iext(0xffff, 16, 1), 1, 1, 0, 32, 1, 1), 0xfffffffeu); /* -1 - 1 */
  assert_int_equal(agx_iadd(0x7fff, 1, 0, 0, 16, 1, 1), 0x7fff);                      /* 16-bit signed sat */
  assert_int_equal(agx_iadd(0xffff, 1, 0, 0, 16, 1, 0), 0xffff);
  assert_int_equal(agx_iadd(0xffff, 1, 0, 0, 16, 0, 0), 0);
  /* 64-bit pairs */
  assert_int_equal(agx_iadd(0xffffffffu, 1, 0, 0, 64, 0, 0), UINT64_C(0x100000000));
  assert_int_equal(agx_iadd(UINT64_C(0x1ffffffff), UINT64_C(0x100000001), 0, 0, 64, 0, 0), UINT64_C(0x300000000));
  assert_int_equal(agx_iadd(0, 1, 1, 0, 64, 0, 0), UINT64_C(0xffffffffffffffff));
  /* lsl */
  assert_int_equal(agx_iadd(1, 3, 0, 2, 32, 0, 0), 13);
  assert_int_equal(agx_iadd(10, 1, 1, 3, 32, 0, 0), 2);
  assert_int_equal(agx_iadd(1, 1, 0, 4, 32, 0, 0), 17);
  assert_int_equal(agx_iadd(1, 3, 0, 5, 32, 0, 0), 1); /* shift >= 5: no B term */
  assert_int_equal(agx_iadd(1, 3, 0, 7, 32, 0, 0), 1);
  /* iadd r0, r5.sx, r5.sx, lsl 1 with r5 = -3: -3 + -6 */
  uint64_t m3 = agx_iext(0xfffffffdu, 32, 1);
  assert_int_equal(agx_iadd(m3, m3, 0, 1, 32, 0, 0), 0xfffffff7u);
}

static void test_imad(void **state) {
  (void)state;
  /* imul dr6: the full 32 x 32 -> 64 product */
  assert_int_equal(agx_imad(0xffffffffu, 0xffffffffu, 0, 0, 0, 64, 0, 0), UINT64_C(0xfffffffe00000001));
  assert_int_equal(agx_imad(0xffffffffu, 0xffffffffu, 0, 0, 0, 32, 0, 0), 1);
  uint64_t m1 = agx_iext(0xffffffffu, 32, 1);
  assert_int_equal(agx_imad(m1, 5, 0, 0, 0, 64, 0, 0), UINT64_C(0xfffffffffffffffb)); /* -5 */
  assert_int_equal(agx_imad(3, 4, 1, 1, 1, 32, 0, 0), 10);                              /* 12 - (1 << 1) */
  assert_int_equal(agx_imad(3, 4, 5, 0, 0, 32, 0, 0), 17);
  assert_int_equal(agx_imad(0x10000, 0x10000, 0, 0, 0, 32, 1, 1), 0x7fffffffu);
  assert_int_equal(agx_imad(0x10000, 0x10000, 0, 0, 0, 32, 1, 0), 0xffffffffu);
  assert_int_equal(agx_imad(agx_iext(0x80000000u, 32, 1), 2, 0, 0, 0, 32, 1, 1), 0x80000000u);
  assert_int_equal(agx_imad(0xffffffffu, 0xffffffffu, 1, 1, 0, 32, 1, 0), 0xffffffffu);
  assert_int_equal(agx_imad(2, 3, 7, 1, 0, 32, 1, 0), 0); /* 6 - 7, unsigned */
}

static void test_shift_and_bitop(void **state) {
  (void)state;
  uint32_t d;
  assert_int_equal(agx_shift_op(AGX_SH_BFI, 0, 0x12, 8, 0, &d), 0), assert_int_equal(d, 0x1200);       /* shl */
  assert_int_equal(agx_shift_op(AGX_SH_BFI, 0xffffffffu, 0, 4, 4, &d), 0), assert_int_equal(d, 0xffffff0fu);
  assert_int_equal(agx_shift_op(AGX_SH_BFI, 0, 0xff, 28, 8, &d), 0), assert_int_equal(d, 0xf0000000u);
  assert_int_equal(agx_shift_op(AGX_SH_BFI, 0, 1, 32, 0, &d), 0), assert_int_equal(d, 0);
  assert_int_equal(agx_shift_op(AGX_SH_BFI, 0, 1, 0x81, 0, &d), 0), assert_int_equal(d, 2); /* C & 0x7f */
  assert_int_equal(agx_shift_op(AGX_SH_BFEIL, 0, 0x80000000u, 31, 0, &d), 0), assert_int_equal(d, 1); /* shr */
  assert_int_equal(agx_shift_op(AGX_SH_BFEIL, 0, 0xabcd, 4, 8, &d), 0), assert_int_equal(d, 0xbc);
  assert_int_equal(agx_shift_op(AGX_SH_BFEIL, 0xffffff00u, 0xabcd, 4, 8, &d), 0), assert_int_equal(d, 0xffffffbcu);
  assert_int_equal(agx_shift_op(AGX_SH_EXTR, 0x89abcdefu, 0x01234567u, 16, 0, &d), 0), assert_int_equal(d, 0x456789abu);
  assert_int_equal(agx_shift_op(AGX_SH_EXTR, 0x89abcdefu, 0x01234567u, 40, 0, &d), 0), assert_int_equal(d, 0x12345u);
  assert_int_equal(agx_shift_op(AGX_SH_ASR, 0x80000000u, 4, 0, 0, &d), 0), assert_int_equal(d, 0xf8000000u);
  assert_int_equal(agx_shift_op(AGX_SH_ASR, 0x80000000u, 40, 0, 0, &d), 0), assert_int_equal(d, 0xffffffffu);
  assert_int_equal(agx_shift_op(AGX_SH_ASR, 0x40000000u, 40, 0, 0, &d), 0), assert_int_equal(d, 0);
  assert_int_equal(agx_shift_op(AGX_SH_ASRH, 1, 4, 0, 0, &d), 0), assert_int_equal(d, 0x10000000u);
  assert_int_equal(agx_shift_op(AGX_SH_ASRH, 0x80000001u, 32, 0, 0, &d), 0), assert_int_equal(d, 0x80000001u);
  assert_int_equal(agx_shift_op(AGX_SH_ASRH, 0x80000000u, 36, 0, 0, &d), 0), assert_int_equal(d, 0xf8000000u);
  assert_int_equal(agx_shift_op(AGX_SH_SHLHI, 0, 0, 0, 0, &d), -1);
  assert_int_equal(agx_shift_op(AGX_SH_SHRHI, 0, 0, 0, 0, &d), -1);
  /* truth tables, tt3..tt0 as Mesa writes them */
  uint32_t a = 0xff00ff00u, b = 0xf0f0f0f0u;
  assert_int_equal(agx_bitop(0x8, a, b), a & b);
  assert_int_equal(agx_bitop(0xE, a, b), a | b);
  assert_int_equal(agx_bitop(0x6, a, b), a ^ b);
  assert_int_equal(agx_bitop(0x1, a, b), ~(a | b));
  assert_int_equal(agx_bitop(0x9, a, b), ~(a ^ b));
  assert_int_equal(agx_bitop(0x7, a, b), ~(a & b));
  assert_int_equal(agx_bitop(0x2, a, b), a & ~b); /* andn2 */
  assert_int_equal(agx_bitop(0x4, a, b), ~a & b); /* andn1 */
  assert_int_equal(agx_bitop(0xB, a, b), a | ~b); /* orn2 */
  assert_int_equal(agx_bitop(0xA, a, 0), a);      /* mov */
  assert_int_equal(agx_bitop(0x5, a, 0), ~a);     /* not */
  assert_int_equal(agx_bitop(0x0, a, b), 0);
  assert_int_equal(agx_bitop(0xF, a, b), 0xffffffffu);
}

static uint32_t cv(unsigned mode, unsigned round, uint32_t x, int src16, int dst16) {
  uint32_t d = 0xdeadbeefu;
  assert_int_equal(agx_convert(mode, round, x, src16, dst16, &d), 0);
  return d;
}

static void test_convert(void **state) {
  (void)state;
  assert_int_equal(cv(10, 1, 0xffffffffu, 0, 0), 0x4f800000u); /* 2^32 */
  assert_int_equal(cv(10, 0, 0xffffffffu, 0, 0), 0x4f7fffffu); /* 2^32 - 256 */
  assert_int_equal(cv(11, 1, 0xffffffffu, 0, 0), 0xbf800000u); /* -1 */
  assert_int_equal(cv(11, 0, 0x80000001u, 0, 0), 0xceffffffu); /* -(2^31 - 1) rtz: -(2^31 - 128) */
  assert_int_equal(cv(11, 2, 0x7fffffffu, 0, 0), 0x4effffffu); /* toward -inf */
  assert_int_equal(cv(11, 3, 0x7fffff81u, 0, 0), 0x4f000000u); /* toward +inf */
  assert_int_equal(cv(0, 1, 0x1ffu, 0, 0), 0x437f0000u);       /* u8: 255 */
  assert_int_equal(cv(1, 1, 0x80u, 0, 0), 0xc3000000u);        /* s8: -128 */
  assert_int_equal(cv(7, 1, 0x8000u, 0, 0), 0xc7000000u);      /* s16: -32768 */
  assert_int_equal(cv(6, 1, 0xffffu, 0, 1), 0x7c00);           /* u16 65535 -> f16: inf */
  assert_int_equal(cv(6, 0, 0xffffu, 0, 1), 0x7bff);           /* rtz: 65504 */
  assert_int_equal(cv(6, 1, 2049, 0, 1), 0x6800);              /* 2049: tie, even: 2048 */
  assert_int_equal(cv(6, 3, 2049, 0, 1), 0x6801);              /* toward +inf: 2050 */
  assert_int_equal(cv(7, 2, 0xf7ffu, 0, 1), 0xe801);           /* -2049 toward -inf: -2050 */
  assert_int_equal(cv(7, 0, 0xf7ffu, 0, 1), 0xe800);           /* toward zero: -2048 */
  assert_int_equal(cv(9, 1, U(2.5f), 0, 0), 2);
  assert_int_equal(cv(9, 1, U(3.5f), 0, 0), 4);
  assert_int_equal(cv(9, 0, U(-2.7f), 0, 0), 0xfffffffeu);
  assert_int_equal(cv(9, 2, U(-0.5f), 0, 0), 0xffffffffu);
  assert_int_equal(cv(9, 3, U(0.25f), 0, 0), 1);
  assert_int_equal(cv(9, 3, 0x00000001u, 0, 0), 0); /* a subnormal flushes before ceil */
  assert_int_equal(cv(8, 0, U(-1.0f), 0, 0), 0);
  assert_int_equal(cv(9, 0, U(3e9f), 0, 0), 0x7fffffffu);
  assert_int_equal(cv(9, 0, U(-3e9f), 0, 0), 0x80000000u);
  assert_int_equal(cv(8, 0, U(5e9f), 0, 0), 0xffffffffu);
  assert_int_equal(cv(9, 0, 0x7fc00000u, 0, 0), 0);
  assert_int_equal(cv(8, 0, PINF, 0, 0), 0xffffffffu);
  assert_int_equal(cv(4, 0, U(70000.0f), 0, 0), 0xffff);
  assert_int_equal(cv(5, 0, U(-1.0f), 0, 0), 0xffffffffu); /* s16 -1 in a 32-bit register */
  assert_int_equal(cv(5, 0, U(-1.0f), 0, 1), 0xffff);
  assert_int_equal(cv(5, 0, U(-40000.0f), 0, 1), 0x8000);
  assert_int_equal(cv(9, 1, 0x3e00, 1, 0), 2); /* f16 1.5 */
  uint32_t d;
  assert_int_equal(agx_convert(2, 0, 0, 0, 0, &d), -1);
  assert_int_equal(agx_convert(12, 0, 0, 0, 0, &d), -1);
}

static void test_formats(void **state) {
  (void)state;
  assert_int_equal(agx_fmt_size(AGX_FMT_I8), 1);
  assert_int_equal(agx_fmt_size(AGX_FMT_F16), 2);
  assert_int_equal(agx_fmt_size(AGX_FMT_I32), 4);
  assert_int_equal(agx_fmt_size(8), 0);
  assert_int_equal(agx_fmt_unpack(AGX_FMT_I8, 0x1ff, 0), 0xff);
  assert_int_equal(agx_fmt_unpack(AGX_FMT_I16, 0x18000, 0), 0x8000);
  assert_int_equal(agx_fmt_unpack(AGX_FMT_I32, 0x12345678u, 1), 0x5678);
  assert_int_equal(agx_fmt_unpack(AGX_FMT_F16, 0x3c00, 0), ONE);
  assert_int_equal(agx_fmt_unpack(AGX_FMT_F16, 0xbc00, 1), 0xbc00);
  assert_int_equal(agx_fmt_unpack(AGX_FMT_U8NORM, 255, 0), ONE);
  assert_int_equal(agx_fmt_unpack(AGX_FMT_U8NORM, 0, 0), 0);
  assert_int_equal(agx_fmt_unpack(AGX_FMT_U8NORM, 255, 1), 0x3c00);
  assert_int_equal(agx_fmt_unpack(AGX_FMT_S8NORM, 0x80, 0), 0xbf800000u); /* -128/127 clamps to -1 */
  assert_int_equal(agx_fmt_unpack(AGX_FMT_S8NORM, 0x81, 0), 0xbf800000u);
  assert_int_equal(agx_fmt_unpack(AGX_FMT_S8NORM, 0x7f, 0), ONE);
  assert_int_equal(agx_fmt_unpack(AGX_FMT_U16NORM, 0xffff, 0), ONE);
  assert_int_equal(agx_fmt_unpack(AGX_FMT_S16NORM, 0x8000, 0), 0xbf800000u);
  assert_int_equal(agx_fmt_unpack(AGX_FMT_U8NORM, 51, 0), U(0.2f)); /* 51/255 = 0.2 */
  assert_int_equal(agx_fmt_pack(AGX_FMT_U8NORM, ONE, 0), 255);
  assert_int_equal(agx_fmt_pack(AGX_FMT_U8NORM, U(0.5f), 0), 128); /* 127.5: even */
  assert_int_equal(agx_fmt_pack(AGX_FMT_U8NORM, U(2.0f), 0), 255);
  assert_int_equal(agx_fmt_pack(AGX_FMT_U8NORM, U(-1.0f), 0), 0);
  assert_int_equal(agx_fmt_pack(AGX_FMT_U8NORM, 0x7fc00000u, 0), 0);
  assert_int_equal(agx_fmt_pack(AGX_FMT_S8NORM, U(-1.0f), 0), 0x81);
  assert_int_equal(agx_fmt_pack(AGX_FMT_S16NORM, U(-2.0f), 0), 0x8001);
  assert_int_equal(agx_fmt_pack(AGX_FMT_U16NORM, 0x3c00, 1), 0xffff);
  assert_int_equal(agx_fmt_pack(AGX_FMT_F16, ONE, 0), 0x3c00);
  assert_int_equal(agx_fmt_pack(AGX_FMT_I8, 0x1234, 0), 0x34);
  assert_int_equal(agx_fmt_pack(AGX_FMT_I32, 0x12345678u, 0), 0x12345678u);
}

/* Against an independent oracle: for results above 2^-126 in magnitude
 * the model is IEEE binary32 rounding to nearest, which the host's float
 * +, * and fmaf compute (C's default environment). 200,000 random operand
 * sets, exponents spread over the whole range, subnormal inputs flushed
 * first on both sides. */
static uint64_t rs = 88172645463325252u;
static uint32_t rbits(void) {
  rs ^= rs << 13, rs ^= rs >> 7, rs ^= rs << 17;
  uint32_t u = (uint32_t)(rs >> 20);
  /* exponent near the middle half the time, so that sums cancel and round */
  return (rs & 1) ? (u & 0x807fffffu) | ((uint32_t)(120 + (rs >> 8) % 16) << 23) : u;
}
static uint32_t flushed(uint32_t x) { return (x & 0x7f800000u) ? x : x & 0x80000000u; }
static void test_random_vs_host(void **state) {
  (void)state;
  unsigned checked = 0;
  for (int i = 0; i < 200000; i++) {
    uint32_t a = flushed(rbits()), b = flushed(rbits()), c = flushed(rbits());
    float fa, fb, fc;
    memcpy(&fa, &a, 4), memcpy(&fb, &b, 4), memcpy(&fc, &c, 4);
    if (fa != fa || fb != fb || fc != fc) continue;
    float host[3] = {fa + fb, fa * fb, fmaf(fa, fb, fc)};
    uint32_t got[3] = {agx_fadd(fa, fb, AGX_R32, 0), agx_fmul(fa, fb, AGX_R32, 0), agx_ffma(fa, fb, fc, AGX_R32, 0)};
    for (int k = 0; k < 3; k++) {
      if (!(fabsf(host[k]) > 0x1p-126f) || host[k] != host[k]) continue;
      if (got[k] != U(host[k])) fail_msg("op %d of %08x %08x %08x: %08x, host %08x", k, a, b, c, got[k], U(host[k]));
      checked++;
    }
  }
  assert_true(checked > 400000);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_minifloat),   cmocka_unit_test(test_operands),   cmocka_unit_test(test_f32_rounding),
      cmocka_unit_test(test_f32_flush),   cmocka_unit_test(test_f16),        cmocka_unit_test(test_nan_and_zero),
      cmocka_unit_test(test_sat),         cmocka_unit_test(test_funop),      cmocka_unit_test(test_sine),
      cmocka_unit_test(test_fcmp),        cmocka_unit_test(test_icmp),       cmocka_unit_test(test_iadd),
      cmocka_unit_test(test_imad),        cmocka_unit_test(test_shift_and_bitop), cmocka_unit_test(test_convert),
      cmocka_unit_test(test_formats),     cmocka_unit_test(test_random_vs_host),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
