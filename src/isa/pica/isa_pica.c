/* isa_pica.c — DMP PICA200 as a gs_isa (src/isa/isa.h): the assembler (asm.c), the
 * disassembler of SHBIN files (shbin.c, disasm.c) and the pipeline unit (unit.c), which runs
 * a SHBIN's vertex shader as the vertex and coordinate stages (docs/pica-unit.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isa/isa.h"
#include "isa/pica/pica.h"
#include "isa/pica/unit.h"

static int assemble(const char *src, const char *file, uint32_t base, gs_isa_binary *out, gs_diag *d) {
  (void)base; /* targets are word addresses, whatever the load address */
  return pica_asm(src, file, out, d);
}

/* Several files into one DVLB, a DVLE per file (picasso's model, asm.c). */
static int assemble_files(const char *const *src, const char *const *file, size_t n, uint32_t base,
                          gs_isa_binary *out, gs_diag *d) {
  (void)base;
  pica_asm_src *s = calloc(n ? n : 1, sizeof *s);
  if (!s) return gs_diag_set(d, GS_ENOMEM, "pica: out of memory");
  for (size_t i = 0; i < n; i++) s[i].text = src[i], s[i].file = file[i];
  int rc = pica_asm_files(s, n, 0, out, d);
  free(s);
  return rc;
}

/* The SHBIN as assembler text: directives, then the program (disasm.c). */
static int disassemble(const uint8_t *bytes, size_t size, uint32_t base, char **text, gs_diag *d) {
  (void)base;
  *text = NULL;
  pica_shbin s;
  int rc = pica_shbin_read(bytes, size, &s, d);
  if (rc < 0) return rc;
  rc = pica_disasm_shbin(&s, text, d);
  pica_shbin_free(&s);
  return rc;
}

const gs_isa gs_isa_pica = {
  .name = "pica",
  .id = GS_ISA_PICA,
  .title = "DMP PICA200",
  .lanes = 16,
  .code_align = 4,
  .transforms_vertices = 1,
  .vertex_only = 1,
  /* The fill frame's fragment stage: one texture combiner stage replacing
   * with the constant colour (0.6, 0.4, 0.2, 1) and the rasterised Z
   * written, {{sources = {"constant"}, constant = {0.6, 0.4, 0.2, 1}},
   * depth = true}, as the QPU program the driver makes of it
   * (gs_tev_qpu_source, docs/pica-combiners.md; tests/test_pica_unit.c
   * assembles both to the same code): what a PICA200 scene's fragments
   * run (gpusim scenes/cube.lua pica): its output is one colour, which the
 * driver packs itself, 0.6 x 255 = 153 = 0x99 and so on. */
  .bench_fragment =
      "    mov tlb_z, rb15\n"
      "    ldi r3, 0xff336699\n"
      "    mov tlb_colour_all, r3\n"
      "    thrend\n"
      "    nop\n"
      "    sbdone\n",
  .assemble = assemble,
  .assemble_files = assemble_files,
  .disassemble = disassemble,
  .context_new = pica_context_new,
  .context_free = pica_context_free,
  .unit_new = pica_unit_new,
  .unit_free = pica_unit_free,
  .prepare = pica_prepare,
  .trust_code = pica_trust_code,
  .fp_env = pica_fp_env,
  .idle = pica_idle,
  .run_vertex = pica_run_vertex,
  .run_fragment = pica_run_fragment,
};
