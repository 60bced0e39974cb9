/* test_pica_num.c — the PICA200 numeric semantics (src/isa/pica/num.h) on
 * their own. Expected values are the published ones (3dbrew's
 * floating-point table, aroulin/3ds-gpu-tests' hardware expectations
 * "FPTn", azahar's float24 test vectors), or worked out by hand in binary
 * from the model of docs/pica-numerics.md; the comment on each says which. */
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "isa/pica/num.h"
#include "isa/uop/uop.h"

#define F24 PICA_NUM_F24
#define F32 PICA_NUM_F32

#define ZERO 0x00000000u
#define NZERO 0x80000000u
#define ONE 0x3f800000u
#define MONE 0xbf800000u
#define TWO 0x40000000u
#define HALF 0x3f000000u
#define PINF 0x7f800000u
#define NINF 0xff800000u
#define QNAN 0x7fc00000u
#define NMIN 0x20800000u /* n: smallest f24 normal, 2^-62 */
#define SMAX 0x207fff00u /* s: largest f24 subnormal, (2^16 - 1) * 2^-78 */
#define SMIN 0x18800000u /* smallest f24 subnormal, 2^-78 */

static const pica_num_mode modes[2] = {F24, F32};

static int isnan_u(uint32_t u) { return (u & 0x7fffffffu) > 0x7f800000u; }
static uint32_t U(float f) { return gs_lane_u(f); }
static float F(uint32_t u) { return gs_lane_f(u); }

/* ---- float24 conversion ---------------------------------------------------- */

static void test_f24_to_f32(void **state) {
  (void)state;
  /* azahar tests/video_core/pica_types.cpp vectors (published values). */
  assert_int_equal(pica_f24_to_f32(0x3F0000), ONE);
  assert_int_equal(pica_f24_to_f32(0xBF0000), MONE);
  assert_int_equal(pica_f24_to_f32(0x3E0000), HALF);
  assert_int_equal(pica_f24_to_f32(0x3D0000), 0x3e800000u); /* 0.25 */
  assert_int_equal(pica_f24_to_f32(0x408000), 0x40400000u); /* 3.0 */
  assert_int_equal(pica_f24_to_f32(0x010000), NMIN);
  assert_int_equal(pica_f24_to_f32(0x7EFFFF), 0x5F7FFF80u);
  assert_int_equal(pica_f24_to_f32(0x800000), NZERO);
  assert_int_equal(pica_f24_to_f32(0x000000), ZERO);
  assert_int_equal(pica_f24_to_f32(0x7F0000), PINF);
  assert_int_equal(pica_f24_to_f32(0xFF0000), NINF);
  assert_int_equal(pica_f24_to_f32(0x000001), SMIN);
  assert_int_equal(pica_f24_to_f32(0x00FFFF), SMAX);
  assert_int_equal(pica_f24_to_f32(0x7F8000), QNAN);
  /* By hand: 0x80FFFF is -s; bits above 23 are ignored. */
  assert_int_equal(pica_f24_to_f32(0x80FFFF), SMAX | 0x80000000u);
  assert_int_equal(pica_f24_to_f32(0xAB3F0000u), ONE);
}

