/* test_sass_num.c — the SASS numeric semantics (src/isa/sass/num.h) on their
 * own. Expected values are worked out by hand from IEEE 754 binary32/16 and
 * the model of docs/sass-numerics.md, or by an independent method written
 * here: the host's own IEEE arithmetic switched to each rounding mode with
 * fesetround (num.c never changes the mode; it rounds in software), long
 * double libm for MUFU, 64-bit integer arithmetic for the integer ops. */
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "isa/sass/num.h"
#include "isa/sass/sass.h"

#define ONE 0x3f800000u
#define MONE 0xbf800000u
#define TWO 0x40000000u
#define HALF 0x3f000000u
#define PINF 0x7f800000u
#define NINF 0xff800000u
#define PZ 0x00000000u
#define NZ 0x80000000u
#define FMAX 0x7f7fffffu
#define DMIN 0x00000001u /* smallest denormal, 2^-149 */
#define DBIG 0x007fffffu /* largest denormal */
#define NMIN 0x00800000u /* smallest normal, 2^-126 */
#define QNAN 0x7fc00000u
#define SNAN 0x7f800001u
#define NNAN 0xffc00123u /* a negative NaN with a payload */
#define ULP1 0x34000000u /* 2^-23: 1.0's ulp */
#define HULP1 0x33800000u /* 2^-24: half of it */

static float F(uint32_t u) { return gs_lane_f(u); }
static uint32_t U(float f) { return gs_lane_u(f); }

/* ---- a reference in the host's IEEE arithmetic, mode by mode ------------- */

static const int host_mode[4] = {FE_TONEAREST, FE_DOWNWARD, FE_UPWARD, FE_TOWARDZERO};
static uint32_t ref_canon(uint32_t r) { return sass_is_nan(r) ? SASS_NAN : r; }
static uint32_t ref_flush(uint32_t x) { return (x & 0x7f800000u) == 0 ? (x & 0x80000000u) : x; }

static uint32_t ref_op(int op, uint32_t a, uint32_t b, uint32_t c, unsigned rnd) {
  volatile float x = F(a), y = F(b), z = F(c), r;
  fesetround(host_mode[rnd]);
  if (op == 0) r = x + y;
  else if (op == 1) r = x * y;
  else r = fmaf(x, y, z);
  fesetround(FE_TONEAREST);
  return ref_canon(U(r));
}

static uint32_t rng_state = 0x2545f491u;
static uint32_t rnd32(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 17;
  rng_state ^= rng_state << 5;
  return rng_state;
}
/* Operands rich in special values, denormals, values near 1 and near the
 * overflow and underflow thresholds. */
static uint32_t rand_float(void) {
  static const uint32_t special[] = {PZ, NZ, ONE, MONE, PINF, NINF, FMAX, FMAX | NZ, DMIN, DMIN | NZ, DBIG, NMIN,
                                     NMIN | NZ, QNAN, SNAN, NNAN, HULP1, ULP1, TWO, HALF};
  uint32_t r = rnd32();
  switch (r % 6) {
  case 0: return special[(r >> 8) % (sizeof special / sizeof special[0])];
  case 1: return (rnd32() & 0x807fffffu) | 0x3f800000u; /* [1, 2) either sign */
  case 2: return (rnd32() & 0x807fffffu) | (uint32_t)(0x3f0 + (r >> 8) % 32) << 20; /* near 1 */
  case 3: return rnd32() & 0x80ffffffu; /* denormals and tiny normals */
  case 4: return (rnd32() & 0x807fffffu) | (uint32_t)(250 + (r >> 8) % 5) << 23; /* near overflow */
  default: return rnd32();
  }
}

/* ---- FADD / FMUL / FFMA ---------------------------------------------------- */

typedef struct frow {
  uint32_t a, b, c;
  unsigned rnd, flags;
  uint32_t want;
} frow;

static void test_fadd_table(void **state) {
  (void)state;
  /* Each by hand. 1 + 2^-24 is the tie between 1 and 1 + 2^-23; 1 + 1.5 * 2^-24
   * lies above it. */
  static const frow rows[] = {
      {ONE, ONE, 0, SASS_RND_RN, 0, TWO},
      {ONE, HULP1, 0, SASS_RND_RN, 0, ONE},                  /* tie to even */
      {ONE, HULP1, 0, SASS_RND_RP, 0, 0x3f800001u},
      {ONE, HULP1, 0, SASS_RND_RM, 0, ONE},
      {ONE, HULP1, 0, SASS_RND_RZ, 0, ONE},
      {0x3f800001u, HULP1, 0, SASS_RND_RN, 0, 0x3f800002u}, /* tie, odd below: up */
      {ONE, 0x33c00000u, 0, SASS_RND_RN, 0, 0x3f800001u},   /* above the tie */
      {MONE, HULP1 | NZ, 0, SASS_RND_RM, 0, 0xbf800001u},   /* -1 - 2^-24 down */
      {MONE, HULP1 | NZ, 0, SASS_RND_RZ, 0, MONE},
      {MONE, HULP1 | NZ, 0, SASS_RND_RP, 0, MONE},
      {ONE, 0x00000001u, 0, SASS_RND_RP, 0, 0x3f800001u},   /* a denormal still counts */
      {ONE, 0x00000001u, 0, SASS_RND_RP, SASS_FTZ, ONE},    /* ...unless flushed */
      {ONE, 0x80000001u, 0, SASS_RND_RM, 0, 0x3f7fffffu},
      {ONE, MONE, 0, SASS_RND_RN, 0, PZ},                   /* exact zero: +0 ... */
      {ONE, MONE, 0, SASS_RND_RZ, 0, PZ},
      {ONE, MONE, 0, SASS_RND_RP, 0, PZ},
      {ONE, MONE, 0, SASS_RND_RM, 0, NZ},                   /* ... but -0 toward -Inf */
      {NZ, NZ, 0, SASS_RND_RN, 0, NZ},
      {PZ, NZ, 0, SASS_RND_RN, 0, PZ},
      {PZ, NZ, 0, SASS_RND_RM, 0, NZ},
      {PZ, PZ, 0, SASS_RND_RM, 0, PZ},
      {FMAX, 0x73000000u, 0, SASS_RND_RN, 0, PINF},         /* FMAX + half its ulp (2^103): tie to even = Inf */
      {FMAX, 0x72800000u, 0, SASS_RND_RN, 0, FMAX},         /* + a quarter ulp */
      {FMAX, FMAX, 0, SASS_RND_RN, 0, PINF},
      {FMAX, FMAX, 0, SASS_RND_RZ, 0, FMAX},
      {FMAX, FMAX, 0, SASS_RND_RM, 0, FMAX},
      {FMAX, FMAX, 0, SASS_RND_RP, 0, PINF},
      {FMAX | NZ, FMAX | NZ, 0, SASS_RND_RP, 0, FMAX | NZ},
      {FMAX | NZ, FMAX | NZ, 0, SASS_RND_RM, 0, NINF},
      {FMAX, 0x72800000u, 0, SASS_RND_RP, 0, PINF},
      {PINF, FMAX | NZ, 0, SASS_RND_RZ, 0, PINF},           /* Inf is exact */
      {PINF, NINF, 0, SASS_RND_RN, 0, SASS_NAN},
      {QNAN, ONE, 0, SASS_RND_RN, 0, SASS_NAN},
      {NNAN, ONE, 0, SASS_RND_RN, 0, SASS_NAN},
      {SNAN, ONE, 0, SASS_RND_RZ, 0, SASS_NAN},
      {DBIG, DMIN, 0, SASS_RND_RN, 0, NMIN},                /* denormal + denormal = 2^-126 */
      {DBIG, DMIN, 0, SASS_RND_RN, SASS_FTZ, PZ},           /* both flushed */
      {NMIN, 0x80000002u, 0, SASS_RND_RN, 0, 0x007ffffeu},  /* a denormal result ... */
      {NMIN, 0x80000002u, 0, SASS_RND_RN, SASS_FTZ, NMIN},  /* the input flushed */
      {NMIN, NMIN | NZ | 1u, 0, SASS_RND_RN, SASS_FTZ, NZ}, /* 2^-126 - (2^-126 + 2^-149) = -2^-149: flushed to -0 */
      {HALF, HALF, 0, SASS_RND_RN, SASS_SAT, ONE},
      {ONE, ONE, 0, SASS_RND_RN, SASS_SAT, ONE},
      {MONE, HALF, 0, SASS_RND_RN, SASS_SAT, PZ},
      {NZ, NZ, 0, SASS_RND_RN, SASS_SAT, PZ},               /* -0 saturates to +0 */
      {PINF, NINF, 0, SASS_RND_RN, SASS_SAT, PZ},           /* NaN saturates to +0 */
      {HALF, 0x3e800000u, 0, SASS_RND_RN, SASS_SAT, 0x3f400000u},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    uint32_t got = sass_fadd(rows[i].a, rows[i].b, rows[i].rnd, rows[i].flags);
    /* the software path gives the fast path's round-to-nearest results too */
    uint32_t slow = sass_fadd_slow(rows[i].a, rows[i].b, rows[i].rnd, rows[i].flags);
    if (got != rows[i].want || slow != rows[i].want) {
      print_error("row %zu: fadd(0x%08x, 0x%08x) rnd %u flags %u = 0x%08x, want 0x%08x\n", i, rows[i].a, rows[i].b,
                  rows[i].rnd, rows[i].flags, got, rows[i].want);
      fail();
    }
  }
}

