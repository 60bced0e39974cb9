/* asm.c — PLACEHOLDER, replaced by the assembler. */
#include "gpusim/qpu.h"
int gs_qpu_asm(const char *src, const char *filename, uint32_t base, uint64_t **words, size_t *n, gs_diag *d) {
  (void)src; (void)base; (void)words; (void)n; return gs_diag_set(d, GS_EASM, "%s: assembler not built yet", filename);
}