static void test_f32_to_f24(void **state) {
  (void)state;
  /* picasso's encoding (truncate): 0.1 -> 0x3B9999, 0.3 -> 0x3D3333. */
  assert_int_equal(pica_f32_to_f24(U(0.1f)), 0x3B9999);
  assert_int_equal(pica_f32_to_f24(U(0.3f)), 0x3D3333);
  /* The inverse of the exact vectors. */
  assert_int_equal(pica_f32_to_f24(ONE), 0x3F0000);
  assert_int_equal(pica_f32_to_f24(MONE), 0xBF0000);
  assert_int_equal(pica_f32_to_f24(0x40400000u), 0x408000);
  assert_int_equal(pica_f32_to_f24(NMIN), 0x010000);
  assert_int_equal(pica_f32_to_f24(0x5F7FFF80u), 0x7EFFFF);
  assert_int_equal(pica_f32_to_f24(PINF), 0x7F0000);
  assert_int_equal(pica_f32_to_f24(NINF), 0xFF0000);
  assert_int_equal(pica_f32_to_f24(NZERO), 0x800000);
  assert_int_equal(pica_f32_to_f24(QNAN), 0x7F8000);
  /* Rounding edges, by hand. The largest f32 below 2^64 (0x5F7FFFFF)
   * truncates to the largest f24; 2^64 (0x5F800000) is infinite. */
  assert_int_equal(pica_f32_to_f24(0x5F7FFFFFu), 0x7EFFFF);
  assert_int_equal(pica_f32_to_f24(0x5F800000u), 0x7F0000);
  assert_int_equal(pica_f32_to_f24(0xDF800000u), 0xFF0000);
  /* 1 + 2^-16 is exact, 1 + 2^-16 + 2^-17 truncates to it, 1 + 2^-17 to 1. */
  assert_int_equal(pica_f32_to_f24(0x3F800080u), 0x3F0001);
  assert_int_equal(pica_f32_to_f24(0x3F8000C0u), 0x3F0001);
  assert_int_equal(pica_f32_to_f24(0x3F800040u), 0x3F0000);
  assert_int_equal(pica_f32_to_f24(0xBF8000FFu), 0xBF0001); /* toward zero */
  /* Below 2^-62 flushes to the zero of the sign (2^-63 = 0x20000000). */
  assert_int_equal(pica_f32_to_f24(0x20000000u), 0x000000);
  assert_int_equal(pica_f32_to_f24(0xA0000000u), 0x800000);
  assert_int_equal(pica_f32_to_f24(0x207FFFFFu), 0x000000);
  assert_int_equal(pica_f32_to_f24(0x00000001u), 0x000000);
  /* A NaN whose payload is only in the 7 dropped bits stays a NaN. */
  assert_int_equal(pica_f32_to_f24(0x7F800001u), 0x7F8000);
  /* load: F24 rounds through the format, F32 keeps the bits. */
  assert_int_equal(pica_num_load(U(0.1f), F24), 0x3DCCCC80u);
  assert_int_equal(pica_num_load(U(0.1f), F32), U(0.1f));
  assert_int_equal(pica_num_load(0x20000000u, F24), ZERO);
  assert_int_equal(pica_num_load(U(1e20f), F24), PINF);
}

/* ---- Appendix A: the hardware special values ---------------------------------- */

