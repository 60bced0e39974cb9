/* sched.c — the user-program queue: runs (code, uniforms) pairs on the
 * context's QPUs, as V3D_SRQPC/SRQUA do (RG Table 48).
 *
 * QPUs take turns in a fixed order, each running a quantum of instructions
 * or until it blocks on a semaphore or the mutex, so results never depend on
 * host timing. A quantum may end a few instructions late where native code
 * runs (qpu_run_fast_over: it does not cut a run of its straight-line code);
 * the QPU's next quantum is then as much shorter, so every quantum still
 * ends at the same count of the QPU's instructions as the interpreter's
 * except across instructions that change nothing but the QPU's own
 * registers and flags, which no other QPU sees (docs/uops.md, "Native
 * code"): the order in which the QPUs reach the VPM, the DMA engines, the
 * TMUs, the semaphores, the mutex and memory is the interpreter's.
 * When no running QPU can make progress the run ends with a
 * deadlock error that says what each QPU waits for; a program that runs past
 * its instruction budget ends with a watchdog error naming its QPU and pc.
 */
#include "core/fpmode.h"
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "gpusim/qpu.h"
#include "isa/qpu/decode.h"
#include "isa/qpu/pred.h"
#include "isa/uop/jit.h"
#include "v3d/v3d.h"


/* Describes why q cannot issue the instruction at its pc. */
static void describe_block(gs_gpu *g, gs_qpu *q, char *buf, size_t len) {
  uint64_t w = 0;
  const void *p = gs_mem_ptr(g->mem, q->pc, 8);
  if (p) memcpy(&w, p, 8);
  if (qpu_is_semaphore(w)) {
    unsigned n = qpu_get(w, QPU_F_SEM_NUM);
    snprintf(buf, len, "QPU %d at pc 0x%08x waits to %s semaphore %u (count %u)", q->num, q->pc,
             qpu_get(w, QPU_F_SEM_SA) ? "acquire" : "release", n, qpu_cluster_of(g)->sem[n]);
  } else if (qpu_cluster_of(g)->mutex_owner == q->num) {
    snprintf(buf, len, "QPU %d at pc 0x%08x waits for the mutex it already holds", q->num, q->pc);
  } else {
    snprintf(buf, len, "QPU %d at pc 0x%08x waits for the mutex (held by QPU %d)", q->num, q->pc,
             qpu_cluster_of(g)->mutex_owner);
  }
}

/* The most quanta a lone QPU runs in one call (run_quantum). */
#define QPU_ALONE_QUANTA 4096

/* Runs one quantum of q; returns QPU_STEP_* or a negative error. With
 * in_env the caller has set qpu_fp_env, which the fast interpreter then
 * does not check. *late: how many instructions q's last quantum ran past
 * its end (0 at the start), taken off this one's length. With `alone` (no
 * other QPU runs, so none can meet q at a shared unit between its quanta)
 * the fast interpreter and native code run up to QPU_ALONE_QUANTA quanta
 * in one call, ending where the last of them would end, as long as that is
 * GS_JIT_RUN_STEPS instructions before the watchdog's budget: each quantum
 * would go on where the one before ended, so q ends, stalls or reaches the
 * budget at the same count, and the scheduler's return and native code's
 * exit and re-entry come once in up to a million instructions instead of
 * every 256. The reference interpreter runs one quantum at a time. */
static int run_quantum(gs_gpu *g, gs_qpu *q, int in_env, uint32_t *late, int alone) {
  if (g->cfg.interpreter == GS_INTERP_REFERENCE) { /* one quantum, exactly: the tests' measure */
    for (uint32_t k = 0; k < QPU_QUANTUM; k++) {
      int rc = qpu_step_ref(g, q);
      if (rc != QPU_STEP_OK) return rc;
    }
    return QPU_STEP_OK;
  }
  uint32_t max = QPU_QUANTUM - *late;
  if (alone && q->budget > q->instructions + GS_JIT_RUN_STEPS) {
    uint64_t k = (q->budget - q->instructions - GS_JIT_RUN_STEPS + *late) / QPU_QUANTUM;
    if (k > 1) max = (uint32_t)((k < QPU_ALONE_QUANTA ? k : QPU_ALONE_QUANTA) * QPU_QUANTUM) - *late;
  }
  *late = 0;
  const uint64_t end = q->instructions + max;
  /* near the watchdog's budget the quantum ends exactly, so the watchdog
   * stops the program at the same count */
  if (end + GS_JIT_RUN_STEPS > q->budget)
    return in_env ? qpu_run_fast_in_env(g, q, max) : qpu_run_fast(g, q, max);
  int rc = qpu_run_fast_over(g, q, max, in_env);
  if (q->instructions > end) *late = (uint32_t)(q->instructions - end);
  return rc;
}

