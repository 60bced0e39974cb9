/* exec.c — the fast QPU interpreter: runs predecoded micro-ops (decode.c),
 * each over all 16 lanes at once with lane masks, never branching per lane.
 * Instructions the predecoder left to the reference interpreter run through
 * qpu_step_ref, which shares the QPU state, so the two paths interleave
 * freely and always mean the same thing. */
#include <stdlib.h>
#include <string.h>
#include "core/clones.h"
#include "core/fpmode.h"
#if defined(__SSE2__)
#define HAVE_MXCSR 1
#endif
#if HAVE_MXCSR
#include <immintrin.h> /* every set's intrinsics, for the x86-64-v3 copy of run */
#endif
#include "isa/qpu/alu.h"
#include "isa/qpu/decode.h"
#include "v3d/v3d.h"

/* Lane mask of write condition `cond` under the current flags. */
static inline uint16_t cond_lanes(const gs_qpu *q, unsigned cond) {
  if (cond == 1) return QPU_ALL_LANES; /* most writes: a test, not the switch's jump */
  switch (cond) {
  case 0: return 0;
  case 1: return QPU_ALL_LANES;
  case 2: return q->zf;
  case 3: return (uint16_t)~q->zf;
  case 4: return q->nf;
  case 5: return (uint16_t)~q->nf;
  case 6: return q->cf;
  default: return (uint16_t)~q->cf;
  }
}

/* The reg[] slot at byte offset off (decode.h) of the register array R. */
#define REG(off) (*(gs_vec *)(R + (off)))

/* New flags computed by an instruction; they take effect (UOP_SETF) after
 * its writes, whose conditions see the flags from before the instruction. */
typedef struct new_flags {
  uint16_t z, n, c;
} new_flags;

/* Flags from a result in lanes `lanes`; the other lanes keep theirs. */
static inline void compute_flags(const gs_qpu *q, new_flags *f, const uint32_t *r, const uint32_t *carry,
                                 uint16_t lanes) {
  uint16_t z = 0, n = 0, c = 0;
  for (int i = 0; i < QPU_LANES; i++) {
    z |= (uint16_t)((r[i] == 0) << i);
    n |= (uint16_t)((r[i] >> 31) << i);
    c |= (uint16_t)((carry[i] & 1) << i);
  }
  f->z = (uint16_t)((q->zf & ~lanes) | (z & lanes));
  f->n = (uint16_t)((q->nf & ~lanes) | (n & lanes));
  f->c = (uint16_t)((q->cf & ~lanes) | (c & lanes));
}

/* Branch condition `cond` (QPU_BRANCH_CONDS) over the 16 lanes' flags. */
static int branch_taken(const gs_qpu *q, unsigned cond) {
  if (cond == 15) return 1;
  uint16_t f = cond < 4 ? q->zf : cond < 8 ? q->nf : q->cf;
  if (cond & 1) f = (uint16_t)~f; /* odd codes test "clear" */
  return (cond & 2) ? f != 0 : f == QPU_ALL_LANES;
}

/* Writes the link value of a taken branch through one write port. */
static int write_link(gs_gpu *g, gs_qpu *q, unsigned side, unsigned addr, const gs_vec *v) {
  if (addr == QPU_W_NOP) return GS_OK;
  if (addr < 32) {
    qpu_pending_write *pw = &q->next[q->nnext++];
    pw->v = *v;
    pw->bytes = 0xffffffffu;
    pw->lanes = QPU_ALL_LANES;
    pw->reg = (uint8_t)((side ? QREG_RB0 : QREG_RA0) + addr);
    return GS_OK;
  }
  if (addr <= QPU_W_ACC3) {
    q->reg[QREG_R0 + addr - QPU_W_ACC0] = *v;
    return GS_OK;
  }
  return qpu_io_write(g, q, (int)side, addr, v, QPU_ALL_LANES);
}

/* A branch (RG §3, with vc4asm's corrections): taken on the all/any
 * condition; target = imm (+ pc + 32 if relative) (+ element 15 of ra[n] if
 * register); the link pc + 32 is written only when taken, and an odd raddr_a
 * (bit 45, the ALU form's sf) sets flags from it. */
static int run_branch(gs_gpu *g, gs_qpu *q, const qpu_uop *u) {
  if (!branch_taken(q, u->cond)) return GS_OK;
  uint32_t target = u->imm;
  if (u->op & 1) target += q->pc + 32;
  if (u->op & 2) target += q->reg[QREG_RA0 + u->a].u[15];
  q->branch_target = target;
  q->branch_delay = 4;
  gs_vec link;
  for (int i = 0; i < QPU_LANES; i++) link.u[i] = q->pc + 32;
  int rc;
  if ((rc = write_link(g, q, u->side, u->addr, &link)) < 0) return rc;
  if ((rc = write_link(g, q, !u->side, u->b, &link)) < 0) return rc;
  if (u->a & 1) {
    q->zf = 0;
    q->nf = (uint16_t)((link.u[0] >> 31) ? QPU_ALL_LANES : 0);
    q->cf = 0;
  }
  return GS_OK;
}

