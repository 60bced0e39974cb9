/* exec_fast.c — the fast SASS interpreter (exec.h): a program is prepared
 * once into micro-ops of the lane micro-op layer (src/isa/uop) over the 32
 * lanes of a warp, and run by the layer's loop (run.h) with the SASS
 * micro-ops (exec_fast_run.h) as cases of its switch.
 *
 * The register file the micro-ops address is the warp's own: registers are
 * [register][lane], so register r is the 32-lane vector at byte r × 128,
 * RZ (255) a vector that stays 0, and the scratch vectors sass_warp.t
 * follow as registers 256 up. Every instruction on the fast path starts
 * with SX_GUARD (it counts the step, checks the budget and computes the
 * lanes: the active ones whose guard holds, skipping the instruction when
 * there are none); its operands are resolved at prepare time (registers by
 * offset, immediates as constant vectors (GS_UOP_CONST), a constant-buffer
 * operand read at run time, so a prepared
 * program serves every draw, and |x|, -x into scratch vectors); the
 * operation computes every lane into a scratch vector with num.h's lane
 * functions or a neutral kind whose semantics are exactly SASS's (integer
 * add, logic, shifts), and a masked GS_UOP_MOVE writes the destination;
 * predicates and CC are written in the guarded lanes only.
 *
 * EXIT (flow test T, any guard) is SX_EXIT: its lanes are done and, when
 * no lane is left and the convergence stack is empty, the run is over
 * right there, as the reference's next step would find.
 *
 * Everything else — control flow (BRA, SSY/SYNC, PBK/BRK, EXIT on a CC
 * test, KIL), the I/O instructions (ALD/AST/AL2P/IPA, TEX*, LDC, LDL/STL,
 * S2R), and forms whose CC result is more than Z and S of the result or
 * that read CC — runs through sass_step_ref, the reference interpreter's own step, on the
 * same warp (SX_SLOW), so both paths always mean the same thing. An error
 * found on the fast path (a constant past what is bound, the budget) hands
 * the instruction back to the reference before anything is written, so the
 * error and its message are the reference's own. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <immintrin.h>
#endif
#include "isa/sass/exec.h"
#include "isa/sass/num.h"
#include "isa/sass/table.h"
#include "isa/uop/uop.h"
#if GS_JIT
#include <stdatomic.h>
#include "isa/uop/jit.h"
#endif

_Static_assert(offsetof(sass_warp, t) == sizeof(((sass_warp *)0)->r), "the scratch vectors follow the registers");
_Static_assert((256 + SASS_FAST_TEMPS) * 4 * SASS_LANES <= 65536, "micro-op operands are 16-bit byte offsets");

/* SASS micro-op kinds. */
enum {
  SX_GUARD = GS_UOP_ISA, /* an instruction starts: imm pc, op/side its guard, d micro-ops to its end,
                            b micro-ops to its every-lane copy */
  SX_SKIP,               /* u += d: the end of an instruction's masked copy */
  SX_RUN,                /* a run of d unconditional instructions (pc of the last: a | b << 16) when every
                            lane is active and the budget allows d steps, else u = imm (the first one's guard) */
  SX_GOTO,               /* u = imm */
  SX_SLOW,               /* the instruction at imm runs through sass_step_ref */
  SX_REF,                /* sass_step_ref at w->pc (the run's way back into the reference) */
  SX_CBUF,               /* d = c[addr][imm] in every lane */
  SX_FMODS,              /* d = a with |.| (op) then - (side) */
  SX_CCZS,               /* CC = Z and S of a, in the lanes of the instruction */
  SX_FADD_RN, SX_FMUL_RN, SX_FFMA_RN,
  SX_FADD, SX_FMUL, SX_FFMA, SX_FMNMX, SX_FSET, SX_FSETP, SX_FCMP, SX_MUFU, SX_CVT,
  SX_IADD, SX_IADD3, SX_ISCADD, /* the adders: each lane's CC in, and out when P->wcc */
  SX_IMUL, SX_IMNMX, SX_ISETP, SX_ISET, SX_ICMP,
  SX_LOP, SX_LOP3, SX_LOP_PRED, SX_SHR, SX_BFE, SX_BFI, SX_XMAD, SX_FLO, SX_POPC, SX_SEL, SX_PSETP, SX_PSET,
  SX_CCSET, /* FSET, ISET, PSET .CC */
  SX_EXIT   /* EXIT (flow T) of the lanes gm, imm the pc after it */
};

/* An instruction's fields the micro-ops need (imm of its operation's
 * micro-op indexes them). */
typedef struct sx_par {
  uint32_t flags; /* num.h flag set */
  uint16_t c;     /* operand C: byte offset */
  uint8_t rnd, scale, cmp, ftz, bop, bop2, bf, sat, op, mode, shift;
  uint8_t sa, sb, hi;     /* signedness, inversions, .W, .BREV, ... per operation */
  uint8_t ha, hb, hc;     /* IADD3 half selects */
  uint8_t src, dst;       /* conversions: formats */
  uint8_t x, wcc;         /* ISETP/ISET: .X (CC in); the adders: .CC (CC out) */
  uint8_t pa, paneg, pb, pbneg, pc, pcneg, pd, pd2;
} sx_par;

struct sass_fast {
  const sass_program *p;
  gs_uop *u;
  size_t nu;
  uint32_t *first; /* per instruction: its first micro-op */
  sx_par *par;
  size_t npar;
  const uint32_t (*consts)[SASS_LANES]; /* GS_UOP_CONST's vectors: the immediates */
  size_t fast;     /* instructions prepared as micro-ops */
#if GS_JIT
  _Atomic unsigned runs;      /* runs so far, up to gs_jit_threshold() */
  _Atomic(gs_jit_code *) jit; /* the native code, once submitted */
  _Atomic(gs_jit_fn) fn;      /* its function, once ready */
#endif
};

static const gs_uop sx_ref_uop = {.kind = SX_REF};

/* The first micro-op of the instruction at w->pc; the reference's step
 * when no lane is active or the pc is not an instruction (it says why). */
static inline const gs_uop *sx_locate(const sass_warp *w, const sass_fast *f) {
  if (!w->active) return &sx_ref_uop;
  size_t k = sass_index(f->p, w->pc);
  return k == (size_t)-1 ? &sx_ref_uop : f->u + f->first[k];
}

/* ---- lane functions ---------------------------------------------------------- */

/* FFMA rounding to nearest without flags: the fused multiply-add, inline
 * (one instruction in the copy of the loop compiled with FMA), NaN SASS's. */
