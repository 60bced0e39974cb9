/* io.c — the QPU's I/O registers (addresses 32..63 of both register files):
 * what a read or write of each does, shared by the reference and the fast
 * interpreter. Facts: RG Table 14, §3.
 *
 * Element-0 registers (setups, DMA addresses, uniforms address, host
 * interrupt) take element 0's value and act only when element 0's write
 * condition passed. Data registers (VPM, TMU, SFU) act when any lane's
 * condition passed and carry all 16 lanes (docs/determinism.md).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "isa/qpu/pred.h"
#include "isa/qpu/qpu.h"
#include "v3d/sfu.h"
#include "v3d/v3d.h"

int qpu_fault(gs_gpu *g, const gs_qpu *q, int code, const char *fmt, ...) {
  char msg[GS_DIAG_MAX - 64];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return gs_diag_set(qpu_diag(g, q), code, "QPU %d at pc 0x%08x: %s", q->num, q->pc, msg);
}

void qpu_exception(const gs_qpu *q, const char *fmt, ...) {
  if (!q->report) return;
  char msg[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  gs_isa_report_exception(q->report, "%s at 0x%08x, QPU %d pc 0x%08x: %s", q->stage ? q->stage : "program", q->entry,
                          q->num, q->pc, msg);
}

void qpu_reset(gs_qpu *q, int num, uint32_t code, uint32_t uniforms, uint64_t budget) {
  memset(q, 0, sizeof *q);
  q->num = num;
  q->pc = code;
  q->unif_addr = q->unif_base = uniforms;
  q->budget = budget;
  q->state = QPU_RUNNING;
  q->gates = GS_GATE_ALL;
  q->entry = code;
  for (unsigned c = 0; c < 48; c++)
    for (int i = 0; i < QPU_LANES; i++) q->reg[QREG_SMALL_IMM0 + c].u[i] = qpu_small_imm_value(c);
}

_Static_assert(offsetof(gs_qpu, reg) == 0, "qpu_copy_state copies reg[] from the start of gs_qpu");

_Static_assert(QREG_SMALL_IMM0 <= 128 && QREG_READ_A >= 64, "qpu_copy_state's two 64-bit masks");
_Static_assert(QREG_RA0 + 32 == QREG_RB0 && QREG_RB0 + 32 > 64 && QREG_RB0 + 32 <= 128,
               "qpu_copy_state's test for regfile writes");
_Static_assert(offsetof(gs_qpu, pend) == sizeof(((gs_qpu *)0)->reg) && offsetof(gs_qpu, next) < offsetof(gs_qpu, busy),
               "qpu_copy_state skips pend[] and next[] as one range after reg[]");
_Static_assert(offsetof(gs_qpu, tmu) + sizeof(qpu_tmu_state[2]) == sizeof(gs_qpu), "the TMU state ends gs_qpu");
_Static_assert(offsetof(qpu_tmu_state, param) == 0 && offsetof(qpu_tmu_state, fifo) > offsetof(qpu_tmu_state, count),
               "qpu_copy_state copies a TMU's scalars between param and fifo");

void qpu_copy_state(gs_qpu *dst, const gs_qpu *src) {
  size_t after_regs = offsetof(gs_qpu, reg) + sizeof src->reg;
  const struct qpu_program *hint = dst->hint;
  unsigned hint_gen = dst->hint_gen;
  uint8_t hint_trust = dst->hint_trust, hint_checked = dst->hint_checked;
  uint64_t mask[2] = {dst->dirty[0] | QPU_ALWAYS_DIRTY0, dst->dirty[1]};
  mask[1] &= (1ull << (QREG_SMALL_IMM0 - 64)) - 1; /* the small immediates never change */
  /* Only a write to a regfile register (which its slot's dirty bit
   * records) stages anything in pend[] and next[]. */
  int staged = ((dst->dirty[0] >> QREG_RA0) | (dst->dirty[1] & ((1ull << (QREG_RB0 + 32 - 64)) - 1))) != 0;
  size_t from = staged ? after_regs : offsetof(gs_qpu, busy);
  qpu_copy_slots(dst, src, mask);
  /* Everything up to the TMU state, then each TMU's scalars. A TMU's
   * parameters are all zero between requests (end_request), so they are
   * copied only when dst stopped inside a request; its result FIFO is
   * never read beyond `count`, which the copy sets. */
  memcpy((char *)dst + from, (const char *)src + from, offsetof(gs_qpu, tmu) - from);
  for (int u = 0; u < 2; u++) {
    qpu_tmu_state *d = &dst->tmu[u];
    const qpu_tmu_state *t = &src->tmu[u];
    if (d->written | d->nwritten) memcpy(d->param, t->param, sizeof d->param);
    memcpy(&d->written, &t->written, offsetof(qpu_tmu_state, fifo) - offsetof(qpu_tmu_state, written));
  }
  dst->hint = hint, dst->hint_gen = hint_gen;
  dst->hint_trust = hint_trust, dst->hint_checked = hint_checked;
}

