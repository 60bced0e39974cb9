/* uop_random.h — the random operands of the micro-op tests (test_uop.c,
 * test_jit.c): a 64-bit LCG, and values drawn a quarter each from IEEE
 * special cases (zeros, denormals, infinities, NaNs, the int32 limits,
 * 1 + 1.5 ulp), shift counts, floats near 1 and any 32 bits. */
#ifndef GS_TESTS_UOP_RANDOM_H
#define GS_TESTS_UOP_RANDOM_H
#include <stdint.h>

typedef struct rng {
  uint64_t s;
} rng;

static inline uint32_t next(rng *r) {
  r->s = r->s * 6364136223846793005u + 1442695040888963407u;
  return (uint32_t)(r->s >> 32);
}

static const uint32_t uop_specials[] = {
    0x00000000, 0x80000000, 0x00000001, 0x807fffff, 0x00800000, 0x80800000, 0x3f800000, 0xbf800000,
    0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x7f7fffff, 0xff7fffff, 0x4b000000, 0x4f000000,
    0xcf000000, 0x3f800001, 0x7fffffff, 31,         32,         33,         0xffffffff,
    0x33c00000 /* 1.5 x 2^-24: 1 + it is nearer 1 + 2^-23 than 1 */};

static inline uint32_t random_value(rng *r) {
  uint32_t k = next(r) % 4;
  if (k == 0) return uop_specials[next(r) % (sizeof uop_specials / sizeof uop_specials[0])];
  if (k == 1) return next(r) % 64;                           /* shift counts */
  if (k == 2) return 0x3f000000u + (next(r) & 0x01ffffffu); /* floats near 1 */
  return next(r);
}
#endif