static void test_fmul_table(void **state) {
  (void)state;
  /* (1 + 2^-23)(1 + 2^-23) = 1 + 2^-22 + 2^-46: above 1 + 2^-22 by a hair */
  static const frow rows[] = {
      {0x3f800001u, 0x3f800001u, 0, SASS_RND_RN, 0, 0x3f800002u},
      {0x3f800001u, 0x3f800001u, 0, SASS_RND_RZ, 0, 0x3f800002u},
      {0x3f800001u, 0x3f800001u, 0, SASS_RND_RP, 0, 0x3f800003u},
      {0x3f800001u, 0xbf800001u, 0, SASS_RND_RM, 0, 0xbf800003u},
      {0x3f800001u, 0xbf800001u, 0, SASS_RND_RZ, 0, 0xbf800002u},
      {PZ, MONE, 0, SASS_RND_RN, 0, NZ},                  /* IEEE: the zero's sign is the xor */
      {PZ, PINF, 0, SASS_RND_RN, 0, SASS_NAN},
      {PZ, PINF, 0, SASS_RND_RN, SASS_FMZ, PZ},           /* .FMZ: 0 x Inf = +0 */
      {NZ, ONE, 0, SASS_RND_RN, SASS_FMZ, PZ},            /* +0 even for -0 x 1 */
      {QNAN, PZ, 0, SASS_RND_RN, SASS_FMZ, PZ},           /* 0 x NaN = +0 */
      {DMIN, QNAN, 0, SASS_RND_RN, SASS_FMZ, PZ},         /* a denormal is flushed to 0 first */
      {DMIN, PINF, 0, SASS_RND_RN, SASS_FTZ, SASS_NAN},   /* .FTZ alone: 0 x Inf = NaN */
      {DMIN, PINF, 0, SASS_RND_RN, 0, PINF},              /* no flush: denormal x Inf = Inf */
      {0x1f800000u, 0x1f800000u, 0, SASS_RND_RN, 0, 0x00200000u}, /* 2^-64 squared = 2^-128, a denormal */
      {NMIN, HALF, 0, SASS_RND_RN, 0, 0x00400000u},       /* 2^-127, denormal */
      {NMIN, HALF, 0, SASS_RND_RN, SASS_FTZ, PZ},
      {NMIN | NZ, HALF, 0, SASS_RND_RN, SASS_FTZ, NZ},
      {0x00000003u, HALF, 0, SASS_RND_RN, 0, 0x00000002u}, /* 1.5 x 2^-149: tie to even */
      {0x00000003u, HALF, 0, SASS_RND_RP, 0, 0x00000002u},
      {0x00000003u, HALF, 0, SASS_RND_RM, 0, 0x00000001u},
      {0x00000001u, HALF, 0, SASS_RND_RN, 0, PZ},         /* 2^-150: tie to even = 0 */
      {0x00000001u, HALF, 0, SASS_RND_RP, 0, 0x00000001u},
      {0x80000001u, HALF, 0, SASS_RND_RM, 0, 0x80000001u},
      {0x80000001u, HALF, 0, SASS_RND_RZ, 0, NZ},
      {FMAX, TWO, 0, SASS_RND_RZ, 0, FMAX},
      {FMAX, TWO, 0, SASS_RND_RN, 0, PINF},
      {TWO, 0x40400000u, 0, SASS_RND_RN, SASS_SAT, ONE},
      {MONE, TWO, 0, SASS_RND_RN, SASS_SAT, PZ},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    uint32_t want = rows[i].want;
    uint32_t got = sass_fmul(rows[i].a, rows[i].b, rows[i].rnd, rows[i].flags, SASS_SCALE_NONE);
    uint32_t slow = sass_fmul_slow(rows[i].a, rows[i].b, rows[i].rnd, rows[i].flags, SASS_SCALE_NONE);
    if (got != want || slow != want) {
      print_error("row %zu: fmul(0x%08x, 0x%08x) rnd %u flags %u = 0x%08x, want 0x%08x\n", i, rows[i].a, rows[i].b,
                  rows[i].rnd, rows[i].flags, got, want);
      fail();
    }
  }
  /* Post-scale: 3 x 5 = 15, scaled. */
  const uint32_t three = 0x40400000u, five = 0x40a00000u;
  assert_int_equal(sass_fmul(three, five, 0, 0, SASS_SCALE_D2), U(7.5f));
  assert_int_equal(sass_fmul(three, five, 0, 0, SASS_SCALE_D4), U(3.75f));
  assert_int_equal(sass_fmul(three, five, 0, 0, SASS_SCALE_D8), U(1.875f));
  assert_int_equal(sass_fmul(three, five, 0, 0, SASS_SCALE_M8), U(120.0f));
  assert_int_equal(sass_fmul(three, five, 0, 0, SASS_SCALE_M4), U(60.0f));
  assert_int_equal(sass_fmul(three, five, 0, 0, SASS_SCALE_M2), U(30.0f));
  /* One rounding after the scale: FMAX x 2 / 2 = FMAX, not Inf. */
  assert_int_equal(sass_fmul(FMAX, TWO, 0, 0, SASS_SCALE_D2), FMAX);
  /* (1 + 2^-23)^2 / 8 rounds once like the unscaled product. */
  assert_int_equal(sass_fmul(0x3f800001u, 0x3f800001u, SASS_RND_RP, 0, SASS_SCALE_D8), 0x3e000003u);
}

static void test_ffma_table(void **state) {
  (void)state;
  static const frow rows[] = {
      /* (1 + 2^-23)(1 - 2^-23) - 1 = -2^-46 exactly: fused, not 0 */
      {0x3f800001u, 0x3f7ffffeu, MONE, SASS_RND_RN, 0, 0xa8800000u},
      {ONE, ONE, ONE, SASS_RND_RN, 0, TWO},
      /* 1 x 1 + 2^-24: the tie again, in every mode */
      {ONE, ONE, HULP1, SASS_RND_RN, 0, ONE},
      {ONE, ONE, HULP1, SASS_RND_RP, 0, 0x3f800001u},
      /* (1 + 2^-23)^2 + (-1 - 2^-22) = 2^-46 */
      {0x3f800001u, 0x3f800001u, 0xbf800002u, SASS_RND_RN, 0, 0x28800000u},
      /* x*y + -(x*y) = exact zero: +0, -0 in RM */
      {TWO, 0x40400000u, 0xc0c00000u, SASS_RND_RN, 0, PZ},
      {TWO, 0x40400000u, 0xc0c00000u, SASS_RND_RM, 0, NZ},
      {NZ, ONE, NZ, SASS_RND_RN, 0, NZ},   /* -0 + -0 */
      {NZ, ONE, PZ, SASS_RND_RN, 0, PZ},
      {PZ, PINF, ONE, SASS_RND_RN, 0, SASS_NAN},
      {PZ, PINF, ONE, SASS_RND_RN, SASS_FMZ, ONE},  /* .FMZ: c */
      {PZ, QNAN, NZ, SASS_RND_RN, SASS_FMZ, NZ},    /* c exactly, -0 kept */
      {PZ, ONE, QNAN, SASS_RND_RN, SASS_FMZ, SASS_NAN},
      {DMIN, PINF, 0x40400000u, SASS_RND_RN, SASS_FMZ, 0x40400000u},
      {PINF, ONE, NINF, SASS_RND_RN, 0, SASS_NAN},
      {PINF, ONE, FMAX, SASS_RND_RZ, 0, PINF},
      /* FMAX x 2 - FMAX = FMAX: no intermediate overflow */
      {FMAX, TWO, FMAX | NZ, SASS_RND_RN, 0, FMAX},
      {ONE, ONE, MONE, SASS_RND_RN, SASS_SAT, PZ},
      {TWO, TWO, MONE, SASS_RND_RN, SASS_SAT, ONE},
      /* (2 + 2^-22)(1 - 2^-23) = 2 - 2^-45, + (2^25 + 4): just below the halfway
       * point 2^25 + 6, so 2^25 + 4; the double nearest the exact sum is that
       * halfway point, whose tie to even would give 2^25 + 8 */
      {0x40000001u, 0x3f7ffffeu, 0x4c000001u, SASS_RND_RN, 0, 0x4c000001u},
      {0x40000001u, 0x3f7ffffeu, 0x4c000001u, SASS_RND_RP, 0, 0x4c000002u},
      {0xc0000001u, 0x3f7ffffeu, 0xcc000001u, SASS_RND_RN, 0, 0xcc000001u},
      /* FMAX + 2^103 - 2^57: just below the overflow threshold 2^128 - 2^103 */
      {0x73000001u, 0x3f7ffffeu, FMAX, SASS_RND_RN, 0, FMAX},
      {0x73000001u, 0x3f7ffffeu, FMAX, SASS_RND_RP, 0, PINF},
      {0xf3000001u, 0x3f7ffffeu, FMAX | NZ, SASS_RND_RN, 0, FMAX | NZ},
      /* FTZ on the result: 2^-126 x 0.5 + 0 = 2^-127 -> +0 */
      {NMIN, HALF, PZ, SASS_RND_RN, SASS_FTZ, PZ},
      {NMIN, HALF, PZ, SASS_RND_RN, 0, 0x00400000u},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    uint32_t got = sass_ffma(rows[i].a, rows[i].b, rows[i].c, rows[i].rnd, rows[i].flags);
    uint32_t slow = sass_ffma_slow(rows[i].a, rows[i].b, rows[i].c, rows[i].rnd, rows[i].flags);
    if (got != rows[i].want || slow != rows[i].want) {
      print_error("row %zu: ffma(0x%08x, 0x%08x, 0x%08x) rnd %u flags %u = 0x%08x, want 0x%08x\n", i, rows[i].a,
                  rows[i].b, rows[i].c, rows[i].rnd, rows[i].flags, got, rows[i].want);
      fail();
    }
  }
}

/* The software rounding against the host's hardware rounding, mode by mode,
 * over 200,000 operand triples per operation, without and with .FTZ and .SAT. */
