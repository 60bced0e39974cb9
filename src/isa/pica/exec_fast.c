/* exec_fast.c — the PICA200 batch interpreter (exec.h): up to 16 vertices
 * of one program as lanes.
 *
 * A program is predecoded once (pica_fast_compile) into pf_insn: each
 * source resolved to a byte offset in the batch's per-lane register file
 * (v, r), a float uniform's index, or a uniform indexed per lane through
 * a0.x, a0.y or aL; its swizzle as four component numbers and its negation
 * as a sign mask; the destination as a byte offset with the write mask per
 * component; jump targets as they are.
 *
 * Lanes run in groups: a group is a set of lanes with one control state
 * (pc, the CALL, IF and LOOP stacks, the count of instructions run), so
 * every instruction runs once for the group, each operation over the lanes
 * in fixed-length loops the compiler can vectorise, and results are written
 * under the group's lane mask. A batch starts as one group. The flow
 * instructions on uniforms (CALL, CALLU, IFU, JMPU, LOOP, BREAK) act on
 * the group as a whole; those on the cmp flags (IFC, CALLC, JMPC, BREAKC),
 * when the lanes disagree, split the group in two at the instruction —
 * the lanes whose condition holds and the others, each with a copy of the
 * control state — and both run on from there; groups that meet again in
 * one control state are joined (pica_run_batch). A lane
 * therefore meets exactly the instructions the reference runs for it, in
 * the same order, with the same operands (aL is kept per lane and every
 * LOOP entry saves each lane's own). The budget is checked per lane, each
 * lane's count from its own start. Numerics are num.h's lane functions, the
 * reference's own. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "core/clones.h"
#include "isa/pica/exec.h"

void pica_batch_get(const pica_batch *b, unsigned lane, pica_state *s) {
  memset(s, 0, sizeof *s);
  s->mode = b->mode;
  for (unsigned k = 0; k < 16; k++) {
    for (unsigned c = 0; c < 4; c++) {
      s->v[k][c] = b->v[k][c][lane];
      s->r[k][c] = b->r[k][c][lane];
      s->o[k][c] = b->o[k][c][lane];
    }
    s->written[k] = b->written[k][lane];
  }
  memcpy(s->c, b->c, sizeof s->c);
  memcpy(s->i, b->i, sizeof s->i);
  s->b = b->b;
  s->a0[0] = b->a0[0][lane], s->a0[1] = b->a0[1][lane];
  s->al = b->al[lane];
  s->cmp[0] = b->cmp[0][lane], s->cmp[1] = b->cmp[1][lane];
  s->steps = b->steps[lane];
}

/* Lane k's own fields from s. */
static void pf_set_lane(pica_batch *b, unsigned lane, const pica_state *s) {
  for (unsigned k = 0; k < 16; k++) {
    for (unsigned c = 0; c < 4; c++) {
      b->v[k][c][lane] = s->v[k][c];
      b->r[k][c][lane] = s->r[k][c];
      b->o[k][c][lane] = s->o[k][c];
    }
    b->written[k][lane] = s->written[k];
  }
  b->a0[0][lane] = s->a0[0], b->a0[1][lane] = s->a0[1];
  b->al[lane] = s->al;
  b->cmp[0][lane] = (uint8_t)(s->cmp[0] != 0), b->cmp[1][lane] = (uint8_t)(s->cmp[1] != 0);
  b->steps[lane] = s->steps;
}

/* The shared fields from s. */
static void pf_set_shared(pica_batch *b, const pica_state *s) {
  b->mode = s->mode;
  memcpy(b->c, s->c, sizeof b->c);
  memcpy(b->i, s->i, sizeof b->i);
  b->b = s->b;
}

void pica_batch_set(pica_batch *b, unsigned lane, const pica_state *s) {
  pf_set_shared(b, s);
  pf_set_lane(b, lane, s);
}

/* Every lane of the 16-lane vector v set to x. */
static void pf_splat(uint32_t v[PICA_LANES], uint32_t x) {
  for (unsigned l = 0; l < PICA_LANES; l++) v[l] = x;
}

