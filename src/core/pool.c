/* pool.c — independent jobs on C11 threads, with a deterministic choice of
 * the reported failure (see pool.h). */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
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

/* The kept threads: started when a call first needs them and kept for the
 * process, each asleep on its own condition until a call hands it a pool.
 * A frame used to start its threads anew, and a new thread waits behind
 * what else runs on the host (the scheduler lets it run only after the
 * others' turn: on this 2-core host with other work, 2 to 11 ms of a 40 ms
 * frame), while a thread woken from sleep is credited and usually runs
 * sooner (docs/pipeline.md, "Threads kept between frames"). One call at a
 * time has them; a call while they are busy (another host thread's, or a
 * job's own) starts threads of its own, as before. */
typedef struct kept_thread {
  cnd_t wake;
  pool *p;             /* the call's pool, set until the thread takes it */
} kept_thread;

static struct {
  mtx_t lock;
  cnd_t done;          /* signalled when the last worker of a call ends */
  bool ok;             /* lock and done exist */
  bool busy;           /* a call has the threads */
  pid_t pid;           /* the process the threads belong to (none survive a fork) */
  unsigned started;    /* kept threads 1..started */
  unsigned running;    /* workers of the current call not yet ended */
  kept_thread t[MAX_THREADS];
} kept;
static once_flag kept_once = ONCE_FLAG_INIT;

static void kept_init(void) {
  kept.ok = mtx_init(&kept.lock, mtx_plain) == thrd_success;
  if (kept.ok && cnd_init(&kept.done) != thrd_success) mtx_destroy(&kept.lock), kept.ok = false;
}

/* Kept thread w: runs the calls handed to it as worker w. */
static int kept_main(void *arg) {
  unsigned w = (unsigned)(uintptr_t)arg;
  kept_thread *k = &kept.t[w];
  mtx_lock(&kept.lock);
  for (;;) {
    while (!k->p) cnd_wait(&k->wake, &kept.lock);
    worker_arg a = {k->p, w};
    k->p = NULL;
    mtx_unlock(&kept.lock);
    work(&a);
    mtx_lock(&kept.lock);
    if (--kept.running == 0) cnd_signal(&kept.done);
  }
  return 0;
}

/* Takes the kept threads for a call of n workers, starting those missing;
 * returns how many workers they make with the caller (at least 1, and n
 * unless threads could not start), or 0 when another call has them. */
static unsigned kept_take(unsigned n) {
  call_once(&kept_once, kept_init);
  if (!kept.ok) return 0;
  mtx_lock(&kept.lock);
  if (kept.pid != getpid()) /* a forked child: none of the threads, nor a call of theirs */
    kept.pid = getpid(), kept.started = 0, kept.busy = false;
  if (kept.busy) return mtx_unlock(&kept.lock), 0;
  for (; kept.started + 1 < n; kept.started++) {
    unsigned w = kept.started + 1;
    thrd_t t;
    kept.t[w].p = NULL;
    if (cnd_init(&kept.t[w].wake) != thrd_success) break;
    if (thrd_create(&t, kept_main, (void *)(uintptr_t)w) != thrd_success) {
      cnd_destroy(&kept.t[w].wake);
      break;
    }
    thrd_detach(t);
  }
  kept.busy = true;
  mtx_unlock(&kept.lock);
  return n < kept.started + 1 ? n : kept.started + 1;
}

/* Runs p on the caller and kept threads 1..n-1, and gives them back. */
static void kept_run(pool *p, unsigned n) {
  mtx_lock(&kept.lock);
  kept.running = n - 1;
  for (unsigned w = 1; w < n; w++) {
    kept.t[w].p = p;
    cnd_signal(&kept.t[w].wake);
  }
  mtx_unlock(&kept.lock);
  worker_arg a = {p, 0};
  work(&a);
  mtx_lock(&kept.lock);
  while (kept.running) cnd_wait(&kept.done, &kept.lock);
  kept.busy = false;
  mtx_unlock(&kept.lock);
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
  unsigned n = nthreads > 1 ? kept_take(nthreads) : 0;
  if (n) {
    kept_run(&p, n);
  } else { /* one thread, or the kept ones are busy: threads of this call's own */
    thrd_t threads[MAX_THREADS];
    worker_arg args[MAX_THREADS];
    unsigned started = 1;
    for (unsigned t = 0; t < nthreads; t++) args[t] = (worker_arg){&p, t};
    for (unsigned t = 1; t < nthreads; t++, started++)
      if (thrd_create(&threads[t], work, &args[t]) != thrd_success) break;
    work(&args[0]);
    for (unsigned t = 1; t < started; t++) thrd_join(threads[t], NULL);
  }
  mtx_destroy(&p.lock);
  if (fail_worker) *fail_worker = p.fail_worker;
  return p.fail_rc;
}

unsigned gs_cpu_count(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1u : n > MAX_THREADS ? MAX_THREADS : (unsigned)n;
}