static void commit(gs_qpu *q, const qpu_pending_write *p) {
  gs_vec *r = &q->reg[p->reg];
  if (p->lanes == QPU_ALL_LANES && p->bytes == 0xffffffffu) { /* the common write: a copy */
    *r = p->v;
    return;
  }
  for (int i = 0; i < QPU_LANES; i++)
    if (p->lanes >> i & 1) r->u[i] = (r->u[i] & ~p->bytes) | (p->v.u[i] & p->bytes);
}

void qpu_retire(gs_qpu *q) {
  for (int k = 0; k < q->npend; k++) commit(q, &q->pend[k]);
  for (int k = 0; k < q->nnext; k++) q->pend[k] = q->next[k];
  q->npend = q->nnext;
  q->nnext = 0;
  if (q->sfu_delay > 0 && --q->sfu_delay == 0) q->reg[QREG_R4] = q->sfu_result;
  if (q->r5_pending) {
    q->reg[QREG_R5] = q->r5_next;
    q->r5_pending = 0;
  }
}

int qpu_uniform_pop(gs_gpu *g, gs_qpu *q, uint32_t *out) {
  if (q->unif_end && (q->unif_addr >= q->unif_end || q->unif_addr < q->unif_base))
    return qpu_fault(g, q, GS_EFAULT,
                     "uniform read at 0x%08x is past the end of the stream the driver wrote for this shader "
                     "(%u uniforms at 0x%08x): the draw gives it too few uniforms",
                     q->unif_addr, (q->unif_end - q->unif_base) / 4, q->unif_base);
  const void *p = gs_mem_ptr(g->mem, q->unif_addr, 4);
  if (!p)
    return qpu_fault(g, q, GS_EFAULT, "uniform read at 0x%08x is outside allocated GPU memory", q->unif_addr);
  memcpy(out, p, 4);
  q->unif_addr += 4;
  return GS_OK;
}

int qpu_io_would_block(gs_gpu *g, gs_qpu *q, uint64_t w) {
  (void)q;
  if (qpu_is_semaphore(w)) {
    uint8_t count = qpu_cluster_of(g)->sem[qpu_get(w, QPU_F_SEM_NUM)];
    return qpu_get(w, QPU_F_SEM_SA) ? count == 0 : count == 15;
  }
  if (qpu_reads_mutex(w)) return qpu_cluster_of(g)->mutex_owner != -1;
  return 0;
}

int qpu_io_semaphore(gs_gpu *g, gs_qpu *q, uint64_t w) {
  uint8_t *count = &qpu_cluster_of(g)->sem[qpu_get(w, QPU_F_SEM_NUM)];
  (void)q;
  if (qpu_get(w, QPU_F_SEM_SA)) (*count)--;
  else (*count)++;
  return GS_OK;
}

static void broadcast(gs_vec *out, uint32_t v) {
  for (int i = 0; i < QPU_LANES; i++) out->u[i] = v;
}