void pica_batch_fill(pica_batch *b, const pica_state *s, unsigned lanes) {
  pf_set_shared(b, s);
  for (unsigned k = 0; k < 16; k++) {
    for (unsigned c = 0; c < 4; c++) {
      pf_splat(b->v[k][c], s->v[k][c]);
      pf_splat(b->r[k][c], s->r[k][c]);
      pf_splat(b->o[k][c], s->o[k][c]);
    }
    for (unsigned l = 0; l < PICA_LANES; l++) b->written[k][l] = s->written[k];
  }
  pf_splat((uint32_t *)b->a0[0], (uint32_t)s->a0[0]);
  pf_splat((uint32_t *)b->a0[1], (uint32_t)s->a0[1]);
  pf_splat((uint32_t *)b->al, (uint32_t)s->al);
  memset(b->cmp[0], s->cmp[0] != 0, sizeof b->cmp[0]);
  memset(b->cmp[1], s->cmp[1] != 0, sizeof b->cmp[1]);
  for (unsigned l = 0; l < PICA_LANES; l++) b->steps[l] = s->steps;
  b->lanes = lanes;
}

/* ---- the predecoded program --------------------------------------------------- */

enum { PF_LANE, PF_UNI, PF_REL }; /* source kinds */

typedef struct pf_src {
  uint8_t kind;
  uint8_t rel;       /* PF_REL: 0 a0.x, 1 a0.y, 2 aL */
  uint8_t direct;    /* PF_LANE read as it is: swizzle xyzw, no negation */
  uint8_t comp[4];   /* swizzle: the source component of each component */
  uint32_t neg;      /* 0x80000000 to negate, else 0 */
  uint32_t off;      /* PF_LANE: byte offset of the register in pica_batch; PF_UNI/PF_REL: c index */
} pf_src;

typedef struct pf_insn {
  uint8_t op;        /* PICA_* (the first of its range) */
  uint8_t mask;      /* components written: bit c for component c (0 x .. 3 w) */
  uint8_t out;       /* the destination is an output register (its written mask follows) */
  uint8_t dreg;      /* destination register number (o or r) */
  uint8_t cmpx, cmpy, condop, refx, refy, uid, num;
  uint32_t dst;      /* byte offset of the destination register in pica_batch */
  uint32_t target;
  pf_src s[3];
} pf_insn;

struct pica_fast {
  pica_program p;
  pf_insn *in;
};

int pica_fast_compile(const pica_program *p, pica_fast **out, gs_diag *d) {
  pica_fast *f = calloc(1, sizeof *f);
  pf_insn *in = calloc(p->n ? p->n : 1, sizeof *in);
  if (!f || !in) {
    free(f), free(in);
    return gs_diag_set(d, GS_ENOMEM, "PICA200 batch interpreter: out of memory for %zu words", p->n);
  }
  for (size_t k = 0; k < p->n; k++) {
    const pica_insn *x = &p->insn[k];
    pf_insn *y = &in[k];
    y->op = x->op;
    for (unsigned c = 0; c < 4; c++)
      if (x->mask & (8u >> c)) y->mask |= (uint8_t)(1u << c);
    y->out = x->dst < PICA_REG_R;
    y->dreg = (uint8_t)(x->dst & 15);
    y->dst = (uint32_t)(y->out ? offsetof(pica_batch, o) : offsetof(pica_batch, r)) +
             (uint32_t)(x->dst & 15) * (uint32_t)sizeof(((pica_batch *)0)->r[0]);
    y->cmpx = x->cmpx, y->cmpy = x->cmpy, y->condop = x->condop, y->refx = x->refx, y->refy = x->refy;
    y->uid = x->uid, y->num = x->num, y->target = x->target;
    for (unsigned j = 0; j < 3; j++) {
      const pica_src *a = &x->src[j];
      pf_src *b = &y->s[j];
      for (unsigned c = 0; c < 4; c++) b->comp[c] = (uint8_t)pica_swz_comp(a->swz, c);
      b->neg = a->neg ? 0x80000000u : 0;
      if (a->reg < PICA_REG_C) {
        b->kind = PF_LANE;
        b->off = (uint32_t)(a->reg < PICA_REG_R ? offsetof(pica_batch, v) : offsetof(pica_batch, r)) +
                 (uint32_t)(a->reg & 15) * (uint32_t)sizeof(((pica_batch *)0)->r[0]);
        b->direct = a->swz == 0x1B && !a->neg;
      } else {
        /* relative addressing applies to uniforms only (exec_ref.c) */
        b->kind = a->idx == PICA_IDX_NONE ? PF_UNI : PF_REL;
        b->rel = (uint8_t)(a->idx - 1);
        b->off = (uint32_t)(a->reg - PICA_REG_C);
      }
    }
  }
  f->p = *p;
  f->in = in;
  *out = f;
  return GS_OK;
}

