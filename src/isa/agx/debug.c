/* debug.c — Apple AGX's view for the shader debugger (isa/debug.h): the
 * state is the SIMD group (agx_state); one step is one agx_step_ref in
 * round-to-nearest, as agx_run_ref runs. Registers by the names of Mesa's
 * AGX disassembler: the 16-bit halves r0l, r0h .. r127h and the 32-bit
 * registers r0 .. r127 of each lane (r0l is also the exec-stack counter
 * that if/else/pop_exec keep), the 32-bit uniforms u0 .. u255 and the
 * coefficient registers cf0.a .. cf255.c (A, B, C of the plane) of the
 * group, and its exec mask (the active lanes), present lanes and stopped. */
#include <stdio.h>
#include <string.h>
#include "core/fpmode.h"
#include "isa/agx/exec.h"
#include "isa/agx/table.h"
#include "isa/debug.h"
#include "v3d/v3d.h"

typedef struct agx_dbg_ctx {
  const agx_program *p;
  uint64_t budget;
  gs_diag *d;
} agx_dbg_ctx;

enum { I_HALF = 0, I_R = AGX_HALVES, I_U = I_R + 128, I_CF = I_U + 256, I_EXEC = I_CF + 3 * AGX_CFS, I_PRESENT,
       I_STOPPED, I_END };

static int reg_name(unsigned i, char *buf, size_t n) {
  if (i < I_R) snprintf(buf, n, "r%u%c", i / 2, i % 2 ? 'h' : 'l');
  else if (i < I_U) snprintf(buf, n, "r%u", i - I_R);
  else if (i < I_CF) snprintf(buf, n, "u%u", i - I_U);
  else if (i < I_EXEC) snprintf(buf, n, "cf%u.%c", (i - I_CF) / 3, "abc"[(i - I_CF) % 3]);
  else snprintf(buf, n, "%s", (const char *[]){"exec", "present", "stopped"}[i - I_EXEC]);
  return i < I_U;
}

static uint32_t reg_value(const void *st, unsigned i, unsigned lane) {
  const agx_state *s = st;
  if (lane >= AGX_LANES) lane = 0;
  if (i < I_R) return s->r[lane][i];
  if (i < I_U) return agx_reg32(s, lane, i - I_R);
  if (i < I_CF) return s->u[2 * (i - I_U)] | (uint32_t)s->u[2 * (i - I_U) + 1] << 16;
  if (i < I_EXEC) return s->cf[(i - I_CF) / 3][(i - I_CF) % 3];
  return i == I_EXEC ? s->exec : i == I_PRESENT ? s->present : (uint32_t)s->stopped;
}

static uint32_t pc(const void *st, unsigned lane) {
  (void)lane;
  return ((const agx_state *)st)->pc;
}

static int ended(const void *st, unsigned lane) {
  (void)lane;
  return ((const agx_state *)st)->stopped;
}

static int step(void *st, void *ctx) {
  const agx_dbg_ctx *c = ctx;
  int rc = agx_step_ref(st, c->p, c->budget, c->d);
  return rc;
}

static void line(const void *st, void *ctx, unsigned lane, char *buf, size_t n) {
  (void)lane;
  const agx_dbg_ctx *c = ctx;
  uint32_t at = ((const agx_state *)st)->pc;
  long k = agx_seek(c->p, 0, 0, at);
  if (k < 0 || (size_t)k >= c->p->n) snprintf(buf, n, "(pc 0x%04x is not an instruction)", at);
  else agx_print(&c->p->insn[k], buf, n);
}

const gs_debug_ops gs_debug_agx_ops = {"agx", AGX_LANES, sizeof(agx_state), I_END,
                                       reg_name, reg_value, pc, ended, step, line};

int agx_debug_run(const gs_gpu *g, agx_state *s, const agx_program *p, uint32_t prolog, gs_diag *d) {
  g->debug->cur_prolog = prolog;
  agx_dbg_ctx c = {p, g->cfg.watchdog ? g->cfg.watchdog : GS_DEFAULT_WATCHDOG, d};
  s->stopped = 0;
  s->pc = 0;
  int mode = gs_fp_round_get();
  gs_fp_round_set(GS_FP_NEAREST);
  int rc = gs_debug_record(g, &gs_debug_agx_ops, s, &c, d);
  gs_fp_round_set(mode);
  return rc;
}
