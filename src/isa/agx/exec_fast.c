/* exec_fast.c — the AGX fast interpreter (exec.h, agx_run_fast): the
 * reference's semantics over a predecoded program. Jumps go to
 * precomputed instruction indices; the commonest ALU instructions (f32
 * fadd, fmul, ffma; 32-bit iadd/isub without sat; 32-bit bitop) run as
 * tight loops over the active lanes with the host's binary32 arithmetic,
 * falling back to num.h's exact computation for the results the host
 * could round differently (a magnitude at or below 2^-126, where the
 * hardware's flush is judged before rounding); everything else goes
 * through agx_exec_insn, the reference's own code. The hot loops skip the
 * register-count and pending-load checks, so they run only when the
 * program touches no half beyond the declared count and neither loads
 * nor samples (docs/agx-run.md, "The fast interpreter"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "isa/agx/exec.h"
#include "isa/agx/num.h"
#include "isa/uop/uop.h"

enum { FK_GENERIC, FK_FADD, FK_FMUL, FK_FFMA, FK_IADD, FK_BITOP, FK_JMP, FK_STOP, FK_TRAP };

struct agx_fast {
  const agx_instr *insn;
  size_t n;
  uint32_t *addr;   /* byte address of each instruction */
  long *target;     /* a jump's target index (-1: not the start of an instruction) */
  uint8_t *kind;    /* FK_* */
  unsigned halves;  /* 1 + the highest GPR half any operand touches */
  int loads;        /* the program has a load or an smpf (results that wait) */
};

static int reg32(const agx_opnd *o) {
  return o->bits == 32 && (o->kind == AGX_K_REG || (o->kind == AGX_K_UNIF && o->index + 2 <= AGX_UHALVES));
}
static int fsrc(const agx_opnd *o) { return reg32(o) || o->kind == AGX_K_FIMM; }
static int isrc(const agx_opnd *o) { return reg32(o) || o->kind == AGX_K_IMM; }
static int dst32(const agx_opnd *o) { return o->kind == AGX_K_REG && o->bits == 32; }

static uint8_t kind_of(const agx_instr *in) {
  switch (in->op) {
    case AGX_FADD: case AGX_FMUL:
      if (dst32(&in->dst) && fsrc(&in->src[0]) && fsrc(&in->src[1])) return in->op == AGX_FADD ? FK_FADD : FK_FMUL;
      return FK_GENERIC;
    case AGX_FFMA:
      return dst32(&in->dst) && fsrc(&in->src[0]) && fsrc(&in->src[1]) && fsrc(&in->src[2]) ? FK_FFMA : FK_GENERIC;
    case AGX_IADD: case AGX_ISUB:
      return dst32(&in->dst) && isrc(&in->src[0]) && isrc(&in->src[1]) && !in->sat ? FK_IADD : FK_GENERIC;
    case AGX_BITOP:
      return dst32(&in->dst) && isrc(&in->src[0]) && isrc(&in->src[1]) ? FK_BITOP : FK_GENERIC;
    case AGX_JMP_ANY: case AGX_JMP_NONE: return FK_JMP;
    case AGX_STOP: return FK_STOP;
    case AGX_TRAP: return FK_TRAP;
    default: return FK_GENERIC;
  }
}

static unsigned top_half(const agx_opnd *o) {
  if (o->kind != AGX_K_REG) return 0;
  unsigned n = o->bits / 16 ? o->bits / 16 : 1, c = o->count ? o->count : 1;
  return o->index + n * c;
}

int agx_fast_compile(const agx_program *p, agx_fast **out, gs_diag *d) {
  agx_fast *f = calloc(1, sizeof *f);
  size_t n = p->n ? p->n : 1;
  if (f) f->addr = malloc(n * sizeof *f->addr), f->target = malloc(n * sizeof *f->target), f->kind = malloc(n);
  if (!f || !f->addr || !f->target || !f->kind) {
    agx_fast_free(f);
    return gs_diag_set(d, GS_ENOMEM, "AGX shader: out of memory preparing the program");
  }
  f->insn = p->insn, f->n = p->n;
  uint32_t a = 0;
  for (size_t k = 0; k < p->n; k++) f->addr[k] = a, a += p->insn[k].len;
  for (size_t k = 0; k < p->n; k++) {
    const agx_instr *in = &p->insn[k];
    f->kind[k] = kind_of(in);
    f->target[k] = f->kind[k] == FK_JMP ? agx_seek(p, k, f->addr[k], f->addr[k] + (uint32_t)in->offset) : -1;
    unsigned t = top_half(&in->dst);
    for (int i = 0; i < 4; i++) t = top_half(&in->src[i]) > t ? top_half(&in->src[i]) : t;
    if (in->op == AGX_LOAD || in->op == AGX_SMPF) {
      /* results pending until a wait: leave the pending-read checks (and
       * a run's length, which depends on the mask) to the reference */
      f->loads = 1;
      t = AGX_HALVES + 1;
    }
    if (t > f->halves) f->halves = t;
  }
  *out = f;
  return GS_OK;
}