/* Rows that hold in both modes. */
static void test_special_values(void **state) {
  (void)state;
  for (int i = 0; i < 2; i++) {
    pica_num_mode m = modes[i];
    assert_int_equal(pica_rcp(ZERO, m), PINF);  /* 1 */
    assert_int_equal(pica_rcp(NZERO, m), PINF); /* 2: no -0 on HW */
    assert_int_equal(pica_rcp(PINF, m), ZERO);  /* 3 */
    assert_true(isnan_u(pica_rcp(QNAN, m)));    /* 4 */
    assert_int_equal(pica_rsq(ZERO, m), PINF);  /* 5 */
    assert_int_equal(pica_rsq(NZERO, m), PINF); /* 6 */
    assert_int_equal(pica_rsq(ONE, m), ONE);    /* 7 */
    assert_true(isnan_u(pica_rsq(MONE, m)));    /* 8 */
    assert_true(isnan_u(pica_rsq(0xc0000000u, m)));
    assert_int_equal(pica_rsq(PINF, m), ZERO); /* 9 */
    assert_true(isnan_u(pica_rsq(NINF, m)));   /* 10 */
    assert_true(isnan_u(pica_rsq(QNAN, m)));   /* 11 */
    assert_true(isnan_u(pica_add(PINF, NINF, m)));      /* 22 */
    assert_int_equal(pica_mul(PINF, ZERO, m), ZERO);     /* 23 */
    assert_int_equal(pica_mul(ZERO, PINF, m), ZERO);
    assert_int_equal(pica_mul(NINF, ZERO, m), ZERO);
    assert_true(isnan_u(pica_mul(QNAN, ZERO, m)));       /* 24 */
    assert_true(isnan_u(pica_mul(ZERO, QNAN, m)));
    assert_int_equal(pica_mad(PINF, ZERO, ONE, m), ONE); /* 25 (FPT24) */
    assert_int_equal(pica_mad(PINF, ZERO, ZERO, m), ZERO); /* azahar MAD */
    {
      const uint32_t a[4] = {PINF, ONE, ZERO, ONE}, b[4] = {ZERO, ONE, PINF, ONE};
      assert_int_equal(pica_dp4(a, b, m), TWO); /* 26 */
    }
    {
      const uint32_t a[4] = {PINF, PINF, ZERO, ZERO}, b[4] = {ZERO, ZERO, PINF, ZERO};
      assert_int_equal(pica_dp3(a, b, m), ZERO); /* 27 */
    }
    {
      const uint32_t a[4] = {PINF, PINF, PINF, QNAN}, b[4] = {ZERO, ZERO, ZERO, ONE};
      assert_int_equal(pica_dph(a, b, m), ONE); /* 28: a.w is never read */
    }
    /* 30: -flr(-0.1) = 1 (the negation is the caller's sign flip). */
    assert_int_equal(pica_flr(pica_num_load(U(-0.1f), m), m) ^ 0x80000000u, ONE);
    assert_int_equal(pica_rsq(pica_rcp(NINF, m), m), PINF); /* 31 */
    assert_int_equal(pica_ex2(NINF, m), ZERO);                /* 32 */
    assert_int_equal(pica_lg2(pica_rcp(NINF, m), m), NINF);   /* 33 */
    assert_true(isnan_u(pica_lg2(MONE, m)));                   /* 34 */
    assert_int_equal(pica_lg2(ZERO, m), NINF);
    /* 40: mova 0.9 -> 0; truncation toward zero of negatives, by hand. */
    assert_int_equal(pica_mova(U(0.9f)), 0);
    assert_int_equal(pica_mova(U(-0.9f)), 0);
    assert_int_equal(pica_mova(U(-1.5f)), -1);
    assert_int_equal(pica_mova(U(127.99f)), 127);
    assert_int_equal(pica_mova(U(-128.0f)), -128);
    assert_int_equal(pica_mova(QNAN), INT32_MIN);
    assert_int_equal(pica_mova(PINF), INT32_MIN);
    assert_int_equal(pica_mova(U(3e9f)), INT32_MIN);
    assert_int_equal(pica_mova(0xcf000000u), INT32_MIN); /* -2^31 itself fits */
    /* 41: rcp(1, 10, 10) uses component 0 only: 1. rsq(100) ~ 0.1. */
    assert_int_equal(pica_rcp(ONE, m), ONE);
    assert_true(fabsf(F(pica_rsq(U(100.0f), m)) - 0.1f) < 1e-5f);
  }
}

/* Rows 12-21, 29, 35, 36: selects and compares, no mode. */
static void test_max_min_compare(void **state) {
  (void)state;
  assert_int_equal(pica_max(ZERO, PINF), PINF); /* 12 */
  /* 13: 3dbrew -inf, FPT10 0: the documented choice is the simple rule. */
  assert_int_equal(pica_max(ZERO, NINF), ZERO);
  assert_int_equal(pica_max(ZERO, QNAN), QNAN); /* 14 */
  assert_int_equal(pica_max(QNAN, ZERO), ZERO); /* 15 */
  assert_int_equal(pica_max(NINF, PINF), PINF); /* 16 */
  assert_int_equal(pica_min(ZERO, PINF), ZERO); /* 17 */
  assert_int_equal(pica_min(ZERO, NINF), NINF); /* 18 */
  assert_int_equal(pica_min(ZERO, QNAN), QNAN); /* 19 */
  assert_int_equal(pica_min(QNAN, ZERO), ZERO); /* 20 */
  assert_int_equal(pica_min(NINF, PINF), NINF); /* 21 */
  /* 29: SGE/SLT (and the I forms, same function) with a NaN: 0. */
  assert_int_equal(pica_sge(QNAN, ONE), ZERO);
  assert_int_equal(pica_sge(ONE, QNAN), ZERO);
  assert_int_equal(pica_sge(QNAN, QNAN), ZERO);
  assert_int_equal(pica_slt(QNAN, ONE), ZERO);
  assert_int_equal(pica_slt(ONE, QNAN), ZERO);
  /* SGE/SLT ordinary and big values (HWT sge "BigNums"). */
  assert_int_equal(pica_sge(ONE, ONE), ONE);
  assert_int_equal(pica_slt(ONE, ONE), ZERO);
  assert_int_equal(pica_sge(U(1e18f), U(-1e18f)), ONE);
  assert_int_equal(pica_slt(U(-1e18f), U(1e18f)), ONE);
  assert_int_equal(pica_sge(NZERO, ZERO), ONE);
  /* 35: cmp(s, 0) EQ is false: no flush. 36: max(s, 0) = s. */
  assert_false(pica_cmp(SMAX, ZERO, 0));
  assert_int_equal(pica_max(SMAX, ZERO), SMAX);
  assert_int_equal(pica_min(SMIN | 0x80000000u, ZERO), SMIN | 0x80000000u);
}