static void test_float_random_modes(void **state) {
  (void)state;
  static const char *name[3] = {"fadd", "fmul", "ffma"};
  for (int op = 0; op < 3; op++) {
    for (int i = 0; i < 200000; i++) {
      uint32_t a = rand_float(), b = rand_float(), c = rand_float();
      unsigned rnd = rnd32() & 3, flags = rnd32() % 3 == 0 ? (rnd32() & (SASS_FTZ | SASS_SAT)) : 0;
      uint32_t fa = a, fb = b, fc = c;
      if (flags & SASS_FTZ) fa = ref_flush(a), fb = ref_flush(b), fc = ref_flush(c);
      uint32_t want = ref_op(op, fa, fb, fc, rnd);
      if (flags & SASS_FTZ) want = ref_flush(want);
      if (flags & SASS_SAT) want = sass_is_nan(want) || (want >> 31) ? 0 : (F(want) > 1.0f ? ONE : want);
      uint32_t got = op == 0   ? sass_fadd(a, b, rnd, flags)
                     : op == 1 ? sass_fmul(a, b, rnd, flags, 0)
                               : sass_ffma(a, b, c, rnd, flags);
      uint32_t slow = op == 0   ? sass_fadd_slow(a, b, rnd, flags)
                      : op == 1 ? sass_fmul_slow(a, b, rnd, flags, 0)
                                : sass_ffma_slow(a, b, c, rnd, flags);
      if (got != want || slow != want) {
        print_error("%s(0x%08x, 0x%08x, 0x%08x) rnd %u flags %u = 0x%08x (software 0x%08x), host 0x%08x\n",
                    name[op], a, b, c, rnd, flags, got, slow, want);
        fail();
      }
    }
  }
  /* FFMA near halfway points: c in [1, 2) x 2^k, a x b within a few of its
   * ulps of half an ulp of c, or below it by less than a double's ulp, so
   * that the exact sum lies next to the point halfway between two floats. */
  for (int i = 0; i < 200000; i++) {
    int k = (int)(rnd32() % 60) - 30;
    float c = ldexpf(1.0f + (float)(rnd32() & 0x7fffff) * 0x1p-23f, k);
    float a = 1.0f + (float)(rnd32() & 0x7fffff) * 0x1p-23f;
    float b = ldexpf(1.0f, k - 24) / a;            /* a x b close to half c's ulp */
    b = nextafterf(b, (rnd32() & 1) ? INFINITY : 0.0f);
    if (i & 1) { /* (1 + u) x h(1 - u) = h - h u^2: the double sum is the halfway point itself */
      float u = ldexpf(1.0f, -(int)(12 + rnd32() % 12));
      a = 1.0f + u;
      b = ldexpf(1.0f - u, k - 24);
    }
    if (rnd32() & 1) c = -c;
    if (rnd32() & 1) a = -a;
    unsigned rnd = rnd32() & 3;
    uint32_t want = ref_op(2, U(a), U(b), U(c), rnd), got = sass_ffma(U(a), U(b), U(c), rnd, 0);
    uint32_t slow = sass_ffma_slow(U(a), U(b), U(c), rnd, 0);
    if (got != want || slow != want) {
      print_error("ffma(%a, %a, %a) rnd %u = 0x%08x (software 0x%08x), host 0x%08x\n", (double)a, (double)b,
                  (double)c, rnd, got, slow, want);
      fail();
    }
  }
}

static void test_float_modifiers(void **state) {
  (void)state;
  /* Negation and absolute value are sign-bit operations, on NaN too. */
  assert_int_equal(sass_fneg(ONE), MONE);
  assert_int_equal(sass_fneg(PZ), NZ);
  assert_int_equal(sass_fneg(QNAN), 0xffc00000u);
  assert_int_equal(sass_fabs(NNAN), 0x7fc00123u);
  assert_int_equal(sass_fmods(MONE, 1, 1), MONE); /* -|x| */
  assert_int_equal(sass_fmods(MONE, 1, 0), ONE);
  assert_int_equal(sass_fmods(ONE, 0, 1), MONE);
  assert_int_equal(sass_ftz(DBIG | NZ), NZ);
  assert_int_equal(sass_ftz(NMIN), NMIN);
  assert_int_equal(sass_fsat(0x3f800001u), ONE);
  assert_int_equal(sass_fsat(DMIN), DMIN);
  assert_int_equal(sass_fsat(PINF), ONE);
  assert_int_equal(sass_fsat(NINF), PZ);
  assert_int_equal(sass_fsat(QNAN), PZ);
  /* The RN fast paths give the canonical NaN too. */
  assert_int_equal(sass_fadd(NNAN, ONE, 0, 0), SASS_NAN);
  assert_int_equal(sass_fmul(PZ, NINF, 0, 0, 0), SASS_NAN);
  assert_int_equal(sass_ffma(ONE, QNAN, ONE, 0, 0), SASS_NAN);
  /* RRO is the identity. */
  assert_int_equal(sass_rro(0x40490fdbu), 0x40490fdbu);
}

/* ---- compares -------------------------------------------------------------- */

static void test_fcmp(void **state) {
  (void)state;
  /* For each pair, the relation (less, equal, greater, unordered) by hand; the
   * 16 compares then follow from their names. */
  static const struct {
    uint32_t a, b;
    char rel; /* '<', '=', '>', 'u' */
    unsigned ftz;
  } pairs[] = {
      {ONE, TWO, '<', 0},  {TWO, TWO, '=', 0},  {TWO, ONE, '>', 0},  {QNAN, ONE, 'u', 0}, {ONE, NNAN, 'u', 0},
      {PZ, NZ, '=', 0},    {NINF, FMAX | NZ, '<', 0}, {PINF, PINF, '=', 0}, {DMIN, PZ, '>', 0},
      {DMIN, PZ, '=', 1},  {DMIN | NZ, DBIG, '=', 1}, {DMIN | NZ, DBIG, '<', 0}, {SNAN, SNAN, 'u', 0},
  };
  static const char *names[16] = {"F", "LT", "EQ", "LE", "GT", "NE", "GE", "NUM",
                                   "NAN", "LTU", "EQU", "LEU", "GTU", "NEU", "GEU", "T"};
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
    char rel = pairs[i].rel;
    unsigned want[16] = {
        0,          rel == '<', rel == '=', rel == '<' || rel == '=', rel == '>', rel == '<' || rel == '>',
        rel == '>' || rel == '=', rel != 'u', rel == 'u', rel == 'u' || rel == '<', rel == 'u' || rel == '=',
        rel != '>', rel == 'u' || rel == '>', rel != '=', rel != '<', 1};
    for (unsigned c = 0; c < 16; c++) {
      unsigned got = sass_fcmp(c, pairs[i].a, pairs[i].b, pairs[i].ftz);
      if (got != want[c]) {
        print_error("FSETP.%s 0x%08x, 0x%08x (ftz %u) = %u\n", names[c], pairs[i].a, pairs[i].b, pairs[i].ftz, got);
        fail();
      }
    }
  }
  /* FCMP: (c cmp 0) ? a : b */
  assert_int_equal(sass_fcmp_sel(SASS_FCMP_GT, 0x11111111u, 0x22222222u, ONE, 0), 0x11111111u);
  assert_int_equal(sass_fcmp_sel(SASS_FCMP_GT, 0x11111111u, 0x22222222u, NZ, 0), 0x22222222u);
  assert_int_equal(sass_fcmp_sel(SASS_FCMP_EQ, 0x11111111u, 0x22222222u, NZ, 0), 0x11111111u);
  assert_int_equal(sass_fcmp_sel(SASS_FCMP_GTU, 0x11111111u, 0x22222222u, QNAN, 0), 0x11111111u);
  assert_int_equal(sass_fcmp_sel(SASS_FCMP_GT, 0x11111111u, 0x22222222u, DMIN, 1), 0x22222222u);
}

static void test_predicates(void **state) {
  (void)state;
  for (unsigned x = 0; x < 2; x++)
    for (unsigned y = 0; y < 2; y++) {
      assert_int_equal(sass_bop(SASS_BOP_AND, x, y), x && y);
      assert_int_equal(sass_bop(SASS_BOP_OR, x, y), x || y);
      assert_int_equal(sass_bop(SASS_BOP_XOR, x, y), x != y);
      /* FSETP/ISETP: Pd = r BOP pc, Pd2 = !r BOP pc */
      for (unsigned bop = 0; bop < 3; bop++) {
        unsigned want = sass_bop(bop, x, y) | sass_bop(bop, !x, y) << 1;
        assert_int_equal(sass_setp(bop, x, y), want);
      }
    }
  /* The usual compiler forms: FSETP.GT.AND P0, P1, a, b, PT gives P0 = cmp,
   * P1 = !cmp. */
  assert_int_equal(sass_setp(SASS_BOP_AND, 1, 1), 1);
  assert_int_equal(sass_setp(SASS_BOP_AND, 0, 1), 2);
  /* With !PT (false) and AND both are false; with OR, PT makes both true. */
  assert_int_equal(sass_setp(SASS_BOP_AND, 1, 0), 0);
  assert_int_equal(sass_setp(SASS_BOP_OR, 0, 1), 3);
  /* PSETP: (pa BOP1 pb) BOP2 pc and (!pa BOP1 pb) BOP2 pc, all 8 inputs for
   * AND/OR, OR/AND, XOR/AND by hand */
  for (unsigned v = 0; v < 8; v++) {
    unsigned pa = v & 1, pb = v >> 1 & 1, pc = v >> 2;
    assert_int_equal(sass_psetp(SASS_BOP_AND, SASS_BOP_OR, pa, pb, pc), ((pa && pb) || pc) | ((!pa && pb) || pc) << 1);
    assert_int_equal(sass_psetp(SASS_BOP_OR, SASS_BOP_AND, pa, pb, pc), ((pa || pb) && pc) | ((!pa || pb) && pc) << 1);
    assert_int_equal(sass_psetp(SASS_BOP_XOR, SASS_BOP_AND, pa, pb, pc), ((pa != pb) && pc) | (((!pa) != pb) && pc) << 1);
  }
  /* FSET */
  assert_int_equal(sass_fset(1, 1), ONE);
  assert_int_equal(sass_fset(1, 0), 0xffffffffu);
  assert_int_equal(sass_fset(0, 1), 0);
  assert_int_equal(sass_fset(0, 0), 0);
  assert_int_equal(sass_fset_cc(0, 0), SASS_FL_Z);
  assert_int_equal(sass_fset_cc(0xffffffffu, 0), SASS_FL_S);
  assert_int_equal(sass_fset_cc(ONE, 1), 0);
}

static void test_fmnmx(void **state) {
  (void)state;
  assert_int_equal(sass_fmnmx(ONE, TWO, 1, 0), ONE);
  assert_int_equal(sass_fmnmx(ONE, TWO, 0, 0), TWO);
  assert_int_equal(sass_fmnmx(QNAN, MONE, 1, 0), MONE); /* minNum: the number */
  assert_int_equal(sass_fmnmx(MONE, NNAN, 0, 0), MONE);
  assert_int_equal(sass_fmnmx(QNAN, NNAN, 1, 0), SASS_NAN);
  assert_int_equal(sass_fmnmx(PZ, NZ, 1, 0), NZ);
  assert_int_equal(sass_fmnmx(NZ, PZ, 1, 0), NZ);
  assert_int_equal(sass_fmnmx(PZ, NZ, 0, 0), PZ);
  assert_int_equal(sass_fmnmx(NZ, PZ, 0, 0), PZ);
  assert_int_equal(sass_fmnmx(NINF, FMAX, 1, 0), NINF);
  assert_int_equal(sass_fmnmx(DMIN, PZ, 0, 0), DMIN);
  assert_int_equal(sass_fmnmx(DMIN, DMIN | NZ, 0, 1), PZ); /* both flushed: +0 above -0 */
}