void agx_fast_free(agx_fast *f) {
  if (!f) return;
  free(f->addr), free(f->target), free(f->kind), free(f);
}

/* ---- the hot loops ---------------------------------------------------------------- */

static inline uint32_t get32(const agx_state *s, const agx_opnd *o, unsigned l) {
  switch (o->kind) {
    case AGX_K_REG: return s->r[l][o->index] | (uint32_t)s->r[l][o->index + 1] << 16;
    case AGX_K_UNIF: return s->u[o->index] | (uint32_t)s->u[o->index + 1] << 16;
    case AGX_K_FIMM: return gs_lane_u(agx_minifloat(o->value));
    default: return o->value;
  }
}
static inline void put32(agx_state *s, const agx_opnd *o, unsigned l, uint32_t v) {
  s->r[l][o->index] = (uint16_t)v, s->r[l][o->index + 1] = (uint16_t)(v >> 16);
}
/* An f32 operand: flushed, then abs and neg. */
static inline uint32_t fin(uint32_t x, const agx_opnd *o) {
  x = (x & 0x7f800000u) ? x : x & 0x80000000u;
  x = o->abs ? x & 0x7fffffffu : x;
  return o->neg ? x ^ 0x80000000u : x;
}
static inline uint32_t sat32(uint32_t x) {
  uint32_t r = x > 0x3f800000u ? 0x3f800000u : x;
  return (x >> 31) || (x & 0x7fffffffu) > 0x7f800000u ? 0 : r;
}

/* Operand o of every lane into v (inactive lanes too: harmless), an f32
 * one flushed and modified; the lane loops below then vectorise. */
static void fetch(const agx_state *s, const agx_opnd *o, uint32_t v[AGX_LANES], int fl) {
  if (o->kind == AGX_K_REG) {
    for (unsigned l = 0; l < AGX_LANES; l++) v[l] = s->r[l][o->index] | (uint32_t)s->r[l][o->index + 1] << 16;
  } else {
    uint32_t c = get32(s, o, 0);
    for (unsigned l = 0; l < AGX_LANES; l++) v[l] = c;
  }
  if (!fl) return;
  uint32_t keep = o->abs ? 0x7fffffffu : 0xffffffffu, flip = o->neg ? 0x80000000u : 0;
  for (unsigned l = 0; l < AGX_LANES; l++) {
    uint32_t x = v[l];
    x = (x & 0x7f800000u) ? x : x & 0x80000000u;
    v[l] = (x & keep) ^ flip;
  }
}

static void float_op(agx_state *s, const agx_instr *in, unsigned kind) {
  uint32_t a[AGX_LANES], b[AGX_LANES], c[AGX_LANES], r[AGX_LANES];
  fetch(s, &in->src[0], a, 1), fetch(s, &in->src[1], b, 1);
  if (kind == FK_FADD) {
    for (unsigned l = 0; l < AGX_LANES; l++) r[l] = gs_lane_u(gs_lane_f(a[l]) + gs_lane_f(b[l]));
  } else if (kind == FK_FMUL) {
    for (unsigned l = 0; l < AGX_LANES; l++) r[l] = gs_lane_u(gs_lane_f(a[l]) * gs_lane_f(b[l]));
  } else {
    fetch(s, &in->src[2], c, 1);
    for (unsigned l = 0; l < AGX_LANES; l++) r[l] = gs_lane_u(fmaf(gs_lane_f(a[l]), gs_lane_f(b[l]), gs_lane_f(c[l])));
  }
  for (unsigned l = 0; l < AGX_LANES; l++) {
    if (!((s->exec >> l) & 1)) continue;
    uint32_t u = r[l];
    if ((u & 0x7fffffffu) <= 0x00800000u) { /* at or below 2^-126: num.h's exact rule */
      double da = gs_lane_f(a[l]), db = gs_lane_f(b[l]);
      u = kind == FK_FADD ? agx_fadd(da, db, AGX_R32, 0)
        : kind == FK_FMUL ? agx_fmul(da, db, AGX_R32, 0) : agx_ffma(da, db, gs_lane_f(c[l]), AGX_R32, 0);
    }
    u = (u & 0x7fffffffu) > 0x7f800000u ? AGX_F32_NAN : u;
    put32(s, &in->dst, l, in->sat ? sat32(u) : u);
  }
}