static void test_cmp_ops(void **state) {
  (void)state;
  /* Every op on (1,2), (2,2), (2,1) and a NaN: the truth table by hand. */
  static const struct {
    unsigned op;
    int lt, eq, gt, nan;
  } t[] = {
      {0, 0, 1, 0, 0}, {1, 1, 0, 1, 1}, {2, 1, 0, 0, 0}, {3, 1, 1, 0, 0},
      {4, 0, 0, 1, 0}, {5, 0, 1, 1, 0}, {6, 1, 1, 1, 1}, {7, 1, 1, 1, 1},
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    assert_int_equal(pica_cmp(ONE, TWO, t[i].op), t[i].lt);
    assert_int_equal(pica_cmp(TWO, TWO, t[i].op), t[i].eq);
    assert_int_equal(pica_cmp(TWO, ONE, t[i].op), t[i].gt);
    assert_int_equal(pica_cmp(QNAN, ONE, t[i].op), t[i].nan);
    assert_int_equal(pica_cmp(ONE, QNAN, t[i].op), t[i].nan);
  }
  assert_true(pica_cmp(NZERO, ZERO, 0));       /* -0 == +0 */
  assert_true(pica_cmp(NINF, U(-1e18f), 2));   /* -inf < anything finite */
  assert_int_equal(pica_cmp(ONE, TWO, 8 + 2), 1); /* masked to 3 bits */
  /* Conditions (CONDOP 0 OR, 1 AND, 2 X, 3 Y) against REFX/REFY. */
  for (int x = 0; x < 2; x++)
    for (int y = 0; y < 2; y++)
      for (int rx = 0; rx < 2; rx++)
        for (int ry = 0; ry < 2; ry++) {
          int mx = x == rx, my = y == ry;
          assert_int_equal(pica_cond(0, rx, ry, x, y), mx || my);
          assert_int_equal(pica_cond(1, rx, ry, x, y), mx && my);
          assert_int_equal(pica_cond(2, rx, ry, x, y), mx);
          assert_int_equal(pica_cond(3, rx, ry, x, y), my);
        }
}