/* The first micro-op of the instruction at q->pc, finding (and entering)
 * the program that holds it when the pc has left q->prog; NULL with an
 * error in g when there is none. */
static const qpu_uop *locate(gs_gpu *g, gs_qpu *q) {
  const qpu_program *p = q->prog;
  if (!p || q->pc < p->start || q->pc >= p->end) {
    if (!(p = qpu_find(g, q, q->pc))) return NULL;
    q->prog = p;
    q->dirty[0] |= p->wmask[0], q->dirty[1] |= p->wmask[1];
  }
  return qpu_uop_at(p, q->pc);
}

/* End of an instruction when q->busy says there is more to do than move
 * the pc, as the reference's finish() does. Returns QPU_STEP_END at thread
 * end, 1 when the pc jumped (a branch's delay slots are over), else 0. */
static GS_CLONE_INLINE int finish_busy(gs_qpu *q) {
  int jumped = 0;
#if QPU_BUSY_END_SHIFT_OK
  /* A thread end's delay slots with nothing else pending (the nops after
   * every fragment program's thrend): the steps below come to this. */
  if (!(q->busy & ~((uint64_t)0xff << QPU_BUSY_END_SHIFT)) && q->end_delay > 0) {
    q->pc += 8;
    return --q->end_delay == 0 ? QPU_STEP_END : 0;
  }
#endif
  /* qpu_retire does nothing without staged writes or SFU and r5 results */
  if (q->npend | q->nnext | q->sfu_delay | q->r5_pending) qpu_retire(q);
  if (q->branch_delay > 0 && --q->branch_delay == 0) q->pc = q->branch_target, jumped = 1;
  else q->pc += 8;
  if (q->end_delay > 0 && --q->end_delay == 0) {
    if (q->npend | q->nnext | q->sfu_delay | q->r5_pending) {
      qpu_retire(q);
      qpu_retire(q);
    }
    return QPU_STEP_END;
  }
  return jumped;
}

/* The next of the batches bs, after a batch's thread end. */
static GS_CLONE_INLINE void next_batch(gs_qpu *q, qpu_batches *bs) {
  qpu_copy_quiet(q, bs->fresh, bs->restore);
  qpu_frag_begin(q, bs->sio, ++bs->io, bs->ign);
}

/* run: the lane micro-op layer's loop (src/isa/uop/run.h) over 16 lanes,
 * with the QPU's own micro-ops (exec_run.h) as cases of its switch, for the
 * instruction set the build targets (plain x86-64 by default, GS_NATIVE's
 * -march=native). A build without AVX2 also compiles a copy with AVX2,
 * taken at run time on a CPU that has it, as core/clones.h's GS_CLONES
 * does for a single function; both copies compute the same bits
 * (-ffp-contract=off holds in both, and the float operations are the same
 * IEEE operations on 16 lanes). */
#define GS_UOP_N QPU_LANES
#define GS_UOP_PARAMS (gs_gpu * g, gs_qpu *q, uint32_t max, qpu_batches *bs)
/* each instruction counts itself: the run stops at `stop`; with batches
 * (qpu_run_batches) it starts at their start micro-op while q->prog is
 * their program, else where locate says */
#define GS_UOP_ENTER                                                   \
  char *R = (char *)q->reg;                                            \
  new_flags nf = {0, 0, 0};                                            \
  const uint64_t stop = q->instructions + max;                         \
  int rc;                                                              \
  if (max == 0) return QPU_STEP_OK;                                    \
  const qpu_uop *u = bs && q->prog == bs->p ? bs->start : locate(g, q); \
  if (!u) return qpu_diag(g, q)->code;
/* A thread end (exec_run.h): the run's end, or with batches the next
 * batch's start; qpu_copy_quiet gives each batch the count the first
 * started from, so the stop stays */
#define QPU_RUN_ENDED                                                                    \
  {                                                                                      \
    if (!bs || bs->io == bs->last) return QPU_STEP_END;                                  \
    next_batch(q, bs);                                                                   \
    if (!(u = q->prog == bs->p ? bs->start : locate(g, q))) return qpu_diag(g, q)->code; \
    continue;                                                                            \
  }