void pica_fast_free(pica_fast *f) {
  if (!f) return;
  free(f->in);
  free(f);
}

/* ---- groups ------------------------------------------------------------------- */

typedef struct pf_loop {
  uint32_t entry, end, count;
  int32_t inc;
} pf_loop;

typedef struct pf_group {
  uint32_t mask;     /* its lanes */
  uint32_t pc;
  uint64_t steps;    /* instructions run by the group in this batch */
  uint64_t limit;    /* steps at which its first lane reaches the budget */
  unsigned ncall, nif, nloop;
  pica_call call[PICA_CALL_DEPTH];
  pica_if ifs[PICA_IF_DEPTH];
  pf_loop loop[PICA_LOOP_DEPTH];
  int32_t saved_al[PICA_LOOP_DEPTH][PICA_LANES];
} pf_group;

/* The run's shared state: the lowest failing lane so far. */
typedef struct pf_run {
  pica_batch *b;
  const pica_fast *f;
  uint64_t budget;
  int fail_lane, fail_kind;
  uint32_t fail_pc;
} pf_run;

static void pf_fail(pf_run *R, uint32_t lanes, int kind, uint32_t pc) {
  int lane = __builtin_ctz(lanes);
  if (R->fail_lane < 0 || lane < R->fail_lane) R->fail_lane = lane, R->fail_kind = kind, R->fail_pc = pc;
}

/* The group's steps at which its first lane reaches the budget. */
static uint64_t pf_limit(const pica_batch *b, uint32_t mask, uint64_t budget) {
  uint64_t top = 0;
  for (uint32_t m = mask; m; m &= m - 1) {
    uint64_t s = b->steps[__builtin_ctz(m)];
    if (s > top) top = s;
  }
  return top >= budget ? 0 : budget - top;
}

/* Ends the group's lanes in lanes: their step counts. */
static void pf_retire(pf_run *R, const pf_group *g, uint32_t lanes) {
  for (uint32_t m = lanes; m; m &= m - 1) R->b->steps[__builtin_ctz(m)] += g->steps;
}

/* ---- operands ----------------------------------------------------------------- */

typedef uint32_t pf_vec[4][PICA_LANES];

typedef const uint32_t (*pf_ptr)[PICA_LANES];

/* Source s's 4 components x 16 lanes: the register itself when it is read
 * as it is (a v or r register, swizzle xyzw, no negation), else out filled. */
static GS_CLONE_INLINE pf_ptr pf_read(const pica_batch *b, const pf_src *s, pf_vec out) {
  const uint32_t neg = s->neg; /* locals: out may alias what s points to, as far as the compiler knows */
  if (s->direct) return (pf_ptr)(const void *)((const char *)b + s->off);
  if (s->kind == PF_LANE) {
    const char *base = (const char *)b + s->off;
    for (unsigned c = 0; c < 4; c++) {
      uint32_t v[PICA_LANES];
      memcpy(v, base + (size_t)s->comp[c] * sizeof v, sizeof v);
      for (unsigned l = 0; l < PICA_LANES; l++) v[l] ^= neg;
      memcpy(out[c], v, sizeof v);
    }
  } else if (s->kind == PF_UNI) {
    for (unsigned c = 0; c < 4; c++) {
      uint32_t x = (s->off < 96 ? b->c[s->off][s->comp[c]] : PICA_ONE) ^ neg, v[PICA_LANES];
      for (unsigned l = 0; l < PICA_LANES; l++) v[l] = x;
      memcpy(out[c], v, sizeof v);
    }
  } else {
    /* an offset outside a signed byte counts as 0; the index wraps at 128;
     * 96 and up read 1.0 (exec_ref.c) */
    const int32_t *offs = s->rel == 0 ? b->a0[0] : s->rel == 1 ? b->a0[1] : b->al;
    for (unsigned l = 0; l < PICA_LANES; l++) {
      int32_t o = offs[l];
      if (o < -128 || o > 127) o = 0;
      unsigned idx = (unsigned)((int32_t)s->off + o) & 0x7fu;
      for (unsigned c = 0; c < 4; c++) out[c][l] = (idx < 96 ? b->c[idx][s->comp[c]] : PICA_ONE) ^ s->neg;
    }
  }
  return (pf_ptr)out;
}

