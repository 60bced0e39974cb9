/* debug.c — NVIDIA Maxwell SASS's view for the shader debugger
 * (isa/debug.h): the state is the warp (sass_warp) with the number of
 * registers its program names; one step is one sass_step_ref. Registers by
 * the names NVIDIA's disassembler gives them: R0..R254 and RZ, the
 * predicates P0..P6 and the condition code CC (its Z, S, C, O bits as
 * 1, 2, 4, 8) of each lane; the warp's active, exited and killed lanes and
 * its convergence stack (depth, and each entry's kind, pc and lanes). */
#include <stdio.h>
#include <string.h>
#include "isa/debug.h"
#include "isa/sass/exec.h"
#include "isa/sass/table.h"
#include "v3d/v3d.h"

typedef struct sass_dbg {
  sass_warp w;
  uint32_t nregs;   /* R0..R(nregs - 1) are the program's; the others read 0 */
  uint32_t pad_;
} sass_dbg;

typedef struct sass_dbg_ctx {
  const sass_program *p;
  const sass_io *io;
  uint64_t budget;
  const char *name;
  gs_diag *d;
} sass_dbg_ctx;

enum { NR = 256, NP = 7, NGROUP = 4, NSTACK = 3 * SASS_STACK };
enum { I_P = NR, I_CC = NR + NP, I_ACTIVE, I_EXITED, I_KILLED, I_DEPTH, I_STACK };

static int reg_name(unsigned i, char *buf, size_t n) {
  static const char *const group[] = {"active", "exited", "killed", "depth"};
  static const char *const field[] = {"kind", "pc", "lanes"};
  if (i < NR - 1) snprintf(buf, n, "R%u", i);
  else if (i == NR - 1) snprintf(buf, n, "RZ");
  else if (i < I_CC) snprintf(buf, n, "P%u", i - I_P);
  else if (i == I_CC) snprintf(buf, n, "CC");
  else if (i < I_STACK) snprintf(buf, n, "%s", group[i - I_ACTIVE]);
  else snprintf(buf, n, "stack%u.%s", (i - I_STACK) / 3, field[(i - I_STACK) % 3]);
  return i <= I_CC;
}

static uint32_t reg_value(const void *st, unsigned i, unsigned lane) {
  const sass_dbg *s = st;
  const sass_warp *w = &s->w;
  if (i < NR - 1) return i < s->nregs ? w->r[i][lane] : 0;
  if (i == NR - 1) return 0;
  if (i < I_CC) return w->p[lane] >> (i - I_P) & 1u;
  if (i == I_CC) return w->cc[lane];
  if (i == I_ACTIVE) return w->active;
  if (i == I_EXITED) return w->exited;
  if (i == I_KILLED) return w->killed;
  if (i == I_DEPTH) return w->depth;
  unsigned k = (i - I_STACK) / 3;
  if (k >= w->depth) return 0;
  const sass_entry *e = &w->stack[k];
  return (i - I_STACK) % 3 == 0 ? e->kind : (i - I_STACK) % 3 == 1 ? e->pc : e->mask;
}

static uint32_t pc(const void *st, unsigned lane) {
  (void)lane;
  return ((const sass_dbg *)st)->w.pc;
}

static int ended(const void *st, unsigned lane) {
  const sass_warp *w = &((const sass_dbg *)st)->w;
  uint32_t live = w->lanes & ~w->exited;
  return lane >= SASS_LANES || !(live >> lane & 1) || !(w->active || w->depth);
}

static int step(void *st, void *ctx) {
  sass_dbg_ctx *c = ctx;
  int rc = sass_step_ref(&((sass_dbg *)st)->w, c->p, c->io, c->budget, c->name, c->d);
  return rc < 0 ? rc : rc == 1 ? 2 : 0;
}

static void line(const void *st, void *ctx, unsigned lane, char *buf, size_t n) {
  (void)lane;
  const sass_dbg_ctx *c = ctx;
  uint32_t at = ((const sass_dbg *)st)->w.pc;
  size_t k = sass_index(c->p, at);
  if (k == (size_t)-1) snprintf(buf, n, "(pc 0x%04x is not an instruction)", at);
  else if (sass_disasm_insn(c->p->insn[k].raw, at, buf, n) < 0) snprintf(buf, n, "(undecodable)");
}

const gs_debug_ops gs_debug_sass_ops = {"sass", SASS_LANES, sizeof(sass_dbg), I_STACK + NSTACK,
                                        reg_name, reg_value, pc, ended, step, line};

int sass_debug_run(const gs_gpu *g, sass_warp *w, const sass_program *p, const sass_io *io, uint64_t budget,
                   const char *name, gs_diag *d) {
  static _Thread_local sass_dbg s;
  s.w = *w;
  s.nregs = sass_program_nregs(p);
  sass_dbg_ctx c = {p, io, budget, name, d};
  int rc = gs_debug_record(g, &gs_debug_sass_ops, &s, &c, d);
  *w = s.w;
  return rc;
}