static inline uint32_t sx_fma_rn(uint32_t a, uint32_t b, uint32_t c) {
  return sass_nan_canon(gs_lane_u(fmaf(gs_lane_f(a), gs_lane_f(b), gs_lane_f(c))));
}
static inline uint32_t sx_mufu(unsigned op, uint32_t a, unsigned sat) {
  uint32_t r = sass_mufu(op, a);
  return sat ? sass_fsat(r) : r;
}
/* A conversion (its checks passed at prepare time). */
static uint32_t sx_cvt(const sx_par *P, uint32_t b) {
  switch (P->op) {
    case SASS_OP_F2F: return sass_f2f(b, P->src, P->dst, P->rnd, P->flags);
    case SASS_OP_F2I: return sass_f2i(b, P->src, P->dst, P->sb, P->rnd, P->flags);
    case SASS_OP_I2F: return sass_i2f(b, P->src, P->sa, P->hi, P->dst, P->rnd, P->flags);
    default: return sass_i2i(b, P->src, P->sa, P->hi, P->dst, P->sb, P->flags);
  }
}

/* The lanes whose predicate p (negated by neg) holds. */
static inline uint32_t sx_pred_mask(const sass_warp *w, unsigned p, unsigned neg) {
  uint32_t m = 0;
  for (int i = 0; i < 32; i++) m |= (uint32_t)((w->p[i] >> p) & 1u) << i;
  return neg ? ~m : m;
}

/* SX_GUARD at u: counts the step, sets w->pc and *gm (the active lanes
 * whose guard holds); then -1 when the budget is spent (nothing counted:
 * the reference reports it), else how far u moves: 0 to the masked copy
 * after it, u->d past the instruction when no lane runs it, u->b to the
 * copy for every lane when every lane does. */
static inline int sx_guard(sass_warp *w, const gs_uop *u, uint64_t budget, uint32_t *gm) {
  w->pc = u->imm;
  if (w->steps >= budget) return -1;
  w->steps++;
  unsigned gp = u->op, gn = u->side;
  uint32_t g = gn ? 0 : 0xffffffffu; /* PT (bit 7 of every lane's predicates is set) */
  if (gp != SASS_PT) g = sx_pred_mask(w, gp, gn);
  *gm = g & w->active;
  return !*gm ? (int)u->d : *gm == 0xffffffffu ? (int)u->b : 0;
}

/* SX_RUN at u: 1 with its d steps counted and w->pc its last
 * instruction's when every lane is active and the budget allows them all,
 * else 0 (nothing done: the instructions run one by one). */
static inline int sx_run(sass_warp *w, const gs_uop *u, uint64_t budget) {
  if (w->active != 0xffffffffu || w->steps > budget || budget - w->steps < u->d) return 0;
  w->steps += u->d;
  w->pc = (uint32_t)u->a | (uint32_t)u->b << 16;
  return 1;
}

/* SX_EXIT at u for the lanes gm (EXIT with flow test T, as the reference's
 * step runs it): they are done, the pc is the next instruction's. 1 when
 * nothing is left to run (no lane active, the stack empty: the warp is
 * done, as sass_step_ref would find), else 0 (the next instruction, or the
 * reference's step to pop the stack). */
static inline int sx_exit(sass_warp *w, const gs_uop *u, uint32_t gm) {
  w->exited |= gm;
  w->active &= ~gm;
  w->pc = u->imm;
  return !w->active && !w->depth;
}

/* Predicate pd := v[lane] in the lanes of m (PT is not written). */
static inline void sx_pwrite(sass_warp *w, unsigned pd, uint32_t m, const uint8_t *v) {
  if ((pd & 7) == SASS_PT) return;
  for (int i = 0; i < 32; i++) {
    uint8_t keep = (uint8_t)~((uint32_t)((m >> i) & 1u) << pd);
    w->p[i] = (uint8_t)((w->p[i] & keep) | (((uint32_t)v[i] & (m >> i) & 1u) << pd));
  }
}

/* ---- the loop's helpers (exec_fast_run.h) ----------------------------------- */

#define SX_FMODS_FN(x) (((x) & am_) ^ xm_)
#define SX_P const sx_par *P = &f->par[u->imm]
/* pv[lane] = predicate pred (negated by neg) of each lane */
#define SX_PV(pv, pred, neg)                                                  \
  uint8_t pv[32];                                                             \
  do {                                                                        \
    unsigned p_ = (pred), n_ = (neg);                                         \
    for (int i_ = 0; i_ < 32; i_++) pv[i_] = (uint8_t)(((w->p[i_] >> p_) & 1u) ^ n_); \
  } while (0)
/* The vector at byte offset off of the register file: read in place (the
 * file is the warp's uint32_t registers); results go through a local
 * vector, so that a destination that is also a source is read first. */
#define SX_VEC(off) ((const uint32_t *)(const void *)(R + (off)))
/* d = expr of a (operand a), b (operand b) and c (P->c) in every lane i_ */
#define SX_L2(expr)                                                  \
  do {                                                               \
    const uint32_t *a_ = SX_VEC(u->a), *b_ = SX_VEC(u->b);          \
    uint32_t r_[32];                                                 \
    for (int i_ = 0; i_ < 32; i_++) {                                \
      uint32_t a = a_[i_], b = b_[i_];                               \
      (void)a, (void)b;                                              \
      r_[i_] = (expr);                                               \
    }                                                                \
    memcpy(R + u->d, r_, sizeof r_);                                 \
  } while (0)
#define SX_L3(expr)                                                  \
  do {                                                               \
    const uint32_t *a_ = SX_VEC(u->a), *b_ = SX_VEC(u->b), *c_ = SX_VEC(P->c); \
    uint32_t r_[32];                                                 \
    for (int i_ = 0; i_ < 32; i_++) {                                \
      uint32_t a = a_[i_], b = b_[i_], c = c_[i_];                   \
      r_[i_] = (expr);                                               \
    }                                                                \
    memcpy(R + u->d, r_, sizeof r_);                                 \
  } while (0)
/* d = expr of a, b, c (as SX_L3) with cc the lane's CC before the
 * instruction and co (an lvalue expr sets) its CC after, written in the
 * lanes gm when P->wcc: the adders' .X and .CC */
#define SX_CC3(expr)                                                 \
  do {                                                               \
    const uint32_t *a_ = SX_VEC(u->a), *b_ = SX_VEC(u->b), *c_ = SX_VEC(P->c); \
    uint32_t r_[32];                                                 \
    uint8_t ci_[32], co_[32];                                        \
    memcpy(ci_, w->cc, sizeof ci_);                                  \
    for (int i_ = 0; i_ < 32; i_++) {                                \
      uint32_t a = a_[i_], b = b_[i_], c = c_[i_];                   \
      unsigned cc = ci_[i_], co = 0;                                 \
      (void)c, (void)cc;                                             \
      r_[i_] = (expr);                                               \
      co_[i_] = (uint8_t)co;                                         \
    }                                                                \
    memcpy(R + u->d, r_, sizeof r_);                                 \
    if (P->wcc)                                                      \
      for (int i_ = 0; i_ < 32; i_++)                                \
        if (gm >> i_ & 1) w->cc[i_] = co_[i_];                       \
  } while (0)