static int run_all(gs_gpu *g, const gs_qpu_program *progs, size_t n, gs_qpu_status *st) {
  int nq = g->cfg.qpus;
  long prog_of[QPU_MAX];
  uint32_t late[QPU_MAX] = {0};
  size_t next = 0, done = 0;
  int running = 0; /* QPUs with a program */
  for (int i = 0; i < nq; i++) prog_of[i] = -1;
  while (done < n) {
    /* Start queued programs on idle QPUs, in QPU order. */
    for (int i = 0; i < nq && next < n; i++) {
      if (prog_of[i] >= 0) continue;
      qpu_reset(qpu_cluster_of(g)->qpu[i], i, progs[next].code, progs[next].uniforms, g->cfg.watchdog);
      prog_of[i] = (long)next++;
      late[i] = 0;
      running++;
    }
    int progress = 0;
    for (int i = 0; i < nq; i++) {
      if (prog_of[i] < 0) continue;
      gs_qpu *q = qpu_cluster_of(g)->qpu[i];
      uint64_t before = q->instructions;
      /* alone: the queue is empty, or has to wait for this QPU to end */
      int rc = run_quantum(g, q, 0, &late[i], running == 1);
      if (rc < 0) return rc;
      if (q->instructions != before) progress = 1;
      if (rc == QPU_STEP_END) {
        gs_qpu_status *s = st ? &st[prog_of[i]] : NULL;
        if (s) {
          s->ended = 1;
          s->host_interrupt = q->host_interrupt;
          s->qpu = i;
          s->instructions = q->instructions;
        }
        q->state = QPU_ENDED;
        prog_of[i] = -1;
        running--;
        done++;
        progress = 1;
      } else if (q->instructions > q->budget) {
        const gs_qpu_program *p = &progs[prog_of[i]];
        return qpu_fault(g, q, GS_EWATCHDOG,
                         "watchdog: the program at 0x%08x (uniforms 0x%08x) ran %" PRIu64
                         " instructions without ending (budget %" PRIu64 ")",
                         p->code, p->uniforms, q->instructions, q->budget);
      }
    }
    if (!progress) {
      char msg[GS_DIAG_MAX], one[160];
      snprintf(msg, sizeof msg, "deadlock: no QPU can make progress:");
      for (int i = 0; i < nq; i++) {
        if (prog_of[i] < 0) continue;
        describe_block(g, qpu_cluster_of(g)->qpu[i], one, sizeof one);
        size_t len = strlen(msg);
        snprintf(msg + len, sizeof msg - len, " %s;", one);
      }
      return gs_diag_set(&g->diag, GS_EDEADLOCK, "%s", msg);
    }
  }
  return GS_OK;
}

gs_fp_env qpu_fp_env(const gs_gpu *g, gs_fp_env base) {
  return gs_fp_env_with(base, g->cfg.rounding == GS_ROUND_NEAREST_EVEN ? GS_FP_NEAREST : GS_FP_TOWARD_ZERO,
                        g->cfg.interpreter != GS_INTERP_REFERENCE);
}

/* Runs run(g, arg) with the host rounding mode the context asks for. */
static int with_rounding(gs_gpu *g, int (*run)(gs_gpu *, void *), void *arg) {
  int saved = gs_fp_round_get();
  gs_fp_round_set(g->cfg.rounding == GS_ROUND_NEAREST_EVEN ? GS_FP_NEAREST : GS_FP_TOWARD_ZERO);
  int rc = run(g, arg);
  gs_fp_round_set(saved);
  return rc;
}

static int run_alone(gs_gpu *g, gs_qpu *q, int in_env) {
  uint32_t late = 0;
  for (;;) {
    int rc = run_quantum(g, q, in_env, &late, 1);
    if (rc < 0) return rc;
    if (rc == QPU_STEP_END) {
      q->state = QPU_ENDED;
      return GS_OK;
    }
    if (rc == QPU_STEP_STALL) {
      char why[160];
      describe_block(g, q, why, sizeof why);
      return gs_diag_set(qpu_diag(g, q), GS_EDEADLOCK, "deadlock: %s, and no other QPU runs", why);
    }
    if (q->instructions > q->budget)
      return qpu_fault(g, q, GS_EWATCHDOG, "watchdog: the shader ran %" PRIu64 " instructions without ending (budget %" PRIu64 ")",
                       q->instructions, q->budget);
  }
}

static int run_alone_any_env(gs_gpu *g, void *arg) { return run_alone(g, arg, 0); }

int qpu_run_to_end(gs_gpu *g, gs_qpu *q) { return with_rounding(g, run_alone_any_env, q); }

int qpu_run_to_end_in_env(gs_gpu *g, gs_qpu *q) { return run_alone(g, q, 1); }

typedef struct user_run {
  const gs_qpu_program *progs;
  size_t n;
  gs_qpu_status *st;
} user_run;

static int run_user(gs_gpu *g, void *arg) {
  user_run *r = arg;
  return run_all(g, r->progs, r->n, r->st);
}

int gs_qpu_run_user(gs_gpu *g, const gs_qpu_program *progs, size_t n, gs_qpu_status *st) {
  gs_diag_clear(&g->diag);
  if (n && !progs) return gs_diag_set(&g->diag, GS_EARG, "qpu.run: no programs");
  if (st) memset(st, 0, n * sizeof *st);
  for (size_t i = 0; i < n; i++) {
    if (progs[i].code & 7)
      return gs_diag_set(&g->diag, GS_EARG, "qpu.run: program %zu: code address 0x%08x is not 8-byte aligned",
                         i + 1, progs[i].code);
    if (progs[i].uniforms & 3)
      return gs_diag_set(&g->diag, GS_EARG,
                         "qpu.run: program %zu: uniforms address 0x%08x is not 4-byte aligned", i + 1,
                         progs[i].uniforms);
  }
  qpu_cluster *cl = qpu_cluster_of(g);
  memset(cl->sem, 0, sizeof cl->sem);
  cl->mutex_owner = -1;
  /* fadd/fsub/fmul/itof round in the host's rounding mode (alu.h). */
  user_run r = {progs, n, st};
  int rc = with_rounding(g, run_user, &r);
  qpu_cache_trim(g); /* no QPU runs now */
  return rc;
}
