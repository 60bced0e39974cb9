/* exec.c — PLACEHOLDER, replaced by the fast interpreter. */
#include <stdlib.h>
#include "isa/qpu/decode.h"
#include "v3d/v3d.h"
struct qpu_cache { int unused; };
qpu_cache *qpu_cache_new(void) { return calloc(1, sizeof(qpu_cache)); }
void qpu_cache_free(qpu_cache *c) { free(c); }
int qpu_run_fast(gs_gpu *g, gs_qpu *q, uint32_t max) {
  for (uint32_t k = 0; k < max; k++) { int rc = qpu_step_ref(g, q); if (rc != QPU_STEP_OK) return rc; }
  return QPU_STEP_OK;
}