static void test_icmp(void **state) {
  (void)state;
  static const struct {
    uint32_t a, b;
    unsigned is_signed;
    char rel;
  } pairs[] = {
      {1, 2, 1, '<'}, {2, 2, 1, '='}, {0xffffffffu, 1, 1, '<'}, {0xffffffffu, 1, 0, '>'},
      {0x80000000u, 0x7fffffffu, 1, '<'}, {0x80000000u, 0x7fffffffu, 0, '>'}, {0, 0, 0, '='},
  };
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
    char rel = pairs[i].rel;
    unsigned want[8] = {0, rel == '<', rel == '=', rel != '>', rel == '>', rel != '=', rel != '<', 1};
    for (unsigned c = 0; c < 8; c++) assert_int_equal(sass_icmp(c, pairs[i].a, pairs[i].b, pairs[i].is_signed), want[c]);
  }
  /* ISETP.X after IADD.CC RZ, lo_a, -lo_b compares 64-bit values: against
   * the host's 64-bit compare over random pairs with equal or near words. */
  for (int i = 0; i < 100000; i++) {
    uint64_t x = (uint64_t)rnd32() << 32 | rnd32(), y = (uint64_t)rnd32() << 32 | rnd32();
    switch (i % 4) {
    case 1: y = (y & 0xffffffffu) | (x & 0xffffffff00000000u); break; /* equal high words */
    case 2: y = x; break;
    case 3: y = x + (rnd32() % 3) - 1; break;
    default: break;
    }
    unsigned cc;
    (void)sass_iadd((uint32_t)x, (uint32_t)y, SASS_INEG_B, 0, &cc);
    unsigned is_signed = i & 1;
    unsigned lt = is_signed ? (int64_t)x < (int64_t)y : x < y;
    char rel = lt ? '<' : x == y ? '=' : '>';
    unsigned want[8] = {0, rel == '<', rel == '=', rel != '>', rel == '>', rel != '=', rel != '<', 1};
    for (unsigned c = 0; c < 8; c++) {
      unsigned got = sass_icmp_x(c, (uint32_t)(x >> 32), (uint32_t)(y >> 32), is_signed, cc);
      if (got != want[c]) {
        print_error("ISETP.X cmp %u signed %u: 0x%016llx vs 0x%016llx = %u\n", c, is_signed, (unsigned long long)x,
                    (unsigned long long)y, got);
        fail();
      }
    }
  }
}

/* ---- MUFU ------------------------------------------------------------------ */

static void test_mufu_special(void **state) {
  (void)state;
  static const struct {
    unsigned op;
    uint32_t a, want;
  } rows[] = {
      {SASS_MUFU_RCP, PZ, PINF},         {SASS_MUFU_RCP, NZ, NINF},         {SASS_MUFU_RCP, PINF, PZ},
      {SASS_MUFU_RCP, NINF, NZ},         {SASS_MUFU_RCP, TWO, HALF},        {SASS_MUFU_RCP, DMIN, PINF}, /* flushed */
      {SASS_MUFU_RCP, 0x7f000000u, PZ},  /* 1/2^127 = 2^-127 is denormal: flushed */
      {SASS_MUFU_RSQ, PZ, PINF},         {SASS_MUFU_RSQ, NZ, NINF},         {SASS_MUFU_RSQ, MONE, SASS_NAN},
      {SASS_MUFU_RSQ, PINF, PZ},         {SASS_MUFU_RSQ, 0x40800000u, HALF},
      {SASS_MUFU_SQRT, NZ, NZ},          {SASS_MUFU_SQRT, MONE, SASS_NAN}, {SASS_MUFU_SQRT, PINF, PINF},
      {SASS_MUFU_SQRT, 0x40800000u, TWO},
      {SASS_MUFU_LG2, PZ, NINF},         {SASS_MUFU_LG2, NZ, NINF},         {SASS_MUFU_LG2, MONE, SASS_NAN},
      {SASS_MUFU_LG2, PINF, PINF},       {SASS_MUFU_LG2, ONE, PZ},          {SASS_MUFU_LG2, 0x41000000u, 0x40400000u},
      {SASS_MUFU_EX2, NINF, PZ},         {SASS_MUFU_EX2, PINF, PINF},       {SASS_MUFU_EX2, PZ, ONE},
      {SASS_MUFU_EX2, 0x40400000u, 0x41000000u}, {SASS_MUFU_EX2, 0x43000000u, PINF}, /* 2^128 */
      {SASS_MUFU_EX2, 0xc3000000u, PZ},  /* 2^-128: denormal, flushed */
      {SASS_MUFU_EX2, 0xc2fc0000u, NMIN}, /* 2^-126 */
      {SASS_MUFU_SIN, PINF, SASS_NAN},   {SASS_MUFU_COS, NINF, SASS_NAN},   {SASS_MUFU_SIN, NZ, NZ},
      {SASS_MUFU_COS, NZ, ONE},          {SASS_MUFU_SIN, QNAN, SASS_NAN},   {SASS_MUFU_RCP, NNAN, SASS_NAN},
      {9, ONE, SASS_NAN},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    uint32_t got = sass_mufu(rows[i].op, rows[i].a);
    if (got != rows[i].want) {
      print_error("row %zu: MUFU op %u of 0x%08x = 0x%08x, want 0x%08x\n", i, rows[i].op, rows[i].a, got, rows[i].want);
      fail();
    }
  }
  /* RCP64H / RSQ64H: the high word of 1/x and 1/sqrt(x) for x = hi:0. */
  assert_int_equal(sass_mufu(SASS_MUFU_RCP64H, 0x40000000u), 0x3fe00000u); /* 1/2 */
  assert_int_equal(sass_mufu(SASS_MUFU_RCP64H, 0x80000000u), 0xfff00000u); /* 1/-0 */
  assert_int_equal(sass_mufu(SASS_MUFU_RSQ64H, 0x40100000u), 0x3fe00000u); /* 1/sqrt(4) */
  assert_int_equal(sass_mufu(SASS_MUFU_RSQ64H, 0xbff00000u), SASS_NAN);
  assert_int_equal(sass_mufu(SASS_MUFU_RCP64H, 0x3ff80000u), 0x3fe55555u); /* 1/1.5 = 0x3fe5555555555555 */
}

/* The guard of MUFU's rounding: a double within 8 of its ulps of the point
 * halfway between two floats gives the even one; farther, the nearest. */
static void test_round_guarded(void **state) {
  (void)state;
  assert_int_equal(sass_round_guarded(1.0 + 0x1p-24 + 0x1p-60), ONE);         /* halfway, just above: even */
  assert_int_equal(sass_round_guarded(1.0 + 0x1p-24 - 0x1p-60), ONE);
  assert_int_equal(sass_round_guarded(1.0 + 0x1p-24 + 0x1p-40), 0x3f800001u); /* clearly above */
  assert_int_equal(sass_round_guarded(1.0 + 3 * 0x1p-24 - 0x1p-60), 0x3f800002u); /* even is above */
  assert_int_equal(sass_round_guarded(1.0 + 3 * 0x1p-24 - 0x1p-40), 0x3f800001u);
  assert_int_equal(sass_round_guarded(-(1.0 + 0x1p-24 + 0x1p-60)), MONE);
  assert_int_equal(sass_round_guarded(0x1p-150 + 0x1p-200), PZ);             /* halfway to the smallest denormal */
  assert_int_equal(sass_round_guarded(0x1p-150 + 0x1p-170), DMIN);
  assert_int_equal(sass_round_guarded(1.0 / 3.0), U(1.0f / 3.0f));
}

/* |got - want| in units of want's float ulp (want a long double). */
static double ulps(uint32_t got, long double want) {
  long double g = F(got);
  int e;
  frexpl(want, &e);
  long double ulp = ldexpl(1.0L, (e - 24 < -149 ? -149 : e - 24));
  return (double)(fabsl(g - want) / ulp);
}

/* Accuracy: within one ulp of the exact value (long double libm here), and
 * sin/cos within 2^-22 absolute, over 20,000 arguments each. */
static void test_mufu_accuracy(void **state) {
  (void)state;
  double worst[9] = {0};
  for (int i = 0; i < 20000; i++) {
    uint32_t r = rnd32();
    float pos = ldexpf(1.0f + (float)(r & 0xffff) / 65536.0f, (int)((r >> 16) % 200) - 100); /* 2^-100..2^100 */
    float arg = (float)((int32_t)rnd32()) / 2147483648.0f * 100.0f;                        /* [-100, 100) */
    float ex = (float)((int32_t)rnd32()) / 2147483648.0f * 120.0f;                         /* [-120, 120) */
    long double p = pos, a = arg, x = ex;
    struct {
      unsigned op;
      float in;
      long double want;
    } c[] = {
        {SASS_MUFU_RCP, pos, 1.0L / p}, {SASS_MUFU_RSQ, pos, 1.0L / sqrtl(p)}, {SASS_MUFU_SQRT, pos, sqrtl(p)},
        {SASS_MUFU_LG2, pos, log2l(p)}, {SASS_MUFU_EX2, ex, exp2l(x)},         {SASS_MUFU_SIN, arg, sinl(a)},
        {SASS_MUFU_COS, arg, cosl(a)},
    };
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
      uint32_t got = sass_mufu(c[k].op, U(c[k].in));
      double err;
      if (c[k].op == SASS_MUFU_SIN || c[k].op == SASS_MUFU_COS) err = (double)fabsl(F(got) - c[k].want) * 0x1p22;
      else err = ulps(got, c[k].want);
      if (err > worst[c[k].op]) worst[c[k].op] = err;
      if (err > 1.0) {
        print_error("MUFU op %u of %a = %a, exact %La (error %g)\n", c[k].op, (double)c[k].in, (double)F(got),
                    c[k].want, err);
        fail();
      }
    }
  }
  /* The model is correct rounding: the worst error stays near half an ulp. */
  for (int k = SASS_MUFU_EX2; k <= SASS_MUFU_RSQ; k++) assert_true(worst[k] <= 0.5001);
}

/* ---- conversions ------------------------------------------------------------ */