/* Writes the instruction's components of r in the lanes of lm (all ones or
 * zero per lane). */
static GS_CLONE_INLINE void pf_write(pica_batch *b, const pf_insn *in, const pf_vec r, const uint32_t lm[PICA_LANES]) {
  char *base = (char *)b + in->dst;
  const unsigned mask = in->mask;
  uint32_t m[PICA_LANES];
  memcpy(m, lm, sizeof m);
  for (unsigned c = 0; c < 4; c++) {
    if (!(mask & (1u << c))) continue;
    uint32_t v[PICA_LANES], x[PICA_LANES];
    memcpy(v, base + c * sizeof v, sizeof v);
    memcpy(x, r[c], sizeof x);
    for (unsigned l = 0; l < PICA_LANES; l++) v[l] = (x[l] & m[l]) | (v[l] & ~m[l]);
    memcpy(base + c * sizeof v, v, sizeof v);
  }
  if (in->out) {
    uint16_t w[PICA_LANES];
    memcpy(w, b->written[in->dreg], sizeof w);
    for (unsigned l = 0; l < PICA_LANES; l++) w[l] |= (uint16_t)(mask & m[l]);
    memcpy(b->written[in->dreg], w, sizeof w);
  }
}

/* The lanes (of mask) whose format-2 condition holds. */
static uint32_t pf_cond(const pica_batch *b, const pf_insn *in, uint32_t mask) {
  uint32_t m = 0;
  for (unsigned l = 0; l < PICA_LANES; l++)
    m |= (uint32_t)pica_cond(in->condop, in->refx, in->refy, b->cmp[0][l], b->cmp[1][l]) << l;
  return m & mask;
}

/* Pushes on a ring of depth n: a full ring loses its oldest entry (as the
 * reference's PUSH; returns the slot). */
#define PF_PUSH(arr, cnt, depth)                                          \
  ((cnt) == (depth) ? (memmove(&(arr)[0], &(arr)[1], ((depth) - 1) * sizeof (arr)[0]), (depth) - 1) : (cnt)++)

/* ---- the operations over lanes ------------------------------------------------------
 *
 * Each kernel runs one of num.h's lane forms over the 4 components x 16
 * lanes of its operands (a dot product over the 16 lanes), compiled for
 * plain x86-64 and with AVX2 (core/clones.h), where GCC vectorises them. */

#define PF_K2(name, fn)                                                                        \
  GS_CLONES static void name(uint32_t *restrict q, const uint32_t *restrict a, const uint32_t *restrict b) { \
    for (unsigned i = 0; i < 4 * PICA_LANES; i++) q[i] = fn(a[i], b[i]);                      \
  }
#define PF_K3(name, fn)                                                                        \
  GS_CLONES static void name(uint32_t *restrict q, const uint32_t *restrict a, const uint32_t *restrict b, \
                             const uint32_t *restrict c) {                                     \
    for (unsigned i = 0; i < 4 * PICA_LANES; i++) q[i] = fn(a[i], b[i], c[i]);                \
  }
#define PF_KDOT(name, fn, n, dph)                                                              \
  GS_CLONES static void name(uint32_t *restrict q, const uint32_t *restrict a, const uint32_t *restrict b) { \
    const unsigned L = PICA_LANES;                                                             \
    for (unsigned l = 0; l < L; l++)                                                           \
      q[l] = fn(a[l], a[L + l], a[2 * L + l], a[3 * L + l], b[l], b[L + l], b[2 * L + l], b[3 * L + l], n, dph); \
  }