int qpu_io_read(gs_gpu *g, gs_qpu *q, int file, unsigned addr, gs_vec *out) {
  uint32_t v;
  int rc;
  switch (addr) {
  case QPU_R_UNIF:
    if ((rc = qpu_uniform_pop(g, q, &v)) < 0) return rc;
    broadcast(out, v);
    return GS_OK;
  case QPU_R_VARY:
    if (!q->shader_io || !q->shader_io->varying)
      return qpu_fault(g, q, GS_EHANG, "varying read in a program that has no varyings (only fragment shaders do)");
    if ((rc = q->shader_io->varying(q->shader_io->ctx, q, out, &q->r5_next)) < 0) return rc;
    q->r5_pending = 1;
    return GS_OK;
  case QPU_R_ELEM_QPU:
    for (int i = 0; i < QPU_LANES; i++) out->u[i] = file ? (uint32_t)q->num : (uint32_t)i;
    return GS_OK;
  case QPU_R_VPM:
    return qpu_vpm_read(g, q, out);
  case QPU_R_MUTEX:
    qpu_cluster_of(g)->mutex_owner = q->num;
    broadcast(out, 0);
    return GS_OK;
  case QPU_R_XY_COORD: /* fragment payload; 0 outside fragment shaders (reset) */
    *out = q->payload[file ? QPU_PAYLOAD_Y : QPU_PAYLOAD_X];
    return GS_OK;
  case QPU_R_MS_REV:
    *out = q->payload[file ? QPU_PAYLOAD_REV : QPU_PAYLOAD_MS];
    return GS_OK;
  case QPU_R_NOP:
  case QPU_R_BUSY:     /* DMA completes at once: never busy */
  case QPU_R_WAIT:     /* ... and never waits */
    broadcast(out, 0);
    return GS_OK;
  default:
    return qpu_fault(g, q, GS_EINVAL, "read of unmapped regfile-%c address %u", file ? 'B' : 'A', addr);
  }
}

