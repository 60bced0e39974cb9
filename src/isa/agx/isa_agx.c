/* isa_agx.c — Apple AGX (G13) as a gs_isa (src/isa/isa.h): the text tools
 * (asm.c, disasm.c) and the unit in the pipeline (unit.c,
 * docs/agx-unit.md). docs/agx.md. */
#include "isa/agx/table.h"
#include "isa/agx/unit.h"
#include "isa/isa.h"

static int assemble(const char *src, const char *file, uint32_t base, gs_isa_binary *out, gs_diag *d) {
  (void)base; /* branch offsets are relative, whatever the load address */
  return agx_asm(src, file, out, d);
}

static int disassemble(const uint8_t *bytes, size_t size, uint32_t base, char **text, gs_diag *d) {
  (void)base;
  return agx_disasm(bytes, size, text, d);
}

const gs_isa gs_isa_agx = {
  .name = "agx",
  .id = GS_ISA_AGX,
  .title = "Apple AGX (G13)",
  .lanes = 32,
  .code_align = 2,
  .transforms_vertices = 1,
  .assemble = assemble,
  .disassemble = disassemble,
  .context_new = agx_context_new,
  .context_free = agx_context_free,
  .unit_new = agx_unit_new,
  .unit_free = agx_unit_free,
  .prepare = agx_prepare,
  .trust_code = agx_trust_code,
  .fp_env = agx_fp_env,
  .idle = agx_idle,
  .run_vertex = agx_run_vertex,
  .run_fragment = agx_run_fragment,
};
