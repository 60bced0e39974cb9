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

static const char *const out_types[10] = {"position", "normalquat", "color", "texcoord0", "texcoord0w",
                                          "texcoord1", "texcoord2", "?", "view", "dummy"};

/* The SHBIN's executables as comment lines, then the program. */
static int disassemble(const uint8_t *bytes, size_t size, uint32_t base, char **text, gs_diag *d) {
  (void)base;
  *text = NULL;
  pica_shbin s;
  int rc = pica_shbin_read(bytes, size, &s, d);
  if (rc < 0) return rc;
  char *prog;
  if ((rc = pica_disasm(s.code, s.ncode, s.opdesc, s.nopdesc, &prog, d)) < 0) {
    pica_shbin_free(&s);
    return rc;
  }
  size_t cap = strlen(prog) + 256, len = 0;
  for (size_t k = 0; k < s.ndvle; k++)
    cap += 128 + 80 * (s.dvle[k].nconsts + s.dvle[k].noutputs) + 16 * s.dvle[k].nuniforms + s.size;
  char *t = malloc(cap);
  if (!t) {
    free(prog);
    pica_shbin_free(&s);
    return gs_diag_set(d, GS_ENOMEM, "pica: out of memory");
  }
#define PUT(...) (len += (size_t)snprintf(t + len, cap - len, __VA_ARGS__))
  PUT("; DVLB: %zu executable(s), %zu program words, %zu operand descriptors\n", s.ndvle, s.ncode, s.nopdesc);
  for (size_t k = 0; k < s.ndvle; k++) {
    const pica_dvle *e = &s.dvle[k];
    PUT("; dvle %zu: %s shader, main 0x%03x, end 0x%03x, inputs 0x%04x, outputs 0x%04x\n", k,
        e->type ? "geometry" : "vertex", e->main, e->end, e->in_mask, e->out_mask);
    for (size_t i = 0; i < e->noutputs; i++) {
      const pica_output *o = &e->outputs[i];
      PUT(";   .out o%u %s.%s%s%s%s\n", o->reg, out_types[o->type], o->mask & 1 ? "x" : "", o->mask & 2 ? "y" : "",
          o->mask & 4 ? "z" : "", o->mask & 8 ? "w" : "");
    }
    for (size_t i = 0; i < e->nconsts; i++) {
      const pica_const *c = &e->consts[i];
      if (c->type == 0) PUT(";   .setb b%u(%u)\n", c->reg, c->v[0]);
      else if (c->type == 1) PUT(";   .seti i%u(%u, %u, %u, %u)\n", c->reg, c->v[0], c->v[1], c->v[2], c->v[3]);
      else PUT(";   c%u = float24 (0x%06x, 0x%06x, 0x%06x, 0x%06x)\n", c->reg, c->v[0] & 0xFFFFFFu,
               c->v[1] & 0xFFFFFFu, c->v[2] & 0xFFFFFFu, c->v[3] & 0xFFFFFFu);
    }
    for (size_t i = 0; i < e->nuniforms; i++)
      PUT(";   uniform %s 0x%02x-0x%02x\n", e->uniforms[i].name, e->uniforms[i].first, e->uniforms[i].last);
  }
  PUT("%s", prog);
#undef PUT
  free(prog);
  pica_shbin_free(&s);
  *text = t;
  return GS_OK;
}

const gs_isa gs_isa_pica = {
  .name = "pica",
  .id = GS_ISA_PICA,
  .title = "DMP PICA200",
  .lanes = 16,
  .code_align = 4,
  .transforms_vertices = 1,
  .assemble = assemble,
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