int qpu_io_write(gs_gpu *g, gs_qpu *q, int side, unsigned addr, const gs_vec *v, uint16_t lanes) {
  if (!lanes) return GS_OK;
  int elem0 = lanes & 1;
  switch (addr) {
  case QPU_W_TMU_NOSWAP: /* TMU swapping is invisible to programs */
  case QPU_W_NOP:
    return GS_OK;
  case QPU_W_ACC5: {
    gs_vec *r5 = &q->reg[QREG_R5];
    for (int i = 0; i < QPU_LANES; i++)
      if (lanes >> i & 1) r5->u[i] = side ? v->u[0] : v->u[i & ~3];
    return GS_OK;
  }
  case QPU_W_HOST_INT:
    if (elem0 && v->u[0]) q->host_interrupt = 1;
    return GS_OK;
  case QPU_W_UNIFORMS_ADDRESS:
    if (elem0) {
      q->unif_addr = side ? q->unif_base + v->u[0] : v->u[0];
      if (!side) q->unif_end = 0; /* a stream of the program's choosing: no limit */
    }
    return GS_OK;
  case QPU_W_QUAD_XY:
  case QPU_W_MS_REV: {
    if (addr == QPU_W_MS_REV && !side && !(q->gates & GS_GATE_SAMPLE_MASK)) {
      qpu_exception(q, "a write to MS_FLAGS (the sample mask), but the program's SPH has OmapSampleMask 0: ignored");
      return GS_OK;
    }
    gs_vec *r = &q->payload[addr == QPU_W_QUAD_XY ? (side ? QPU_PAYLOAD_Y : QPU_PAYLOAD_X)
                                                  : (side ? QPU_PAYLOAD_REV : QPU_PAYLOAD_MS)];
    for (int i = 0; i < QPU_LANES; i++)
      if (lanes >> i & 1) r->u[i] = v->u[i];
    return GS_OK;
  }
  case QPU_W_TLB_STENCIL:
  case QPU_W_TLB_Z:
  case QPU_W_TLB_COLOUR_MS:
  case QPU_W_TLB_COLOUR_ALL:
  case QPU_W_TLB_ALPHA_MASK:
    if (q->shader_io && q->shader_io->tlb_write)
      return q->shader_io->tlb_write(q->shader_io->ctx, q, addr, v, lanes);
    return qpu_fault(g, q, GS_EINVAL, "write to %s: the tile buffer is only reachable from fragment shaders",
                     qpu_waddr_names[side][addr]);
  case QPU_W_VPM:
    return qpu_vpm_write(g, q, v);
  case QPU_W_VPMVCD_SETUP:
    if (!elem0) return GS_OK;
    return side ? qpu_vpm_write_setup(g, q, v->u[0]) : qpu_vpm_read_setup(g, q, v->u[0]);
  case QPU_W_VPM_ADDR:
    if (!elem0) return GS_OK;
    if (!(q->gates & GS_GATE_LOAD_STORE) || (side && !(q->gates & GS_GATE_GLOBAL_STORE))) {
      qpu_exception(q, "a %s 0x%08x, but the program's SPH has %s 0: dropped",
                    side ? "VDW DMA store to" : "VCD DMA load from", v->u[0],
                    !(q->gates & GS_GATE_LOAD_STORE) ? "DoesLoadOrStore" : "DoesGlobalStore");
      return GS_OK;
    }
    return side ? qpu_vpm_dma_store(g, q, v->u[0]) : qpu_vpm_dma_load(g, q, v->u[0]);
  case QPU_W_MUTEX_RELEASE:
    if (qpu_cluster_of(g)->mutex_owner != q->num)
      return qpu_fault(g, q, GS_EINVAL, "mutex released by a QPU that does not hold it");
    qpu_cluster_of(g)->mutex_owner = -1;
    return GS_OK;
  case QPU_W_SFU_RECIP:
  case QPU_W_SFU_RECIPSQRT:
  case QPU_W_SFU_EXP:
  case QPU_W_SFU_LOG: {
    uint32_t (*fn)(uint32_t) = addr == QPU_W_SFU_RECIP ? sfu_recip
                               : addr == QPU_W_SFU_RECIPSQRT ? sfu_recipsqrt
                               : addr == QPU_W_SFU_EXP ? sfu_exp2 : sfu_log2;
    for (int i = 0; i < QPU_LANES; i++) q->sfu_result.u[i] = fn(v->u[i]);
    q->sfu_delay = 3;
    return GS_OK;
  }
  default:
    if (qpu_waddr_is_tmu(addr)) {
      unsigned k = addr - QPU_W_TMU0_S;
      return qpu_tmu_write(g, q, (int)(k >> 2), (int)(k & 3), v, lanes);
    }
    return qpu_fault(g, q, GS_EINVAL, "write to register %u (%s) is not an I/O write", addr,
                     qpu_waddr_names[side][addr & 63]);
  }
}

int qpu_io_signal(gs_gpu *g, gs_qpu *q, unsigned sig) {
  switch (sig) {
  case QPU_SIG_LDTMU0:
  case QPU_SIG_LDTMU1:
    return qpu_tmu_pop(g, q, sig == QPU_SIG_LDTMU1, &q->reg[QREG_R4]);
  case QPU_SIG_BKPT:
    return qpu_fault(g, q, GS_EINVAL, "software breakpoint (bkpt)");
  case QPU_SIG_LOADCV:
  case QPU_SIG_LOADC:
  case QPU_SIG_LDCEND:
  case QPU_SIG_LOADAM:
    if (q->shader_io && q->shader_io->tlb_load)
      return q->shader_io->tlb_load(q->shader_io->ctx, q, sig, &q->reg[QREG_R4]);
    return qpu_fault(g, q, GS_EINVAL, "%s: the tile buffer is only reachable from fragment shaders",
                     qpu_sig_names[sig]);
  default: /* thrsw, lthrsw, sbwait, sbdone: nothing to do for a single-threaded user program */
    return GS_OK;
  }
}
