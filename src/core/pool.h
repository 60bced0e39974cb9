/* pool.h — running independent jobs (tiles) on several host threads.
 *
 * gs_parallel_for runs job(ctx, index, worker) for every index in
 * [0, njobs) on up to nthreads threads (worker 0 is the calling thread),
 * handing out indices in increasing order. Jobs must be independent: the
 * result then does not depend on the number of threads or on timing.
 *
 * The threads other than the caller are kept for the next call, asleep in
 * between (pool.c says why); a call made while another has them (from
 * another host thread, or from inside a job) starts threads of its own, and
 * a forked child starts its own. Which worker runs a job never matters.
 *
 * When jobs fail, the reported failure is always the one with the lowest
 * index, whatever the thread count: after a failure no job with a higher
 * index starts, while lower ones still run (and may fail in turn). Each
 * worker should keep its error message in its own gs_diag; *fail_worker says
 * which worker's message belongs to the reported failure.
 */
#ifndef GS_CORE_POOL_H
#define GS_CORE_POOL_H

typedef int (*gs_job_fn)(void *ctx, unsigned index, unsigned worker);

/* Returns GS_OK, or the (negative) result of the lowest-index failing job
 * with its worker in *fail_worker (may be NULL). GS_ENOMEM if threads
 * cannot be created (the jobs then run on fewer threads, never not at all). */
int gs_parallel_for(unsigned nthreads, unsigned njobs, gs_job_fn job, void *ctx, unsigned *fail_worker);

/* The number of host CPU cores (at least 1). */
unsigned gs_cpu_count(void);

#endif