static void test_f2i(void **state) {
  (void)state;
  static const struct {
    uint32_t b;
    unsigned src, dst, sgn, rnd, flags;
    uint32_t want;
  } rows[] = {
      {0x40200000u, SASS_F32, SASS_I32, 1, SASS_RND_RN, 0, 2},          /* 2.5 -> 2 (even) */
      {0x40600000u, SASS_F32, SASS_I32, 1, SASS_RND_RN, 0, 4},          /* 3.5 -> 4 */
      {0xc0200000u, SASS_F32, SASS_I32, 1, SASS_RND_RN, 0, 0xfffffffeu}, /* -2.5 -> -2 */
      {0xbf000000u, SASS_F32, SASS_I32, 1, SASS_RND_RM, 0, 0xffffffffu}, /* floor(-0.5) = -1 */
      {0x3e4ccccdu, SASS_F32, SASS_I32, 1, SASS_RND_RP, 0, 1},          /* ceil(0.2) */
      {0xbff33333u, SASS_F32, SASS_I32, 1, SASS_RND_RZ, 0, 0xffffffffu}, /* trunc(-1.9) */
      {0x4f32d05eu, SASS_F32, SASS_I32, 1, SASS_RND_RZ, 0, 0x7fffffffu}, /* 3e9 saturates */
      {0x4f32d05eu, SASS_F32, SASS_I32, 0, SASS_RND_RZ, 0, 3000000000u},
      {0x4f000000u, SASS_F32, SASS_I32, 1, SASS_RND_RZ, 0, 0x7fffffffu}, /* 2^31 */
      {0xcf000000u, SASS_F32, SASS_I32, 1, SASS_RND_RZ, 0, 0x80000000u}, /* -2^31 fits */
      {0xcf000001u, SASS_F32, SASS_I32, 1, SASS_RND_RZ, 0, 0x80000000u},
      {MONE, SASS_F32, SASS_I32, 0, SASS_RND_RZ, 0, 0},                  /* unsigned: negatives give 0 */
      {0x4fa00000u, SASS_F32, SASS_I32, 0, SASS_RND_RZ, 0, 0xffffffffu}, /* 5.4e9 */
      {0x4f800000u, SASS_F32, SASS_I32, 0, SASS_RND_RZ, 0, 0xffffffffu}, /* 2^32 */
      {0x4f7fffffu, SASS_F32, SASS_I32, 0, SASS_RND_RZ, 0, 0xffffff00u}, /* 2^32 - 256 */
      {QNAN, SASS_F32, SASS_I32, 1, SASS_RND_RN, 0, 0},
      {NNAN, SASS_F32, SASS_I32, 0, SASS_RND_RN, 0, 0},
      {PINF, SASS_F32, SASS_I32, 1, SASS_RND_RN, 0, 0x7fffffffu},
      {NINF, SASS_F32, SASS_I32, 1, SASS_RND_RN, 0, 0x80000000u},
      {0x471c4000u, SASS_F32, SASS_I16, 1, SASS_RND_RZ, 0, 0x7fffu},     /* 40000 -> S16 max */
      {0xc71c4000u, SASS_F32, SASS_I16, 1, SASS_RND_RZ, 0, 0xffff8000u}, /* -40000 -> S16 min, sign-extended */
      {0xc0a00000u, SASS_F32, SASS_I16, 1, SASS_RND_RZ, 0, 0xfffffffbu}, /* -5 */
      {0x47886000u, SASS_F32, SASS_I16, 0, SASS_RND_RZ, 0, 0xffffu},     /* 69824 -> U16 max */
      {0x80000001u, SASS_F32, SASS_I32, 1, SASS_RND_RM, 0, 0xffffffffu}, /* floor(-2^-149) = -1 */
      {0x80000001u, SASS_F32, SASS_I32, 1, SASS_RND_RM, SASS_FTZ, 0},    /* flushed: floor(-0) */
      {ONE, SASS_F32, SASS_I32, 1, SASS_RND_RN, SASS_NEG, 0xffffffffu},
      {MONE, SASS_F32, SASS_I32, 1, SASS_RND_RN, SASS_ABS, 1},
      {MONE, SASS_F32, SASS_I32, 1, SASS_RND_RN, SASS_ABS | SASS_NEG, 0xffffffffu},
      {0x4500c000u, SASS_F16, SASS_I32, 1, SASS_RND_RN, 0, 0xfffffffeu}, /* low half 0xc000 = -2.0 */
      {0x4500c000u, SASS_F16, SASS_I32, 1, SASS_RND_RN, SASS_H1, 5},     /* high half 0x4500 = 5.0 */
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    uint32_t want = rows[i].want;
    uint32_t got = sass_f2i(rows[i].b, rows[i].src, rows[i].dst, rows[i].sgn, rows[i].rnd, rows[i].flags);
    if (got != want) {
      print_error("row %zu: F2I of 0x%08x = 0x%08x, want 0x%08x\n", i, rows[i].b, got, want);
      fail();
    }
  }
}

static void test_i2f(void **state) {
  (void)state;
  static const struct {
    uint32_t b;
    unsigned src, sgn, sel, dst, rnd, flags;
    uint32_t want;
  } rows[] = {
      {16777217u, SASS_I32, 1, 0, SASS_F32, SASS_RND_RN, 0, 0x4b800000u}, /* 2^24 + 1: tie -> 2^24 */
      {16777217u, SASS_I32, 1, 0, SASS_F32, SASS_RND_RP, 0, 0x4b800001u},
      {16777217u, SASS_I32, 1, 0, SASS_F32, SASS_RND_RZ, 0, 0x4b800000u},
      {16777219u, SASS_I32, 1, 0, SASS_F32, SASS_RND_RN, 0, 0x4b800002u}, /* tie -> even (2^24 + 4) */
      {0xfeffffffu, SASS_I32, 1, 0, SASS_F32, SASS_RND_RM, 0, 0xcb800001u}, /* -(2^24 + 1) down */
      {0xfeffffffu, SASS_I32, 1, 0, SASS_F32, SASS_RND_RZ, 0, 0xcb800000u},
      {0x7fffffffu, SASS_I32, 1, 0, SASS_F32, SASS_RND_RN, 0, 0x4f000000u}, /* 2^31 - 1 -> 2^31 */
      {0x7fffffffu, SASS_I32, 1, 0, SASS_F32, SASS_RND_RZ, 0, 0x4effffffu},
      {0xffffffffu, SASS_I32, 0, 0, SASS_F32, SASS_RND_RN, 0, 0x4f800000u}, /* 2^32 - 1 unsigned */
      {0xffffffffu, SASS_I32, 1, 0, SASS_F32, SASS_RND_RN, 0, MONE},
      {0x80000000u, SASS_I32, 1, 0, SASS_F32, SASS_RND_RN, SASS_ABS, 0x4f000000u}, /* |INT32_MIN| = 2^31, exact */
      {0x80000000u, SASS_I32, 1, 0, SASS_F32, SASS_RND_RN, SASS_NEG, 0x4f000000u},
      {5, SASS_I32, 1, 0, SASS_F32, SASS_RND_RN, SASS_NEG, 0xc0a00000u},
      {0xfffffffbu, SASS_I32, 1, 0, SASS_F32, SASS_RND_RN, SASS_ABS | SASS_NEG, 0xc0a00000u},
      {0, SASS_I32, 1, 0, SASS_F32, SASS_RND_RM, SASS_NEG, PZ},           /* integer zero has no sign */
      {0x00ff8000u, SASS_I8, 1, 2, SASS_F32, SASS_RND_RN, 0, MONE},       /* byte 2 = 0xff = -1 */
      {0x00ff8000u, SASS_I8, 0, 2, SASS_F32, SASS_RND_RN, 0, 0x437f0000u}, /* 255 */
      {0x00ff8000u, SASS_I16, 1, 0, SASS_F32, SASS_RND_RN, 0, 0xc7000000u}, /* 0x8000 = -32768 */
      {0x80000000u, SASS_I16, 0, 2, SASS_F32, SASS_RND_RN, 0, 0x47000000u}, /* high half 0x8000 = 32768 */
      {2049, SASS_I32, 1, 0, SASS_F16, SASS_RND_RN, 0, 0x6800u},          /* 2049 -> 2048 (tie, even) */
      {2049, SASS_I32, 1, 0, SASS_F16, SASS_RND_RP, 0, 0x6801u},          /* -> 2050 */
      {65535, SASS_I32, 1, 0, SASS_F16, SASS_RND_RN, 0, 0x7c00u},         /* past 65520: Inf */
      {65535, SASS_I32, 1, 0, SASS_F16, SASS_RND_RZ, 0, 0x7bffu},         /* 65504 */
      {0xffffffffu, SASS_I32, 1, 0, SASS_F16, SASS_RND_RN, 0, 0xbc00u},   /* -1 */
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    uint32_t got = sass_i2f(rows[i].b, rows[i].src, rows[i].sgn, rows[i].sel, rows[i].dst, rows[i].rnd, rows[i].flags);
    if (got != rows[i].want) {
      print_error("row %zu: I2F of 0x%08x = 0x%08x, want 0x%08x\n", i, rows[i].b, got, rows[i].want);
      fail();
    }
  }
  /* Every 32-bit integer class against the host's conversion in each mode. */
  for (int i = 0; i < 100000; i++) {
    uint32_t b = rnd32() >> (rnd32() % 32);
    unsigned sgn = i & 1, rnd = (i >> 1) & 3;
    fesetround(host_mode[rnd]);
    volatile float r = sgn ? (float)(int32_t)b : (float)b;
    fesetround(FE_TONEAREST);
    assert_int_equal(sass_i2f(b, SASS_I32, sgn, 0, SASS_F32, rnd, 0), U(r));
  }
}