PF_K2(pf_add24, pica_add_f24)
PF_K2(pf_add32, pica_add_f32)
PF_K2(pf_mul24, pica_mul_f24)
PF_K2(pf_mul32, pica_mul_f32)
PF_K2(pf_max, pica_max_l)
PF_K2(pf_min, pica_min_l)
PF_K2(pf_sge, pica_sge_l)
PF_K2(pf_slt, pica_slt_l)
PF_K3(pf_mad24, pica_mad_f24)
PF_K3(pf_mad32, pica_mad_f32)
PF_KDOT(pf_dp3_24, pica_dot_f24, 3, 0)
PF_KDOT(pf_dp4_24, pica_dot_f24, 4, 0)
PF_KDOT(pf_dph_24, pica_dot_f24, 4, 1)
PF_KDOT(pf_dp3_32, pica_dot_f32, 3, 0)
PF_KDOT(pf_dp4_32, pica_dot_f32, 4, 0)
PF_KDOT(pf_dph_32, pica_dot_f32, 4, 1)

typedef void (*pf_k2)(uint32_t *restrict, const uint32_t *restrict, const uint32_t *restrict);

/* ---- one group ---------------------------------------------------------------- */

/* Runs group g until its lanes end or fail (returns 0) or, after one
 * instruction at least, its pc reaches `stop` (returns 2). A condition its
 * lanes disagree on moves the lanes where it holds into a new group at
 * *spawn, stopped before the instruction (*spawned = 1), while g runs it
 * with the other lanes and returns 2 after it. */