/* FSETP/ISETP/PSETP: bit 0 of v to P->pd, bit 1 to P->pd2, in the lanes gm */
#define SX_PWRITE2(v)                                                \
  do {                                                               \
    uint8_t v0_[32], v1_[32];                                        \
    for (int i_ = 0; i_ < 32; i_++) v0_[i_] = v[i_] & 1, v1_[i_] = v[i_] >> 1; \
    sx_pwrite(w, P->pd, gm, v0_);                                    \
    sx_pwrite(w, P->pd2, gm, v1_);                                   \
  } while (0)
#define SX_SETP(expr)                                                \
  do {                                                               \
    const uint32_t *a_ = SX_VEC(u->a), *b_ = SX_VEC(u->b);          \
    uint8_t s_[32];                                                  \
    for (int i_ = 0; i_ < 32; i_++) {                                \
      uint32_t a = a_[i_], b = b_[i_];                               \
      s_[i_] = (uint8_t)(expr);                                      \
    }                                                                \
    SX_PWRITE2(s_);                                                  \
  } while (0)

/* run: the layer's loop over 32 lanes with the SASS micro-ops as cases,
 * for the build's instruction set and, on a build without AVX2, again with
 * AVX2, taken at run time on a CPU that has it (as src/isa/qpu/exec.c
 * does). Both copies compute the same bits: every float operation is the
 * same IEEE operation of num.h, -ffp-contract=off. */
#define GS_UOP_N SASS_LANES
#define GS_UOP_PARAMS \
  (sass_warp * w, const sass_fast *f, const sass_io *io, uint64_t budget, const char *name, gs_diag *d)
#define GS_UOP_ENTER                  \
  char *R = (char *)w->r;             \
  uint32_t gm = 0, mk_[2] = {0, 0};   \
  int rc;                             \
  const gs_uop *u = sx_locate(w, f);
#define GS_UOP_COND(c) ((mk_[(c) >> 1] ^ (0u - ((c) & 1u))) & GS_UOP_ALL)
#define GS_UOP_CONSTS (f->consts) /* the immediates, splatted */
#define GS_UOP_ISA_CASES "isa/sass/exec_fast_run.h"

#include "isa/uop/run_clones.h"

#if GS_UOP_RUN_AVX2
static _Atomic int portable;
#endif

int sass_fast_portable(int on) {
#if GS_UOP_RUN_AVX2
  if (on >= 0) portable = on != 0;
  return !portable && GS_UOP_RUN_AVX2_CPU();
#else
  (void)on;
  return 0;
#endif
}

int sass_run_fast_interp(sass_warp *w, const sass_fast *f, const sass_io *io, uint64_t budget, const char *name,
                         gs_diag *d) {
#if GS_UOP_RUN_AVX2
  if (!portable && GS_UOP_RUN_AVX2_CPU()) return run_avx2(w, f, io, budget, name, d);
#endif
  return run_built(w, f, io, budget, name, d);
}

#if GS_JIT
/* Native code (src/isa/uop/jit.h, docs/uops.md "Native code"): a prepared
 * program run gs_jit_threshold() times is compiled, in the background
 * unless gs_jit_sync(); until the code is ready the interpreter above runs
 * it. The compiled function's state is sx_env: mask 1 (the micro-ops'
 * condition 2) is the current instruction's lanes, as mk_[1] in the loop;
 * the register file is the warp's. The neutral kinds (the masked MOVE, the
 * integer adds, logic, shifts, min and max) become host code; the SASS
 * kinds are the escape, exec_fast_run.h's cases as they are (in the copy
 * for the instruction set the interpreter would take). */
typedef struct sx_env {
  uint32_t mk[2];
  sass_warp *w;
  const sass_fast *f;
  const sass_io *io;
  uint64_t budget;
  const char *name;
  gs_diag *d;
} sx_env;

#if defined(__GNUC__)
#define GS_UOP_NOINLINE_ __attribute__((noinline))
#else
#define GS_UOP_NOINLINE_
#endif
#define SX_ESCAPE sx_escape_built
#define SX_ESCAPE_ALL sx_escape_all_built
#include "isa/sass/exec_fast_esc.h"
#undef SX_ESCAPE
#undef SX_ESCAPE_ALL
#if GS_UOP_RUN_AVX2
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#define SX_ESCAPE sx_escape_avx2
#define SX_ESCAPE_ALL sx_escape_all_avx2
#include "isa/sass/exec_fast_esc.h"
#undef SX_ESCAPE
#undef SX_ESCAPE_ALL
#pragma GCC pop_options
#endif

/* The native code of f once it is ready, else NULL (and f counted, and
 * submitted at its threshold). Every micro-op an escape may jump to is an
 * entry: each guard and the copy for every lane after it, each run, each
 * SX_SLOW (the instructions the reference runs, the step off the end);
 * and each run's copy for every lane, where sass_run_fast enters a run
 * it has counted itself. */
static gs_jit_fn sx_native(sass_fast *f) {
  gs_jit_fn fn = atomic_load_explicit(&f->fn, memory_order_acquire);
  if (fn) return fn;
  gs_jit_code *c = atomic_load_explicit(&f->jit, memory_order_acquire);
  if (c) {
    if ((fn = gs_jit_entry(c))) atomic_store_explicit(&f->fn, fn, memory_order_release);
    return fn;
  }
  if (!gs_jit_count_run(&f->runs)) return NULL;
  uint32_t *entries = malloc(2 * f->nu * sizeof *entries), ne = 0;
  if (!entries) return NULL;
  for (uint32_t i = 0; i < f->nu; i++) {
    const gs_uop *g = &f->u[i];
    if (g->kind == SX_GUARD || g->kind == SX_RUN || g->kind == SX_SLOW) entries[ne++] = i;
    if (g->kind == SX_GUARD) entries[ne++] = i + g->b;
    if (g->kind == SX_RUN) entries[ne++] = i + 1; /* its copy for every lane (sass_run_fast) */
  }
  gs_jit_desc d = {.lanes = SASS_LANES, .mask_bits = 32, .mask_off = {-1, offsetof(sx_env, mk[1]), -1, -1, -1, -1, -1, -1},
                   .regs_off = -1, .escape = sx_escape_built, .step_kind = -1};
#if GS_UOP_RUN_AVX2
  if (!portable && GS_UOP_RUN_AVX2_CPU()) d.escape = sx_escape_avx2;
#endif
  c = gs_jit_sync() ? gs_jit_compile(&d, f->u, (uint32_t)f->nu, entries, ne)
                    : gs_jit_submit(&d, f->u, (uint32_t)f->nu, entries, ne);
  free(entries);
  if (!c) return NULL;
  atomic_store_explicit(&f->jit, c, memory_order_release);
  return gs_jit_entry(c);
}

