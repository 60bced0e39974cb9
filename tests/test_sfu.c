/* test_sfu.c — the SFU model (src/v3d/sfu.c): special values, results worked
 * out by hand from the truncation model of docs/v3d-units.md, accuracy
 * bounds against the host's libm on sweeps, and independence from the
 * host's rounding mode. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fenv.h>
#include <math.h>
#include <string.h>
#include "v3d/sfu.h"

static uint32_t bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static float value(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

enum { RECIP, RSQRT, EXP2, LOG2 };
static uint32_t sfu(int fn, uint32_t x) {
  switch (fn) {
  case RECIP: return sfu_recip(x);
  case RSQRT: return sfu_recipsqrt(x);
  case EXP2: return sfu_exp2(x);
  default: return sfu_log2(x);
  }
}
static const char *const fn_names[] = {"recip", "recipsqrt", "exp2", "log2"};

typedef struct sfu_case {
  int fn;
  uint32_t in, out;
} sfu_case;

#define POS_INF 0x7f800000u
#define NEG_INF 0xff800000u
#define NEG_ZERO 0x80000000u
#define DENORMAL 0x00000001u
#define NEG_DENORMAL 0x807fffffu
#define NAN_PATTERN 0x7fc00000u /* an input the QPU reads as +Inf */

static void test_special_values(void **state) {
  (void)state;
  static const sfu_case cases[] = {
      /* recip: zeros (and denormals, which count as zero) give infinities */
      {RECIP, 0, POS_INF},
      {RECIP, NEG_ZERO, NEG_INF},
      {RECIP, DENORMAL, POS_INF},
      {RECIP, NEG_DENORMAL, NEG_INF},
      {RECIP, POS_INF, 0},
      {RECIP, NEG_INF, NEG_ZERO},
      {RECIP, NAN_PATTERN, 0},
      {RECIP, 0x3f800000u, 0x3f800000u},  /* 1 -> 1 */
      {RECIP, 0x40000000u, 0x3f000000u},  /* 2 -> 0.5 */
      {RECIP, 0xc0800000u, 0xbe800000u},  /* -4 -> -0.25 */
      {RECIP, 0x7e800000u, 0x00800000u},  /* 2^126 -> 2^-126, the smallest normal */
      {RECIP, 0x7f000000u, 0},            /* 2^127 -> 2^-127 is denormal: flushed */
      {RECIP, 0x7f7fffffu, 0},            /* largest float */
      {RECIP, 0x00800000u, 0x7e800000u},  /* 2^-126 -> 2^126 */
      /* rsqrt uses |x|; zero gives +Inf whatever its sign */
      {RSQRT, 0, POS_INF},
      {RSQRT, NEG_ZERO, POS_INF},
      {RSQRT, DENORMAL, POS_INF},
      {RSQRT, POS_INF, 0},
      {RSQRT, NEG_INF, 0},
      {RSQRT, 0x40800000u, 0x3f000000u},  /* 4 -> 0.5 */
      {RSQRT, 0xc0800000u, 0x3f000000u},  /* -4 -> 0.5 */
      {RSQRT, 0x3e800000u, 0x40000000u},  /* 0.25 -> 2 */
      {RSQRT, 0x3f800000u, 0x3f800000u},  /* 1 -> 1 */
      {RSQRT, 0x00800000u, 0x5f000000u},  /* 2^-126 -> 2^63 */
      /* exp2 */
      {EXP2, 0, 0x3f800000u},
      {EXP2, NEG_ZERO, 0x3f800000u},
      {EXP2, DENORMAL, 0x3f800000u},
      {EXP2, 0x3f800000u, 0x40000000u},   /* 1 -> 2 */
      {EXP2, 0xbf800000u, 0x3f000000u},   /* -1 -> 0.5 */
      {EXP2, 0x41200000u, 0x44800000u},   /* 10 -> 1024 */
      {EXP2, 0x42fe0000u, 0x7f000000u},   /* 127 -> 2^127 */
      {EXP2, 0x43000000u, POS_INF},       /* 128 -> overflow */
      {EXP2, 0x47c35000u, POS_INF},       /* 1e5 */
      {EXP2, 0xc7c35000u, 0},             /* -1e5 -> 0 */
      {EXP2, 0xc2fc0000u, 0x00800000u},   /* -126 -> 2^-126 */
      {EXP2, 0xc2fe0000u, 0},             /* -127 -> denormal, flushed */
      {EXP2, POS_INF, POS_INF},
      {EXP2, NEG_INF, 0},
      /* tiny arguments (their fixed-point conversion shifts by 33..39 bits):
       * 2^(2^-42) truncates to 1; 2^(-2^-42) = 1 - 2^-42 ln 2 truncates to
       * 1 - 2^-15, mantissa field (2^14 - 1) << 9 */
      {EXP2, 0x2a800000u, 0x3f800000u},
      {EXP2, 0xaa800000u, 0x3f7ffe00u},
      {EXP2, 0x2b7fffffu, 0x3f800000u},   /* just below 2^-40 */
      /* log2 uses |x| */
      {LOG2, 0, NEG_INF},
      {LOG2, NEG_ZERO, NEG_INF},
      {LOG2, DENORMAL, NEG_INF},
      {LOG2, POS_INF, POS_INF},
      {LOG2, NEG_INF, POS_INF},
      {LOG2, NAN_PATTERN, POS_INF},
      {LOG2, 0x3f800000u, 0},             /* 1 -> +0 */
      {LOG2, 0x40000000u, 0x3f800000u},   /* 2 -> 1 */
      {LOG2, 0x3f000000u, 0xbf800000u},   /* 0.5 -> -1 */
      {LOG2, 0xc1000000u, 0x40400000u},   /* -8 -> 3 */
      {LOG2, 0x44800000u, 0x41200000u},   /* 1024 -> 10 */
      {LOG2, 0x00800000u, 0xc2fc0000u},   /* 2^-126 -> -126 */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    uint32_t got = sfu(cases[i].fn, cases[i].in);
    if (got != cases[i].out)
      fail_msg("%s(0x%08x) = 0x%08x, want 0x%08x", fn_names[cases[i].fn], cases[i].in, got, cases[i].out);
  }
}