/* Rows 37-39: flushing, which only F24 does; F32 computes IEEE values. */
static void test_flush(void **state) {
  (void)state;
  assert_int_equal(pica_mul(SMAX, TWO, F24), ZERO); /* 37 */
  assert_int_equal(pica_mul(SMAX, TWO, F32), 0x20ffff00u);
  assert_int_equal(pica_mul(NMIN, HALF, F24), ZERO); /* 38 */
  assert_int_equal(pica_mul(NMIN, HALF, F32), 0x20000000u);
  /* 39: 1.0 halved 62 times is 2^-62 (nonzero), the 63rd halving is 0. */
  uint32_t v = ONE;
  for (int i = 1; i <= 63; i++) {
    v = pica_mul(v, HALF, F24);
    if (i == 62) assert_int_equal(v, NMIN);
  }
  assert_int_equal(v, ZERO);
  /* Flushed inputs: s + n = n; flr(-s) = 0 in F24, -1 in F32. */
  assert_int_equal(pica_add(SMAX, NMIN, F24), NMIN);
  assert_int_equal(pica_flr(SMAX | 0x80000000u, F24), ZERO);
  assert_int_equal(pica_flr(SMAX | 0x80000000u, F32), MONE);
  assert_int_equal(pica_lg2(SMAX, F24), NINF);
  assert_int_equal(pica_rcp(SMAX, F24), PINF);
  /* No -0 from F24 arithmetic; F32 keeps IEEE's. */
  assert_int_equal(pica_mul(MONE, ZERO, F24), ZERO);
  assert_int_equal(pica_mul(MONE, ZERO, F32), NZERO);
  assert_int_equal(pica_add(NZERO, NZERO, F24), ZERO);
  assert_int_equal(pica_add(NZERO, NZERO, F32), NZERO);
  assert_int_equal(pica_flr(U(-0.0f), F24), ZERO);
}

/* ---- F24 rounding edges (by hand, in binary) ---------------------------------- */