int sass_run_fast(sass_warp *w, const sass_fast *f, const sass_io *io, uint64_t budget, const char *name,
                  gs_diag *d) {
  /* (a warp whose registers are not 64-byte aligned, as native code
   * assumes, runs on the interpreter) */
  gs_jit_fn fn = (uintptr_t)w->r % 64 ? NULL : sx_native((sass_fast *)f);
  if (!fn) return sass_run_fast_interp(w, f, io, budget, name, d);
  sx_env e = {{0, 0}, w, f, io, budget, name, d};
  for (;;) {
    const gs_uop *u = sx_locate(w, f);
    int rc;
    if (u == &sx_ref_uop) { /* no lane active, or not an instruction: the reference's step */
      rc = sass_step_ref(w, f->p, io, budget, name, d);
      if (rc) return rc < 0 ? rc : 0;
      continue;
    }
    if (u->kind == SX_RUN && sx_run(w, u, budget)) { /* the run's copy for every lane, without the escape */
      e.mk[1] = 0xffffffffu;
      u++;
    }
    /* GS_JIT_EXIT only at an instruction's start: every jump goes to an entry */
    if ((rc = fn(&e, (char *)w->r, f->consts, &e, (uint32_t)(u - f->u))) != GS_JIT_EXIT) return rc;
  }
}
#else
int sass_run_fast(sass_warp *w, const sass_fast *f, const sass_io *io, uint64_t budget, const char *name,
                  gs_diag *d) {
  return sass_run_fast_interp(w, f, io, budget, name, d);
}
#endif

/* ---- preparing a program ------------------------------------------------------ */

#define M(id) sass_mod(in, SASS_M_##id)
#define VEC (4 * SASS_LANES)
#define REGO(r) ((uint16_t)((unsigned)(r) * VEC))
#define TMP(k) ((uint16_t)((256u + (k)) * VEC))
enum { T_RES, T_CONST, T_A, T_B, T_C };

typedef struct prep {
  gs_uop *u;
  size_t n, cap;
  sx_par *par;
  size_t npar, pcap;
  uint32_t (*consts)[SASS_LANES]; /* GS_UOP_CONST's vectors */
  size_t nconst, ccap;
  int oom;
  int full;     /* the copy for every lane: results straight to their register */
  uint16_t res; /* where the operation writes its result */
  size_t k;     /* the instruction's number */
} prep;

/* The code offset of instruction k (three in each 32 bytes, after the
 * control word). */
static inline uint32_t insn_pc(size_t k) { return (uint32_t)(k / 3) * 32 + (uint32_t)(k % 3) * 8 + 8; }

/* Whether in is an EXIT the fast path runs: flow test T, any guard (KIL,
 * and EXIT on a CC test, stay with the reference). */
static int fast_exit(const sass_insn *in) { return in->op == SASS_OP_EXIT && sass_mod(in, SASS_M_EXIT_FLOW) == 15; }

static gs_uop *emit(prep *s, unsigned kind) {
  static _Thread_local gs_uop sink; /* out of memory: written, then dropped */
  gs_uop *u = &sink;
  if (s->n == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 256;
    gs_uop *q = realloc(s->u, cap * sizeof *q);
    if (q) s->u = q, s->cap = cap;
    else s->oom = 1;
  }
  if (s->n < s->cap) u = &s->u[s->n++];
  memset(u, 0, sizeof *u);
  u->kind = (uint8_t)kind;
  return u;
}

static uint32_t new_par(prep *s, sx_par **out) {
  static _Thread_local sx_par sink;
  if (s->npar == s->pcap) {
    size_t cap = s->pcap ? 2 * s->pcap : 64;
    sx_par *q = realloc(s->par, cap * sizeof *q);
    if (!q) {
      s->oom = 1;
      memset(&sink, 0, sizeof sink);
      *out = &sink;
      return 0;
    }
    s->par = q, s->pcap = cap;
  }
  *out = &s->par[s->npar];
  memset(*out, 0, sizeof **out);
  return (uint32_t)s->npar++;
}

/* The number of a constant vector holding x in every lane (the last one
 * when it holds x already). */
static uint32_t new_const(prep *s, uint32_t x) {
  if (s->nconst && s->consts[s->nconst - 1][0] == x) return (uint32_t)s->nconst - 1;
  if (s->nconst == s->ccap) {
    size_t cap = s->ccap ? 2 * s->ccap : 16;
    uint32_t(*q)[SASS_LANES] = realloc(s->consts, cap * sizeof *q);
    if (!q) {
      s->oom = 1;
      return 0;
    }
    s->consts = q, s->ccap = cap;
  }
  for (int i = 0; i < SASS_LANES; i++) s->consts[s->nconst][i] = x;
  return (uint32_t)s->nconst++;
}

/* Operand B's vector: a register, or a scratch vector holding the constant
 * (read at run time) or the immediate, as the reference's op_b reads it. */
static uint16_t operand_b(prep *s, const sass_insn *in) {
  switch (in->form) {
    case SASS_FORM_REG: case SASS_FORM_RC: return REGO(in->rb);
    case SASS_FORM_CBUF: case SASS_FORM_CR: return TMP(T_CONST);
    default: { /* the immediate in every lane: a constant vector */
      gs_uop *u = emit(s, GS_UOP_CONST);
      u->d = TMP(T_CONST);
      u->imm = new_const(s, in->imm);
      return TMP(T_CONST);
    }
  }
}
/* Operand C's vector, as op_c reads it. */
static uint16_t operand_c(const sass_insn *in) { return in->form == SASS_FORM_RC ? TMP(T_CONST) : REGO(in->rc); }

/* x with |x| and -x into scratch vector t (x itself without them). */
static uint16_t fmods(prep *s, uint16_t x, unsigned abs, unsigned neg, unsigned t) {
  if (!abs && !neg) return x;
  gs_uop *u = emit(s, SX_FMODS);
  u->d = TMP(t), u->a = x, u->op = (uint8_t)(abs != 0), u->side = (uint8_t)(neg != 0);
  return TMP(t);
}

/* The operation micro-op, its result in the result vector. */
static gs_uop *op3(prep *s, unsigned kind, uint16_t a, uint16_t b, uint32_t par) {
  gs_uop *u = emit(s, kind);
  u->d = s->res, u->a = a, u->b = b, u->imm = par;
  return u;
}

/* Whether in can run as micro-ops, with the fields of its modifiers
 * checked the way the reference's step reads them; emits them if so. The
 * instruction's SX_GUARD is already emitted. Returns 0 when the reference
 * must run it. */