#define GS_UOP_COND(c) cond_lanes(q, c)
#define GS_UOP_CONSTS (q->prog->consts)
#define GS_UOP_ISA_CASES "isa/qpu/exec_run.h"

#define GS_UOP_RUN run_built
#include "isa/uop/run.h"
#undef GS_UOP_RUN

#if HAVE_MXCSR && !defined(__AVX2__) && defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define QPU_RUN_AVX2 1
#pragma GCC push_options
#pragma GCC target("avx2")
#define GS_UOP_RUN run_avx2
#include "isa/uop/run.h"
#undef GS_UOP_RUN
#pragma GCC pop_options
#endif

#undef QPU_RUN_ENDED

static int run_interp_batches(gs_gpu *g, gs_qpu *q, uint32_t max, qpu_batches *bs) {
#if QPU_RUN_AVX2
  if (__builtin_cpu_supports("avx2")) return run_avx2(g, q, max, bs);
#endif
  return run_built(g, q, max, bs);
}

static int run_interp(gs_gpu *g, gs_qpu *q, uint32_t max) { return run_interp_batches(g, q, max, NULL); }

#if GS_JIT
/* Native code (src/isa/uop/jit.h, docs/uops.md "Native code"): a program
 * run gs_jit_threshold() times is compiled, in the background unless
 * gs_jit_sync(); until then, and for the step debugger, the interpreter
 * above runs it. The QPU's own micro-ops are the escape below, the cases
 * of exec_run.h as they are; UOP_NEXT's common case is the compiled step. */
#include <stdatomic.h>
#include <stddef.h>
#include "isa/uop/jit.h"

typedef struct jit_env {
  gs_gpu *g;
  gs_qpu *q;
  const qpu_program *p;
  new_flags nf;
  uint64_t stop, limit; /* limit: how far a run may pass the stop (jit.h, step_over) */
} jit_env;

#define QPU_RUN_ENDED return QPU_STEP_END;
#define GS_UOP_L2(fn)                                                           \
  do {                                                                          \
    for (int i_ = 0; i_ < QPU_LANES; i_++) REG(u->d).u[i_] = fn(REG(u->a).u[i_], REG(u->b).u[i_]); \
  } while (0)
static int jit_escape(void *env, char *R, const gs_uop *u, uint32_t *to) {
  jit_env *e = env;
  gs_gpu *g = e->g;
  gs_qpu *q = e->q;
  new_flags nf = e->nf;
  const uint64_t stop = e->stop;
  int rc, first = 1;
  for (;; first = 0) {
    if (!first) { /* exec_run.h moved u to the pc's instruction */
      if (q->prog != e->p) return GS_JIT_EXIT;
      *to = (uint32_t)(u - e->p->uops);
      return GS_JIT_JUMP;
    }
    switch (u->kind) {
#include "isa/qpu/exec_run.h"
    default: break;
    }
    e->nf = nf;
    return GS_JIT_NEXT;
  }
}
#undef GS_UOP_L2
#undef QPU_RUN_ENDED