static void test_f24_rounding(void **state) {
  (void)state;
  /* 1 + 2^-17 truncates to 1 (F32 keeps it: 0x3F800040). */
  assert_int_equal(pica_add(ONE, 0x37000000u, F24), ONE);
  assert_int_equal(pica_add(ONE, 0x37000000u, F32), 0x3F800040u);
  /* 1 + 2^-16 is representable. */
  assert_int_equal(pica_add(ONE, 0x37800000u, F24), 0x3F800080u);
  /* Toward zero for negatives: -1 - 2^-17 -> -1. */
  assert_int_equal(pica_add(MONE, 0xb7000000u, F24), MONE);
  /* 2^20 - 2^-40: the exact value lies just below 2^20, a double rounds it
   * to 2^20; truncation gives 1.1111111111111111b x 2^19 = 1048568. */
  assert_int_equal(pica_add(0x49800000u, 0xab800000u, F24), 0x497FFF80u);
  assert_int_equal(pica_add(0x49800000u, 0xab800000u, F32), 0x49800000u);
  /* (1 + 2^-16)^2 = 1 + 2^-15 + 2^-32 -> 1 + 2^-15 (0x3F800100). */
  assert_int_equal(pica_mul(0x3F800080u, 0x3F800080u, F24), 0x3F800100u);
  /* (2 - 2^-16)^2 = 4 - 2^-14 + 2^-32: 1.1111111111111110...b x 2^1, whose
   * 16 fraction bits are 0xFFFE, 3.99987793 = 0x407FFF00. */
  assert_int_equal(pica_mul(0x3FFFFF80u, 0x3FFFFF80u, F24), 0x407FFF00u);
  /* MAD is fused in F24: (1 + 2^-16)^2 - (1 + 2^-15) = 2^-32 exactly. */
  assert_int_equal(pica_mad(0x3F800080u, 0x3F800080u, 0xBF800100u, F24), 0x2F800000u);
  /* Overflow: 2^63 * 2 = 2^64 is infinite; the largest f24 survives. */
  assert_int_equal(pica_mul(0x5F000000u, TWO, F24), PINF);
  assert_int_equal(pica_mul(0x5F000000u, TWO, F32), 0x5F800000u);
  assert_int_equal(pica_mul(0x5F7FFF80u, ONE, F24), 0x5F7FFF80u);
  assert_int_equal(pica_add(0x5F7FFF80u, 0x5F7FFF80u, F24), PINF);
  assert_int_equal(pica_mul(0xDF000000u, TWO, F24), NINF);
  /* The largest f24 (2^64 - 2^47) plus half its ulp (2^46) is below 2^64:
   * truncated back; plus a whole ulp it is 2^64, infinite. */
  assert_int_equal(pica_add(0x5F7FFF80u, 0x56800000u, F24), 0x5F7FFF80u);
  assert_int_equal(pica_add(0x5F7FFF80u, 0x57000000u, F24), PINF);
  /* Underflow: 2^-31 * 2^-31 = 2^-62 stays; 2^-31 * (2^-32 - 2^-49) is
   * below 2^-62: 0. */
  assert_int_equal(pica_mul(0x30000000u, 0x30000000u, F24), NMIN);
  assert_int_equal(pica_mul(0x30000000u, 0x2F7FFF80u, F24), ZERO);
  /* 1.5 * 2^-62 - 2^-62 = 2^-63: a subnormal result, 0. */
  assert_int_equal(pica_add(0x20C00000u, 0xA0800000u, F24), ZERO);
  /* RCP by hand: 1/3 = 1.0101...b x 2^-2, 16 fraction bits 0x5555:
   * 0x3EAAAA80 in F24; 0x3EAAAAAB rounded to nearest in F32. */
  assert_int_equal(pica_rcp(0x40400000u, F24), 0x3EAAAA80u);
  assert_int_equal(pica_rcp(0x40400000u, F32), 0x3EAAAAABu);
  /* RSQ(100) = 0.1: 1.1001100110011001|1001...b x 2^-4 -> 0x3DCCCC80; F32
   * rounds to nearest, 0x3DCCCCCD. rsq(4) = 0.5 exactly. */
  assert_int_equal(pica_rsq(U(100.0f), F24), 0x3DCCCC80u);
  assert_int_equal(pica_rsq(U(100.0f), F32), 0x3DCCCCCDu);
  assert_int_equal(pica_rsq(U(4.0f), F24), HALF);
  /* EX2/LG2 at exact points, and sqrt(2) = 1.0110101000001001|111...b. */
  assert_int_equal(pica_ex2(U(10.0f), F24), 0x44800000u);
  assert_int_equal(pica_ex2(U(-62.0f), F24), NMIN);
  assert_int_equal(pica_ex2(U(-63.0f), F24), ZERO);
  assert_int_equal(pica_ex2(U(-63.0f), F32), 0x20000000u);
  assert_int_equal(pica_ex2(U(64.0f), F24), PINF);
  assert_int_equal(pica_ex2(HALF, F24), 0x3FB50480u); /* fraction bits 0x6A09 */
  assert_int_equal(pica_lg2(U(1024.0f), F24), 0x41200000u);
  assert_int_equal(pica_lg2(U(0.125f), F24), 0xC0400000u);
  assert_int_equal(pica_lg2(ONE, F24), ZERO);
  assert_int_equal(pica_lg2(PINF, F24), PINF);
  assert_int_equal(pica_ex2(PINF, F24), PINF);
  assert_true(isnan_u(pica_ex2(QNAN, F24)));
  /* Emulator-only expectations (Citra/azahar tests), F32. */
  assert_int_equal(pica_ex2(U(-800.0f), F32), ZERO);
  assert_int_equal(pica_ex2(U(800.0f), F32), PINF);
  assert_true(fabs(F(pica_lg2(U(1e24f), F32)) - 79.7262742773) < 1e-4);
  assert_true(fabs(F(pica_ex2(U(79.7262742773f), F32)) / 1e24 - 1) < 1e-4);
}

