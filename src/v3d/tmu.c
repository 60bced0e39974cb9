/* tmu.c — PLACEHOLDER, replaced by the TMU model. */
#include "isa/qpu/qpu.h"
#include "v3d/v3d.h"
int tmu_write(gs_gpu *g, gs_qpu *q, int u, int p, const gs_vec *v, uint16_t l) { (void)u; (void)p; (void)v; (void)l; return qpu_fault(g, q, GS_EINVAL, "TMU not built yet"); }
int tmu_pop(gs_gpu *g, gs_qpu *q, int u, gs_vec *o) { (void)u; (void)o; return qpu_fault(g, q, GS_EINVAL, "TMU not built yet"); }
