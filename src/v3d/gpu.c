/* gpu.c — the gs_gpu context: creation, configuration, last error. */
#include <stdlib.h>
#include <string.h>
#include "v3d/v3d.h"

gs_gpu *gs_gpu_new(const gs_gpu_config *cfg) {
  gs_gpu *g = calloc(1, sizeof *g);
  if (!g) return NULL;
  if (cfg) g->cfg = *cfg;
  if (g->cfg.mem_limit == 0) g->cfg.mem_limit = GS_MEM_DEFAULT_LIMIT;
  if (g->cfg.watchdog == 0) g->cfg.watchdog = GS_DEFAULT_WATCHDOG;
  g->mem = gs_mem_new(g->cfg.mem_limit);
  if (!g->mem) {
    gs_gpu_free(g);
    return NULL;
  }
  for (unsigned i = 0; gs_isa_at(i); i++) {
    const gs_isa *isa = gs_isa_at(i);
    if (isa->context_new && !(g->isa_ctx[isa->id] = isa->context_new(g))) {
      gs_gpu_free(g);
      return NULL;
    }
  }
  return g;
}

void gs_gpu_free(gs_gpu *g) {
  if (!g) return;
  for (unsigned i = 0; gs_isa_at(i); i++) {
    const gs_isa *isa = gs_isa_at(i);
    if (isa->context_free && g->isa_ctx[isa->id]) isa->context_free(g->isa_ctx[isa->id]);
  }
  gs_mem_free(g->mem);
  free(g);
}

void *gs_isa_context(gs_gpu *g, gs_isa_id id) { return (unsigned)id < GS_ISA_IDS ? g->isa_ctx[id] : NULL; }

gs_mem *gs_gpu_mem(gs_gpu *g) { return g->mem; }
gs_gpu_config *gs_gpu_config_of(gs_gpu *g) { return &g->cfg; }
const char *gs_gpu_error(const gs_gpu *g) { return g->diag.msg; }
gs_diag *gs_gpu_diag(gs_gpu *g) { return &g->diag; }