static void test_dot_dst_litp_flr(void **state) {
  (void)state;
  /* (1,2,3,4).(5,6,7,8) = 70; DP3 = 38; DPH = 5 + 12 + 21 + 8 = 46. */
  const uint32_t a[4] = {ONE, TWO, 0x40400000u, 0x40800000u};
  const uint32_t b[4] = {0x40a00000u, 0x40c00000u, 0x40e00000u, 0x41000000u};
  for (int i = 0; i < 2; i++) {
    assert_int_equal(pica_dp4(a, b, modes[i]), U(70.0f));
    assert_int_equal(pica_dp3(a, b, modes[i]), U(38.0f));
    assert_int_equal(pica_dph(a, b, modes[i]), U(46.0f));
  }
  /* F24 truncates each addition, left to right: (1 + 2^-17) + 2^-17 is
   * 1 then 1; F32 keeps both halves, 1 + 2^-16. */
  /* -0 products: F32 starts from +0 as Citra does, and (+0) + (-0) = +0;
   * F24 never makes -0. */
  const uint32_t m1[4] = {MONE, MONE, MONE, MONE}, z4[4] = {ZERO, ZERO, ZERO, ZERO};
  assert_int_equal(pica_dp3(m1, z4, F32), ZERO);
  assert_int_equal(pica_dp4(m1, z4, F24), ZERO);
  const uint32_t one3[4] = {ONE, ONE, ONE, ONE};
  const uint32_t tiny[4] = {ONE, 0x37000000u, 0x37000000u, ZERO};
  assert_int_equal(pica_dp3(one3, tiny, F24), ONE);
  assert_int_equal(pica_dp3(one3, tiny, F32), 0x3F800080u);
  /* DST: (1, a.y*b.y, a.z, b.w) = (1, 12, 3, 8). */
  uint32_t d[4];
  pica_dst(a, b, d, F24);
  assert_int_equal(d[0], ONE);
  assert_int_equal(d[1], U(12.0f));
  assert_int_equal(d[2], 0x40400000u);
  assert_int_equal(d[3], 0x41000000u);
  /* LITP: (max(x,0), clamp(y, +-127.99609375), 0, max(w,0)), flags x>=0, w>=0. */
  int c[2];
  const uint32_t s1[4] = {U(-2.0f), U(300.0f), U(5.0f), ZERO};
  pica_litp(s1, d, c);
  assert_int_equal(d[0], ZERO);
  assert_int_equal(d[1], U(127.99609375f));
  assert_int_equal(d[2], ZERO);
  assert_int_equal(d[3], ZERO);
  assert_int_equal(c[0], 0);
  assert_int_equal(c[1], 1);
  const uint32_t s2[4] = {U(3.0f), U(-1000.0f), ONE, U(-1.0f)};
  pica_litp(s2, d, c);
  assert_int_equal(d[0], U(3.0f));
  assert_int_equal(d[1], U(-127.99609375f));
  assert_int_equal(d[3], ZERO);
  assert_int_equal(c[0], 1);
  assert_int_equal(c[1], 0);
  const uint32_t s3[4] = {ZERO, U(5.5f), ZERO, ZERO};
  pica_litp(s3, d, c);
  assert_int_equal(d[1], U(5.5f));
  /* FLR per component; NaN and infinities come back. */
  for (int i = 0; i < 2; i++) {
    assert_int_equal(pica_flr(U(2.5f), modes[i]), TWO);
    assert_int_equal(pica_flr(U(-2.5f), modes[i]), U(-3.0f));
    assert_int_equal(pica_flr(PINF, modes[i]), PINF);
    assert_int_equal(pica_flr(NINF, modes[i]), NINF);
    assert_int_equal(pica_flr(QNAN, modes[i]), QNAN);
  }
}

/* ---- float24 arithmetic against an independent exact method ---------------- */

/* Random float24 values (as f32 bits) and exact sums, products and fused
 * sums in long double (64-bit significand: exact for the exponent spreads
 * drawn below), truncated by the host's own round-toward-zero conversion
 * to binary32 and then to 17 bits by clearing 7 bits. num.c never changes
 * the rounding mode; it gets there with doubles and TwoSum instead. */
#if LDBL_MANT_DIG >= 64
static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint32_t rnd(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)(rng >> 16);
}
/* A float24 normal with exponent e (unbiased) and a random sign and fraction. */
static uint32_t f24_at(int e) {
  uint32_t r = rnd();
  return (r & 0x80000000u) | (uint32_t)(e + 127) << 23 | (r & 0xffffu) << 7;
}
static int rnd_in(int lo, int hi) { return lo + (int)(rnd() % (uint32_t)(hi - lo + 1)); }
static uint32_t oracle(long double v) {
  if (isnan(v)) return QNAN;
  if (fabsl(v) >= 0x1p64L) return v < 0 ? NINF : PINF;
  if (fabsl(v) < 0x1p-62L) return ZERO;
  /* volatile: GCC otherwise moves the conversion past the second
   * fesetround even with -frounding-math. */
  volatile long double vv = v;
  fesetround(FE_TOWARDZERO);
  volatile float f = (float)vv;
  fesetround(FE_TONEAREST);
  return U(f) & ~0x7fu;
}
static long double L(uint32_t u) { return (long double)F(u); }
#endif

