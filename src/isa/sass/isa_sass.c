/* isa_sass.c — NVIDIA Maxwell SASS as a gs_isa (src/isa/isa.h): the text
 * tools (asm.c, disasm.c) and the pipeline unit (unit.c). */
#include "isa/isa.h"
#include "isa/sass/exec.h"
#include "isa/sass/table.h"
#include "isa/sass/unit.h"
#include "v3d/v3d.h"

static int assemble(const char *src, const char *file, uint32_t base, gs_isa_binary *out, gs_diag *d) {
  (void)base; /* branch targets are code offsets, whatever the load address */
  return sass_asm(src, file, out, d);
}

static int disassemble(const uint8_t *bytes, size_t size, uint32_t base, char **text, gs_diag *d) {
  (void)base;
  return sass_disasm(bytes, size, text, d);
}

/* gs_isa.fragment_reads: a pixel program reads the batch's inputs only
 * through IPA (src/isa/sass/attr.c, sass_ipa: the position's x, y, z and
 * w, a generic attribute's plane, offset and W; the unit gives S2R no
 * pixel register): everything with an IPA, else nothing. Everything under
 * the debugger or without a program. */
static uint32_t fragment_reads(gs_gpu *g, gs_isa_unit *u, gs_addr code) {
  const sass_program *p = g->debug ? NULL : sass_unit_program(g, u, code);
  if (!p) return GS_FRAG_READS_ALL;
  for (size_t i = 0; i < p->n; i++)
    if (p->insn[i].op == SASS_OP_IPA) return GS_FRAG_READS_ALL;
  return 0;
}

const gs_isa gs_isa_sass = {
  .name = "sass",
  .id = GS_ISA_SASS,
  .title = "NVIDIA Maxwell SASS",
  .lanes = 32,
  .code_align = 8,
  .transforms_vertices = 1,
  .bench_fragment = "    MOV32I R0, 0x3f19999a ;\n" /* 0.6 x 255 = 153 = 0x99 */
                    "    MOV32I R1, 0x3ecccccd ;\n" /* 0.4: 0x66 */
                    "    MOV32I R2, 0x3e4ccccd ;\n" /* 0.2: 0x33 */
                    "    MOV32I R3, 0x3f800000 ;\n" /* 1.0: 0xff */
                    "    EXIT ;\n",
  .assemble = assemble,
  .disassemble = disassemble,
  .context_new = sass_context_new,
  .context_free = sass_context_free,
  .unit_new = sass_unit_new,
  .unit_free = sass_unit_free,
  .prepare = sass_prepare,
  .trust_code = sass_trust_code,
  .fp_env = sass_fp_env,
  .idle = sass_idle,
  .run_vertex = sass_run_vertex,
  .run_fragment = sass_run_fragment,
  .fragment_reads = fragment_reads,
};
