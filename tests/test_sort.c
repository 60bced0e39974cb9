/* test_sort.c — gs_sort_u32 against qsort on random arrays: random values,
 * few distinct values, sorted, reversed and nearly sorted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "core/sort.h"

static uint32_t next(uint32_t *s) { /* xorshift32 */
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return *s;
}

static int cmp(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

static void test_sort_matches_qsort(void **st) {
  (void)st;
  uint32_t s = 0x2545F491u, a[256], want[256];
  for (int n = 0; n < 20000; n++) {
    size_t len = next(&s) % 257;
    unsigned kind = next(&s) % 5;
    for (size_t i = 0; i < len; i++) {
      uint32_t v = next(&s);
      uint32_t up = (uint32_t)i, down = (uint32_t)(len - i);
      a[i] = kind == 0 ? v : kind == 1 ? v % 8 : kind == 2 ? up : kind == 3 ? down : up + v % 5;
    }
    memcpy(want, a, len * sizeof *a);
    qsort(want, len, sizeof *want, cmp);
    gs_sort_u32(a, len);
    if (len && memcmp(a, want, len * sizeof *a))
      fail_msg("array %d (%zu values, kind %u) sorted differently", n, len, kind);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sort_matches_qsort),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
