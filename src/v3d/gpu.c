/* gpu.c — the gs_gpu context: creation, configuration, last error. */
#include <stdlib.h>
#include <string.h>
#include "v3d/v3d.h"
#include "isa/qpu/decode.h"

gs_gpu *gs_gpu_new(const gs_gpu_config *cfg) {
  gs_gpu *g = calloc(1, sizeof *g);
  if (!g) return NULL;
  if (cfg) g->cfg = *cfg;
  if (g->cfg.mem_limit == 0) g->cfg.mem_limit = GS_MEM_DEFAULT_LIMIT;
  if (g->cfg.watchdog == 0) g->cfg.watchdog = GS_DEFAULT_WATCHDOG;
  if (g->cfg.qpus <= 0 || g->cfg.qpus > GS_MAX_QPUS) g->cfg.qpus = GS_MAX_QPUS;
  g->mutex_owner = -1;
  g->mem = gs_mem_new(g->cfg.mem_limit);
  g->cache = qpu_cache_new();
  if (!g->mem || !g->cache) {
    gs_gpu_free(g);
    return NULL;
  }
  for (int i = 0; i < GS_MAX_QPUS; i++) {
    /* aligned_alloc: gs_qpu holds 64-byte-aligned vectors */
    size_t size = (sizeof(gs_qpu) + 63) & ~(size_t)63;
    g->qpu[i] = aligned_alloc(64, size);
    if (!g->qpu[i]) {
      gs_gpu_free(g);
      return NULL;
    }
    memset(g->qpu[i], 0, sizeof(gs_qpu));
    g->qpu[i]->num = i;
  }
  return g;
}

void gs_gpu_free(gs_gpu *g) {
  if (!g) return;
  for (int i = 0; i < GS_MAX_QPUS; i++) free(g->qpu[i]);
  qpu_cache_free(g->cache);
  gs_mem_free(g->mem);
  free(g);
}

gs_mem *gs_gpu_mem(gs_gpu *g) { return g->mem; }
gs_gpu_config *gs_gpu_config_of(gs_gpu *g) { return &g->cfg; }
const char *gs_gpu_error(const gs_gpu *g) { return g->diag.msg; }
gs_diag *gs_gpu_diag(gs_gpu *g) { return &g->diag; }
