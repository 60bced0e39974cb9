/* exec_ref.c — PLACEHOLDER, replaced by the reference interpreter. */
#include "isa/qpu/decode.h"
#include "v3d/v3d.h"
int qpu_step_ref(gs_gpu *g, gs_qpu *q) { return qpu_fault(g, q, GS_EINVAL, "reference interpreter not built yet"); }
