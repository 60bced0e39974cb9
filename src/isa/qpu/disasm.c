/* disasm.c — PLACEHOLDER, replaced by the disassembler. */
#include <stdio.h>
#include "gpusim/qpu.h"
size_t gs_qpu_disasm_word(uint64_t w, char *buf, size_t len) { return (size_t)snprintf(buf, len, ".dword 0x%016llx", (unsigned long long)w); }
int gs_qpu_disasm(const uint64_t *w, size_t n, uint32_t base, char **text, gs_diag *d) { (void)w; (void)n; (void)base; (void)text; return gs_diag_set(d, GS_EINVAL, "disassembler not built yet"); }