static void test_f24_exact(void **state) {
  (void)state;
#if LDBL_MANT_DIG >= 64
  for (int i = 0; i < 200000; i++) {
    /* Sums: b up to 80 binades below a. A double holds a + b exactly up to
     * about 36; past 53 it rounds to a itself, the case TwoSum corrects.
     * Past 40 b is below a's float24 ulp, so only its sign can matter: the
     * expected value takes 2^(e-30) of b's sign in its place, which a long
     * double adds exactly. */
    int e = rnd_in(-60, 62), eb = e - rnd_in(0, 80);
    if (eb < -62) eb = -62;
    uint32_t a = f24_at(e), b = f24_at(eb);
    long double bb = e - eb > 40 ? copysignl(ldexpl(1.0L, e - 30), L(b)) : L(b);
    assert_int_equal(pica_add(a, b, F24), oracle(L(a) + bb));
    assert_int_equal(pica_add(b, a, F24), oracle(L(a) + bb));
    /* Products, reaching past both ends of the range. */
    uint32_t x = f24_at(rnd_in(-62, 63)), y = f24_at(rnd_in(-62, 63));
    assert_int_equal(pica_mul(x, y, F24), oracle(L(x) * L(y)));
    /* Fused sums: c within 20 binades of the product. */
    uint32_t p = f24_at(rnd_in(-20, 20)), q = f24_at(rnd_in(-20, 20));
    int ep = ilogbl(L(p) * L(q));
    uint32_t c = f24_at(ep + rnd_in(-20, 20));
    assert_int_equal(pica_mad(p, q, c, F24), oracle(L(p) * L(q) + L(c)));
    /* RCP is exactly the truncated reciprocal; F32 rounds it to nearest. */
    assert_int_equal(pica_rcp(x, F24), oracle(1.0L / L(x)));
    assert_int_equal(pica_rcp(x, F32), U((float)(1.0L / L(x))));
  }
#else
  skip();
#endif
}

/* RSQ, EX2, LG2 in F24 lie within one float24 ulp of long double libm. */
static void test_f24_transcendental_accuracy(void **state) {
  (void)state;
#if LDBL_MANT_DIG >= 64
  for (int i = 0; i < 100000; i++) {
    uint32_t x = f24_at(rnd_in(-62, 63)) & 0x7fffffffu;
    uint32_t t = f24_at(rnd_in(-8, 5));
    struct {
      uint32_t r;
      long double exact;
    } c[3] = {{pica_rsq(x, F24), 1.0L / sqrtl(L(x))},
              {pica_lg2(x, F24), log2l(L(x))},
              {pica_ex2(t, F24), exp2l(L(t))}};
    for (int k = 0; k < 3; k++) {
      if (c[k].exact == 0 || fabsl(c[k].exact) < 0x1p-62L || fabsl(c[k].exact) >= 0x1p64L) continue;
      assert_int_equal(c[k].r & 0x7fu, 0); /* a float24 */
      long double ulp = ldexpl(1.0L, ilogbl(c[k].exact) - 16);
      assert_true(fabsl(L(c[k].r) - c[k].exact) < ulp);
    }
  }
#else
  skip();
#endif
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_f24_to_f32),      cmocka_unit_test(test_f32_to_f24),
      cmocka_unit_test(test_special_values),  cmocka_unit_test(test_max_min_compare),
      cmocka_unit_test(test_cmp_ops),         cmocka_unit_test(test_flush),
      cmocka_unit_test(test_f24_rounding),    cmocka_unit_test(test_dot_dst_litp_flr),
      cmocka_unit_test(test_f24_exact),       cmocka_unit_test(test_f24_transcendental_accuracy),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
