/* test_pool.c — jobs on several threads: every index runs exactly once, and
 * the reported failure is the lowest failing index for any thread count. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdatomic.h>
#include <cmocka.h>
#include "core/pool.h"
#include "gpusim/diag.h"

typedef struct counts {
  atomic_int ran[1000];
  unsigned fail_from; /* jobs with index >= this and index % 7 == 3 fail */
} counts;

static int job(void *ctx, unsigned index, unsigned worker) {
  counts *c = ctx;
  (void)worker;
  atomic_fetch_add(&c->ran[index], 1);
  return (index >= c->fail_from && index % 7 == 3) ? GS_EFAULT : GS_OK;
}

static void test_every_job_once(void **s) {
  (void)s;
  for (unsigned threads = 1; threads <= 8; threads *= 2) {
    static counts c;
    for (int i = 0; i < 1000; i++) atomic_store(&c.ran[i], 0);
    c.fail_from = 100000;
    assert_int_equal(gs_parallel_for(threads, 1000, job, &c, NULL), GS_OK);
    for (int i = 0; i < 1000; i++) assert_int_equal(atomic_load(&c.ran[i]), 1);
  }
}

static void test_lowest_failure_wins(void **s) {
  (void)s;
  for (unsigned threads = 1; threads <= 8; threads *= 2) {
    static counts c;
    for (int i = 0; i < 1000; i++) atomic_store(&c.ran[i], 0);
    c.fail_from = 495; /* the first failing index is 500 (500 % 7 == 3) */
    unsigned worker = 99;
    assert_int_equal(gs_parallel_for(threads, 1000, job, &c, &worker), GS_EFAULT);
    assert_true(worker < threads);
    for (int i = 0; i <= 500; i++) assert_int_equal(atomic_load(&c.ran[i]), 1); /* all lower ones ran */
  }
  assert_true(gs_cpu_count() >= 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_job_once),
      cmocka_unit_test(test_lowest_failure_wins),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