static void test_f2f_half(void **state) {
  (void)state;
  /* halves by hand */
  assert_int_equal(sass_h2f(0x3c00u), ONE);
  assert_int_equal(sass_h2f(0xc000u), 0xc0000000u);
  assert_int_equal(sass_h2f(0x0001u), 0x33800000u); /* 2^-24 */
  assert_int_equal(sass_h2f(0x03ffu), 0x387fc000u); /* 1023 x 2^-24 */
  assert_int_equal(sass_h2f(0x0400u), 0x38800000u); /* 2^-14 */
  assert_int_equal(sass_h2f(0x7bffu), 0x477fe000u); /* 65504 */
  assert_int_equal(sass_h2f(0x7c00u), PINF);
  assert_int_equal(sass_h2f(0xfc00u), NINF);
  assert_int_equal(sass_h2f(0x8000u), NZ);
  assert_true(sass_is_nan(sass_h2f(0x7e00u)));
  assert_int_equal(sass_f2h(ONE, SASS_RND_RN), 0x3c00u);
  assert_int_equal(sass_f2h(U(1.0f / 3.0f), SASS_RND_RN), 0x3555u);  /* 0.33325 */
  assert_int_equal(sass_f2h(U(1.0f / 3.0f), SASS_RND_RP), 0x3556u);
  assert_int_equal(sass_f2h(U(-1.0f / 3.0f), SASS_RND_RM), 0xb556u);
  assert_int_equal(sass_f2h(U(-1.0f / 3.0f), SASS_RND_RZ), 0xb555u);
  assert_int_equal(sass_f2h(U(65520.0f), SASS_RND_RN), 0x7c00u);     /* the overflow tie */
  assert_int_equal(sass_f2h(U(65519.0f), SASS_RND_RN), 0x7bffu);
  assert_int_equal(sass_f2h(U(1e6f), SASS_RND_RZ), 0x7bffu);
  assert_int_equal(sass_f2h(U(-1e6f), SASS_RND_RP), 0xfbffu);
  assert_int_equal(sass_f2h(U(-1e6f), SASS_RND_RM), 0xfc00u);
  assert_int_equal(sass_f2h(0x33000000u, SASS_RND_RN), 0x0000u);     /* 2^-25: tie -> 0 */
  assert_int_equal(sass_f2h(0x33000000u, SASS_RND_RP), 0x0001u);
  assert_int_equal(sass_f2h(0x33400000u, SASS_RND_RN), 0x0001u);     /* 1.5 x 2^-25 */
  assert_int_equal(sass_f2h(0x387fc000u, SASS_RND_RN), 0x03ffu);     /* largest subnormal */
  assert_int_equal(sass_f2h(0x387fe000u, SASS_RND_RN), 0x0400u);     /* rounds up into the normals */
  assert_int_equal(sass_f2h(QNAN, SASS_RND_RN), 0x7fffu);
  assert_int_equal(sass_f2h(NINF, SASS_RND_RN), 0xfc00u);
  /* Every half converts to a float and back unchanged (except NaNs). */
  for (uint32_t h = 0; h < 0x10000u; h++) {
    if ((h & 0x7c00u) == 0x7c00u && (h & 0x3ffu)) continue;
    assert_int_equal(sass_f2h(sass_h2f(h), SASS_RND_RN), h);
  }
  /* F2F */
  assert_int_equal(sass_f2f(0x40200000u, SASS_F32, SASS_F32, SASS_RND_RN, SASS_INT), TWO);     /* ROUND 2.5 */
  assert_int_equal(sass_f2f(0x40600000u, SASS_F32, SASS_F32, SASS_RND_RN, SASS_INT), 0x40800000u);
  assert_int_equal(sass_f2f(0xbecccccdu, SASS_F32, SASS_F32, SASS_RND_RZ, SASS_INT), NZ);       /* TRUNC -0.4 */
  assert_int_equal(sass_f2f(0xbecccccdu, SASS_F32, SASS_F32, SASS_RND_RM, SASS_INT), MONE);     /* FLOOR */
  assert_int_equal(sass_f2f(0x3ecccccdu, SASS_F32, SASS_F32, SASS_RND_RP, SASS_INT), ONE);      /* CEIL */
  assert_int_equal(sass_f2f(0x4b800001u, SASS_F32, SASS_F32, SASS_RND_RN, SASS_INT), 0x4b800001u); /* integral */
  assert_int_equal(sass_f2f(PINF, SASS_F32, SASS_F32, SASS_RND_RM, SASS_INT), PINF);
  assert_int_equal(sass_f2f(0x3fc00000u, SASS_F32, SASS_F32, SASS_RND_RN, SASS_SAT), ONE);
  assert_int_equal(sass_f2f(QNAN, SASS_F32, SASS_F32, SASS_RND_RN, SASS_SAT), PZ);
  assert_int_equal(sass_f2f(NNAN, SASS_F32, SASS_F32, SASS_RND_RN, 0), SASS_NAN);
  assert_int_equal(sass_f2f(DBIG, SASS_F32, SASS_F32, SASS_RND_RN, SASS_FTZ), PZ);
  assert_int_equal(sass_f2f(DBIG, SASS_F32, SASS_F32, SASS_RND_RN, 0), DBIG);
  assert_int_equal(sass_f2f(ONE, SASS_F32, SASS_F32, SASS_RND_RN, SASS_ABS | SASS_NEG), MONE);
  assert_int_equal(sass_f2f(0x3c00c000u, SASS_F16, SASS_F32, SASS_RND_RN, 0), 0xc0000000u);
  assert_int_equal(sass_f2f(0x3c00c000u, SASS_F16, SASS_F32, SASS_RND_RN, SASS_H1), ONE);
  assert_int_equal(sass_f2f(0x00010000u, SASS_F16, SASS_F32, SASS_RND_RN, SASS_H1), 0x33800000u);
  assert_int_equal(sass_f2f(0x00010000u, SASS_F16, SASS_F32, SASS_RND_RN, SASS_H1 | SASS_FTZ), PZ);
  assert_int_equal(sass_f2f(U(1.0f / 3.0f), SASS_F32, SASS_F16, SASS_RND_RP, 0), 0x3556u);
  assert_int_equal(sass_f2f(0x33800000u, SASS_F32, SASS_F16, SASS_RND_RN, 0), 0x0001u);
  assert_int_equal(sass_f2f(0x33800000u, SASS_F32, SASS_F16, SASS_RND_RN, SASS_FTZ), 0x0000u);
  assert_int_equal(sass_f2f(0x40000000u, SASS_F32, SASS_F16, SASS_RND_RN, SASS_SAT), 0x3c00u);
  assert_int_equal(sass_f2f(QNAN, SASS_F32, SASS_F16, SASS_RND_RN, 0), 0x7fffu);
  assert_int_equal(sass_f2f(0x4100u, SASS_F16, SASS_F16, SASS_RND_RN, SASS_INT), 0x4000u);      /* ROUND 2.5 = 2 */
}

static void test_i2i(void **state) {
  (void)state;
  static const struct {
    uint32_t b;
    unsigned src, ssgn, sel, dst, dsgn, flags;
    uint32_t want;
  } rows[] = {
      {40000, SASS_I32, 1, 0, SASS_I16, 1, SASS_SAT, 0x7fffu},
      {(uint32_t)-40000, SASS_I32, 1, 0, SASS_I16, 1, SASS_SAT, 0xffff8000u},
      {(uint32_t)-5, SASS_I32, 1, 0, SASS_I16, 1, SASS_SAT, 0xfffffffbu},
      {0x12345678u, SASS_I32, 1, 0, SASS_I16, 1, 0, 0x5678u},
      {0x12348765u, SASS_I32, 1, 0, SASS_I16, 1, 0, 0xffff8765u},     /* low bits, sign-extended */
      {0x12348765u, SASS_I32, 1, 0, SASS_I16, 0, 0, 0x8765u},
      {0x00ab0000u, SASS_I8, 0, 2, SASS_I32, 0, 0, 0xabu},
      {0x00ab0000u, SASS_I8, 1, 2, SASS_I32, 1, 0, 0xffffffabu},
      {(uint32_t)-5, SASS_I32, 1, 0, SASS_I8, 0, SASS_SAT, 0},          /* signed to unsigned: below 0 */
      {300, SASS_I32, 1, 0, SASS_I8, 0, SASS_SAT, 255},
      {300, SASS_I32, 1, 0, SASS_I8, 1, SASS_SAT, 127},
      {0x80000000u, SASS_I32, 0, 0, SASS_I32, 1, SASS_SAT, 0x7fffffffu}, /* U32 2^31 to S32 */
      {0x80000000u, SASS_I32, 1, 0, SASS_I32, 0, SASS_SAT, 0},           /* S32 negative to U32 */
      {0xfffffffbu, SASS_I32, 1, 0, SASS_I32, 1, SASS_ABS, 5},
      {5, SASS_I32, 1, 0, SASS_I32, 1, SASS_NEG, 0xfffffffbu},
      {0x80000000u, SASS_I32, 1, 0, SASS_I32, 1, SASS_ABS, 0x80000000u}, /* |INT32_MIN| wraps */
      {0x80000000u, SASS_I32, 1, 0, SASS_I32, 1, SASS_ABS | SASS_SAT, 0x80000000u},
      {0xff80u, SASS_I16, 1, 0, SASS_I8, 1, SASS_SAT, 0xffffff80u},      /* -128 */
      {0xff7fu, SASS_I16, 1, 0, SASS_I8, 1, SASS_SAT, 0xffffff80u},      /* -129 -> -128 */
      {0xff7fu, SASS_I16, 0, 0, SASS_I8, 1, SASS_SAT, 0x7fu},            /* 65407 -> 127 */
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    uint32_t got =
        sass_i2i(rows[i].b, rows[i].src, rows[i].ssgn, rows[i].sel, rows[i].dst, rows[i].dsgn, rows[i].flags);
    if (got != rows[i].want) {
      print_error("row %zu: I2I of 0x%08x = 0x%08x, want 0x%08x\n", i, rows[i].b, got, rows[i].want);
      fail();
    }
  }
  assert_true(sass_cvt_supported(SASS_OP_F2I, SASS_F32, SASS_I32));
  assert_true(sass_cvt_supported(SASS_OP_F2F, SASS_F16, SASS_F32));
  assert_false(sass_cvt_supported(SASS_OP_F2F, SASS_F64, SASS_F32));
  assert_false(sass_cvt_supported(SASS_OP_I2F, SASS_I64, SASS_F32));
  assert_false(sass_cvt_supported(SASS_OP_F2I, SASS_F32, SASS_I8));
  assert_true(sass_cvt_supported(SASS_OP_I2F, SASS_I8, SASS_F16));
  assert_false(sass_cvt_supported(SASS_OP_F2F, 0, SASS_F32));
  assert_false(sass_cvt_supported(SASS_OP_I2I, SASS_I32, SASS_I64));
  assert_false(sass_cvt_supported(SASS_OP_FADD, SASS_F32, SASS_F32));
}

/* ---- integer ---------------------------------------------------------------- */

