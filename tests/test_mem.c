/* test_mem.c — simulated GPU memory against a plain model: random
 * allocations, releases and writes in a small memory, every allocation
 * zero-filled however often its bytes were used before (gs_mem_alloc writes
 * only the part that earlier allocations covered), and every allocated byte
 * as the model says. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "gpusim/mem.h"

static uint32_t next(uint32_t *s) { /* xorshift32 */
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return *s;
}

#define LIMIT (1u << 20)
#define SLOTS 24

typedef struct live {
  gs_addr a;
  uint32_t size;
} live;

static void test_alloc_zero_fills_reused_bytes(void **st) {
  (void)st;
  gs_mem *m = gs_mem_new(LIMIT);
  assert_non_null(m);
  uint8_t *model = calloc(LIMIT, 1); /* byte a - GS_MEM_BASE of every allocation */
  assert_non_null(model);
  live slot[SLOTS] = {{0, 0}};
  uint32_t s = 0x9E3779B9u;
  for (int step = 0; step < 20000; step++) {
    live *l = &slot[next(&s) % SLOTS];
    unsigned op = next(&s) % 4;
    if (!l->a) { /* allocate: all zero, whatever was there before */
      uint32_t size = 1 + next(&s) % (next(&s) % 4 == 0 ? 65536 : 512), align = 4u << next(&s) % 10;
      gs_addr a;
      if (gs_mem_alloc(m, size, align, &a, NULL) < 0) continue;
      assert_true(a >= GS_MEM_BASE && a % align == 0 && a - GS_MEM_BASE + size <= LIMIT);
      const uint8_t *p = gs_mem_ptr(m, a, size);
      assert_non_null(p);
      for (uint32_t i = 0; i < size; i++)
        if (p[i]) fail_msg("step %d: byte %u of %u at 0x%08x is 0x%02x, not 0", step, i, size, a, p[i]);
      memset(model + (a - GS_MEM_BASE), 0, size);
      *l = (live){a, size};
    } else if (op == 0) { /* release */
      assert_int_equal(gs_mem_release(m, l->a, NULL), GS_OK);
      *l = (live){0, 0};
    } else { /* write a random run, through gs_mem_write and the model */
      uint32_t at = next(&s) % l->size, len = 1 + next(&s) % (l->size - at);
      uint8_t buf[256];
      if (len > sizeof buf) len = sizeof buf;
      for (uint32_t i = 0; i < len; i++) buf[i] = (uint8_t)(next(&s) | 1u);
      assert_int_equal(gs_mem_write(m, l->a + at, buf, len, NULL), GS_OK);
      memcpy(model + (l->a + at - GS_MEM_BASE), buf, len);
    }
    if (step % 1000 == 999)
      for (int k = 0; k < SLOTS; k++)
        if (slot[k].a) assert_memory_equal(gs_mem_ptr(m, slot[k].a, slot[k].size), model + (slot[k].a - GS_MEM_BASE),
                                           slot[k].size);
  }
  free(model);
  gs_mem_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_alloc_zero_fills_reused_bytes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
