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
  .fetches_attributes = 1, /* the vertex prolog (prolog.c) loads them */
  /* render target 0's colour in r4-r7 (the fragment epilog's registers), the
   * rasterised Z (no OmapDepth) */
  .bench_fragment = "    ldimm r4, 1058642330\n" /* 0x3f19999a = 0.6: x 255 = 153 = 0x99 */
                    "    ldimm r5, 1053609165\n" /* 0x3ecccccd = 0.4: 0x66 */
                    "    ldimm r6, 1045220557\n" /* 0x3e4ccccd = 0.2: 0x33 */
                    "    ldimm r7, 1065353216\n" /* 0x3f800000 = 1.0: 0xff */
                    "    stop\n",
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
  .fragment_reads = agx_fragment_reads,
};