/* Inexact results, truncated by hand to 14 fraction bits:
 * 1/3 = 1.01010101010101|0101...b x 2^-2 -> mantissa field 0x2aaa00;
 * 1/sqrt(2) = 1.01101010000010|0111...b x 2^-1 -> 0x350400, and 2^0.5 has
 * the same mantissa one octave up, 2^-0.5 the same as 1/sqrt(2);
 * log2(3) = 1 + 0.5849625: floor(0.5849625 * 2^14) = 9584 -> 1 + 9584/16384;
 * log2(0.75) = -0.4150375: floor(-0.4150375 * 2^14) = -6800 -> -6800/16384. */
static void test_truncated_values(void **state) {
  (void)state;
  static const sfu_case cases[] = {
      {RECIP, 0x40400000u, 0x3eaaaa00u},                        /* 1/3 */
      {RECIP, 0xc0400000u, 0xbeaaaa00u},                        /* 1/-3 */
      {RSQRT, 0x40000000u, 0x3f350400u},                        /* 1/sqrt(2) */
      {RSQRT, 0x41000000u, 0x3eb50400u},                        /* 1/sqrt(8) = 2^-1.5 */
      {EXP2, 0x3f000000u, 0x3fb50400u},                         /* 2^0.5 */
      {EXP2, 0xbf000000u, 0x3f350400u},                         /* 2^-0.5 */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    uint32_t got = sfu(cases[i].fn, cases[i].in);
    if (got != cases[i].out)
      fail_msg("%s(0x%08x) = 0x%08x, want 0x%08x", fn_names[cases[i].fn], cases[i].in, got, cases[i].out);
  }
  assert_true(value(sfu_log2(bits(3.0f))) == 1.0f + 9584.0f / 16384.0f);
  assert_true(value(sfu_log2(bits(0.75f))) == -6800.0f / 16384.0f);
  assert_true(value(sfu_log2(bits(-0.75f))) == -6800.0f / 16384.0f);
}

