/* unit.h — the SASS unit's hooks of the shader-unit contract (unit.c),
 * which isa_sass.c puts in gs_isa_sass. */
#ifndef GS_ISA_SASS_UNIT_H
#define GS_ISA_SASS_UNIT_H

#include "isa/isa.h"

void *sass_context_new(gs_gpu *g);
void sass_context_free(void *ctx);
gs_isa_unit *sass_unit_new(gs_gpu *g, int num, struct gs_vpm *vpm, gs_diag *diag);
void sass_unit_free(gs_isa_unit *u);
int sass_prepare(gs_gpu *g, gs_isa_unit *u, gs_addr code);
void sass_trust_code(gs_isa_unit *u, int on);
gs_fp_env sass_fp_env(const gs_gpu *g, gs_fp_env base);
void sass_idle(gs_gpu *g);
int sass_run_vertex(gs_gpu *g, gs_isa_unit *u, const gs_vertex_io *io);
int sass_run_fragment(gs_gpu *g, gs_isa_unit *u, const gs_frag_io *io, unsigned n, unsigned *ran);
/* The decoded program at code as the unit's runs find it, or NULL (the
 * error in the unit's diag). */
struct sass_program;
const struct sass_program *sass_unit_program(gs_gpu *g, gs_isa_unit *u, gs_addr code);

#endif