GS_CLONES static int pf_run_group(pf_run *R, pf_group *g, pf_group *spawn, uint32_t stop, int *spawned) {
  pica_batch *b = R->b;
  const pf_insn *prog = R->f->in;
  const size_t n = R->f->p.n;
  const pica_num_mode m = b->mode;
  uint32_t lm[PICA_LANES];
  for (unsigned l = 0; l < PICA_LANES; l++) lm[l] = 0u - ((g->mask >> l) & 1u);
  *spawned = 0;
  for (int first = 1;; first = 0) {
    uint32_t pc = g->pc;
    if (pc >= stop && !first) return 2;
    if (pc >= n) {
      pf_fail(R, g->mask, PICA_FAULT_PC, pc);
      pf_retire(R, g, g->mask);
      return 0;
    }
    if (g->steps >= g->limit) {
      /* the lanes at the budget fail; the others go on */
      uint32_t out = 0;
      for (uint32_t mm = g->mask; mm; mm &= mm - 1) {
        unsigned l = (unsigned)__builtin_ctz(mm);
        if (b->steps[l] + g->steps >= R->budget) out |= 1u << l;
      }
      pf_fail(R, out, PICA_FAULT_BUDGET, pc);
      pf_retire(R, g, out);
      g->mask &= ~out;
      if (!g->mask) return 0;
      for (unsigned l = 0; l < PICA_LANES; l++) lm[l] = 0u - ((g->mask >> l) & 1u);
      g->limit = pf_limit(b, g->mask, R->budget);
      continue;
    }
    const pf_insn *in = &prog[pc];
    /* a condition the lanes disagree on splits the group first */
    if (in->op == PICA_BREAKC || in->op == PICA_CALLC || in->op == PICA_IFC || in->op == PICA_JMPC) {
      uint32_t t = pf_cond(b, in, g->mask);
      if (t && t != g->mask) {
        *spawn = *g;
        spawn->mask = t;
        spawn->limit = pf_limit(b, t, R->budget);
        g->mask &= ~t;
        g->limit = pf_limit(b, g->mask, R->budget);
        for (unsigned l = 0; l < PICA_LANES; l++) lm[l] = 0u - ((g->mask >> l) & 1u);
        *spawned = 1; /* g runs the instruction without t's lanes, then returns */
      }
    }
    g->steps++;
    pf_vec As, Bs, Cs, Q;
    pf_ptr A, B, C;
    uint32_t next = pc + 1;
    int brk = 0;
    switch (in->op) {
      case PICA_ADD: case PICA_MUL: case PICA_MAX: case PICA_MIN: case PICA_SGE: case PICA_SGEI: case PICA_SLT:
      case PICA_SLTI: {
        pf_k2 k = in->op == PICA_ADD ? (m == PICA_NUM_F32 ? pf_add32 : pf_add24)
                : in->op == PICA_MUL ? (m == PICA_NUM_F32 ? pf_mul32 : pf_mul24)
                : in->op == PICA_MAX ? pf_max : in->op == PICA_MIN ? pf_min
                : (in->op == PICA_SGE || in->op == PICA_SGEI) ? pf_sge : pf_slt;
        A = pf_read(b, &in->s[0], As), B = pf_read(b, &in->s[1], Bs);
        k(Q[0], A[0], B[0]);
        pf_write(b, in, Q, lm);
        break;
      }
      case PICA_DP3: case PICA_DP4: case PICA_DPH: case PICA_DPHI: {
        pf_k2 k = in->op == PICA_DP3 ? (m == PICA_NUM_F32 ? pf_dp3_32 : pf_dp3_24)
                : in->op == PICA_DP4 ? (m == PICA_NUM_F32 ? pf_dp4_32 : pf_dp4_24)
                : (m == PICA_NUM_F32 ? pf_dph_32 : pf_dph_24);
        A = pf_read(b, &in->s[0], As), B = pf_read(b, &in->s[1], Bs);
        k(Q[0], A[0], B[0]);
        memcpy(Q[1], Q[0], sizeof Q[0]), memcpy(Q[2], Q[0], sizeof Q[0]), memcpy(Q[3], Q[0], sizeof Q[0]);
        pf_write(b, in, Q, lm);
        break;
      }
      case PICA_DST: case PICA_DSTI:
        A = pf_read(b, &in->s[0], As), B = pf_read(b, &in->s[1], Bs);
        for (unsigned l = 0; l < PICA_LANES; l++) {
          uint32_t a[4] = {A[0][l], A[1][l], A[2][l], A[3][l]}, x[4] = {B[0][l], B[1][l], B[2][l], B[3][l]}, r[4];
          pica_dst(a, x, r, m);
          for (unsigned c = 0; c < 4; c++) Q[c][l] = r[c];
        }
        pf_write(b, in, Q, lm);
        break;
      case PICA_EX2: case PICA_LG2: case PICA_RCP: case PICA_RSQ:
        A = pf_read(b, &in->s[0], As);
        for (unsigned l = 0; l < PICA_LANES; l++) {
          uint32_t a = A[0][l];
          Q[0][l] = in->op == PICA_EX2 ? pica_ex2(a, m) : in->op == PICA_LG2 ? pica_lg2(a, m)
                  : in->op == PICA_RCP ? pica_rcp(a, m) : pica_rsq(a, m);
        }
        memcpy(Q[1], Q[0], sizeof Q[0]), memcpy(Q[2], Q[0], sizeof Q[0]), memcpy(Q[3], Q[0], sizeof Q[0]);
        pf_write(b, in, Q, lm);
        break;
      case PICA_LITP:
        A = pf_read(b, &in->s[0], As);
        for (unsigned l = 0; l < PICA_LANES; l++) {
          uint32_t a[4] = {A[0][l], A[1][l], A[2][l], A[3][l]}, r[4];
          int cf[2];
          pica_litp(a, r, cf);
          for (unsigned c = 0; c < 4; c++) Q[c][l] = r[c];
          if (lm[l]) b->cmp[0][l] = (uint8_t)cf[0], b->cmp[1][l] = (uint8_t)cf[1];
        }
        pf_write(b, in, Q, lm);
        break;
      case PICA_FLR:
        A = pf_read(b, &in->s[0], As);
        for (unsigned c = 0; c < 4; c++)
          for (unsigned l = 0; l < PICA_LANES; l++) Q[c][l] = pica_flr(A[c][l], m);
        pf_write(b, in, Q, lm);
        break;
      case PICA_MOV:
        A = pf_read(b, &in->s[0], As);
        pf_write(b, in, A, lm);
        break;
      case PICA_MOVA:
        A = pf_read(b, &in->s[0], As);
        for (unsigned k = 0; k < 2; k++) {
          if (!(in->mask & (1u << k))) continue;
          for (unsigned l = 0; l < PICA_LANES; l++) {
            int32_t a = pica_mova(A[k][l]);
            b->a0[k][l] = lm[l] ? a : b->a0[k][l];
          }
        }
        break;
      case PICA_CMP:
        A = pf_read(b, &in->s[0], As), B = pf_read(b, &in->s[1], Bs);
        for (unsigned l = 0; l < PICA_LANES; l++) {
          uint8_t x = (uint8_t)pica_cmp(A[0][l], B[0][l], in->cmpx), y = (uint8_t)pica_cmp(A[1][l], B[1][l], in->cmpy);
          b->cmp[0][l] = lm[l] ? x : b->cmp[0][l];
          b->cmp[1][l] = lm[l] ? y : b->cmp[1][l];
        }
        break;
      case PICA_MAD: case PICA_MADI:
        A = pf_read(b, &in->s[0], As), B = pf_read(b, &in->s[1], Bs), C = pf_read(b, &in->s[2], Cs);
        (m == PICA_NUM_F32 ? pf_mad32 : pf_mad24)(Q[0], A[0], B[0], C[0]);
        pf_write(b, in, Q, lm);
        break;
      case PICA_NOP:
        break;
      case PICA_END:
        pf_retire(R, g, g->mask);
        return 0;
      case PICA_BREAKC:
        if (!pf_cond(b, in, g->mask)) break;
        /* fall through */
      case PICA_BREAK:
        if (!g->nloop) {
          pf_fail(R, g->mask, PICA_FAULT_BREAK, pc);
          pf_retire(R, g, g->mask);
          return 0;
        }
        brk = 1;
        break;
      case PICA_CALL: case PICA_CALLC: case PICA_CALLU:
        if (in->op == PICA_CALL || (in->op == PICA_CALLC ? pf_cond(b, in, g->mask) != 0 : (b->b >> (in->uid & 15)) & 1)) {
          unsigned k = PF_PUSH(g->call, g->ncall, PICA_CALL_DEPTH);
          g->call[k] = (pica_call){in->target + in->num, pc + 1};
          next = in->target;
        }
        break;
      case PICA_IFU: case PICA_IFC:
        if (in->op == PICA_IFC ? pf_cond(b, in, g->mask) != 0 : (b->b >> (in->uid & 15)) & 1) {
          unsigned k = PF_PUSH(g->ifs, g->nif, PICA_IF_DEPTH);
          g->ifs[k] = (pica_if){in->target, in->target + in->num};
        } else {
          next = in->target;
        }
        break;
      case PICA_LOOP: {
        const uint8_t *iu = b->i[in->uid & 3];
        int full = g->nloop == PICA_LOOP_DEPTH;
        unsigned k = PF_PUSH(g->loop, g->nloop, PICA_LOOP_DEPTH);
        if (full)
          memmove(&g->saved_al[0], &g->saved_al[1], (PICA_LOOP_DEPTH - 1) * sizeof g->saved_al[0]);
        g->loop[k] = (pf_loop){pc + 1, in->target + 1, iu[0], (int8_t)iu[2]};
        memcpy(g->saved_al[k], b->al, sizeof b->al);
        for (unsigned l = 0; l < PICA_LANES; l++) b->al[l] = lm[l] ? (int32_t)iu[1] : b->al[l];
        break;
      }
      case PICA_JMPC:
        if (pf_cond(b, in, g->mask)) next = in->target;
        break;
      case PICA_JMPU:
        if ((int)((b->b >> (in->uid & 15)) & 1) == !(in->num & 1)) next = in->target;
        break;
      default:
        pf_fail(R, g->mask, PICA_FAULT_GSH, pc);
        pf_retire(R, g, g->mask);
        return 0;
    }
    /* the stacks, after the instruction (exec.h; as exec_ref.c) */
    uint32_t final = next;
    uint32_t cur = pc + 1;
    for (unsigned pops = 0; g->ncall && g->call[g->ncall - 1].end == cur && pops < 4;) {
      uint32_t ret = g->call[--g->ncall].ret;
      if (++pops < 4) final = ret;
      cur = ret;
    }
    if (g->nif && g->ifs[g->nif - 1].els == pc + 1) final = g->ifs[--g->nif].end;
    if (g->nloop && (brk || g->loop[g->nloop - 1].end == pc + 1)) {
      unsigned k = g->nloop - 1;
      pf_loop *lp = &g->loop[k];
      for (unsigned l = 0; l < PICA_LANES; l++) b->al[l] += lm[l] & (uint32_t)lp->inc;
      if (!brk && lp->count-- != 0) {
        final = lp->entry;
      } else {
        final = lp->end;
        g->nloop--;
        if (g->nloop)
          for (unsigned l = 0; l < PICA_LANES; l++) b->al[l] = lm[l] ? g->saved_al[k][l] : b->al[l];
      }
    }
    g->pc = final;
    if (*spawned) return 2;
  }
}