/* A deterministic sweep of normal floats with exponents in [lo, hi]. */
static uint32_t sweep_input(uint32_t i, int lo, int hi, int negative) {
  uint32_t h = i * 2654435761u;
  uint32_t e = (uint32_t)(lo + (int)(i % (uint32_t)(hi - lo + 1)));
  return (negative && (i & 1) ? 0x80000000u : 0) | e << 23 | (h >> 9);
}

/* Every result is the exact value truncated toward zero (toward minus
 * infinity for log2) and within the documented bound of it. */
static void test_accuracy_sweep(void **state) {
  (void)state;
  for (uint32_t i = 0; i < 200000; i++) {
    double x = value(sweep_input(i, 2, 252, 1)); /* recip: results stay normal */
    double exact = 1.0 / x, got = value(sfu_recip(bits((float)x)));
    double rel = (exact - got) / exact;
    if (!(rel >= 0 && rel <= 1e-4)) fail_msg("recip(%.9g) = %.9g, exact %.9g", x, got, exact);

    x = value(sweep_input(i, 1, 254, 1));
    exact = 1.0 / sqrt(fabs(x));
    got = value(sfu_recipsqrt(bits((float)x)));
    rel = (exact - got) / exact;
    if (!(rel >= 0 && rel <= 1e-4)) fail_msg("recipsqrt(%.9g) = %.9g, exact %.9g", x, got, exact);

    x = (double)(int32_t)(i * 2654435761u) / (1 << 24); /* [-128, 128) */
    if (x > -126 && x < 127.9) {
      exact = exp2((double)(float)x);
      got = value(sfu_exp2(bits((float)x)));
      rel = (exact - got) / exact;
      if (!(rel >= 0 && rel <= 1e-4)) fail_msg("exp2(%.9g) = %.9g, exact %.9g", x, got, exact);
    }

    x = value(sweep_input(i, 1, 254, 1));
    exact = log2(fabs(x));
    got = value(sfu_log2(bits((float)x)));
    if (!(exact - got >= 0 && exact - got <= 1e-3)) fail_msg("log2(%.9g) = %.9g, exact %.9g", x, got, exact);
  }
}

/* The measured hardware values of reference/vc4.md §6 are within the same
 * magnitude of error as the model: exp2(pi) = 8.825195 on hardware (true
 * 8.824978), log2(1e5) = 16.60959 (true 16.60964). */
static void test_measured_magnitudes(void **state) {
  (void)state;
  assert_true(fabs(value(sfu_exp2(bits(3.14159265f))) - 8.824978) < 8.824978 * 1e-4);
  assert_true(fabs(value(sfu_log2(bits(1e5f))) - 16.60964) < 1e-4);
}

/* The QPU interpreters run with the rounding mode set toward zero; the SFU
 * must give the same bits in every mode. */
static void test_rounding_mode_independent(void **state) {
  (void)state;
  static const int modes[] = {FE_TOWARDZERO, FE_UPWARD, FE_DOWNWARD};
  uint32_t want[4][500];
  int saved = fegetround();
  fesetround(FE_TONEAREST);
  for (int fn = 0; fn < 4; fn++)
    for (uint32_t i = 0; i < 500; i++) want[fn][i] = sfu(fn, sweep_input(i, 100, 150, 1));
  for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
    fesetround(modes[m]);
    for (int fn = 0; fn < 4; fn++)
      for (uint32_t i = 0; i < 500; i++) {
        uint32_t got = sfu(fn, sweep_input(i, 100, 150, 1));
        if (got != want[fn][i]) {
          fesetround(saved);
          fail_msg("%s(0x%08x) depends on the rounding mode", fn_names[fn], sweep_input(i, 100, 150, 1));
        }
      }
  }
  fesetround(saved);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_special_values),
      cmocka_unit_test(test_truncated_values),
      cmocka_unit_test(test_accuracy_sweep),
      cmocka_unit_test(test_measured_magnitudes),
      cmocka_unit_test(test_rounding_mode_independent),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