static void int_op(agx_state *s, const agx_instr *in, unsigned kind) {
  uint32_t a[AGX_LANES], b[AGX_LANES], r[AGX_LANES];
  fetch(s, &in->src[0], a, 0), fetch(s, &in->src[1], b, 0);
  if (kind == FK_IADD) {
    /* a + ((+-b) << shift), shifts of 5 and up giving no b term */
    unsigned sh = in->shift < 5 ? in->shift : 0;
    uint32_t neg = in->op == AGX_ISUB ? 0xffffffffu : 0, on = in->shift < 5 ? 0xffffffffu : 0;
    for (unsigned l = 0; l < AGX_LANES; l++) r[l] = a[l] + ((((b[l] ^ neg) - neg) << sh) & on);
  } else {
    for (unsigned l = 0; l < AGX_LANES; l++) r[l] = agx_bitop(in->tt, a[l], b[l]);
  }
  for (unsigned l = 0; l < AGX_LANES; l++)
    if ((s->exec >> l) & 1) put32(s, &in->dst, l, r[l]);
}

static int run_fast(agx_state *s, const void *prog, uint32_t entry, uint64_t budget, gs_diag *d) {
  const agx_fast *f = prog;
  agx_program p = {f->insn, f->n};
  long k = agx_seek(&p, 0, 0, entry);
  s->stopped = 0;
  s->pc = entry;
  if (k < 0) return agx_fault(d, AGX_FAULT_ENTRY, entry, 0);
  unsigned lim = s->nregs ? s->nregs : AGX_HALVES;
  int hot = f->halves <= lim && !f->loads;
  for (unsigned h = 0; hot && h < AGX_HALVES; h++) hot = !s->pending[h];
  for (;;) {
    if ((size_t)k >= f->n) return agx_fault(d, AGX_FAULT_END, s->pc, 0);
    uint32_t pc = f->addr[k];
    if (s->steps >= budget) return agx_fault(d, AGX_FAULT_BUDGET, pc, budget);
    s->steps++;
    const agx_instr *in = &f->insn[k];
    if (in->len < 2 || in->len > AGX_MAX_BYTES || (in->len & 1)) return agx_fault(d, AGX_FAULT_LENGTH, pc, in->len);
    long next = k + 1;
    unsigned kind = f->kind[k];
    if (kind != FK_GENERIC && kind < FK_JMP && !hot) kind = FK_GENERIC;
    switch (kind) {
      case FK_FADD: case FK_FMUL: case FK_FFMA: float_op(s, in, kind); break;
      case FK_IADD: case FK_BITOP: int_op(s, in, kind); break;
      case FK_JMP:
        if ((in->op == AGX_JMP_ANY) == (s->exec != 0)) {
          if (f->target[k] < 0) return agx_fault(d, AGX_FAULT_JUMP, pc, pc + (uint32_t)in->offset);
          next = f->target[k];
        }
        break;
      case FK_STOP:
        s->stopped = 1;
        s->pc = pc + in->len;
        return GS_OK;
      case FK_TRAP: return agx_fault(d, AGX_FAULT_TRAP, pc, 0);
      default: {
        int rc = agx_exec_insn(s, in, pc, d);
        if (rc) return rc;
      }
    }
    k = next;
    s->pc = (size_t)k < f->n ? f->addr[k] : f->addr[f->n - 1] + f->insn[f->n - 1].len;
  }
}

int agx_run_fast(agx_state *s, const agx_fast *f, uint32_t entry, uint64_t budget, gs_diag *d) {
  return agx_run_nearest(run_fast, s, f, entry, budget, d);
}