/* Whether groups x and y have one control state (they may then run as
 * one). */
static int pf_same(const pf_group *x, const pf_group *y) {
  return x->pc == y->pc && x->ncall == y->ncall && x->nif == y->nif && x->nloop == y->nloop &&
         !memcmp(x->call, y->call, x->ncall * sizeof x->call[0]) &&
         !memcmp(x->ifs, y->ifs, x->nif * sizeof x->ifs[0]) &&
         !memcmp(x->loop, y->loop, x->nloop * sizeof x->loop[0]);
}

/* Joins y's lanes to x (same control state): each lane's count so far goes
 * to its batch count, each lane keeps its saved aL. */
static void pf_merge(pf_run *R, pf_group *x, const pf_group *y) {
  pf_retire(R, x, x->mask);
  pf_retire(R, y, y->mask);
  for (unsigned k = 0; k < x->nloop; k++)
    for (uint32_t m = y->mask; m; m &= m - 1) {
      unsigned l = (unsigned)__builtin_ctz(m);
      x->saved_al[k][l] = y->saved_al[k][l];
    }
  x->mask |= y->mask;
  x->steps = 0;
  x->limit = pf_limit(R->b, x->mask, R->budget);
}

/* Groups run lowest pc first, each until it passes the next lowest, and
 * groups that meet in one control state are joined: after an IFC with an
 * else block, a JMPC over a few words, a CALLC or a BREAKC, the lanes run
 * together again once the paths meet. Lanes are independent, so the order
 * changes nothing but the time. */