static int prepare_insn(prep *s, const sass_insn *in) {
  sx_par *P;
  uint32_t pi;
  unsigned rd = in->rd, writes = 1, cczs = 0, ccset = 0;
  uint16_t a = REGO(in->ra), b, c;
  unsigned op = in->op;
  /* the copy for every lane writes the result where it goes; the masked
   * copy into the result vector, then under the mask */
  s->res = s->full && rd != SASS_RZ ? REGO(rd) : TMP(T_RES);
  /* first pass: refuse what stays with the reference, before emitting */
  switch (op) {
    case SASS_OP_MOV: case SASS_OP_MOV32I: case SASS_OP_SEL: case SASS_OP_FCMP: case SASS_OP_RRO:
    case SASS_OP_POPC: case SASS_OP_ICMP: case SASS_OP_PSETP: case SASS_OP_FSETP:
    case SASS_OP_NOP: case SASS_OP_DEPBAR: case SASS_OP_MEMBAR: case SASS_OP_BAR:
      break;
    case SASS_OP_FADD: case SASS_OP_FADD32I: cczs = M(FADD_CC); break;
    case SASS_OP_FMUL: case SASS_OP_FMUL32I: cczs = M(FMUL_CC); break;
    case SASS_OP_FFMA: case SASS_OP_FFMA32I: cczs = M(FFMA_CC); break;
    case SASS_OP_FMNMX: cczs = M(FMNMX_CC); break;
    case SASS_OP_FSET: case SASS_OP_PSET: case SASS_OP_ISET: case SASS_OP_ISETP:
      break;
    case SASS_OP_MUFU: break;
    case SASS_OP_F2F: case SASS_OP_F2I: case SASS_OP_I2F: case SASS_OP_I2I: {
      unsigned src, dst;
      switch (op) {
        case SASS_OP_F2F: src = M(F2F_SRC), dst = M(F2F_DST), cczs = M(F2F_CC); break;
        case SASS_OP_F2I: src = M(F2I_SRC), dst = M(F2I_DST) & 3, cczs = M(F2I_CC); break;
        case SASS_OP_I2F: src = M(I2F_SRC) & 3, dst = M(I2F_DST), cczs = M(I2F_CC); break;
        default: src = M(I2I_SRC) & 3, dst = M(I2I_DST) & 3, cczs = M(I2I_CC); break;
      }
      if (!sass_cvt_supported(op, src, dst)) return 0; /* the reference's error */
      break;
    }
    case SASS_OP_IADD: case SASS_OP_IADD32I: case SASS_OP_IADD3: case SASS_OP_ISCADD: case SASS_OP_ISCADD32I:
      break;
    case SASS_OP_IMUL: case SASS_OP_IMUL32I: cczs = M(IMUL_CC); break;
    case SASS_OP_IMNMX: if (M(IMNMX_XMODE)) return 0; cczs = M(IMNMX_CC); break;
    case SASS_OP_LOP: case SASS_OP_LOP32I: if (M(LOP_X)) return 0; cczs = M(LOP_CC); break;
    case SASS_OP_LOP3: if (M(LOP3_X)) return 0; cczs = M(LOP3_CC); break;
    case SASS_OP_SHL: if (M(SHL_X)) return 0; cczs = M(SHL_CC); break;
    case SASS_OP_SHR: if (M(SHR_XMODE)) return 0; cczs = M(SHR_CC); break;
    case SASS_OP_BFE: cczs = M(BFE_CC); break;
    case SASS_OP_BFI: cczs = M(BFI_CC); break;
    case SASS_OP_XMAD: break;
    case SASS_OP_FLO: cczs = M(FLO_CC); break;
    case SASS_OP_EXIT:
      if (!fast_exit(in)) return 0;
      emit(s, SX_EXIT)->imm = insn_pc(s->k + 1);
      return 1;
    default: return 0; /* other control flow, I/O, P2R/R2P, CS2R, ... */
  }
  if (in->form == SASS_FORM_CBUF || in->form == SASS_FORM_CR || in->form == SASS_FORM_RC) {
    gs_uop *u = emit(s, SX_CBUF);
    u->d = TMP(T_CONST), u->addr = in->cbank, u->imm = in->cbyte;
  }
  b = operand_b(s, in);
  c = operand_c(in);
  pi = new_par(s, &P);
  P->c = c;
  switch (op) {
    case SASS_OP_NOP: case SASS_OP_DEPBAR: case SASS_OP_MEMBAR: case SASS_OP_BAR:
      return 1;
    case SASS_OP_MOV: case SASS_OP_MOV32I:
      if (rd != SASS_RZ) {
        gs_uop *u = emit(s, GS_UOP_MOVE);
        u->d = REGO(rd), u->a = b, u->cond = s->full ? 1 : 2; /* every lane: an unmasked move */
      }
      return 1;
    case SASS_OP_RRO: {
      uint16_t x = fmods(s, b, M(RRO_ABS_B), M(RRO_NEG_B), T_RES);
      if (rd != SASS_RZ) {
        gs_uop *u = emit(s, GS_UOP_MOVE);
        u->d = REGO(rd), u->a = x, u->cond = s->full ? 1 : 2;
      }
      return 1;
    }
    case SASS_OP_FADD: case SASS_OP_FADD32I: {
      P->flags = (M(FADD_FTZ) ? SASS_FTZ : 0) | (M(FADD_SAT) ? SASS_SAT : 0), P->rnd = (uint8_t)M(FADD_RND);
      a = fmods(s, a, M(FADD_ABS_A), M(FADD_NEG_A), T_A);
      b = fmods(s, b, M(FADD_ABS_B), M(FADD_NEG_B), T_B);
      op3(s, P->flags || P->rnd ? SX_FADD : SX_FADD_RN, a, b, pi);
      break;
    }
    case SASS_OP_FMUL: case SASS_OP_FMUL32I: {
      unsigned fmz = M(FMUL_FMZ);
      P->flags = (fmz == 1 ? SASS_FTZ : fmz == 2 ? SASS_FMZ : 0) | (M(FMUL_SAT) ? SASS_SAT : 0);
      P->rnd = (uint8_t)M(FMUL_RND), P->scale = (uint8_t)M(FMUL_SCALE);
      a = fmods(s, a, 0, M(FMUL_NEG), T_A);
      op3(s, P->flags || P->rnd || P->scale ? SX_FMUL : SX_FMUL_RN, a, b, pi);
      break;
    }
    case SASS_OP_FFMA: case SASS_OP_FFMA32I: {
      unsigned fmz = M(FFMA_FMZ);
      P->flags = (fmz == 1 ? SASS_FTZ : fmz == 2 ? SASS_FMZ : 0) | (M(FFMA_SAT) ? SASS_SAT : 0);
      P->rnd = (uint8_t)M(FFMA_RND);
      a = fmods(s, a, 0, M(FFMA_NEG_AB), T_A);
      P->c = fmods(s, c, 0, M(FFMA_NEG_C), T_C);
      op3(s, P->flags || P->rnd ? SX_FFMA : SX_FFMA_RN, a, b, pi);
      break;
    }
    case SASS_OP_FMNMX:
      P->pc = (uint8_t)M(FMNMX_PC), P->pcneg = (uint8_t)M(FMNMX_PC_NEG), P->ftz = (uint8_t)M(FMNMX_FTZ);
      a = fmods(s, a, M(FMNMX_ABS_A), M(FMNMX_NEG_A), T_A);
      b = fmods(s, b, M(FMNMX_ABS_B), M(FMNMX_NEG_B), T_B);
      op3(s, SX_FMNMX, a, b, pi);
      break;
    case SASS_OP_FSET:
      P->pc = (uint8_t)M(FSET_PC), P->pcneg = (uint8_t)M(FSET_PC_NEG), P->ftz = (uint8_t)M(FSET_FTZ);
      P->cmp = (uint8_t)M(FSET_CMP), P->bop = (uint8_t)M(FSET_BOP), P->bf = (uint8_t)M(FSET_BF);
      a = fmods(s, a, M(FSET_ABS_A), M(FSET_NEG_A), T_A);
      b = fmods(s, b, M(FSET_ABS_B), M(FSET_NEG_B), T_B);
      op3(s, SX_FSET, a, b, pi);
      ccset = M(FSET_CC) ? 1 + P->bf : 0;
      break;
    case SASS_OP_FSETP:
      P->pc = (uint8_t)M(FSETP_PC), P->pcneg = (uint8_t)M(FSETP_PC_NEG), P->ftz = (uint8_t)M(FSETP_FTZ);
      P->cmp = (uint8_t)M(FSETP_CMP), P->bop = (uint8_t)M(FSETP_BOP);
      P->pd = (uint8_t)M(FSETP_PD), P->pd2 = (uint8_t)M(FSETP_PD2);
      a = fmods(s, a, M(FSETP_ABS_A), M(FSETP_NEG_A), T_A);
      b = fmods(s, b, M(FSETP_ABS_B), M(FSETP_NEG_B), T_B);
      op3(s, SX_FSETP, a, b, pi);
      writes = 0;
      break;
    case SASS_OP_FCMP:
      P->cmp = (uint8_t)M(FCMP_CMP), P->ftz = (uint8_t)M(FCMP_FTZ);
      op3(s, SX_FCMP, a, b, pi);
      break;
    case SASS_OP_MUFU:
      P->op = (uint8_t)M(MUFU_OP), P->sat = (uint8_t)M(MUFU_SAT);
      a = fmods(s, a, M(MUFU_ABS_A), M(MUFU_NEG_A), T_A);
      op3(s, SX_MUFU, a, a, pi);
      break;
    case SASS_OP_F2F: {
      unsigned rnd = M(F2F_RND);
      P->op = (uint8_t)op, P->src = (uint8_t)M(F2F_SRC), P->dst = (uint8_t)M(F2F_DST), P->rnd = (uint8_t)(rnd & 3);
      P->flags = (M(F2F_FTZ) ? SASS_FTZ : 0) | (M(F2F_SAT) ? SASS_SAT : 0) | (M(F2F_ABS_B) ? SASS_ABS : 0) |
                 (M(F2F_NEG_B) ? SASS_NEG : 0) | (M(F2F_H1) ? SASS_H1 : 0) | (rnd >= 4 ? SASS_INT : 0);
      op3(s, SX_CVT, b, b, pi);
      break;
    }
    case SASS_OP_F2I:
      P->op = (uint8_t)op, P->src = (uint8_t)M(F2I_SRC), P->dst = (uint8_t)(M(F2I_DST) & 3);
      P->sb = (uint8_t)((M(F2I_DST) >> 2) & 1), P->rnd = (uint8_t)M(F2I_RND);
      P->flags = (M(F2I_FTZ) ? SASS_FTZ : 0) | (M(F2I_ABS_B) ? SASS_ABS : 0) | (M(F2I_NEG_B) ? SASS_NEG : 0) |
                 (M(F2I_H1) ? SASS_H1 : 0);
      op3(s, SX_CVT, b, b, pi);
      break;
    case SASS_OP_I2F:
      P->op = (uint8_t)op, P->src = (uint8_t)(M(I2F_SRC) & 3), P->sa = (uint8_t)((M(I2F_SRC) >> 2) & 1);
      P->hi = (uint8_t)M(I2F_BSEL), P->dst = (uint8_t)M(I2F_DST), P->rnd = (uint8_t)M(I2F_RND);
      P->flags = (M(I2F_ABS_B) ? SASS_ABS : 0) | (M(I2F_NEG_B) ? SASS_NEG : 0);
      op3(s, SX_CVT, b, b, pi);
      break;
    case SASS_OP_I2I:
      P->op = (uint8_t)op, P->src = (uint8_t)(M(I2I_SRC) & 3), P->sa = (uint8_t)((M(I2I_SRC) >> 2) & 1);
      P->hi = (uint8_t)M(I2I_BSEL), P->dst = (uint8_t)(M(I2I_DST) & 3), P->sb = (uint8_t)((M(I2I_DST) >> 2) & 1);
      P->flags = (M(I2I_ABS_B) ? SASS_ABS : 0) | (M(I2I_NEG_B) ? SASS_NEG : 0) | (M(I2I_SAT) ? SASS_SAT : 0);
      op3(s, SX_CVT, b, b, pi);
      break;
    case SASS_OP_SEL:
      P->pc = (uint8_t)M(SEL_PC), P->pcneg = (uint8_t)M(SEL_PC_NEG);
      op3(s, SX_SEL, a, b, pi);
      break;
    case SASS_OP_IADD: case SASS_OP_IADD32I: {
      unsigned po = M(IADD_PO);
      P->flags = ((M(IADD_NEG_A) || po) ? SASS_INEG_A : 0) | ((M(IADD_NEG_B) || po) ? SASS_INEG_B : 0) |
                 (M(IADD_SAT) ? SASS_ISAT : 0) | (M(IADD_X) ? SASS_IX : 0);
      P->wcc = (uint8_t)M(IADD_CC);
      /* without flags beyond -B it is the neutral add or subtract */
      op3(s, (P->wcc || (P->flags & ~(unsigned)SASS_INEG_B)) ? SX_IADD : P->flags ? GS_UOP_ISUB : GS_UOP_IADD, a, b, pi);
      break;
    }
    case SASS_OP_IADD3:
      P->flags = (M(IADD3_NEG_A) ? SASS_INEG_A : 0) | (M(IADD3_NEG_B) ? SASS_INEG_B : 0) |
                 (M(IADD3_NEG_C) ? SASS_INEG_C : 0) | (M(IADD3_X) ? SASS_IX : 0);
      P->ha = (uint8_t)M(IADD3_HALF_A), P->hb = (uint8_t)M(IADD3_HALF_B), P->hc = (uint8_t)M(IADD3_HALF_C);
      P->mode = (uint8_t)M(IADD3_MODE), P->wcc = (uint8_t)M(IADD3_CC);
      op3(s, SX_IADD3, a, b, pi);
      break;
    case SASS_OP_ISCADD: case SASS_OP_ISCADD32I:
      P->flags = (M(ISCADD_NEG_A) ? SASS_INEG_A : 0) | (M(ISCADD_NEG_B) ? SASS_INEG_B : 0);
      P->shift = (uint8_t)M(ISCADD_SHIFT), P->wcc = (uint8_t)M(ISCADD_CC);
      op3(s, SX_ISCADD, a, b, pi);
      break;
    case SASS_OP_IMUL: case SASS_OP_IMUL32I:
      P->sa = (uint8_t)M(IMUL_SIGNED_A), P->sb = (uint8_t)M(IMUL_SIGNED_B), P->hi = (uint8_t)M(IMUL_HI);
      op3(s, P->hi ? SX_IMUL : GS_UOP_MUL32, a, b, pi); /* the low word does not depend on the signs */
      break;
    case SASS_OP_IMNMX:
      P->sa = (uint8_t)M(IMNMX_SIGNED), P->pc = (uint8_t)M(IMNMX_PC), P->pcneg = (uint8_t)M(IMNMX_PC_NEG);
      if (P->pc == SASS_PT) /* a constant choice: the neutral kinds */
        op3(s, P->pcneg ? (P->sa ? GS_UOP_IMAX : GS_UOP_UMAX) : (P->sa ? GS_UOP_IMIN : GS_UOP_UMIN), a, b, pi);
      else
        op3(s, SX_IMNMX, a, b, pi);
      break;
    case SASS_OP_ISETP:
      P->cmp = (uint8_t)M(ISETP_CMP), P->sa = (uint8_t)M(ISETP_SIGNED), P->bop = (uint8_t)M(ISETP_BOP);
      P->pc = (uint8_t)M(ISETP_PC), P->pcneg = (uint8_t)M(ISETP_PC_NEG);
      P->pd = (uint8_t)M(ISETP_PD), P->pd2 = (uint8_t)M(ISETP_PD2), P->x = (uint8_t)M(ISETP_X);
      op3(s, SX_ISETP, a, b, pi);
      writes = 0;
      break;
    case SASS_OP_ISET:
      P->cmp = (uint8_t)M(ISET_CMP), P->sa = (uint8_t)M(ISET_SIGNED), P->bop = (uint8_t)M(ISET_BOP);
      P->pc = (uint8_t)M(ISET_PC), P->pcneg = (uint8_t)M(ISET_PC_NEG), P->bf = (uint8_t)M(ISET_BF);
      P->x = (uint8_t)M(ISET_X);
      op3(s, SX_ISET, a, b, pi);
      ccset = M(ISET_CC) ? 1 + P->bf : 0;
      break;
    case SASS_OP_ICMP:
      P->cmp = (uint8_t)M(ICMP_CMP), P->sa = (uint8_t)M(ICMP_SIGNED);
      op3(s, SX_ICMP, a, b, pi);
      break;
    case SASS_OP_LOP: case SASS_OP_LOP32I: case SASS_OP_LOP3: {
      int three = op == SASS_OP_LOP3;
      unsigned pop = three ? M(LOP3_PRED_OP) : M(LOP_PRED_OP);
      if (three) {
        P->op = (uint8_t)M(LOP3_LUT);
        op3(s, SX_LOP3, a, b, pi);
      } else {
        unsigned lop = M(LOP_OP), ia = M(LOP_INV_A), ib = M(LOP_INV_B);
        P->op = (uint8_t)lop, P->sa = (uint8_t)ia, P->sb = (uint8_t)ib;
        unsigned kind = ia || ib ? SX_LOP : lop == SASS_LOP_AND ? GS_UOP_AND : lop == SASS_LOP_OR ? GS_UOP_OR
                                          : lop == SASS_LOP_XOR ? GS_UOP_XOR : SX_LOP;
        op3(s, kind, a, b, pi);
      }
      if (pop) {
        /* the predicate output goes after the result: one more record */
        sx_par *Q;
        uint32_t qi = new_par(s, &Q);
        Q->op = (uint8_t)pop, Q->pd = (uint8_t)(three ? M(LOP3_PD) : M(LOP_PD));
        gs_uop *u = emit(s, SX_LOP_PRED);
        u->a = s->res, u->imm = qi;
      }
      break;
    }
    case SASS_OP_SHL:
      op3(s, M(SHL_W) ? GS_UOP_SHL : GS_UOP_SHL_SAT, a, b, pi);
      break;
    case SASS_OP_SHR: {
      unsigned sg = M(SHR_SIGNED), w = M(SHR_W), br = M(SHR_BREV);
      P->sa = (uint8_t)sg, P->sb = (uint8_t)w, P->hi = (uint8_t)br;
      op3(s, br ? SX_SHR : sg ? (w ? GS_UOP_ASR : GS_UOP_ASR_SAT) : (w ? GS_UOP_SHR : GS_UOP_SHR_SAT), a, b, pi);
      break;
    }
    case SASS_OP_BFE:
      P->sa = (uint8_t)M(BFE_SIGNED), P->hi = (uint8_t)M(BFE_BREV);
      op3(s, SX_BFE, a, b, pi);
      break;
    case SASS_OP_BFI:
      op3(s, SX_BFI, a, b, pi);
      break;
    case SASS_OP_XMAD: {
      unsigned sg = M(XMAD_SIGNS);
      P->flags = ((sg & 1) ? SASS_XA_SIGNED : 0) | ((sg & 2) ? SASS_XB_SIGNED : 0) | (M(XMAD_H1_A) ? SASS_XA_H1 : 0) |
                 (M(XMAD_H1_B) ? SASS_XB_H1 : 0) | (M(XMAD_PSL) ? SASS_XPSL : 0) | (M(XMAD_MRG) ? SASS_XMRG : 0) |
                 (M(XMAD_X) ? SASS_IX : 0);
      P->mode = (uint8_t)M(XMAD_MODE), P->wcc = (uint8_t)M(XMAD_CC);
      op3(s, SX_XMAD, a, b, pi);
      break;
    }
    case SASS_OP_FLO:
      P->sa = (uint8_t)M(FLO_SIGNED), P->sb = (uint8_t)M(FLO_INV_B), P->hi = (uint8_t)M(FLO_SH);
      op3(s, SX_FLO, b, b, pi);
      break;
    case SASS_OP_POPC:
      P->sb = (uint8_t)M(POPC_INV_B);
      op3(s, SX_POPC, b, b, pi);
      break;
    case SASS_OP_PSETP:
      P->bop = (uint8_t)M(PSETP_BOP1), P->bop2 = (uint8_t)M(PSETP_BOP2);
      P->pa = (uint8_t)M(PSETP_PA), P->paneg = (uint8_t)M(PSETP_PA_NEG);
      P->pb = (uint8_t)M(PSETP_PB), P->pbneg = (uint8_t)M(PSETP_PB_NEG);
      P->pc = (uint8_t)M(PSETP_PC), P->pcneg = (uint8_t)M(PSETP_PC_NEG);
      P->pd = (uint8_t)M(PSETP_PD), P->pd2 = (uint8_t)M(PSETP_PD2);
      op3(s, SX_PSETP, a, a, pi);
      writes = 0;
      break;
    case SASS_OP_PSET:
      P->bop = (uint8_t)M(PSET_BOP1), P->bop2 = (uint8_t)M(PSET_BOP2), P->bf = (uint8_t)M(PSET_BF);
      P->pa = (uint8_t)M(PSET_PA), P->paneg = (uint8_t)M(PSET_PA_NEG);
      P->pb = (uint8_t)M(PSET_PB), P->pbneg = (uint8_t)M(PSET_PB_NEG);
      P->pc = (uint8_t)M(PSET_PC), P->pcneg = (uint8_t)M(PSET_PC_NEG);
      op3(s, SX_PSET, a, a, pi);
      ccset = M(PSET_CC) ? 1 + P->bf : 0;
      break;
    default:
      return 0; /* not reached: the first switch lets through only the above */
  }
  if (writes && rd != SASS_RZ && !s->full) {
    gs_uop *u = emit(s, GS_UOP_MOVE);
    u->d = REGO(rd), u->a = TMP(T_RES), u->cond = 2;
  }
  if (cczs) {
    gs_uop *u = emit(s, SX_CCZS);
    u->a = s->res;
  }
  if (ccset) { /* FSET, ISET, PSET: Z, and S unless .BF */
    gs_uop *u = emit(s, SX_CCSET);
    u->a = s->res, u->op = (uint8_t)(ccset - 1);
  }
  return 1;
}

