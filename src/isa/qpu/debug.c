/* debug.c — the VideoCore IV QPU's view for the shader debugger
 * (isa/debug.h): the state is the QPU (gs_qpu); one step is one
 * instruction of the reference interpreter (qpu_step_ref); registers by
 * the reference guide's names: the accumulators r0-r5, the register files
 * ra0-ra31 and rb0-rb31, and the flags zf, nf, cf of each lane (RG §3). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "core/fpmode.h"
#include "gpusim/qpu.h"
#include "isa/debug.h"
#include "isa/qpu/decode.h"
#include "isa/qpu/qpu.h"
#include "v3d/v3d.h"

enum { NACC = 6, NRA = 32, NRB = 32, NFLAGS = 3 };

static int reg_name(unsigned i, char *buf, size_t n) {
  if (i < NACC) snprintf(buf, n, "r%u", i);
  else if (i < NACC + NRA) snprintf(buf, n, "ra%u", i - NACC);
  else if (i < NACC + NRA + NRB) snprintf(buf, n, "rb%u", i - NACC - NRA);
  else snprintf(buf, n, "%s", (const char *[]){"zf", "nf", "cf"}[i - NACC - NRA - NRB]);
  return 1;
}

static uint32_t reg_value(const void *st, unsigned i, unsigned lane) {
  const gs_qpu *q = st;
  if (i < NACC) return q->reg[QREG_R0 + i].u[lane];
  if (i < NACC + NRA) return q->reg[QREG_RA0 + i - NACC].u[lane];
  if (i < NACC + NRA + NRB) return q->reg[QREG_RB0 + i - NACC - NRA].u[lane];
  uint16_t f = i == NACC + NRA + NRB ? q->zf : i == NACC + NRA + NRB + 1 ? q->nf : q->cf;
  return f >> lane & 1u;
}

static uint32_t pc(const void *st, unsigned lane) {
  (void)lane;
  return ((const gs_qpu *)st)->pc;
}

static int ended(const void *st, unsigned lane) {
  (void)lane;
  return ((const gs_qpu *)st)->state == QPU_ENDED;
}

static int step(void *st, void *ctx) {
  gs_gpu *g = ctx;
  gs_qpu *q = st;
  int rc = qpu_step_ref(g, q);
  if (rc < 0) return rc;
  if (rc == QPU_STEP_END) {
    q->state = QPU_ENDED;
    return 1;
  }
  if (rc == QPU_STEP_STALL)
    return gs_diag_set(qpu_diag(g, q), GS_EDEADLOCK, "deadlock: QPU %d at pc 0x%08x waits (a semaphore or the "
                       "mutex), and no other QPU runs", q->num, q->pc);
  if (q->instructions > q->budget)
    return qpu_fault(g, q, GS_EWATCHDOG, "watchdog: the shader ran %" PRIu64 " instructions without ending "
                     "(budget %" PRIu64 ")", q->instructions, q->budget);
  return 0;
}

static void line(const void *st, void *ctx, unsigned lane, char *buf, size_t n) {
  (void)lane;
  gs_gpu *g = ctx;
  const gs_qpu *q = st;
  const uint8_t *p = gs_mem_ptr(g->mem, q->pc, 8);
  if (!p) {
    snprintf(buf, n, "(no memory at 0x%08x)", q->pc);
    return;
  }
  uint64_t w;
  memcpy(&w, p, 8);
  gs_qpu_disasm_word(w, buf, n);
}

const gs_debug_ops gs_debug_qpu_ops = {"qpu", 16, sizeof(gs_qpu), NACC + NRA + NRB + NFLAGS,
                                       reg_name, reg_value, pc, ended, step, line};

int qpu_debug_run(gs_gpu *g, gs_qpu *q, int in_env) {
  int saved = gs_fp_round_get();
  if (!in_env) gs_fp_round_set(g->cfg.rounding == GS_ROUND_NEAREST_EVEN ? GS_FP_NEAREST : GS_FP_TOWARD_ZERO);
  int rc = gs_debug_record(g, &gs_debug_qpu_ops, q, g, qpu_diag(g, q));
  if (!in_env) gs_fp_round_set(saved);
  if (rc >= 0) q->state = QPU_ENDED;
  return rc;
}