int pica_run_batch(pica_batch *b, const pica_fast *f, uint32_t entry, uint64_t budget, gs_diag *d) {
  if (b->lanes < 1 || b->lanes > PICA_LANES)
    return gs_diag_set(d, GS_EARG, "PICA200 batch: %u lanes (1 to %d)", b->lanes, PICA_LANES);
  pf_run R = {b, f, budget, -1, 0, 0};
  pf_group groups[PICA_LANES]; /* a lane is in one group at most, so 16 is enough */
  unsigned ng = 1;
  pf_group *g = &groups[0];
  g->mask = (1u << b->lanes) - 1;
  g->pc = entry;
  g->steps = 0;
  g->limit = pf_limit(b, g->mask, budget);
  g->ncall = g->nif = g->nloop = 0;
  while (ng) {
    unsigned k = 0;
    uint32_t stop = UINT32_MAX;
    if (ng > 1) {
      for (unsigned i = 0; i < ng; i++)
        for (unsigned j = i + 1; j < ng; j++)
          if (pf_same(&groups[i], &groups[j])) {
            pf_merge(&R, &groups[i], &groups[j]);
            groups[j--] = groups[--ng];
          }
      for (unsigned i = 1; i < ng; i++)
        if (groups[i].pc < groups[k].pc) k = i;
      for (unsigned i = 0; i < ng; i++)
        if (i != k && groups[i].pc < stop) stop = groups[i].pc;
    }
    int spawned, rc = pf_run_group(&R, &groups[k], &groups[ng], stop, &spawned);
    ng += (unsigned)spawned;
    if (rc == 0) groups[k] = groups[--ng]; /* ended */

  }
  if (R.fail_lane >= 0) return pica_fault(d, R.fail_kind, R.fail_lane, &f->p, R.fail_pc, budget);
  return GS_OK;
}