static void test_iadd(void **state) {
  (void)state;
  unsigned cc;
  assert_int_equal(sass_iadd(5, 7, 0, 0, &cc), 12);
  assert_int_equal(cc, 0);
  assert_int_equal(sass_iadd(0xffffffffu, 1, 0, 0, &cc), 0);
  assert_int_equal(cc, SASS_FL_Z | SASS_FL_C);
  assert_int_equal(sass_iadd(0x7fffffffu, 1, 0, 0, &cc), 0x80000000u);
  assert_int_equal(cc, SASS_FL_S | SASS_FL_O);
  assert_int_equal(sass_iadd(0x80000000u, 0x80000000u, 0, 0, &cc), 0);
  assert_int_equal(cc, SASS_FL_Z | SASS_FL_C | SASS_FL_O);
  /* -B: a - b; C = no borrow (a >= b unsigned) */
  assert_int_equal(sass_iadd(5, 7, SASS_INEG_B, 0, &cc), 0xfffffffeu);
  assert_int_equal(cc, SASS_FL_S);
  assert_int_equal(sass_iadd(7, 5, SASS_INEG_B, 0, &cc), 2);
  assert_int_equal(cc, SASS_FL_C);
  assert_int_equal(sass_iadd(7, 7, SASS_INEG_B, 0, &cc), 0);
  assert_int_equal(cc, SASS_FL_Z | SASS_FL_C);
  assert_int_equal(sass_iadd(7, 0, SASS_INEG_B, 0, &cc), 7); /* 7 - 0: no borrow */
  assert_int_equal(cc, SASS_FL_C);
  assert_int_equal(sass_iadd(5, 7, SASS_INEG_A, 0, &cc), 2);
  assert_int_equal(sass_iadd(0x80000000u, 1, SASS_INEG_B, 0, &cc), 0x7fffffffu);
  assert_int_equal(cc, SASS_FL_C | SASS_FL_O);
  /* .PO: A + B + 1 */
  assert_int_equal(sass_iadd(5, 7, SASS_INEG_A | SASS_INEG_B, 0, &cc), 13);
  /* .X: + CC.C */
  assert_int_equal(sass_iadd(5, 7, SASS_IX, SASS_FL_C, &cc), 13);
  assert_int_equal(sass_iadd(5, 7, SASS_IX, SASS_FL_Z, &cc), 12);
  /* .SAT */
  assert_int_equal(sass_iadd(0x7fffffffu, 1, SASS_ISAT, 0, &cc), 0x7fffffffu);
  assert_int_equal(sass_iadd(0x80000000u, 0xffffffffu, SASS_ISAT, 0, &cc), 0x80000000u);
  assert_int_equal(sass_iadd(0x80000000u, 1, SASS_ISAT | SASS_INEG_B, 0, &cc), 0x80000000u);
  assert_int_equal(sass_iadd(100, 1, SASS_ISAT | SASS_INEG_B, 0, &cc), 99);
  /* 64-bit add and subtract as the compiler writes them, against the host */
  for (int i = 0; i < 100000; i++) {
    uint64_t x = (uint64_t)rnd32() << 32 | rnd32(), y = (uint64_t)rnd32() << 32 | rnd32();
    if (i & 2) y = (x & 0xffffffff00000000u) | (uint32_t)(y >> (rnd32() % 32));
    unsigned c1, c2;
    uint32_t lo = sass_iadd((uint32_t)x, (uint32_t)y, 0, 0, &c1);
    uint32_t hi = sass_iadd((uint32_t)(x >> 32), (uint32_t)(y >> 32), SASS_IX, c1, &c2);
    assert_true(((uint64_t)hi << 32 | lo) == x + y);
    lo = sass_iadd((uint32_t)x, (uint32_t)y, SASS_INEG_B, 0, &c1);
    hi = sass_iadd((uint32_t)(x >> 32), (uint32_t)(y >> 32), SASS_INEG_B | SASS_IX, c1, &c2);
    assert_true(((uint64_t)hi << 32 | lo) == x - y);
    assert_int_equal(!!(c2 & SASS_FL_C), x >= y); /* the 64-bit borrow */
  }
}

static void test_iadd3_iscadd(void **state) {
  (void)state;
  unsigned cc;
  assert_int_equal(sass_iadd3(1, 2, 3, 0, 0, 0, &cc), 6);
  assert_int_equal(sass_iadd3(1, 2, 3, SASS_INEG_A, 0, 0, &cc), 4);
  assert_int_equal(sass_iadd3(1, 2, 3, SASS_INEG_B | SASS_INEG_C, 0, 0, &cc), 0xfffffffcu);
  assert_int_equal(sass_iadd3(1, 2, 3, SASS_IX, 0, SASS_FL_C, &cc), 7);
  /* RS: (A + B) >> 16 over 33 bits, then + C */
  assert_int_equal(sass_iadd3(0xffff0000u, 0x00020000u, 5, 0, SASS_IADD3_RS, 0, &cc), 0x10001u + 5);
  assert_int_equal(sass_iadd3(0x1234u, 0x0001u, 0x10u, 0, SASS_IADD3_LS, 0, &cc), 0x12350010u);
  assert_int_equal(sass_half(0xabcd1234u, SASS_HALF_H0), 0x1234u);
  assert_int_equal(sass_half(0xabcd1234u, SASS_HALF_H1), 0xabcdu);
  assert_int_equal(sass_half(0xabcd1234u, SASS_HALF_ALL), 0xabcd1234u);
  assert_int_equal(sass_iadd3(0xffffffffu, 1, 0, 0, 0, 0, &cc), 0);
  /* ISCADD */
  assert_int_equal(sass_iscadd(3, 5, 4, 0, &cc), 53);
  assert_int_equal(sass_iscadd(3, 5, 4, SASS_INEG_A, &cc), (uint32_t)(-48 + 5));
  assert_int_equal(sass_iscadd(3, 5, 4, SASS_INEG_B, &cc), 43);
  assert_int_equal(cc, SASS_FL_C);
  assert_int_equal(sass_iscadd(3, 5, 4, SASS_INEG_A | SASS_INEG_B, &cc), 54); /* .PO */
  assert_int_equal(sass_iscadd(0x80000001u, 0, 31, 0, &cc), 0x80000000u);
}

/* The high word of a 64-bit product by an identity independent of num.h:
 * signed hi = unsigned hi - (a < 0 ? b : 0) - (b < 0 ? a : 0). */
static uint32_t ref_mulhi(uint32_t a, uint32_t b, unsigned as, unsigned bs) {
  uint32_t hi = (uint32_t)(((uint64_t)a * b) >> 32);
  if (as && (a >> 31)) hi -= b;
  if (bs && (b >> 31)) hi -= a;
  return hi;
}

static void test_imul(void **state) {
  (void)state;
  assert_int_equal(sass_imul(0xffffffffu, 0xffffffffu, 0, 0, 1), 0xfffffffeu);
  assert_int_equal(sass_imul(0xffffffffu, 0xffffffffu, 1, 1, 1), 0);          /* -1 x -1 = 1 */
  assert_int_equal(sass_imul(0xffffffffu, 0xffffffffu, 1, 1, 0), 1);
  assert_int_equal(sass_imul(0xffffffffu, 2, 1, 0, 1), 0xffffffffu);          /* -1 x 2 = -2 */
  assert_int_equal(sass_imul(0x80000000u, 0x80000000u, 1, 1, 1), 0x40000000u); /* 2^62 */
  for (int i = 0; i < 100000; i++) {
    uint32_t a = rnd32(), b = rnd32();
    unsigned as = i & 1, bs = (i >> 1) & 1;
    assert_int_equal(sass_imul(a, b, as, bs, 0), a * b);
    assert_int_equal(sass_imul(a, b, as, bs, 1), ref_mulhi(a, b, as, bs));
  }
}

static void test_xmad(void **state) {
  (void)state;
  unsigned cc;
  /* The canonical 32 x 32 multiply: XMAD t, a, b, c; XMAD.MRG u, a, b.H1, RZ;
   * XMAD.PSL.CBCC d, a.H1, u.H1, t gives d = a * b + c (mod 2^32). */
  for (int i = 0; i < 200000; i++) {
    uint32_t a = rnd32(), b = rnd32(), c = rnd32();
    if (i % 7 == 0) a |= 0xffff0000u;
    if (i % 11 == 0) b = (uint32_t)(-(int32_t)(rnd32() & 0xffff));
    uint32_t t = sass_xmad(a, b, c, 0, SASS_XMAD_C, 0, &cc);
    uint32_t u = sass_xmad(a, b, 0, SASS_XB_H1 | SASS_XMRG, SASS_XMAD_C, 0, &cc);
    uint32_t d = sass_xmad(a, u, t, SASS_XA_H1 | SASS_XB_H1 | SASS_XPSL, SASS_XMAD_CBCC, 0, &cc);
    if (d != a * b + c) {
      print_error("XMAD sequence: %08x * %08x + %08x = %08x, want %08x\n", a, b, c, d, a * b + c);
      fail();
    }
  }
  /* Modes by hand: a = 0x0003fffe, b = 0x80020005, c = 0x12345678. */
  const uint32_t a = 0x0003fffeu, b = 0x80020005u, c = 0x12345678u;
  assert_int_equal(sass_xmad(a, b, c, 0, SASS_XMAD_C, 0, &cc), 0xfffeu * 5u + c);
  assert_int_equal(sass_xmad(a, b, c, SASS_XA_H1, SASS_XMAD_C, 0, &cc), 3u * 5u + c);
  assert_int_equal(sass_xmad(a, b, c, SASS_XB_H1, SASS_XMAD_C, 0, &cc), 0xfffeu * 0x8002u + c);
  assert_int_equal(sass_xmad(a, b, c, SASS_XA_SIGNED, SASS_XMAD_C, 0, &cc), (uint32_t)(-2 * 5) + c);
  assert_int_equal(sass_xmad(a, b, c, SASS_XA_SIGNED | SASS_XB_SIGNED | SASS_XB_H1, SASS_XMAD_C, 0, &cc),
                   (uint32_t)(-2 * -32766) + c);
  assert_int_equal(sass_xmad(a, b, c, SASS_XPSL, SASS_XMAD_C, 0, &cc), (0xfffeu * 5u << 16) + c);
  assert_int_equal(sass_xmad(a, b, c, 0, SASS_XMAD_CLO, 0, &cc), 0xfffeu * 5u + 0x5678u);
  assert_int_equal(sass_xmad(a, b, c, 0, SASS_XMAD_CHI, 0, &cc), 0xfffeu * 5u + 0x1234u);
  assert_int_equal(sass_xmad(a, b, c, 0, SASS_XMAD_CBCC, 0, &cc), 0xfffeu * 5u + c + (b << 16));
  /* CSFU: C minus 2^16 for each negative (signed) half */
  assert_int_equal(sass_xmad(a, b, c, SASS_XA_SIGNED | SASS_XB_SIGNED | SASS_XB_H1, SASS_XMAD_CSFU, 0, &cc),
                   (uint32_t)(-2 * -32766) + c - 0x20000u);
  assert_int_equal(sass_xmad(a, b, c, SASS_XA_SIGNED, SASS_XMAD_CSFU, 0, &cc), (uint32_t)(-2 * 5) + c - 0x10000u);
  assert_int_equal(sass_xmad(a, b, c, 0, SASS_XMAD_CSFU, 0, &cc), 0xfffeu * 5u + c); /* unsigned: no adjust */
  assert_int_equal(sass_xmad(a, b, c, SASS_XMRG, SASS_XMAD_C, 0, &cc), ((0xfffeu * 5u + c) & 0xffffu) | (b << 16));
  assert_int_equal(sass_xmad(a, b, c, SASS_IX, SASS_XMAD_C, SASS_FL_C, &cc), 0xfffeu * 5u + c + 1);
  /* 0xffff x 0xffff = 0xfffe0001, + 0xffffffff = 0x1fffe0000: carry out */
  assert_int_equal(sass_xmad(0xffffu, 0xffffu, 0xffffffffu, 0, SASS_XMAD_C, 0, &cc), 0xfffe0000u);
  assert_int_equal(cc, SASS_FL_S | SASS_FL_C);
}

