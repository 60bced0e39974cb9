/* pool.c — independent jobs on C11 threads, with a deterministic choice of
 * the reported failure (see pool.h). */
#include <limits.h>
#include <stdlib.h>
#include <threads.h>
#include <unistd.h>
#include "core/pool.h"
#include "gpusim/diag.h"

#define MAX_THREADS 64

typedef struct pool {
  gs_job_fn job;
  void *ctx;
  unsigned njobs;
  mtx_t lock;
  unsigned next;        /* next index to hand out */
  unsigned fail_index;  /* lowest failing index so far, UINT_MAX if none */
  unsigned fail_worker;
  int fail_rc;
} pool;

typedef struct worker_arg {
  pool *p;
  unsigned worker;
} worker_arg;

/* Takes the next index to run, or returns 0 when none is left. */
static int take(pool *p, unsigned *index) {
  mtx_lock(&p->lock);
  int ok = p->next < p->njobs && p->next < p->fail_index;
  if (ok) *index = p->next++;
  mtx_unlock(&p->lock);
  return ok;
}

static int work(void *arg) {
  worker_arg *a = arg;
  pool *p = a->p;
  unsigned index;
  while (take(p, &index)) {
    int rc = p->job(p->ctx, index, a->worker);
    if (rc < 0) {
      mtx_lock(&p->lock);
      if (index < p->fail_index) {
        p->fail_index = index;
        p->fail_worker = a->worker;
        p->fail_rc = rc;
      }
      mtx_unlock(&p->lock);
    }
  }
  return 0;
}

int gs_parallel_for(unsigned nthreads, unsigned njobs, gs_job_fn job, void *ctx, unsigned *fail_worker) {
  pool p;
  p.job = job;
  p.ctx = ctx;
  p.njobs = njobs;
  p.next = 0;
  p.fail_index = UINT_MAX;
  p.fail_worker = 0;
  p.fail_rc = GS_OK;
  if (nthreads < 1) nthreads = 1;
  if (nthreads > MAX_THREADS) nthreads = MAX_THREADS;
  if (nthreads > njobs) nthreads = njobs ? njobs : 1;
  if (mtx_init(&p.lock, mtx_plain) != thrd_success) return GS_ENOMEM;
  thrd_t threads[MAX_THREADS];
  worker_arg args[MAX_THREADS];
  unsigned started = 1;
  for (unsigned t = 0; t < nthreads; t++) args[t] = (worker_arg){&p, t};
  for (unsigned t = 1; t < nthreads; t++, started++)
    if (thrd_create(&threads[t], work, &args[t]) != thrd_success) break;
  work(&args[0]);
  for (unsigned t = 1; t < started; t++) thrd_join(threads[t], NULL);
  mtx_destroy(&p.lock);
  if (fail_worker) *fail_worker = p.fail_worker;
  return p.fail_rc;
}

unsigned gs_cpu_count(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1u : n > MAX_THREADS ? MAX_THREADS : (unsigned)n;
}
