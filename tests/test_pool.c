/* test_pool.c — jobs on several threads: every index runs exactly once, and
 * the reported failure is the lowest failing index for any thread count;
 * the kept threads serve calls of changing sizes, calls from several host
 * threads at once, calls from inside a job and calls in a forked child. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdatomic.h>
#include <signal.h>
#include <threads.h>
#include <unistd.h>
#include <sys/wait.h>
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

/* Jobs that record which worker ran them; 0 when each index ran once on a
 * worker below `threads`, else the first wrong index + 1. */
typedef struct workers {
  atomic_int ran[1000];
  atomic_uint worker[1000];
} workers;

static int note_worker(void *ctx, unsigned index, unsigned worker) {
  workers *w = ctx;
  atomic_fetch_add(&w->ran[index], 1);
  atomic_store(&w->worker[index], worker);
  return GS_OK;
}

static unsigned run_checked(workers *w, unsigned threads, unsigned njobs) {
  for (unsigned i = 0; i < njobs; i++) atomic_store(&w->ran[i], 0), atomic_store(&w->worker[i], 999);
  if (gs_parallel_for(threads, njobs, note_worker, w, NULL) != GS_OK) return 1;
  for (unsigned i = 0; i < njobs; i++)
    if (atomic_load(&w->ran[i]) != 1 || atomic_load(&w->worker[i]) >= threads) return i + 1;
  return 0;
}

/* Calls that need more kept threads, fewer, and one again, each job once
 * on a worker the call has. */
static void test_changing_thread_counts(void **s) {
  (void)s;
  static const unsigned counts[] = {2, 8, 3, 1, 5, 2, 64, 2, 7};
  static workers w;
  for (int round = 0; round < 3; round++)
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
      unsigned bad = run_checked(&w, counts[k], 1000);
      if (bad) fail_msg("%u threads: job %u ran wrongly", counts[k], bad - 1);
      assert_int_equal(run_checked(&w, counts[k], 3), 0); /* fewer jobs than threads */
    }
}

/* Host threads calling at once: one has the kept threads, the others start
 * their own; every call runs every job once. */
#define CALLERS 4
static int caller(void *arg) {
  workers *w = arg;
  for (unsigned k = 0; k < 40; k++)
    if (run_checked(w, 2 + k % 4, 300)) return 1;
  return 0;
}

static void test_callers_at_once(void **s) {
  (void)s;
  static workers w[CALLERS];
  thrd_t t[CALLERS];
  for (int i = 0; i < CALLERS; i++) assert_int_equal(thrd_create(&t[i], caller, &w[i]), thrd_success);
  for (int i = 0; i < CALLERS; i++) {
    int res = -1;
    thrd_join(t[i], &res);
    assert_int_equal(res, 0);
  }
}

/* A job that calls again (the kept threads are the outer call's). */
static atomic_int nested_bad;
static int nested_job(void *ctx, unsigned index, unsigned worker) {
  workers *inner = ctx;
  (void)worker;
  if (run_checked(&inner[index], 3, 200)) atomic_fetch_add(&nested_bad, 1);
  return GS_OK;
}

static void test_call_inside_a_job(void **s) {
  (void)s;
  static workers inner[6];
  atomic_store(&nested_bad, 0);
  assert_int_equal(gs_parallel_for(2, 6, nested_job, inner, NULL), GS_OK);
  assert_int_equal(atomic_load(&nested_bad), 0);
}

/* A forked child has none of its parent's kept threads: its calls start
 * their own and finish (a child waiting for the parent's threads would be
 * stopped by the alarm). */
static void test_forked_child(void **s) {
  (void)s;
  static workers w;
  assert_int_equal(run_checked(&w, 3, 500), 0); /* the parent's kept threads exist */
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    alarm(20);
    _exit(run_checked(&w, 3, 500) || run_checked(&w, 4, 500) ? 1 : 0);
  }
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
  assert_int_equal(run_checked(&w, 3, 500), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_job_once),
      cmocka_unit_test(test_lowest_failure_wins),
      cmocka_unit_test(test_changing_thread_counts),
      cmocka_unit_test(test_callers_at_once),
      cmocka_unit_test(test_call_inside_a_job),
      cmocka_unit_test(test_forked_child),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