static void test_shift_logic(void **state) {
  (void)state;
  assert_int_equal(sass_shl(1, 31, 0), 0x80000000u);
  assert_int_equal(sass_shl(1, 32, 0), 0);
  assert_int_equal(sass_shl(1, 33, 1), 2);
  assert_int_equal(sass_shl(1, 0xffffffffu, 0), 0);
  assert_int_equal(sass_shr(0x80000000u, 31, 0, 0, 0), 1);
  assert_int_equal(sass_shr(0x80000000u, 31, 1, 0, 0), 0xffffffffu);
  assert_int_equal(sass_shr(0x80000000u, 40, 1, 0, 0), 0xffffffffu);
  assert_int_equal(sass_shr(0x40000000u, 40, 1, 0, 0), 0);
  assert_int_equal(sass_shr(0x80000000u, 40, 0, 0, 0), 0);
  assert_int_equal(sass_shr(0x80000000u, 33, 1, 1, 0), 0xc0000000u);
  assert_int_equal(sass_shr(0x00000001u, 0, 0, 0, 1), 0x80000000u); /* .BREV */
  assert_int_equal(sass_shr(0x00000003u, 30, 0, 0, 1), 3);
  assert_int_equal(sass_brev(0x12345678u), 0x1e6a2c48u);
  assert_int_equal(sass_lop(0xf0f0u, 0xff00u, SASS_LOP_AND, 0, 0), 0xf000u);
  assert_int_equal(sass_lop(0xf0f0u, 0xff00u, SASS_LOP_OR, 0, 0), 0xfff0u);
  assert_int_equal(sass_lop(0xf0f0u, 0xff00u, SASS_LOP_XOR, 0, 0), 0x0ff0u);
  assert_int_equal(sass_lop(0xf0f0u, 0xff00u, SASS_LOP_PASS_B, 0, 0), 0xff00u);
  assert_int_equal(sass_lop(0xf0f0u, 0xff00u, SASS_LOP_AND, 1, 0), 0x0f00u);
  assert_int_equal(sass_lop(0xf0f0u, 0xff00u, SASS_LOP_PASS_B, 0, 1), 0xffff00ffu);
  assert_int_equal(sass_lop_pred(SASS_PRED_Z, 0), 1);
  assert_int_equal(sass_lop_pred(SASS_PRED_Z, 5), 0);
  assert_int_equal(sass_lop_pred(SASS_PRED_NZ, 5), 1);
  assert_int_equal(sass_lop_pred(SASS_PRED_T, 0), 1);
  assert_int_equal(sass_lop_pred(SASS_PRED_F, 0), 0);
  /* LOP3: the LUT of an expression is the expression on 0xF0, 0xCC, 0xAA. */
  for (int i = 0; i < 20000; i++) {
    uint32_t a = rnd32(), b = rnd32(), c = rnd32();
    assert_int_equal(sass_lop3(a, b, c, 0xf0), a);
    assert_int_equal(sass_lop3(a, b, c, 0xcc), b);
    assert_int_equal(sass_lop3(a, b, c, 0xaa), c);
    assert_int_equal(sass_lop3(a, b, c, (0xf0 & 0xcc) | 0xaa), (a & b) | c);
    assert_int_equal(sass_lop3(a, b, c, 0xf0 ^ 0xcc ^ 0xaa), a ^ b ^ c);
    assert_int_equal(sass_lop3(a, b, c, (uint8_t)~(0xf0 | 0xcc)), ~(a | b));
    assert_int_equal(sass_lop3(a, b, c, 0), 0);
    assert_int_equal(sass_lop3(a, b, c, 0xff), 0xffffffffu);
  }
}

static void test_bitfield(void **state) {
  (void)state;
  /* BFE: B = position | length << 8 */
  assert_int_equal(sass_bfe(0x12345678u, 0x0804, 0, 0), 0x67u);
  assert_int_equal(sass_bfe(0x12345678u, 0x0808, 1, 0), 0x56u);
  assert_int_equal(sass_bfe(0x0000f000u, 0x040c, 1, 0), 0xffffffffu); /* field 0xf signed: -1 */
  assert_int_equal(sass_bfe(0x0000f000u, 0x040c, 0, 0), 0xfu);
  assert_int_equal(sass_bfe(0x12345678u, 0x0000, 0, 0), 0);            /* length 0 */
  assert_int_equal(sass_bfe(0x87654321u, 0x201c, 0, 0), 0x8u);         /* 28 + 32 past bit 31 */
  assert_int_equal(sass_bfe(0x87654321u, 0x201c, 1, 0), 0xfffffff8u);  /* sign is bit 31 */
  assert_int_equal(sass_bfe(0x87654321u, 0x0820, 0, 0), 0);            /* position 32 */
  assert_int_equal(sass_bfe(0x87654321u, 0x0820, 1, 0), 0xffffffffu);
  assert_int_equal(sass_bfe(0x07654321u, 0x08ff, 1, 0), 0);
  assert_int_equal(sass_bfe(0x87654321u, 0xff00, 0, 0), 0x87654321u);  /* length 255 */
  assert_int_equal(sass_bfe(0x00000001u, 0x0100, 0, 1), 0);            /* .BREV: bit 0 becomes bit 31 */
  assert_int_equal(sass_bfe(0x00000001u, 0x011f, 0, 1), 1);
  /* BFI: A's low bits into C */
  assert_int_equal(sass_bfi(0xabu, 0x0808, 0x11223344u), 0x1122ab44u);
  assert_int_equal(sass_bfi(0xffffu, 0x0404, 0), 0xf0u);
  assert_int_equal(sass_bfi(0xfu, 0x081c, 0x01234567u), 0xf1234567u); /* bits past 31 dropped */
  assert_int_equal(sass_bfi(0xfu, 0x0820, 0x01234567u), 0x01234567u); /* position 32 */
  assert_int_equal(sass_bfi(0xfu, 0x0004, 0x01234567u), 0x01234567u); /* length 0 */
  assert_int_equal(sass_bfi(0xdeadbeefu, 0x2000, 0x01234567u), 0xdeadbeefu);
  /* FLO */
  assert_int_equal(sass_flo(0, 0, 0, 0), 0xffffffffu);
  assert_int_equal(sass_flo(1, 0, 0, 0), 0);
  assert_int_equal(sass_flo(0x80000000u, 0, 0, 0), 31);
  assert_int_equal(sass_flo(0x00010000u, 0, 0, 1), 15);
  assert_int_equal(sass_flo(0xffffffffu, 1, 0, 0), 0xffffffffu);  /* -1: no bit differs from the sign */
  assert_int_equal(sass_flo(0xfffffffeu, 1, 0, 0), 0);            /* -2 */
  assert_int_equal(sass_flo(0x80000000u, 1, 0, 0), 30);
  assert_int_equal(sass_flo(0x0000ffffu, 0, 1, 0), 31);           /* ~ first */
  assert_int_equal(sass_flo(0, 0, 0, 1), 0xffffffffu);
  /* POPC */
  assert_int_equal(sass_popc(0, 0), 0);
  assert_int_equal(sass_popc(0xffffffffu, 0), 32);
  assert_int_equal(sass_popc(0x12345678u, 0), 13);
  assert_int_equal(sass_popc(0x12345678u, 1), 19);
  /* SEL, IMNMX */
  assert_int_equal(sass_sel(1, 5, 6), 5);
  assert_int_equal(sass_sel(0, 5, 6), 6);
  assert_int_equal(sass_imnmx(0xffffffffu, 1, 1, 1), 0xffffffffu);
  assert_int_equal(sass_imnmx(0xffffffffu, 1, 0, 1), 1);
  assert_int_equal(sass_imnmx(0xffffffffu, 1, 1, 0), 1);
  assert_int_equal(sass_imnmx(0xffffffffu, 1, 0, 0), 0xffffffffu);
  assert_int_equal(sass_flags_zs(0), SASS_FL_Z);
  assert_int_equal(sass_flags_zs(0x80000000u), SASS_FL_S);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fadd_table),   cmocka_unit_test(test_fmul_table),    cmocka_unit_test(test_ffma_table),
      cmocka_unit_test(test_float_random_modes), cmocka_unit_test(test_float_modifiers), cmocka_unit_test(test_fcmp),
      cmocka_unit_test(test_predicates),   cmocka_unit_test(test_fmnmx),         cmocka_unit_test(test_icmp),
      cmocka_unit_test(test_mufu_special), cmocka_unit_test(test_round_guarded), cmocka_unit_test(test_mufu_accuracy), cmocka_unit_test(test_f2i),
      cmocka_unit_test(test_i2f),          cmocka_unit_test(test_f2f_half),      cmocka_unit_test(test_i2i),
      cmocka_unit_test(test_iadd),         cmocka_unit_test(test_iadd3_iscadd),  cmocka_unit_test(test_imul),
      cmocka_unit_test(test_xmad),         cmocka_unit_test(test_shift_logic),   cmocka_unit_test(test_bitfield),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