sass_fast *sass_prepare_fast(const sass_program *p, gs_diag *d) {
  sass_fast *f = calloc(1, sizeof *f);
  prep s = {0};
  uint8_t *plain = calloc(p->n ? p->n : 1, 1); /* instructions a run may hold */
  if (!f || !plain || !(f->first = malloc((p->n ? p->n : 1) * sizeof *f->first))) goto oom;
  f->p = p;
  for (size_t k = 0; k < p->n; k++) {
    const sass_insn *in = &p->insn[k];
    size_t at = s.n;
    s.k = k;
    f->first[k] = (uint32_t)at;
    gs_uop *g = emit(&s, SX_GUARD);
    g->imm = insn_pc(k), g->op = (uint8_t)(in->guard & 7), g->side = (uint8_t)(in->guard_neg & 1);
    s.full = 0;
    if (!s.oom && prepare_insn(&s, in)) {
      /* [guard] [masked copy] [skip] [copy for every lane] */
      size_t skip = s.n;
      emit(&s, SX_SKIP);
      s.full = 1;
      prepare_insn(&s, in);
      if (s.oom) goto oom;
      f->fast++;
      plain[k] = (in->guard & 7) == SASS_PT && !in->guard_neg && in->form != SASS_FORM_CBUF &&
                 in->form != SASS_FORM_CR && in->form != SASS_FORM_RC;
      if (plain[k] && in->op == SASS_OP_EXIT) plain[k] = 2; /* may end a run */
      s.u[skip].d = (uint16_t)(s.n - skip);
      s.u[at].d = (uint16_t)(s.n - at); /* no lane: the next instruction */
      s.u[at].b = (uint16_t)(skip + 1 - at);
    } else {
      s.n = at; /* drop what was emitted: the reference runs it */
      gs_uop *u = emit(&s, SX_SLOW);
      u->imm = insn_pc(k);
    }
    if (s.oom) goto oom;
  }
  /* running off the end: the reference says where */
  gs_uop *u = emit(&s, SX_SLOW);
  u->imm = p->n ? insn_pc(p->n - 1) + ((insn_pc(p->n - 1) + 8) % 32 == 0 ? 16 : 8) : 8;
  size_t end = s.n - 1;
  /* Runs of two or more instructions that can neither skip a lane nor
   * fail (an unconditional guard, no constant-buffer operand): one SX_RUN
   * counts them all and, when every lane is active, their copies for
   * every lane follow, then the next instruction (its SX_SLOW copied, or
   * SX_GOTO its guard). An unconditional EXIT ends a run (its SX_EXIT
   * leaves the warp done, or moves on as the reference would). The run is
   * entered at its first instruction; otherwise the instructions' own
   * paths run. */
  for (size_t k = 0, j; k < p->n && !s.oom; k = j > k ? j : k + 1) {
    for (j = k; j < p->n && j - k < 4096 && plain[j];)
      if (plain[j++] == 2) break;
    if (j - k < 2) continue;
    size_t at = s.n;
    uint32_t last = insn_pc(j - 1);
    gs_uop *r = emit(&s, SX_RUN);
    r->imm = f->first[k], r->d = (uint16_t)(j - k), r->a = (uint16_t)last, r->b = (uint16_t)(last >> 16);
    s.full = 1;
    for (size_t i = k; i < j; i++) s.k = i, prepare_insn(&s, &p->insn[i]);
    size_t next = j < p->n ? f->first[j] : end;
    if (s.oom) break;
    if (s.u[next].kind == SX_SLOW) {
      gs_uop c = s.u[next];
      *emit(&s, SX_SLOW) = c;
    } else {
      emit(&s, SX_GOTO)->imm = (uint32_t)next;
    }
    f->first[k] = (uint32_t)at;
  }
  if (s.oom) goto oom;
  free(plain);
  f->u = s.u, f->nu = s.n, f->par = s.par, f->npar = s.npar, f->consts = s.consts;
  return f;
oom:
  free(plain);
  free(s.u);
  free(s.par);
  free(s.consts);
  if (f) free(f->first);
  free(f);
  gs_diag_set(d, GS_ENOMEM, "out of memory preparing a SASS program of %zu instructions", p->n);
  return NULL;
}

void sass_fast_free(sass_fast *f) {
  if (!f) return;
#if GS_JIT
  gs_jit_release(atomic_load_explicit(&f->jit, memory_order_acquire));
#endif
  free(f->u);
  free(f->par);
  free((void *)f->consts);
  free(f->first);
  free(f);
}

size_t sass_fast_coverage(const sass_fast *f) { return f ? f->fast : 0; }
