/* debug.c — the DMP PICA200's view for the shader debugger (isa/debug.h).
 * The PICA200's reference interpreter runs one vertex at a time
 * (pica_state); a batch's invocation is its lanes' states side by side, and
 * one step runs one instruction of every lane that has not ended
 * (pica_step_ref), each at its own pc (the lanes' control flow is their
 * own). Registers by the names of 3dbrew and picasso: the temporaries
 * r0-r15, inputs v0-v15, outputs o0-o15 (each component: r0.x .. r0.w),
 * the float uniforms c0-c95 (the group's), the address registers a0.x,
 * a0.y, the loop counter aL, the condition flags cmp.x, cmp.y, and the
 * call, if and loop stacks (depths and entries). */
#include <stdio.h>
#include <string.h>
#include "isa/debug.h"
#include "isa/pica/exec.h"
#include "isa/pica/pica.h"

typedef struct pica_dbg {
  pica_state lane[PICA_LANES];
  uint32_t n;       /* lanes 0..n-1 run */
  uint32_t done;    /* lanes that reached END (or failed) */
} pica_dbg;

typedef struct pica_dbg_ctx {
  const pica_program *p;
  uint64_t budget;
  gs_diag *d;
} pica_dbg_ctx;

enum {
  I_R = 0, I_V = 64, I_O = 128, I_C = 192, I_A0X = I_C + 384, I_A0Y, I_AL, I_CMPX, I_CMPY, I_NCALL, I_NIF, I_NLOOP,
  I_CALL, I_IF = I_CALL + 2 * PICA_CALL_DEPTH, I_LOOP = I_IF + 2 * PICA_IF_DEPTH, I_END = I_LOOP + 3 * PICA_LOOP_DEPTH
};

static int reg_name(unsigned i, char *buf, size_t n) {
  static const char comp[] = "xyzw";
  static const char *const named[] = {"a0.x", "a0.y", "aL", "cmp.x", "cmp.y", "call.depth", "if.depth", "loop.depth"};
  if (i < I_C) snprintf(buf, n, "%c%u.%c", "rvo"[i / 64], i % 64 / 4, comp[i % 4]);
  else if (i < I_A0X) snprintf(buf, n, "c%u.%c", (i - I_C) / 4, comp[(i - I_C) % 4]);
  else if (i < I_CALL) snprintf(buf, n, "%s", named[i - I_A0X]);
  else if (i < I_IF) snprintf(buf, n, "call%u.%s", (i - I_CALL) / 2, (i - I_CALL) % 2 ? "ret" : "end");
  else if (i < I_LOOP) snprintf(buf, n, "if%u.%s", (i - I_IF) / 2, (i - I_IF) % 2 ? "end" : "else");
  else snprintf(buf, n, "loop%u.%s", (i - I_LOOP) / 3, (const char *[]){"entry", "end", "count"}[(i - I_LOOP) % 3]);
  return i < I_C || i >= I_A0X;
}

static uint32_t reg_value(const void *st, unsigned i, unsigned lane) {
  const pica_state *s = &((const pica_dbg *)st)->lane[lane < PICA_LANES ? lane : 0];
  if (i < I_V) return s->r[i / 4][i % 4];
  if (i < I_O) return s->v[(i - I_V) / 4][i % 4];
  if (i < I_C) return s->o[(i - I_O) / 4][i % 4];
  if (i < I_A0X) return s->c[(i - I_C) / 4][i % 4];
  switch (i) {
  case I_A0X: return (uint32_t)s->a0[0];
  case I_A0Y: return (uint32_t)s->a0[1];
  case I_AL: return (uint32_t)s->al;
  case I_CMPX: return (uint32_t)s->cmp[0];
  case I_CMPY: return (uint32_t)s->cmp[1];
  case I_NCALL: return s->ncall;
  case I_NIF: return s->nif;
  case I_NLOOP: return s->nloop;
  default: break;
  }
  if (i < I_IF) {
    unsigned k = (i - I_CALL) / 2;
    return k >= s->ncall ? 0 : (i - I_CALL) % 2 ? s->call[k].ret : s->call[k].end;
  }
  if (i < I_LOOP) {
    unsigned k = (i - I_IF) / 2;
    return k >= s->nif ? 0 : (i - I_IF) % 2 ? s->ifs[k].end : s->ifs[k].els;
  }
  unsigned k = (i - I_LOOP) / 3;
  if (k >= s->nloop) return 0;
  return (i - I_LOOP) % 3 == 0 ? s->loop[k].entry : (i - I_LOOP) % 3 == 1 ? s->loop[k].end : s->loop[k].count;
}

static uint32_t pc(const void *st, unsigned lane) {
  return ((const pica_dbg *)st)->lane[lane < PICA_LANES ? lane : 0].pc;
}

static int ended(const void *st, unsigned lane) {
  const pica_dbg *s = st;
  return lane >= s->n || (s->done >> lane & 1);
}

static int step(void *st, void *ctx) {
  pica_dbg *s = st;
  const pica_dbg_ctx *c = ctx;
  uint32_t all = (1u << s->n) - 1;
  if (s->done == all) return 2;
  for (unsigned l = 0; l < s->n; l++) {
    if (s->done >> l & 1) continue;
    int rc = pica_step_ref(&s->lane[l], c->p, c->budget, c->d);
    if (rc < 0) {
      char msg[sizeof c->d->msg];
      snprintf(msg, sizeof msg, "%s", c->d->msg);
      const char *what = strncmp(msg, "PICA200 shader: ", 16) ? msg : msg + 16;
      return gs_diag_set(c->d, rc, "PICA200 shader, lane %u: %s", l, what); /* as pica_run_batch names it */
    }
    if (rc == 1) s->done |= 1u << l;
  }
  return s->done == all ? 1 : 0;
}

static void line(const void *st, void *ctx, unsigned lane, char *buf, size_t n) {
  const pica_dbg_ctx *c = ctx;
  uint32_t at = pc(st, lane);
  if (at >= c->p->n) snprintf(buf, n, "(pc 0x%03x is past the program)", at);
  else pica_format_insn(&c->p->insn[at], buf, n);
}

const gs_debug_ops gs_debug_pica_ops = {"pica", PICA_LANES, sizeof(pica_dbg), I_END,
                                        reg_name, reg_value, pc, ended, step, line};

pica_state *pica_debug_lanes(void) {
  static _Thread_local pica_state lanes[PICA_LANES];
  return lanes;
}

int pica_debug_run(gs_gpu *g, pica_state *s, unsigned n, const pica_program *p, uint32_t entry, uint64_t budget,
                   gs_diag *d) {
  static _Thread_local pica_dbg b;
  if (n > PICA_LANES) n = PICA_LANES;
  memset(&b, 0, sizeof b);
  for (unsigned l = 0; l < n; l++) {
    b.lane[l] = s[l];
    b.lane[l].ncall = b.lane[l].nif = b.lane[l].nloop = 0;
    b.lane[l].pc = entry;
  }
  b.n = n;
  pica_dbg_ctx c = {p, budget, d};
  int rc = gs_debug_record(g, &gs_debug_pica_ops, &b, &c, d);
  for (unsigned l = 0; l < n; l++) s[l] = b.lane[l];
  return rc;
}
