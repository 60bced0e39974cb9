/* tmu_io.c — the QPU's TMU registers (unit_io.h): request assembly from the
 * parameter writes, the config uniforms they pop, the per-QPU result FIFO
 * and ldtmu, over the neutral sampler of v3d/tmu.h. Facts: RG §4; choices:
 * docs/v3d-units.md.
 */
#include <string.h>
#include "isa/qpu/qpu.h"
#include "isa/qpu/unit_io.h"
#include "v3d/tmu.h"
#include "v3d/v3d.h"

static int texture_lookup(gs_gpu *g, gs_qpu *q, int unit, const gs_vec *s, uint16_t lanes, uint32_t *out) {
  const qpu_tmu_state *t = &q->tmu[unit];
  tmu_texture tex;
  gs_diag d;
  /* the border colour is element 0 of R (docs/v3d-units.md, "Wrap modes") */
  tmu_lanes l = {QPU_LANES, lanes, s->u, t->param[QPU_TMU_T], t->param[QPU_TMU_B], t->param[QPU_TMU_R][0]};
  if (tmu_texture_decode(t->cfg, t->nwritten, unit, &tex, &d) < 0 || tmu_sample(g->mem, &tex, unit, &l, out, &d) < 0)
    return qpu_fault_diag(g, q, &d);
  return GS_OK;
}

static int direct_lookup(gs_gpu *g, gs_qpu *q, int unit, const gs_vec *v, uint16_t lanes, uint32_t *out) {
  gs_diag d;
  if (!(q->gates & GS_GATE_LOAD_STORE)) { /* a load from memory: reads 0 */
    qpu_exception(q, "a TMU%d direct memory read, but the program's SPH has DoesLoadOrStore 0: it reads 0", unit);
    for (int i = 0; i < QPU_LANES; i++) out[i] = 0;
    return GS_OK;
  }
  if (tmu_direct_read(g->mem, unit, QPU_LANES, lanes, v->u, out, &d) < 0) return qpu_fault_diag(g, q, &d);
  return GS_OK;
}

static void end_request(qpu_tmu_state *t) {
  memset(t->param, 0, sizeof t->param);
  t->written = t->nwritten = 0;
}

static const char tmu_param_names[4] = {'S', 'T', 'R', 'B'};

int qpu_tmu_write(gs_gpu *g, gs_qpu *q, int unit, int p, const gs_vec *v, uint16_t lanes) {
  qpu_tmu_state *t = &q->tmu[unit];
  int rc;
  if (p != QPU_TMU_S) {
    if (t->written >> p & 1)
      return qpu_fault(g, q, GS_EINVAL, "TMU%d %c written twice in one request", unit, tmu_param_names[p]);
    if ((rc = qpu_uniform_pop(g, q, &t->cfg[t->nwritten])) < 0) return rc;
    t->nwritten++;
    t->written |= (uint8_t)(1u << p);
    for (int i = 0; i < QPU_LANES; i++) t->param[p][i] = lanes >> i & 1 ? v->u[i] : 0;
    return GS_OK;
  }
  if (t->count == QPU_TMU_FIFO_DEPTH)
    return qpu_fault(g, q, GS_EHANG,
                     "TMU%d result FIFO overflow: request %d queued while %d results wait for ldtmu%d "
                     "(FIFO depth %d; the hardware would stall forever)",
                     unit, QPU_TMU_FIFO_DEPTH + 1, QPU_TMU_FIFO_DEPTH, unit, QPU_TMU_FIFO_DEPTH);
  uint32_t *slot = t->fifo[(t->head + t->count) % QPU_TMU_FIFO_DEPTH];
  if (!t->written) {
    rc = direct_lookup(g, q, unit, v, lanes, slot);
  } else if ((rc = qpu_uniform_pop(g, q, &t->cfg[t->nwritten])) >= 0) {
    t->nwritten++;
    rc = texture_lookup(g, q, unit, v, lanes, slot);
  }
  end_request(t);
  if (rc < 0) return rc;
  t->count++;
  return GS_OK;
}

int qpu_tmu_pop(gs_gpu *g, gs_qpu *q, int unit, gs_vec *out) {
  qpu_tmu_state *t = &q->tmu[unit];
  if (t->count == 0)
    return qpu_fault(g, q, GS_EHANG, "ldtmu%d with no TMU%d result pending (the hardware would block forever)", unit,
                     unit);
  memcpy(out->u, t->fifo[t->head], sizeof out->u);
  t->head = (uint8_t)((t->head + 1) % QPU_TMU_FIFO_DEPTH);
  t->count--;
  return GS_OK;
}
