/* vpm_io.c — the QPU's VPM registers (unit_io.h): the VPMVCD_RD_SETUP /
 * VPMVCD_WR_SETUP words, the VPM read FIFO, VPM_WRITE, and the DMA start
 * addresses, over the neutral VPM of v3d/vpm.h. Facts: RG §7, Tables
 * 32-37; choices: docs/v3d-units.md.
 */
#include <stdio.h>
#include <string.h>
#include "isa/qpu/qpu.h"
#include "isa/qpu/unit_io.h"
#include "v3d/v3d.h"
#include "v3d/vpm.h"

int qpu_fault_diag(gs_gpu *g, const gs_qpu *q, const gs_diag *d) { return qpu_fault(g, q, d->code, "%s", d->msg); }

/* The VPM q uses. */
static gs_vpm *vpm_of(gs_gpu *g, const gs_qpu *q) { return q->vpm.mem ? q->vpm.mem : &g->vpm; }

void qpu_vpm_set_window(gs_qpu *q, unsigned row_base, unsigned rows) {
  vpm_port_set_window(&q->vpm.port, row_base, rows);
}

void qpu_vpm_set_write_window(gs_qpu *q, unsigned row_base, unsigned rows) {
  vpm_port_set_write_window(&q->vpm.port, row_base, rows);
}

static int generic_check(gs_gpu *g, gs_qpu *q, uint32_t word, const char *what) {
  gs_diag d;
  if (vpm_generic_check(word, what, &d) < 0) return qpu_fault_diag(g, q, &d);
  return GS_OK;
}

/* A new generic read setup. Following the hardware test in vc4asm's
 * addendum to the Guide (RG Tables 32-33), it is accepted only when at most
 * one value of earlier setups is still outstanding; that value moves to the
 * FIFO (rd_carry) and is read first. Otherwise the setup is dropped, as the
 * hardware does, and remembered so that the read that then starves can say
 * why. */
static int generic_read_setup(gs_gpu *g, gs_qpu *q, uint32_t word) {
  qpu_vpm_state *s = &q->vpm;
  int rc = generic_check(g, q, word, "read");
  if (rc < 0) return rc;
  if (s->port.rd_left + s->rd_has_carry > 1) {
    s->rd_dropped = 1;
    s->rd_dropped_word = word;
    s->rd_dropped_pc = q->pc;
    return GS_OK;
  }
  if (s->port.rd_left == 1) {
    vpm_block_read(vpm_of(g, q), &s->port, s->rd_carry);
    s->rd_has_carry = 1;
  }
  vpm_generic_read_start(&s->port, word);
  return GS_OK;
}

static int read_hang(gs_gpu *g, gs_qpu *q) {
  const qpu_vpm_state *s = &q->vpm;
  char why[160], dropped[200] = "";
  if (s->port.rd_valid)
    snprintf(why, sizeof why, "the read setup 0x%08x asked for %u vectors and all were read", s->port.rd_setup,
             vpm_generic_num(s->port.rd_setup));
  else
    snprintf(why, sizeof why, "no VPM read setup was written");
  if (s->rd_dropped)
    snprintf(dropped, sizeof dropped,
             "; the read setup 0x%08x at pc 0x%08x was dropped because more than one value of the previous "
             "setup was still outstanding",
             s->rd_dropped_word, s->rd_dropped_pc);
  return qpu_fault(g, q, GS_EHANG, "VPM read with no vector pending (the hardware would block forever): %s%s", why,
                   dropped);
}

int qpu_vpm_read(gs_gpu *g, gs_qpu *q, gs_vec *out) {
  qpu_vpm_state *s = &q->vpm;
  if (s->rd_has_carry) {
    memcpy(out->u, s->rd_carry, sizeof out->u);
    s->rd_has_carry = 0;
    return GS_OK;
  }
  if (s->port.rd_left == 0) return read_hang(g, q);
  vpm_block_read(vpm_of(g, q), &s->port, out->u);
  return GS_OK;
}

int qpu_vpm_write(gs_gpu *g, gs_qpu *q, const gs_vec *v) {
  qpu_vpm_state *s = &q->vpm;
  if (!s->port.wr_valid)
    return qpu_fault(g, q, GS_EINVAL, "VPM write before any VPM write setup (write one to VPMVCD_WR_SETUP first)");
  int past = vpm_write_rows(&s->port, &s->wr_seen);
  if (past >= 0) {
    int vs = q->stage && !strcmp(q->stage, "vertex shader");
    return qpu_fault(g, q, GS_EFAULT,
                     "VPM write to row %d of the %s's output segment, which has %u rows (the hardware would "
                     "overwrite the next segment)%s",
                     past, q->stage ? q->stage : "program", (unsigned)s->port.wr_rows,
                     vs ? ": Ys|Xs, Zs, 1/Wc, the point size if the shader state has one, then its varyings: does "
                          "the shader declare every varying the program writes?"
                        : "");
  }
  vpm_block_write(vpm_of(g, q), &s->port, v->u);
  return GS_OK;
}

int qpu_vpm_read_setup(gs_gpu *g, gs_qpu *q, uint32_t word) {
  gs_vpm_port *p = &q->vpm.port;
  if ((word >> 28) == 9) { /* VDR extended memory pitch (RG Table 37) */
    /* 14 bits, not the Guide's 13: programs that ran on hardware load with
     * pitch 12288 (docs/v3d-units.md, "DMA registers") */
    p->vcd_pitch = word & 0x3fff;
    return GS_OK;
  }
  if (word >> 31) { /* VDR basic setup (RG Table 36) */
    p->vcd_setup = word;
    p->vcd_valid = 1;
    return GS_OK;
  }
  if (word >> 30)
    return qpu_fault(g, q, GS_EINVAL,
                     "VPM read setup 0x%08x: bits 31:30 = 01 select no setup (00: generic read, 1: DMA load)", word);
  return generic_read_setup(g, q, word);
}

int qpu_vpm_write_setup(gs_gpu *g, gs_qpu *q, uint32_t word) {
  gs_vpm_port *p = &q->vpm.port;
  int rc;
  switch (word >> 30) {
  case 0: /* generic block write (RG Table 32) */
    if ((rc = generic_check(g, q, word, "write")) < 0) return rc;
    vpm_generic_write_start(p, word);
    return GS_OK;
  case 2: /* VDW basic setup (RG Table 34) */
    p->vdw_setup = word;
    p->vdw_valid = 1;
    return GS_OK;
  case 3: /* VDW stride setup (RG Table 35, STRIDE 16 bits wide per vc4asm's addendum) */
    p->vdw_stride = word;
    return GS_OK;
  default:
    return qpu_fault(g, q, GS_EINVAL,
                     "VPM write setup 0x%08x: ID 1 (bits 31:30 = 01) is an undocumented setup that is not modelled",
                     word);
  }
}

int qpu_vpm_dma_load(gs_gpu *g, gs_qpu *q, uint32_t addr) {
  gs_diag d;
  if (vpm_dma_load(g->mem, vpm_of(g, q), &q->vpm.port, addr, &d) < 0) return qpu_fault_diag(g, q, &d);
  return GS_OK;
}

int qpu_vpm_dma_store(gs_gpu *g, gs_qpu *q, uint32_t addr) {
  gs_diag d;
  if (vpm_dma_store(g->mem, vpm_of(g, q), &q->vpm.port, addr, &d) < 0) return qpu_fault_diag(g, q, &d);
  q->hint_checked = 0; /* the store may have written code (qpu_trust_code) */
  return GS_OK;
}