static gs_jit_fn native(qpu_program *p) {
  gs_jit_code *c = atomic_load_explicit(&p->jit, memory_order_acquire);
  if (c) return gs_jit_entry(c);
  if (!gs_jit_count_run(&p->runs)) return NULL;
  uint32_t n = (p->end - p->start) / 8, nuops = p->insns[n - 1].first_uop;
  while (p->uops[nuops].kind != UOP_LEAVE) nuops++;
  /* Worth it only with straight-line code: RUN instructions in a row that
   * are the layer's own kinds, no I/O, staged write, flags or branch (short
   * programs that leave the code at every tile-buffer write or regfile
   * write ran slower native than interpreted: docs/uops.md). A program
   * compiled at its first run (gs_jit_policy(1, ...): tests, gpusim bench)
   * is compiled whatever it holds. */
  if (gs_jit_threshold() > 1) {
    enum { RUN = 8 };
    uint32_t row = 0, best = 0;
    for (uint32_t i = 0; i < n; i++) {
      const qpu_uop *u = &p->uops[p->insns[i].first_uop];
      while (u->kind < GS_UOP_ISA) u++;
      row = u->kind == UOP_NEXT ? row + 1 : 0;
      if (row > best) best = row;
    }
    if (best < RUN) return NULL; /* for good: runs is past the threshold */
  }
  /* Entries, where straight-line code may start: the first instruction,
   * each branch's target when it is known (not taken from a register) and
   * the instruction its link points to (pc + 32, where a call returns);
   * the compiled code interprets up to the next entry from anywhere else. */
  uint32_t *entries = malloc((2 * n + 1) * sizeof *entries), ne = 0;
  if (!entries) return NULL;
  entries[ne++] = 0;
  for (uint32_t i = 0; i < n; i++) {
    const qpu_uop *u = &p->uops[p->insns[i].first_uop];
    if (u->kind != UOP_BRANCH) continue;
    uint32_t pc = p->start + 8 * i, link = pc + 32;
    if (link < p->end) entries[ne++] = p->insns[(link - p->start) / 8].first_uop;
    if (u->op & 2) continue; /* + a register */
    uint32_t target = u->imm + (u->op & 1 ? link : 0);
    if (target >= p->start && target < p->end && !(target & 7)) entries[ne++] = p->insns[(target - p->start) / 8].first_uop;
  }
  gs_jit_desc d = {.lanes = QPU_LANES, .mask_bits = 16, .mask_off = {-1, offsetof(gs_qpu, zf), offsetof(gs_qpu, nf),
                   offsetof(gs_qpu, cf), -1, -1, -1, -1}, .regs_off = offsetof(gs_qpu, reg), .escape = jit_escape,
                   .step_kind = UOP_NEXT, .step_busy = offsetof(gs_qpu, busy),
                   .step_count = offsetof(gs_qpu, instructions), .step_pc = offsetof(gs_qpu, pc), .step_pc_add = 8,
                   .step_stop = offsetof(jit_env, stop), .step_over = 1, .step_limit = offsetof(jit_env, limit)};
#if QPU_BUSY_END_SHIFT_OK /* the branch's delay slots (finish_busy) */
  d.step_down = 1 + offsetof(gs_qpu, branch_delay) - offsetof(gs_qpu, busy);
#endif
  c = gs_jit_sync() ? gs_jit_compile(&d, p->uops, nuops + 1, entries, ne)
                    : gs_jit_submit(&d, p->uops, nuops + 1, entries, ne);
  free(entries);
  if (!c) return NULL;
  atomic_store_explicit(&p->jit, c, memory_order_release);
  return gs_jit_entry(c);
}

/* With `over`, a run of native code that ends past the stop is not cut
 * (qpu_run_fast_over). */
static int run(gs_gpu *g, gs_qpu *q, uint32_t max, int over) {
  if (max == 0 || g->debug) return run_interp(g, q, max);
  const uint64_t stop = q->instructions + max;
  for (;;) {
    const qpu_uop *u = locate(g, q);
    if (!u) return qpu_diag(g, q)->code;
    qpu_program *p = (qpu_program *)q->prog;
    gs_jit_fn fn = native(p);
    if (!fn) return run_interp(g, q, (uint32_t)(stop - q->instructions));
    jit_env e = {g, q, p, {0, 0, 0}, stop, over ? UINT64_MAX : stop - 1};
    int rc = fn(q, NULL, p->consts, &e, (uint32_t)(u - p->uops));
    if (rc != GS_JIT_EXIT) return rc;
    if (q->instructions >= stop) return QPU_STEP_OK;
  }
}
#else
static int run(gs_gpu *g, gs_qpu *q, uint32_t max, int over) {
  (void)over;
  return run_interp(g, q, max);
}
#endif

int qpu_run_interp_in_env(gs_gpu *g, gs_qpu *q, uint32_t max) { return run_interp(g, q, max); }

int qpu_run_batches(gs_gpu *g, gs_qpu *q, uint32_t max, qpu_batches *b) { return run_interp_batches(g, q, max, b); }

int qpu_interpreted(const qpu_program *p) {
#if GS_JIT /* as native() decides */
  return !atomic_load_explicit(&((qpu_program *)p)->jit, memory_order_acquire) &&
         gs_jit_counted(&((qpu_program *)p)->runs);
#else
  (void)p;
  return 1;
#endif
}

static int run_env(gs_gpu *g, gs_qpu *q, uint32_t max, int over, int in_env) {
#if HAVE_MXCSR
  unsigned csr = _mm_getcsr();
  if (in_env || (csr & GS_MXCSR_FLUSH) == GS_MXCSR_FLUSH) return run(g, q, max, over); /* already set by the caller */
  _mm_setcsr(csr | GS_MXCSR_FLUSH);
  int rc = run(g, q, max, over);
  _mm_setcsr(csr);
  return rc;
#else
  (void)in_env;
  return run(g, q, max, over);
#endif
}

int qpu_run_fast_in_env(gs_gpu *g, gs_qpu *q, uint32_t max) { return run_env(g, q, max, 0, 1); }

int qpu_run_fast(gs_gpu *g, gs_qpu *q, uint32_t max) { return run_env(g, q, max, 0, 0); }

int qpu_run_fast_over(gs_gpu *g, gs_qpu *q, uint32_t max, int in_env) { return run_env(g, q, max, 1, in_env); }
